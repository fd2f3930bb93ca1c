# The body of nixpkgs' torch expression (pkgs/development/python-modules/torch/
# source/default.nix), shared by the per-revision headers. What it keeps from
# the real texts (torch 2.8.0: LunNova/nixpkgs@01728bad; torch 2.9.1:
# NixOS/nixpkgs@6b516b42; see ../../revisions.nix and ../../../README.md):
#   supportedTorchCudaCapabilities / gpuTargetString / brokenConditions (same
#   logic), patches, postPatch pieces (incl. `rm cmake/Modules/FindCUDAToolkit.cmake`
#   under cudaSupport), preConfigure, dontUseCmakeConfigure, preBuild (MAX_JOBS,
#   setup.py build --cmake-only, cmake build), cmakeFlags, the top-level vs `env`
#   split, outputs, passthru and meta. Inputs are small stand-in derivations.
# `rev.torchForm` picks the revision's layout: "2.8.0", "2.9.1" or "env".
rev: a:
let
  inherit (a)
    lib config fetchFromGitHub buildPythonPackage python writeShellScript git-unroll
    cudaSupport cudaPackages effectiveMagma useSystemNccl MPISupport mpi buildDocs
    targetPackages cmake symlinkJoin which pybind11 pkg-config removeReferencesTo openssl
    numactl llvmPackages astunparse binutils expecttest filelock fsspec hypothesis jinja2
    networkx packaging psutil pyyaml requests sympy types-dataclasses typing-extensions
    tritonSupport _tritonEffective mklDnnSupport blas ninja pillow six tensorboard protobuf
    rocmSupport rocmPackages gpuTargets vulkanSupport vulkan-headers vulkan-loader shaderc
    apple-sdk_13 autoAddDriverRunpath;
  # Only the 2.8.0 header declares these; the 2.9.1 text adds magma under CUDA or ROCm.
  fetchpatch = a.fetchpatch or null;
  magmaSupport = a.magmaSupport or (cudaSupport || rocmSupport);
  inherit (lib) attrsets lists strings trivial;
  inherit (cudaPackages) cudnn flags nccl;

  form = rev.torchForm;
  is280 = form == "2.8.0";
  envForm = form == "env";

  triton = throw "python3Packages.torch: use _tritonEffective instead of triton to avoid divergence";

  setBool = v: if v then "1" else "0";

  # https://github.com/pytorch/pytorch/blob/v2.8.0/torch/utils/cpp_extension.py#L2411-L2414
  supportedTorchCudaCapabilities =
    let
      real = [ "3.5" "3.7" "5.0" "5.2" "5.3" "6.0" "6.1" "6.2" "7.0" "7.2" "7.5" "8.0" "8.6"
        "8.7" "8.9" "9.0" "9.0a" "10.0" "10.0" "10.0a" "10.1" "10.1a" "10.3" "10.3a"
        "12.0" "12.0a" "12.1" "12.1a" ];
      ptx = lists.map (x: "${x}+PTX") real;
    in
    real ++ ptx;

  # NOTE: The lists.subtractLists function is perhaps a bit unintuitive. It subtracts the elements
  #   of the first list *from* the second list. That means:
  #   lists.subtractLists a b = b - a

  # For CUDA
  supportedCudaCapabilities = lists.intersectLists flags.cudaCapabilities supportedTorchCudaCapabilities;
  unsupportedCudaCapabilities = lists.subtractLists supportedCudaCapabilities flags.cudaCapabilities;

  isCudaJetson = cudaSupport && cudaPackages.flags.isJetsonBuild;

  # Use trivial.warnIf to print a warning if any unsupported GPU targets are specified.
  gpuArchWarner =
    supported: unsupported:
    trivial.throwIf (supported == [ ]) (
      "No supported GPU targets specified. Requested GPU targets: "
      + strings.concatStringsSep ", " unsupported
    ) supported;

  # Create the gpuTargetString.
  gpuTargetString = strings.concatStringsSep ";" (
    if gpuTargets != [ ] then
      # If gpuTargets is specified, it always takes priority.
      gpuTargets
    else if cudaSupport then
      gpuArchWarner supportedCudaCapabilities unsupportedCudaCapabilities
    else if rocmSupport then
      lib.lists.subtractLists [ "gfx1010" "gfx1012" ] (rocmPackages.clr.localGpuTargets or rocmPackages.clr.gpuTargets)
    else
      throw "No GPU targets specified"
  );

  rocmtoolkit_joined = symlinkJoin {
    name = "rocm-merged";
    paths = with rocmPackages; [ rocm-core clr rccl miopen aotriton rocrand rocblas rocsparse
      hipsparse rocthrust rocprim hipcub roctracer rocfft rocsolver hipfft hiprand hipsolver
      hipblas-common hipblas hipblaslt rocminfo rocm-comgr rocm-device-libs rocm-runtime
      rocm-smi clr.icd hipify ];
    postBuild = ''
      rm -rf $out/nix-support
    '';
  };

  brokenConditions = attrsets.filterAttrs (_: cond: cond) {
    "CUDA and ROCm are mutually exclusive" = cudaSupport && rocmSupport;
    "CUDA is not targeting Linux" = cudaSupport && !stdenv.hostPlatform.isLinux;
    "Unsupported CUDA version" =
      cudaSupport
      && !(builtins.elem cudaPackages.cudaMajorVersion [
        "11"
        "12"
      ]);
    "MPI cudatoolkit does not match cudaPackages.cudatoolkit" =
      MPISupport && cudaSupport && (mpi.cudatoolkit != cudaPackages.cudatoolkit);
    # This used to be a deep package set comparison between cudaPackages and
    # effectiveMagma.cudaPackages, making torch too strict in cudaPackages.
    # In particular, this triggered warnings from cuda's `aliases.nix`
    "Magma cudaPackages does not match cudaPackages" =
      cudaSupport
      && (effectiveMagma.cudaPackages.cudaMajorMinorVersion != cudaPackages.cudaMajorMinorVersion);
  };

  unroll-src = writeShellScript "unroll-src" ''
    echo "{
      version,
      fetchFromGitLab,
      fetchFromGitHub,
      runCommand,
    }:
    assert version == \"'\"'$1'\"'\";"
    ${lib.getExe git-unroll} https://github.com/pytorch/pytorch v$1
    echo
    echo "# Update using: unroll-src [version]"
  '';

  stdenv' = if cudaSupport then cudaPackages.backendStdenv else a.stdenv;
  # From here on, `stdenv` shall be `stdenv'`.
  stdenv = stdenv';

  version = rev.torch.version;

  # (nixpkgs uses `callPackage ./src.nix` generated by git-unroll; a fetchgit of
  # the tag with submodules stands in for it.)
  src = fetchFromGitHub {
    owner = "pytorch";
    repo = "pytorch";
    tag = "v${version}";
    fetchSubmodules = true;
    sha256 = builtins.hashString "sha256" "fake:pytorch/pytorch@v${version}";
  };

  # 2.8.0 as read at LunNova/nixpkgs@01728bad; the ROCm-7 warpsize fetchpatch there
  # (clr >= 7.0) never applies to the ROCm 6.4 stand-ins here and is left out.
  patches280 = [
    ./patches/clang19-template-warning.patch

    # Do not override PYTHONPATH, otherwise, the build fails with:
    # ModuleNotFoundError: No module named 'typing_extensions'
    (fetchpatch {
      name = "cmake-build-preserve-PYTHONPATH";
      url = "https://github.com/pytorch/pytorch/commit/231c72240d80091f099c95e326d3600cba866eee.patch";
      hash = "sha256-BBCjxzz2TUkx4nXRyRILA82kMwyb/4+C3eOtYqf5dhk=";
    })

    # Fixes GCC-14 compatibility on ARM
    # Adapted from https://github.com/pytorch/pytorch/pull/157867
    # TODO: remove at the next release
    ./patches/gcc-14-arm-compat.path
  ]
  ++ lib.optionals cudaSupport [
    ./patches/fix-cmake-cuda-toolkit.patch
    ./patches/nvtx3-hpp-path-fix.patch
  ]
  ++ lib.optionals stdenv.hostPlatform.isLinux [
    # Propagate CUPTI to Kineto by overriding the search path with environment variables.
    # https://github.com/pytorch/pytorch/pull/108847
    ./patches/pytorch-pr-108847.patch
  ]
  ++ lib.optionals (lib.getName blas.provider == "mkl") [
    # The CMake install tries to add some hardcoded rpaths, incompatible
    # with the Nix store, which fails. Simply remove this step to get
    # rpaths that point to the Nix store.
    ./patches/disable-cmake-mkl-rpath.patch
  ];

  patches291 = [
    # Allow building with clang 19+
    ./patches/clang19-template-warning.patch
  ]
  ++ lib.optionals cudaSupport [
    ./patches/fix-cmake-cuda-toolkit.patch
    ./patches/nvtx3-hpp-path-fix.patch
  ]
  ++ lib.optionals stdenv.hostPlatform.isLinux [
    # Propagate CUPTI to Kineto by overriding the search path with environment variables.
    # https://github.com/pytorch/pytorch/pull/108847
    ./patches/pytorch-pr-108847.patch
  ]
  ++ lib.optionals (lib.getName blas.provider == "mkl") [
    # The CMake install tries to add some hardcoded rpaths, incompatible
    # with the Nix store, which fails. Simply remove this step to get
    # rpaths that point to the Nix store.
    ./patches/disable-cmake-mkl-rpath.patch
  ];

  patches = if is280 then patches280 else patches291;

  # 2.8.0 as read at LunNova/nixpkgs@01728bad, piece for piece and in its order.
  postPatch280 = ''
    substituteInPlace pyproject.toml \
      --replace-fail "setuptools>=62.3.0,<80.0" "setuptools"
  ''
  # Provide path to openssl binary for inductor code cache hash
  # InductorError: FileNotFoundError: [Errno 2] No such file or directory: 'openssl'
  + ''
    substituteInPlace torch/_inductor/codecache.py \
      --replace-fail '"openssl"' '"${lib.getExe openssl}"'
  ''
  + ''
    substituteInPlace cmake/public/cuda.cmake \
      --replace-fail \
        'message(FATAL_ERROR "Found two conflicting CUDA' \
        'message(WARNING "Found two conflicting CUDA' \
      --replace-warn \
        "set(CUDAToolkit_ROOT" \
        "# Upstream: set(CUDAToolkit_ROOT"
    substituteInPlace third_party/gloo/cmake/Cuda.cmake \
      --replace-warn "find_package(CUDAToolkit 7.0" "find_package(CUDAToolkit"
  ''
  # annotations (3.7), print_function (3.0), with_statement (2.6) are all supported
  + ''
    sed -i -e "/from __future__ import/d" **.py
    substituteInPlace third_party/NNPACK/CMakeLists.txt \
      --replace-fail "PYTHONPATH=" 'PYTHONPATH=$ENV{PYTHONPATH}:'
  ''
  # flag from cmakeFlags doesn't work, not clear why
  # setting it at the top of NNPACK's own CMakeLists does
  + ''
    sed -i '2s;^;set(PYTHON_SIX_SOURCE_DIR ${six.src})\n;' third_party/NNPACK/CMakeLists.txt
  ''
  # Ensure that torch profiler unwind uses addr2line from nix
  + ''
    substituteInPlace torch/csrc/profiler/unwind/unwind.cpp \
      --replace-fail 'addr2line_binary_ = "addr2line"' 'addr2line_binary_ = "${lib.getExe' binutils "addr2line"}"'
  ''
  + lib.optionalString rocmSupport ''
    # https://github.com/facebookincubator/gloo/pull/297
    substituteInPlace third_party/gloo/cmake/Hipify.cmake \
      --replace-fail "\''${HIPIFY_COMMAND}" "python \''${HIPIFY_COMMAND}"

    # Doesn't pick up the environment variable?
    substituteInPlace third_party/kineto/libkineto/CMakeLists.txt \
      --replace-fail "\''$ENV{ROCM_SOURCE_DIR}" "${rocmtoolkit_joined}"
  ''
  # When possible, composable kernel as dependency, rather than built-in third-party
  # (vendorComposableKernel = false in this text)
  + lib.optionalString rocmSupport ''
    substituteInPlace aten/src/ATen/CMakeLists.txt \
      --replace-fail "list(APPEND ATen_HIP_INCLUDE \''${CMAKE_CURRENT_SOURCE_DIR}/../../../third_party/composable_kernel/include)" "" \
      --replace-fail "list(APPEND ATen_HIP_INCLUDE \''${CMAKE_CURRENT_SOURCE_DIR}/../../../third_party/composable_kernel/library/include)" ""
  ''
  # Detection of NCCL version doesn't work particularly well when using the static binary.
  + lib.optionalString cudaSupport ''
    substituteInPlace cmake/Modules/FindNCCL.cmake \
      --replace-fail \
        'message(FATAL_ERROR "Found NCCL header version and library version' \
        'message(WARNING "Found NCCL header version and library version'
  ''
  # Remove PyTorch's FindCUDAToolkit.cmake and use CMake's default.
  # NOTE: Parts of pytorch rely on unmaintained FindCUDA.cmake with custom patches to support e.g.
  # newer architectures (sm_90a). We do want to delete vendored patches, but have to keep them
  # until https://github.com/pytorch/pytorch/issues/76082 is addressed
  + lib.optionalString cudaSupport ''
    rm cmake/Modules/FindCUDAToolkit.cmake
  '';

  postPatch291 =
    ''
      substituteInPlace pyproject.toml \
        --replace-fail "setuptools>=70.1.0,<80.0" "setuptools"
    ''
    + ''
      substituteInPlace cmake/public/cuda.cmake \
        --replace-fail \
          'message(FATAL_ERROR "Found two conflicting CUDA' \
          'message(WARNING "Found two conflicting CUDA' \
        --replace-warn \
          "set(CUDAToolkit_ROOT" \
          "# Upstream: set(CUDAToolkit_ROOT"
      substituteInPlace third_party/gloo/cmake/Cuda.cmake \
        --replace-warn "find_package(CUDAToolkit 7.0" "find_package(CUDAToolkit"
    ''
    # Provide path to openssl binary for inductor code cache hash
    + ''
      substituteInPlace torch/_inductor/codecache.py \
        --replace-fail '"openssl"' '"${lib.getExe openssl}"'
    ''
    + ''
      # annotations (3.7), print_function (3.0), with_statement (2.6) are all supported
      sed -i -e "/from __future__ import/d" **.py
      substituteInPlace third_party/NNPACK/CMakeLists.txt \
        --replace-fail "PYTHONPATH=" 'PYTHONPATH=$ENV{PYTHONPATH}:'
      # flag from cmakeFlags doesn't work, not clear why
      # setting it at the top of NNPACK's own CMakeLists does
      sed -i '2s;^;set(PYTHON_SIX_SOURCE_DIR ${six.src})\n;' third_party/NNPACK/CMakeLists.txt

      # Ensure that torch profiler unwind uses addr2line from nix
      substituteInPlace torch/csrc/profiler/unwind/unwind.cpp \
        --replace-fail 'addr2line_binary_ = "addr2line"' 'addr2line_binary_ = "${lib.getExe' binutils "addr2line"}"'
    ''
    # Ensures torch compile can find and use compilers from nix.
    + ''
      substituteInPlace torch/_inductor/config.py \
        --replace-fail '"clang++" if sys.platform == "darwin" else "g++"' \
        '"${lib.getExe' targetPackages.stdenv.cc "${targetPackages.stdenv.cc.targetPrefix}c++"}"'
    ''
    + lib.optionalString rocmSupport ''
      # https://github.com/facebookincubator/gloo/pull/297
      substituteInPlace third_party/gloo/cmake/Hipify.cmake \
        --replace-fail "\''${HIPIFY_COMMAND}" "python \''${HIPIFY_COMMAND}"

      # Doesn't pick up the environment variable?
      substituteInPlace third_party/kineto/libkineto/CMakeLists.txt \
        --replace-fail "\''$ENV{ROCM_SOURCE_DIR}" "${rocmtoolkit_joined}"
    ''
    # error: no member named 'aligned_alloc' in the global namespace; did you mean simply 'aligned_alloc'
    # This lib overrided aligned_alloc hence the error message. Tltr: his function is linkable but not in header.
    + lib.optionalString cudaSupport ''
      substituteInPlace cmake/Modules/FindNCCL.cmake \
        --replace-fail \
          'message(FATAL_ERROR "Found NCCL header version and library version' \
          'message(WARNING "Found NCCL header version and library version'
    ''
    # Remove PyTorch's FindCUDAToolkit.cmake and use CMake's default.
    # NOTE: Parts of pytorch rely on unmaintained FindCUDA.cmake with custom patches to support e.g.
    # newer architectures (sm_90a). We do want to delete vendored patches, but have to keep them
    # until https://github.com/pytorch/pytorch/issues/76082 is addressed
    + lib.optionalString cudaSupport ''
      rm cmake/Modules/FindCUDAToolkit.cmake
    '';

  postPatch = if is280 then postPatch280 else postPatch291;

  # NOTE(@connorbaker): Though we do not disable Gloo or MPI when building with CUDA support, caution should be taken
  # when using the different backends. Gloo's GPU support isn't great, and MPI and CUDA can't be used at the same time
  # without extreme care to ensure they don't lock each other out of shared resources.
  # For more, see https://github.com/open-mpi/ompi/issues/7733#issuecomment-629806195.
  preConfigure =
    lib.optionalString cudaSupport ''
      export TORCH_CUDA_ARCH_LIST="${gpuTargetString}"
      export CUPTI_INCLUDE_DIR=${lib.getDev cudaPackages.cuda_cupti}/include
      export CUPTI_LIBRARY_DIR=${lib.getLib cudaPackages.cuda_cupti}/lib
    ''
    + lib.optionalString (cudaSupport && cudaPackages ? cudnn) ''
      export CUDNN_INCLUDE_DIR=${lib.getLib cudnn}/include
      export CUDNN_LIB_DIR=${lib.getLib cudnn}/lib
    ''
    + lib.optionalString rocmSupport ''
      export ROCM_PATH=${rocmtoolkit_joined}
      export ROCM_SOURCE_DIR=${rocmtoolkit_joined}
      export PYTORCH_ROCM_ARCH="${gpuTargetString}"
      export CMAKE_CXX_FLAGS="-I${rocmtoolkit_joined}/include"
      python tools/amd_build/build_amd.py
    '';

  # Use pytorch's custom configurations
  dontUseCmakeConfigure = true;

  # causes possible redefinition of _FORTIFY_SOURCE
  hardeningDisable = [ "fortify3" ];

  # Build switches: top-level derivation attributes at 00d0ced / 6b516b42,
  # moved into `env` by later nixpkgs (torchForm "env").
  switches = finalVersion: finalUseNccl: {
    BUILD_NAMEDTENSOR = setBool true;
    BUILD_DOCS = setBool buildDocs;

    # We only do an imports check, so do not build tests either.
    BUILD_TEST = setBool false;

    # ninja hook doesn't automatically turn on ninja
    # because pytorch setup.py is responsible for this
    CMAKE_GENERATOR = "Ninja";

    # Unlike MKL, oneDNN (née MKLDNN) is FOSS, so we enable support for
    # it by default. PyTorch currently uses its own vendored version
    # of oneDNN through Intel iDeep.
    USE_MKLDNN = setBool mklDnnSupport;
    USE_MKLDNN_CBLAS = setBool mklDnnSupport;

    # Avoid using pybind11 from git submodule
    # Also avoids pytorch exporting the headers of pybind11
    USE_SYSTEM_PYBIND11 = true;

    # Multicore CPU convnet support
    USE_NNPACK = 1;

    # Explicitly enable MPS for Darwin
    USE_MPS = setBool stdenv.hostPlatform.isDarwin;

    # building torch.distributed on Darwin is disabled by default
    # https://pytorch.org/docs/stable/distributed.html#torch.distributed.is_available
    USE_DISTRIBUTED = setBool true;

    # Override the (weirdly) wrong version set by default. See
    # https://github.com/NixOS/nixpkgs/pull/52437#issuecomment-449718038
    # https://github.com/pytorch/pytorch/blob/v1.0.0/setup.py#L267
    PYTORCH_BUILD_VERSION = finalVersion;
    PYTORCH_BUILD_NUMBER = 0;

    # In-tree builds of NCCL are not supported.
    # Use NCCL when cudaSupport is enabled and nccl is available.
    USE_NCCL = setBool useSystemNccl;
    USE_SYSTEM_NCCL = finalUseNccl;
    USE_STATIC_NCCL = finalUseNccl;

    # Set the correct Python library path, broken since
    # https://github.com/pytorch/pytorch/commit/3d617333e
    PYTHON_LIB_REL_PATH = "${placeholder "out"}/${python.sitePackages}";
  };

  envBlock = {
    # disable warnings as errors as they break the build on every compiler
    # bump, among other things.
    # Also of interest: pytorch ignores CXXFLAGS uses CFLAGS for both C and C++:
    # https://github.com/pytorch/pytorch/blob/v1.11.0/setup.py#L17
    NIX_CFLAGS_COMPILE = toString (
      [
        "-Wno-error"
      ]
      # fix build aarch64-linux build failure with GCC14
      ++ lib.optionals (stdenv.hostPlatform.isLinux && stdenv.hostPlatform.isAarch64) [
        "-Wno-error=incompatible-pointer-types"
      ]
    );
    USE_VULKAN = setBool vulkanSupport;
  }
  // lib.optionalAttrs vulkanSupport {
    VULKAN_SDK = shaderc.bin;
  }
  // lib.optionalAttrs rocmSupport {
    AOTRITON_INSTALLED_PREFIX = "${rocmPackages.aotriton}";
  }
  // lib.optionalAttrs (rocmSupport && !is280) {
    # Broken HIP flag setup, fails to compile due to not finding rocthrust
    # Only supports gfx942 so let's turn it off for now
    USE_FBGEMM_GENAI = setBool false;
  };

  preBuild = ''
    export MAX_JOBS=$NIX_BUILD_CORES
    ${python.pythonOnBuildForHost.interpreter} setup.py build --cmake-only
    ${cmake}/bin/cmake build
  '';

  cmakeFlags = [
    (lib.cmakeFeature "PYTHON_SIX_SOURCE_DIR" "${six.src}")
    # (lib.cmakeBool "CMAKE_FIND_DEBUG_MODE" true)
    (lib.cmakeFeature "CUDAToolkit_VERSION" cudaPackages.cudaMajorMinorVersion)
  ]
  ++ lib.optionals cudaSupport [
    # Unbreaks version discovery in enable_language(CUDA) when wrapping nvcc with ccache
    # Cf. https://gitlab.kitware.com/cmake/cmake/-/issues/26363
    (lib.cmakeFeature "CMAKE_CUDA_COMPILER_TOOLKIT_VERSION" cudaPackages.cudaMajorMinorVersion)
  ];

  nativeBuildInputs = [
    cmake
    which
    ninja
    pybind11
    pkg-config
    removeReferencesTo
  ]
  ++ lib.optionals cudaSupport (
    with cudaPackages;
    [
      autoAddDriverRunpath
      cuda_nvcc
    ]
  )
  # read in the 2.8.0 text
  ++ lib.optionals (is280 && isCudaJetson) [ cudaPackages.autoAddCudaCompatRunpath ]
  ++ lib.optionals rocmSupport [ rocmtoolkit_joined ];

  buildInputs = [
    blas
    blas.provider
  ]
  # Including openmp leads to two copies being used on ARM, which segfaults.
  # https://github.com/pytorch/pytorch/issues/101795
  ++ lib.optionals (stdenv.cc.isClang && !stdenv.hostPlatform.isAarch64) [ llvmPackages.openmp ]
  ++ lib.optionals cudaSupport (
    with cudaPackages;
    [
      cuda_cccl # <thrust/*>
      cuda_cudart # cuda_runtime.h and libraries
      cuda_cupti # For kineto
      cuda_nvcc # crt/host_config.h; even though we include this in nativeBuildInputs, it's needed here too
      cuda_nvml_dev # <nvml.h>
      cuda_nvrtc
      cuda_nvtx # -llibNVToolsExt
    ]
    # the 2.8.0 text names cuSPARSELt `cusparselt`, the 2.9.1 text `libcusparse_lt`
    ++ lib.optionals is280 [ cusparselt ]
    ++ [
      libcublas
      libcufft
      libcufile
      libcurand
      libcusolver
      libcusparse
    ]
    ++ lib.optionals (!is280) [ libcusparse_lt ]
    ++ lists.optionals (cudaPackages ? cudnn) [ cudnn ]
    ++ lists.optionals useSystemNccl [
      # Some platforms do not support NCCL (i.e., Jetson)
      nccl # Provides nccl.h AND a static copy of NCCL!
    ]
    ++ [
      cuda_profiler_api # <cuda_profiler_api.h>
    ]
  )
  ++ lib.optionals rocmSupport [ rocmPackages.llvm.openmp ]
  ++ lib.optionals magmaSupport [ effectiveMagma ]
  ++ lib.optionals stdenv.hostPlatform.isLinux [ numactl ]
  ++ lib.optionals (stdenv.hostPlatform.isDarwin && is280) [ apple-sdk_13 ]
  ++ lib.optionals tritonSupport [ _tritonEffective ]
  ++ lib.optionals MPISupport [ mpi ]
  ++ lib.optionals rocmSupport (
    [ rocmtoolkit_joined ]
    # read in the 2.8.0 text: "Added separately so setup hook applies"
    ++ lib.optionals is280 [ rocmPackages.clr ]
  );

  pythonRelaxDeps = [
    "sympy"
  ];
  dependencies = [
    astunparse
    expecttest
    filelock
    fsspec
    hypothesis
    jinja2
    networkx
    ninja
    packaging
    psutil
    pyyaml
    requests
    sympy
    types-dataclasses
    typing-extensions

    # the following are required for tensorboard support
    pillow
    six
    tensorboard
    protobuf

    # torch/csrc requires `pybind11` at runtime
    pybind11
  ]
  ++ lib.optionals tritonSupport [ _tritonEffective ]
  ++ lib.optionals vulkanSupport [
    vulkan-headers
    vulkan-loader
  ];

  propagatedCxxBuildInputs =
    [ ] ++ lib.optionals MPISupport [ mpi ] ++ lib.optionals rocmSupport [ rocmtoolkit_joined ];

  # Tests take a long time and may be flaky, so just sanity-check imports
  doCheck = false;

  pythonImportsCheck = [ "torch" ];

  nativeCheckInputs = [
    hypothesis
    ninja
    psutil
  ];

  # read in the 2.8.0 text
  pythonRemoveDeps = [
    # In our dist-info the name is just "triton"
    "pytorch-triton-rocm"
  ];

  postInstall = ''
    find "$out/${python.sitePackages}/torch/include" "$out/${python.sitePackages}/torch/lib" -type f -exec remove-references-to -t ${stdenv.cc} '{}' +

    mkdir $dev

    # CppExtension requires that include files are packaged with the main
    # python library output; which is why they are copied here.
    cp -r $out/${python.sitePackages}/torch/include $dev/include

    # Cmake files under /share are different and can be safely moved. This
    # avoids unnecessary closure blow-up due to apple sdk references when
    # USE_DISTRIBUTED is enabled.
    mv $out/${python.sitePackages}/torch/share $dev/share

    # Fix up library paths for split outputs
    substituteInPlace \
      $dev/share/cmake/Torch/TorchConfig.cmake \
      --replace-fail \''${TORCH_INSTALL_PREFIX}/lib "$lib/lib"

    substituteInPlace \
      $dev/share/cmake/Caffe2/Caffe2Targets-release.cmake \
      --replace-fail \''${_IMPORT_PREFIX}/lib "$lib/lib"

    mkdir $lib
    mv $out/${python.sitePackages}/torch/lib $lib/lib
    ln -s $lib/lib $out/${python.sitePackages}/torch/lib
  ''
  # read in the 2.8.0 text
  + lib.optionalString (is280 && rocmSupport) ''
    substituteInPlace $dev/share/cmake/Tensorpipe/TensorpipeTargets-release.cmake \
      --replace-fail "\''${_IMPORT_PREFIX}/lib64" "$lib/lib"

    substituteInPlace $dev/share/cmake/ATen/ATenConfig.cmake \
      --replace-fail "/build/${src.name}/torch/include" "$dev/include"
  '';

  postFixup = ''
    mkdir -p "$cxxdev/nix-support"
    printWords "''${propagatedCxxBuildInputs[@]}" >> "$cxxdev/nix-support/propagated-build-inputs"
  ''
  # read in the 2.8.0 text
  + lib.optionalString (is280 && stdenv.hostPlatform.isDarwin) ''
    for f in $(ls $lib/lib/*.dylib); do
        install_name_tool -id $lib/lib/$(basename $f) $f || true
    done

    install_name_tool -change @rpath/libshm.dylib $lib/lib/libshm.dylib $lib/lib/libtorch_python.dylib
    install_name_tool -change @rpath/libtorch.dylib $lib/lib/libtorch.dylib $lib/lib/libtorch_python.dylib
    install_name_tool -change @rpath/libc10.dylib $lib/lib/libc10.dylib $lib/lib/libtorch_python.dylib

    install_name_tool -change @rpath/libc10.dylib $lib/lib/libc10.dylib $lib/lib/libtorch.dylib

    install_name_tool -change @rpath/libtorch.dylib $lib/lib/libtorch.dylib $lib/lib/libshm.dylib
    install_name_tool -change @rpath/libc10.dylib $lib/lib/libc10.dylib $lib/lib/libshm.dylib
  '';

  # See https://github.com/NixOS/nixpkgs/issues/296179
  #
  # This is a quick hack to add `libnvrtc` to the runpath so that torch can find
  # it when it is needed at runtime.
  extraRunpaths = lib.optionals cudaSupport [ "${lib.getLib cudaPackages.cuda_nvrtc}/lib" ];
  postPhases = lib.optionals stdenv.hostPlatform.isLinux [ "postPatchelfPhase" ];
  postPatchelfPhase = ''
    while IFS= read -r -d $'\0' elf ; do
      for extra in $extraRunpaths ; do
        echo patchelf "$elf" --add-rpath "$extra" >&2
        patchelf "$elf" --add-rpath "$extra"
      done
    done < <(
      find "''${!outputLib}" "$out" -type f -iname '*.so' -print0
    )
  '';

  # Builds in 2+h with 2 cores, and ~15m with a big-parallel builder.
  requiredSystemFeatures = [ "big-parallel" ];

  outputs = [
    "out" # output standard python package
    "dev" # output libtorch headers
    "lib" # output libtorch libraries
    "cxxdev" # propagated deps for the cmake consumers of torch
  ];
  cudaPropagateToOutput = "cxxdev";

  passthru = {
    inherit
      cudaSupport
      cudaPackages
      rocmSupport
      rocmPackages
      unroll-src
      ;
    cudaCapabilities = if cudaSupport then supportedCudaCapabilities else [ ];
    # At least for 1.10.2 `torch.fft` is unavailable unless BLAS provider is MKL. This attribute allows for easy detection of its availability.
    blasProvider = blas.provider;
    # To help debug when a package is broken due to CUDA support
    inherit brokenConditions;
    tests = { };
  };

  meta = {
    changelog = "https://github.com/pytorch/pytorch/releases/tag/v${version}";
    # keep PyTorch in the description so the package can be found under that name on search.nixos.org
    description = "PyTorch: Tensors and Dynamic neural networks in Python with strong GPU acceleration";
    homepage = "https://pytorch.org/";
    license = lib.licenses.bsd3;
    maintainers = [ ];
    platforms =
      lib.platforms.linux ++ lib.optionals (!cudaSupport && !rocmSupport) lib.platforms.darwin;
    broken = builtins.any trivial.id (builtins.attrValues brokenConditions);
  };

  common = {
    pname = "torch";
    pyproject = true;
    inherit outputs cudaPropagateToOutput src patches postPatch preConfigure
      dontUseCmakeConfigure hardeningDisable preBuild cmakeFlags nativeBuildInputs buildInputs
      pythonRelaxDeps dependencies propagatedCxxBuildInputs doCheck pythonImportsCheck
      nativeCheckInputs postInstall postFixup extraRunpaths postPhases postPatchelfPhase
      requiredSystemFeatures passthru meta;
  }
  // lib.optionalAttrs is280 { inherit pythonRemoveDeps; };
in
if form == "2.8.0" then
  # 01728bad: `buildPythonPackage rec { ... stdenv = stdenv'; ... }`
  buildPythonPackage (common // {
    inherit version;
    stdenv = stdenv';
    env = envBlock;
  } // switches version (setBool useSystemNccl))
else if form == "2.9.1" then
  # 6b516b42: `buildPythonPackage.override { inherit stdenv; } rec { ... }`
  (buildPythonPackage.override { inherit stdenv; }) (common // {
    inherit version;
    env = envBlock;
  } // switches version (setBool useSystemNccl))
else
  # Later layout: finalAttrs, every switch in `env`.
  (buildPythonPackage.override { inherit stdenv; }) (finalAttrs: common // {
    inherit version;
    env = switches finalAttrs.version finalAttrs.env.USE_NCCL // envBlock;
  })
