# Generated from matrix.yaml by gen-matrix; do not edit by hand: change matrix.yaml and run `gen-matrix`.
# PyTorch 2.8.0 for Python 3.13, CPU avx2.
# Build with: flox build pytorch-python313-cpu-avx2
# The build logic is nix/lib/torch.nix; this file holds the variant's values.
{ genMatrixNixpkgs ? null }:

(import ../../nix/lib { nixpkgs = genMatrixNixpkgs; }).torch {
  pin = "default";
  build = {
    python = "3.13";
    version = "2.8.0";
    label = "cpu-avx2";
    source = null;
    cuda = null;
    capabilities = [ ];
    capabilityScope = "torch";
    cpuFlags = [ "-mavx2" "-mfma" "-mf16c" ];
    disabledFeatures = [ ];
    environment = { BLAS = "OpenBLAS"; };
    blas = "openblas";
    systemFeatures = [ "big-parallel" ];
    jobMemoryGib = 2;
    fixes = [ ];
    passthru = { blasProvider = "openblas"; cpuISA = "avx2"; cudaVersion = null; gpuArch = null; };
  };
  meta = {
    pname = "pytorch-python313-cpu-avx2";
    description = "PyTorch 2.8.0, CPU only, for avx2 CPUs";
    longDescription = "PyTorch 2.8.0 built from source for Python 3.13.\nCPUs: Intel Haswell and later, AMD Zen 1-3; needs the avx2 instruction set (avx2 fma f16c in /proc/cpuinfo).\n";
    platforms = [ "x86_64-linux" ];
    revision = 0;
  };
}
