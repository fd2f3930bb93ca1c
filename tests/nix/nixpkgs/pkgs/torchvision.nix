# Mimics nixpkgs' torchvision: no cudaSupport argument; CUDA settings come
# from the torch it is given, and TORCH_CUDA_ARCH_LIST follows
# torch.cudaCapabilities (NOT torch's gpuTargets).
{
  lib,
  stdenv,
  buildPythonPackage,
  fetchFromGitHub,
  torch,
  pillow,
  numpy,
  ninja,
  which,
  setuptools,
}:
let
  inherit (torch) cudaCapabilities cudaPackages cudaSupport;
in
buildPythonPackage rec {
  pname = "torchvision";
  version = "0.23.0";
  pyproject = true;

  src = fetchFromGitHub {
    owner = "pytorch";
    repo = "vision";
    tag = "v${version}";
    hash = "sha256-0000000000000000000000000000000000000000000=";
  };

  ${if cudaSupport then "TORCH_CUDA_ARCH_LIST" else null} = lib.concatStringsSep ";" cudaCapabilities;
  FORCE_CUDA = if cudaSupport then "1" else "0";

  nativeBuildInputs = [ ninja which setuptools ] ++ lib.optionals cudaSupport [ cudaPackages.cuda_nvcc ];
  buildInputs = lib.optionals cudaSupport [ cudaPackages.cuda_cudart cudaPackages.libcublas ];
  dependencies = [ torch pillow numpy ];

  passthru = { inherit torch; };

  meta = {
    description = "PyTorch vision library";
    homepage = "https://pytorch.org/";
    license = lib.licenses.bsd3;
    platforms = lib.platforms.linux ++ lib.platforms.darwin;
  };
}
