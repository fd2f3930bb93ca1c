# gen-matrix's Nix library: the heavy PyTorch derivation of a variant.
#
# Everything here goes into the build, and nothing else does: the variant's name, its
# descriptions and its metadata revision live in the wrapper (wrapper.nix), so changing
# them never rebuilds PyTorch.
#
# nixpkgs builds torch through PyTorch's setup.py, not through the CMake hook
# (dontUseCmakeConfigure), so cmakeFlags never reach PyTorch's CMake. setup.py
# (tools/setup_helpers/cmake.py) forwards the environment variables named BUILD_*,
# USE_* and CMAKE_*, plus a fixed list (BLAS, TORCH_CUDA_ARCH_LIST, ...): every switch
# below is therefore an exported variable.
{ pkgs, fixModules }:

{
  python,              # "3.13"
  version,             # the PyTorch version the variant promises
  label,               # the variant's axes beside Python ("cuda12.8-sm90-avx512"), for the store name
  source,              # null: the pin's own PyTorch; else { owner; repo; rev; hash; }
  cuda,                # "12.8", or null for a build without CUDA
  capabilities,        # compute capabilities torch compiles for, e.g. [ "9.0" ]
  capabilityScope,     # read by nixpkgs.nix
  rocm ? null,         # "6.4": a ROCm build, against the pin's rocmPackages of that release
  gpuTargets ? [ ],    # with rocm: the gfx targets torch compiles for, e.g. [ "gfx942" ]
  cpuFlags,            # compiler flags of the CPU instruction set
  disabledFeatures,    # PyTorch features switched off: [ "FBGEMM" ] exports USE_FBGEMM=0
  environment,         # further variables for setup.py, e.g. { BLAS = "OpenBLAS"; }
  blas,                # "openblas" to build against OpenBLAS; null keeps nixpkgs' choice
  systemFeatures,      # requiredSystemFeatures of the build
  jobMemoryGib,        # GiB one compile job may take (compile.nix caps the jobs by it)
  fixes ? [ ],         # names of the fixes in nix/fixes/, imported as fixModules
  passthru ? { },      # facts for consumers: gpuArch, cpuISA, blasProvider, cudaVersion
}:

let
  inherit (pkgs) lib;
  # A lookup of ours that misses is a refusal (refuse.nix), not a missing attribute.
  refuse = import ./refuse.nix;
  pythonAttribute = "python${lib.replaceStrings [ "." ] [ "" ] python}Packages";
  pythonPackages = pkgs.${pythonAttribute} or (refuse
    "this nixpkgs has no ${pythonAttribute}, so it cannot build for Python ${python}: pick a pin that has it (nixpkgs.pins in matrix.yaml) or drop Python ${python}");
  cudaSupport = cuda != null;
  rocmSupport = rocm != null;
  rocmPackages = pkgs.rocmPackages or (refuse
    "this nixpkgs has no rocmPackages, so it cannot build ROCm ${rocm}: pick a pin that has ROCm ${rocm} (nixpkgs.pins in matrix.yaml)");
  rocmHeld = lib.versions.majorMinor rocmPackages.clr.version;

  # torch is callPackage'd: override takes only arguments its expression declares.
  configured = pythonPackages.torch.override ({ inherit cudaSupport; }
    // lib.optionalAttrs cudaSupport { gpuTargets = capabilities; }
    # PYTORCH_ROCM_ARCH is nixpkgs' gpuTargetString, which gpuTargets sets before clr's list
    // lib.optionalAttrs rocmSupport {
      rocmSupport = assert rocmHeld == rocm || refuse
        "matrix.yaml asks for ROCm ${rocm}, but this nixpkgs has ROCm ${rocmPackages.clr.version}: change rocm: in matrix.yaml or pick another pin";
        true;
      inherit gpuTargets;
    }
    // lib.optionalAttrs (blas == "openblas") { blas = pkgs.blas.override { blasProvider = pkgs.openblas; }; });

  exports = import ./compile.nix { inherit lib; } { inherit cpuFlags jobMemoryGib; }
    + lib.concatStrings (map (feature: "export USE_${feature}=0\n") disabledFeatures
      ++ lib.mapAttrsToList (name: value: "export ${name}=${lib.escapeShellArg value}\n") environment);

  built = configured.overrideAttrs (finalAttrs: old: {
    # nixpkgs names every torch python3.13-torch-<version>: the label tells the variants'
    # builds apart in the store and in build logs.
    name = "${pythonPackages.python.libPrefix}-${finalAttrs.pname}-${finalAttrs.version}-${label}";
    version =
      if source != null then version
      else assert old.version == version || refuse
        "matrix.yaml promises PyTorch ${version}, but this nixpkgs builds ${old.version}: change pytorch.version, pick another pin, or set pytorch.source";
        old.version;
    src =
      if source == null then old.src
      else pkgs.fetchFromGitHub {
        inherit (source) owner repo rev hash;
        fetchSubmodules = true;
      };

    requiredSystemFeatures = systemFeatures;

    preConfigure = (old.preConfigure or "") + exports;

    # torchvision and torchaudio compile for torch.cudaCapabilities, which nixpkgs takes
    # from config.cudaCapabilities, not from gpuTargets: without this they would compile
    # for nixpkgs' default list instead of the variant's SM.
    # torchaudio takes its ROCm targets as gpuTargets (companion.nix reads them here).
    passthru = old.passthru // lib.optionalAttrs cudaSupport { cudaCapabilities = capabilities; }
      // lib.optionalAttrs rocmSupport { inherit gpuTargets; } // passthru;
  });
in
# Each fix is a function of the package set and the version to an overrideAttrs
# argument, applied in the order the recipe lists them.
lib.foldl'
  (drv: fix: if fix ? torch then drv.overrideAttrs (fix.torch { inherit pkgs lib version; }) else drv)
  built
  fixModules
