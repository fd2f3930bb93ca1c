# gen-matrix, built by nixpkgs from this source tree: `pkgs.callPackage ./package.nix { }`
# (default.nix does that with <nixpkgs>, flake.nix with its pinned nixpkgs).
#
# pyproject.toml is the one home of the name, version, dependencies, Python floor, console
# script and package layout; this file reads them from there.
{ lib, python3Packages }:

let
  pyproject = builtins.fromTOML (builtins.readFile ./pyproject.toml);
  project = pyproject.project;
  layout = pyproject.tool.setuptools;

  # "filelock>=3.30" -> "filelock"; nixpkgs names Python packages in lower case with dashes.
  nameOf = requirement:
    lib.toLower (builtins.replaceStrings [ "_" "." ] [ "-" "-" ] (builtins.head (builtins.match "([A-Za-z0-9._-]+).*" requirement)));
  # "filelock>=3.30" -> "3.30", null where the requirement has no lower bound
  lowerBound = requirement:
    let found = builtins.match ".*>=[[:space:]]*([0-9][0-9.]*).*" requirement; in
    if found == null then null else builtins.head found;

  # Dependencies whose lower bound the package set may not reach yet: their PyPI release.
  fromPypi = {
    # filelock 3.30 brought lock_descriptor, which the run lock takes (generator/pipeline/lock.py).
    # The pinned nixpkgs (flake.nix) has 3.29.7: pkgs/development/python-modules/filelock/default.nix
    # at NixOS/nixpkgs@00147e045f271a7f45750036af4f8083ecdeaf44. 3.30.3 builds with the same
    # hatchling and hatch-vcs; the hash is that of https://pypi.org/project/filelock/3.30.3/'s sdist,
    # filelock-3.30.3.tar.gz, sha256 6575420cd497ed15fc43a7ac46c48f6b6371c733fc40cf5a4e216871397bc1e2.
    filelock = {
      version = "3.30.3";
      hash = "sha256-ZXVCDNSX7RX8Q6esRsSPa2NxxzP8QM9aTiFocTl7weI=";
    };
    # click 8.5 is pyproject.toml's bound: the lowest the suite runs at (scripts/lock.py minimal;
    # the tests' check-jsonschema needs it). The pinned nixpkgs' click is older (8.1 in the test
    # package set; inferred for the flake's pin, not read). The hash is that of
    # https://pypi.org/project/click/8.5.1/'s sdist, click-8.5.1.tar.gz, sha256
    # 9bbfada76703fd1d784b83eea012e3e8c6a001a876543ef104fa56aaaeb072b4, which builds with
    # flit_core (its pyproject.toml); that nixpkgs' click derivation builds it so is not checked.
    click = {
      version = "8.5.1";
      hash = "sha256-m7+tp2cD/R14S4PuoBLj6MagAah2VD7xBPpWqq6wcrQ=";
    };
  };

  package = requirement:
    let
      name = nameOf requirement;
      bound = lowerBound requirement;
      found = python3Packages.${name} or (throw "gen-matrix needs the Python package ${name} (pyproject.toml: \"${requirement}\"), which this nixpkgs does not have");
      release = fromPypi.${name} or null;
    in
    if bound == null || !(lib.versionOlder found.version bound) then found
    else if release == null then
      throw "gen-matrix needs ${requirement} (pyproject.toml), this nixpkgs has ${name} ${found.version}: use a newer nixpkgs, or add ${name}'s PyPI release to fromPypi in package.nix"
    else
      found.overridePythonAttrs (_: {
        inherit (release) version;
        src = python3Packages.fetchPypi { pname = name; inherit (release) version hash; };
      });

  # where setuptools finds each package: [tool.setuptools.package-dir], else its dotted name
  packageDir = name: layout.package-dir.${name} or (builtins.replaceStrings [ "." ] [ "/" ] name);
  pythonFloor = lowerBound project.requires-python;
  # the console script, "gen-matrix" = "generator.__main__:run"
  script = builtins.head (builtins.attrNames project.scripts);
  scriptModule = builtins.head (builtins.match "([^:]+):.*" project.scripts.${script});
  # What a run of a checkout keeps in __pycache__/: Python's bytecode (.pyc), the knowledge table
  # parsed and dataclasses' methods compiled (.marshal), the templates compiled (.cache), each
  # first written under a temporary name (.tmp). None of it goes into the source, whose hash
  # would otherwise change with every run.
  kept = file: builtins.any file.hasExt [ "pyc" "marshal" "cache" "tmp" ];
in
python3Packages.buildPythonApplication {
  pname = project.name;
  inherit (project) version;
  pyproject = true;

  # What the wheel is built from, and nothing else (.venv, tests, benchmarks, what runs keep
  # compiled, `kept`): the package folders and the two files pyproject.toml reads.
  src = lib.fileset.toSource {
    root = ./.;
    fileset = lib.fileset.unions (
      [ ./pyproject.toml (./. + "/${project.readme}") ]
      ++ map (name: lib.fileset.fileFilter (file: !(kept file)) (./. + "/${packageDir name}")) layout.packages
    );
  };

  build-system = map package pyproject.build-system.requires;
  dependencies = map package project.dependencies;

  disabled = python3Packages.pythonOlder pythonFloor;
  # the script's module imports the whole command line
  pythonImportsCheck = [ scriptModule ];

  meta = {
    inherit (project) description;
    license = lib.getLicenseFromSpdxId project.license.text;
    mainProgram = script;
  };
}
