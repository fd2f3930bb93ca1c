"""Shared fixtures: the repository, a CLI runner, and real nix-instantiate."""

from __future__ import annotations

import dataclasses
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

import pytest
import tomlkit
from click.testing import CliRunner

from generator import run as generator_run
from generator.layout import locate
from generator.cli import main

REPO = Path(__file__).resolve().parent.parent
FAKE_NIXPKGS = REPO / "tests" / "nix" / "nixpkgs"
FAKE_FOR_SYSTEM = {
    "x86_64-linux": FAKE_NIXPKGS,
    "aarch64-linux": REPO / "tests" / "nix" / "nixpkgs-aarch64-linux",
    "aarch64-darwin": REPO / "tests" / "nix" / "nixpkgs-aarch64-darwin",
}
def wrapped_package_set(folder: Path, body: str) -> Path:
    """A package set in `folder` that wraps the test one (`fake`) with `body`, a function of
    its arguments. The test set is copied in: evaluation reads a package set's own folder only."""
    folder.mkdir()
    shutil.copytree(FAKE_NIXPKGS, folder / "fake")
    (folder / "default.nix").write_text(f"args: let fake = import ./fake; in {body}\n")
    return folder


# The tests' own matrix: a frozen copy of the shipped one, so that a change to matrix.yaml
# changes only the tests about the shipped matrix (those that read REPO / "matrix.yaml").
FIXTURE_MATRIX = REPO / "tests" / "fixtures" / "matrix.yaml"
# A matrix of 300 GPU variants: more than one shard of the workflow.
SYNTHETIC = """\
pytorch: {version: "2.8.0"}
nixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}
gpu:
  python: ["3.11", "3.12", "3.13"]
  cuda: ["12.8", "12.9"]
  sm: [sm52, sm60, sm61, sm70, sm75, sm80, sm86, sm89, sm90, sm100]
  isa: [avx, avx2, avx512, avx512bf16, avx512vnni]
"""
# The recipe names of barstoolbluz/build-pytorch's main branch (tests/fixtures/reference/README.md).
REFERENCE_NAMES = REPO / "tests" / "fixtures" / "reference" / "names-main.txt"


@pytest.fixture(autouse=True, scope="session")
def a_machine_of_no_ones(tmp_path_factory):
    """Nothing of the user or the machine the tests run on reaches them: a home of their own
    (git's and Nix's settings in it), no git configuration from outside, UTC and a plain
    locale, and no nix-eval-jobs of the machine's in place of nix-instantiate (test_evaljobs
    tests that path). What torch dispatches to is left alone: the tests that depend on it say so."""
    home = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as patch:
        for name, value in {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
                            "XDG_CACHE_HOME": str(home / ".cache"), "GIT_CONFIG_GLOBAL": os.devnull,
                            "GIT_CONFIG_NOSYSTEM": "1", "TZ": "UTC", "LC_ALL": "C.UTF-8",
                            "GEN_MATRIX_NO_EVAL_JOBS": "1"}.items():
            patch.setenv(name, value)
        yield


# What `pytest -m "not slow"` leaves out besides the tests marked slow where they are written:
# the tests that take longer than QUICK_SECONDS on 2 cores, by tests/durations.json, and those that
# need a fixture shared by a module or class whose setup takes longer than QUICK_SHARED_SECONDS
# (a shared fixture is set up once a file, by whichever of its tests runs first: the quick subset
# pays for it once, so a file whose tests all share one gives them at that price); and these, by file.
# Every file gives the quick subset its quick tests.
SLOW_TESTS = {
    "test_validation.py": ("test_fuzz_built_matrix_runs_cleanly_or_fails_located",
                           "test_fuzz_mutated_matrix_runs_cleanly_or_fails_located"),
    "test_ownership.py": ("test_two_runs_at_once_leave_the_tree_of_one_of_them",),
}


# Seconds each test took, setup and teardown included, and each fixture shared by a module or
# class took to set up, on 2 cores. `pytest --record-durations` writes what it ran into the file,
# and drops the tests and fixtures of the files it collected that are no longer there, and the
# files that are gone; a test the file does not name stays in the quick subset.
DURATIONS = Path(__file__).with_name("durations.json")
QUICK_SECONDS = 0.25
QUICK_SHARED_SECONDS = 2.5
SHARED_SCOPES = ("module", "class")


