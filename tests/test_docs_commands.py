"""Every command the README and the guides in docs/ show in a shell block runs as shown.

Each `gen-matrix ...` line of a fenced `sh`, `console` or `powershell` block (a Windows
`.venv\\Scripts\\gen-matrix` is the same command) runs through the installed console script
in a fresh copy of this repository, and must exit 0. What cannot run here is listed below
with the reason, by command or by program; a shown command that is neither run nor listed
fails the test, and so does a listed command that no page shows any more."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from conftest import REPO

PAGES = sorted([REPO / "README.md", *(REPO / "docs").glob("*.md")])
SHELLS = {"sh", "console", "powershell"}

# Programs whose lines are not run, and why.
PROGRAMS = {
    "python3": "makes the venv and runs the test suite: what tests and .ci/run do themselves",
    ".venv/bin/python": "runs the benchmarks, which take minutes",
    "py": "Windows' Python launcher",
    ".venv\\Scripts\\pip": "installs the reader's wheel file (or, from the first release on, from PyPI)",
    "nix": "needs Nix with network access to fetch the flake",
    "flox": "needs Flox and hours of build",
    "git": "commits in the reader's repository",
    "ls": "lists the result of a flox build",
    "sudo": "sets up a Nix builder of the reader's, as root",
    "echo": "appends to the reader's /etc/nix/nix.conf, as root",
    "printf": "pins ci.gen_matrix with a commit the reader fills in; test_init.py runs it as init prints it",
}
# gen-matrix commands that are not run, and why.
NOT_RUN = {
    "gen-matrix detect --python ~/venv/bin/python": "names the reader's own venv",
    "gen-matrix smoke pytorch-python313-cuda12_8-sm120-avx2 --python PATH": "needs a built variant",
    "gen-matrix smoke pytorch-2.8.0-python311-cuda12_9-sm120 --python ~/venv/bin/python":
        "needs the reader's own hand build",
    'gen-matrix smoke --python "$(which python)" --gpu H100 --cuda 12.8 --pytorch 2.9.1':
        "needs a CUDA torch of the reader's",
    "gen-matrix adopt ~/build-pytorch": "needs the reader's folder of hand-written recipes",
    "gen-matrix adopt ~/build-pytorch --write": "needs the reader's folder of hand-written recipes",
    "gen-matrix generate --adopt --root ~/build-pytorch": "needs the reader's folder of hand-written recipes",
    "gen-matrix eval": "fetches the pins' nixpkgs from GitHub",
    "gen-matrix eval --nixpkgs ~/src/nixpkgs NAME...": "needs the reader's nixpkgs checkout",
    "gen-matrix ci --changed-since origin/main": "compares with a branch of the reader's git remote",
}
# What these commands do depends on this machine's GPUs and CPU: each may also end with the
# status its page documents for "nothing fits here".
NOTHING_FITS = {"detect": 1, "init": 2}
NEEDS_NIX = {"eval"}


def shown_commands() -> list[tuple[str, str]]:
    """(page, command line) of every shell block line, comments dropped."""
    found = []
    for page in PAGES:
        for token in MarkdownIt("commonmark").parse(page.read_text(encoding="utf-8")):
            if token.type == "fence" and token.info.split()[:1] and token.info.split()[0] in SHELLS:
                for line in token.content.splitlines():
                    words = shlex.split(line.replace("\\", "/"), comments=True)
                    if words:
                        command = line.split(" #")[0].strip()
                        found.append((page.relative_to(REPO).as_posix(), command))
    return found


COMMANDS = shown_commands()


def _program(command: str) -> str:
    return command.split()[0]


def _gen_matrix_args(command: str) -> list[str] | None:
    program = _program(command)
    if program in ("gen-matrix", ".venv\\Scripts\\gen-matrix"):
        return shlex.split(command.split(None, 1)[1] if " " in command else "")
    return None


RUN = [(page, command) for page, command in COMMANDS
       if _gen_matrix_args(command) is not None and command not in NOT_RUN]


def test_every_shown_command_is_run_or_listed_with_its_reason():
    unexplained = [(page, command) for page, command in COMMANDS
                   if _gen_matrix_args(command) is None and _program(command) not in PROGRAMS]
    assert unexplained == []
    shown = {command for _, command in COMMANDS}
    assert [command for command in NOT_RUN if command not in shown] == []
    assert [program for program in PROGRAMS if program not in {_program(c) for c in shown}] == []
    assert len(RUN) >= 15


def _copy(destination: Path) -> Path:
    """This repository as a reader's checkout has it, without the tests but their package set."""
    skip = {".git", ".venv", "tests", "benchmarks", "scripts"}
    shutil.copytree(REPO, destination, ignore=lambda folder, names: [
        n for n in names if (Path(folder) == REPO and n in skip) or n in ("__pycache__", ".pytest_cache")
        or n.endswith(".egg-info")])
    shutil.copytree(REPO / "tests" / "nix", destination / "tests" / "nix")
    return destination


@pytest.mark.parametrize("page, command", RUN, ids=[f"{page}:{command}" for page, command in RUN])
def test_a_shown_command_runs(page, command, tmp_path):
    args = _gen_matrix_args(command)
    if args and args[0] in NEEDS_NIX and shutil.which("nix-instantiate") is None:
        pytest.skip("needs nix-instantiate")
    script = shutil.which("gen-matrix", path=sysconfig.get_path("scripts"))
    assert script, "the console script is installed with the package (pip install -e .)"
    root = _copy(tmp_path / "repo")
    home = tmp_path / "home"
    home.mkdir()
    result = subprocess.run([script, *args], cwd=root, capture_output=True, text=True, timeout=300,
                            env={**os.environ, "HOME": str(home)})
    reads_this_machine = args[0] == "detect" or "--detect" in args
    allowed = {0, NOTHING_FITS[args[0]]} if reads_this_machine else {0}
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode in allowed, f"{page}: {command}\n{result.stdout}\n{result.stderr}"
