# Generated from matrix.yaml by gen-matrix; do not edit by hand: change matrix.yaml and run `gen-matrix`.
# PyTorch 2.8.0 for Python 3.13, CPU armv9.
# Build with: flox build pytorch-python313-cpu-armv9
# The build logic is nix/lib/torch.nix; this file holds the variant's values.
{ genMatrixNixpkgs ? null }:

(import ../../nix/lib { nixpkgs = genMatrixNixpkgs; }).torch {
  pin = "default";
  build = {
    python = "3.13";
    version = "2.8.0";
    label = "cpu-armv9";
    source = null;
    cuda = null;
    capabilities = [ ];
    capabilityScope = "torch";
    cpuFlags = [ "-march=armv9-a+sve+sve2" ];
    disabledFeatures = [ ];
    environment = { BLAS = "OpenBLAS"; };
    blas = "openblas";
    systemFeatures = [ "big-parallel" ];
    jobMemoryGib = 2;
    fixes = [ ];
    passthru = { blasProvider = "openblas"; cpuISA = "armv9"; cudaVersion = null; gpuArch = null; };
  };
  meta = {
    pname = "pytorch-python313-cpu-armv9";
    description = "PyTorch 2.8.0, CPU only, for armv9 CPUs";
    longDescription = "PyTorch 2.8.0 built from source for Python 3.13.\nCPUs: NVIDIA Grace, AWS Graviton4, NVIDIA GB10; needs the armv9 instruction set (sve sve2 in /proc/cpuinfo).\n";
    platforms = [ "aarch64-linux" ];
    revision = 0;
  };
}
