# What differs between the nixpkgs revisions this fake impersonates.
# Select one with `import ./tests/nix/nixpkgs { revision = "0182a36"; ... }`
# (or import ./tests/nix/nixpkgs-<rev>[-<system>]).
#
# Sources (see ../README.md): nixpkgs' pkgs/development/python-modules/torch/
# source/default.nix was read at 00d0ced3 (torch 2.7.1) and 6b516b42 (torch
# 2.9.1); none of the four pins below is stored in a readable form, so each
# pin borrows the expression "form" closest to it:
#   torchForm "2.7.1": header/body as read at 00d0ced (used for fe5e41d, whose
#                      torch 2.8.0 lies between 2.7.1 and 2.9.1);
#   torchForm "2.9.1": header/body as read at 6b516b42;
#   torchForm "env":   the 6b516b42 header, but the build switches live in
#                      `env` and the package uses `finalAttrs` (the layout of
#                      later nixpkgs, read from an unattributed newer copy of the
#                      file; DOMAIN.md §6: "Newer nixpkgs moves
#                      PYTORCH_BUILD_VERSION into env").
# CUDA sets: late-2025 cuda-packages copies list 12_6 (12.6.3), 12_8 (12.8.1,
# the default `cudaPackages_12`), 12_9 (12.9.1), 13_0 (13.0.x); 13_1 only on
# the newest pin (the reference recipes use `cudaPackages_13_1` at 2017d6d and
# `cudaPackages_13` at 6a030d5 for CUDA 13.0).
# Source hashes are stand-ins (hex sha256 of "fake:<owner>/<repo>@<tag>"),
# computed where the package is defined.
let
  cuda2025 = { "12_6" = "12.6.3"; "12_8" = "12.8.1"; "12_9" = "12.9.1"; "13_0" = "13.0.2"; };
in
{
  # github:NixOS/nixpkgs/fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3 — torch 2.8.0
  # (matrix.yaml / reference main branch; nixpkgs#431973 2.7.1 -> 2.8.0 merged
  # 2025-08-31, nixpkgs#456704 2.8.0 -> 2.9.0 opened 2025-10-29).
  fe5e41d = {
    rev = "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3";
    torchForm = "2.7.1";
    torch = { version = "2.8.0"; };
    torchvision = { version = "0.23.0"; };
    torchaudio = { version = "2.8.0"; };
    cuda = cuda2025;
    cudaPackages_13 = null;
    magmaPatches = [ ];
  };

  # github:NixOS/nixpkgs/0182a361324364ae3f436a63005877674cf45efb — torch 2.9.1
  # (reference 2.10 branch: "pin 0182a36 has 2.9.1 natively"), used for CUDA
  # 12.8 / 12.9 (and 13.0 on the 2.9-python313 branch, via cudaPackages_13_0).
  "0182a36" = {
    rev = "0182a361324364ae3f436a63005877674cf45efb";
    torchForm = "2.9.1";
    torch = { version = "2.9.1"; };
    torchvision = { version = "0.24.1"; };
    torchaudio = { version = "2.9.1"; };
    cuda = cuda2025;
    cudaPackages_13 = null;
    magmaPatches = [ ];
  };

  # github:NixOS/nixpkgs/6a030d535719c5190187c4cec156f335e95e3211 — torch 2.9.1
  # (benchmarks/bench.py; reference darwin recipe: "nixpkgs only has 2.9.1"),
  # used for CUDA 13.0 (`cudaPackages_13`), CPU and Darwin.
  "6a030d5" = {
    rev = "6a030d535719c5190187c4cec156f335e95e3211";
    torchForm = "2.9.1";
    torch = { version = "2.9.1"; };
    torchvision = { version = "0.24.1"; };
    torchaudio = { version = "2.9.1"; };
    cuda = cuda2025;
    cudaPackages_13 = "13_0";
    magmaPatches = [ ];
  };

  # github:NixOS/nixpkgs/2017d6d515f8a7b289fe06d3a880a7ec588c3900 — newest pin,
  # used for CUDA 13.1. Its magma already carries a CUDA 13 fix
  # ("fix-cuda13-compat.patch", reference commit d395449; nixpkgs#487064,
  # merged Feb 2026). Torch there still needed allowBroken for CUDA 13 in the
  # reference recipes, so "Unsupported CUDA version" keeps [ "11" "12" ].
  "2017d6d" = {
    rev = "2017d6d515f8a7b289fe06d3a880a7ec588c3900";
    torchForm = "env";
    torch = { version = "2.9.1"; };
    torchvision = { version = "0.24.1"; };
    torchaudio = { version = "2.9.1"; };
    cuda = cuda2025 // { "13_1" = "13.1.1"; };
    cudaPackages_13 = "13_1";
    magmaPatches = [ "fix-cuda13-compat.patch" ];
  };
}
