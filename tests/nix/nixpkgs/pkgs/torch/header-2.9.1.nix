# torch's callPackage header as read from nixpkgs 6b516b42dd0f19e2ab9c9dd391cd40752a9dc096
# (pkgs/development/python-modules/torch/source/default.nix, torch 2.9.1), argument
# for argument (comments dropped). No `...`: an override with an undeclared
# argument fails exactly as against real nixpkgs (e.g. numpy, setuptools).
rev:
{
  stdenv,
  lib,
  fetchFromGitHub,
  fetchFromGitLab,
  git-unroll,
  buildPythonPackage,
  python,
  runCommand,
  writeShellScript,
  config,
  cudaSupport ? config.cudaSupport,
  cudaPackages,
  autoAddDriverRunpath,
  effectiveMagma ?
    if cudaSupport then
      magma-cuda-static
    else if rocmSupport then
      magma-hip
    else
      magma,
  magma,
  magma-hip,
  magma-cuda-static,
  useSystemNccl ? (cudaSupport && cudaPackages.nccl.meta.available || rocmSupport),
  MPISupport ? false,
  mpi,
  buildDocs ? false,
  targetPackages,
  callPackage,
  cmake,
  symlinkJoin,
  which,
  pybind11,
  pkg-config,
  removeReferencesTo,
  openssl,
  numactl,
  llvmPackages,
  astunparse,
  binutils,
  expecttest,
  filelock,
  fsspec,
  hypothesis,
  jinja2,
  networkx,
  packaging,
  psutil,
  pyyaml,
  requests,
  sympy,
  types-dataclasses,
  typing-extensions,
  tritonSupport ? (!stdenv.hostPlatform.isDarwin),
  triton,
  _tritonEffective ? if cudaSupport then triton-cuda else triton,
  triton-cuda,
  mklDnnSupport ? !(stdenv.hostPlatform.isDarwin && stdenv.hostPlatform.isAarch64),
  blas,
  ninja,
  pillow,
  six,
  tensorboard,
  protobuf,
  rocmSupport ? config.rocmSupport,
  rocmPackages,
  gpuTargets ? [ ],
  vulkanSupport ? false,
  vulkan-headers,
  vulkan-loader,
  shaderc,
}@args:
import ./body.nix rev (args // {
  inherit cudaSupport effectiveMagma useSystemNccl MPISupport buildDocs tritonSupport
    _tritonEffective mklDnnSupport rocmSupport gpuTargets vulkanSupport;
  apple-sdk_13 = null;
})
