# gen-matrix for Nix users without flakes: `nix-build`, `nix-env -if .`, or
# `import (fetchTarball "https://github.com/gen-matrix/gen-matrix/archive/v0.1.0.tar.gz") { }`.
# Pass `pkgs` to build it with another nixpkgs than <nixpkgs>.
{ pkgs ? import <nixpkgs> { } }:

pkgs.callPackage ./package.nix { }
