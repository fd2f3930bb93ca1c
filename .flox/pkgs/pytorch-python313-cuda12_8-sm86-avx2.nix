# Generated from matrix.yaml by gen-matrix; do not edit by hand: change matrix.yaml and run `gen-matrix`.
# PyTorch 2.8.0 for Python 3.13, CUDA 12.8, NVIDIA sm86 (Ampere), CPU avx2.
# Build with: flox build pytorch-python313-cuda12_8-sm86-avx2
# The build logic is nix/lib/torch.nix; this file holds the variant's values.
{ genMatrixNixpkgs ? null }:

(import ../../nix/lib { nixpkgs = genMatrixNixpkgs; }).torch {
  pin = "default";
  build = {
    python = "3.13";
    version = "2.8.0";
    label = "cuda12.8-sm86-avx2";
    source = null;
    cuda = "12.8";
    capabilities = [ "8.6" ];
    capabilityScope = "torch";
    cpuFlags = [ "-mavx2" "-mfma" "-mf16c" ];
    disabledFeatures = [ ];
    environment = { };
    blas = null;
    systemFeatures = [ "big-parallel" ];
    jobMemoryGib = 4;
    fixes = [ ];
    passthru = { blasProvider = "cublas"; cpuISA = "avx2"; cudaVersion = "12.8"; gpuArch = "8.6"; };
  };
  meta = {
    pname = "pytorch-python313-cuda12_8-sm86-avx2";
    description = "PyTorch 2.8.0 for NVIDIA Ampere GPUs (sm86) and avx2 CPUs, CUDA 12.8";
    longDescription = "PyTorch 2.8.0 built from source for Python 3.13.\nGPUs: GeForce RTX 3060, GeForce RTX 3070, GeForce RTX 3080, GeForce RTX 3090, A10, A10G, A40, RTX A5000, RTX A6000, A2 (NVIDIA Ampere, compute capability 8.6, sm86).\nCUDA 12.8; needs NVIDIA driver 570.26 or newer.\nCPUs: Intel Haswell and later, AMD Zen 1-3; needs the avx2 instruction set (avx2 fma f16c in /proc/cpuinfo).\n";
    platforms = [ "x86_64-linux" ];
    revision = 1;
  };
}
