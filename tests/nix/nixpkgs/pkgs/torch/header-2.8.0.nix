# torch's callPackage header, argument for argument (comments dropped), as read from
# LunNova/nixpkgs@01728bade51f97728445929b720e140accad4936
# (pkgs/development/python-modules/torch/source/default.nix, torch 2.8.0), the 2.8.0 text
# nearest to fe5e41d that could be read; NixOS/nixpkgs at fe5e41d itself is not stored.
# It differs from 6b516b42 (2.9.1): useSystemNccl uses meta.unsupported, no
# targetPackages, apple-sdk_13 and openssl both, fetchpatch, magmaSupport.
# magmaSupport's ROCm-7 condition may be the fork's own (LunNova works on ROCm); it is
# kept as read, and no recipe passes it.
# No `...`: an override with an undeclared argument fails exactly as against real
# nixpkgs (e.g. numpy, setuptools).
rev:
{
  stdenv,
  lib,
  fetchFromGitHub,
  fetchFromGitLab,
  fetchpatch,
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
  useSystemNccl ? (cudaSupport && !cudaPackages.nccl.meta.unsupported || rocmSupport),
  MPISupport ? false,
  mpi,
  buildDocs ? false,
  callPackage,
  cmake,
  symlinkJoin,
  which,
  pybind11,
  pkg-config,
  removeReferencesTo,
  apple-sdk_13,
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
  magmaSupport ? (cudaSupport || (rocmSupport && (lib.versionOlder rocmPackages.clr.version "7"))),
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
  inherit cudaSupport effectiveMagma useSystemNccl MPISupport buildDocs magmaSupport tritonSupport
    _tritonEffective mklDnnSupport rocmSupport gpuTargets vulkanSupport;
  targetPackages = null;
})
