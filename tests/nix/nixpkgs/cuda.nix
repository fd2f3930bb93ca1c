# Fake CUDA package sets. The point is `flags`: it validates
# config.cudaCapabilities against the chosen CUDA version and host the way
# nixpkgs does, lazily (only when something reads flags.*), so a recipe with a
# bad nixpkgs-wide capability list fails at evaluation, not at build time.
# `extraComponents`: names a revision's sets have beside the common ones (revisions.nix).
{ lib, config, stdenv, backendStdenv, cudaVersion, cudnnVersion ? "9.13.0", extraComponents ? [ ] }:
let
  inherit (lib) elem filter concatStringsSep concatMapStringsSep versionAtLeast versionOlder;
  system = stdenv.hostPlatform.system;
  cudaMajorMinorVersion = lib.versions.majorMinor cudaVersion;

  # cap -> min/max CUDA (max inclusive, null = still supported), Jetson flag.
  # Data: DOMAIN.md section 1.
  gpus = {
    "3.5" = { name = "Kepler"; minCuda = "10.0"; maxCuda = "11.8"; isJetson = false; };
    "3.7" = { name = "Kepler"; minCuda = "10.0"; maxCuda = "11.8"; isJetson = false; };
    "5.0" = { name = "Maxwell"; minCuda = "10.0"; maxCuda = "12.9"; isJetson = false; };
    "5.2" = { name = "Maxwell"; minCuda = "10.0"; maxCuda = "12.9"; isJetson = false; };
    "6.0" = { name = "Pascal"; minCuda = "10.0"; maxCuda = "12.9"; isJetson = false; };
    "6.1" = { name = "Pascal"; minCuda = "10.0"; maxCuda = "12.9"; isJetson = false; };
    "7.0" = { name = "Volta"; minCuda = "10.0"; maxCuda = "12.9"; isJetson = false; };
    "7.2" = { name = "Xavier"; minCuda = "10.0"; maxCuda = "12.2"; isJetson = true; };
    "7.5" = { name = "Turing"; minCuda = "10.0"; maxCuda = null; isJetson = false; };
    "8.0" = { name = "Ampere"; minCuda = "11.0"; maxCuda = null; isJetson = false; };
    "8.6" = { name = "Ampere"; minCuda = "11.1"; maxCuda = null; isJetson = false; };
    "8.7" = { name = "Orin"; minCuda = "11.4"; maxCuda = null; isJetson = true; };
    "8.9" = { name = "Ada"; minCuda = "11.8"; maxCuda = null; isJetson = false; };
    "9.0" = { name = "Hopper"; minCuda = "11.8"; maxCuda = null; isJetson = false; };
    "10.0" = { name = "Blackwell"; minCuda = "12.8"; maxCuda = null; isJetson = false; };
    "10.1" = { name = "Blackwell Thor"; minCuda = "12.8"; maxCuda = "12.9"; isJetson = true; };
    "10.3" = { name = "Blackwell Ultra"; minCuda = "12.9"; maxCuda = null; isJetson = false; };
    "11.0" = { name = "Blackwell Thor"; minCuda = "13.0"; maxCuda = null; isJetson = true; };
    "12.0" = { name = "Blackwell"; minCuda = "12.8"; maxCuda = null; isJetson = false; };
    "12.1" = { name = "Blackwell GB10"; minCuda = "12.9"; maxCuda = null; isJetson = false; };
  };
  # Arch-specific "X.Ya" targets exist for Hopper and later (never defaults).
  archSpecificBases = [ "9.0" "10.0" "10.1" "10.3" "11.0" "12.0" "12.1" ];
  baseOf = cap: if lib.hasSuffix "a" cap then lib.removeSuffix "a" cap else cap;
  isRecognized = cap:
    gpus ? ${cap} || (lib.hasSuffix "a" cap && elem (baseOf cap) archSpecificBases);
  infoOf = cap: gpus.${baseOf cap};

  cudaAtLeast = versionAtLeast cudaMajorMinorVersion;
  # Kept in capability order, as nixpkgs lists them.
  defaultCapabilities = builtins.sort (a: b: builtins.compareVersions a b < 0) (
    [ "7.5" "8.0" "8.6" "8.9" "9.0" ]
    ++ lib.optionals (cudaAtLeast "12.8") [ "10.0" "12.0" ]
    ++ lib.optionals (cudaAtLeast "12.9") [ "10.3" "12.1" ]);
  # nixpkgs: an empty config.cudaCapabilities means "this set's defaults".
  requested = config.cudaCapabilities or [ ];
  capabilities = if requested == null || requested == [ ] then defaultCapabilities else requested;

  isSupportedByCuda = cap:
    let i = infoOf cap; in
    versionAtLeast cudaMajorMinorVersion i.minCuda
    && (i.maxCuda == null || !(versionOlder i.maxCuda cudaMajorMinorVersion));
  isJetson = cap: (infoOf cap).isJetson;

  fmt = builtins.toJSON;
  unrecognized = filter (c: !isRecognized c) capabilities;
  unsupported = filter (c: !isSupportedByCuda c) capabilities;
  jetsons = filter isJetson capabilities;
  nonJetsons = filter (c: !isJetson c) capabilities;

  checked =
    if !builtins.isList capabilities || !(lib.all builtins.isString capabilities) then
      throw "config.cudaCapabilities must be a list of strings, got ${fmt capabilities}"
    else if unrecognized != [ ] then
      throw "Unrecognized CUDA capabilities ${fmt unrecognized} in config.cudaCapabilities; known capabilities: ${fmt (builtins.attrNames gpus)}"
    else if unsupported != [ ] then
      throw "CUDA capabilities ${fmt unsupported} are not supported by CUDA ${cudaMajorMinorVersion} (cudaPackages_${lib.replaceStrings [ "." ] [ "_" ] cudaMajorMinorVersion}); requested config.cudaCapabilities = ${fmt capabilities}"
    else if jetsons != [ ] && system != "aarch64-linux" then
      throw "Jetson CUDA capabilities ${fmt jetsons} require an aarch64-linux host, but hostPlatform.system is ${system}"
    else if jetsons != [ ] && nonJetsons != [ ] then
      throw "Jetson CUDA capabilities ${fmt jetsons} cannot be mixed with non-Jetson capabilities ${fmt nonJetsons} in config.cudaCapabilities"
    else capabilities;

  cudaForwardCompat = config.cudaForwardCompat or true;
  dropDots = lib.replaceStrings [ "." ] [ "" ];
  realArches = map (c: "sm_${dropDots c}") checked;
  virtualArches = map (c: "compute_${dropDots c}") checked;
  lastCap = lib.last checked;

  flags = {
    cudaCapabilities = checked;
    inherit cudaForwardCompat dropDots realArches virtualArches;
    archNames = lib.unique (map (c: (infoOf c).name) checked);
    arches = realArches ++ lib.optional cudaForwardCompat "compute_${dropDots lastCap}";
    gencode = map (c: "-gencode=arch=compute_${dropDots c},code=sm_${dropDots c}") checked
      ++ lib.optional cudaForwardCompat "-gencode=arch=compute_${dropDots lastCap},code=compute_${dropDots lastCap}";
    gencodeString = concatStringsSep " " flags.gencode;
    cmakeCudaArchitecturesString = concatMapStringsSep ";" dropDots checked;
    isJetsonBuild = lib.any isJetson checked;
    # Exposed so tests can read the table the checks use.
    inherit defaultCapabilities;
  };

  # Every component is a small real derivation. Licenses as in nixpkgs'
  # redist manifests: unfree (CUDA EULA), so allowUnfree is needed as soon as
  # a drvPath that depends on one is forced; nccl is BSD (as in nixpkgs).
  component = pname: extra: stdenv.mkDerivation ({
    inherit pname;
    version = cudaVersion;
    buildCommand = "mkdir -p $out/include $out/lib";
    meta = {
      license = lib.licenses.nvidiaCudaRedist;
      platforms = [ "x86_64-linux" "aarch64-linux" ];
      description = "Fake CUDA ${cudaVersion} component ${pname}";
    };
  } // extra);
  libNames = [ "cuda_cudart" "cuda_cupti" "cuda_nvcc" "cuda_nvml_dev" "cuda_nvrtc"
    "cuda_nvtx" "cuda_profiler_api" "cuda_crt" "libcublas" "libcufft" "libcufile" "libcurand"
    "libcusolver" "libcusparse" "libcusparse_lt" "libnvjitlink" "libnvshmem"
    # a setup hook in nixpkgs, read by torch's 2.8.0 text for Jetson builds
    "autoAddCudaCompatRunpath" ] ++ extraComponents;
in
lib.genAttrs libNames (n: component n { })
// {
  inherit cudaMajorMinorVersion cudaVersion flags;
  cudaMajorVersion = lib.versions.major cudaMajorMinorVersion;
  cudaAtLeast = versionAtLeast cudaMajorMinorVersion;
  cudaOlder = versionOlder cudaMajorMinorVersion;
  # The stdenv CUDA packages (and torch with cudaSupport) build with: a gcc
  # the CUDA version supports, hence a different derivation than `stdenv`.
  backendStdenv = backendStdenv;
  # CCCL headers (cuda/, cub/, thrust/, nv/) under include/, as the redist has them.
  cuda_cccl = component "cuda_cccl" {
    buildCommand = "mkdir -p $out/include/cuda $out/include/cub $out/include/thrust $out/include/nv";
  };
  cudatoolkit = component "cudatoolkit" { };
  cudnn = component "cudnn" { version = cudnnVersion; };
  cutensor = component "cutensor" { version = "2.2.0"; };
  # nccl is BSD-3 in nixpkgs; its build uses the capability flags (so forcing
  # a drvPath that depends on it runs the capability checks), and it is not
  # available for Jetson builds.
  nccl = component "nccl" {
    version = "2.27.7-1";
    makeFlags = [ "NVCC_GENCODE=${flags.gencodeString}" ];
    meta = {
      license = lib.licenses.bsd3;
      platforms = [ "x86_64-linux" "aarch64-linux" ];
      badPlatforms = lib.optionals flags.isJetsonBuild [ "aarch64-linux" ];
      description = "Multi-GPU and multi-node collective communication primitives for NVIDIA GPUs";
    };
  };
}
