# gen-matrix's Nix library, build fix: no AVX2 or AVX-512 kernels in a build for AVX-only CPUs.
#
# PyTorch compiles every ATen CPU kernel several times: once with the build's own flags
# (DEFAULT), and again with -mavx2 -mfma (AVX2) and -mavx512f ... (AVX512) when
# cmake/Modules/FindAVX.cmake finds that the *compiler* accepts those flags, which any
# current GCC does (cmake/Codegen.cmake, CPU_CAPABILITY_NAMES). The copy run is chosen at
# run time from cpuinfo (aten/src/ATen/native/DispatchStub.cpp), so a Sandy Bridge CPU
# runs the DEFAULT kernels; but the AVX2 copies are still built and linked, and
# caffe2/CMakeLists.txt ("Linking AVX and non-AVX files") documents how an inline
# function compiled with AVX2 can reach a CPU without it. An `avx` variant leaves them
# out, which also makes the build smaller and faster.
#
# Passing -DCXX_AVX2_FOUND=FALSE as cmakeFlags does nothing here: nixpkgs builds torch
# through setup.py, and tools/setup_helpers/cmake.py forwards to CMake only variables
# named BUILD_*, USE_*, CMAKE_* and a fixed list. CMAKE_PROJECT_INCLUDE_BEFORE is one
# of those; it names a file CMake reads before project(), which presets the cache
# entries. FindAVX sets them without FORCE, and check_cxx_source_compiles skips a
# result already in the cache, so the presets stand. CAFFE2_COMPILER_SUPPORTS_AVX512_
# EXTENSIONS=OFF also keeps FBGEMM out (cmake/Dependencies.cmake).
# `gen-matrix smoke` checks the result: torch.backends.cpu.get_cpu_capability() is
# DEFAULT in an avx build.
{
  torch = { pkgs, ... }: finalAttrs: old: {
    preConfigure = (old.preConfigure or "") + ''
      export CMAKE_PROJECT_INCLUDE_BEFORE=${pkgs.writeText "gen-matrix-avx-only.cmake" ''
        set(CXX_AVX2_FOUND FALSE CACHE BOOL "AVX-only build")
        set(C_AVX2_FOUND FALSE CACHE BOOL "AVX-only build")
        set(CXX_AVX512_FOUND FALSE CACHE BOOL "AVX-only build")
        set(C_AVX512_FOUND FALSE CACHE BOOL "AVX-only build")
        set(CAFFE2_COMPILER_SUPPORTS_AVX512_EXTENSIONS OFF CACHE BOOL "AVX-only build")
      ''}
    '';
  };
}
