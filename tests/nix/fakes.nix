# Index of the fake nixpkgs directories, for tests that map a recipe's pin to the
# fake impersonating it: fakes.<rev>.<system>, where <rev> is the 7-character or
# the full revision. Example: (import ./tests/nix/fakes.nix)."0182a36"."aarch64-linux".
let
  revisions = import ./nixpkgs/revisions.nix;
  systems = [ "x86_64-linux" "aarch64-linux" "aarch64-darwin" ];
  forRev = short: builtins.listToAttrs (map (system: {
    name = system;
    value = ./. + "/nixpkgs-${short}-${system}";
  }) systems);
in
builtins.listToAttrs (builtins.concatMap (short: [
  { name = short; value = forRev short; }
  { name = revisions.${short}.rev; value = forRev short; }
]) (builtins.attrNames revisions))
