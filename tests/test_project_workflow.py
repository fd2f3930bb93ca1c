"""The project's own workflows: tests.yml, valid for GitHub, runs the whole suite on every system
gen-matrix runs on; release.yml releases a version tag only where it is pyproject.toml's version
and CHANGELOG.md has its entry, and publishes with the least permissions each job needs. Its
scripts are run here with bash, from the workflow's own text."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomlkit
import yaml

from conftest import REPO, needs_posix

WORKFLOW = ".github/workflows/tests.yml"
RELEASE = ".github/workflows/release.yml"
BIN = Path(sys.executable).parent
VERSION = tomlkit.parse((REPO / "pyproject.toml").read_text())["project"]["version"]


def found(name: str) -> str:
    path = shutil.which(name, path=str(BIN)) or shutil.which(name)
    assert path, f"{name} not found: install the test extra (pip install -e '.[test]')"
    return path


@pytest.mark.parametrize("workflow", [WORKFLOW, RELEASE])
def test_it_passes_actionlint_with_shellcheck(workflow):
    result = subprocess.run([found("actionlint"), "-no-color", "-shellcheck", found("shellcheck"), workflow],
                            cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_it_runs_the_suite_on_linux_macos_and_windows_and_the_oldest_python():
    job = yaml.safe_load((REPO / WORKFLOW).read_text())["jobs"]["tests"]
    matrix = job["strategy"]["matrix"]
    runs = {(os, python) for os in matrix["os"] for python in matrix["python"]}
    runs |= {(extra["os"], extra["python"]) for extra in matrix.get("include", [])}
    assert {os for os, _ in runs} == {"ubuntu-latest", "macos-latest", "windows-latest"}
    floor = tomlkit.parse((REPO / "pyproject.toml").read_text())["project"]["requires-python"]
    assert floor.startswith(">=")
    version = lambda text: tuple(int(part) for part in text.split("."))  # noqa: E731
    assert min(version(python) for _, python in runs) == version(floor[2:])
    steps = [step.get("run", "") for step in job["steps"]]
    # the whole suite, on every core, as the README's test command runs it
    whole = "-m pytest -n auto --dist loadfile"
    assert any(run.endswith(whole) for run in steps if "sudo" not in run)  # macOS, Windows
    assert any("sudo" in run and run.endswith(whole) for run in steps)  # Linux, beside Nix's store
    readme = (REPO / "README.md").read_text()
    assert next(line for line in readme.splitlines() if " -m pytest" in line).endswith(whole)


def release_jobs() -> dict:
    return yaml.safe_load((REPO / RELEASE).read_text())["jobs"]


def step(job: str, name: str) -> dict:
    (found_step,) = [s for s in release_jobs()[job]["steps"] if s.get("name", "").startswith(name)]
    return found_step


def run_step(job: str, name: str, folder: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """A step's script, run by bash in folder as the runner runs it (bash -e), with the step's
    `env:` names given values here, and `python` this test's Python."""
    tools = folder / ".tools"
    tools.mkdir(exist_ok=True)
    if not (tools / "python").exists():
        (tools / "python").symlink_to(sys.executable)
    the_step = step(job, name)
    assert set(the_step.get("env", {})) <= set(env) | {"GH_TOKEN"}
    return subprocess.run(["bash", "-e", "-c", the_step["run"]], cwd=folder, capture_output=True, text=True,
                          env={**os.environ, **env, "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}"})


@pytest.fixture
def checkout(tmp_path) -> Path:
    for name in ("pyproject.toml", "CHANGELOG.md"):
        shutil.copyfile(REPO / name, tmp_path / name)
    (tmp_path / "generator").mkdir()
    return tmp_path


def test_the_release_runs_on_version_tags_and_publishes_only_what_it_built_and_tested():
    workflow = yaml.safe_load((REPO / RELEASE).read_text())
    assert workflow[True] == {"push": {"tags": ["v*"]}}  # YAML 1.1 reads the key `on` as true
    assert workflow["permissions"] == {"contents": "read"}
    jobs = workflow["jobs"]
    assert jobs["pypi"]["needs"] == "build" and jobs["github-release"]["needs"] == "pypi"
    names = [s.get("name", s.get("uses", "")) for s in jobs["build"]["steps"]]
    order = [next(i for i, n in enumerate(names) if n.startswith(prefix)) for prefix in
             ("The tag is", "The release's source commit", "Build", "Test the built", "actions/upload-artifact")]
    assert order == sorted(order)
    test_run = step("build", "Test the built")["run"]
    assert "GEN_MATRIX_WHEEL=" in test_run and "GEN_MATRIX_SDIST=" in test_run and "tests/test_package.py" in test_run
    assert "twine check --strict dist/*" in step("build", "Build")["run"]


