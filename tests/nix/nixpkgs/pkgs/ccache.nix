# ccache and its `links`, after NixOS/nixpkgs' pkgs/by-name/cc/ccache/package.nix at
# 0c66aa8857445ea0233917087440f68dede7e0fd (ccache 4.10): `passthru.links { unwrappedCC,
# extraConfig }` is a derivation whose bin/ has gcc, g++, cc, c++ (and clang) made by
# makeWrapper around bin/ccache, each `--run extraConfig --add-flags <the compiler>`, with
# passthru isClang, isGNU and isCcache = true, and `lib` taken from the unwrapped compiler.
# The version at the four pins was not read (inferred: a 4.x, as at that commit); only
# the interface matters here.
{ lib, stdenv }:

stdenv.mkDerivation (finalAttrs: {
  pname = "ccache";
  version = "4.10";
  buildCommand = "mkdir -p $out/bin; echo fake > $out/bin/ccache";
  passthru.links = { unwrappedCC, extraConfig }: stdenv.mkDerivation {
    pname = "ccache-links";
    inherit (finalAttrs) version;
    passthru = {
      isClang = unwrappedCC.isClang or false;
      isGNU = unwrappedCC.isGNU or false;
      isCcache = true;
    };
    inherit (unwrappedCC) lib;
    # The real one runs makeWrapper for each compiler; what it writes depends on the same
    # three things: ccache, the compiler and extraConfig.
    buildCommand = ''
      mkdir -p $out/bin
      for cname in cc c++ gcc g++ clang clang++; do
        if [ -x "${unwrappedCC}/bin/$cname" ]; then
          printf '%s\n' ${lib.escapeShellArg extraConfig} "exec ${finalAttrs.finalPackage}/bin/ccache ${unwrappedCC}/bin/$cname \"\$@\"" > $out/bin/$cname
        fi
      done
    '';
    meta.platforms = lib.platforms.all;
  };
  meta = {
    description = "Compiler cache for fast recompilation of C/C++ code";
    license = lib.licenses.gpl3Plus;
    mainProgram = "ccache";
    platforms = lib.platforms.unix;
  };
})
