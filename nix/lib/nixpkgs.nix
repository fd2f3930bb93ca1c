# gen-matrix's Nix library: the package set a variant builds against.
#
# It is the variant's pin (nix/pins.nix), or the nixpkgs handed in instead, imported with
# the pin's config and patches, the variant's CUDA release and capabilities (or, for a ROCm
# variant, config.rocmSupport), and what its build fixes add to the config and overlays.
{ nixpkgs, pins }:

{ pin, cuda, capabilities, capabilityScope, fixes, rocm ? null }:

let
  chosen = pins.${pin};

  pinned = builtins.fetchTarball ({
    url = "https://github.com/NixOS/nixpkgs/archive/${chosen.rev}.tar.gz";
  } // (if chosen.sha256 == null then { } else { inherit (chosen) sha256; }));

  cudaSupport = cuda != null;

  # "torch": only torch and its companions compile for the SM (gpuTargets and
  # passthru.cudaCapabilities, see torch.nix), so magma, NCCL and the other CUDA
  # libraries stay those of nixpkgs' binary cache. "nixpkgs": config.cudaCapabilities,
  # so every CUDA library is rebuilt for the SM; gen-matrix picks it where the cache has
  # nothing for the SM anyway, and for Jetson parts, whose libraries nixpkgs chooses
  # from that list.
  capabilityConfig =
    if cudaSupport && capabilityScope == "nixpkgs" then { cudaCapabilities = capabilities; } else { };

  # A ROCm variant: nixpkgs' ROCm builds of torch's dependencies (magma, RCCL), as
  # nixpkgs' own torchWithRocm gets them. nixpkgs has one ROCm release per revision
  # (rocmPackages); torch.nix checks it is the variant's.
  rocmConfig = if rocm != null then { rocmSupport = true; } else { };

  fixConfig = builtins.foldl' (config: fix: config // (fix.config or { })) { } fixes;

  # A lookup of ours that misses is a refusal (refuse.nix), not a missing attribute.
  refuse = import ./refuse.nix;
  held = if nixpkgs == null then "nixpkgs ${chosen.rev} (pin ${pin})" else "the nixpkgs handed in for pin ${pin}";

  # patches in matrix.yaml: { attribute = [ { url; hash; } ]; }, added to each package.
  pinPatches = final: prev: builtins.mapAttrs
    (attr: patches: (prev.${attr} or (refuse
      "${held} has no package ${attr}, which nixpkgs.pins patches: remove it from the pin's patches in matrix.yaml or pick another revision"))
    .overrideAttrs (old: {
      patches = (old.patches or [ ]) ++ map final.fetchpatch patches;
    }))
    chosen.patches;

  cudaAttribute = "cudaPackages_${builtins.replaceStrings [ "." ] [ "_" ] cuda}";
  cudaRelease = final: prev: {
    cudaPackages = final.${cudaAttribute} or (refuse
      "${held} has no ${cudaAttribute}, so it cannot build CUDA ${cuda}: pin a nixpkgs that has it for CUDA ${cuda} (nixpkgs.pins in matrix.yaml) or drop ${cuda} from gpu.cuda");
  };
in
import (if nixpkgs == null then pinned else nixpkgs) {
  config = chosen.config // { allowUnfree = true; inherit cudaSupport; } // capabilityConfig // rocmConfig // fixConfig;
  overlays = [ pinPatches ]
    ++ (if cudaSupport then [ cudaRelease ] else [ ])
    ++ builtins.concatMap (fix: if fix ? overlay then [ fix.overlay ] else [ ]) fixes;
}
