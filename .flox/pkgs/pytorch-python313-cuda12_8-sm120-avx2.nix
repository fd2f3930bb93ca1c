# Generated from matrix.yaml by gen-matrix; do not edit by hand: change matrix.yaml and run `gen-matrix`.
# PyTorch 2.8.0 for Python 3.13, CUDA 12.8, NVIDIA sm120 (Blackwell consumer), CPU avx2.
# Build with: flox build pytorch-python313-cuda12_8-sm120-avx2
# The build logic is nix/lib/torch.nix; this file holds the variant's values.
{ genMatrixNixpkgs ? null }:

(import ../../nix/lib { nixpkgs = genMatrixNixpkgs; }).torch {
  pin = "default";
  build = {
    python = "3.13";
    version = "2.8.0";
    label = "cuda12.8-sm120-avx2";
    source = null;
    cuda = "12.8";
    capabilities = [ "12.0" ];
    capabilityScope = "torch";
    cpuFlags = [ "-mavx2" "-mfma" "-mf16c" ];
    disabledFeatures = [ ];
    environment = { };
    blas = null;
    systemFeatures = [ "big-parallel" ];
    jobMemoryGib = 4;
    fixes = [ ];
    passthru = { blasProvider = "cublas"; cpuISA = "avx2"; cudaVersion = "12.8"; gpuArch = "12.0"; };
  };
  meta = {
    pname = "pytorch-python313-cuda12_8-sm120-avx2";
    description = "PyTorch 2.8.0 for NVIDIA Blackwell consumer GPUs (sm120) and avx2 CPUs, CUDA 12.8";
    longDescription = "PyTorch 2.8.0 built from source for Python 3.13.\nGPUs: GeForce RTX 5060, GeForce RTX 5070, GeForce RTX 5070 Ti, GeForce RTX 5080, GeForce RTX 5090, RTX PRO 6000 Blackwell (NVIDIA Blackwell consumer, compute capability 12.0, sm120).\nCUDA 12.8; needs NVIDIA driver 570.26 or newer.\nCPUs: Intel Haswell and later, AMD Zen 1-3; needs the avx2 instruction set (avx2 fma f16c in /proc/cpuinfo).\n";
    platforms = [ "x86_64-linux" ];
    revision = 0;
  };
}
