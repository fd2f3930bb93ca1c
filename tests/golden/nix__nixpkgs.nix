# Generated from matrix.yaml by gen-matrix; do not edit by hand: change matrix.yaml and run `gen-matrix`.
# The pinned nixpkgs every recipe in .flox/pkgs/ builds against, imported once per
# CUDA release. It lives outside .flox/pkgs/ because Flox makes every file there a package.
#
#   source            a nixpkgs to use instead of the pin (tests hand in a small package set)
#   cuda              "12_8" selects cudaPackages_12_8 for everything; null builds without CUDA
#   cudaCapabilities  null keeps nixpkgs' defaults (CUDA libraries come from the binary cache);
#                     a list rebuilds every CUDA dependency for exactly those capabilities
{ source ? null, cuda ? null, cudaCapabilities ? null }:

let
  pinned = builtins.fetchTarball {
    url = "https://github.com/NixOS/nixpkgs/archive/fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3.tar.gz";
  };
  matrixOverlays = [ ];
in
import (if source == null then pinned else source) {
  config = {
    allowUnfree = true;
    cudaSupport = cuda != null;
  } // (if cudaCapabilities == null then { } else { inherit cudaCapabilities; });
  overlays = matrixOverlays ++ (if cuda == null then [ ] else [
    (final: prev: { cudaPackages = final."cudaPackages_${cuda}"; })
  ]);
}
