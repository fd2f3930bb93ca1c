# Mimics nixpkgs' torchvision (header from an earlier, unattributed copy of the 0.24
# text; not re-read at a commit, see ../../README.md): no cudaSupport argument; CUDA settings come
# from the torch it is given, and env.TORCH_CUDA_ARCH_LIST follows
# torch.cudaCapabilities (NOT torch's gpuTargets). No `...`.
rev:
{
  lib,
  stdenv,
  torch,
  buildPythonPackage,
  darwinMinVersionHook,
  fetchFromGitHub,
  libpng,
  ninja,
  which,
  libjpeg_turbo,
  numpy,
  pillow,
  scipy,
  pytest,
  writableTmpDirAsHomeHook,
}:
let
  inherit (torch) cudaCapabilities cudaPackages cudaSupport;
  pname = "torchvision";
  version = rev.torchvision.version;
in
buildPythonPackage {
  format = "setuptools";
  inherit pname version;

  stdenv = torch.stdenv;

  src = fetchFromGitHub {
    owner = "pytorch";
    repo = "vision";
    tag = "v${version}";
    sha256 = builtins.hashString "sha256" "fake:pytorch/vision@v${version}";
  };

  nativeBuildInputs = [
    libpng
    ninja
    which
  ]
  ++ lib.optionals cudaSupport [ cudaPackages.cuda_nvcc ];

  buildInputs = [
    libjpeg_turbo
    libpng
    torch.cxxdev
  ]
  ++ lib.optionals stdenv.hostPlatform.isDarwin [
    # This should match the SDK used by `torch` above
    (darwinMinVersionHook "14.0")
  ];

  dependencies = [
    numpy
    pillow
    torch
    scipy
  ];

  env = {
    TORCHVISION_INCLUDE = "${libjpeg_turbo.dev}/include/";
    TORCHVISION_LIBRARY = "${libjpeg_turbo}/lib/";
  }
  // lib.optionalAttrs cudaSupport {
    TORCH_CUDA_ARCH_LIST = "${lib.concatStringsSep ";" cudaCapabilities}";
    FORCE_CUDA = 1;
  };

  # tests download big datasets, models, require internet connection, etc.
  doCheck = false;

  pythonImportsCheck = [ "torchvision" ];

  nativeCheckInputs = [ pytest writableTmpDirAsHomeHook ];

  meta = {
    description = "PyTorch vision library";
    homepage = "https://pytorch.org/";
    changelog = "https://github.com/pytorch/vision/releases/tag/v${version}";
    license = lib.licenses.bsd3;
    platforms = with lib.platforms; linux ++ lib.optionals (!cudaSupport) darwin;
    maintainers = [ ];
  };
}
