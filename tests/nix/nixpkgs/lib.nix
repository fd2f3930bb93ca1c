# A real (builtins-based) subset of nixpkgs' lib. Same names and semantics as
# nixpkgs, so a recipe that works here uses lib the way it would against the
# real thing; anything not listed here is absent on purpose (a recipe relying
# on it fails loudly instead of silently passing against a stub).
let
  inherit (builtins)
    attrNames attrValues concatLists concatStringsSep elem elemAt filter foldl'
    functionArgs genList hasAttr head intersectAttrs isAttrs isFunction isList
    isString length listToAttrs map mapAttrs match removeAttrs replaceStrings
    sort split stringLength substring tail toString compareVersions
    splitVersion;

  # -- trivial -------------------------------------------------------------
  id = x: x;
  const = x: _: x;
  flip = f: a: b: f b a;
  boolToString = b: if b then "true" else "false";
  warn = msg: builtins.trace "[1;35mwarning:[0m ${msg}";
  warnIf = cond: msg: if cond then warn msg else id;
  throwIf = cond: msg: if cond then throw msg else id;
  throwIfNot = cond: msg: if cond then id else throw msg;
  assertMsg = pred: msg: pred || throw msg;
  assertOneOf = name: val: xs:
    assertMsg (elem val xs)
      "${name} must be one of ${builtins.toJSON xs}, but is: ${builtins.toJSON val}";

  # -- fixed points / overlays ---------------------------------------------
  fix = f: let x = f x; in x;
  extends = overlay: f: (final: let prev = f final; in prev // overlay final prev);
  composeExtensions = f: g: final: prev:
    let fApplied = f final prev; prev' = prev // fApplied;
    in fApplied // g final prev';
  composeManyExtensions = foldr composeExtensions (_: _: { });
  toExtension = f:
    if isFunction f then
      (final: prev: let fPrev = f prev; in if isFunction fPrev then f final prev else fPrev)
    else (_: _: f);

  # -- lists ----------------------------------------------------------------
  foldr = op: nul: list:
    let len = length list;
        fold' = n: if n == len then nul else op (elemAt list n) (fold' (n + 1));
    in fold' 0;
  foldl = op: nul: list: foldl' op nul list;
  optional = cond: elem: if cond then [ elem ] else [ ];
  optionals = cond: elems: if cond then elems else [ ];
  toList = x: if isList x then x else [ x ];
  all = builtins.all;
  any = builtins.any;
  concatMap = builtins.concatMap;
  flatten = x: if isList x then concatMap flatten x else [ x ];
  unique = foldl' (acc: e: if elem e acc then acc else acc ++ [ e ]) [ ];
  last = list: assert assertMsg (list != [ ]) "lists.last: list must not be empty!";
    elemAt list (length list - 1);
  init = list: assert assertMsg (list != [ ]) "lists.init: list must not be empty!";
    genList (elemAt list) (length list - 1);
  take = count: list: genList (elemAt list) (if count < length list then count else length list);
  drop = count: list:
    let n = length list - count; in genList (i: elemAt list (i + count)) (if n < 0 then 0 else n);
  range = first: last: if first > last then [ ] else genList (n: first + n) (last - first + 1);
  imap0 = f: list: genList (n: f n (elemAt list n)) (length list);
  imap1 = f: list: genList (n: f (n + 1) (elemAt list n)) (length list);
  subtractLists = e: filter (x: !(elem x e));
  intersectLists = e: filter (x: elem x e);
  count = pred: foldl' (c: x: if pred x then c + 1 else c) 0;
  findFirst = pred: default: list:
    let found = filter pred list; in if found == [ ] then default else head found;
  reverseList = xs: let l = length xs; in genList (n: elemAt xs (l - n - 1)) l;
  groupBy = pred: foldl' (r: e: let key = pred e; in r // { ${key} = (r.${key} or [ ]) ++ [ e ]; }) { };

  # -- attrsets -------------------------------------------------------------
  nameValuePair = name: value: { inherit name value; };
  genAttrs = names: f: listToAttrs (map (n: nameValuePair n (f n)) names);
  mapAttrs' = f: set: listToAttrs (map (attr: f attr set.${attr}) (attrNames set));
  mapAttrsToList = f: attrs: map (name: f name attrs.${name}) (attrNames attrs);
  filterAttrs = pred: set:
    listToAttrs (concatMap (name: let v = set.${name}; in if pred name v then [ (nameValuePair name v) ] else [ ]) (attrNames set));
  optionalAttrs = cond: as: if cond then as else { };
  attrByPath = attrPath: default: e:
    let attr = head attrPath; in
    if attrPath == [ ] then e
    else if e ? ${attr} then attrByPath (tail attrPath) default e.${attr}
    else default;
  hasAttrByPath = attrPath: e:
    let attr = head attrPath; in
    if attrPath == [ ] then true
    else if e ? ${attr} then hasAttrByPath (tail attrPath) e.${attr}
    else false;
  getAttrFromPath = attrPath: set:
    attrByPath attrPath (throw "cannot find attribute '${concatStringsSep "." attrPath}'") set;
  setAttrByPath = attrPath: value:
    if attrPath == [ ] then value else { ${head attrPath} = setAttrByPath (tail attrPath) value; };
  recursiveUpdateUntil = pred: lhs: rhs:
    let f = attrPath: builtins.zipAttrsWith (n: values:
      let here = attrPath ++ [ n ]; in
      if length values == 1 || pred here (elemAt values 1) (head values)
      then head values
      else f here values);
    in f [ ] [ rhs lhs ];
  recursiveUpdate = recursiveUpdateUntil (path: lhs: rhs: !(isAttrs lhs && isAttrs rhs));
  zipAttrsWith = builtins.zipAttrsWith;
  isDerivation = value: value.type or null == "derivation";

  # -- strings --------------------------------------------------------------
  concatStrings = concatStringsSep "";
  concatMapStrings = f: list: concatStrings (map f list);
  concatMapStringsSep = sep: f: list: concatStringsSep sep (map f list);
  concatLines = concatMapStrings (s: s + "\n");
  optionalString = cond: string: if cond then string else "";
  hasPrefix = pref: str: substring 0 (stringLength pref) str == pref;
  hasSuffix = suffix: content:
    let lenContent = stringLength content; lenSuffix = stringLength suffix; in
    lenContent >= lenSuffix && substring (lenContent - lenSuffix) lenContent content == suffix;
  hasInfix = infix: content: builtins.match ".*${escapeRegex infix}.*" "${content}" != null;
  escapeRegex = replaceStrings
    [ "\\" "[" "]" "(" ")" "{" "}" "." "*" "+" "?" "^" "$" "|" ]
    [ "\\\\" "\\[" "\\]" "\\(" "\\)" "\\{" "\\}" "\\." "\\*" "\\+" "\\?" "\\^" "\\$" "\\|" ];
  removePrefix = prefix: str:
    if hasPrefix prefix str then substring (stringLength prefix) (stringLength str) str else str;
  removeSuffix = suffix: str:
    if hasSuffix suffix str then substring 0 (stringLength str - stringLength suffix) str else str;
  splitString = sep: s: filter isString (split (escapeRegex sep) s);
  stringToCharacters = s: genList (p: substring p 1 s) (stringLength s);
  toLower = replaceStrings
    (stringToCharacters "ABCDEFGHIJKLMNOPQRSTUVWXYZ") (stringToCharacters "abcdefghijklmnopqrstuvwxyz");
  toUpper = replaceStrings
    (stringToCharacters "abcdefghijklmnopqrstuvwxyz") (stringToCharacters "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
  escapeShellArg = arg:
    let string = toString arg; in
    if match "[[:alnum:],._+:@%/-]+" string == null
    then "'${replaceStrings [ "'" ] [ "'\\''" ] string}'"
    else string;
  escapeShellArgs = concatMapStringsSep " " escapeShellArg;
  makeSearchPath = subDir: paths: concatStringsSep ":" (map (p: "${p}/${subDir}") (filter (x: x != null) paths));
  makeBinPath = makeSearchPath "bin";
  makeLibraryPath = makeSearchPath "lib";
  fixedWidthString = width: filler: str:
    let strw = stringLength str; in
    assert assertMsg (strw <= width) "fixedWidthString: requested string length (${toString width}) must not be shorter than actual length (${toString strw})";
    if strw == width then str else filler + fixedWidthString (width - 1) filler str;

  # -- versions -------------------------------------------------------------
  versionOlder = v1: v2: compareVersions v2 v1 == 1;
  versionAtLeast = v1: v2: !versionOlder v1 v2;
  versions = {
    splitVersion = splitVersion;
    major = v: elemAt (splitVersion v) 0;
    minor = v: elemAt (splitVersion v) 1;
    patch = v: elemAt (splitVersion v) 2;
    majorMinor = v: concatStringsSep "." (take 2 (splitVersion v));
    pad = n: version:
      let comps = splitVersion version; l = length comps; in
      concatStringsSep "." (comps ++ genList (_: "0") (if n > l then n - l else 0));
  };

  # -- customisation (same algorithm as nixpkgs' lib/customisation.nix) ------
  # `.override` re-calls f with merged args: an argument f does not declare
  # is rejected by Nix itself ("called with unexpected argument"), exactly as
  # with real nixpkgs, because package functions have no `...`.
  # `.override` carries f's arguments (lib.functionArgs reads them), as nixpkgs' mirrorArgs
  # gives it.
  makeOverridable = f: origArgs:
    let
      mirrorArgs = mirrorFunctionArgs f;
      result = f origArgs;
      overrideWith = newArgs: origArgs // (if isFunction newArgs then newArgs origArgs else newArgs);
      overrideResult = g: makeOverridable (mirrorArgs (args: g (f args))) origArgs;
    in
    if isAttrs result then
      result // {
        override = mirrorArgs (newArgs: makeOverridable f (overrideWith newArgs));
        overrideDerivation = fdrv: overrideResult (x: x.overrideDerivation fdrv);
        ${if result ? overrideAttrs then "overrideAttrs" else null} =
          fdrv: overrideResult (x: x.overrideAttrs fdrv);
        # buildPythonPackage results keep `.override` after overridePythonAttrs too.
        ${if result ? overridePythonAttrs then "overridePythonAttrs" else null} =
          fdrv: overrideResult (x: x.overridePythonAttrs fdrv);
      }
    else if isFunction result then
      { override = mirrorArgs (newArgs: makeOverridable f (overrideWith newArgs)); __functor = self: result; }
    else result;

  callPackageWith = autoArgs: fn: args:
    let
      f = if isFunction fn || fn ? __functor then fn else import fn;
      fargs = functionArgs' f;
      allArgs = intersectAttrs fargs autoArgs // args;
      missingArgs = filter (n: !fargs.${n} && !(allArgs ? ${n})) (attrNames fargs);
    in
    if missingArgs == [ ] then makeOverridable f allArgs
    else throw "Function called without required argument \"${head missingArgs}\"";

  # Same as nixpkgs' lib/customisation.nix: the result of `derivation` with
  # passthru merged in, every output carrying the same attrs, and drvPath /
  # outPath guarded by `condition` (check-meta's validity).
  extendDerivation = condition: passthru: drv:
    let
      outputs = drv.outputs or [ "out" ];
      commonAttrs = drv // (listToAttrs outputsList) // { all = map (x: x.value) outputsList; } // passthru;
      outputToAttrListElement = outputName: {
        name = outputName;
        value = commonAttrs // {
          inherit (drv.${outputName}) type outputName;
          outputSpecified = true;
          drvPath = assert condition; drv.${outputName}.drvPath;
          outPath = assert condition; drv.${outputName}.outPath;
        } // optionalAttrs (passthru ? overrideAttrs) {
          overrideAttrs = f: (passthru.overrideAttrs f).${outputName};
        };
      };
      outputsList = map outputToAttrListElement outputs;
    in
    commonAttrs // {
      drvPath = assert condition; drv.drvPath;
      outPath = assert condition; drv.outPath;
    };

  # lib.attrsets output helpers (getOutput & co), as in nixpkgs.
  getOutput = output: pkg:
    if !pkg ? outputSpecified || !pkg.outputSpecified then pkg.${output} or pkg.out or pkg else pkg;
  getFirstOutput = candidates: pkg:
    let outputs = builtins.filter (name: hasAttr name pkg) candidates;
        output = builtins.head outputs;
    in if pkg.outputSpecified or false || outputs == [ ] then pkg else pkg.${output};
  getBin = getFirstOutput [ "bin" "out" ];
  getLib = getFirstOutput [ "lib" "out" ];
  getDev = getFirstOutput [ "dev" "out" ];
  getInclude = getFirstOutput [ "include" "dev" "out" ];
  getMan = getFirstOutput [ "man" "doc" "out" ];
  getExe = x: getExe' x (x.meta.mainProgram or (
    warn "getExe: Package ${x.name or "«name-missing»"} does not have the meta.mainProgram attribute."
      (parseDrvName (x.name or "")).name));
  getExe' = x: y:
    assert assertMsg (isDerivation x) "lib.meta.getExe': The first argument is of type ${builtins.typeOf x}, but it should be a derivation instead.";
    "${getBin x}/bin/${y}";
  parseDrvName = builtins.parseDrvName;
  getName = x: let parse = drv: (parseDrvName drv).name; in
    if isString x then parse x else x.pname or (parse x.name);
  getVersion = x: let parse = drv: (parseDrvName drv).version; in
    if isString x then parse x else x.version or (parse x.name);
  catAttrs = builtins.catAttrs;
  getAttrs = names: attrs: genAttrs names (name: attrs.${name});
  remove = e: filter (x: x != e);
  mutuallyExclusive = a: b: length a == 0 || !(any (x: elem x a) b);
  mapNullable = f: a: if a == null then a else f a;
  toInt = str: let n = builtins.fromJSON str; in
    if builtins.match "[0-9]+" str != null then n else throw "Could not convert ${str} to int.";

  # lib/strings.nix cmake helpers.
  cmakeOptionType = type: feature: value:
    assert assertMsg (elem (toUpper type) [ "BOOL" "FILEPATH" "PATH" "STRING" "INTERNAL" ])
      "cmakeOptionType only accepts type values: BOOL, FILEPATH, PATH, STRING, INTERNAL";
    assert assertMsg (isString feature) "cmakeOptionType feature argument must be a string";
    assert assertMsg (isString value) "cmakeOptionType value argument must be a string";
    "-D${feature}:${toUpper type}=${value}";
  cmakeBool = condition: flag:
    assert assertMsg (isString condition) "cmakeBool condition argument must be a string";
    assert assertMsg (builtins.isBool flag) "cmakeBool flag argument must be a bool";
    cmakeOptionType "bool" condition (if flag then "TRUE" else "FALSE");
  cmakeFeature = feature: value:
    assert assertMsg (isString feature) "cmakeFeature feature argument must be a string";
    assert assertMsg (isString value) "cmakeFeature value argument must be a string";
    cmakeOptionType "string" feature value;
  mesonOption = feature: value: "-D${feature}=${value}";
  mesonBool = condition: flag: mesonOption condition (boolToString flag);
  enableFeature = flag: feature: "--${if flag then "enable" else "disable"}-${feature}";
  withFeature = flag: feature: "--${if flag then "with" else "without"}-${feature}";

  # Derivation names: what Nix accepts (lib.strings.sanitizeDerivationName, simplified:
  # invalid characters become "-").
  sanitizeDerivationName = string:
    let s = builtins.concatStringsSep "" (map (c: if match "[[:alnum:]+._?=-]" c == null then "-" else c)
              (stringToCharacters string));
    in if s == "" then "unknown" else if hasPrefix "." s then "-" + substring 1 (stringLength s) s else s;

  fakeHash = "sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
  fakeSha256 = "0000000000000000000000000000000000000000000000000000";

  # lib.generators.toPretty, reduced to what error messages need.
  toPretty = { ... }: let
    go = v:
      if isString v then builtins.toJSON v
      else if isList v then (if v == [ ] then "[ ]" else "[ ${concatStringsSep " " (map go v)} ]")
      else if isAttrs v then
        (if v ? outPath && v.type or null == "derivation" then "<derivation ${v.name or "?"}>"
         else if v == { } then "{ }"
         else "{ ${concatStringsSep " " (map (n: "${n} = ${go v.${n}};") (attrNames v))} }")
      else if isFunction v then "<function>"
      else if v == null then "null"
      else if v == true then "true" else if v == false then "false"
      else toString v;
    in go;

  # lib/trivial.nix function-argument helpers.
  setFunctionArgs = f: args: { __functor = self: f; __functionArgs = args; };
  functionArgs' = f: if f ? __functor then f.__functionArgs or (functionArgs (f.__functor f)) else functionArgs f;
  mirrorFunctionArgs = f: let fArgs = functionArgs' f; in g: setFunctionArgs g fArgs;

  # lib.meta.availableOn, for plain system lists.
  availableOn = platform: pkg:
    ((!pkg ? meta.platforms) || elem platform.system pkg.meta.platforms)
    && !(elem platform.system (pkg.meta.badPlatforms or [ ]));

  # -- platforms / licenses / maintainers -----------------------------------
  platforms = rec {
    linux = [ "aarch64-linux" "armv5tel-linux" "armv6l-linux" "armv7a-linux" "armv7l-linux"
              "i686-linux" "loongarch64-linux" "m68k-linux" "microblaze-linux" "mips-linux"
              "mips64-linux" "mips64el-linux" "mipsel-linux" "powerpc64-linux"
              "powerpc64le-linux" "riscv32-linux" "riscv64-linux" "s390-linux" "s390x-linux"
              "x86_64-linux" ];
    darwin = [ "x86_64-darwin" "aarch64-darwin" ];
    unix = linux ++ darwin;
    all = unix;
    x86_64 = [ "x86_64-linux" "x86_64-darwin" ];
    aarch64 = [ "aarch64-linux" "aarch64-darwin" ];
    i686 = [ "i686-linux" ];
  };

  licenses = let l = attrs: { free = true; redistributable = true; deprecated = false; } // attrs; in {
    bsd2 = l { spdxId = "BSD-2-Clause"; shortName = "bsd2"; fullName = ''BSD 2-clause "Simplified" License''; };
    bsd3 = l { spdxId = "BSD-3-Clause"; shortName = "bsd3"; fullName = ''BSD 3-clause "New" or "Revised" License''; };
    mit = l { spdxId = "MIT"; shortName = "mit"; fullName = "MIT License"; };
    asl20 = l { spdxId = "Apache-2.0"; shortName = "asl20"; fullName = "Apache License 2.0"; };
    psfl = l { spdxId = "Python-2.0"; shortName = "psfl"; fullName = "Python Software Foundation License version 2"; };
    hpnd = l { spdxId = "HPND"; shortName = "hpnd"; fullName = "Historic Permission Notice and Disclaimer"; };
    bsdOriginal = l { spdxId = "BSD-4-Clause"; shortName = "bsdOriginal"; fullName = ''BSD 4-clause "Original" or "Old" License''; };
    gpl3Plus = l { spdxId = "GPL-3.0-or-later"; shortName = "gpl3Plus"; fullName = "GNU General Public License v3.0 or later"; };
    mpl20 = l { spdxId = "MPL-2.0"; shortName = "mpl20"; fullName = "Mozilla Public License 2.0"; };
    unlicense = l { spdxId = "Unlicense"; shortName = "unlicense"; fullName = "The Unlicense"; };
    lgpl21Plus = l { spdxId = "LGPL-2.1-or-later"; shortName = "lgpl21Plus"; fullName = "GNU Lesser General Public License v2.1 or later"; };
    ncsa = l { spdxId = "NCSA"; shortName = "ncsa"; fullName = "University of Illinois/NCSA Open Source License"; };
    unfree = l { shortName = "unfree"; fullName = "Unfree"; free = false; redistributable = false; };
    unfreeRedistributable = l { shortName = "unfreeRedistributable"; fullName = "Unfree redistributable"; free = false; };
    nvidiaCuda = l { shortName = "CUDA EULA"; fullName = "CUDA Toolkit End User License Agreement (EULA)"; url = "https://docs.nvidia.com/cuda/eula/index.html"; free = false; };
    nvidiaCudaRedist = l { shortName = "CUDA EULA"; fullName = "CUDA Toolkit End User License Agreement (EULA)"; url = "https://docs.nvidia.com/cuda/eula/index.html#attachment-a"; free = false; };
  };

  # Empty on purpose: real maintainer handles must not be relied on by recipes.
  maintainers = { };
  teams = { };

  lists = {
    inherit foldr foldl foldl' optional optionals toList all any concatMap flatten unique last
      init take drop range imap0 imap1 subtractLists intersectLists count findFirst
      reverseList groupBy filter elem length head tail sort concatLists genList elemAt map
      remove mutuallyExclusive;
  };
  strings = {
    inherit concatStrings concatMapStrings concatStringsSep concatMapStringsSep concatLines
      optionalString hasPrefix hasSuffix hasInfix removePrefix removeSuffix splitString
      stringToCharacters toLower toUpper escapeShellArg escapeShellArgs escapeRegex makeSearchPath makeBinPath
      makeLibraryPath fixedWidthString versionOlder versionAtLeast replaceStrings
      stringLength substring match split cmakeOptionType cmakeBool cmakeFeature mesonOption
      mesonBool enableFeature withFeature sanitizeDerivationName;
  };
  attrsets = {
    inherit nameValuePair genAttrs mapAttrs mapAttrs' mapAttrsToList filterAttrs optionalAttrs
      attrByPath hasAttrByPath getAttrFromPath setAttrByPath recursiveUpdate
      recursiveUpdateUntil zipAttrsWith attrNames attrValues listToAttrs intersectAttrs
      removeAttrs isDerivation getOutput getBin getLib getDev getInclude getMan catAttrs getAttrs;
  };
  trivial = {
    inherit id const flip boolToString warn warnIf throwIf throwIfNot fix toExtension
      setFunctionArgs mirrorFunctionArgs;
    functionArgs = functionArgs';
  };
  meta = { inherit availableOn getExe getExe'; };
  generators = { inherit toPretty; };
  asserts = { inherit assertMsg assertOneOf; };
  fixedPoints = { inherit fix extends composeExtensions composeManyExtensions toExtension; };
  customisation = { inherit makeOverridable callPackageWith extendDerivation; };
  derivations = { };
in
lists // strings // attrsets // trivial // asserts // fixedPoints // customisation // {
  inherit lists strings attrsets trivial asserts fixedPoints customisation versions
    platforms licenses maintainers teams meta generators derivations;
  inherit getExe getExe' getName getVersion parseDrvName mapNullable fakeHash fakeSha256 toInt
    setFunctionArgs mirrorFunctionArgs;
  functionArgs = functionArgs';
  inherit (builtins) isString isList isAttrs isFunction isBool isInt isFloat isPath
    toString toJSON fromJSON typeOf seq deepSeq pathExists readFile
    attrNames attrValues getAttr hasAttr elem head tail length filter map genList
    concatLists concatStringsSep replaceStrings removeAttrs listToAttrs intersectAttrs
    mapAttrs foldl' elemAt match split substring stringLength compareVersions
    splitVersion tryEval addErrorContext unsafeGetAttrPos;
}
