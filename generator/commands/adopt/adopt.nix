# What hand-written Flox recipes ask of nixpkgs, for `gen-matrix adopt`.
#
# Each recipe is evaluated as it is written, with `import`, `builtins.fetchTarball` and
# <nixpkgs> redirected (scopedImport) to a package set that records what the recipe asks of
# it: the nixpkgs revision, its config and overlays, the CUDA package set, the Python set,
# every `override` and `overrideAttrs` of torch, torchvision, torchaudio and magma. Nothing
# is fetched or built; a recipe that reaches for something this set does not have fails
# with Nix's own message, which `adopt` reports against the recipe.
#
#   nix-instantiate --eval --strict --json adopt.nix --argstr request '{"dir": ..., "recipes": [...], ...}'
#
# request: dir (the recipes' folder), recipes (file names in it), cuda (the CUDA releases
# the knowledge table knows, "12.8"), python (its Python versions, "3.13"), impure (the
# open and close of the mark that stands for a value the recipe does not write).
{ request }:
let
  inherit (builtins)
    attrNames concatLists concatStringsSep elem filter foldl' fromJSON functionArgs
    isAttrs isFunction isList isString listToAttrs map mapAttrs replaceStrings
    scopedImport split stringLength substring;

  req = fromJSON request;

  # The part of nixpkgs' lib the recipes call, with nixpkgs' semantics.
  lib = {
    inherit concatStringsSep elem filter foldl' isAttrs isFunction isList isString map mapAttrs attrNames;
    hasPrefix = prefix: s: substring 0 (stringLength prefix) s == prefix;
    hasSuffix = suffix: s:
      let n = stringLength s; m = stringLength suffix;
      in m <= n && substring (n - m) m s == suffix;
    optional = cond: x: if cond then [ x ] else [ ];
    optionals = cond: xs: if cond then xs else [ ];
    optionalString = cond: s: if cond then s else "";
    optionalAttrs = cond: as: if cond then as else { };
    concatMapStringsSep = sep: f: xs: concatStringsSep sep (map f xs);
    concatMap = f: xs: concatLists (map f xs);
    fix = f: let x = f x; in x;
    extends = overlay: f: (final: let prev = f final; in prev // overlay final prev);
    composeExtensions = f: g: final: prev:
      let fApplied = f final prev; prev' = prev // fApplied;
      in fApplied // g final prev';
    versionAtLeast = a: b: builtins.compareVersions a b >= 0;
    versionOlder = a: b: builtins.compareVersions a b < 0;
    inherit replaceStrings;
  };

  # A package of the recording set: its attributes as the recipe sees them (oldAttrs), and
  # the steps applied to it. `outPath` lets a recipe interpolate it into a string.
  mkPackage = { attr, set ? null, origin, attrs, steps ? [ ] }:
    let
      self = attrs // {
        outPath = "/adopted/${attr}";
        __adopted = { inherit attr set origin steps; };
        override = args: mkPackage {
          inherit attr set origin attrs;
          steps = steps ++ [ { override = args; } ];
        };
        overrideAttrs = f:
          let
            first = if isFunction f then f attrs else f;
            changes = if isFunction first then first self attrs else first;  # final: prev: form
          in mkPackage {
            inherit attr set origin;
            attrs = attrs // changes;
            steps = steps ++ [ { overrideAttrs = attrNames changes; } ];
          };
      };
    in self;

  # Attributes a recipe may read from oldAttrs: neutral values, so that what the final
  # package holds is what the recipe added.
  packageAttrs = pname: {
    inherit pname;
    version = null;
    src = null;
    patches = [ ];
    passthru = { };
    meta = { };
    buildInputs = [ ];
    nativeBuildInputs = [ ];
    propagatedBuildInputs = [ ];
    cmakeFlags = [ ];
    preConfigure = "";
    postPatch = "";
    preBuild = "";
    postInstall = "";
  };

  fetched = fetcher: args: {
    __fetched = { inherit fetcher; } // (if isAttrs args then args else { url = args; });
    outPath = "/adopted/${fetcher}";
  };

  # cudaPackages_12_8 for "12.8", and cudaPackages_12 for its major release.
  cudaAttr = version: "cudaPackages_${replaceStrings [ "." ] [ "_" ] version}";
  majors = map (v: builtins.head (filter isString (split "\\." v))) req.cuda;
  cudaSet = origin: name: {
    __adoptedCuda = name;
  } // listToAttrs (map (p: { name = p; value = mkPackage { attr = "cudaPackages.${p}"; inherit origin; attrs = packageAttrs p; }; })
    [ "cuda_cccl" "cuda_cudart" "cuda_nvcc" "cuda_nvrtc" "cudatoolkit" "cudnn" "libcublas" "libcusparse" "libcufft" "nccl" "cutensor" ]);

  pythonAttr = version: "python${replaceStrings [ "." ] [ "" ] version}Packages";

  pythonSet = origin: name: overrides:
    let
      base = _: listToAttrs (map (p: { name = p; value = mkPackage { attr = p; set = name; inherit origin; attrs = packageAttrs p; }; })
        [ "torch" "torchvision" "torchaudio" "triton" ]);
      fixed = lib.fix (lib.extends overrides base);
    in fixed // {
      pytorch = fixed.torch;  # nixpkgs' older name for it
      __adoptedPython = name;
      override = args: pythonSet origin name (lib.composeExtensions overrides (args.overrides or (_: _: { })));
    };

  nixpkgsFor = tarball: args:
    let
      config = args.config or { };
      overlays = args.overlays or [ ];
      origin = {
        inherit tarball config;
        cudaPackages = final.cudaPackages.__adoptedCuda;
        overlayAttrs = concatLists (map (overlay: attrNames (overlay final final)) overlays);
        magma = describe final.magma;
      };
      base = self: {
        inherit lib config;
        fetchFromGitHub = fetched "fetchFromGitHub";
        fetchpatch = fetched "fetchpatch";
        fetchpatch2 = fetched "fetchpatch2";
        fetchurl = fetched "fetchurl";
        fetchgit = fetched "fetchgit";
        cudaPackages = cudaSet origin "cudaPackages";
      }
      // listToAttrs (map (p: { name = p; value = mkPackage { attr = p; inherit origin; attrs = packageAttrs p; }; })
        [ "magma" "openblas" "mkl" "blas" "lapack" "addDriverRunpath" "cmake" "ninja" "which" ])
      // listToAttrs (map (v: { name = cudaAttr v; value = cudaSet origin (cudaAttr v); }) (req.cuda ++ majors))
      // listToAttrs (map (v: { name = pythonAttr v; value = pythonSet origin (pythonAttr v) (_: _: { }); }) req.python)
      // { python3Packages = pythonSet origin "python3Packages" (_: _: { }); };
      final = lib.fix (foldl' (f: overlay: lib.extends overlay f) base overlays);
    in final;

  # Redirected: fetchTarball records its argument, `import` of that record is the recording
  # set, <nixpkgs> is the set the environment would give, and every other file (a companion
  # importing its torch's recipe) is read the same way.
  fetchTarball = args: { __adoptedTarball = if isAttrs args then args else { url = args; }; };
  # What is not written in the recipe (the machine's environment, system, clock, a file's
  # text) never reaches it: each gives a mark instead, which adopt names in its report and
  # leaves out of the matrix. The evaluation is restricted besides (sandbox.py): a recipe
  # that gets the real builtins (scopedImport { }) reads nothing outside its repository,
  # fetches nothing, and reads "" for every variable.
  impure = what: "${req.impure.open}${what}${req.impure.close}";
  unread = {
    getEnv = name: impure "builtins.getEnv \"${name}\"";
    readFile = path: impure "builtins.readFile ${toString path}";
    currentSystem = impure "builtins.currentSystem";
    currentTime = impure "builtins.currentTime";
  };
  # a file the recipe imports with a scope of its own still sees this one
  scoped = extra: scopedImport (extra // scope);
  recipeBuiltins = builtins // unread // { inherit fetchTarball; scopedImport = scoped; builtins = recipeBuiltins; };
  # every builtin is also a global of its own name with two underscores (__getEnv)
  scope = unread // listToAttrs (map (name: { name = "__${name}"; value = unread.${name}; }) (attrNames unread)) // {
    builtins = recipeBuiltins;
    inherit fetchTarball;
    import = importing;
    scopedImport = scoped;
    __findFile = _: name: { __adoptedTarball = { channel = name; }; };
  };
  importing = path:
    if isAttrs path && path ? __adoptedTarball then nixpkgsFor path.__adoptedTarball
    else
      let value = scopedImport scope path;
      in if isFunction value then (args: tagged path (value args)) else tagged path value;
  tagged = path: value:
    if isAttrs value && value ? __adopted then value // { __adoptedFile = baseNameOf (toString path); } else value;

  # Plain data for JSON: packages by name (and file, where one was imported), fetches by
  # their arguments, functions as a mark.
  plain = value:
    if isFunction value then "<function>"
    else if builtins.isPath value then impure "the path ${toString value}"
    else if isString value && builtins.hasContext value then impure "a string that holds a path or a package"
    else if isAttrs value then
      (if value ? __adopted then { package = value.__adopted.attr; file = value.__adoptedFile or null; pname = value.pname or null; }
       else if value ? __fetched then mapAttrs (_: plain) value.__fetched
       else if value ? __adoptedCuda then { cudaPackages = value.__adoptedCuda; }
       else mapAttrs (_: plain) value)
    else if isList value then map plain value
    else value;

  describe = package: {
    inherit (package.__adopted) set;
    package = package.__adopted.attr;
    steps = map (step: if step ? override then { override = plain step.override; } else step) package.__adopted.steps;
    attrs = plain (removeAttrs package [ "__adopted" "__adoptedFile" "override" "overrideAttrs" "outPath" ]);
  };

  # A recipe written for callPackage (Flox calls it so, from the environment's nixpkgs) takes
  # its arguments from the recording set of that unpinned nixpkgs.
  ambient = nixpkgsFor { channel = "the environment's nixpkgs (callPackage)"; } { };
  recipe = name:
    let
      value = scopedImport scope (/. + "${req.dir}/${name}");
      result = if isFunction value then value (builtins.intersectAttrs (functionArgs value) (ambient // { pkgs = ambient; })) else value;
    in {
      inherit name;
      value =
        if isAttrs result && result ? __adopted then
          describe result // {
            nixpkgs = {
              inherit (result.__adopted.origin) cudaPackages overlayAttrs magma;
              tarball = plain result.__adopted.origin.tarball;
              config = plain result.__adopted.origin.config;
            };
          }
        else { error = "it does not evaluate to a package of nixpkgs"; };
    };
in
listToAttrs (map recipe req.recipes)
