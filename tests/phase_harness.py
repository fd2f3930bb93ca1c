"""The first phases of a torch recipe's build, run for real: nix-build builds
tests/fixtures/pytorch-source/patch-phase.nix (unpack and patch, then preConfigure for
`configure`) over a skeletal source tree, offline, unsandboxed, on the host's tools. Shared
by the tests of the patch phase and of the build fixes."""

from __future__ import annotations

import shutil
import subprocess
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import main

from conftest import REPO

SOURCES = REPO / "tests" / "fixtures" / "pytorch-source"
PHASE = SOURCES / "patch-phase.nix"
FAKES = REPO / "tests" / "nix" / "fakes.nix"
# What the phases call: the builder's own commands, and those of the pins' postPatch and of
# gen-matrix's preConfigure (awk reads the free memory, ln makes the CCCL links).
TOOLS = ["awk", "bash", "basename", "cat", "chmod", "cp", "env", "ln", "mkdir", "patch", "rm", "sed"]
NIX_BUILD = shutil.which("nix-build")

needs_nix_build = pytest.mark.skipif(NIX_BUILD is None, reason="nix-build not found: install nix-bin")


def host_path() -> str:
    """The folders of the host tools the phases call, as PATH; skips the test where one is missing."""
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"the build phases need {', '.join(missing)} on this machine")
    return ":".join(dict.fromkeys(str(Path(shutil.which(tool)).parent) for tool in TOOLS))


def fake_nixpkgs(rev: str) -> str:
    """The Nix expression of the test package set that impersonates nixpkgs `rev` on x86_64-linux."""
    return f'(import {FAKES})."{rev}"."x86_64-linux"'


def torch_recipe(root: Path, matrix: str) -> Path:
    """The recipe gen-matrix writes in `root` for a matrix of one torch variant."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "matrix.yaml").write_text(matrix)
    result = CliRunner().invoke(main, ["--root", str(root)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    (recipe,) = (root / ".flox" / "pkgs").glob("pytorch-*.nix")
    return recipe


def phase_args(recipe: Path, nixpkgs: str, tree: Path, tools: str) -> list[str]:
    return ["--arg", "recipe", str(recipe), "--arg", "nixpkgs", nixpkgs, "--arg", "tree", str(tree),
            "--argstr", "bash", shutil.which("bash"), "--argstr", "path", tools]


def build(args: list[str], attribute: str = "phase", post_patch_file: Path | None = None):
    """nix-build an attribute of patch-phase.nix, offline: (exit code, build log, output or None)."""
    extra = ["--arg", "postPatchFile", str(post_patch_file)] if post_patch_file else []
    extra += ["--argstr", "run", uuid.uuid4().hex]
    result = subprocess.run(
        [NIX_BUILD, str(PHASE), "-A", attribute, "--no-out-link", "--option", "substituters", "",
         "--option", "sandbox", "false", *args, *extra],
        capture_output=True, text=True)
    out = Path(result.stdout.strip()) if result.returncode == 0 else None
    return result.returncode, result.stderr, out
