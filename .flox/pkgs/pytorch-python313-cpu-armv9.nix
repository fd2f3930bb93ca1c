# Generated from matrix.yaml by gen-matrix; do not edit by hand: change matrix.yaml and run `gen-matrix`.
# PyTorch 2.8.0 for Python 3.13, CPU armv9.
# Build with: flox build pytorch-python313-cpu-armv9
{ genMatrixNixpkgs ? null }:

let
  pkgs = import ../../nix/nixpkgs.nix {
    source = genMatrixNixpkgs;
  };
  inherit (pkgs) lib;
  cpuFlags = "-march=armv9-a+sve+sve2";
  disabledFeatures = [ ];
  pytorchVersion = "2.8.0";
  maxJobs = 32;
  # Goes up when only the metadata below changed, so the catalog sees a new store path.
  metadataRevision = 0;
in
(pkgs.python313Packages.torch.override {
  cudaSupport = false;
  blas = pkgs.blas.override { blasProvider = pkgs.openblas; };
}).overrideAttrs (finalAttrs: old: {
  pname = "pytorch-python313-cpu-armv9";
  # The version matrix.yaml promises must be the one nixpkgs (or pytorch.source) builds.
  version = assert lib.assertMsg (old.version == pytorchVersion)
    "matrix.yaml says PyTorch ${pytorchVersion}, but nixpkgs builds ${old.version}: change pytorch.version, or set pytorch.source";
    old.version;

  requiredSystemFeatures = [ "big-parallel" ];
  nativeBuildInputs = (old.nativeBuildInputs or [ ]) ++ [ pkgs.ninja ];

  preConfigure = (old.preConfigure or "") + ''
    export CXXFLAGS="$CXXFLAGS ${cpuFlags}"
    export CFLAGS="$CFLAGS ${cpuFlags}"
    export BLAS=OpenBLAS
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
    #   nix-build .flox/pkgs/pytorch-python313-cpu-armv9.nix -A pythonEnv -o python-pytorch-python313-cpu-armv9
    pythonEnv = pkgs.python313Packages.python.withPackages (_: [ finalAttrs.finalPackage ]);
    cpuISA = "armv9";
    blasProvider = "openblas";
  };

  meta = (old.meta or { }) // {
    description = "PyTorch 2.8.0, CPU only, for armv9 CPUs";
    longDescription = "PyTorch 2.8.0 built from source for Python 3.13.\nCPUs: NVIDIA Grace, AWS Graviton4, NVIDIA GB10; needs the armv9 instruction set (sve sve2 in /proc/cpuinfo).\n";
    platforms = [ "aarch64-linux" ];
  };
})
