# Generated from matrix.yaml by gen-matrix; do not edit by hand: change matrix.yaml and run `gen-matrix`.
# Every variant of the matrix as a job, for a Nix CI other than the generated workflow:
# the recipes under .flox/pkgs/ of one system, each the derivation `flox build` builds, with
# the requiredSystemFeatures its recipe sets. flake.nix lists them for each system from here.
# docs/ci.md says how to use it.
#
#   nixpkgs   null: each recipe's pin (nix/pins.nix), fetched; a path: that nixpkgs for
#             every pin; an attribute set: by pin name, a path or null
#   system    null: the system Nix evaluates on (builtins.currentSystem; `--option system
#             aarch64-linux` evaluates another's); a system: its recipes, each nixpkgs given
#             imported for it (a flake's pure evaluation has no builtins.currentSystem)
{ nixpkgs ? null, system ? null }:

let
  # Each recipe's pin, by system; a companion's is its torch's.
  pins = {
    aarch64-darwin = {
      pytorch-python313-darwin-mps = "default";
    };
    aarch64-linux = {
      pytorch-python313-cpu-armv8_2 = "default";
      pytorch-python313-cpu-armv9 = "default";
      pytorch-python313-cuda12_8-sm100-armv8_2 = "default";
      pytorch-python313-cuda12_8-sm100-armv9 = "default";
      pytorch-python313-cuda12_8-sm120-armv8_2 = "default";
      pytorch-python313-cuda12_8-sm120-armv9 = "default";
      pytorch-python313-cuda12_8-sm75-armv8_2 = "default";
      pytorch-python313-cuda12_8-sm75-armv9 = "default";
      pytorch-python313-cuda12_8-sm80-armv8_2 = "default";
      pytorch-python313-cuda12_8-sm80-armv9 = "default";
      pytorch-python313-cuda12_8-sm86-armv8_2 = "default";
      pytorch-python313-cuda12_8-sm86-armv9 = "default";
      pytorch-python313-cuda12_8-sm89-armv8_2 = "default";
      pytorch-python313-cuda12_8-sm89-armv9 = "default";
      pytorch-python313-cuda12_8-sm90-armv8_2 = "default";
      pytorch-python313-cuda12_8-sm90-armv9 = "default";
    };
    x86_64-linux = {
      pytorch-python313-cpu-avx2 = "default";
      pytorch-python313-cpu-avx512 = "default";
      pytorch-python313-cpu-avx512bf16 = "default";
      pytorch-python313-cpu-avx512vnni = "default";
      pytorch-python313-cuda12_8-sm100-avx = "default";
      pytorch-python313-cuda12_8-sm100-avx2 = "default";
      pytorch-python313-cuda12_8-sm100-avx512 = "default";
      pytorch-python313-cuda12_8-sm100-avx512bf16 = "default";
      pytorch-python313-cuda12_8-sm100-avx512vnni = "default";
      pytorch-python313-cuda12_8-sm120-avx = "default";
      pytorch-python313-cuda12_8-sm120-avx2 = "default";
      pytorch-python313-cuda12_8-sm120-avx512 = "default";
      pytorch-python313-cuda12_8-sm120-avx512bf16 = "default";
      pytorch-python313-cuda12_8-sm120-avx512vnni = "default";
      pytorch-python313-cuda12_8-sm61-avx = "default";
      pytorch-python313-cuda12_8-sm61-avx2 = "default";
      pytorch-python313-cuda12_8-sm75-avx = "default";
      pytorch-python313-cuda12_8-sm75-avx2 = "default";
      pytorch-python313-cuda12_8-sm75-avx512 = "default";
      pytorch-python313-cuda12_8-sm75-avx512bf16 = "default";
      pytorch-python313-cuda12_8-sm75-avx512vnni = "default";
      pytorch-python313-cuda12_8-sm80-avx = "default";
      pytorch-python313-cuda12_8-sm80-avx2 = "default";
      pytorch-python313-cuda12_8-sm80-avx512 = "default";
      pytorch-python313-cuda12_8-sm80-avx512bf16 = "default";
      pytorch-python313-cuda12_8-sm80-avx512vnni = "default";
      pytorch-python313-cuda12_8-sm86-avx = "default";
      pytorch-python313-cuda12_8-sm86-avx2 = "default";
      pytorch-python313-cuda12_8-sm86-avx512 = "default";
      pytorch-python313-cuda12_8-sm86-avx512bf16 = "default";
      pytorch-python313-cuda12_8-sm86-avx512vnni = "default";
      pytorch-python313-cuda12_8-sm89-avx = "default";
      pytorch-python313-cuda12_8-sm89-avx2 = "default";
      pytorch-python313-cuda12_8-sm89-avx512 = "default";
      pytorch-python313-cuda12_8-sm89-avx512bf16 = "default";
      pytorch-python313-cuda12_8-sm89-avx512vnni = "default";
      pytorch-python313-cuda12_8-sm90-avx = "default";
      pytorch-python313-cuda12_8-sm90-avx2 = "default";
      pytorch-python313-cuda12_8-sm90-avx512 = "default";
      pytorch-python313-cuda12_8-sm90-avx512bf16 = "default";
      pytorch-python313-cuda12_8-sm90-avx512vnni = "default";
      torchaudio-python313-cuda12_8-sm61-avx = "default";
      torchaudio-python313-cuda12_8-sm75-avx = "default";
      torchvision-python313-cuda12_8-sm61-avx = "default";
      torchvision-python313-cuda12_8-sm75-avx = "default";
    };
  };

  given = pin: if builtins.isAttrs nixpkgs then nixpkgs.${pin} or null else nixpkgs;

  # A recipe imports the nixpkgs it is given with its config and overlays alone, so nixpkgs
  # takes its system from builtins.currentSystem; for another system it gets a file that adds
  # it. A pin left to the recipe to fetch is imported for builtins.currentSystem.
  packageSet = pin:
    let source = given pin; in
    if system == null then source
    else if source == null then throw "release.nix: system = \"${system}\" needs a nixpkgs for pin ${pin}: pass nixpkgs"
    else builtins.toFile "nixpkgs-${system}.nix" "args: import ${toString source} (args // { system = \"${system}\"; })";

  recipe = name: pin: import (./.flox/pkgs + "/${name}.nix") { genMatrixNixpkgs = packageSet pin; };
in
builtins.mapAttrs recipe (pins.${if system == null then builtins.currentSystem else system} or { })
