"""The project's own test workflow (.github/workflows/tests.yml): valid for GitHub, and it runs
the whole suite on every system gen-matrix runs on."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import tomlkit
import yaml

from conftest import REPO

WORKFLOW = ".github/workflows/tests.yml"
BIN = Path(sys.executable).parent


def found(name: str) -> str:
    path = shutil.which(name, path=str(BIN)) or shutil.which(name)
    assert path, f"{name} not found: install the test extra (pip install -e '.[test]')"
    return path


def test_it_passes_actionlint_with_shellcheck():
    result = subprocess.run([found("actionlint"), "-no-color", "-shellcheck", found("shellcheck"), WORKFLOW],
                            cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_it_runs_the_suite_on_linux_macos_and_windows_and_the_oldest_python():
    (job,) = yaml.safe_load((REPO / WORKFLOW).read_text())["jobs"].values()
    matrix = job["strategy"]["matrix"]
    runs = {(os, python) for os in matrix["os"] for python in matrix["python"]}
    runs |= {(extra["os"], extra["python"]) for extra in matrix.get("include", [])}
    assert {os for os, _ in runs} == {"ubuntu-latest", "macos-latest", "windows-latest"}
    floor = tomlkit.parse((REPO / "pyproject.toml").read_text())["project"]["requires-python"]
    assert floor.startswith(">=")
    version = lambda text: tuple(int(part) for part in text.split("."))  # noqa: E731
    assert min(version(python) for _, python in runs) == version(floor[2:])
    steps = [step.get("run", "") for step in job["steps"]]
    assert any(run.endswith("-m pytest") for run in steps if "sudo" not in run)  # macOS, Windows
    assert any("sudo" in run and run.endswith("-m pytest") for run in steps)  # Linux, beside Nix's store
