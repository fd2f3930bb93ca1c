"""A rehearsal of a new user's first run: gen-matrix installed from its wheel, outside this
tree, makes a repository with `init`; the user follows what init printed (lock the Flox
environment, commit, push); then the repository's own workflow runs, every `run:` step of
the plan job and of the build jobs, with stand-ins only for flox, Nix's builds and GitHub
(tests/workflow_harness.py). The gen-matrix the jobs run is the one the Flox environment
gives, which the stand-in gives only where the manifest pins it to a commit.

The wheel is built as the release workflow builds it: with generator/release.json naming
the repository and commit it was built from, which is where a matrix repository's
gen-matrix comes from unless its matrix says otherwise.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
import yaml

from conftest import RELEASE_FILE, REPO, needs_nix, needs_posix
from workflow_harness import Harness

pytestmark = [pytest.mark.slow, needs_nix, needs_posix("the venv's scripts and the workflow's bash steps"),
              pytest.mark.skipif(shutil.which("git") is None, reason="init and the workflow need git")]

HOSTS = REPO / "tests" / "fixtures" / "hosts"
TEST_NIX = REPO / "tests" / "nix"


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout.strip()


def package_sets(matrix: dict) -> str:
    """GEN_MATRIX_NIXPKGS for the repository's pins: each pin's test package set."""
    pins = matrix["nixpkgs"].get("pins") or [dict(matrix["nixpkgs"], name="default")]
    return " ".join(f"{pin['name']}={TEST_NIX / ('nixpkgs-' + pin['rev'][:7])}" for pin in pins)


def test_a_repository_made_by_init_from_the_wheel_passes_its_first_run(dists, installed, tmp_path):
    release = json.loads(zipfile.ZipFile(dists[0]).read(RELEASE_FILE))  # what the release workflow wrote
    installed = installed / "gen-matrix"
    host = HOSTS / "ryzen5950x-rtx3090"
    outside = tmp_path / "laptop"
    outside.mkdir()
    env = {key: value for key, value in os.environ.items() if not key.startswith(("GIT_", "PYTHON"))}
    env.update(HOME=str(outside), GIT_CONFIG_NOSYSTEM="1")
    made = subprocess.run([str(installed), "init", "builds", "--detect", "--uname", (host / "uname").read_text().strip(),
                           "--cpuinfo", str(host / "cpuinfo"), "--nvidia-smi-output", str(host / "nvidia-smi.csv")],
                          cwd=outside, env=env, capture_output=True, text=True)
    assert made.returncode == 0, made.stdout + made.stderr
    work = outside / "builds"
    matrix = yaml.safe_load((work / "matrix.yaml").read_text())
    flake = f"github:{release['repository']}/{release['rev']}"
    assert matrix["ci"]["gen_matrix"] == flake  # the commit the release was built from
    assert f'gen-matrix.flake = "{flake}"' in (work / ".flox/env/manifest.toml").read_text()
    branch = git(work, "symbolic-ref", "--short", "HEAD")
    assert branch == matrix.get("ci", {}).get("main_branch", "main") and git(work, "log", "--oneline")
    assert git(work, "status", "--porcelain") == ""
    checked = subprocess.run([str(installed), "check"], cwd=work, env=env, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr

    # What init printed: lock the Flox environment and commit the lock; then push.
    harness = Harness(tmp_path / "ci", tmp_path / "origin.git")
    git(tmp_path, "init", "-q", "--bare", str(harness.origin))
    assert "manifest.lock" in made.stdout
    harness.lock(work)
    git(work, "add", ".flox/env/manifest.lock")
    git(work, "-c", "user.name=Dev", "-c", "user.email=dev@example.invalid", "commit", "-q", "-m", "Lock")
    git(work, "remote", "add", "origin", str(harness.origin))
    git(work, "push", "-q", "origin", f"HEAD:refs/heads/{branch}")
    sha = git(work, "rev-parse", "HEAD")

    for path in (".github/workflows/flox-variants.yml", ".github/workflows/flox-variants-build.yml"):
        text = (work / path).read_text()
        assert "pip install" not in text  # gen-matrix comes from the pinned Flox environment only

    done = harness.run("push", sha, ref=f"refs/heads/{branch}",
                       env={"GEN_MATRIX": str(installed), "GEN_MATRIX_NIXPKGS": package_sets(matrix)})
    log = "\n".join(done.log)
    assert done.results == {"plan": "success", "build": "success", "mark-published": "success"}, log
    names = sorted(path.stem for path in (work / ".flox/pkgs").glob("*.nix"))
    assert sorted(done.builds()) == sorted(done.smokes()) == sorted(done.publishes()) == names, log
    assert harness.tag("gen-matrix-published") == sha
    assert "plan: flox activate -- bash -c command -v gen-matrix" in done.log
