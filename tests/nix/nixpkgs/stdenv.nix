# Fake stdenv. mkDerivation follows nixpkgs' makeDerivationExtensible (so
# overrideAttrs takes `old: { }` or `final: prev: { }`, chains, and sees
# passthru changes at top level) but returns a plain attrset: no
# `type = "derivation"`, so `nix-instantiate --eval --strict` never needs a store.
{ lib, config, system }:
let
  inherit (lib) hasSuffix elem;

  hostPlatform = rec {
    inherit system;
    config = {
      "x86_64-linux" = "x86_64-unknown-linux-gnu";
      "aarch64-linux" = "aarch64-unknown-linux-gnu";
      "x86_64-darwin" = "x86_64-apple-darwin";
      "aarch64-darwin" = "arm64-apple-darwin";
    }.${system} or system;
    isLinux = hasSuffix "-linux" system;
    isDarwin = hasSuffix "-darwin" system;
    isAarch64 = lib.hasPrefix "aarch64-" system;
    isx86_64 = lib.hasPrefix "x86_64-" system;
    isx86 = isx86_64 || lib.hasPrefix "i686-" system;
    isAarch = isAarch64;
    is64bit = isAarch64 || isx86_64;
    parsed = {
      cpu.name = builtins.head (lib.splitString "-" system);
      kernel.name = builtins.elemAt (lib.splitString "-" system) 1;
    };
  };

  allowUnfree = config.allowUnfree or false;

  # Same wording as nixpkgs' check-meta, so tests can match on it.
  refuse = name: reason: throw ''
    Package ‘${name}’ in fake-nixpkgs ${reason}, refusing to evaluate.
  '';

  isUnfree = meta: (meta.license or { }).free or true == false;

  # Real nixpkgs checks these when the derivation is instantiated (outPath /
  # drvPath): here, when outPath is forced.
  validity = name: meta:
    if isUnfree meta && !allowUnfree then refuse name "has an unfree license (‘${meta.license.shortName or "unfree"}’)"
    else if (meta.broken or false) && !(config.allowBroken or false) then refuse name "is marked as broken"
    else if meta ? platforms && !(elem system meta.platforms) && !(config.allowUnsupportedSystem or false)
    then refuse name "is not available on the requested hostPlatform:\n  hostPlatform.system = \"${system}\"\n  package.meta.platforms = ${builtins.toJSON meta.platforms}"
    else true;

  mkDerivationSimple = { isPython }: overrideAttrs: args:
    let
      name = args.name or "${args.pname}-${args.version}";
      meta = args.meta or { };
      passthru = args.passthru or { };
      pkg =
        args
        // {
          inherit name meta passthru overrideAttrs;
          system = args.system or system;
          outPath = builtins.seq (validity name meta)
            "/nix/store/${builtins.substring 0 32 (builtins.hashString "sha256" name)}-${name}";
          ${if isPython then "overridePythonAttrs" else null} = overrideAttrs;
        }
        // passthru;
    in
    # An unfree package is refused as soon as it is touched at all: a CUDA
    # dependency of a recipe must never evaluate without allowUnfree.
    if isUnfree meta && !allowUnfree then
      refuse name "has an unfree license (‘${meta.license.shortName or "unfree"}’)"
    else pkg;

  makeDerivationExtensible = opts: rattrs:
    let
      args = rattrs (args // { inherit finalPackage overrideAttrs; });
      overrideAttrs = f0:
        let extends' = overlay: f: (self: let super = f self; in super // overlay self super);
        in makeDerivationExtensible opts (extends' (lib.toExtension f0) rattrs);
      finalPackage = mkDerivationSimple opts overrideAttrs args;
    in
    finalPackage;

  mkDerivationWith = opts: fnOrAttrs:
    makeDerivationExtensible opts (if builtins.isFunction fnOrAttrs then fnOrAttrs else (_: fnOrAttrs));
in
{
  inherit hostPlatform system;
  buildPlatform = hostPlatform;
  targetPlatform = hostPlatform;
  inherit (hostPlatform) isLinux isDarwin;
  isx86_64 = hostPlatform.isx86_64;
  isAarch64 = hostPlatform.isAarch64;
  cc = { pname = "gcc-wrapper"; version = "14.2.0"; isClang = hostPlatform.isDarwin; isGNU = hostPlatform.isLinux; };
  mkDerivation = mkDerivationWith { isPython = false; };
  # Used by python.nix for buildPythonPackage.
  mkPythonDerivation = mkDerivationWith { isPython = true; };
}