def recorded_durations() -> dict[str, dict[str, float]]:
    found = json.loads(DURATIONS.read_text(encoding="utf-8")) if DURATIONS.is_file() else {}
    return {"tests": found.get("tests", {}), "fixtures": found.get("fixtures", {})}


def fixture_key(fixturedef) -> str:
    return f"{fixturedef.baseid}::{fixturedef.argname}"


def shared_fixtures(item) -> list[str]:
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return []
    return [fixture_key(definition) for definitions in info.name2fixturedefs.values() for definition in definitions
            if definition.scope in SHARED_SCOPES]


_collected: dict[str, set[str]] = {"tests": set(), "fixtures": set(), "files": set()}


def pytest_collection_modifyitems(config, items):
    durations = recorded_durations()
    for item in items:
        file = Path(str(item.fspath)).name
        fixtures = shared_fixtures(item)
        _collected["tests"].add(item.nodeid)
        _collected["fixtures"].update(fixtures)
        _collected["files"].add(item.nodeid.split("::")[0])
        if item.originalname in SLOW_TESTS.get(file, ()) \
                or durations["tests"].get(item.nodeid, 0) > QUICK_SECONDS \
                or any(durations["fixtures"].get(key, 0) > QUICK_SHARED_SECONDS for key in fixtures):
            item.add_marker(pytest.mark.slow)
    if os.environ.get("MUTANT_UNDER_TEST"):
        # A mutation run (scripts/mutation.py) names a mutant's tests in no set order and stops
        # at the first that fails: each file's tests together and in the order they are written,
        # so that its module fixtures are made once, and the quickest files first.
        seconds: dict[Path, float] = {}
        for item in items:
            seconds[item.path] = seconds.get(item.path, 0.0) + durations["tests"].get(item.nodeid, 0.0)
        items.sort(key=lambda item: (seconds[item.path], str(item.path), item.location[1]))


_recorded: dict[str, dict[str, float]] = {"tests": {}, "fixtures": {}}


def pytest_runtest_logreport(report):
    _recorded["tests"][report.nodeid] = _recorded["tests"].get(report.nodeid, 0.0) + report.duration


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef, request):
    started = time.perf_counter()
    try:
        return (yield)
    finally:
        if fixturedef.scope in SHARED_SCOPES:
            key = fixture_key(fixturedef)
            _recorded["fixtures"][key] = max(_recorded["fixtures"].get(key, 0.0), time.perf_counter() - started)


def merged_durations(old: dict[str, dict[str, float]], recorded: dict[str, dict[str, float]],
                     collected: dict[str, set[str]], root: Path) -> dict[str, dict[str, float]]:
    """`old` with what a run recorded, less the tests and fixtures of the files it collected that it
    no longer found, and less the files that are gone."""
    merged = {}
    for kind in ("tests", "fixtures"):
        values = {**old[kind], **{key: round(seconds, 2) for key, seconds in recorded[kind].items()}}
        merged[kind] = {key: seconds for key, seconds in sorted(values.items())
                        if key in collected[kind] or key in recorded[kind]
                        or (key.split("::")[0] not in collected["files"] and (root / key.split("::")[0]).exists())}
    return merged


def pytest_sessionfinish(session):
    if session.config.getoption("--record-durations") and _recorded["tests"]:
        merged = merged_durations(recorded_durations(), _recorded, _collected, Path(str(session.config.rootpath)))
        DURATIONS.write_text(json.dumps(merged, indent=0, sort_keys=True) + "\n", encoding="utf-8")


def pytest_configure(config):
    # The seconds of a test and of its fixtures are read where it runs: in this process alone.
    if config.getoption("--record-durations") and getattr(config.option, "numprocesses", None):
        raise pytest.UsageError("--record-durations times the tests one at a time: run it without -n")


def pytest_addoption(parser):
    parser.addoption("--record-durations", action="store_true",
                     help="write each test's seconds into tests/durations.json (the quick subset's cut)")
    parser.addoption("--update-golden", action="store_true",
                     help="rewrite tests/golden/ from the current templates instead of comparing")


@pytest.fixture
def update_golden(request) -> bool:
    return request.config.getoption("--update-golden")


