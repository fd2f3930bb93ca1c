# A Python interpreter plus its package set, shaped like nixpkgs'
# (pkgs/development/interpreters/python/{passthru,wrapper,mk-python-derivation,
# python-packages-base}.nix):
#   - python313.pkgs == python313Packages; `python.override { packageOverrides }`
#     and top-level `pythonPackagesExtensions` extend the set with a real fixpoint;
#     the set's callPackage resolves python packages before top-level ones;
#     `pythonPackages.overrideScope (self: super: { ... })` extends the set after
#     every other extension, as lib.makeScopeWithSplicing' does;
#   - buildPythonPackage makes real derivations named "python3.13-<pname>-<version>",
#     dependencies -> propagatedBuildInputs (+ python), build-system ->
#     nativeBuildInputs, a "dist" output, `.overridePythonAttrs`, and
#     `buildPythonPackage.override { stdenv = ...; }`;
#   - toPythonModule adds passthru.pythonModule = python and
#     passthru.requiredPythonModules = requiredPythonModules drv.propagatedBuildInputs;
#   - python.withPackages f = buildEnv.override { extraLibs = f pkgs; } and the env's
#     paths = requiredPythonModules (extraLibs ++ [ python ]) ++ [ sitecustomize ],
#     where only drvs with `pythonModule == python` are kept (wrapper.nix): a
#     package without pythonModule is silently dropped. The env exposes
#     passthru.paths (as nixpkgs' buildEnv does).
rev:
{
  lib,
  stdenv,
  pkgs,
  fetchFromGitHub,
  buildEnv,
  runCommand,
  pythonPackagesExtensions,
  pythonVersion,
  sourceVersion,
  packageOverrides ? (_: _: { }),
}:
let
  libPrefix = "python${pythonVersion}";
  sitePackages = "lib/${libPrefix}/site-packages";
  executable = libPrefix;
  namePrefix = "${libPrefix}-";

  python = stdenv.mkDerivation (finalAttrs: {
    pname = "python3";
    version = sourceVersion;
    src = pkgs.fetchurl {
      url = "https://www.python.org/ftp/python/${sourceVersion}/Python-${sourceVersion}.tar.xz";
      sha256 = builtins.hashString "sha256" "fake:Python-${sourceVersion}";
    };
    buildCommand = "mkdir -p $out/bin $out/${sitePackages}";
    passthru = let self = finalAttrs.finalPackage; in {
      inherit pythonVersion libPrefix sitePackages executable stdenv;
      pkgs = pythonSet;
      isPy3k = true;
      pythonAtLeast = lib.versionAtLeast pythonVersion;
      pythonOlder = lib.versionOlder pythonVersion;
      interpreter = "${self}/bin/${executable}";
      pythonOnBuildForHost = self;
      pythonForBuild = self;
      buildEnv = wrapperEnv;
      withPackages = f: wrapperEnv.override { extraLibs = f pythonSet; };
    };
    meta = {
      description = "High-level dynamically-typed programming language";
      mainProgram = "python3";
      license = lib.licenses.psfl;
      platforms = lib.platforms.linux ++ lib.platforms.darwin;
    };
  });

  # -- python-packages-base.nix ---------------------------------------------
  hasPythonModule = drv: drv ? pythonModule && drv.pythonModule == python;
  requiredPythonModules = drvs:
    let modules = builtins.filter hasPythonModule drvs; in
    lib.unique ([ python ] ++ modules ++ lib.concatLists (lib.catAttrs "requiredPythonModules" modules));
  makePythonPath = drvs: lib.makeSearchPath sitePackages (requiredPythonModules drvs);

  toPythonModule = drv:
    drv.overrideAttrs (oldAttrs: {
      # Use passthru in order to prevent rebuilds when possible.
      passthru = (oldAttrs.passthru or { }) // {
        pythonModule = python;
        pythonPath = [ ]; # Deprecated, for compatibility.
        requiredPythonModules =
          builtins.addErrorContext "while calculating requiredPythonModules for ${drv.name or drv.pname}:"
            (requiredPythonModules drv.propagatedBuildInputs);
      };
    });

  # -- wrapper.nix (python.buildEnv / withPackages) ---------------------------
  wrapperEnv = lib.makeOverridable (
    { extraLibs ? [ ], ignoreCollisions ? false, postBuild ? "", makeWrapperArgs ? [ ],
      permitUserSite ? false, extraOutputsToInstall ? [ ] }:
    let
      env =
        let
          paths = requiredPythonModules (extraLibs ++ [ python ]) ++ [
            (runCommand "python-sitecustomize" { } ''
              mkdir -p "$out/${sitePackages}"
              ln -s "${python}/lib/${libPrefix}/sitecustomize.py" "$out/${sitePackages}/sitecustomize.py"
            '')
          ];
        in
        buildEnv {
          name = "${python.name}-env";
          inherit paths ignoreCollisions;
          extraOutputsToInstall = [ "out" ] ++ extraOutputsToInstall;
          postBuild = ''
            for path in ${lib.concatStringsSep " " paths}; do
              if [ -d "$path/bin" ]; then
                cd "$path/bin"
                for prg in *; do
                  if [ -f "$prg" ]; then
                    rm -f "$out/bin/$prg"
                    makeWrapper "$path/bin/$prg" "$out/bin/$prg" --set NIX_PYTHONPREFIX "$out" --set NIX_PYTHONEXECUTABLE ${placeholder "out"}/bin/${executable} ${lib.concatStringsSep " " makeWrapperArgs}
                  fi
                done
              fi
            done
          '' + postBuild;
          inherit (python) meta;
          passthru = python.passthru // {
            interpreter = "${env}/bin/${executable}";
            inherit python;
          };
        };
    in
    env) { };

  # -- mk-python-derivation.nix -----------------------------------------------
  hook = name: runCommand name { } "mkdir -p $out/nix-support";
  hooks = lib.genAttrs [ "wrapPython" "ensureNewerSourcesForZipFilesHook" "pythonRemoveTestsDirHook"
    "pypaBuildHook" "pypaInstallHook" "setuptoolsBuildHook" "pythonCatchConflictsHook"
    "pythonImportsCheckHook" "pythonOutputDistHook" "pythonRuntimeDepsCheckHook"
    "pythonRelaxDepsHook" "pythonRemoveBinBytecodeHook" "pythonNamespacesHook" ] hook;

  # cleanAttrs of mk-python-derivation.nix
  excludedArgs = [ "disabled" "checkPhase" "checkInputs" "nativeCheckInputs" "doCheck" "doInstallCheck"
    "pyproject" "format" "stdenv" "dependencies" "optional-dependencies" "build-system"
    "disabledTestPaths" "disabledTests" "pytestFlags" "pytestFlagsArray" "unittestFlags"
    "unittestFlagsArray" "outputs" "removeBinBytecode" "pythonPath" ];

  # stdenv -> (attrs | finalAttrs: attrs) -> derivation
  mkPythonDerivation = stdenv': fnOrAttrs:
    let
      # An explicit `stdenv` attribute (torch at 00d0ced, torchvision) picks the stdenv.
      effectiveStdenv = if !builtins.isFunction fnOrAttrs && fnOrAttrs ? stdenv then fnOrAttrs.stdenv else stdenv';
      transform = finalAttrs: attrs:
        let
          format' =
            if attrs.pyproject or null == true then "pyproject"
            else if attrs.pyproject or null == false then attrs.format or "setuptools"
            else attrs.format or "setuptools";
          withDistOutput = lib.elem format' [ "pyproject" "setuptools" "wheel" ];
          dependencies = attrs.dependencies or [ ];
          build-system = attrs.build-system or [ ];
          meta = attrs.meta or { };
        in
        removeAttrs attrs excludedArgs // {
          name = namePrefix + (attrs.name or "${finalAttrs.pname}-${finalAttrs.version}");
          catchConflicts = attrs.catchConflicts or true;
          nativeBuildInputs = [
            python
            hooks.wrapPython
            hooks.ensureNewerSourcesForZipFilesHook
            hooks.pythonRemoveTestsDirHook
          ]
          ++ lib.optionals (attrs.catchConflicts or true) [ hooks.pythonCatchConflictsHook ]
          ++ lib.optionals (attrs ? pythonRelaxDeps || attrs ? pythonRemoveDeps) [ hooks.pythonRelaxDepsHook ]
          ++ [ hooks.pythonRemoveBinBytecodeHook ]
          ++ lib.optionals (format' == "setuptools") [ hooks.setuptoolsBuildHook ]
          ++ lib.optionals (format' == "pyproject") [ hooks.pypaBuildHook hooks.pythonRuntimeDepsCheckHook ]
          ++ lib.optionals (format' != "other") [ hooks.pypaInstallHook ]
          ++ [ hooks.pythonImportsCheckHook hooks.pythonNamespacesHook ]
          ++ lib.optionals withDistOutput [ hooks.pythonOutputDistHook ]
          ++ attrs.nativeBuildInputs or [ ]
          ++ build-system;
          buildInputs = validatePythonMatches "buildInputs" (attrs.buildInputs or [ ] ++ attrs.pythonPath or [ ]);
          propagatedBuildInputs = validatePythonMatches "propagatedBuildInputs"
            (attrs.propagatedBuildInputs or [ ] ++ dependencies ++ [ python ]);
          strictDeps = attrs.strictDeps or true;
          LANG = "${if stdenv.hostPlatform.isDarwin then "en_US" else "C"}.UTF-8";
          # Python packages don't have a checkPhase, only an installCheckPhase
          doCheck = false;
          doInstallCheck = attrs.doCheck or true;
          nativeInstallCheckInputs = attrs.nativeCheckInputs or [ ];
          installCheckInputs = attrs.checkInputs or [ ];
          dontWrapPythonPrograms = attrs.dontWrapPythonPrograms or false;
          postFixup = lib.optionalString (!(finalAttrs.dontWrapPythonPrograms or false)) ''
            wrapPythonPrograms
          '' + attrs.postFixup or "";
          outputs = attrs.outputs or [ "out" ] ++ lib.optional withDistOutput "dist";
          passthru = { disabled = attrs.disabled or false; }
            // lib.optionalAttrs (dependencies != [ ]) { inherit dependencies; }
            // lib.optionalAttrs (attrs.optional-dependencies or { } != { }) { inherit (attrs) optional-dependencies; }
            // lib.optionalAttrs (build-system != [ ]) { inherit build-system; }
            // attrs.passthru or { };
          meta = {
            # default to python's platforms
            platforms = python.meta.platforms;
            isBuildPythonPackage = python.meta.platforms;
          } // meta;
        };
      validatePythonMatches = attrName: map (drv:
        if drv ? pythonModule && drv.pythonModule != python then
          throw ''
            Python version mismatch in ${namePrefix}${fnOrAttrs.pname or "?"}:

            The Python derivation depends on a Python derivation
            named ${drv.name}, but the two derivations use different versions
            of Python (in ${attrName}).
          ''
        else drv);
      drv = effectiveStdenv.mkDerivation (finalAttrs:
        transform finalAttrs (if builtins.isFunction fnOrAttrs then fnOrAttrs finalAttrs else fnOrAttrs));
    in
    lib.extendDerivation
      (drv.disabled -> throw "${lib.removePrefix namePrefix drv.name} not supported for interpreter ${executable}")
      { } (toPythonModule drv);

  # python-packages-base.nix: overridePythonAttrs lives in passthru so that it
  # survives overrideAttrs.
  makeOverridablePythonPackage = f: origArgs:
    let
      overrideWith = newArgs:
        if builtins.isFunction origArgs then
          (finalAttrs: let a = origArgs finalAttrs; in a // (if builtins.isFunction newArgs then newArgs a else newArgs))
        else origArgs // (if builtins.isFunction newArgs then newArgs origArgs else newArgs);
      addPassthru = a: a // {
        passthru = (a.passthru or { }) // {
          overridePythonAttrs = newArgs: makeOverridablePythonPackage f (overrideWith newArgs);
        };
      };
      args = if builtins.isFunction origArgs then (finalAttrs: addPassthru (origArgs finalAttrs)) else addPassthru origArgs;
    in
    f args;

  buildPythonPackage = lib.makeOverridable
    ({ stdenv }: makeOverridablePythonPackage (mkPythonDerivation stdenv))
    { inherit stdenv; };

  base = self:
    let
      callPackage = lib.callPackageWith (pkgs // self);
      # Small stand-ins for torch's python dependencies.
      simple = pname: version: license: extra: self.buildPythonPackage ({
        inherit pname version;
        pyproject = true;
        src = fetchFromGitHub {
          owner = pname;
          repo = pname;
          tag = "v${version}";
          sha256 = builtins.hashString "sha256" "fake:${pname}@${version}";
        };
        meta = { inherit license; description = "Fake ${pname}"; };
      } // extra);
      linuxOnly = { meta = { license = lib.licenses.mit; description = "Fake triton"; platforms = lib.platforms.linux; }; };
    in
    {
      inherit python callPackage pythonVersion buildPythonPackage toPythonModule
        hasPythonModule requiredPythonModules makePythonPath;
      pythonAtLeast = lib.versionAtLeast pythonVersion;
      pythonOlder = lib.versionOlder pythonVersion;
      isPy3k = true;
      buildPythonApplication = buildPythonPackage;
      toPythonApplication = x: x;

      torch = callPackage (import ./pkgs/torch rev) { };
      torchvision = callPackage (import ./pkgs/torchvision.nix rev) { };
      torchaudio = callPackage (import ./pkgs/torchaudio.nix rev) { };
      torchcodec = callPackage ./pkgs/torchcodec.nix { };
      # Take the scope's torch, as they do in nixpkgs: what torchaudio 2.11 and
      # torchcodec pull in (pkgs/torchaudio-2.11.nix, pkgs/torchcodec.nix).
      pytorch-lightning = simple "pytorch-lightning" "2.5.5" lib.licenses.asl20 {
        dependencies = [ self.torch self.fsspec self.packaging self.pyyaml self.typing-extensions ];
      };

      numpy = simple "numpy" "2.3.4" lib.licenses.bsd3 { };
      scipy = simple "scipy" "1.16.2" lib.licenses.bsd3 { dependencies = [ self.numpy ]; };
      pyyaml = simple "pyyaml" "6.0.3" lib.licenses.mit { };
      six = simple "six" "1.17.0" lib.licenses.mit { };
      pybind11 = simple "pybind11" "3.0.1" lib.licenses.bsd3 { };
      setuptools = simple "setuptools" "80.9.0" lib.licenses.mit { };
      wheel = simple "wheel" "0.45.1" lib.licenses.mit { };
      mpmath = simple "mpmath" "1.3.0" lib.licenses.bsd3 { };
      sympy = simple "sympy" "1.14.0" lib.licenses.bsd3 { dependencies = [ self.mpmath ]; };
      typing-extensions = simple "typing-extensions" "4.15.0" lib.licenses.psfl { };
      types-dataclasses = simple "types-dataclasses" "0.6.6" lib.licenses.asl20 { };
      pillow = simple "pillow" "11.3.0" lib.licenses.hpnd { };
      protobuf = simple "protobuf" "6.32.1" lib.licenses.bsd3 { };
      filelock = simple "filelock" "3.20.0" lib.licenses.unlicense { };
      markupsafe = simple "markupsafe" "3.0.3" lib.licenses.bsd3 { };
      jinja2 = simple "jinja2" "3.1.6" lib.licenses.bsd3 { dependencies = [ self.markupsafe ]; };
      networkx = simple "networkx" "3.5" lib.licenses.bsd3 { };
      fsspec = simple "fsspec" "2025.9.0" lib.licenses.bsd3 { };
      packaging = simple "packaging" "25.0" lib.licenses.asl20 { };
      astunparse = simple "astunparse" "1.6.3" lib.licenses.bsd3 { dependencies = [ self.six ]; };
      expecttest = simple "expecttest" "0.3.0" lib.licenses.asl20 { };
      hypothesis = simple "hypothesis" "6.140.3" lib.licenses.mpl20 { };
      psutil = simple "psutil" "7.1.0" lib.licenses.bsd3 { };
      requests = simple "requests" "2.32.5" lib.licenses.asl20 { };
      tensorboard = simple "tensorboard" "2.20.0" lib.licenses.asl20 { dependencies = [ self.numpy self.protobuf ]; };
      pytest = simple "pytest" "8.4.2" lib.licenses.mit { };
      pytestCheckHook = hook "pytest-check-hook";
      scikit-build-core = simple "scikit-build-core" "0.11.6" lib.licenses.asl20 { };
      inflect = simple "inflect" "7.5.0" lib.licenses.mit { };
      parameterized = simple "parameterized" "0.9.0" lib.licenses.bsd3 { };
      sentencepiece = simple "sentencepiece" "0.2.1" lib.licenses.asl20 { };
      unidecode = simple "unidecode" "1.4.0" lib.licenses.gpl3Plus { };
      # Linux only, as nixpkgs' triton; triton-cuda carries the cudaPackages it was built with.
      triton = simple "triton" "3.5.0" lib.licenses.mit linuxOnly;
      triton-cuda = simple "triton" "3.5.0" lib.licenses.mit (linuxOnly // {
        nativeBuildInputs = [ pkgs.cudaPackages.cuda_nvcc ];
        passthru.cudaPackages = pkgs.cudaPackages;
      });

      # Same as nixpkgs' python-aliases.nix (with allowAliases).
      pytorch = throw "'pytorch' has been renamed to/replaced by 'torch'";
    };

  # As passthrufun.nix: the set is `callPackage ({ ..., overrides }: makeScope ...)
  # { overrides = packageOverrides; }`, so `python3Packages.override { overrides = ...; }`
  # works and REPLACES packageOverrides (python.pkgs itself keeps the old set).
  makeScope = f: let self = f self // { overrideScope = g: makeScope (lib.extends g f); }; in self;
  pythonSet = lib.makeOverridable ({ overrides }: makeScope (lib.extends
    (lib.composeManyExtensions (pythonPackagesExtensions ++ [ overrides ]))
    base)) { overrides = packageOverrides; };
in
python
