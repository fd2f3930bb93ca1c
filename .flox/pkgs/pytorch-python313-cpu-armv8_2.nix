# Generated from matrix.yaml by gen-matrix; do not edit by hand: change matrix.yaml and run `gen-matrix`.
# PyTorch 2.8.0 for Python 3.13, CPU armv8_2.
# Build with: flox build pytorch-python313-cpu-armv8_2
# The build logic is nix/lib/torch.nix; this file holds the variant's values.
{ genMatrixNixpkgs ? null }:

(import ../../nix/lib { nixpkgs = genMatrixNixpkgs; }).torch {
  pin = "default";
  build = {
    python = "3.13";
    version = "2.8.0";
    label = "cpu-armv8_2";
    source = null;
    cuda = null;
    capabilities = [ ];
    capabilityScope = "torch";
    cpuFlags = [ "-march=armv8.2-a+fp16+dotprod" ];
    disabledFeatures = [ ];
    environment = { BLAS = "OpenBLAS"; };
    blas = "openblas";
    systemFeatures = [ "big-parallel" ];
    jobMemoryGib = 2;
    fixes = [ ];
    passthru = { blasProvider = "openblas"; cpuISA = "armv8_2"; cudaVersion = null; gpuArch = null; };
  };
  meta = {
    pname = "pytorch-python313-cpu-armv8_2";
    description = "PyTorch 2.8.0, CPU only, for armv8_2 CPUs";
    longDescription = "PyTorch 2.8.0 built from source for Python 3.13.\nCPUs: AWS Graviton2, Ampere Altra, NVIDIA Grace; needs the armv8_2 instruction set (fphp asimdhp asimddp in /proc/cpuinfo).\n";
    platforms = [ "aarch64-linux" ];
    revision = 0;
  };
}
