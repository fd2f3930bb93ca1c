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
# Outside the compiler the builds are the same. The cache is the one path the sandbox may
# write that is not the build's own: the builder must give it to the sandbox (nix.conf:
# extra-sandbox-paths = /nix/var/cache/ccache, the NixOS wiki's "CCache" page for Nix outside
# NixOS), owned by group nixbld with mode 0770 (the comment on ccacheWrapper in
# all-packages.nix). Without it the build stops before it configures, with the message below,
# rather than failing in CMake's compiler checks.
#
# Each torch keeps its objects in a folder of its own group under it: the torch variants that
# can share objects (same pin, Python, CUDA release and CPU flags; gen-matrix names the group
# by a key of these, passthru.compilerCacheGroup), so that a build takes no entry that a build
# of another group wrote. The sandbox is given the whole cache, as Nix gives a path to every
# build: the folders keep the groups apart, not a build that means harm (docs/ci.md,
# "Compiler cache").
#
# random_seed sloppiness: stdenv passes -frandom-seed derived from the output path, which
# differs for every variant, so without it no variant would ever hit another's objects
# (the NixOS wiki, "Sloppiness"; nixpkgs' own ccacheWrapper example sets it). It is the
# purity this option gives up: an object from the cache was compiled with another
# variant's seed, so a cached build is not bit for bit the uncached one.
let
  cacheDir = "/nix/var/cache/ccache";

  # CCACHE_DIR, the group's folder, is torch's: exported before it configures (below).
  extraConfig = ''
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
  # CMake's compiler checks, where its reason is hard to find. The group's folder is made
  # writable by the group nixbld (umask 007), as ccache makes its own, so that the next build
  # of the group, under another build user, writes it too.
  torch = { ... }: finalAttrs: old:
    let
      group = old.passthru.compilerCacheGroup or (throw
        "build.compiler_cache: this torch has no passthru.compilerCacheGroup; run gen-matrix to write its recipe again");
      # a name gen-matrix writes (hex digits): never a path or a word of the shell
      groupDir = if builtins.match "[0-9a-f]+" group != null then "${cacheDir}/${group}"
        else throw "build.compiler_cache: '${group}' is not a group gen-matrix names; run gen-matrix to write the recipe again";
    in
    {
      preConfigure = ''
        if [ ! -d ${cacheDir} ] || [ ! -w ${cacheDir} ]; then
          echo "gen-matrix: build.compiler_cache is ccache, but ${cacheDir} is not a folder this build may write." >&2
          echo "Give it to the sandbox (nix.conf: extra-sandbox-paths = ${cacheDir}) and create it with" >&2
          echo "  sudo mkdir -m0770 -p ${cacheDir} && sudo chown root:nixbld ${cacheDir}" >&2
          echo "or remove build.compiler_cache from matrix.yaml." >&2
          exit 1
        fi
        (umask 007 && mkdir -p ${groupDir})
        if [ ! -w ${groupDir} ]; then
          echo "gen-matrix: build.compiler_cache is ccache, but ${groupDir}, this torch's folder in the cache, is not writable by this build." >&2
          echo "Give it to the group nixbld: sudo chown -R root:nixbld ${groupDir} && sudo chmod -R u+rwX,g+rwX,o-rwx ${groupDir}" >&2
          exit 1
        fi
        export CCACHE_DIR=${groupDir}
      '' + (old.preConfigure or "");
      passthru = old.passthru // { compilerCacheDir = groupDir; };
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
