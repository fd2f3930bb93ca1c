# Fake nixpkgs for gen-matrix's tests. It is called exactly like real nixpkgs
# (`import ./tests/nix/nixpkgs { config = ...; overlays = [ ... ]; }`) and
# mimics it strictly where recipes depend on it: overlays are a real fixpoint,
# package functions are callPackage'd without `...` (bad `.override` args
# fail), CUDA flags assert on config.cudaCapabilities, unfree CUDA packages
# need allowUnfree. Nothing here builds: packages are plain attrsets.
{
  system ? builtins.currentSystem,
  localSystem ? { inherit system; },
  crossSystem ? null,
  config ? { },
  overlays ? [ ],
  crossOverlays ? [ ],
  ...
}:
let
  lib = import ./lib.nix;

  hostSystem = if builtins.isString localSystem then localSystem else localSystem.system or system;

  userConfig = if builtins.isFunction config then config { inherit lib; pkgs = pkgs; } else config;

  # Types of the config options recipes set; nixpkgs' config module rejects
  # a wrongly typed value, so do we (lazily, per option).
  isStrList = v: builtins.isList v && lib.all builtins.isString v;
  optionTypes = {
    allowUnfree = { check = builtins.isBool; desc = "boolean"; };
    allowBroken = { check = builtins.isBool; desc = "boolean"; };
    allowUnsupportedSystem = { check = builtins.isBool; desc = "boolean"; };
    allowAliases = { check = builtins.isBool; desc = "boolean"; };
    cudaSupport = { check = builtins.isBool; desc = "boolean"; };
    rocmSupport = { check = builtins.isBool; desc = "boolean"; };
    cudaForwardCompat = { check = builtins.isBool; desc = "boolean"; };
    cudaCapabilities = { check = isStrList; desc = "list of string"; };
  };
  typeChecked = lib.mapAttrs (name: value:
    if optionTypes ? ${name} && !(optionTypes.${name}.check value) then
      throw "A definition for option `${name}' is not of type `${optionTypes.${name}.desc}'. Definition value: ${builtins.toJSON value}"
    else value) userConfig;

  finalConfig = {
    allowUnfree = false;
    allowBroken = false;
    allowUnsupportedSystem = false;
    allowAliases = true;
    cudaSupport = false;
    rocmSupport = false;
    cudaForwardCompat = true;
    cudaCapabilities = [ ];
  } // typeChecked;

  mkSimple = stdenv: pname: version: license: platforms: stdenv.mkDerivation {
    inherit pname version;
    meta = { inherit license platforms; description = "Fake ${pname}"; };
  };

  base = final: {
    inherit lib;
    config = finalConfig;
    system = hostSystem;
    pkgs = final;
    stdenv = import ./stdenv.nix { inherit lib; config = finalConfig; system = hostSystem; };
    callPackage = lib.callPackageWith final;

    # Fetchers: no network, just describe the source. Extra args are accepted
    # (fetchSubmodules, postFetch, ...) as the real ones forward them.
    fetchFromGitHub = lib.makeOverridable (
      { owner, repo, rev ? null, tag ? null, hash ? null, sha256 ? null, name ? "source", ... }@args:
      assert lib.assertMsg ((rev == null) != (tag == null))
        "fetchFromGitHub requires exactly one of `rev' or `tag' (owner=${owner}, repo=${repo})";
      let ref = if tag != null then "refs/tags/${tag}" else rev; in
      args // {
        inherit name owner repo rev tag;
        outputHash = if hash != null then hash else sha256;
        url = "https://github.com/${owner}/${repo}/archive/${ref}.tar.gz";
        outPath = "/nix/store/${builtins.substring 0 32 (builtins.hashString "sha256" "${owner}/${repo}/${ref}")}-${name}";
      });
    fetchurl = lib.makeOverridable (
      { url ? null, urls ? [ ], hash ? null, sha256 ? null, name ? null, ... }@args:
      let allUrls = lib.optional (url != null) url ++ urls;
          nm = if name != null then name else baseNameOf (builtins.head allUrls); in
      assert lib.assertMsg (allUrls != [ ]) "fetchurl requires either `url` or `urls` to be set";
      args // {
        name = nm;
        urls = allUrls;
        outputHash = if hash != null then hash else sha256;
        outPath = "/nix/store/${builtins.substring 0 32 (builtins.hashString "sha256" (builtins.head allUrls))}-${nm}";
      });
    fetchpatch = lib.makeOverridable (
      { url, hash ? null, sha256 ? null, name ? baseNameOf url, stripLen ? 0, extraPrefix ? null,
        excludes ? [ ], includes ? [ ], revert ? false, ... }@args:
      final.fetchurl (args // { inherit name; }) // { inherit stripLen excludes includes revert; });
    fetchpatch2 = final.fetchpatch;
    fetchgit = lib.makeOverridable (
      { url, rev ? "HEAD", hash ? null, sha256 ? null, name ? "source", ... }@args:
      args // {
        inherit name url rev;
        outPath = "/nix/store/${builtins.substring 0 32 (builtins.hashString "sha256" "${url}@${rev}")}-${name}";
      });

    cmake = mkSimple final.stdenv "cmake" "3.31.7" lib.licenses.bsd3 lib.platforms.all;
    ninja = mkSimple final.stdenv "ninja" "1.12.1" lib.licenses.asl20 lib.platforms.all;
    which = mkSimple final.stdenv "which" "2.23" lib.licenses.gpl3Plus lib.platforms.all;
    gnumake = mkSimple final.stdenv "gnumake" "4.4.1" lib.licenses.gpl3Plus lib.platforms.all;
    openblas = mkSimple final.stdenv "openblas" "0.3.30" lib.licenses.bsd3 lib.platforms.all;
    lapack-reference = mkSimple final.stdenv "lapack-reference" "3.12.1" lib.licenses.bsd3 lib.platforms.all;
    blas = final.callPackage ./pkgs/blas.nix { };
    lapack = final.blas;
    magma = final.callPackage ./pkgs/magma.nix { };

    # CUDA sets; `cudaPackages` is what torch gets, selected by overlay.
    cudaPackages_12_6 = import ./cuda.nix { inherit lib; config = finalConfig; inherit (final) stdenv; cudaMajorMinorVersion = "12.6"; };
    cudaPackages_12_8 = import ./cuda.nix { inherit lib; config = finalConfig; inherit (final) stdenv; cudaMajorMinorVersion = "12.8"; };
    cudaPackages_12_9 = import ./cuda.nix { inherit lib; config = finalConfig; inherit (final) stdenv; cudaMajorMinorVersion = "12.9"; };
    cudaPackages_13_0 = import ./cuda.nix { inherit lib; config = finalConfig; inherit (final) stdenv; cudaMajorMinorVersion = "13.0"; };
    cudaPackages_13_1 = import ./cuda.nix { inherit lib; config = finalConfig; inherit (final) stdenv; cudaMajorMinorVersion = "13.1"; };
    cudaPackages_12 = final.cudaPackages_12_8;
    cudaPackages = final.cudaPackages_12_8;

    # Python: pythonXY.pkgs is pythonXYPackages, as in nixpkgs.
    pythonPackagesExtensions = [ ];
    python311 = final.callPackage ./python.nix { pythonVersion = "3.11"; sourceVersion = "3.11.13"; };
    python312 = final.callPackage ./python.nix { pythonVersion = "3.12"; sourceVersion = "3.12.11"; };
    python313 = final.callPackage ./python.nix { pythonVersion = "3.13"; sourceVersion = "3.13.7"; };
    python314 = final.callPackage ./python.nix { pythonVersion = "3.14"; sourceVersion = "3.14.0"; };
    python3 = final.python313;
    python311Packages = final.python311.pkgs;
    python312Packages = final.python312.pkgs;
    python313Packages = final.python313.pkgs;
    python314Packages = final.python314.pkgs;
    python3Packages = final.python313Packages;
  };

  checkedOverlays =
    lib.throwIfNot (builtins.isList overlays) "The overlays argument to nixpkgs must be a list."
      (lib.throwIfNot (lib.all builtins.isFunction overlays) "All overlays passed to nixpkgs must be functions."
        overlays);

  pkgs =
    if crossSystem != null && (crossSystem.system or crossSystem) != hostSystem then
      throw "fake nixpkgs: cross compilation (crossSystem = ${builtins.toJSON crossSystem}) is not supported"
    else lib.fix (lib.foldl' (f: overlay: lib.extends overlay f) base checkedOverlays);
in
pkgs
