# A Python interpreter plus its package set, shaped like nixpkgs':
# python313.pkgs == python313Packages, `python.override { packageOverrides }`
# and top-level `pythonPackagesExtensions` both extend the set with a real
# fixpoint, and the set's callPackage resolves python packages before
# top-level ones (so `protobuf` is the python one, `cudaPackages` the
# overlay-selected one).
{
  lib,
  stdenv,
  pkgs,
  fetchFromGitHub,
  pythonPackagesExtensions,
  pythonVersion,
  sourceVersion,
  packageOverrides ? (_: _: { }),
}:
let
  python = stdenv.mkDerivation {
    pname = "python3";
    version = sourceVersion;
    passthru = {
      inherit pythonVersion;
      pkgs = pythonSet;
      libPrefix = "python${pythonVersion}";
      sitePackages = "lib/python${pythonVersion}/site-packages";
      executable = "python${pythonVersion}";
      isPy3k = true;
      pythonAtLeast = lib.versionAtLeast pythonVersion;
      pythonOlder = lib.versionOlder pythonVersion;
      # Like nixpkgs': an environment whose bin/python imports the packages and what they propagate.
      withPackages = f: stdenv.mkDerivation {
        pname = "python3-env";
        version = sourceVersion;
        passthru.packages = f pythonSet;
      };
    };
    meta = {
      description = "High-level dynamically-typed programming language";
      license = lib.licenses.psfl;
      platforms = lib.platforms.linux ++ lib.platforms.darwin;
    };
  };

  base = self:
    let
      callPackage = lib.callPackageWith (pkgs // self);
      # Small stand-ins for torch's python dependencies.
      simple = pname: version: license: self.buildPythonPackage {
        inherit pname version;
        pyproject = true;
        src = fetchFromGitHub { owner = pname; repo = pname; tag = "v${version}"; hash = null; };
        meta = { inherit license; description = "Fake ${pname}"; platforms = lib.platforms.all; };
      };
    in
    {
      inherit python callPackage pythonVersion;
      pythonAtLeast = lib.versionAtLeast pythonVersion;
      pythonOlder = lib.versionOlder pythonVersion;
      isPy3k = true;

      # stdenv.mkDerivation with python's extras (overridePythonAttrs).
      # name is "${pname}-${version}" (real nixpkgs prefixes "pythonX.Y-").
      buildPythonPackage = stdenv.mkPythonDerivation;
      toPythonModule = x: x;

      torch = callPackage ./pkgs/torch.nix { };
      torchvision = callPackage ./pkgs/torchvision.nix { };
      torchaudio = callPackage ./pkgs/torchaudio.nix { };

      numpy = simple "numpy" "2.3.2" lib.licenses.bsd3;
      pyyaml = simple "pyyaml" "6.0.2" lib.licenses.mit;
      six = simple "six" "1.17.0" lib.licenses.mit;
      pybind11 = simple "pybind11" "3.0.0" lib.licenses.bsd3;
      setuptools = simple "setuptools" "80.9.0" lib.licenses.mit;
      wheel = simple "wheel" "0.45.1" lib.licenses.mit;
      sympy = simple "sympy" "1.14.0" lib.licenses.bsd3;
      typing-extensions = simple "typing-extensions" "4.14.1" lib.licenses.psfl;
      triton = simple "triton" "3.4.0" lib.licenses.mit;
      pillow = simple "pillow" "11.3.0" lib.licenses.hpnd;
      protobuf = simple "protobuf" "6.31.1" lib.licenses.bsd3;
      filelock = simple "filelock" "3.18.0" lib.licenses.mit;
      jinja2 = simple "jinja2" "3.1.6" lib.licenses.bsd3;
      networkx = simple "networkx" "3.5" lib.licenses.bsd3;
      fsspec = simple "fsspec" "2025.7.0" lib.licenses.bsd3;
      packaging = simple "packaging" "25.0" lib.licenses.asl20;

      # Same as nixpkgs' python-aliases.nix (with allowAliases).
      pytorch = throw "'pytorch' has been renamed to/replaced by 'torch'";
    };

  pythonSet = lib.fix (lib.extends
    (lib.composeManyExtensions (pythonPackagesExtensions ++ [ packageOverrides ]))
    base);
in
python
