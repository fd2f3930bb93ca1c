# What package.nix asks of nixpkgs (`lib` and `python3Packages`), small enough to read in one go,
# for tests/test_package_nix.py. buildPythonApplication builds nothing: it returns the arguments
# it was given, so the test can see what nixpkgs would build. The tests/nix/nixpkgs stand-in
# impersonates the nixpkgs pins of the generated recipes, which hold none of gen-matrix's own
# dependencies (click, archspec, jsonschema, ...) and no lib.fileset; this one impersonates the
# nixpkgs of flake.nix.
#
# Where each behaviour was read, in NixOS/nixpkgs:
# - lib.fileset.toSource { root, fileset } and unions [ ... ] (a path is the file set of every file
#   under it; a folder with no file left in it is left out): lib/fileset/default.nix at fa783584.
# - lib.fileset.fileFilter predicate path: the predicate gets { name, type, hasExt, ... } for each
#   file under path, hasExt = ext: hasSuffix ".${ext}" name: lib/fileset/internal.nix's
#   _fileFilter, in a stored copy the index gives without its commit.
# - fetchPypi { pname, version, hash }: the sdist at
#   mirror://pypi/${first letter}/${pname}/${pname}-${version}.tar.gz:
#   pkgs/build-support/fetchpypi/default.nix at 6b636feb.
# - lib.versionOlder a b = compareVersions b a == 1, lib.toLower, lib.getLicenseFromSpdxId and
#   pythonOlder = lib.versionOlder pythonVersion are nixpkgs' lib/strings.nix, lib/licenses.nix
#   and python-packages-base.nix as tests/nix/nixpkgs/lib.nix and python.nix already mimic them.
#
# `versions` is the version of each Python package in the set (the test says where each was
# read); `pythonVersion` is python3's.
{ versions, pythonVersion }:

let
  inherit (builtins) attrNames concatLists map readDir replaceStrings stringLength substring;

  hasSuffix = suffix: text:
    let n = stringLength text; m = stringLength suffix; in
    n >= m && substring (n - m) m text == suffix;
  removePrefix = prefix: text:
    let m = stringLength prefix; in
    if substring 0 m text == prefix then substring m (stringLength text - m) text
    else throw "stand-in: ${text} is not under ${prefix}";
  upper = [ "A" "B" "C" "D" "E" "F" "G" "H" "I" "J" "K" "L" "M" "N" "O" "P" "Q" "R" "S" "T" "U" "V" "W" "X" "Y" "Z" ];
  lower = [ "a" "b" "c" "d" "e" "f" "g" "h" "i" "j" "k" "l" "m" "n" "o" "p" "q" "r" "s" "t" "u" "v" "w" "x" "y" "z" ];

  # A file set: a list of { base; predicate; }, every file under base the predicate keeps.
  typeOf = path: (readDir (dirOf path)).${baseNameOf path}
    or (throw "lib.fileset: ${toString path} does not exist");
  filesUnder = predicate: path: type:
    if type == "directory" then
      concatLists (map (name: filesUnder predicate (path + "/${name}") (readDir path).${name}) (attrNames (readDir path)))
    else if predicate { name = baseNameOf path; inherit type; hasExt = ext: hasSuffix ".${ext}" (baseNameOf path); }
    then [ path ] else [ ];
  coerce = fileset: if builtins.isPath fileset then [ { base = fileset; predicate = _: true; } ] else fileset;

  versionOlder = a: b: builtins.compareVersions b a == 1;

  lib = {
    toLower = replaceStrings upper lower;
    inherit versionOlder;
    getLicenseFromSpdxId = id:
      { MIT = { spdxId = "MIT"; shortName = "mit"; }; }.${id} or (throw "stand-in: no license ${id}");
    fileset = {
      unions = filesets: concatLists (map coerce filesets);
      fileFilter = predicate: path: [ { base = path; inherit predicate; } ];
      # What would be copied to the store: the files, relative to root, sorted.
      toSource = { root, fileset }: {
        files = builtins.sort builtins.lessThan (map (path: removePrefix "${toString root}/" (toString path))
          (concatLists (map (set: filesUnder set.predicate set.base (typeOf set.base)) (coerce fileset))));
      };
    };
  };

  package = pname: version:
    let attrs = { inherit pname version; }; in
    attrs // { overridePythonAttrs = f: attrs // f attrs // { overridden = true; }; };
in
{
  inherit lib;
  python3Packages = builtins.mapAttrs package versions // {
    pythonOlder = versionOlder pythonVersion;
    fetchPypi = { pname, version, hash }: {
      url = "mirror://pypi/${substring 0 1 pname}/${pname}/${pname}-${version}.tar.gz";
      inherit hash;
    };
    # what package.nix asks nixpkgs to build
    buildPythonApplication = args: args;
  };
}
