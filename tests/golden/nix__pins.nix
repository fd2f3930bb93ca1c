# Generated from matrix.yaml by gen-matrix; do not edit by hand: change matrix.yaml and run `gen-matrix`.
# The nixpkgs revisions the recipes build against, by name: each recipe names its pin.
# nix/lib/nixpkgs.nix imports it with its config, and adds its patches to the packages.
{
  # default: every variant no pin above takes
  default = {
    rev = "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3";
    sha256 = null;
    config = { };
    patches = { };
  };
}
