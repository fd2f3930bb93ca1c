# gen-matrix's Nix library: torchvision or torchaudio built against a variant's torch.
#
# It takes the heavy torch (not the published wrapper), so it is built once per torch
# build, and its CUDA capabilities from torch.cudaCapabilities, which torch.nix sets to
# the variant's SM. The CPU flags are the torch variant's.
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
  pythonPackages = pkgs."python${lib.replaceStrings [ "." ] [ "" ] python}Packages";
  withVariantTorch = pythonPackages.overrideScope (final: prev: { inherit torch; });
in
withVariantTorch.${package}.overrideAttrs (finalAttrs: old: {
  # named after its torch's variant, as torch.nix names the heavy torch
  name = "${pythonPackages.python.libPrefix}-${finalAttrs.pname}-${finalAttrs.version}-${label}";
  requiredSystemFeatures = systemFeatures;
  preConfigure = (old.preConfigure or "") + import ./compile.nix { inherit lib; } { inherit cpuFlags jobMemoryGib; };
})
