# gen-matrix's Nix library: every recipe under .flox/pkgs/ is a short call into it.
# gen-matrix writes this folder into each matrix repository and keeps it current; a copy
# edited by hand is reported by `gen-matrix check` and overwritten by `gen-matrix`.
#
#   nixpkgs   a nixpkgs source to build against instead of each recipe's pin (tests and
#             offline checks hand in a small package set); null uses the pins
#
# Recipes call `torch` for a PyTorch variant and `companion` for torchvision or
# torchaudio. Both return the published derivation (wrapper.nix): a thin one carrying the
# metadata over the heavy build, which is `.unwrapped`.
{ nixpkgs ? null }:

let
  pins = import ../pins.nix;

  # The package set of a pin with the config and overlays a variant needs.
  packageSet = import ./nixpkgs.nix { inherit nixpkgs pins; };

  fixesByName = names: map (name: import (../fixes + "/${name}.nix")) names;
in
{
  # A PyTorch variant. `build` holds everything that goes into the heavy derivation,
  # `meta` what only the published wrapper carries (see torch.nix and wrapper.nix).
  torch = { pin, build, meta }:
    let
      fixes = fixesByName build.fixes;
      pkgs = packageSet { inherit pin fixes; inherit (build) cuda capabilities capabilityScope; rocm = build.rocm or null; };
      unwrapped = import ./torch.nix { inherit pkgs; fixModules = fixes; } build;
    in
    import ./wrapper.nix { inherit pkgs; } {
      inherit unwrapped meta;
      # What a companion needs to build against this torch with the same packages.
      extraPassthru.genMatrix = { inherit pkgs; inherit (build) python label cpuFlags jobMemoryGib; };
    };

  # torchvision or torchaudio against the unwrapped torch of a torch recipe, with the
  # same package set, CUDA capabilities and CPU flags.
  companion = { package, torch, build, meta }:
    let
      inherit (torch.genMatrix) pkgs;
      unwrapped = import ./companion.nix { inherit pkgs; } {
        inherit package;
        torch = torch.unwrapped;
        inherit (torch.genMatrix) python label cpuFlags jobMemoryGib;
        inherit (build) systemFeatures;
      };
    in
    import ./wrapper.nix { inherit pkgs; } {
      inherit unwrapped meta;
      extraPassthru = { inherit (torch) gpuArch cpuISA cudaVersion; };
    };
}
