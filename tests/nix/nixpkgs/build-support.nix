# Trivial builders and fetchers, shaped like nixpkgs'
# pkgs/build-support/{trivial-builders,fetchurl,fetchgit,fetchzip,fetchpatch,
# fetchgithub,buildenv}. Every one returns a real derivation; the fetchers
# return fixed-output derivations (outputHash / outputHashAlgo /
# outputHashMode), so a changed url / rev / hash changes the drvPath of
# everything that uses them. A null hash means lib.fakeHash (as a real
# `hash = ""` would, it would fail at build time, never at evaluation).
{ lib, stdenv, stdenvNoCC, final }:
let
  inherit (lib) optionalAttrs;

  # SRI or base32/hex `sha256`; nixpkgs accepts either (not both).
  pickHash = what: hash: sha256:
    if hash != null && sha256 != null then
      throw "${what}: cannot use both `hash` and `sha256`"
    else if hash != null && hash != "" then hash
    else if sha256 != null && sha256 != "" then sha256
    else lib.fakeHash;

  # -- trivial-builders -------------------------------------------------------
  runCommandWith = { stdenv ? stdenvNoCC, runLocal ? false, derivationArgs ? { }, name }:
    buildCommand:
    stdenv.mkDerivation ({
      enableParallelBuilding = true;
      inherit buildCommand name;
      passAsFile = [ "buildCommand" ] ++ (derivationArgs.passAsFile or [ ]);
    }
    // optionalAttrs runLocal { preferLocalBuild = true; allowSubstitutes = false; }
    // removeAttrs derivationArgs [ "passAsFile" ]);

  # runCommand name env buildCommand: `env` may hold passthru and meta, which
  # mkDerivation keeps off the derivation.
  runCommand = name: env: runCommandWith { stdenv = stdenvNoCC; runLocal = false; inherit name; derivationArgs = env; };
  runCommandLocal = name: env: runCommandWith { stdenv = stdenvNoCC; runLocal = true; inherit name; derivationArgs = env; };
  runCommandCC = name: env: runCommandWith { stdenv = stdenv; runLocal = false; inherit name; derivationArgs = env; };

  writeTextFile = { name, text, executable ? false, destination ? "", checkPhase ? "",
                    meta ? { }, passthru ? { }, allowSubstitutes ? false, preferLocalBuild ? true,
                    derivationArgs ? { } }:
    runCommand name ({
      inherit text executable checkPhase allowSubstitutes preferLocalBuild;
      passAsFile = [ "text" ] ++ derivationArgs.passAsFile or [ ];
      meta = lib.optionalAttrs (executable && destination == "") { mainProgram = name; } // meta;
      passthru = passthru // optionalAttrs (destination != "") { inherit destination; };
    } // removeAttrs derivationArgs [ "passAsFile" ]) ''
      target=$out${lib.escapeShellArg destination}
      mkdir -p "$(dirname "$target")"
      cp "$textPath" "$target"
      eval "$checkPhase"
      ${lib.optionalString executable ''chmod +x "$target"''}
    '';
  writeText = name: text: writeTextFile { inherit name text; };
  writeScript = name: text: writeTextFile { inherit name text; executable = true; };
  writeShellScript = name: text: writeTextFile {
    inherit name;
    executable = true;
    text = ''
      #!${stdenv.shell}
      ${text}
    '';
  };

  symlinkJoin = args_@{ name ? null, pname ? null, version ? null, paths, preferLocalBuild ? true,
                        allowSubstitutes ? false, postBuild ? "", ... }:
    assert lib.assertMsg (name != null || (pname != null && version != null))
      "symlinkJoin requires either a `name` OR `pname` and `version`";
    let
      args = removeAttrs args_ [ "name" "pname" "version" "postBuild" ]
        // { inherit preferLocalBuild allowSubstitutes; passAsFile = [ "paths" ]; };
      name' = if name != null then name else "${pname}-${version}";
    in
    runCommand name' args ''
      mkdir -p $out
      for i in $(cat $pathsPath); do ${lib.getExe' final.lndir "lndir"} -silent $i $out; done
      ${postBuild}
    '';

  # buildEnv: paths are kept in passthru.paths (as nixpkgs' buildEnv does).
  buildEnv = lib.makeOverridable ({ name, paths, ignoreCollisions ? false, checkCollisionContents ? true,
                                    pathsToLink ? [ "/" ], extraOutputsToInstall ? [ ], extraPrefix ? "",
                                    postBuild ? "", nativeBuildInputs ? [ ], buildInputs ? [ ],
                                    manifest ? "", meta ? { }, passthru ? { } }:
    let
      chosenOutputs = map (drv: {
        paths =
          (if (!drv ? outputSpecified || !drv.outputSpecified) && drv.meta.outputsToInstall or null != null
           then map (outName: drv.${outName}) drv.meta.outputsToInstall
           else [ drv ])
          ++ lib.filter (p: p != null) (map (outName: drv.${outName} or null) extraOutputsToInstall);
        priority = drv.meta.priority or 5;
      }) paths;
    in
    runCommand name {
      inherit manifest ignoreCollisions checkCollisionContents pathsToLink extraPrefix postBuild
        nativeBuildInputs buildInputs meta;
      pkgs = builtins.toJSON chosenOutputs;
      preferLocalBuild = true;
      allowSubstitutes = false;
      passAsFile = [ "buildCommand" "pkgs" ];
      passthru = { inherit paths; } // passthru;
    } ''
      ${lib.getExe' final.perl "perl"} -w ${builtins.toFile "builder.pl" "# symlink tree builder\n"}
      eval "$postBuild"
    '');

  # -- fetchers -----------------------------------------------------------------
  fetchurl = lib.makeOverridable (
    { url ? null, urls ? [ ], name ? null, pname ? null, version ? null,
      hash ? null, sha256 ? null, sha512 ? null, outputHash ? null, outputHashAlgo ? null,
      recursiveHash ? false, executable ? false, downloadToTemp ? false, postFetch ? "",
      curlOpts ? "", curlOptsList ? [ ], netrcPhase ? null, showURLs ? false,
      passthru ? { }, meta ? { }, preferLocalBuild ? true, ... }@args:
    let
      urls_ = if urls != [ ] && url == null then urls
              else if url != null && urls == [ ] then [ url ]
              else throw "fetchurl requires either `url` or `urls` to be set";
      name_ = if name != null then name
              else if pname != null && version != null then "${pname}-${version}"
              else baseNameOf (toString (builtins.head urls_));
      hash_ = if outputHash != null then outputHash else pickHash "fetchurl" hash sha256;
    in
    stdenvNoCC.mkDerivation {
      name = name_;
      builder = builtins.toFile "fetchurl-builder.sh" "source $stdenv/setup; curl -L $urls > $out\n";
      urls = urls_;
      outputHashAlgo = if outputHashAlgo != null then outputHashAlgo else "sha256";
      outputHash = hash_;
      outputHashMode = if recursiveHash || executable then "recursive" else "flat";
      inherit curlOpts curlOptsList postFetch downloadToTemp executable showURLs preferLocalBuild;
      impureEnvVars = [ "http_proxy" "https_proxy" "ftp_proxy" "all_proxy" "no_proxy" ];
      inherit meta;
      passthru = { url = builtins.head urls_; } // passthru;
    });

  fetchzip = lib.makeOverridable (
    { name ? "source", url ? "", urls ? [ ], stripRoot ? true, extension ? null,
      postFetch ? "", hash ? null, sha256 ? null, passthru ? { }, meta ? { }, ... }@args:
    fetchurl ({
      inherit name;
      recursiveHash = true;
      downloadToTemp = true;
      postFetch = "unpackFile $downloadedFile; mv source $out\n" + postFetch;
      inherit passthru meta;
    } // (if urls != [ ] then { inherit urls; } else { inherit url; })
      // removeAttrs args [ "stripRoot" "extension" "postFetch" "url" "urls" "name" "passthru" "meta" ]));

  fetchgit = lib.makeOverridable (
    { url, tag ? null, rev ? null, name ? "source", hash ? null, sha256 ? null,
      leaveDotGit ? false, fetchSubmodules ? true, deepClone ? false, fetchLFS ? false,
      sparseCheckout ? [ ], branchName ? null, rootDir ? "", postFetch ? "",
      passthru ? { }, meta ? { }, preferLocalBuild ? true, ... }@args:
    assert lib.assertMsg ((rev == null) != (tag == null)) "fetchgit requires one of either `rev` or `tag` to be provided (not both).";
    let revWithTag = if tag != null then "refs/tags/${tag}" else rev; in
    stdenvNoCC.mkDerivation {
      inherit name url leaveDotGit fetchSubmodules deepClone fetchLFS sparseCheckout rootDir
        postFetch preferLocalBuild;
      rev = revWithTag;
      builder = builtins.toFile "fetchgit-builder.sh" "source $stdenv/setup; nix-prefetch-git $url $rev\n";
      outputHashAlgo = "sha256";
      outputHashMode = "recursive";
      outputHash = pickHash "fetchgit" hash sha256;
      impureEnvVars = [ "http_proxy" "https_proxy" ];
      inherit meta;
      passthru = { gitRepoUrl = url; inherit tag; } // passthru;
    });

  fetchFromGitHub = lib.makeOverridable (
    { owner, repo, tag ? null, rev ? null, name ? "source", fetchSubmodules ? false,
      leaveDotGit ? null, deepClone ? false, private ? false, forceFetchGit ? false,
      fetchLFS ? false, rootDir ? "", sparseCheckout ? [ ], githubBase ? "github.com",
      varPrefix ? null, passthru ? { }, meta ? { }, ... }@args:
    assert lib.assertMsg ((rev == null) != (tag == null))
      "fetchFromGitHub requires one of either `rev` or `tag` to be provided (not both).";
    let
      baseUrl = "https://${githubBase}/${owner}/${repo}";
      revWithTag = if tag != null then "refs/tags/${tag}" else rev;
      useFetchGit = fetchSubmodules || (leaveDotGit == true) || deepClone || forceFetchGit
        || fetchLFS || rootDir != "" || sparseCheckout != [ ];
      passthruAttrs = removeAttrs args [ "owner" "repo" "tag" "rev" "fetchSubmodules" "forceFetchGit"
        "private" "githubBase" "varPrefix" "passthru" "meta" "leaveDotGit" "deepClone" "fetchLFS"
        "rootDir" "sparseCheckout" ];
      commonPassthru = { gitRepoUrl = "${baseUrl}.git"; inherit owner repo tag; rev = revWithTag; } // passthru;
    in
    if useFetchGit then
      fetchgit (passthruAttrs // {
        inherit name tag rev fetchSubmodules fetchLFS rootDir sparseCheckout deepClone;
        url = "${baseUrl}.git";
        leaveDotGit = if leaveDotGit == null then false else leaveDotGit;
        inherit meta;
        passthru = commonPassthru;
      })
    else
      fetchzip (passthruAttrs // {
        inherit name meta;
        url = "${baseUrl}/archive/${revWithTag}.tar.gz";
        extension = "tar.gz";
        passthru = commonPassthru;
      }));

  fetchFromGitLab = lib.makeOverridable (
    { owner, repo, rev ? null, tag ? null, name ? "source", domain ? "gitlab.com",
      group ? null, fetchSubmodules ? false, passthru ? { }, meta ? { }, ... }@args:
    let revWithTag = if tag != null then "refs/tags/${tag}" else rev; in
    fetchzip (removeAttrs args [ "owner" "repo" "rev" "tag" "domain" "group" "fetchSubmodules" ] // {
      inherit name;
      url = "https://${domain}/${owner}/${repo}/-/archive/${revWithTag}.tar.gz";
    }));

  fetchpatch = lib.makeOverridable (
    { relative ? null, stripLen ? 0, decode ? "cat", extraPrefix ? null, excludes ? [ ],
      includes ? [ ], revert ? false, postFetch ? "", nativeBuildInputs ? [ ], ... }@args:
    fetchurl ({
      postFetch = ''
        tmpfile="$TMPDIR/patch"
        ${decode} < "$out" > "$tmpfile"
        filterdiff --strip=${toString stripLen} ${lib.optionalString (extraPrefix != null) "--addoldprefix=a/${extraPrefix} --addnewprefix=b/${extraPrefix}"} --clean "$tmpfile" > "$out"
        ${lib.concatMapStringsSep "\n" (i: "filterdiff -i ${lib.escapeShellArg i} $out") includes}
        ${lib.concatMapStringsSep "\n" (e: "filterdiff -x ${lib.escapeShellArg e} $out") excludes}
        ${lib.optionalString revert "interdiff $out /dev/null > $tmpfile; mv $tmpfile $out"}
      '' + postFetch;
    } // removeAttrs args [ "relative" "stripLen" "decode" "extraPrefix" "excludes" "includes"
      "revert" "postFetch" "nativeBuildInputs" ]));
in
{
  inherit runCommandWith runCommand runCommandLocal runCommandCC writeTextFile writeText
    writeScript writeShellScript symlinkJoin buildEnv fetchurl fetchzip fetchgit fetchFromGitHub
    fetchFromGitLab fetchpatch;
  fetchpatch2 = fetchpatch;
}
