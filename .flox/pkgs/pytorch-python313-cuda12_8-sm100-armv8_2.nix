# Generated from matrix.yaml by gen-matrix; do not edit by hand: change matrix.yaml and run `gen-matrix`.
# PyTorch 2.8.0 for Python 3.13, CUDA 12.8, NVIDIA sm100 (Blackwell datacenter), CPU armv8_2.
# Build with: flox build pytorch-python313-cuda12_8-sm100-armv8_2
# The build logic is nix/lib/torch.nix; this file holds the variant's values.
{ genMatrixNixpkgs ? null }:

(import ../../nix/lib { nixpkgs = genMatrixNixpkgs; }).torch {
  pin = "default";
  build = {
    python = "3.13";
    version = "2.8.0";
    label = "cuda12.8-sm100-armv8_2";
    source = null;
    cuda = "12.8";
    capabilities = [ "10.0" ];
    capabilityScope = "torch";
    cpuFlags = [ "-march=armv8.2-a+fp16+dotprod" ];
    disabledFeatures = [ ];
    environment = { };
    blas = null;
    systemFeatures = [ "big-parallel" ];
    jobMemoryGib = 4;
    fixes = [ ];
    passthru = { blasProvider = "cublas"; cpuISA = "armv8_2"; cudaVersion = "12.8"; gpuArch = "10.0"; };
  };
  meta = {
    pname = "pytorch-python313-cuda12_8-sm100-armv8_2";
    description = "PyTorch 2.8.0 for NVIDIA Blackwell datacenter GPUs (sm100) and armv8_2 CPUs, CUDA 12.8";
    longDescription = "PyTorch 2.8.0 built from source for Python 3.13.\nGPUs: B100, B200, GB200 (NVIDIA Blackwell datacenter, compute capability 10.0, sm100).\nCUDA 12.8; needs NVIDIA driver 570.26 or newer.\nCPUs: AWS Graviton2, Ampere Altra, NVIDIA Grace; needs the armv8_2 instruction set (fphp asimdhp asimddp in /proc/cpuinfo).\n";
    platforms = [ "aarch64-linux" ];
    revision = 0;
  };
}
