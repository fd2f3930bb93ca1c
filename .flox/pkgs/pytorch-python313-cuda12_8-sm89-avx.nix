# Generated from matrix.yaml by gen-matrix; do not edit by hand: change matrix.yaml and run `gen-matrix`.
# PyTorch 2.8.0 for Python 3.13, CUDA 12.8, NVIDIA sm89 (Ada Lovelace), CPU avx.
# Build with: flox build pytorch-python313-cuda12_8-sm89-avx
# The build logic is nix/lib/torch.nix; this file holds the variant's values.
{ genMatrixNixpkgs ? null }:

(import ../../nix/lib { nixpkgs = genMatrixNixpkgs; }).torch {
  pin = "default";
  build = {
    python = "3.13";
    version = "2.8.0";
    label = "cuda12.8-sm89-avx";
    source = null;
    cuda = "12.8";
    capabilities = [ "8.9" ];
    capabilityScope = "torch";
    cpuFlags = [ "-mavx" "-mno-fma" "-mno-bmi" "-mno-bmi2" "-mno-avx2" ];
    disabledFeatures = [ "FBGEMM" "MKLDNN" "MKLDNN_CBLAS" "NNPACK" ];
    environment = { };
    blas = null;
    systemFeatures = [ "big-parallel" ];
    jobMemoryGib = 4;
    fixes = [ "avx-only-kernels" ];
    passthru = { blasProvider = "cublas"; cpuISA = "avx"; cudaVersion = "12.8"; gpuArch = "8.9"; };
  };
  meta = {
    pname = "pytorch-python313-cuda12_8-sm89-avx";
    description = "PyTorch 2.8.0 for NVIDIA Ada Lovelace GPUs (sm89) and avx CPUs, CUDA 12.8";
    longDescription = "PyTorch 2.8.0 built from source for Python 3.13.\nGPUs: GeForce RTX 4060, GeForce RTX 4070, GeForce RTX 4080, GeForce RTX 4090, L4, L40, L40S, RTX 6000 Ada (NVIDIA Ada Lovelace, compute capability 8.9, sm89).\nCUDA 12.8; needs NVIDIA driver 570.26 or newer.\nCPUs: Intel Sandy Bridge, Intel Ivy Bridge, AMD Bulldozer; needs the avx instruction set (avx in /proc/cpuinfo).\nBuilt without FBGEMM, MKLDNN, MKLDNN_CBLAS, NNPACK, which need a newer instruction set.\n";
    platforms = [ "x86_64-linux" ];
    revision = 0;
  };
}
