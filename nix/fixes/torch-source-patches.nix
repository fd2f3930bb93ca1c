# gen-matrix's Nix library, build fix: drop nixpkgs' torch patches when PyTorch is built from another source.
#
# nixpkgs picks its torch patches for the PyTorch release of its own revision. Against
# another release (pytorch.source in matrix.yaml) they no longer apply, and the build
# stops at once with "can't find file to patch". Seen building PyTorch 2.10.0 on nixpkgs
# pins of 2.9.1 (barstoolbluz/build-pytorch, branch pytorch-2.10-python313).
{
  torch = { ... }: finalAttrs: old: {
    patches = [ ];
  };
}
