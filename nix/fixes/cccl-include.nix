# gen-matrix's Nix library, build fix: the CCCL include layout PyTorch 2.10's CUTLASS expects under CUDA 13.
#
# CUTLASS as bundled with PyTorch 2.10 includes <cccl/cuda/std/utility>; CUDA 13's
# cuda_cccl has the headers as <cuda/std/utility>, and the build fails with
#   fatal error: cccl/cuda/std/utility: No such file or directory
# A folder with a cccl/ level of links into cuda_cccl's headers goes first on the include
# path of the C, C++ and CUDA compilers (CUDAFLAGS is what CMake starts CMAKE_CUDA_FLAGS
# from). It lives in the build's own temporary folder.
{
  torch = { pkgs, ... }: finalAttrs: old: {
    preConfigure = (old.preConfigure or "") + ''
      genMatrixCccl=$NIX_BUILD_TOP/cccl-compat
      mkdir -p $genMatrixCccl/cccl
      for dir in cuda cub thrust nv; do
        ln -sfn ${pkgs.cudaPackages.cuda_cccl}/include/$dir $genMatrixCccl/cccl/$dir
      done
      export CXXFLAGS="-I$genMatrixCccl $CXXFLAGS"
      export CFLAGS="-I$genMatrixCccl $CFLAGS"
      export CUDAFLAGS="-I$genMatrixCccl ''${CUDAFLAGS:-}"
    '';
  };
}
