# Mimics nixpkgs' torchaudio: takes torch plus its own cudaSupport (defaulting
# to torch's) and gpuTargets (used for ROCm only); the CUDA arch list follows
# torch.cudaCapabilities.
{
  lib,
  stdenv,
  buildPythonPackage,
  fetchFromGitHub,
  torch,
  cudaSupport ? torch.cudaSupport,
  cudaPackages,
  gpuTargets ? [ ],
  rocmSupport ? false,
  cmake,
  ninja,
  pybind11,
  setuptools,
}:
buildPythonPackage rec {
  pname = "torchaudio";
  version = "2.8.0";
  pyproject = true;

  src = fetchFromGitHub {
    owner = "pytorch";
    repo = "audio";
    tag = "v${version}";
    hash = "sha256-0000000000000000000000000000000000000000000=";
  };

  ${if cudaSupport then "TORCH_CUDA_ARCH_LIST" else null} = lib.concatStringsSep ";" torch.cudaCapabilities;
  ${if rocmSupport then "PYTORCH_ROCM_ARCH" else null} = lib.concatStringsSep ";" gpuTargets;
  USE_CUDA = if cudaSupport then "1" else "0";
  USE_ROCM = if rocmSupport then "1" else "0";

  nativeBuildInputs = [ cmake ninja pybind11 setuptools ]
    ++ lib.optionals cudaSupport [ cudaPackages.cuda_nvcc ];
  buildInputs = lib.optionals cudaSupport [ cudaPackages.cuda_cudart cudaPackages.libcublas ];
  dependencies = [ torch ];

  passthru = { inherit torch; };

  meta = {
    description = "PyTorch audio library";
    homepage = "https://pytorch.org/";
    license = lib.licenses.bsd2;
    platforms = lib.platforms.linux ++ lib.platforms.darwin;
  };
}
