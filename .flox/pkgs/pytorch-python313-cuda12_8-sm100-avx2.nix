# Generated from matrix.yaml by gen-matrix; do not edit by hand: change matrix.yaml and run `gen-matrix`.
# PyTorch 2.8.0 for Python 3.13, CUDA 12.8, NVIDIA sm100 (Blackwell datacenter), CPU avx2.
# Build with: flox build pytorch-python313-cuda12_8-sm100-avx2
# The build logic is nix/lib/torch.nix; this file holds the variant's values.
{ genMatrixNixpkgs ? null }:

(import ../../nix/lib { nixpkgs = genMatrixNixpkgs; }).torch {
  pin = "default";
  build = {
    python = "3.13";
    version = "2.8.0";
    label = "cuda12.8-sm100-avx2";
    source = null;
    cuda = "12.8";
    capabilities = [ "10.0" ];
    capabilityScope = "torch";
    cpuFlags = [ "-mavx2" "-mfma" "-mf16c" ];
    disabledFeatures = [ ];
    environment = { };
    blas = null;
    systemFeatures = [ "big-parallel" ];
    jobMemoryGib = 4;
    fixes = [ ];
    passthru = { blasProvider = "cublas"; cpuISA = "avx2"; cudaVersion = "12.8"; gpuArch = "10.0"; };
  };
  meta = {
    pname = "pytorch-python313-cuda12_8-sm100-avx2";
    description = "PyTorch 2.8.0 for NVIDIA Blackwell datacenter GPUs (sm100) and avx2 CPUs, CUDA 12.8";
    longDescription = "PyTorch 2.8.0 built from source for Python 3.13.\nGPUs: B100, B200, GB200 (NVIDIA Blackwell datacenter, compute capability 10.0, sm100).\nCUDA 12.8; needs NVIDIA driver 570.26 or newer.\nCPUs: Intel Haswell and later, AMD Zen 1-3; needs the avx2 instruction set (avx2 fma f16c in /proc/cpuinfo).\n";
    platforms = [ "x86_64-linux" ];
    revision = 0;
  };
}
