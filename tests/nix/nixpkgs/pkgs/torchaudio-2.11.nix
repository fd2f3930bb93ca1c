# torchaudio 2.11.0 as read at SuperSandro2000/nixpkgs@25adaccfb6bdbbaf7d0effa8b5df6d35b8efca3e
# (pkgs/development/python-modules/torchaudio/default.nix; the same shape at
# Swarsel/nixpkgs@4aa6836a), argument for argument; test lists and passthru.gpuCheck
# are left out. No pin impersonated here carries it: torchaudio 2.11.0 was released
# after the newest of them. It is here to show what a later pin brings: torchaudio
# depends on torchcodec, and its tests (pytestCheckHook, doCheck defaults to true)
# pull in pytorch-lightning; both take the scope's torch. A test puts it in place with
# `pythonPackagesExtensions` (see tests/test_torch_closure.py). No `...`.
{
  lib,
  stdenv,
  buildPythonPackage,
  fetchFromGitHub,
  llvmPackages,
  setuptools,
  torch,
  torchcodec,
  inflect,
  parameterized,
  pytestCheckHook,
  pytorch-lightning,
  scipy,
  sentencepiece,
  unidecode,
  torchaudio,
  cudaSupport ? torch.cudaSupport,
  cudaPackages,
  rocmSupport ? torch.rocmSupport,
}:
let
  version = "2.11.0";
in
buildPythonPackage.override { inherit (torch) stdenv; } {
  pname = "torchaudio";
  inherit version;
  pyproject = true;

  src = fetchFromGitHub {
    owner = "pytorch";
    repo = "audio";
    tag = "v${version}";
    sha256 = builtins.hashString "sha256" "fake:pytorch/audio@v${version}";
  };

  env = {
    TORCHAUDIO_TEST_ALLOW_SKIP_IF_NO_CTC_DECODER = 1;
    USE_CUDA = cudaSupport;
    TORCH_CUDA_ARCH_LIST = "${lib.concatStringsSep ";" torch.cudaCapabilities}";
    USE_ROCM = rocmSupport;
  };

  build-system = [ setuptools ];

  nativeBuildInputs = lib.optionals cudaSupport [ cudaPackages.cuda_nvcc ];

  buildInputs = [ torch ]
    ++ lib.optionals cudaSupport [ cudaPackages.cuda_cudart ]
    ++ lib.optionals torch.stdenv.cc.isClang [ llvmPackages.openmp ];

  dependencies = [ torch.out torchcodec ];

  pythonImportsCheck = [ "torchaudio" ];

  nativeCheckInputs = [ inflect parameterized pytestCheckHook pytorch-lightning scipy sentencepiece unidecode ];

  meta = {
    description = "PyTorch audio library";
    homepage = "https://pytorch.org/";
    license = lib.licenses.bsd2;
    platforms =
      lib.platforms.linux ++ lib.optionals (!cudaSupport && !rocmSupport) lib.platforms.darwin;
    maintainers = [ ];
  };
}
