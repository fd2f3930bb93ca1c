# Mimics nixpkgs' magma closely enough for recipes that patch it with
# `magma.overrideAttrs (old: { patches = (old.patches or [ ]) ++ [ ... ]; })`.
{
  lib,
  stdenv,
  fetchurl,
  cmake,
  ninja,
  blas,
  lapack-reference,
  config,
  cudaSupport ? config.cudaSupport,
  cudaPackages,
  rocmSupport ? false,
  gpuTargets ? [ ],
}:
stdenv.mkDerivation rec {
  pname = "magma";
  version = "2.9.0";
  src = fetchurl {
    url = "https://icl.cs.utk.edu/projectsfiles/magma/downloads/magma-${version}.tar.gz";
    hash = "sha256-0000000000000000000000000000000000000000000=";
  };
  patches = [ ];
  nativeBuildInputs = [ cmake ninja ] ++ lib.optionals cudaSupport [ cudaPackages.cuda_nvcc ];
  buildInputs = [ blas lapack-reference ] ++ lib.optionals cudaSupport [ cudaPackages.libcublas ];
  ${if cudaSupport then "CMAKE_CUDA_ARCHITECTURES" else null} =
    cudaPackages.flags.cmakeCudaArchitecturesString;
  passthru = { inherit cudaSupport rocmSupport cudaPackages gpuTargets; };
  meta = {
    description = "Matrix Algebra on GPU and Multicore Architectures";
    license = lib.licenses.bsd3;
    platforms = lib.platforms.linux ++ lib.platforms.darwin;
  };
}
