# Mimics nixpkgs' torchcodec, argument for argument, as read at
# NixOS/nixpkgs@0873ea531c57b01080f63adfc1fdf345495824a9
# (pkgs/development/python-modules/torchcodec/default.nix, torchcodec 0.16.0; the test
# lists, the ROCm branch and the libavif FetchContent root are left out). What matters
# here: it takes the scope's `torch` (build-system and dependencies) and, because its
# tests run (pytestCheckHook, doCheck defaults to true), the scope's `torchvision` as
# a check input, which takes the scope's torch too. No `...`.
{
  lib,
  stdenv,
  buildPythonPackage,
  fetchFromGitHub,
  symlinkJoin,
  pkg-config,
  ffmpeg-headless,
  libavif,
  libheif,
  libjpeg,
  libpng,
  libwebp,
  cmake,
  ninja,
  pybind11,
  scikit-build-core,
  torch,
  pytestCheckHook,
  torchvision,
  cudaSupport ? torch.cudaSupport,
  rocmSupport ? torch.rocmSupport,
}:
let
  inherit (torch) cudaCapabilities cudaPackages;
  version = "0.16.0";
in
buildPythonPackage.override { inherit (torch) stdenv; } {
  pname = "torchcodec";
  inherit version;
  pyproject = true;

  src = fetchFromGitHub {
    owner = "meta-pytorch";
    repo = "torchcodec";
    tag = "v${version}";
    sha256 = builtins.hashString "sha256" "fake:meta-pytorch/torchcodec@v${version}";
  };

  nativeBuildInputs = [ pkg-config ] ++ lib.optionals cudaSupport [ cudaPackages.cuda_nvcc ];

  buildInputs = [ ffmpeg-headless libavif libheif libjpeg libpng libwebp ]
    ++ lib.optionals cudaSupport (with cudaPackages; [ cuda_cudart cuda_nvrtc libcublas libcusolver libcusparse ]);

  build-system = [ cmake ninja pybind11 scikit-build-core torch ];
  dontUseCmakeConfigure = true;

  dependencies = [ torch ];

  env = {
    I_CONFIRM_THIS_IS_NOT_A_LICENSE_VIOLATION = true;
    ENABLE_CUDA = cudaSupport;
  }
  // lib.optionalAttrs cudaSupport {
    TORCH_CUDA_ARCH_LIST = "${lib.concatStringsSep ";" cudaCapabilities}";
  };

  pythonImportsCheck = [ "torchcodec" ];

  nativeCheckInputs = [ pytestCheckHook torchvision ];

  meta = {
    description = "PyTorch media decoding and encoding";
    homepage = "https://github.com/meta-pytorch/torchcodec";
    license = lib.licenses.bsd3;
    maintainers = [ ];
  };
}
