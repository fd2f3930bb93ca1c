# Mimics nixpkgs' torchaudio, header as read at faukah/nixpkgs@3b20077c (torchaudio
# 2.7.1; NixOS/nixpkgs@005ab72f, torchaudio 2.10.0, has the same arguments less
# fetchpatch). Up to 2.10 it takes nothing that takes torch; 2.11 adds torchcodec
# (torchaudio-2.11.nix). It
# takes torch, `cudaSupport ? torch.cudaSupport`, and its OWN `cudaPackages`
# (the scope's, not torch.cudaPackages); env.TORCH_CUDA_ARCH_LIST follows
# torch.cudaCapabilities ("" without CUDA). No `...`.
rev:
{
  lib,
  symlinkJoin,
  buildPythonPackage,
  fetchFromGitHub,
  fetchpatch,
  cmake,
  pkg-config,
  ninja,
  ffmpeg_6-full,
  pybind11,
  sox,
  torch,
  llvmPackages,
  cudaSupport ? torch.cudaSupport,
  cudaPackages,
  rocmSupport ? torch.rocmSupport,
  rocmPackages,
  gpuTargets ? [ ],
}:
let
  # TODO: Reuse one defined in torch?
  # Some of those dependencies are needed for ROCm support
  rocmtoolkit_joined = symlinkJoin {
    name = "rocm-merged";
    paths = with rocmPackages; [ rocm-core clr rccl miopen rocrand rocblas rocsparse hipsparse
      rocthrust rocprim hipcub roctracer rocfft rocsolver hipfft hipsolver hipblas rocminfo
      rocm-comgr rocm-device-libs rocm-runtime clr.icd hipify ];
    # Fix `setuptools` not being found
    postBuild = ''
      rm -rf $out/nix-support
    '';
  };
  # Only used for ROCm
  gpuTargetString = lib.strings.concatStringsSep ";" (
    if gpuTargets != [ ] then gpuTargets
    else if rocmSupport then rocmPackages.clr.gpuTargets
    else throw "No GPU targets specified"
  );
  stdenv = torch.stdenv;
  version = rev.torchaudio.version;
in
buildPythonPackage {
  pname = "torchaudio";
  inherit version;
  format = "setuptools";

  inherit stdenv;

  src = fetchFromGitHub {
    owner = "pytorch";
    repo = "audio";
    tag = "v${version}";
    sha256 = builtins.hashString "sha256" "fake:pytorch/audio@v${version}";
  };

  patches = [ ./torchaudio/0001-setup.py-propagate-cmakeFlags.patch ];

  postPatch = lib.optionalString rocmSupport ''
    cmakeFlags+=" -DCMAKE_C_COMPILER=${rocmPackages.clr}/bin/hipcc"
    cmakeFlags+=" -DCMAKE_CXX_COMPILER=${rocmPackages.clr}/bin/hipcc"
  '';

  env = {
    TORCH_CUDA_ARCH_LIST = "${lib.concatStringsSep ";" torch.cudaCapabilities}";
  };

  # https://github.com/pytorch/audio/blob/v2.1.0/docs/source/build.linux.rst#optional-build-torchaudio-with-a-custom-built-ffmpeg
  FFMPEG_ROOT = symlinkJoin {
    name = "ffmpeg";
    paths = [
      ffmpeg_6-full.bin
      ffmpeg_6-full.dev
      ffmpeg_6-full.lib
    ];
  };

  # The CUDA/ROCm switches and the optional components are disabled here.
  BUILD_SOX = 0;
  BUILD_KALDI = 0;
  BUILD_RNNT = 0;
  BUILD_CTC_DECODER = 0;

  nativeBuildInputs = [
    cmake
    pkg-config
    ninja
  ]
  ++ lib.optionals cudaSupport [ cudaPackages.cuda_nvcc ];

  buildInputs = [
    ffmpeg_6-full
    pybind11
    sox
    torch.cxxdev
  ]
  ++ lib.optionals stdenv.cc.isClang [ llvmPackages.openmp ]
  ++ lib.optionals rocmSupport [ rocmtoolkit_joined ];

  dependencies = [ torch ];

  cmakeFlags = lib.optionals rocmSupport [
    "-DCMAKE_C_COMPILER=${rocmPackages.clr}/bin/hipcc"
    "-DCMAKE_CXX_COMPILER=${rocmPackages.clr}/bin/hipcc"
    "-DPYTORCH_ROCM_ARCH=${gpuTargetString}"
  ];

  dontUseCmakeConfigure = true;

  doCheck = false; # requires sox backend

  pythonImportsCheck = [ "torchaudio" ];

  meta = {
    description = "PyTorch audio library";
    homepage = "https://pytorch.org/";
    changelog = "https://github.com/pytorch/audio/releases/tag/v${version}";
    license = lib.licenses.bsd2;
    platforms = lib.platforms.linux ++ lib.optionals (!cudaSupport && !rocmSupport) lib.platforms.darwin;
    maintainers = [ ];
  };
}
