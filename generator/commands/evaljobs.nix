# What `gen-matrix eval` hands nix-eval-jobs, where it is on PATH: the derivations of some
# recipes, as jobs it walks and evaluates in its own workers (evaljobs.py reads its lines).
#
#   spec   the same JSON file as eval.nix's: { nixpkgs = null or "/abs/path"; recipes = [ { name; file; } ]; }
#
# Each recipe is an attribute set of the three derivations eval.nix gives the drvPaths of:
# the wrapper `flox build` builds (drv), the heavy build under it (heavy), and the Python
# `gen-matrix smoke` tests it in (python). nix-eval-jobs goes into it (recurseForDerivations)
# and prints one line for each, `NAME.drv` and so on, with its drvPath or its error.
{ spec }:

let
  request = builtins.fromJSON (builtins.readFile (/. + spec));

  # null: each recipe fetches its pin, as `flox build` does
  nixpkgs = if request.nixpkgs == null then null else /. + request.nixpkgs;

  jobs = recipe:
    let published = import (/. + recipe.file) { genMatrixNixpkgs = nixpkgs; };
    in {
      recurseForDerivations = true;
      drv = published;
      heavy = published.unwrapped;
      python = published.pythonEnv;
    };
in
builtins.listToAttrs (map (recipe: { inherit (recipe) name; value = jobs recipe; }) request.recipes)
