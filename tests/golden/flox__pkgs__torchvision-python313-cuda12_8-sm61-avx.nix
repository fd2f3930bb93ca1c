# Generated from matrix.yaml by gen-matrix; do not edit by hand: change matrix.yaml and run `gen-matrix`.
# torchvision for Python 3.13, built against pytorch-python313-cuda12_8-sm61-avx.
# Build with: flox build torchvision-python313-cuda12_8-sm61-avx
# The build logic is nix/lib/companion.nix; this file holds the variant's values.
{ genMatrixNixpkgs ? null }:

(import ../../nix/lib { nixpkgs = genMatrixNixpkgs; }).companion {
  package = "torchvision";
  torch = import ./pytorch-python313-cuda12_8-sm61-avx.nix { inherit genMatrixNixpkgs; };
  build = {
    systemFeatures = [ "big-parallel" ];
  };
  meta = {
    pname = "torchvision-python313-cuda12_8-sm61-avx";
    description = "torchvision built against pytorch-python313-cuda12_8-sm61-avx: PyTorch 2.8.0 for NVIDIA Pascal GPUs (sm61) and avx CPUs, CUDA 12.8";
    longDescription = "torchvision built from source for Python 3.13 against pytorch-python313-cuda12_8-sm61-avx (PyTorch 2.8.0), for the same GPU and CPU.\nGPUs: GeForce GTX 1070, GeForce GTX 1080, GeForce GTX 1080 Ti, Tesla P40, Tesla P4 (NVIDIA Pascal, compute capability 6.1, sm61).\nCUDA 12.8; needs NVIDIA driver 570.26 or newer.\nCPUs: Intel Sandy Bridge, Intel Ivy Bridge, AMD Bulldozer; needs the avx instruction set (avx in /proc/cpuinfo).\n";
    platforms = [ "x86_64-linux" ];
    revision = 0;
  };
}
