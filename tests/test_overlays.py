"""Overlays declared in matrix.yaml: a PyTorch source, dependency patches, nixpkgs config."""

from __future__ import annotations

import pytest

from conftest import FAKE_NIXPKGS, needs_nix, nix_eval, nix_string

TORCH_HASH = "sha256-" + "A" * 43 + "="
PATCH_HASH = "sha256-" + "B" * 43 + "="
# `${` must reach Nix as text, not as an interpolation.
PATCH_URL = "https://example.org/magma/cuda13-${fix}.patch"

MATRIX = f"""\
pytorch:
  version: "2.9.0"
  source: {{rev: v2.9.0, hash: "{TORCH_HASH}"}}
nixpkgs:
  rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3
  config: {{cudaForwardCompat: false, allowBroken: true}}
  patches:
    magma:
      - {{url: "{PATCH_URL}", hash: "{PATCH_HASH}"}}
gpu: {{python: ["3.13"], cuda: ["12.8"], sm: [sm61, sm90], isa: [avx2]}}
cpu: {{python: ["3.13"], isa: [avx2]}}
companions:
  - packages: [torchvision]
    when: {{sm: sm61}}
"""


@pytest.fixture
def overlaid(project, run):
    (project / "matrix.yaml").write_text(MATRIX)
    result = run("--root", project)
    assert result.exit_code == 0, result.output
    return project


def test_overlays_are_written_once_into_the_shared_file(overlaid):
    shared = (overlaid / "nix" / "nixpkgs.nix").read_text()
    assert shared.count(TORCH_HASH) == 1 and shared.count(PATCH_HASH) == 1
    assert "extraConfig = { \"allowBroken\" = true; \"cudaForwardCompat\" = false; };" in shared
    for recipe in (overlaid / ".flox" / "pkgs").glob("*.nix"):
        text = recipe.read_text()
        assert TORCH_HASH not in text and PATCH_HASH not in text and "cudaForwardCompat" not in text


@needs_nix
def test_recipes_build_the_declared_source_with_the_patches(overlaid):
    fake = nix_string(FAKE_NIXPKGS)
    pkgs = overlaid / ".flox" / "pkgs"
    result = nix_eval(f"""
      let
        torch = import {nix_string(pkgs / "pytorch-python313-cuda12_8-sm90-avx2.nix")} {{ genMatrixNixpkgs = {fake}; }};
        vision = import {nix_string(pkgs / "torchvision-python313-cuda12_8-sm61-avx2.nix")} {{ genMatrixNixpkgs = {fake}; }};
        cpu = import {nix_string(pkgs / "pytorch-python313-cpu-avx2.nix")} {{ genMatrixNixpkgs = {fake}; }};
        magma = builtins.head (builtins.filter (p: (p.pname or "") == "magma") torch.buildInputs);
      in {{
        version = torch.version;
        src = {{ inherit (torch.src) rev owner repo outputHash fetchSubmodules; }};
        arch = torch.TORCH_CUDA_ARCH_LIST;
        patches = map (p: {{ inherit (p) urls outputHash; }}) magma.patches;
        forwardCompat = torch.passthru.cudaPackages.flags.cudaForwardCompat;
        visionTorch = vision.passthru.torch.version;
        visionArch = vision.TORCH_CUDA_ARCH_LIST;
        cpuVersion = cpu.version;
        cpuSrc = cpu.src.rev;
      }}
    """)
    assert result == {
        "version": "2.9.0",
        "src": {"rev": "v2.9.0", "owner": "pytorch", "repo": "pytorch", "outputHash": TORCH_HASH,
                "fetchSubmodules": True},
        "arch": "9.0",
        "patches": [{"urls": [PATCH_URL], "outputHash": PATCH_HASH}],
        "forwardCompat": False,
        "visionTorch": "2.9.0",
        "visionArch": "6.1",
        "cpuVersion": "2.9.0",
        "cpuSrc": "v2.9.0",
    }


@needs_nix
def test_without_overlays_the_pinned_torch_is_used(project, run):
    assert run("--root", project).exit_code == 0
    fake = nix_string(FAKE_NIXPKGS)
    recipe = project / ".flox" / "pkgs" / "pytorch-python313-cuda12_8-sm90-avx2.nix"
    assert nix_eval(f"""
      let torch = import {nix_string(recipe)} {{ genMatrixNixpkgs = {fake}; }};
      in [ torch.version torch.src.tag torch.passthru.cudaPackages.flags.cudaForwardCompat ]
    """) == ["2.8.0", "v2.8.0", True]


def test_config_gen_matrix_sets_itself_is_a_located_error(project, run):
    (project / "matrix.yaml").write_text(MATRIX.replace("allowBroken: true", "allowUnfree: false"))
    result = run("--root", project)
    assert result.exit_code == 2
    assert "matrix.yaml:6:" in result.stderr and "nixpkgs.config.allowUnfree is set by gen-matrix" in result.stderr
    assert not (project / "nix").exists()


@pytest.mark.parametrize("old, new, message", [
    (TORCH_HASH, "sha256-short", "pytorch.source.hash: 'sha256-short' is not valid"),
    ("magma:", "magma pkgs:", "nixpkgs.patches"),
    ("rev: v2.9.0, ", "", "pytorch.source lacks the key 'rev'"),
])
def test_bad_overlay_values_are_errors(project, run, old, new, message):
    (project / "matrix.yaml").write_text(MATRIX.replace(old, new))
    result = run("--root", project)
    assert result.exit_code == 2 and message in result.stderr and "matrix.yaml:" in result.stderr
