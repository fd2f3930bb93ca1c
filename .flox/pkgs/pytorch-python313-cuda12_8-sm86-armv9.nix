# Generated from matrix.yaml by gen-matrix; do not edit by hand: change matrix.yaml and run `gen-matrix`.
# PyTorch 2.8.0 for Python 3.13, CUDA 12.8, NVIDIA sm86 (Ampere), CPU armv9.
# Build with: flox build pytorch-python313-cuda12_8-sm86-armv9
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
  capabilities = [ "8.6" ];
  cpuFlags = "-march=armv9-a+sve+sve2";
  disabledFeatures = [ ];
  pytorchVersion = "2.8.0";
  maxJobs = 32;
  # Goes up when only the metadata below changed, so the catalog sees a new store path.
  metadataRevision = 1;
in
(pkgs.python313Packages.torch.override {
  cudaSupport = true;
  gpuTargets = capabilities;
}).overrideAttrs (finalAttrs: old: {
  pname = "pytorch-python313-cuda12_8-sm86-armv9";
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
    #   nix-build .flox/pkgs/pytorch-python313-cuda12_8-sm86-armv9.nix -A pythonEnv -o python-pytorch-python313-cuda12_8-sm86-armv9
    pythonEnv = pkgs.python313Packages.python.withPackages (_: [ finalAttrs.finalPackage ]);
    gpuArch = "sm86";
    cpuISA = "armv9";
    blasProvider = "cublas";
    cudaVersion = "12.8";
    cudaCapabilities = capabilities;
  };

  meta = (old.meta or { }) // {
    description = "PyTorch 2.8.0 for NVIDIA Ampere GPUs (sm86) and armv9 CPUs, CUDA 12.8";
    longDescription = "PyTorch 2.8.0 built from source for Python 3.13.\nGPUs: GeForce RTX 3060, GeForce RTX 3070, GeForce RTX 3080, GeForce RTX 3090, A10, A10G, A40, RTX A5000, RTX A6000, A2 (NVIDIA Ampere, compute capability 8.6, sm86).\nCUDA 12.8; needs NVIDIA driver 570.26 or newer.\nCPUs: NVIDIA Grace, AWS Graviton4, NVIDIA GB10; needs the armv9 instruction set (sve sve2 in /proc/cpuinfo).\n";
    platforms = [ "aarch64-linux" ];
  };
})
