"""Every path of this repository the README and the guides in docs/ name exists: a guide that
sends a maintainer to a file that was renamed or never existed is worse than none."""

from __future__ import annotations

import re
import subprocess

import pytest

from conftest import REPO

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
README = "\n".join(page.read_text(encoding="utf-8") for page in PAGES)
# Files the README names that no checkout holds: Flox writes the lock of an environment when
# it is activated, gen-matrix holds its own lock only while a run writes, and the plan job of
# the workflow writes its plan into a folder of the runner's; Nix writes a matrix repository's
# flake.lock at its first `nix flake lock`, and a Garnix user writes garnix.yaml; a run keeps
# its compiled templates in templates/__pycache__/, and the knowledge table parsed in
# generator/__pycache__/.
MADE_BY_A_RUN = {".flox/env/manifest.lock", "manifest.lock", ".gen-matrix.lock",
                 "summary.md", "plan.json", "eval.txt", "eval-errors.txt", "flake.lock", "garnix.yaml",
                 "templates/__pycache__/", "generator/__pycache__/knowledge.yaml.marshal",
                 "generator/__pycache__/dataclasses.cpython-311.marshal"}
# Written as a pattern or a placeholder (NAME, REF, TOKEN), an option, a URL or a store path.
NOT_A_PATH = re.compile(r"[A-Z]{3,}|[*$<>{}=,]|\.\.\.|^(?:https?:|/|~|-)")
FILE = re.compile(r"\.(?:py|nix|j2|md|yaml|yml|json|toml|txt|lock)$")


def _tracked() -> list[str]:
    try:
        listed = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):  # a copy without git: what is there
        return [p.relative_to(REPO).as_posix() for p in REPO.rglob("*") if ".venv" not in p.parts]
    return listed.split()


def named_paths() -> tuple[list[str], list[str]]:
    """Paths with a folder, which must be where they say, and bare file names, which must be
    somewhere in the repository; only those that start at one of its top-level entries."""
    top = {path.split("/")[0] for path in _tracked()}
    paths, names = [], []
    for token in sorted(set(re.findall(r"`([^`\s]+)`", README))):
        token = re.sub(r":(?:LINE|[0-9]+)$", "", token)
        if NOT_A_PATH.search(token) or token in MADE_BY_A_RUN:
            continue
        if "/" in token:
            if token.split("/")[0] in top:
                paths.append(token)
        elif FILE.search(token):
            names.append(token)
    return paths, names


PATHS, NAMES = named_paths()


def test_the_readme_names_the_layout_it_describes():
    for path in ("generator/pipeline/", "generator/outputs/", "generator/commands/", "generator/run.py", "nix/lib/",
                 "templates/", "generator/pipeline/state.py", "generator/pipeline/lock.py"):
        assert path in PATHS, path


@pytest.mark.parametrize("path", PATHS)
def test_a_path_the_readme_names_exists(path):
    assert (REPO / path).exists(), f"the README or docs/ name {path}, which this repository does not hold"


@pytest.mark.parametrize("name", NAMES)
def test_a_file_name_the_readme_names_is_in_the_repository(name):
    names = {path.rsplit("/", 1)[-1] for path in _tracked()}
    assert name in names or (REPO / name).exists(), f"the README or docs/ name {name}, which no file of this repository is"
