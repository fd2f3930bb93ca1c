"""gen-matrix as its users get it: the sdist and the wheel, checked as PyPI checks them, the wheel
installed into a venv of its own outside this checkout, and every command run from there on a
repository that `init` makes.

GEN_MATRIX_WHEEL and GEN_MATRIX_SDIST name a built wheel and sdist to test instead of building
them from this checkout (the release workflow tests the very files it publishes).

The new venv gets gen-matrix from the wheel alone (pip --no-deps --no-index: no network), and its
dependencies from where this Python finds them, through a .pth file; nothing of the checkout is
on its path, which the test checks."""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
import tomlkit

from conftest import FAKE_NIXPKGS, RELEASE_FILE, REPO, needs_nix

pytestmark = pytest.mark.slow

PYPROJECT = tomlkit.parse((REPO / "pyproject.toml").read_text(encoding="utf-8")).unwrap()
PROJECT = PYPROJECT["project"]
LAYOUT = PYPROJECT["tool"]["setuptools"]
GPU_NAME = "pytorch-python313-cuda12_8-sm89-avx2"  # in the newest example, which `init` starts from


def folder_of(package: str) -> str:
    return LAYOUT["package-dir"].get(package, package.replace(".", "/"))


def shipped_from(root: Path) -> set[str]:
    """What the wheel must carry, as paths inside it: each package's modules and the package data
    pyproject.toml names, found in root as setuptools finds them."""
    found = set()
    for package in LAYOUT["packages"]:
        folder = root / folder_of(package)
        for pattern in ["*.py", *LAYOUT["package-data"].get(package, [])]:
            for path in folder.glob(pattern):
                if path.is_file():
                    found.add(package.replace(".", "/") + "/" + path.relative_to(folder).as_posix())
    return found


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("work")


@pytest.fixture(scope="module")
def initialised(installed, work) -> tuple[Path, subprocess.CompletedProcess]:
    """`gen-matrix init repo` in the work folder: the repository, and what init said."""
    return work / "repo", gen_matrix(installed, work, "init", "repo")


def gen_matrix(scripts: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([scripts / "gen-matrix", *args], cwd=cwd, capture_output=True, text=True, env=env)


def test_twine_finds_both_fit_for_pypi(dists):
    result = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *dists], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("PASSED") == 2


def test_the_wheel_carries_every_module_and_the_package_data(dists):
    members = set(zipfile.ZipFile(dists[0]).namelist())
    assert shipped_from(REPO) <= members
    # one of each kind the commands read at run time
    for path in ("generator/knowledge.yaml", "generator/matrix.schema.json", "generator/commands/eval.nix",
                 "generator/templates/torch.nix.j2", "generator/nix/lib/default.nix",
                 "generator/examples/pytorch-2.10/matrix.yaml"):
        assert path in members
    assert not any(path.startswith(("tests/", "benchmarks/")) or "__pycache__" in path for path in members)
    release = json.loads(zipfile.ZipFile(dists[0]).read(RELEASE_FILE))
    assert set(release) == {"repository", "rev"} and re.fullmatch(r"[0-9a-f]{40}", release["rev"])
    (entry_points,) = [name for name in members if name.endswith(".dist-info/entry_points.txt")]
    assert "gen-matrix = generator.__main__:run" in zipfile.ZipFile(dists[0]).read(entry_points).decode()


def test_the_sdist_holds_what_the_wheel_is_built_from(dists):
    """Every file of the wheel, where the sdist keeps it (templates/ for generator/templates/, ...),
    and the release file wherever the wheel has one."""
    with tarfile.open(dists[1]) as sdist:
        members = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    dirs = sorted(((package.replace(".", "/") + "/", folder_of(package) + "/") for package in LAYOUT["packages"]),
                  key=lambda pair: -len(pair[0]))
    wheel = [name for name in zipfile.ZipFile(dists[0]).namelist() if not name.split("/")[0].endswith(".dist-info")]
    assert wheel
    for name in wheel:
        installed_as, kept_as = next((inside, folder) for inside, folder in dirs if name.startswith(inside))
        assert kept_as + name[len(installed_as):] in members, f"the sdist lacks {name} of the wheel"
    assert {"pyproject.toml", PROJECT["readme"], "PKG-INFO", RELEASE_FILE} <= members


def test_the_installed_command_is_the_wheels_and_knows_its_version(installed, work):
    result = gen_matrix(installed, work, "--version")
    assert result.returncode == 0, result.stderr
    assert PROJECT["version"] in result.stdout
    where = subprocess.run([installed / "python", "-c", "import generator; print(generator.__file__)"],
                           cwd=work, capture_output=True, text=True, check=True).stdout.strip()
    assert Path(where).is_relative_to(installed.parent) and not Path(where).is_relative_to(REPO)
    # gen-matrix's requirements are met; what pip says of other distributions on the borrowed
    # path (a torch there wanting a newer setuptools than the new venv's own) is not the wheel's
    check = subprocess.run([installed / "python", "-m", "pip", "check"], cwd=work, capture_output=True, text=True)
    assert check.stdout.strip(), check.stderr  # it ran
    problems = [line for line in check.stdout.splitlines() if line.lower().startswith(("gen-matrix ", "gen_matrix "))]
    assert not problems, check.stdout


