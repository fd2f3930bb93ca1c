# What differs between the nixpkgs revisions this fake impersonates.
# Select one with `import ./tests/nix/nixpkgs { revision = "0182a36"; ... }`
# (or import ./tests/nix/nixpkgs-<rev>[-<system>]).
#
# None of the four pins is stored in a readable form: NixOS/nixpkgs' files are
# readable at other commits only. ../README.md has the table of every fact, the
# repository and commit it was read from, and what stays inferred. In short:
#   torchForm "2.8.0": torch's text as read at LunNova/nixpkgs@01728bad (torch
#                      2.8.0, a fork; the 2.8.0 text nearest to fe5e41d);
#   torchForm "2.9.1": torch's text as read at NixOS/nixpkgs@6b516b42 (torch 2.9.1);
#   torchForm "env":   the 6b516b42 header, but the build switches live in `env`
#                      and the package uses `finalAttrs` (INFERRED: the layout of
#                      later nixpkgs, e.g. NixOS/nixpkgs' stored torch 2.13.0 text
#                      uses finalAttrs; 2017d6d's own text was not read).
# Versions: torch per pin from the reference repository barstoolbluz/build-pytorch
# (commit f7b60e9 "Update pinned nixpkgs from fe5e41d7ffc0... (PyTorch 2.8.0) to
# 6a030d535719... (PyTorch 2.9.1)"; 2.10 recipes "pin 0182a36 has 2.9.1 natively";
# 2017d6d recipes overlay torch to 2.10.0, so the pin has none). torchvision from
# barstoolbluz/build-torchvision's README (fe5e41d: 0.23.0; "6a030d5 which provides
# TorchVision 0.24.0"); at 0182a36 and 2017d6d INFERRED equal to 6a030d5 (same torch).
# torchaudio: 2.8.0 at fe5e41d (NixOS/nixpkgs#456704 lists "torchaudio: 2.8.0 -> 2.9.0" and
# "torchvision: 0.23.0 -> 0.24.0" beside torch 2.8.0 -> 2.9.0); 2.9.0 at the
# 2.9.1 pins is INFERRED: NixOS/nixpkgs#456704 moved torch, torchaudio and torchvision
# together to 2.9.0 / 0.24.0, and torchvision staying 0.24.0 at 6a030d5 says the move to
# torch 2.9.1 left the companions where they were. torchaudio 2.11.0, the first that depends on
# torchcodec (SuperSandro2000/nixpkgs@25adaccf), came after every pin here.
# CUDA sets: INFERRED from late-2025 cuda-packages copies and the reference recipes
# (cudaPackages_13_1 at 2017d6d, cudaPackages_13 at 6a030d5 for CUDA 13.0).
# Source hashes are stand-ins (hex sha256 of "fake:<owner>/<repo>@<tag>"),
# computed where the package is defined.
let
  # magma's patches (names from pkgs/magma/default.nix, each under the condition its text
  # gives it) and whether its preConfigure runs `make generate`. Read at
  # NixOS/nixpkgs@06b5cdf2 (CMake 4 patch, the two ROCm 7 patches, make generate) and
  # anund/nixpkgs@2b406e68, Swarsel/nixpkgs@4aa6836a (those and the CUDA 13 patch,
  # NixOS/nixpkgs#487064, opened 2026-02-04, backported to 25.11 by #487182 the day after).
  # Which form each pin has is INFERRED from the dates: ../README.md has the reasons.
  magmaCmake4 = { patches = [ "drop-cmp0037-old.patch" ]; generate = false; };
  magmaRocm7 = {
    patches = [ "drop-cmp0037-old.patch" "magma-ROCm-7.0-compat.patch" "magma-hipblas-v2-buildflags.patch" ];
    generate = true;
  };
  magmaCuda13 = {
    patches = [ "drop-cmp0037-old.patch" "fix-cuda13-compat.patch" "magma-ROCm-7.0-compat.patch" "magma-hipblas-v2-buildflags.patch" ];
    generate = true;
  };
  cuda2025 = { "12_6" = "12.6.3"; "12_8" = "12.8.1"; "12_9" = "12.9.1"; "13_0" = "13.0.2"; };