# What only a POSIX system (Linux, macOS) has: FIFOs, file modes, kill -9, /dev/zero, stand-in
# tools written as #!/bin/sh scripts and found through a ":"-separated PATH. A test that needs
# one of them says which, and is skipped on Windows with that reason.
POSIX = os.name == "posix"


def needs_posix(why: str) -> pytest.MarkDecorator:
    return pytest.mark.skipif(not POSIX, reason=f"needs a POSIX system (Linux or macOS): {why}")


def _can_symlink() -> bool:
    """Whether this user may make symbolic links here: Windows allows it only to an
    administrator or in developer mode."""
    with tempfile.TemporaryDirectory() as folder:
        link = Path(folder) / "link"
        try:
            link.symlink_to(folder, target_is_directory=True)
        except (OSError, NotImplementedError):
            return False
        return link.is_symlink()


needs_symlinks = pytest.mark.skipif(
    not _can_symlink(),
    reason="this user cannot make symbolic links (Windows: run as an administrator or turn on developer mode)",
)

NIX_INSTANTIATE = shutil.which("nix-instantiate")
needs_nix = pytest.mark.skipif(
    NIX_INSTANTIATE is None,
    reason="nix-instantiate not found: install it (apt-get install nix-bin) to evaluate the recipes",
)


def nix_eval(expression: str, cwd: Path | None = None) -> object:
    """Evaluate a Nix expression strictly with the real nix-instantiate; return it as JSON data."""
    result = subprocess.run(
        [NIX_INSTANTIATE, "--eval", "--strict", "--json", "--expr", expression],
        cwd=cwd, capture_output=True, text=True,
    )
    if result.returncode != 0:
        raise NixError(result.stderr)
    return json.loads(result.stdout)


class NixError(Exception):
    pass


