# Fake nixpkgs for gen-matrix's tests. It is called exactly like real nixpkgs
# (`import ./tests/nix/nixpkgs { config = ...; overlays = [ ... ]; }`) and
# mimics it strictly where recipes depend on it (see ../README.md):
#   - packages are REAL derivations (drvPath / outPath can be compared; nothing
#     is ever built), made by a stdenv.mkDerivation that follows nixpkgs'
#     make-derivation.nix and check-meta.nix;
#   - overlays are a real fixpoint; package functions are callPackage'd without
#     `...` (bad `.override` args fail); config options are type-checked;
#   - CUDA flags assert on config.cudaCapabilities; unfree / broken /
#     unsupported packages are refused when their drvPath is forced.
# `revision` (not a real nixpkgs argument) picks the nixpkgs revision to
# impersonate; see revisions.nix. The default is the project pin fe5e41d.
{
  system ? builtins.currentSystem,
  localSystem ? { inherit system; },
  crossSystem ? null,
  config ? { },
  overlays ? [ ],
  crossOverlays ? [ ],
  revision ? "fe5e41d",
  ...
}:
let
  lib0 = import ./lib.nix;

  revisions = import ./revisions.nix;
  revKey = lib0.findFirst (k: lib0.hasPrefix k revision || lib0.hasPrefix revision k && builtins.stringLength revision >= 7)
    null (builtins.attrNames revisions);
  rev =
    if revKey == null then
      throw "fake nixpkgs: revision ${builtins.toJSON revision} is not impersonated; known: ${builtins.toJSON (builtins.attrNames revisions)}"
    else revisions.${revKey} // { key = revKey; };

  # lib.trivial.revisionWithDefault / release, as real nixpkgs' lib has them.
  lib = lib0 // {
    trivial = lib0.trivial // {
      revisionWithDefault = default: rev.rev;
      release = "25.11";
      version = "25.11pre-git";
    };
    version = "25.11pre-git";
  };

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
    doCheckByDefault = false;
    strictDepsByDefault = false;
    enableParallelBuildingByDefault = false;
  } // typeChecked;

  stdenvs = import ./stdenv.nix { inherit lib; config = finalConfig; system = hostSystem; revision = rev.rev; };

  # A small real derivation standing in for a package we only need by name.
  mkSimple = stdenv: pname: version: extra: stdenv.mkDerivation ({
    inherit pname version;
    buildCommand = "mkdir -p $out/bin $out/lib $out/include";
    meta = {
      license = lib.licenses.mit;
      platforms = lib.platforms.all;
      description = "Fake ${pname}";
    } // (extra.meta or { });
  } // removeAttrs extra [ "meta" ]);
  withOutputs = outputs: { inherit outputs; buildCommand = lib.concatMapStrings (o: "mkdir -p \$${o}\n") outputs; };

  # gcc the CUDA version's backendStdenv uses.
  backendGccFor = v: if lib.versionOlder v "12.8" then "13.4.0" else "14.3.0";

  base = final:
    let
      simple = mkSimple final.stdenv;
      buildSupport = import ./build-support.nix {
        inherit lib final;
        inherit (final) stdenv stdenvNoCC;
      };
      cudaSet = key: cudaVersion: import ./cuda.nix {
        inherit lib cudaVersion;
        extraComponents = rev.cudaComponents or [ ];
        config = finalConfig;
        inherit (final) stdenv;
        backendStdenv = stdenvs.makeStdenv {
          name = "stdenv-linux";
          cc = stdenvs.mkCC { pname = "gcc-wrapper"; version = backendGccFor cudaVersion; isClang = false; };
          drvExtra = { cudaBackend = lib.versions.majorMinor cudaVersion; };
        };
      };
      rocmNames = [ "rocm-core" "clr" "rccl" "miopen" "aotriton" "rocrand" "rocblas" "rocsparse"
        "hipsparse" "rocthrust" "rocprim" "hipcub" "roctracer" "rocfft" "rocsolver" "hipfft"
        "hiprand" "hipsolver" "hipblas-common" "hipblas" "hipblaslt" "rocminfo" "rocm-comgr"
        "rocm-device-libs" "rocm-runtime" "rocm-smi" "hipify" "composable_kernel" ];
    in
    buildSupport
    // lib.mapAttrs' (key: v: lib.nameValuePair "cudaPackages_${key}" (cudaSet key v)) rev.cuda
    // {
      inherit lib;
      config = finalConfig;
      system = hostSystem;
      pkgs = final;
      targetPackages = final;
      buildPackages = final;
      pkgsHostHost = final;
      inherit (stdenvs) stdenv stdenvNoCC;
      callPackage = lib.callPackageWith final;
      newScope = extra: lib.callPackageWith (final // extra);
      # For tests: which revision this fake impersonates.
      _fakeNixpkgs = { inherit (rev) rev key torchForm; };

      cmake = simple "cmake" "3.31.7" { meta.mainProgram = "cmake"; };
      ninja = simple "ninja" "1.13.1" { meta.mainProgram = "ninja"; };
      which = simple "which" "2.23" { meta.mainProgram = "which"; };
      gnumake = simple "gnumake" "4.4.1" { meta.mainProgram = "make"; };
      perl = simple "perl" "5.40.0" { meta.mainProgram = "perl"; };
      lndir = simple "lndir" "1.0.5" { meta.mainProgram = "lndir"; };
      xorg = { inherit (final) lndir; };
      pkg-config = simple "pkg-config-wrapper" "0.29.2" { meta.mainProgram = "pkg-config"; };
      removeReferencesTo = simple "remove-references-to" "0" { };
      openssl = simple "openssl" "3.5.4" (withOutputs [ "bin" "out" "dev" ] // { meta.mainProgram = "openssl"; });
      binutils = simple "binutils-wrapper" "2.44" { };
      numactl = simple "numactl" "2.0.18" { meta.platforms = lib.platforms.linux; };
      gfortran = simple "gfortran-wrapper" "14.3.0" { };
      libpthreadstubs = simple "libpthread-stubs" "0.5" { };
      git-unroll = simple "git-unroll" "0-unstable-2025-04-29" { meta.mainProgram = "git-unroll"; };
      autoAddDriverRunpath = simple "auto-add-driver-runpath-hook" "0" { };
      autoPatchelfHook = simple "auto-patchelf-hook" "0" { };
      writableTmpDirAsHomeHook = simple "writable-tmpdir-as-home-hook" "0" { };
      darwinMinVersionHook = deploymentTarget: simple "darwin-${deploymentTarget}-min-version-hook" "0" { };
      apple-sdk_13 = simple "apple-sdk" "13.3" { meta.platforms = lib.platforms.darwin; };
      libpng = simple "libpng-apng" "1.6.50" (withOutputs [ "out" "dev" "man" ]);
      libjpeg_turbo = simple "libjpeg-turbo" "3.1.2" (withOutputs [ "bin" "out" "dev" ]);
      sox = simple "sox" "14.4.2" { };
      ffmpeg_6-full = simple "ffmpeg-full" "6.1.3" (withOutputs [ "bin" "out" "lib" "dev" ]);
      # what torchcodec takes (pkgs/torchcodec.nix)
      ffmpeg-headless = simple "ffmpeg-headless" "8.0" (withOutputs [ "bin" "out" "lib" "dev" ] // { meta.mainProgram = "ffmpeg"; });
      libavif = simple "libavif" "1.3.0" (withOutputs [ "out" "dev" ]);
      libheif = simple "libheif" "1.20.2" (withOutputs [ "out" "dev" ]);
      libjpeg = final.libjpeg_turbo;
      libwebp = simple "libwebp" "1.6.0" { };
      vulkan-headers = simple "vulkan-headers" "1.4.321.0" { };
      vulkan-loader = simple "vulkan-loader" "1.4.321.0" { };
      shaderc = simple "shaderc" "2025.3" (withOutputs [ "out" "bin" "lib" "dev" ]);
      llvmPackages = {
        openmp = simple "openmp" "19.1.7" { };
        clang = simple "clang-wrapper" "19.1.7" { };
      };
      mpi = simple "openmpi" "5.0.8" { passthru.cudatoolkit = null; };
      openblas = simple "openblas" "0.3.30" { meta.license = lib.licenses.bsd3; };
      lapack-reference = simple "lapack-reference" "3.12.1" { meta.license = lib.licenses.bsd3; };
      mkl = simple "mkl" "2023.1.0" { meta = { license = lib.licenses.issl or lib.licenses.unfree; platforms = lib.platforms.x86_64; }; };
      blas = final.callPackage ./pkgs/blas.nix { };

      # The compiler cache nix/fixes/compiler-cache-ccache.nix builds torch with.
      # ccacheWrapper as a current pkgs/top-level/all-packages.nix has it (the text whose
      # cudaPackages_13 is cudaPackages_13_2, read from the index without its commit):
      # `makeOverridable ({ cc, extraConfig }: cc.override { cc = ccache.links { inherit
      # extraConfig; unwrappedCC = cc.cc; }; }) { inherit (stdenv) cc; extraConfig = ""; }`.
      # overrideCC as pkgs/stdenv/adapters.nix has it (NixOS/nixpkgs@eadcd446 stores that
      # path; the form with hasCC). That the four pins have the same two is *inferred*: the
      # interface of ccache.links and this form of overrideCC are older than every pin.
      ccache = final.callPackage ./pkgs/ccache.nix { };
      ccacheWrapper = lib.makeOverridable
        ({ cc, extraConfig }: cc.override {
          cc = final.ccache.links { inherit extraConfig; unwrappedCC = cc.cc; };
        })
        { inherit (final.stdenv) cc; extraConfig = ""; };
      overrideCC = stdenv: cc: stdenv.override { allowedRequisites = null; cc = cc; hasCC = cc != null; };
      lapack = final.blas;
      python3 = final.python313;

      # magma and its variants, as in all-packages.nix: every variant is
      # `magma.override`, so an overlay on `magma` reaches magma-cuda-static.
      magma = final.callPackage (import ./pkgs/magma rev) { };
      magma-cuda = final.magma.override { cudaSupport = true; rocmSupport = false; };
      magma-cuda-static = final.magma-cuda.override { static = true; };
      magma-hip = final.magma.override { cudaSupport = false; rocmSupport = true; };

      # ROCm 6.4.3 at every revision. Read for fe5e41d only, and from dates (knowledge pins:
      # NixOS/nixpkgs#427944, 6.3.3 -> 6.4.3, before it; #469378, 6.4.3 -> 7.0.2, opened
      # 2025-12-09, after it); the later pins may hold 7.0.2 or 7.1.1 (#481349, opened
      # 2026-01-18): not modelled, so a ROCm recipe evaluated against them proves nothing of them.
      # clr's gpuTargets as the clr 6.4.3 text has them (NixOS/nixpkgs
      # pkgs/development/rocm-modules/6/clr/default.nix, index file id 531410257, commit not
      # named): what torch compiles for under rocmSupport when gpuTargets is empty.
      rocmPackages = lib.genAttrs rocmNames (n: simple n "6.4.3" { meta.platforms = lib.platforms.linux; })
        // {
          clr = simple "clr" "6.4.3" (withOutputs [ "out" "icd" ] // {
            meta.platforms = lib.platforms.linux;
            passthru.gpuTargets = [ "gfx900" "gfx906" "gfx908" "gfx90a" "gfx942" "gfx1010" "gfx1030"
              "gfx1100" "gfx1101" "gfx1102" "gfx1151" "gfx1200" "gfx1201" ];
          });
          llvm.openmp = simple "rocm-openmp" "6.4.3" { };
          triton = simple "rocm-triton" "3.4.0" { };
        };

      # CUDA sets: `cudaPackages` is what torch gets, selected by overlay.
      cudaPackages_12 = final.cudaPackages_12_8; # Latest supported by cudnn
      cudaPackages = final.cudaPackages_12;

      # Python: pythonXY.pkgs is pythonXYPackages, as in nixpkgs.
      pythonPackagesExtensions = [ ];
      python311 = final.callPackage (import ./python.nix rev) { pythonVersion = "3.11"; sourceVersion = "3.11.14"; };
      python312 = final.callPackage (import ./python.nix rev) { pythonVersion = "3.12"; sourceVersion = "3.12.12"; };
      python313 = final.callPackage (import ./python.nix rev) { pythonVersion = "3.13"; sourceVersion = "3.13.9"; };
      python314 = final.callPackage (import ./python.nix rev) { pythonVersion = "3.14"; sourceVersion = "3.14.0"; };
      python311Packages = final.python311.pkgs;
      python312Packages = final.python312.pkgs;
      python313Packages = final.python313.pkgs;
      python314Packages = final.python314.pkgs;
      python3Packages = final.python313Packages;
    }
    // lib.optionalAttrs (rev.cudaPackages_13 != null) {
      cudaPackages_13 = final."cudaPackages_${rev.cudaPackages_13}";
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