in
{
  # github:NixOS/nixpkgs/fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3 — torch 2.8.0
  # (barstoolbluz/build-pytorch f7b60e9), so between NixOS/nixpkgs#431973 (2.7.1 ->
  # 2.8.0, reviewed 2025-08-28) and NixOS/nixpkgs#456704 (2.8.0 -> 2.9.0, opened
  # 2025-10-29). cudaPackages has `cusparselt` (torch's 2.8.0 text reads it).
  fe5e41d = {
    rev = "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3";
    torchForm = "2.8.0";
    cudaComponents = [ "cusparselt" ];
    torch = { version = "2.8.0"; };
    torchvision = { version = "0.23.0"; };
    torchaudio = { version = "2.8.0"; };
    cuda = cuda2025;
    cudaPackages_13 = null;
    # INFERRED: the pin falls between 2025-08-28 and 2025-10-29, mostly after the CMake 4
    # bump that NixOS/nixpkgs#444478 (2025-09-20) answered with this patch.
    magma = magmaCmake4;
  };

  # github:NixOS/nixpkgs/0182a361324364ae3f436a63005877674cf45efb — nixos-unstable,
  # lastModified 1771369470 (2026-02-17), narHash
  # sha256-0NBlEBKkN3lufyvFegY4TYv5mCNHbi5OmBDrzihbBMQ= (a flake.lock in the index);
  # torch 2.9.1 (barstoolbluz/build-pytorch 2.10 recipes: "pin 0182a36 has 2.9.1
  # natively"; commit 8eb1968 "align nixpkgs pin ... (0182a36) for PyTorch 2.9.1").
  "0182a36" = {
    rev = "0182a361324364ae3f436a63005877674cf45efb";
    torchForm = "2.9.1";
    torch = { version = "2.9.1"; };
    torchvision = { version = "0.24.0"; };
    torchaudio = { version = "2.9.0"; };
    cuda = cuda2025;
    cudaPackages_13 = null;
    # INFERRED: nixos-unstable twelve days after NixOS/nixpkgs#487064 reached master.
    magma = magmaCuda13;
  };

  # github:NixOS/nixpkgs/6a030d535719c5190187c4cec156f335e95e3211 — torch 2.9.1,
  # torchvision 0.24.0 (barstoolbluz/build-pytorch f7b60e9, first used 2026-02-03;
  # barstoolbluz/build-torchvision README), used for CUDA 13.0 (`cudaPackages_13`),
  # CPU and Darwin.
  "6a030d5" = {
    rev = "6a030d535719c5190187c4cec156f335e95e3211";
    torchForm = "2.9.1";
    torch = { version = "2.9.1"; };
    torchvision = { version = "0.24.0"; };
    torchaudio = { version = "2.9.0"; };
    cuda = cuda2025;
    cudaPackages_13 = "13_0";
    # Before NixOS/nixpkgs#487064 (opened 2026-02-04): the reference's CUDA 13.0 recipes
    # on this pin patch magma themselves. The ROCm 7 form is INFERRED.
    magma = magmaRocm7;
  };

  # github:NixOS/nixpkgs/2017d6d515f8a7b289fe06d3a880a7ec588c3900 — first used by
  # barstoolbluz/build-pytorch on 2026-02-22 (ff9732b, CUDA 13.1.1 variants), used
  # for CUDA 13.1. Its magma builds with CUDA 13.1 unpatched (the reference's 13.1
  # recipes: "MAGMA: Uses nixpkgs CUDA 13.1 with built-in compatibility fix", while
  # its 13.0 recipes on 6a030d5 patch magma): NixOS/nixpkgs#487064's patch, in the form
  # anund/nixpkgs@2b406e68 and Swarsel/nixpkgs@4aa6836a have (INFERRED: no magma text
  # at 2017d6d was read).
  # Torch there still needs allowBroken for CUDA 13 in the reference recipes, so
  # "Unsupported CUDA version" keeps [ "11" "12" ].
  "2017d6d" = {
    rev = "2017d6d515f8a7b289fe06d3a880a7ec588c3900";
    torchForm = "env";
    torch = { version = "2.9.1"; };
    torchvision = { version = "0.24.0"; };
    torchaudio = { version = "2.9.0"; };
    cuda = cuda2025 // { "13_1" = "13.1.1"; };
    cudaPackages_13 = "13_1";
    magma = magmaCuda13;
  };
}
