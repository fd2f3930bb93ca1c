# gen-matrix's Nix library, build fix: MAGMA without cudaDeviceProp.clockRate, which CUDA 13.0 removed.
#
# MAGMA 2.9.0, a dependency of every CUDA torch, fails to compile against CUDA 13.0:
#   error: 'struct cudaDeviceProp' has no member named 'clockRate'
# MAGMA's commit 235aefb7 reads the clock with cudaDeviceGetAttribute instead
# (icl-utk-edu/magma issue 61). nixpkgs carries an equivalent patch from its CUDA 13.1
# revisions on, where adding this one again fails as "reversed (or previously applied)":
# the rule in knowledge.yaml keeps it to CUDA 13.0.
{
  overlay = final: prev: {
    magma = prev.magma.overrideAttrs (old: {
      patches = (old.patches or [ ]) ++ [
        (final.fetchpatch {
          name = "cuda-13.0-clockrate-fix.patch";
          url = "https://github.com/icl-utk-edu/magma/commit/235aefb7b064954fce09d035c69907ba8a87cbcd.patch";
          hash = "sha256-i9InbxD5HtfonB/GyF9nQhFmok3jZ73RxGcIciGBGvU=";
        })
      ];
    });
  };
}
