# gen-matrix's Nix library: torchvision or torchaudio built against a variant's torch.
#
# It takes the heavy torch (not the published wrapper), so it is built once per torch
# build, and its CUDA capabilities from torch.cudaCapabilities, which torch.nix sets to
# the variant's SM. The CPU flags are the torch variant's.
{ pkgs }:

{ package, torch, python, cpuFlags, systemFeatures }:

let
  inherit (pkgs) lib;
  pythonPackages = pkgs."python${lib.replaceStrings [ "." ] [ "" ] python}Packages";
in
(pythonPackages.${package}.override { inherit torch; }).overrideAttrs (old: {
  requiredSystemFeatures = systemFeatures;
  preConfigure = (old.preConfigure or "")
    + lib.optionalString (cpuFlags != [ ]) ''
      export CXXFLAGS="$CXXFLAGS ${lib.concatStringsSep " " cpuFlags}"
      export CFLAGS="$CFLAGS ${lib.concatStringsSep " " cpuFlags}"
    ''
    + import ./jobs.nix (if torch.cudaSupport or false then 4 else 2);
})
