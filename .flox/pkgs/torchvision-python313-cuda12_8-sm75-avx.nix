# Generated from matrix.yaml by gen-matrix; do not edit by hand: change matrix.yaml and run `gen-matrix`.
# torchvision for Python 3.13, built against pytorch-python313-cuda12_8-sm75-avx.
# Build with: flox build torchvision-python313-cuda12_8-sm75-avx
{ genMatrixNixpkgs ? null }:

let
  pkgs = import ../../nix/nixpkgs.nix {
    source = genMatrixNixpkgs;
    cuda = "12_8";
    cudaCapabilities = null;
  };
  inherit (pkgs) lib;
  # The torch recipe this links against: same pin, CUDA, capability and CPU flags. Its
  # passthru.cudaCapabilities is what torchvision compiles its kernels for.
  torch = import (./. + "/pytorch-python313-cuda12_8-sm75-avx.nix") { inherit genMatrixNixpkgs; };
  cpuFlags = "-mavx -mno-fma -mno-bmi -mno-bmi2 -mno-avx2";
  maxJobs = 32;
  # Goes up when only the metadata below changed, so the catalog sees a new store path.
  metadataRevision = 0;
in
(pkgs.python313Packages.torchvision.override {
  inherit torch;
}).overrideAttrs (finalAttrs: old: {
  pname = "torchvision-python313-cuda12_8-sm75-avx";

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
    #   nix-build .flox/pkgs/torchvision-python313-cuda12_8-sm75-avx.nix -A pythonEnv -o python-torchvision-python313-cuda12_8-sm75-avx
    pythonEnv = pkgs.python313Packages.python.withPackages (_: [ finalAttrs.finalPackage ]);
    gpuArch = "sm75";
    cudaVersion = "12.8";
    inherit (torch) cudaCapabilities;
    cpuISA = "avx";
  };

  meta = (old.meta or { }) // {
    description = "torchvision built against pytorch-python313-cuda12_8-sm75-avx: PyTorch 2.8.0 for NVIDIA Turing GPUs (sm75) and avx CPUs, CUDA 12.8";
    longDescription = "torchvision built from source for Python 3.13 against pytorch-python313-cuda12_8-sm75-avx (PyTorch 2.8.0), for the same GPU and CPU.\nGPUs: GeForce RTX 2060, GeForce RTX 2070, GeForce RTX 2080, GeForce RTX 2080 Ti, GeForce GTX 1650, GeForce GTX 1660, Tesla T4, Quadro RTX 8000, TITAN RTX (NVIDIA Turing, compute capability 7.5, sm75).\nCUDA 12.8; needs NVIDIA driver 570.26 or newer.\nCPUs: Intel Sandy Bridge, Intel Ivy Bridge, AMD Bulldozer; needs the avx instruction set (avx in /proc/cpuinfo).\n";
    platforms = [ "x86_64-linux" ];
  };
})
