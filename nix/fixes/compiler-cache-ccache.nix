# gen-matrix's Nix library, build option: torch compiled through ccache
# (build.compiler_cache: ccache in matrix.yaml; the knowledge row compiler-cache-ccache
# applies it to every torch variant of such a matrix, and to no other).
#
# Variants that differ only in their GPU compile the same CPU-side C++ units. nixpkgs'
# ccache wrapper (all-packages.nix: ccacheWrapper = cc.override { cc = ccache.links {
# extraConfig; unwrappedCC = cc.cc; }; }, with overrideCC from pkgs/stdenv/adapters.nix)
# puts ccache in front of the compiler, which keeps its results in `cacheDir` between
# builds. torch compiles with cudaPackages.backendStdenv when CUDA is on and with stdenv
# otherwise (nixpkgs' torch: stdenv' = if cudaSupport then cudaPackages.backendStdenv
# else stdenv), so both get the wrapper; only torch's own derivation changes: every CUDA
# library and every other package keeps its store path and stays a binary-cache hit.
#
# Outside the compiler the builds are the same. The cache folder is the one path the
# sandbox may write that is not the build's own: the builder must give it to the sandbox
# (nix.conf: extra-sandbox-paths = /nix/var/cache/ccache, the NixOS wiki's "CCache" page
# for Nix outside NixOS), owned by group nixbld with mode 0770 (the comment on
# ccacheWrapper in all-packages.nix). Without it the build stops before it configures,
# with the message below, rather than failing in CMake's compiler checks.
#
# random_seed sloppiness: stdenv passes -frandom-seed derived from the output path, which
# differs for every variant, so without it no variant would ever hit another's objects
# (the NixOS wiki, "Sloppiness"; nixpkgs' own ccacheWrapper example sets it). It is the
# purity this option gives up: an object from the cache was compiled with another
# variant's seed, so a cached build is not bit for bit the uncached one.
let
  cacheDir = "/nix/var/cache/ccache";

  extraConfig = ''
    export CCACHE_DIR=${cacheDir}
    export CCACHE_COMPRESS=1
    export CCACHE_UMASK=007
    export CCACHE_SLOPPINESS=random_seed
    export CCACHE_BASEDIR="$NIX_BUILD_TOP"
  '';
in
{
  # The workflow reads it from here, so that the folder is named once.
  inherit cacheDir;

  # Checked before anything compiles: a compile that cannot reach the cache fails inside
  # CMake's compiler checks, where its reason is hard to find.
  torch = { ... }: finalAttrs: old: {
    preConfigure = ''
      if [ ! -d ${cacheDir} ] || [ ! -w ${cacheDir} ]; then
        echo "gen-matrix: build.compiler_cache is ccache, but ${cacheDir} is not a folder this build may write." >&2
        echo "Give it to the sandbox (nix.conf: extra-sandbox-paths = ${cacheDir}) and create it with" >&2
        echo "  sudo mkdir -m0770 -p ${cacheDir} && sudo chown root:nixbld ${cacheDir}" >&2
        echo "or remove build.compiler_cache from matrix.yaml." >&2
        exit 1
      fi
    '' + (old.preConfigure or "");
  };

  overlay = final: prev: {
    pythonPackagesExtensions = prev.pythonPackagesExtensions ++ [
      (pythonFinal: pythonPrev: {
        torch = pythonPrev.torch.override (args:
          let
            cached = stdenv: final.overrideCC stdenv
              (final.ccacheWrapper.override { inherit (stdenv) cc; inherit extraConfig; });
          in
          {
            stdenv = cached args.stdenv;
            cudaPackages = args.cudaPackages // { backendStdenv = cached args.cudaPackages.backendStdenv; };
          });
      })
    ];
  };
}
