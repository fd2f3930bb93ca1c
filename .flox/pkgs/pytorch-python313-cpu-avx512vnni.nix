# Generated from matrix.yaml by gen-matrix; do not edit by hand: change matrix.yaml and run `gen-matrix`.
# PyTorch 2.8.0 for Python 3.13, CPU avx512vnni.
# Build with: flox build pytorch-python313-cpu-avx512vnni
# The build logic is nix/lib/torch.nix; this file holds the variant's values.
{ genMatrixNixpkgs ? null }:

(import ../../nix/lib { nixpkgs = genMatrixNixpkgs; }).torch {
  pin = "default";
  build = {
    python = "3.13";
    version = "2.8.0";
    label = "cpu-avx512vnni";
    source = null;
    cuda = null;
    capabilities = [ ];
    capabilityScope = "torch";
    cpuFlags = [ "-mavx512f" "-mavx512dq" "-mavx512vl" "-mavx512bw" "-mfma" "-mavx512vnni" ];
    disabledFeatures = [ ];
    environment = { BLAS = "OpenBLAS"; };
    blas = "openblas";
    systemFeatures = [ "big-parallel" ];
    jobMemoryGib = 2;
    fixes = [ ];
    passthru = { blasProvider = "openblas"; cpuISA = "avx512vnni"; cudaVersion = null; gpuArch = null; };
  };
  meta = {
    pname = "pytorch-python313-cpu-avx512vnni";
    description = "PyTorch 2.8.0, CPU only, for avx512vnni CPUs";
    longDescription = "PyTorch 2.8.0 built from source for Python 3.13.\nCPUs: Intel Cascade Lake, Intel Ice Lake, AMD Zen 4; needs the avx512vnni instruction set (avx512f avx512dq avx512vl avx512bw avx512_vnni in /proc/cpuinfo).\n";
    platforms = [ "x86_64-linux" ];
    revision = 0;
  };
}
