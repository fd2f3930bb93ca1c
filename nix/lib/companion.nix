# gen-matrix's Nix library: torchvision or torchaudio built against a variant's torch.
#
# It takes the heavy torch (not the published wrapper), so it is built once per torch
# build, and its CUDA capabilities from torch.cudaCapabilities, which torch.nix sets to
# the variant's SM; a ROCm torchaudio its gfx targets from torch.gpuTargets (nixpkgs'
# torchaudio takes them as its gpuTargets argument, else it compiles for all of clr's). The
# CPU flags are the torch variant's.
#
# The companion comes from the pin's Python package set with `torch` replaced by the
# variant's, so every package it pulls in that takes the scope's torch gets this one
# too: torchaudio 2.11 depends on torchcodec, and the tests of both pull in torchvision
# and pytorch-lightning. Overriding the companion's own `torch` argument alone would
# leave those on nixpkgs' default torch, a second torch built from scratch in the same
# closure.
{ pkgs }:

{ package, torch, python, label, cpuFlags, jobMemoryGib, systemFeatures }:

let
  inherit (pkgs) lib;
  # A lookup of ours that misses is a refusal (refuse.nix), not a missing attribute.
  refuse = import ./refuse.nix;
  pythonAttribute = "python${lib.replaceStrings [ "." ] [ "" ] python}Packages";
  pythonPackages = pkgs.${pythonAttribute} or (refuse
    "this nixpkgs has no ${pythonAttribute}, so it cannot build for Python ${python}: pick a pin that has it (nixpkgs.pins in matrix.yaml) or drop Python ${python}");
  withVariantTorch = pythonPackages.overrideScope (final: prev: { inherit torch; });
  chosen = withVariantTorch.${package} or (refuse
    "this nixpkgs has no ${package} for Python ${python}: pick a pin that has it (nixpkgs.pins in matrix.yaml) or drop ${package} from companions");
  targeted = if (torch.rocmSupport or false) && lib.functionArgs chosen.override ? gpuTargets
    then chosen.override { inherit (torch) gpuTargets; } else chosen;
in
targeted.overrideAttrs (finalAttrs: old: {
  # named after its torch's variant, as torch.nix names the heavy torch
  name = "${pythonPackages.python.libPrefix}-${finalAttrs.pname}-${finalAttrs.version}-${label}";
  requiredSystemFeatures = systemFeatures;
  preConfigure = (old.preConfigure or "") + import ./compile.nix { inherit lib; } { inherit cpuFlags jobMemoryGib; };
})
