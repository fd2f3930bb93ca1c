# Fake stdenv whose mkDerivation builds REAL derivations (builtins.derivation,
# so drvPath / outPath exist and can be compared), following nixpkgs'
# pkgs/stdenv/generic/make-derivation.nix and check-meta.nix:
#   - name from pname + version, multiple `outputs` (drv.dev, drv.lib, ...),
#     `outputName`, `outputSpecified`, `all`, via lib.extendDerivation;
#   - `meta`, `passthru`, `pos` never reach the derivation (changing them keeps
#     drvPath); passthru attributes appear on the result;
#   - `env` is exported as environment variables, with nixpkgs' assertions
#     (no overlap with derivation arguments, value types);
#   - dependency lists go through getDev like nixpkgs, nulls are dropped by
#     `__ignoreNulls = true`, lists of derivations become outPath strings;
#   - overrideAttrs takes `old: {}` or `finalAttrs: old: {}`, chains, and
#     finalAttrs.finalPackage is the result;
#   - check-meta validity (unfree, broken, unsupported platform) is only
#     enforced when drvPath / outPath is forced, with nixpkgs' wording, and
#     exposed as meta.available / meta.unfree / meta.broken / meta.unsupported.
# Nothing is ever built: the builder is /bin/sh with a script that would run
# the phases (`source $stdenv/setup; genericBuild`).
{ lib, config, system, revision ? null }:
let
  inherit (lib)
    assertMsg attrNames concatMapStringsSep elem filter hasSuffix isAttrs isDerivation
    isList isString mapAttrs optional optionalAttrs optionals;

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
    isMusl = false;
    isStatic = false;
    isWindows = false;
    canExecute = other: other.system == system;
    parsed = {
      cpu.name = builtins.head (lib.splitString "-" system);
      kernel.name = builtins.elemAt (lib.splitString "-" system) 1;
    };
  };

  # The few store objects every stdenv needs, as tiny real derivations.
  bootDrv = name: script: builtins.derivation {
    inherit name system;
    builder = "/bin/sh";
    args = [ "-c" script ];
  };
  bash = bootDrv "bash-5.2p37" "mkdir -p $out/bin; echo fake > $out/bin/bash";
  defaultBuilder = builtins.toFile "default-builder.sh" ''
    if [ -f .attrs.sh ]; then . .attrs.sh; fi
    source $stdenv/setup
    genericBuild
  '';

  # ---- check-meta.nix ---------------------------------------------------
  allowUnfree = config.allowUnfree || builtins.getEnv "NIXPKGS_ALLOW_UNFREE" == "1";
  allowBroken = config.allowBroken || builtins.getEnv "NIXPKGS_ALLOW_BROKEN" == "1";
  allowUnsupportedSystem = config.allowUnsupportedSystem
    || builtins.getEnv "NIXPKGS_ALLOW_UNSUPPORTED_SYSTEM" == "1";

  isUnfree = licenses:
    if isAttrs licenses then !(licenses.free or true)
    else if isString licenses then false
    else lib.any (l: !(l.free or false)) licenses;
  hasUnfreeLicense = attrs: attrs ? meta.license && isUnfree attrs.meta.license;
  hasDeniedUnfreeLicense = attrs:
    !allowUnfree && hasUnfreeLicense attrs
    && !(builtins.isFunction (config.allowUnfreePredicate or null) && config.allowUnfreePredicate attrs);
  isMarkedBroken = attrs: attrs.meta.broken or false;
  hasUnsupportedPlatform = attrs:
    (attrs ? meta.platforms && !(elem system attrs.meta.platforms))
    || (attrs ? meta.badPlatforms && elem system attrs.meta.badPlatforms);
  showLicense = l: toString (map (v: v.shortName or v.fullName or "unknown") (lib.toList l));
  toPretty = lib.generators.toPretty { };

  remediateAllow = allow_attr: let
    what = { Unfree = "unfree packages"; Broken = "broken packages";
             UnsupportedSystem = "packages that are unsupported for this system"; }.${allow_attr};
    envVar = { Unfree = "UNFREE"; Broken = "BROKEN"; UnsupportedSystem = "UNSUPPORTED_SYSTEM"; }.${allow_attr};
  in ''
    a) To temporarily allow ${what}, you can use an environment variable
       for a single invocation of the nix tools.

         $ export NIXPKGS_ALLOW_${envVar}=1

       Note: When using `nix shell`, `nix build`, `nix develop`, etc with a flake,
             then pass `--impure` in order to allow use of environment variables.

    b) For `nixos-rebuild` you can set
      { nixpkgs.config.allow${allow_attr} = true; }
    in configuration.nix to override this.

    c) For `nix-env`, `nix-build`, `nix-shell` or any other Nix command you can add
      { allow${allow_attr} = true; }
    to ~/.config/nixpkgs/config.nix.
  '';

  checkValidity = attrs:
    if !attrs ? meta then null
    else if hasDeniedUnfreeLicense attrs then {
      reason = "unfree";
      msg = "has an unfree license (‘${showLicense attrs.meta.license}’)";
      remediation = remediateAllow "Unfree";
    }
    else if !allowBroken && isMarkedBroken attrs then {
      reason = "broken";
      msg = "is marked as broken";
      remediation = remediateAllow "Broken";
    }
    else if !allowUnsupportedSystem && hasUnsupportedPlatform attrs then {
      reason = "unsupported";
      msg = ''
        is not available on the requested hostPlatform:
          hostPlatform.config = "${hostPlatform.config}"
          package.meta.platforms = ${toPretty (attrs.meta.platforms or [ ])}
          package.meta.badPlatforms = ${toPretty (attrs.meta.badPlatforms or [ ])}
      '';
      remediation = remediateAllow "UnsupportedSystem";
    }
    else null;

  assertValidity = { meta, attrs }:
    let invalid = checkValidity attrs; in
    if invalid == null then { valid = "yes"; handled = true; }
    else {
      valid = "no";
      handled = throw ''
        Package ‘${meta.name}’ in ${meta.position or "«unknown-file»"} ${invalid.msg}, refusing to evaluate.

        ${invalid.remediation}'';
    };

  commonMeta = { validity, attrs, pos ? null }:
    let
      outputs = attrs.outputs or [ "out" ];
      hasOutput = out: elem out outputs;
    in
    {
      name = attrs.name or "${attrs.pname}-${attrs.version}";
      outputsToInstall = [
        (if hasOutput "bin" then "bin" else if hasOutput "out" then "out"
         else lib.findFirst hasOutput null outputs)
      ] ++ optional (hasOutput "man") "man";
    }
    // attrs.meta or { }
    // {
      ${if pos == null then null else "position"} = pos.file + ":" + toString pos.line;
      unfree = hasUnfreeLicense attrs;
      broken = isMarkedBroken attrs;
      unsupported = hasUnsupportedPlatform attrs;
      insecure = false;
      available = validity.valid != "no";
    };

  # ---- make-derivation.nix ------------------------------------------------
  removedOrReplacedAttrNames = [
    "checkInputs" "installCheckInputs" "nativeCheckInputs" "nativeInstallCheckInputs"
    "__contentAddressed" "__darwinAllowLocalNetworking" "__impureHostDeps"
    "__propagatedImpureHostDeps" "sandboxProfile" "propagatedSandboxProfile"
  ];

  knownHardeningFlags = [ "bindnow" "format" "fortify" "fortify3" "pic" "pie" "relro"
    "stackprotector" "stackclashprotection" "strictoverflow" "trivialautovarinit"
    "zerocallusedregs" "shadowstack" "nostrictaliasing" "pacret" ];

  makeStdenv = { name, cc, extraAttrs ? { }, drvExtra ? { } }@args:
    let
      stdenv = extendedStdenv;
      stdenvDrv = builtins.derivation ({
        inherit name system;
        builder = "/bin/sh";
        args = [ "-c" "mkdir -p $out; echo 'genericBuild() { :; }' > $out/setup" ];
        shell = "${bash}/bin/bash";
        ${if cc == null then null else "cc"} = cc;
        # Real pins differ in their whole bootstrap; one attribute stands for that.
        ${if revision == null then null else "nixpkgsRevision"} = revision;
      } // drvExtra);

      makeDerivationArgument = attrs:
        let
          depsBuildBuild = attrs.depsBuildBuild or [ ];
          nativeBuildInputs = attrs.nativeBuildInputs or [ ];
          depsBuildTarget = attrs.depsBuildTarget or [ ];
          depsHostHost = attrs.depsHostHost or [ ];
          buildInputs = attrs.buildInputs or [ ];
          depsTargetTarget = attrs.depsTargetTarget or [ ];
          doCheck = attrs.doCheck or (config.doCheckByDefault or false);
          doInstallCheck = attrs.doInstallCheck or (config.doCheckByDefault or false);
          hardeningEnable = attrs.hardeningEnable or [ ];
          hardeningDisable = attrs.hardeningDisable or [ ];
          erroneousHardeningFlags = lib.subtractLists knownHardeningFlags
            (hardeningEnable ++ lib.remove "all" hardeningDisable);
          enableParallelBuilding = attrs.enableParallelBuilding or (config.enableParallelBuildingByDefault or false);

          checkDependencyList = name: deps:
            lib.imap1 (index: dep:
              if isDerivation dep || dep == null || isString dep || builtins.isPath dep then dep
              else if isList dep then checkDependencyList name dep
              else throw "Dependency is not of a valid type: element ${toString index} of ${name} for ${attrs.name or attrs.pname}")
              deps;
          getDeps = name: deps: map (lib.getOutput "dev") (lib.flatten (checkDependencyList name deps));
        in
        if erroneousHardeningFlags != [ ] then
          abort ("mkDerivation was called with unsupported hardening flags: " + toPretty {
            inherit erroneousHardeningFlags hardeningDisable hardeningEnable knownHardeningFlags;
          })
        else
          removeAttrs attrs removedOrReplacedAttrNames
          // optionalAttrs (attrs ? name || (attrs ? pname && attrs ? version)) {
            name = lib.sanitizeDerivationName (
              if attrs ? name then attrs.name
              else
                assert assertMsg (attrs ? version && attrs.version != null) "The ‘version’ attribute cannot be null.";
                "${attrs.pname}-${attrs.version}");
          }
          // {
            builder = attrs.realBuilder or stdenv.shell;
            args = attrs.args or [ "-e" (attrs.builder or defaultBuilder) ];
            inherit stdenv;
            system = hostPlatform.system;
            userHook = config.stdenv.userHook or null;
            __ignoreNulls = true;
            __structuredAttrs = attrs.__structuredAttrs or false;
            strictDeps = attrs.strictDeps or (config.strictDepsByDefault or false);

            depsBuildBuild = getDeps "depsBuildBuild" depsBuildBuild;
            nativeBuildInputs = getDeps "nativeBuildInputs"
              (nativeBuildInputs ++ optionals doCheck (attrs.nativeCheckInputs or [ ])
                ++ optionals doInstallCheck (attrs.nativeInstallCheckInputs or [ ]));
            depsBuildTarget = getDeps "depsBuildTarget" depsBuildTarget;
            depsHostHost = getDeps "depsHostHost" depsHostHost;
            buildInputs = getDeps "buildInputs"
              (buildInputs ++ optionals doCheck (attrs.checkInputs or [ ])
                ++ optionals doInstallCheck (attrs.installCheckInputs or [ ]));
            depsTargetTarget = getDeps "depsTargetTarget" depsTargetTarget;
            depsBuildBuildPropagated = getDeps "depsBuildBuildPropagated" (attrs.depsBuildBuildPropagated or [ ]);
            propagatedNativeBuildInputs = getDeps "propagatedNativeBuildInputs" (attrs.propagatedNativeBuildInputs or [ ]);
            depsBuildTargetPropagated = getDeps "depsBuildTargetPropagated" (attrs.depsBuildTargetPropagated or [ ]);
            depsHostHostPropagated = getDeps "depsHostHostPropagated" (attrs.depsHostHostPropagated or [ ]);
            propagatedBuildInputs = getDeps "propagatedBuildInputs" (attrs.propagatedBuildInputs or [ ]);
            depsTargetTargetPropagated = getDeps "depsTargetTargetPropagated" (attrs.depsTargetTargetPropagated or [ ]);

            configureFlags = attrs.configureFlags or [ ];
            patches = attrs.patches or [ ];
            inherit doCheck doInstallCheck;
            outputs = attrs.outputs or [ "out" ];
          }
          // optionalAttrs enableParallelBuilding {
            inherit enableParallelBuilding;
            enableParallelChecking = attrs.enableParallelChecking or true;
            enableParallelInstalling = attrs.enableParallelInstalling or true;
          }
          // optionalAttrs (hardeningDisable != [ ] || hardeningEnable != [ ]) {
            NIX_HARDENING_ENABLE = lib.subtractLists hardeningDisable
              (lib.remove "pie" knownHardeningFlags ++ hardeningEnable);
          };

      mkDerivationSimple = overrideAttrs: attrs:
        assert attrs ? outputHash -> (
          let algo = attrs.outputHashAlgo or (builtins.head (lib.splitString "-" attrs.outputHash)); in
          if algo == "md5" then throw "Rejected insecure ${algo} hash '${attrs.outputHash}'" else true);
        let
          env = attrs.env or { };
          passthru = attrs.passthru or { };
          structured = attrs.__structuredAttrs or false;
          envIsExportable = isAttrs env && !isDerivation env;
          pos = attrs.pos or (
            if attrs.meta.description or null != null then builtins.unsafeGetAttrPos "description" attrs.meta
            else if attrs.version or null != null then builtins.unsafeGetAttrPos "version" attrs
            else builtins.unsafeGetAttrPos "name" attrs);

          derivationArg = makeDerivationArgument (
            removeAttrs attrs ([ "meta" "passthru" "pos" ] ++ optional (structured || envIsExportable) "env")
            // optionalAttrs structured { env = checkedEnv; }
            // {
              cmakeFlags = attrs.cmakeFlags or [ ];
              mesonFlags = attrs.mesonFlags or [ ];
            });

          meta = commonMeta { inherit validity attrs pos; };
          validity = assertValidity { inherit meta attrs; };

          checkedEnv =
            let
              overlappingNames = attrNames (builtins.intersectAttrs env derivationArg);
              makeError = name:
                "  - ${name}: in `env`: ${toPretty env.${name}}; in derivation arguments: ${toPretty derivationArg.${name}}";
              errors = concatMapStringsSep "\n" makeError overlappingNames;
            in
            assert assertMsg envIsExportable
              "When using structured attributes, `env` must be an attribute set of environment variables.";
            assert assertMsg (overlappingNames == [ ])
              "The `env` attribute set cannot contain any attributes passed to derivation. The following attributes are overlapping:\n${errors}";
            mapAttrs (n: v:
              assert assertMsg (isString v || builtins.isBool v || builtins.isInt v || isDerivation v)
                "The `env` attribute set can only contain derivation, string, boolean or integer attributes. The `${n}` attribute is of type ${builtins.typeOf v}.";
              v) env;
        in
        lib.extendDerivation validity.handled
          ({ inherit passthru overrideAttrs meta; } // passthru)
          (derivation (derivationArg // optionalAttrs (envIsExportable && !structured) checkedEnv));

      # Based on lib.makeExtensible, exactly as make-derivation.nix.
      makeDerivationExtensible = rattrs:
        let
          args = rattrs (args // { inherit finalPackage overrideAttrs; });
          overrideAttrs = f0:
            let
              f = self: super:
                let x = f0 super; in
                if builtins.isFunction x then f0 self super else x;
            in
            makeDerivationExtensible (self:
              let super = rattrs self; in
              super // (if builtins.isFunction f0 || f0 ? __functor then f self super else f0));
          finalPackage = mkDerivationSimple overrideAttrs args;
        in
        finalPackage;

      mkDerivation = fnOrAttrs:
        makeDerivationExtensible (if builtins.isFunction fnOrAttrs then fnOrAttrs else (_: fnOrAttrs));

      extendedStdenv = stdenvDrv // {
        inherit hostPlatform mkDerivation cc;
        buildPlatform = hostPlatform;
        targetPlatform = hostPlatform;
        inherit (hostPlatform) system isLinux isDarwin isx86_64 isAarch64;
        hasCC = cc != null;
        shell = "${bash}/bin/bash";
        inherit bash;
        # What overrideCC (pkgs/stdenv/adapters.nix) calls: `stdenv.override { allowedRequisites
        # = null; cc = cc; hasCC = cc != null; }`. The other arguments of nixpkgs' stdenv are
        # not mimicked, so only those three are taken.
        override = { cc ? args.cc, allowedRequisites ? null, hasCC ? cc != null }:
          makeStdenv (args // { inherit cc; });
      } // extraAttrs;
    in
    extendedStdenv;

  # The C compiler wrapper, a real derivation with nixpkgs' passthru names. `cc` is the
  # compiler it wraps (nixpkgs' cc-wrapper takes it as its `cc` argument and keeps it as
  # the `cc` attribute), and `.override { cc = ...; }` wraps another one, as ccacheWrapper
  # does. The default compiler is not an input of the stand-in wrapper's derivation, so
  # the wrappers (and every stdenv) keep the store paths they had before it was modelled;
  # a compiler handed in through override is one.
  mkCC = { pname, version, isClang, cc ? null }@args:
    let
      unwrapped = if cc != null then cc else
        bootDrv "${if isClang then "clang" else "gcc"}-${version}" "mkdir -p $out/bin" // {
          inherit isClang version;
          isGNU = !isClang;
          lib = null;
        };
      drv = builtins.derivation ({
        name = "${pname}-${version}";
        inherit system;
        builder = "/bin/sh";
        args = [ "-c" "mkdir -p $out/bin; echo fake > $out/bin/cc" ];
      } // optionalAttrs (cc != null) { inherit cc; });
    in
    drv // {
      inherit pname version isClang;
      cc = unwrapped;
      isGNU = !isClang;
      targetPrefix = "";
      meta = { mainProgram = "cc"; platforms = lib.platforms.all; };
      override = newArgs: mkCC (args // newArgs);
    };

  defaultCC = if hostPlatform.isDarwin
    then mkCC { pname = "clang-wrapper"; version = "19.1.7"; isClang = true; }
    else mkCC { pname = "gcc-wrapper"; version = "14.3.0"; isClang = false; };
  osName = if hostPlatform.isDarwin then "darwin" else "linux";
in
{
  inherit hostPlatform makeStdenv mkCC bootDrv;
  stdenv = makeStdenv { name = "stdenv-${osName}"; cc = defaultCC; };
  stdenvNoCC = makeStdenv { name = "stdenv-${osName}"; cc = null; };
}