def test_each_job_holds_only_the_permission_it_needs():
    jobs = release_jobs()
    assert "permissions" not in jobs["build"]
    assert jobs["pypi"]["permissions"] == {"id-token": "write"}
    assert jobs["pypi"]["environment"]["name"] == "pypi"
    assert [s["uses"] for s in jobs["pypi"]["steps"]][-1] == "pypa/gh-action-pypi-publish@release/v1"
    assert jobs["github-release"]["permissions"] == {"contents": "write"}


def test_github_contexts_reach_scripts_only_through_env():
    for job in release_jobs().values():
        for each in job["steps"]:
            assert "${{" not in each.get("run", ""), each["run"]


@needs_posix("the step scripts are bash")
def test_the_tag_of_pyprojects_version_with_a_changelog_entry_passes(checkout):
    result = run_step("build", "The tag is", checkout, {"TAG": f"v{VERSION}"})
    assert result.returncode == 0, result.stdout + result.stderr


@needs_posix("the step scripts are bash")
def test_another_tag_is_refused_with_the_version_it_should_be(checkout):
    result = run_step("build", "The tag is", checkout, {"TAG": "v9.9.9"})
    assert result.returncode == 1
    assert f"::error::the tag v9.9.9 is not v{VERSION}, the version in pyproject.toml" in result.stdout
    # a version that only starts like it is another version
    result = run_step("build", "The tag is", checkout, {"TAG": f"v{VERSION}0"})
    assert result.returncode == 1


@needs_posix("the step scripts are bash")
def test_a_version_without_a_changelog_entry_is_refused(checkout):
    changelog = checkout / "CHANGELOG.md"
    changelog.write_text(changelog.read_text().replace(f"## [{VERSION}]", "## [Unreleased]"))
    result = run_step("build", "The tag is", checkout, {"TAG": f"v{VERSION}"})
    assert result.returncode == 1
    assert f'::error::CHANGELOG.md has no entry "## [{VERSION}]"' in result.stdout
    # an entry of a version the tag's only starts with is not its entry
    changelog.write_text(changelog.read_text().replace("## [Unreleased]", f"## [{VERSION}0]"))
    assert run_step("build", "The tag is", checkout, {"TAG": f"v{VERSION}"}).returncode == 1


@needs_posix("the step scripts are bash")
def test_the_release_file_names_the_repository_and_commit(checkout):
    rev = "0123456789abcdef0123456789abcdef01234567"
    result = run_step("build", "The release's source commit", checkout, {"REPOSITORY": "someone/gen-matrix", "REV": rev})
    assert result.returncode == 0, result.stderr
    release = checkout / "generator" / "release.json"
    assert json.loads(release.read_text()) == {"repository": "someone/gen-matrix", "rev": rev}
    # and git leaves it out of every commit: it describes a build, not the source
    ignored = subprocess.run(["git", "check-ignore", "--no-index", "generator/release.json"], cwd=REPO,
                             capture_output=True, text=True)
    assert ignored.returncode == 0


@needs_posix("the step scripts are bash; the stand-in gh is a shell script")
def test_the_github_release_carries_the_dist_files_and_the_versions_changelog_entry(checkout):
    (checkout / "dist").mkdir()
    for name in (f"gen_matrix-{VERSION}.tar.gz", f"gen_matrix-{VERSION}-py3-none-any.whl"):
        (checkout / "dist" / name).write_text("")
    tools = checkout / ".tools"
    tools.mkdir()
    gh = tools / "gh"
    gh.write_text('#!/bin/sh\nprintf "%s\\n" "$@" > gh-args\n')
    gh.chmod(0o755)
    result = run_step("github-release", "Release the tag", checkout, {"TAG": f"v{VERSION}"})
    assert result.returncode == 0, result.stderr
    args = (checkout / "gh-args").read_text().splitlines()
    assert args[:3] == ["release", "create", f"v{VERSION}"]
    assert sorted(a for a in args if a.startswith("dist/")) == sorted(f"dist/{p.name}" for p in (checkout / "dist").iterdir())
    assert "--verify-tag" in args and args[args.index("--notes-file") + 1] == "notes.md"
    entry = re.search(rf"^## \[{re.escape(VERSION)}\][^\n]*\n(.*?)(?=^## \[|^\[)", (REPO / "CHANGELOG.md").read_text(),
                      re.S | re.M).group(1)
    notes = (checkout / "notes.md").read_text()
    assert notes.strip() and notes.strip() == entry.strip()
