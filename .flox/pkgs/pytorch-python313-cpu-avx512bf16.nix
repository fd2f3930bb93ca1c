# Generated from matrix.yaml by gen-matrix; do not edit by hand: change matrix.yaml and run `gen-matrix`.
# PyTorch 2.8.0 for Python 3.13, CPU avx512bf16.
# Build with: flox build pytorch-python313-cpu-avx512bf16
# The build logic is nix/lib/torch.nix; this file holds the variant's values.
{ genMatrixNixpkgs ? null }:

(import ../../nix/lib { nixpkgs = genMatrixNixpkgs; }).torch {
  pin = "default";
  build = {
    python = "3.13";
    version = "2.8.0";
    label = "cpu-avx512bf16";
    source = null;
    cuda = null;
    capabilities = [ ];
    capabilityScope = "torch";
    cpuFlags = [ "-mavx512f" "-mavx512dq" "-mavx512vl" "-mavx512bw" "-mfma" "-mavx512bf16" ];
    disabledFeatures = [ ];
    environment = { BLAS = "OpenBLAS"; };
    blas = "openblas";
    systemFeatures = [ "big-parallel" ];
    jobMemoryGib = 2;
    fixes = [ ];
    passthru = { blasProvider = "openblas"; cpuISA = "avx512bf16"; cudaVersion = null; gpuArch = null; };
  };
  meta = {
    pname = "pytorch-python313-cpu-avx512bf16";
    description = "PyTorch 2.8.0, CPU only, for avx512bf16 CPUs";
    longDescription = "PyTorch 2.8.0 built from source for Python 3.13.\nCPUs: Intel Cooper Lake, Intel Sapphire Rapids, AMD Zen 4; needs the avx512bf16 instruction set (avx512f avx512dq avx512vl avx512bw avx512_bf16 in /proc/cpuinfo).\n";
    platforms = [ "x86_64-linux" ];
    revision = 0;
  };
}
