"""Every command the README and the guides in docs/ show in a shell block runs as shown.

Each `gen-matrix ...` line of a fenced `sh`, `console` or `powershell` block (a Windows
`.venv\\Scripts\\gen-matrix` is the same command) runs through the installed console script
in a fresh copy of this repository, and must exit 0. What cannot run here is listed below
with the reason, by command or by program; a shown command that is neither run nor listed
fails the test, and so does a listed command that no page shows any more."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from conftest import REPO, copy_checkout

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
    copy_checkout(destination, leave=("tests", "benchmarks", "scripts"))
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


# ---- every command gen-matrix prints in its advice runs where it is printed -------------

FLAGS = ("--cpu-flags", "avx avx2 fma f16c")
# What a reader asks: detect for cards with a wheel (RTX 5070, RTX 4090), without one (Tesla
# K40c), on Windows and Linux, and for no GPU; explain for a card and for a combination.
ADVICE = [
    ("detect", "--gpu", "RTX 5070", "--uname", "Windows AMD64", *FLAGS),
    ("detect", "--gpu", "RTX 4090", "--uname", "Linux x86_64", *FLAGS),
    ("detect", "--gpu", "Tesla K40c", "--uname", "Windows AMD64", *FLAGS),
    ("detect", "--gpu", "Tesla K40c", "--uname", "Linux x86_64", *FLAGS),
    ("detect", "--no-gpu", "--uname", "Linux x86_64", *FLAGS),
    ("explain", "--gpu", "RTX 4090"),
    ("explain", "--gpu", "K80"),
]
# A word that stands for what the reader fills in: such a command is a form, not one to run.
PLACEHOLDERS = re.compile(r"\b(NAME|FILE|PATH|VERSION)\b")
PIP = re.compile(r"pip install torch==(\d+\.\d+\.\d+) --index-url https://download\.pytorch\.org/whl/(cu\d+)")
UV = re.compile(r"uv pip install torch==(\d+\.\d+\.\d+) --torch-backend=(cu\d+)")
CONDA = re.compile(r"conda install pytorch==\d+\.\d+\.\d+ (cudatoolkit|pytorch-cuda)=\d+\.\d+ -c pytorch( -c nvidia)?")
PROGRAMS_PRINTED = ("gen-matrix ", "pip ", "uv ", "conda ", "flox ")


def _gen_matrix(args, cwd: Path, home: Path) -> subprocess.CompletedProcess:
    script = shutil.which("gen-matrix", path=sysconfig.get_path("scripts"))
    assert script, "the console script is installed with the package (pip install -e .)"
    return subprocess.run([script, *args], cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "HOME": str(home)})


def printed_commands(stdout: str) -> list[str]:
    """Every command in `stdout`: the bare first lines of detect, and each one in backticks,
    the wrapped lines joined again (a continuation is indented deeper than its line)."""
    lines: list[str] = []
    for line in stdout.splitlines():
        depth = len(line) - len(line.lstrip())
        if lines and depth > len(lines[-1]) - len(lines[-1].lstrip()) and depth > 2:
            lines[-1] += " " + line.strip()
        else:
            lines.append(line)
    bare = [line for line in lines if line.startswith(PROGRAMS_PRINTED)]
    quoted = [command for line in lines for command in re.findall(r"`([^`]+)`", line)]
    return bare + quoted


def _check_printed(command: str, previous: str | None, cwd: Path, home: Path, in_repository: bool) -> None:
    if command.startswith("pip "):
        assert PIP.fullmatch(command), command
    elif command.startswith("uv "):
        match = UV.fullmatch(command)
        assert match, command
        # the uv twin follows its pip line, for the same release and CUDA
        assert previous is not None and PIP.fullmatch(previous), command
        assert match.groups() == PIP.fullmatch(previous).groups()
    elif command.startswith("conda "):
        assert CONDA.fullmatch(command), command
    elif command.startswith("flox build "):
        # no Flox here: the name must be one the repository builds, which only a repository has
        assert in_repository, f"{command}: printed where no repository is"
        name = command.split()[2]
        assert (cwd / ".flox" / "pkgs" / f"{name}.nix").is_file(), command
    elif command.startswith("gen-matrix "):
        result = _gen_matrix(shlex.split(command)[1:], cwd, home)
        assert "Traceback" not in result.stderr, result.stderr
        # detect may find that nothing fits: its documented exit 1
        allowed = {0, 1} if command.split()[1] == "detect" else {0}
        assert result.returncode in allowed, f"{command}\n{result.stdout}\n{result.stderr}"
    else:
        raise AssertionError(f"a command of a program the test does not know: {command}")


@pytest.mark.parametrize("where", ["empty folder", "repository"])
def test_every_command_gen_matrix_advises_runs_where_it_is_printed(where, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    folder = tmp_path / "here"
    if where == "repository":
        made = _gen_matrix(["init", str(folder), "--example", "pytorch-2.10"], tmp_path, home)
        assert made.returncode == 0, made.stderr
    else:
        folder.mkdir()
    checked, forms = set(), set()
    for advice in ADVICE:
        result = _gen_matrix(advice, folder, home)
        assert result.returncode in (0, 1), f"{advice}\n{result.stderr}"
        commands = printed_commands(result.stdout)
        assert commands, advice
        previous = None
        for command in commands:
            if PLACEHOLDERS.search(command):
                forms.add(command)
            elif command not in checked or command.startswith("uv "):
                _check_printed(command, previous, folder, home, where == "repository")
                checked.add(command)
            previous = command
    # the forms printed are these, which need the reader's own values
    assert forms <= {"gen-matrix explain NAME"}, forms
    assert {c.split()[0] for c in checked} >= {"pip", "uv", "gen-matrix"}
    assert any(c.startswith("gen-matrix env ") for c in checked)


@pytest.mark.parametrize("gpu", ["RTX 5070", "RTX 4090"])
def test_detects_first_lines_for_a_card_a_wheel_runs_on_are_pip_then_its_uv_twin(gpu, tmp_path):
    result = _gen_matrix(["detect", "--gpu", gpu, "--uname", "Windows AMD64", *FLAGS], tmp_path, tmp_path)
    first, second = result.stdout.splitlines()[:2]
    assert PIP.fullmatch(first) and UV.fullmatch(second)
    assert PIP.fullmatch(first).groups() == UV.fullmatch(second).groups()


def test_detects_first_line_for_a_kepler_card_is_its_build_within_r470(tmp_path):
    result = _gen_matrix(["detect", "--gpu", "Tesla K40c", "--uname", "Linux x86_64", *FLAGS], tmp_path, tmp_path)
    lines = result.stdout.splitlines()
    assert lines[0].startswith("gen-matrix env --sm sm35 --cuda 11.8 ")
    flat = " ".join(result.stdout.split())
    assert "R470" in flat
    # no driver past Kepler's last branch is asked for: CUDA 11.8's own is named only as past it
    asked = flat.replace("CUDA 11.8's own 520.61.05 is past R470", "")
    named = [int(n) for n in re.findall(r"\b(\d{3})\.\d+(?:\.\d+)?\b", asked)]
    assert named and max(named) <= 470, named


# The commands a reader runs before any repository of their own: the docs show them to people
# who have only installed gen-matrix, so they run from an empty folder too.
BEFORE_A_REPOSITORY = {"detect", "explain", "env"}
ANYWHERE = [(page, command) for page, command in RUN if _gen_matrix_args(command)[0] in BEFORE_A_REPOSITORY]


@pytest.mark.parametrize("page, command", ANYWHERE, ids=[f"{page}:{command}" for page, command in ANYWHERE])
def test_a_shown_command_for_a_reader_without_a_repository_runs_in_an_empty_folder(page, command, tmp_path):
    args = _gen_matrix_args(command)
    result = _gen_matrix(args, tmp_path, tmp_path)
    reads_this_machine = args[0] == "detect" or "--detect" in args
    allowed = {0, NOTHING_FITS[args[0]]} if reads_this_machine else {0}
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode in allowed, f"{page}: {command}\n{result.stdout}\n{result.stderr}"
    assert len(ANYWHERE) >= 10
