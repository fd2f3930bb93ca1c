# Generated from matrix.yaml by gen-matrix; do not edit by hand: change matrix.yaml and run `gen-matrix`.
# PyTorch 2.8.0 for Python 3.13, CUDA 12.8, NVIDIA sm61 (Pascal), CPU avx.
# Build with: flox build pytorch-python313-cuda12_8-sm61-avx
# The build logic is nix/lib/torch.nix; this file holds the variant's values.
{ genMatrixNixpkgs ? null }:

(import ../../nix/lib { nixpkgs = genMatrixNixpkgs; }).torch {
  pin = "default";
  build = {
    python = "3.13";
    version = "2.8.0";
    label = "cuda12.8-sm61-avx";
    source = null;
    cuda = "12.8";
    capabilities = [ "6.1" ];
    capabilityScope = "nixpkgs";
    cpuFlags = [ "-mavx" "-mno-fma" "-mno-bmi" "-mno-bmi2" "-mno-avx2" ];
    disabledFeatures = [ "CUDNN" "FBGEMM" "MKLDNN" "MKLDNN_CBLAS" "NNPACK" ];
    environment = { };
    blas = null;
    systemFeatures = [ "big-parallel" ];
    jobMemoryGib = 4;
    fixes = [ "avx-only-kernels" ];
    passthru = { blasProvider = "cublas"; cpuISA = "avx"; cudaVersion = "12.8"; gpuArch = "6.1"; };
  };
  meta = {
    pname = "pytorch-python313-cuda12_8-sm61-avx";
    description = "PyTorch 2.8.0 for NVIDIA Pascal GPUs (sm61) and avx CPUs, CUDA 12.8";
    longDescription = "PyTorch 2.8.0 built from source for Python 3.13.\nGPUs: GeForce GTX 1070, GeForce GTX 1080, GeForce GTX 1080 Ti, Tesla P40, Tesla P4 (NVIDIA Pascal, compute capability 6.1, sm61).\nCUDA 12.8; needs NVIDIA driver 570.26 or newer.\nBuilt without cuDNN, which no longer supports this GPU.\nCPUs: Intel Sandy Bridge, Intel Ivy Bridge, AMD Bulldozer; needs the avx instruction set (avx in /proc/cpuinfo).\nBuilt without FBGEMM, MKLDNN, MKLDNN_CBLAS, NNPACK, which need a newer instruction set.\n";
    platforms = [ "x86_64-linux" ];
    revision = 0;
  };
}
