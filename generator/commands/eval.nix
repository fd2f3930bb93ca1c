# What `gen-matrix eval` asks Nix: the derivations of some recipes, in one evaluation.
#
# A batch of recipes of one package set (its pin, or the nixpkgs handed in) and one system
# is evaluated in one process, so the pin is fetched and its files are parsed once. A recipe
# evaluates when the three derivations CI builds from it do: the wrapper `flox build`
# builds, the heavy build under it, and the Python `gen-matrix smoke` tests it in.
#
#   spec   a JSON file: { nixpkgs = null or "/abs/path"; recipes = [ { name; file; } ]; },
#          each name a key of the recipe's own (eval.py gives its position: a recipe of the
#          base revision and its namesake now may share a process)
#   catch  true: a recipe that fails gives null, and the others still evaluate (tryEval
#          catches throw and assert, which is how nixpkgs refuses a package); false: the
#          first failure stops the evaluation with its message
#
#   nonce  a secret of this run, which the recipes cannot read (evaluation is restricted,
#          and it is in no file): it marks this file's traces, which a recipe's own
#          `builtins.trace` cannot forge
#
# The results are the JSON on stdout, which a recipe cannot print to. The recipes are
# evaluated one after the other, in the order given, and each result is also traced to
# stderr (`trace: gen-matrix-eval NONCE: {"name":…,"value":…}`) as soon as it is known. A
# failure tryEval cannot catch ends the process; what it traced before says which recipes
# evaluated, and the first recipe without a trace is the one that failed.
{ spec, nonce, catch ? true }:

let
  request = builtins.fromJSON (builtins.readFile (/. + spec));

  # null: each recipe fetches its pin, as `flox build` does
  nixpkgs = if request.nixpkgs == null then null else /. + request.nixpkgs;

  derivations = recipe:
    let published = import (/. + recipe.file) { genMatrixNixpkgs = nixpkgs; };
    in {
      drv = published.drvPath;
      heavy = published.unwrapped.drvPath;
      python = published.pythonEnv.drvPath;
    };

  attempt = recipe:
    let
      found = derivations recipe;
      tried = builtins.tryEval (builtins.deepSeq found found);
    in
    if !catch then builtins.deepSeq found found
    else if tried.success then tried.value
    else null;

  results = map
    (recipe:
      let value = attempt recipe; in
      builtins.deepSeq value
        (builtins.trace "gen-matrix-eval ${nonce}: ${builtins.toJSON { inherit (recipe) name; inherit value; }}"
          { inherit (recipe) name; inherit value; }))
    request.recipes;

  # foldl' forces each result before the next: the traces come in the recipes' order.
  inOrder = builtins.foldl' (done: result: builtins.seq result done) true results;
in
builtins.seq inOrder (builtins.listToAttrs results)
