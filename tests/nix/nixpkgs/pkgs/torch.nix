# Mimics pkgs/development/python-modules/torch: the argument list is exactly
# the one DOMAIN.md §3 gives and has no `...`, so `torch.override` with an
# undeclared argument fails just like it does against real nixpkgs.
{
  stdenv,
  lib,
  fetchFromGitHub,
  buildPythonPackage,
  python,
  config,
  cudaSupport ? config.cudaSupport,
  cudaPackages,
  gpuTargets ? [ ],
  rocmSupport ? false,
  MPISupport ? false,
  mklDnnSupport ? true,
  tritonSupport ? cudaSupport,
  useSystemNccl ? true,
  blas,
  magma,
  effectiveMagma ? magma,
  vulkanSupport ? false,
  cmake,
  ninja,
  numpy,
  pyyaml,
  six,
  which,
  pybind11,
  setuptools,
  sympy,
  typing-extensions,
  triton,
  pillow,
  protobuf,
}:
let
  setBool = v: if v then "1" else "0";

  # Forcing torch's CUDA side must run nixpkgs' checks: the unfree refusal
  # (via a CUDA package) and the cudaCapabilities assertions (via flags),
  # even when gpuTargets / passthru.cudaCapabilities are overridden.
  cudaChecked = x:
    if cudaSupport then
      builtins.deepSeq [ cudaPackages.cudatoolkit.pname cudaPackages.flags.cudaCapabilities ] x
    else x;

  cudaCapabilities = if cudaSupport then cudaChecked cudaPackages.flags.cudaCapabilities else [ ];
  gpuTargetString = lib.concatStringsSep ";" (
    if gpuTargets != [ ] then gpuTargets
    else if cudaSupport then cudaCapabilities
    else throw "No GPU targets specified"
  );
in
assert lib.assertMsg (!(cudaSupport && rocmSupport)) "torch: cudaSupport and rocmSupport are mutually exclusive";
buildPythonPackage rec {
  pname = "torch";
  version = "2.8.0";
  pyproject = true;

  src = fetchFromGitHub {
    owner = "pytorch";
    repo = "pytorch";
    tag = "v${version}";
    fetchSubmodules = true;
    hash = "sha256-0000000000000000000000000000000000000000000=";
  };

  ${if cudaSupport then "TORCH_CUDA_ARCH_LIST" else null} = cudaChecked gpuTargetString;
  ${if rocmSupport then "PYTORCH_ROCM_ARCH" else null} = gpuTargetString;

  USE_CUDA = setBool cudaSupport;
  USE_CUDNN = setBool cudaSupport;
  USE_ROCM = setBool rocmSupport;
  USE_MKLDNN = setBool mklDnnSupport;
  USE_MKLDNN_CBLAS = setBool mklDnnSupport;
  USE_MPI = setBool MPISupport;
  USE_NCCL = setBool (cudaSupport || rocmSupport);
  USE_SYSTEM_NCCL = setBool (useSystemNccl && (cudaSupport || rocmSupport));
  USE_VULKAN = setBool vulkanSupport;
  USE_TRITON = setBool tritonSupport;
  BLAS = blas.provider.pname or "unknown";

  preConfigure = ''
    export CMAKE_ARGS="-DCMAKE_INSTALL_LIBDIR=lib"
  '';
  # As in current nixpkgs: the job count is set right before setup.py runs.
  preBuild = ''
    export MAX_JOBS=$NIX_BUILD_CORES
    python setup.py build --cmake-only
  '';
  postInstall = "";

  nativeBuildInputs = [ cmake ninja which pybind11 setuptools ]
    ++ lib.optionals cudaSupport (cudaChecked [ cudaPackages.cuda_nvcc ]);

  buildInputs = [ blas blas.provider ]
    ++ lib.optionals (cudaSupport || rocmSupport) [ effectiveMagma ]
    ++ lib.optionals cudaSupport (cudaChecked (
      [ cudaPackages.cuda_cudart cudaPackages.libcublas cudaPackages.libcufft
        cudaPackages.libcurand cudaPackages.libcusolver cudaPackages.libcusparse
        cudaPackages.cudnn ]
      ++ lib.optional useSystemNccl cudaPackages.nccl));

  dependencies = [ numpy pyyaml six sympy typing-extensions pillow protobuf ]
    ++ lib.optional tritonSupport triton;

  passthru = {
    inherit cudaSupport cudaPackages rocmSupport gpuTargets;
    inherit cudaCapabilities;
    blasProvider = blas.provider.pname or "unknown";
  };

  meta = {
    description = "PyTorch: Tensors and Dynamic neural networks in Python with strong GPU acceleration";
    homepage = "https://pytorch.org/";
    license = lib.licenses.bsd3;
    maintainers = [ ];
    platforms = lib.platforms.linux ++ lib.platforms.darwin;
  };
}
