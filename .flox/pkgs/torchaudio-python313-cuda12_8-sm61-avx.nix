# Generated from matrix.yaml by gen-matrix; do not edit by hand: change matrix.yaml and run `gen-matrix`.
# torchaudio for Python 3.13, built against pytorch-python313-cuda12_8-sm61-avx.
# Build with: flox build torchaudio-python313-cuda12_8-sm61-avx
{ genMatrixNixpkgs ? null }:

let
  pkgs = import ../../nix/nixpkgs.nix {
    source = genMatrixNixpkgs;
    cuda = "12_8";
    cudaCapabilities = [ "6.1" ];
  };
  inherit (pkgs) lib;
  # The torch recipe this links against: same pin, CUDA, capability and CPU flags. Its
  # passthru.cudaCapabilities is what torchaudio compiles its kernels for.
  torch = import (./. + "/pytorch-python313-cuda12_8-sm61-avx.nix") { inherit genMatrixNixpkgs; };
  cpuFlags = "-mavx -mno-fma -mno-bmi -mno-bmi2 -mno-avx2";
  maxJobs = 32;
  # Goes up when only the metadata below changed, so the catalog sees a new store path.
  metadataRevision = 0;
in
(pkgs.python313Packages.torchaudio.override {
  inherit torch;
  cudaSupport = true;
  inherit (pkgs) cudaPackages;
}).overrideAttrs (finalAttrs: old: {
  pname = "torchaudio-python313-cuda12_8-sm61-avx";

  requiredSystemFeatures = [ "big-parallel" ];

  preConfigure = (old.preConfigure or "") + ''
    export CXXFLAGS="$CXXFLAGS ${cpuFlags}"
    export CFLAGS="$CFLAGS ${cpuFlags}"
    export MAX_JOBS=${toString maxJobs}
  '';

  # nixpkgs exports MAX_JOBS=$NIX_BUILD_CORES (in preBuild or preConfigure, by release),
  # after what is appended above: build.jobs takes its place.
  preBuild = lib.replaceStrings [ "export MAX_JOBS=$NIX_BUILD_CORES" ] [ "export MAX_JOBS=${toString maxJobs}" ]
    (old.preBuild or "");

  postInstall = (old.postInstall or "") + ''
    echo ${toString metadataRevision} > $out/.metadata-rev
  '';

  passthru = (old.passthru or { }) // {
    inherit torch;
    # A Python with this build and its torch, for `gen-matrix smoke`:
    #   nix-build .flox/pkgs/torchaudio-python313-cuda12_8-sm61-avx.nix -A pythonEnv -o python-torchaudio-python313-cuda12_8-sm61-avx
    pythonEnv = pkgs.python313Packages.python.withPackages (_: [ finalAttrs.finalPackage ]);
    gpuArch = "sm61";
    cudaVersion = "12.8";
    inherit (torch) cudaCapabilities;
    cpuISA = "avx";
  };

  meta = (old.meta or { }) // {
    description = "torchaudio built against pytorch-python313-cuda12_8-sm61-avx: PyTorch 2.8.0 for NVIDIA Pascal GPUs (sm61) and avx CPUs, CUDA 12.8";
    longDescription = "torchaudio built from source for Python 3.13 against pytorch-python313-cuda12_8-sm61-avx (PyTorch 2.8.0), for the same GPU and CPU.\nGPUs: GeForce GTX 1070, GeForce GTX 1080, GeForce GTX 1080 Ti, Tesla P40, Tesla P4 (NVIDIA Pascal, compute capability 6.1, sm61).\nCUDA 12.8; needs NVIDIA driver 570.26 or newer.\nCPUs: Intel Sandy Bridge, Intel Ivy Bridge, AMD Bulldozer; needs the avx instruction set (avx in /proc/cpuinfo).\n";
    platforms = [ "x86_64-linux" ];
  };
})
