"""The locked test environment: write the lock, or test against the newest or the oldest releases.

    python scripts/lock.py                 # write requirements/test.txt from pyproject.toml
    python scripts/lock.py newest          # the suite in a fresh venv with the newest releases
    python scripts/lock.py minimal         # the suite with every runtime dependency at its lower bound

requirements/test.txt pins every package the tests need, with their hashes, for every system
and Python gen-matrix supports (one file: the markers tell pip which lines apply). It is written
by `uv pip compile --universal --generate-hashes` (uv must be on PATH: `pip install uv`) and
installed by plain pip, so that nothing but pip is needed to install it:

    .venv/bin/pip install -r requirements/test.txt && .venv/bin/pip install --no-deps --no-build-isolation -e .

`newest` and `minimal` make a venv of their own under .deps/ (ignored by git), install gen-matrix
there, run pytest with the arguments that follow (`-- -m "not slow"`, say), and print which
releases they tested that differ from the lock; their exit status is pytest's.
`minimal` installs the lock, then each runtime dependency at exactly the lower bound that
pyproject.toml gives it (`jinja2>=3.1` as `jinja2==3.1`), so that the bounds stay honest.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LOCK = REPO / "requirements" / "test.txt"
VENVS = REPO / ".deps"
COMMAND = "python scripts/lock.py"


def dependencies() -> list[str]:
    try:
        from tomllib import loads
    except ImportError:  # Python 3.10
        from tomlkit import loads
    return list(loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"])


def lower_bounds() -> list[str]:
    """Each runtime dependency pinned at the lower bound pyproject.toml gives it."""
    pinned = []
    for requirement in dependencies():
        found = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*>=\s*([0-9][0-9A-Za-z.]*)", requirement)
        if not found:
            sys.exit(f"error: pyproject.toml: dependency {requirement!r} has no plain lower bound (NAME>=VERSION)")
        pinned.append(f"{found[1]}=={found[2]}")
    return pinned


def locked() -> dict[str, set[str]]:
    """Package name -> the versions requirements/test.txt pins it at (one per Python where they differ)."""
    versions: dict[str, set[str]] = {}
    for line in LOCK.read_text().splitlines():
        found = re.match(r"([A-Za-z0-9_.-]+)==([^\s;\\]+)", line)
        if found:
            versions.setdefault(normal(found[1]), set()).add(found[2])
    return versions


def normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def write_lock() -> int:
    uv = shutil.which("uv")
    if not uv:
        sys.exit("error: uv is not on PATH\n  hint: pip install uv, then run this again")
    LOCK.parent.mkdir(exist_ok=True)
    return subprocess.call([uv, "pip", "compile", "pyproject.toml", "--extra", "test", "--universal",
                            "--generate-hashes", "--python-version", "3.10", "--no-header", "--quiet",
                            "-o", str(LOCK.relative_to(REPO))], cwd=REPO) or _header()


def _header() -> int:
    text = LOCK.read_text()
    LOCK.write_text(f"# The packages gen-matrix's tests run with, and their hashes. Written by `{COMMAND}`;\n"
                    "# install with `pip install -r requirements/test.txt`.\n" + text)
    return 0


def run_suite(kind: str, pytest_args: list[str]) -> int:
    venv = VENVS / kind
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / ("Scripts" if os.name == "nt" else "bin") / "python"
    pip = [str(python), "-m", "pip", "install", "-q"]
    if kind == "newest":
        subprocess.run([*pip, "--upgrade", "-e", ".[test]"], cwd=REPO, check=True)
    else:
        subprocess.run([*pip, "-r", str(LOCK)], cwd=REPO, check=True)
        subprocess.run([*pip, *lower_bounds()], cwd=REPO, check=True)
        subprocess.run([*pip, "--no-deps", "--no-build-isolation", "-e", "."], cwd=REPO, check=True)
    installed = subprocess.run([str(python), "-m", "pip", "list", "--format=freeze"], capture_output=True,
                               text=True, check=True).stdout
    lock = locked()
    print(f"{kind}: releases that differ from the lock:")
    for line in sorted(installed.splitlines()):
        name, _, version = line.partition("==")
        if normal(name) in lock and version not in lock[normal(name)]:
            print(f"  {name} {version} (lock: {', '.join(sorted(lock[normal(name)]))})")
    return subprocess.call([str(python), "-m", "pytest", *pytest_args], cwd=REPO)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kind", nargs="?", choices=["newest", "minimal"],
                        help="test against these releases instead of writing the lock")
    parser.add_argument("pytest_args", nargs=argparse.REMAINDER, help="passed to pytest, after --")
    args = parser.parse_args()
    if args.kind is None:
        return write_lock()
    pytest_args = args.pytest_args[1:] if args.pytest_args[:1] == ["--"] else args.pytest_args
    return run_suite(args.kind, pytest_args or ["-q"])


if __name__ == "__main__":
    sys.exit(main())
