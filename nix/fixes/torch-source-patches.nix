# gen-matrix's Nix library, build fix: fit nixpkgs' torch patch phase to PyTorch built from another source.
#
# nixpkgs writes its torch patch phase for the PyTorch release of its own revision.
# Against another release (pytorch.source in matrix.yaml):
# - its patch files no longer apply, and the build stops at once with "can't find file
#   to patch". Seen building PyTorch 2.10.0 on nixpkgs pins of 2.9.1
#   (barstoolbluz/build-pytorch, branch pytorch-2.10-python313). They are dropped.
# - its postPatch edits files with `substituteInPlace ... --replace-fail`, which stops the
#   build when the pattern is not in the file: PyTorch 2.7.1's torch/_inductor/codecache.py
#   (commit e2d141db) has no "openssl" for the substitution nixpkgs' 2.8.0 and 2.9.1
#   postPatch make there. Every --replace-fail becomes --replace-warn: a pattern still
#   there is replaced as before, one that is gone is named in the build log ("WARNING:
#   pattern ... doesn't match anything"). A file that is gone still fails, as does any
#   other command. gen-matrix's own fixes use no --replace-fail, so what this rewrites is
#   the pin's.
{
  torch = { lib, ... }: finalAttrs: old:
    { patches = [ ]; }
    // lib.optionalAttrs (old ? postPatch) {
      postPatch = lib.replaceStrings [ "--replace-fail" ] [ "--replace-warn" ] old.postPatch;
    };
}
