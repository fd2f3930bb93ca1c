# Generated from matrix.yaml by gen-matrix; do not edit by hand: change matrix.yaml and run `gen-matrix`.
# PyTorch 2.8.0 for Python 3.13, CUDA 12.8, NVIDIA sm75 (Turing), CPU avx512bf16.
# Build with: flox build pytorch-python313-cuda12_8-sm75-avx512bf16
{ genMatrixNixpkgs ? null }:

let
  pkgs = import ../../nix/nixpkgs.nix {
    source = genMatrixNixpkgs;
    cuda = "12_8";
    cudaCapabilities = null;
  };
  inherit (pkgs) lib;
  # The SM torch compiles for; passthru.cudaCapabilities makes torchvision and
  # torchaudio, which read torch.cudaCapabilities, compile for the same one.
  capabilities = [ "7.5" ];
  cpuFlags = "-mavx512f -mavx512dq -mavx512vl -mavx512bw -mfma -mavx512bf16";
  disabledFeatures = [ ];
  pytorchVersion = "2.8.0";
  maxJobs = 32;
  # Goes up when only the metadata below changed, so the catalog sees a new store path.
  metadataRevision = 0;
in
(pkgs.python313Packages.torch.override {
  cudaSupport = true;
  gpuTargets = capabilities;
}).overrideAttrs (finalAttrs: old: {
  pname = "pytorch-python313-cuda12_8-sm75-avx512bf16";
  # The version matrix.yaml promises must be the one nixpkgs (or pytorch.source) builds.
  version = assert lib.assertMsg (old.version == pytorchVersion)
    "matrix.yaml says PyTorch ${pytorchVersion}, but nixpkgs builds ${old.version}: change pytorch.version, or set pytorch.source";
    old.version;

  requiredSystemFeatures = [ "big-parallel" ];
  nativeBuildInputs = (old.nativeBuildInputs or [ ]) ++ [ pkgs.ninja ];

  preConfigure = (old.preConfigure or "") + ''
    export CXXFLAGS="$CXXFLAGS ${cpuFlags}"
    export CFLAGS="$CFLAGS ${cpuFlags}"
    export USE_NINJA=1
    export MAX_JOBS=${toString maxJobs}
  '' + lib.concatMapStrings (feature: "export USE_${feature}=0\n") disabledFeatures;

  # nixpkgs exports MAX_JOBS=$NIX_BUILD_CORES (in preBuild or preConfigure, by release),
  # after what is appended above: build.jobs takes its place.
  preBuild = lib.replaceStrings [ "export MAX_JOBS=$NIX_BUILD_CORES" ] [ "export MAX_JOBS=${toString maxJobs}" ]
    (old.preBuild or "");

  postInstall = (old.postInstall or "") + ''
    echo ${toString metadataRevision} > $out/.metadata-rev
  '';

  passthru = (old.passthru or { }) // {
    # A Python with this build, for `gen-matrix smoke`:
    #   nix-build .flox/pkgs/pytorch-python313-cuda12_8-sm75-avx512bf16.nix -A pythonEnv -o python-pytorch-python313-cuda12_8-sm75-avx512bf16
    pythonEnv = pkgs.python313Packages.python.withPackages (_: [ finalAttrs.finalPackage ]);
    gpuArch = "sm75";
    cpuISA = "avx512bf16";
    blasProvider = "cublas";
    cudaVersion = "12.8";
    cudaCapabilities = capabilities;
  };

  meta = (old.meta or { }) // {
    description = "PyTorch 2.8.0 for NVIDIA Turing GPUs (sm75) and avx512bf16 CPUs, CUDA 12.8";
    longDescription = "PyTorch 2.8.0 built from source for Python 3.13.\nGPUs: GeForce RTX 2060, GeForce RTX 2070, GeForce RTX 2080, GeForce RTX 2080 Ti, GeForce GTX 1650, GeForce GTX 1660, Tesla T4, Quadro RTX 8000, TITAN RTX (NVIDIA Turing, compute capability 7.5, sm75).\nCUDA 12.8; needs NVIDIA driver 570.26 or newer.\nCPUs: Intel Cooper Lake, Intel Sapphire Rapids, AMD Zen 4; needs the avx512bf16 instruction set (avx512f avx512dq avx512vl avx512bw avx512_bf16 in /proc/cpuinfo).\n";
    platforms = [ "x86_64-linux" ];
  };
})
