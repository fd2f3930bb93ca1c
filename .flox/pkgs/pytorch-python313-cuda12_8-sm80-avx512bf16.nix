# Generated from matrix.yaml by gen-matrix; do not edit by hand: change matrix.yaml and run `gen-matrix`.
# PyTorch 2.8.0 for Python 3.13, CUDA 12.8, NVIDIA sm80 (Ampere datacenter), CPU avx512bf16.
# Build with: flox build pytorch-python313-cuda12_8-sm80-avx512bf16
# The build logic is nix/lib/torch.nix; this file holds the variant's values.
{ genMatrixNixpkgs ? null }:

(import ../../nix/lib { nixpkgs = genMatrixNixpkgs; }).torch {
  pin = "default";
  build = {
    python = "3.13";
    version = "2.8.0";
    label = "cuda12.8-sm80-avx512bf16";
    source = null;
    cuda = "12.8";
    capabilities = [ "8.0" ];
    capabilityScope = "torch";
    cpuFlags = [ "-mavx512f" "-mavx512dq" "-mavx512vl" "-mavx512bw" "-mfma" "-mavx512bf16" ];
    disabledFeatures = [ ];
    environment = { };
    blas = null;
    systemFeatures = [ "big-parallel" ];
    jobMemoryGib = 4;
    fixes = [ ];
    passthru = { blasProvider = "cublas"; cpuISA = "avx512bf16"; cudaVersion = "12.8"; gpuArch = "8.0"; };
  };
  meta = {
    pname = "pytorch-python313-cuda12_8-sm80-avx512bf16";
    description = "PyTorch 2.8.0 for NVIDIA Ampere datacenter GPUs (sm80) and avx512bf16 CPUs, CUDA 12.8";
    longDescription = "PyTorch 2.8.0 built from source for Python 3.13.\nGPUs: A100, A30 (NVIDIA Ampere datacenter, compute capability 8.0, sm80).\nCUDA 12.8; needs NVIDIA driver 570.26 or newer.\nCPUs: Intel Cooper Lake, Intel Sapphire Rapids, AMD Zen 4; needs the avx512bf16 instruction set (avx512f avx512dq avx512vl avx512bw avx512_bf16 in /proc/cpuinfo).\n";
    platforms = [ "x86_64-linux" ];
    revision = 0;
  };
}
