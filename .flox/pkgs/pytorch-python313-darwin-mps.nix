# Generated from matrix.yaml by gen-matrix; do not edit by hand: change matrix.yaml and run `gen-matrix`.
# PyTorch 2.8.0 for Python 3.13, Apple GPU (mps).
# Build with: flox build pytorch-python313-darwin-mps
# The build logic is nix/lib/torch.nix; this file holds the variant's values.
{ genMatrixNixpkgs ? null }:

(import ../../nix/lib { nixpkgs = genMatrixNixpkgs; }).torch {
  pin = "default";
  build = {
    python = "3.13";
    version = "2.8.0";
    label = "mps";
    source = null;
    cuda = null;
    capabilities = [ ];
    capabilityScope = "torch";
    cpuFlags = [ ];
    disabledFeatures = [ ];
    environment = { BLAS = "vecLib"; USE_MPS = "1"; };
    blas = null;
    systemFeatures = [ "big-parallel" ];
    jobMemoryGib = 2;
    fixes = [ ];
    passthru = { blasProvider = "veclib"; cpuISA = null; cudaVersion = null; gpuArch = "mps"; };
  };
  meta = {
    pname = "pytorch-python313-darwin-mps";
    description = "PyTorch 2.8.0 for Apple Silicon with mps";
    longDescription = "PyTorch 2.8.0 built from source for Python 3.13.\nApple Silicon with Metal Performance Shaders on Apple Silicon, BLAS from veclib.\n";
    platforms = [ "aarch64-darwin" ];
    revision = 0;
  };
}
