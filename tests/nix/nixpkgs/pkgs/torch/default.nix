# Picks the torch expression of the impersonated nixpkgs revision
# (see ../../revisions.nix): a function with that revision's exact header.
rev: import (if rev.torchForm == "2.8.0" then ./header-2.8.0.nix else ./header-2.9.1.nix) rev
