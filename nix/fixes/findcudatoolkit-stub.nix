# gen-matrix's Nix library, build fix: give PyTorch's install step the FindCUDAToolkit.cmake it copies.
#
# With CUDA, nixpkgs' postPatch deletes cmake/Modules/FindCUDAToolkit.cmake so that
# CMake's own module is used, and its patch fix-cmake-cuda-toolkit.patch drops the
# install rule that copies the file. Built from another PyTorch source, that patch is
# gone (see torch-source-patches.nix) while the deletion stays, and the install phase
# fails after the whole compile:
#   file INSTALL cannot find ".../cmake/Modules/FindCUDAToolkit.cmake"
# The stub delegates to CMake's own module: an empty file would leave CUDA undetected
# for gloo. It is written only where the file is missing.
{
  torch = { ... }: finalAttrs: old: {
    postPatch = (old.postPatch or "") + ''
      if [ ! -e cmake/Modules/FindCUDAToolkit.cmake ]; then
        mkdir -p cmake/Modules
        cat > cmake/Modules/FindCUDAToolkit.cmake <<'GEN_MATRIX_EOF'
      # Delegates to CMake's own FindCUDAToolkit (written by gen-matrix's build fix).
      if(NOT CUDAToolkit_FOUND)
        set(_gen_matrix_module_path "''${CMAKE_MODULE_PATH}")
        list(FILTER CMAKE_MODULE_PATH EXCLUDE REGEX "cmake/Modules")
        include(FindCUDAToolkit)
        set(CMAKE_MODULE_PATH "''${_gen_matrix_module_path}")
      endif()
      GEN_MATRIX_EOF
      fi
    '';
  };
}
