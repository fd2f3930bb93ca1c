# Generated from matrix.yaml by gen-matrix; do not edit by hand: change matrix.yaml and run `gen-matrix`.
# PyTorch 2.8.0 for Python 3.13, CUDA 12.8, NVIDIA sm89 (Ada Lovelace), CPU armv9.
# Build with: flox build pytorch-python313-cuda12_8-sm89-armv9
# The build logic is nix/lib/torch.nix; this file holds the variant's values.
{ genMatrixNixpkgs ? null }:

(import ../../nix/lib { nixpkgs = genMatrixNixpkgs; }).torch {
  pin = "default";
  build = {
    python = "3.13";
    version = "2.8.0";
    label = "cuda12.8-sm89-armv9";
    source = null;
    cuda = "12.8";
    capabilities = [ "8.9" ];
    capabilityScope = "torch";
    cpuFlags = [ "-march=armv9-a+sve+sve2" ];
    disabledFeatures = [ ];
    environment = { };
    blas = null;
    systemFeatures = [ "big-parallel" ];
    jobMemoryGib = 4;
    fixes = [ ];
    passthru = { blasProvider = "cublas"; cpuISA = "armv9"; cudaVersion = "12.8"; gpuArch = "8.9"; };
  };
  meta = {
    pname = "pytorch-python313-cuda12_8-sm89-armv9";
    description = "PyTorch 2.8.0 for NVIDIA Ada Lovelace GPUs (sm89) and armv9 CPUs, CUDA 12.8";
    longDescription = "PyTorch 2.8.0 built from source for Python 3.13.\nGPUs: GeForce RTX 4060, GeForce RTX 4070, GeForce RTX 4080, GeForce RTX 4090, L4, L40, L40S, RTX 6000 Ada (NVIDIA Ada Lovelace, compute capability 8.9, sm89).\nCUDA 12.8; needs NVIDIA driver 570.26 or newer.\nCPUs: NVIDIA Grace, AWS Graviton4, NVIDIA GB10; needs the armv9 instruction set (sve sve2 in /proc/cpuinfo).\n";
    platforms = [ "aarch64-linux" ];
    revision = 0;
  };
}
