"""release.nix, the generated entry point for a Nix CI other than the workflow: evaluated by
the real nix-instantiate on each system of a matrix of two pins, against the test package
set of each pin's revision, it lists every variant of that system as a job, with the
drvPaths its recipe gives evaluated alone, and the system features the matrix asks for."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import NIX_INSTANTIATE, drv_paths, expansion_of, needs_nix
from test_rebuild_two_pins import MATRIX, NEWER, OLDER, package_set

# The two-pin matrix with an aarch64-linux CPU variant (on the newer pin) and system features.
WIDER = MATRIX.replace('  isa: [avx2]\n', '  isa: [avx2, armv8_2]\n') + \
    "build:\n  system_features: [big-parallel, cuda]\n"


def jobs(root: Path, system: str, sets: str) -> dict:
    expression = (f"builtins.mapAttrs (name: job: {{ wrapper = job.drvPath; build = job.unwrapped.drvPath; "
                  f"features = job.unwrapped.requiredSystemFeatures; }}) "
                  f"(import {root / 'release.nix'} {{ nixpkgs = {sets}; }})")
    done = subprocess.run([NIX_INSTANTIATE, "--eval", "--strict", "--json", "--option", "system", system,
                           "--expr", expression], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@needs_nix
@pytest.mark.slow
def test_release_nix_lists_each_systems_variants_with_their_recipes_derivations(tmp_path, run):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "matrix.yaml").write_text(WIDER)
    assert run("--root", root).exit_code == 0
    expansion = expansion_of(root)
    systems = {v.system for v in expansion.variants}
    assert systems == {"x86_64-linux", "aarch64-linux"} and len(expansion.matrix.pins) == 2
    # Each pin's package set impersonates its revision on the system Nix evaluates for.
    sets = (f"{{ older = {package_set(tmp_path / 'older', OLDER[:7])}; "
            f"newer = {package_set(tmp_path / 'newer', NEWER[:7])}; }}")
    alone = drv_paths(root)  # each recipe by itself, against its pin's package set for its system
    listed = {}
    for system in sorted(systems):
        found = jobs(root, system, sets)
        assert set(found) == {v.name for v in expansion.variants if v.system == system}
        listed.update(found)
    assert {name: {"wrapper": job["wrapper"], "build": job["build"]} for name, job in listed.items()} == alone
    assert len({job["build"] for job in listed.values()}) == len(listed)
    assert all(job["features"] == ["big-parallel", "cuda"] for job in listed.values())
