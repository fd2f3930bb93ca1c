# Generated from matrix.yaml by gen-matrix; do not edit by hand: change matrix.yaml and run `gen-matrix`.
# PyTorch 2.8.0 for Python 3.13, CUDA 12.8, NVIDIA sm61 (Pascal), CPU avx2.
# Build with: flox build pytorch-python313-cuda12_8-sm61-avx2
# The build logic is nix/lib/torch.nix; this file holds the variant's values.
{ genMatrixNixpkgs ? null }:

(import ../../nix/lib { nixpkgs = genMatrixNixpkgs; }).torch {
  pin = "default";
  build = {
    python = "3.13";
    version = "2.8.0";
    label = "cuda12.8-sm61-avx2";
    source = null;
    cuda = "12.8";
    capabilities = [ "6.1" ];
    capabilityScope = "nixpkgs";
    cpuFlags = [ "-mavx2" "-mfma" "-mf16c" ];
    disabledFeatures = [ "CUDNN" ];
    environment = { };
    blas = null;
    systemFeatures = [ "big-parallel" ];
    jobMemoryGib = 4;
    fixes = [ ];
    passthru = { blasProvider = "cublas"; cpuISA = "avx2"; cudaVersion = "12.8"; gpuArch = "6.1"; };
  };
  meta = {
    pname = "pytorch-python313-cuda12_8-sm61-avx2";
    description = "PyTorch 2.8.0 for NVIDIA Pascal GPUs (sm61) and avx2 CPUs, CUDA 12.8";
    longDescription = "PyTorch 2.8.0 built from source for Python 3.13.\nGPUs: GeForce GTX 1070, GeForce GTX 1080, GeForce GTX 1080 Ti, Tesla P40, Tesla P4 (NVIDIA Pascal, compute capability 6.1, sm61).\nCUDA 12.8; needs NVIDIA driver 570.26 or newer.\nBuilt without cuDNN, which no longer supports this GPU.\nCPUs: Intel Haswell and later, AMD Zen 1-3; needs the avx2 instruction set (avx2 fma f16c in /proc/cpuinfo).\n";
    platforms = [ "x86_64-linux" ];
    revision = 0;
  };
}
