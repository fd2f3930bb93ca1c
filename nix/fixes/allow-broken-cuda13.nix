# gen-matrix's Nix library, build fix: let torch evaluate with CUDA 13 on pins whose torch refuses it.
#
# nixpkgs' torch expression of the 2.9 era marks itself broken for any CUDA but 11 and
# 12 (brokenConditions."Unsupported CUDA version"), though PyTorch 2.9 and later build
# with CUDA 13. The rule in knowledge.yaml applies this to CUDA 13 variants only; a
# matrix whose CUDA 13 pin accepts CUDA 13 can narrow it in matrix.yaml (`fixes:`).
{
  config = { allowBroken = true; };
}