SHELL_EXPORT = re.compile(r"^\s*export ([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.M)


def shell_exports(text: str) -> dict[str, str]:
    """The `export NAME=value` lines of a shell fragment (a derivation's preConfigure), by
    name, each value without the quotes around it (lib.escapeShellArg writes 'value')."""
    return {name: value.strip().strip('"').strip("'") for name, value in SHELL_EXPORT.findall(text)}


def nix_string(path: Path) -> str:
    """A path as a Nix path literal (absolute, so it works from any folder)."""
    return str(path.resolve())


@pytest.fixture
def run():
    """Run the gen-matrix CLI in-process; returns click's Result (exit_code, stdout, stderr).
    Its lines are not wrapped (COLUMNS=1000), so that a test of what is said reads each line
    whole; tests/test_terminal.py tests the wrapping at the default width."""
    runner = CliRunner(env={"COLUMNS": "1000"})

    def invoke(*args: str):
        return runner.invoke(main, [str(a) for a in args], catch_exceptions=False)

    return invoke


@pytest.fixture
def project(tmp_path) -> Path:
    """A fresh repository holding the tests' matrix (tests/fixtures/matrix.yaml) and nothing generated yet."""
    shutil.copy(FIXTURE_MATRIX, tmp_path / "matrix.yaml")
    return tmp_path


def expansion_of(root: Path):
    return generator_run.expansion(locate(str(root / "matrix.yaml"), str(root)))


def with_ci(expansion, **settings):
    """`expansion` with these settings of its matrix's ci block."""
    matrix = dataclasses.replace(expansion.matrix, ci=dataclasses.replace(expansion.matrix.ci, **settings))
    return dataclasses.replace(expansion, matrix=matrix)


def reference_names() -> list[str]:
    """The package names a real hand-kept repository ships on its main branch."""
    return sorted(line.strip() for line in REFERENCE_NAMES.read_text().splitlines() if line.strip())


FAKES = REPO / "tests" / "nix" / "fakes.nix"


def fake_for(variant, matrix) -> str:
    """The Nix expression of the test package set that impersonates `variant`'s pin on its system."""
    pin = next(p for p in matrix.pins if p.name == variant.pin)
    return f'(import {FAKES})."{pin.rev}"."{variant.system}"'


def drv_paths(root: Path, names=None) -> dict[str, dict[str, str]]:
    """Per recipe of the repository at `root`, the drvPaths of its published wrapper and of its
    heavy build, evaluated against the package set of its pin: {name: {"wrapper", "build"}}."""
    expansion = expansion_of(root)
    variants = [v for v in expansion.variants if names is None or v.name in names]
    body = "".join(
        f'"{v.name}" = let r = import {root / ".flox/pkgs" / (v.name + ".nix")} '
        f'{{ genMatrixNixpkgs = {fake_for(v, expansion.matrix)}; }}; '
        f'in {{ wrapper = r.drvPath; build = r.unwrapped.drvPath; }};\n' for v in variants)
    return nix_eval("{\n" + body + "}")


def markdown_inline(text: str, table: bool = False) -> list[list[tuple[str, str]]]:
    """How GitHub's Markdown (CommonMark, tables, strikethrough) reads `text`: for each line of
    inline text (a paragraph, a heading, a table cell), its pieces as (token type, content).
    Escaped markup comes back as `text` pieces; emphasis, links or HTML as their own types."""
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    return [[(child.type, child.content) for child in token.children or ()]
            for token in parser.parse(text) if token.type == "inline"]


def markdown_cells(text: str) -> list[str]:
    """The plain text of every inline piece of `text` (table cells among them), where it holds
    nothing but text; a piece with markup comes back as its token types, so it never matches."""
    return ["".join(content for _, content in pieces) if all(kind == "text" for kind, _ in pieces)
            else repr([kind for kind, _ in pieces]) for pieces in markdown_inline(text)]


# --- gen-matrix as its users get it: tests/test_package.py, tests/test_first_run.py ------------

# Written by the release workflow before it builds (.github/workflows/release.yml), ignored by git.
RELEASE_FILE = "generator/release.json"


def copy_checkout(destination: Path, leave: tuple[str, ...] = ()) -> Path:
    """This checkout as git sees it (what a fresh clone holds, with the files not yet committed),
    copied to `destination`, less the top-level entries named in `leave`: nothing git ignores
    (venvs, .deps/, build folders) comes along."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                            capture_output=True, text=True, check=True).stdout.splitlines()
    destination.mkdir(parents=True, exist_ok=True)
    for path in listed:
        if path.split("/")[0] not in leave and (REPO / path).is_file() and not (REPO / path).is_symlink():
            (destination / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / path, destination / path)
    return destination


@pytest.fixture(scope="session")
def dists(tmp_path_factory) -> tuple[Path, Path]:
    """The wheel and the sdist: given, or built from a copy of this checkout as git sees it (what
    a fresh clone holds), with the release file the release workflow writes before it builds."""
    given = os.environ.get("GEN_MATRIX_WHEEL"), os.environ.get("GEN_MATRIX_SDIST")
    if all(given):
        return Path(given[0]).resolve(), Path(given[1]).resolve()
    source = copy_checkout(tmp_path_factory.mktemp("source"))
    # as the release workflow writes it
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()
    (source / RELEASE_FILE).write_text(json.dumps({"repository": "OWNER/gen-matrix", "rev": head}) + "\n")
    out = tmp_path_factory.mktemp("dist")
    build = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", out, source],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stdout + build.stderr
    (wheel,) = out.glob("*.whl")
    (sdist,) = out.glob("*.tar.gz")
    return Path(given[0]).resolve() if given[0] else wheel, Path(given[1]).resolve() if given[1] else sdist


@pytest.fixture(scope="session")
def installed(dists, tmp_path_factory) -> Path:
    """A venv outside the checkout with the wheel installed; returns its scripts folder."""
    home = tmp_path_factory.mktemp("venv")
    venv.create(home, with_pip=True)
    scripts = home / ("Scripts" if os.name == "nt" else "bin")
    python = scripts / ("python.exe" if os.name == "nt" else "python")
    pip = subprocess.run([python, "-m", "pip", "install", "--no-deps", "--no-index", dists[0]],
                         capture_output=True, text=True)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    project = tomlkit.parse((REPO / "pyproject.toml").read_text(encoding="utf-8")).unwrap()["project"]
    requirements = [re.match(r"[A-Za-z0-9._-]+", r).group(0) for r in project["dependencies"]]
    folders = {str(importlib.metadata.distribution(name).locate_file("")) for name in requirements}
    Path(site, "gen-matrix-test-dependencies.pth").write_text("".join(f"{folder}\n" for folder in sorted(folders)))
    return scripts
