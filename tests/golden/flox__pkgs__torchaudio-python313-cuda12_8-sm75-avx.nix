# Generated from matrix.yaml by gen-matrix; do not edit by hand: change matrix.yaml and run `gen-matrix`.
# torchaudio for Python 3.13, built against pytorch-python313-cuda12_8-sm75-avx.
# Build with: flox build torchaudio-python313-cuda12_8-sm75-avx
# The build logic is nix/lib/companion.nix; this file holds the variant's values.
{ genMatrixNixpkgs ? null }:

(import ../../nix/lib { nixpkgs = genMatrixNixpkgs; }).companion {
  package = "torchaudio";
  torch = import ./pytorch-python313-cuda12_8-sm75-avx.nix { inherit genMatrixNixpkgs; };
  build = {
    systemFeatures = [ "big-parallel" ];
  };
  meta = {
    pname = "torchaudio-python313-cuda12_8-sm75-avx";
    description = "torchaudio built against pytorch-python313-cuda12_8-sm75-avx: PyTorch 2.8.0 for NVIDIA Turing GPUs (sm75) and avx CPUs, CUDA 12.8";
    longDescription = "torchaudio built from source for Python 3.13 against pytorch-python313-cuda12_8-sm75-avx (PyTorch 2.8.0), for the same GPU and CPU.\nGPUs: GeForce RTX 2060, GeForce RTX 2070, GeForce RTX 2080, GeForce RTX 2080 Ti, GeForce GTX 1650, GeForce GTX 1660, Tesla T4, Quadro RTX 8000, TITAN RTX (NVIDIA Turing, compute capability 7.5, sm75).\nCUDA 12.8; needs NVIDIA driver 570.26 or newer.\nCPUs: Intel Sandy Bridge, Intel Ivy Bridge, AMD Bulldozer; needs the avx instruction set (avx in /proc/cpuinfo).\n";
    platforms = [ "x86_64-linux" ];
    revision = 0;
  };
}
