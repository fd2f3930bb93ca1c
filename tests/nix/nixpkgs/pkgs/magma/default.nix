# Mimics nixpkgs' pkgs/by-name/ma/magma/package.nix (read at eddf5815 and
# 06b5cdf2: magma 2.9.0; passthru cudaPackages/cudaSupport/rocmSupport/gpuTargets,
# CMAKE_CUDA_ARCHITECTURES from cudaPackages.flags, MIN_ARCH, meta.broken).
# `patches` is a list so an overlay can add one with
# `magma.overrideAttrs (old: { patches = (old.patches or [ ]) ++ [ ... ]; })`;
# the newest impersonated pin (2017d6d) already carries a CUDA 13 fix.
# magma-cuda-static (what torch uses with CUDA) is `magma.override { ... }` in
# all-packages, so an overlay on `magma` reaches torch.
rev:
{
  autoPatchelfHook ? null,
  blas,
  cmake,
  cudaPackages,
  cudaSupport ? config.cudaSupport,
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
in
effectiveStdenv.mkDerivation {
  pname = "magma";
  inherit version;

  src = fetchurl {
    name = "magma-${version}.tar.gz";
    url = "https://icl.cs.utk.edu/projectsfiles/magma/downloads/magma-${version}.tar.gz";
    sha256 = builtins.hashString "sha256" "fake:magma-${version}.tar.gz";
  };

  patches = map (p: ./. + "/${p}") rev.magmaPatches;

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
