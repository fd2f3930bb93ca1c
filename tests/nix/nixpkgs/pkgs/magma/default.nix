# Mimics nixpkgs' pkgs/by-name/ma/magma/package.nix, magma 2.9.0: passthru
# cudaPackages/cudaSupport/rocmSupport/gpuTargets, CMAKE_CUDA_ARCHITECTURES from
# cudaPackages.flags, MIN_ARCH, meta.broken (read at NixOS/nixpkgs@eddf5815 and
# @06b5cdf2). What differs between the pins is `rev.magma` (revisions.nix):
#   patches: names, in nixpkgs' order, from `known` below. Each carries the
#     condition its text puts it under (the CUDA 13 fix under cudaSupport, the two
#     ROCm 7 patches under rocmSupport, the CMake 4 patch always); a fetchpatch with
#     the text's url and hash, or a local stand-in file where nixpkgs vendors one.
#   generate: the preConfigure that writes make.inc and runs `make generate`
#     (the texts that build from git with the upstream ROCm 7 patch have it).
# postPatch (patchShebangs) is in every text read, from eddf5815 to magma 2.10.0.
# ../../README.md names the commit of each fact and what stays inferred.
# A fix adds a patch with
# `magma.overrideAttrs (old: { patches = (old.patches or [ ]) ++ [ ... ]; })`.
# magma-cuda-static (what torch uses with CUDA) is `magma.override { ... }` in
# all-packages, so an overlay on `magma` reaches torch.
rev:
{
  autoPatchelfHook ? null,
  blas,
  cmake,
  cudaPackages,
  cudaSupport ? config.cudaSupport,
  fetchpatch,
  fetchurl,
  gfortran,
  gpuTargets ? [ ],
  lapack,
  lib,
  libpthreadstubs,
  ninja,
  python3,
  config,
  rocmPackages,
  rocmSupport ? config.rocmSupport,
  static ? stdenv.hostPlatform.isStatic,
  stdenv,
}:
let
  inherit (cudaPackages) cudaAtLeast flags;
  version = "2.9.0";
  effectiveStdenv = if cudaSupport then cudaPackages.backendStdenv else stdenv;
  minArch = let
    caps = flags.cudaCapabilities;
    asInt = c: lib.toInt (lib.replaceStrings [ "." "a" ] [ "" "" ] c);
  in toString (lib.foldl' (m: c: if asInt c < m then asInt c else m) 10000 caps);
  # Every patch a magma text of the pins' era names: url and hash as the text has them.
  known = {
    # NixOS/nixpkgs#444478 (2025-09-20, "Required to unbreak magma after the recent
    # CMake 4 bump"); read at NixOS/nixpkgs@06b5cdf2 and in the forks below.
    "drop-cmp0037-old.patch" = {
      when = true;
      patch = fetchpatch {
        name = "drop-cmp0037-old.patch";
        url = "https://github.com/icl-utk-edu/magma/commit/2fecaf3f0c811344363f713669c1fe30f6879acd.patch";
        hash = "sha256-Dfzq2gqoLSByCLWV5xvY/lXZeVa/yQ67lDSoIAa9jUU=";
      };
    };
    # NixOS/nixpkgs#487064 (2026-02-04); read at anund/nixpkgs@2b406e68 and
    # Swarsel/nixpkgs@4aa6836a: under cudaSupport, whatever the CUDA release.
    "fix-cuda13-compat.patch" = {
      when = cudaSupport;
      patch = fetchpatch {
        name = "fix-cuda13-compat.patch";
        url = "https://github.com/icl-utk-edu/magma/commit/235aefb7b064954fce09d035c69907ba8a87cbcd.patch";
        hash = "sha256-i9InbxD5HtfonB/GyF9nQhFmok3jZ73RxGcIciGBGvU=";
      };
    };
    # Read at NixOS/nixpkgs@06b5cdf2 (and GZGavinZhao/nixpkgs@2f735aea): under rocmSupport.
    "magma-ROCm-7.0-compat.patch" = {
      when = rocmSupport;
      patch = fetchpatch {
        name = "magma-ROCm-7.0-compat.patch";
        url = "https://github.com/icl-utk-edu/magma/commit/02ecee0ccc56cce85194fdda18c9e0614797b2f9.patch";
        hash = "sha256-vm58X30ZR02sOMsKrvxEcEF27tJYuuyZZrz+GGFNz5Q=";
        excludes = [ "testing/testing_ztrsv_batched.cpp" "CMakeLists.txt" "Makefile" ];
      };
    };
    "magma-hipblas-v2-buildflags.patch" = {
      when = rocmSupport;
      patch = ./magma-hipblas-v2-buildflags.patch;
    };
  };
in
effectiveStdenv.mkDerivation ({
  pname = "magma";
  inherit version;

  src = fetchurl {
    name = "magma-${version}.tar.gz";
    url = "https://icl.cs.utk.edu/projectsfiles/magma/downloads/magma-${version}.tar.gz";
    sha256 = builtins.hashString "sha256" "fake:magma-${version}.tar.gz";
  };

  patches = lib.concatMap (p: lib.optional known.${p}.when known.${p}.patch) rev.magma.patches;

  postPatch = ''
    # For rocm version script invoked by cmake
    patchShebangs tools/
    # Fixup for the python test runners
    patchShebangs ./testing/run_{tests,summarize}.py
  '';

  # Magma doesn't have a test suite we can easily run, just loose executables, all of which require a GPU.
  doCheck = false;

  nativeBuildInputs = [ cmake ninja python3 gfortran ]
    ++ lib.optionals cudaSupport [ cudaPackages.cuda_nvcc ];

  buildInputs = [ libpthreadstubs lapack blas python3 ]
    ++ lib.optionals cudaSupport (with cudaPackages; [ cuda_cccl cuda_cudart libcublas libcusparse cuda_profiler_api ])
    ++ lib.optionals rocmSupport [ rocmPackages.clr rocmPackages.hipblas rocmPackages.hipsparse ];

  cmakeFlags = [
    (lib.cmakeFeature "GPU_TARGET" (lib.concatStringsSep "," gpuTargets))
    (lib.cmakeBool "BUILD_SHARED_LIBS" (!static))
  ]
  ++ lib.optionals cudaSupport [
    (lib.cmakeFeature "CMAKE_CUDA_ARCHITECTURES" flags.cmakeCudaArchitecturesString)
    (lib.cmakeFeature "MIN_ARCH" minArch)
    (lib.cmakeBool "MAGMA_ENABLE_CUDA" true)
  ]
  ++ lib.optionals rocmSupport [ (lib.cmakeBool "MAGMA_ENABLE_HIP" true) ];

  # Magma doesn't have a test suite we can easily run, just loose executables, all of which require a GPU.
  buildFlags = [ "magma" "magma_sparse" ];

  passthru = {
    inherit cudaPackages cudaSupport rocmSupport gpuTargets;
  };

  meta = {
    description = "Matrix Algebra on GPU and Multicore Architectures";
    license = lib.licenses.bsd3;
    homepage = "https://icl.utk.edu/magma/";
    changelog = "https://github.com/icl-utk-edu/magma/blob/v${version}/ReleaseNotes";
    platforms = lib.platforms.linux;
    maintainers = [ ];
    # Cannot be built without CUDA or ROCm; CUDA builds must be static (as read at 06b5cdf2).
    broken = (cudaSupport && !static) || !(cudaSupport || rocmSupport) || (cudaSupport && rocmSupport);
  };
}
// lib.optionalAttrs rev.magma.generate {
  # README Step 0: generate precision variants and CMake.src.{hip|cuda} when building from git
  preConfigure = ''
    cat > make.inc <<EOF
    BACKEND = ${if rocmSupport then "hip" else "cuda"}
    FORT = true
    GPU_TARGET = ${if rocmSupport then "gfx900" else "sm_90"}
    EOF
    make -j$NIX_BUILD_CORES generate
  '';
})