def test_init_then_generate_check_list_show_and_explain(installed, initialised):
    repo, result = initialised
    assert result.returncode == 0, result.stdout + result.stderr
    for path in ("matrix.yaml", "README.md", "BUILD_MATRIX.md", ".github/workflows/flox-variants.yml",
                 f".flox/pkgs/{GPU_NAME}.nix", "nix/lib/default.nix"):
        assert (repo / path).is_file(), path
    generate = gen_matrix(installed, repo, "generate")
    assert generate.returncode == 0, generate.stderr
    assert gen_matrix(installed, repo, "check").returncode == 0
    recipe = repo / ".flox" / "pkgs" / f"{GPU_NAME}.nix"
    text = recipe.read_text()
    recipe.unlink()
    stale = gen_matrix(installed, repo, "check")
    assert gen_matrix(installed, repo, "generate").returncode == 0 and recipe.read_text() == text
    assert stale.returncode == 1 and f"missing: .flox/pkgs/{GPU_NAME}.nix" in stale.stdout
    names = gen_matrix(installed, repo, "list").stdout.split()
    assert GPU_NAME in names and len(names) == len(list((repo / ".flox" / "pkgs").glob("*.nix")))
    show = gen_matrix(installed, repo, "show", GPU_NAME)
    assert show.returncode == 0 and show.stdout.startswith(GPU_NAME) and "GeForce RTX 4090" in show.stdout
    explain = gen_matrix(installed, repo, "explain", GPU_NAME)
    assert explain.returncode == 0 and f"{GPU_NAME}: in the matrix" in explain.stdout


def test_detect_in_the_repository_and_env_outside_any(installed, work, initialised):
    repo, _ = initialised
    detect = gen_matrix(installed, repo, "detect", "--gpu", "RTX 4090", "--cpu-flags", "avx avx2 fma f16c",
                        "--uname", "Linux x86_64", "--name")
    assert detect.returncode == 0, detect.stderr
    assert re.fullmatch(r"pytorch-python3\d+-cuda\d+_\d+-sm89-avx2\n", detect.stdout)
    env = gen_matrix(installed, work, "env", "--gpu", "RTX 4090", "--cuda", "12.8", "--pytorch", "2.10")
    assert env.returncode == 0, env.stderr
    assert env.stdout.startswith("#!/usr/bin/env bash\n") and "sm89" in env.stdout
    script = work / "build.sh"
    script.write_text(env.stdout)
    assert subprocess.run(["bash", "-n", script]).returncode == 0


@needs_nix
def test_eval_of_a_recipe_against_the_test_package_set(installed, initialised):
    repo, _ = initialised
    result = gen_matrix(installed, repo, "eval", GPU_NAME, "--nixpkgs", str(FAKE_NIXPKGS))
    assert result.returncode == 0, result.stdout + result.stderr
    (line,) = [line for line in result.stdout.splitlines() if line.startswith(GPU_NAME)]
    assert line.count(".drv") == 2
    assert "1 recipes, 1 evaluated, 0 failed" in result.stdout


def test_a_wheel_built_without_a_release_record_starts_init_s_next_steps_with_the_pin(dists, tmp_path):
    # a wheel built from a local checkout, as the README says to before a release: the release
    # workflow's record left out, so it knows no commit a runner could fetch
    local = tmp_path / Path(dists[0]).name
    with zipfile.ZipFile(dists[0]) as wheel, zipfile.ZipFile(local, "w") as out:
        for item in wheel.infolist():
            if item.filename != RELEASE_FILE:
                out.writestr(item, wheel.read(item.filename))
    home = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", home], check=True)
    pip = subprocess.run([home / "bin" / "python", "-m", "pip", "install", "-q", "--no-deps", "--no-index", local],
                         capture_output=True, text=True)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    # its dependencies from this test's own environment, as the `installed` fixture gives them
    site = subprocess.run([home / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    folders = {str(importlib.metadata.distribution(re.match(r"[A-Za-z0-9._-]+", r)[0]).locate_file(""))
               for r in PROJECT["dependencies"]}
    Path(site, "deps.pth").write_text("".join(f"{folder}\n" for folder in sorted(folders)))
    made = gen_matrix(home / "bin", tmp_path, "init", "builds", "--example", "pytorch-2.8", "--uname", "Linux x86_64")
    assert made.returncode == 0, made.stdout + made.stderr
    first = made.stdout.split("next:\n", 1)[1].splitlines()[0].strip()
    # the home its metadata carries from pyproject.toml's [project.urls]
    home_url = PROJECT["urls"]["Repository"].removeprefix("https://github.com/")
    assert first.startswith(f"printf '\\nci:\\n  gen_matrix: \"%s\"\\n' 'github:{home_url}/<40-hex commit>' >> matrix.yaml")
    assert "workflow stops at its first step" in first
    assert "ci.gen_matrix is not set" in made.stderr
