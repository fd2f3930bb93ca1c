# gen-matrix's Nix library, build fix: MAGMA without cudaDeviceProp.clockRate, which CUDA 13.0 removed.
#
# MAGMA 2.9.0, a dependency of every CUDA torch, fails to compile against CUDA 13.0:
#   error: 'struct cudaDeviceProp' has no member named 'clockRate'
# MAGMA's commit 235aefb7 reads the clock with cudaDeviceGetAttribute instead
# (icl-utk-edu/magma issue 61). The rule in knowledge.yaml keeps the fix to CUDA 13.0.
#
# nixpkgs' own magma carries the same commit from NixOS/nixpkgs#487064 (2026-02-04) on,
# as fix-cuda13-compat.patch, and patch(1) refuses a patch applied twice ("Reversed (or
# previously applied) patch detected"). So the patch is added only where magma has no patch
# of the same content: a fetchpatch is a fixed-output derivation, and the same hash is the
# same text, whatever its name.
{
  overlay = final: prev: {
    magma = prev.magma.overrideAttrs (old:
      let
        fix = final.fetchpatch {
          name = "cuda-13.0-clockrate-fix.patch";
          url = "https://github.com/icl-utk-edu/magma/commit/235aefb7b064954fce09d035c69907ba8a87cbcd.patch";
          hash = "sha256-i9InbxD5HtfonB/GyF9nQhFmok3jZ73RxGcIciGBGvU=";
        };
        patches = old.patches or [ ];
        carried = builtins.any (patch: (patch.outputHash or null) == fix.outputHash) patches;
      in
      {
        patches = patches ++ (if carried then [ ] else [ fix ]);
      });
  };
}
