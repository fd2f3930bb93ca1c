"""gen-matrix's own Nix expression (package.nix, default.nix, flake.nix), evaluated by the real
nix-instantiate against tests/nix/package-standin.nix: what it would ask nixpkgs to build.

What this cannot prove: that nixpkgs at the pinned revision builds it (nothing is built here,
and no nixpkgs can be fetched); the wheel's contents are tests/test_package.py's."""

from __future__ import annotations

import fnmatch
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import tomlkit

from conftest import NIX_INSTANTIATE, NixError, REPO, needs_nix, nix_eval

pytestmark = needs_nix

STANDIN = REPO / "tests" / "nix" / "package-standin.nix"
PYPROJECT = tomlkit.parse((REPO / "pyproject.toml").read_text(encoding="utf-8")).unwrap()
PROJECT = PYPROJECT["project"]
SYSTEMS = {"x86_64-linux", "aarch64-linux", "x86_64-darwin", "aarch64-darwin"}
# The pinned nixpkgs' Python packages, as far as they were read. In NixOS/nixpkgs,
# pkgs/development/python-modules/<name>/default.nix:
PIN = "00147e045f271a7f45750036af4f8083ecdeaf44"  # flake.nix's nixpkgs
AT_THE_PIN = {
    "filelock": "3.29.7",  # at PIN itself
    "markdown-it-py": "3.0.0",  # at d042614e169e092edc8c26225822107dd30dc866
    "jsonschema": "4.22.0",  # at cd2163ecbd32392011dd0244fc01f3df8976b1b7
    "archspec": "0.2.2",  # at b8103dfcb2dfeee2b489ef3445f6c91443828f79
    # tests/nix/nixpkgs/python.nix's versions (the generated recipes' pins, from 2025)
    "jinja2": "3.1.6",
    "pyyaml": "6.0.3",
    "setuptools": "80.9.0",
    # not read at any revision: the lowest release pyproject.toml accepts
    "click": "8.1",
    "tomlkit": "0.12",
}
TOMLKIT_TOO_OLD = "0.11.6"  # at 327ea678c528feb3b358d2800619d3bc9d73625c


def name_of(requirement: str) -> str:
    return re.match(r"[A-Za-z0-9._-]+", requirement).group(0).lower().replace("_", "-").replace(".", "-")


def lower_bound(requirement: str) -> str:
    return re.search(r">=\s*([0-9.]+)", requirement).group(1)


def standin(versions: dict[str, str], python: str = "3.13") -> str:
    return f"import {STANDIN} {{ versions = builtins.fromJSON ''{json.dumps(versions)}''; pythonVersion = \"{python}\"; }}"


def built(root: Path = REPO, versions: dict[str, str] = AT_THE_PIN, python: str = "3.13") -> dict:
    """What package.nix under root asks buildPythonApplication for, as JSON data."""
    return nix_eval(f"""
      let
        set = {standin(versions, python)};
        args = import {root / "package.nix"} {{ inherit (set) lib python3Packages; }};
        pkg = p: {{ inherit (p) pname version; src = p.src or null; overridden = p.overridden or false; }};
      in args // {{
        dependencies = map pkg args.dependencies;
        build-system = map pkg args.build-system;
        src = args.src.files;
      }}""")


@pytest.mark.parametrize("name", ["package.nix", "default.nix", "flake.nix"])
def test_it_parses(name):
    result = subprocess.run([NIX_INSTANTIATE, "--parse", REPO / name], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_name_version_script_and_python_floor_are_pyprojects():
    args = built()
    assert (args["pname"], args["version"], args["pyproject"]) == (PROJECT["name"], PROJECT["version"], True)
    assert args["meta"]["description"] == PROJECT["description"]
    assert args["meta"]["license"]["spdxId"] == PROJECT["license"]["text"]
    ((script, target),) = PROJECT["scripts"].items()
    assert args["meta"]["mainProgram"] == script == "gen-matrix"
    assert args["pythonImportsCheck"] == [target.split(":")[0]]
    floor = lower_bound(PROJECT["requires-python"])
    assert built(python=floor)["disabled"] is False
    older = f"{floor.split('.')[0]}.{int(floor.split('.')[1]) - 1}"
    assert built(python=older)["disabled"] is True


def test_the_dependencies_are_exactly_pyprojects():
    args = built()
    assert [dep["pname"] for dep in args["dependencies"]] == [name_of(r) for r in PROJECT["dependencies"]]
    assert [dep["pname"] for dep in args["build-system"]] == [name_of(r) for r in PYPROJECT["build-system"]["requires"]]
    for requirement, dep in zip(PROJECT["dependencies"], args["dependencies"]):
        assert tuple(map(int, dep["version"].split("."))) >= tuple(map(int, lower_bound(requirement).split(".")))


def test_a_dependency_older_than_pyprojects_bound_comes_from_pypi():
    (filelock,) = [dep for dep in built()["dependencies"] if dep["pname"] == "filelock"]
    assert filelock["overridden"] and filelock["version"] == "3.30.3"
    assert filelock["src"]["url"] == "mirror://pypi/f/filelock/filelock-3.30.3.tar.gz"
    assert filelock["src"]["hash"].startswith("sha256-")
    # a nixpkgs that already has it keeps its own
    (newer,) = [dep for dep in built(versions=AT_THE_PIN | {"filelock": "3.32.0"})["dependencies"]
                if dep["pname"] == "filelock"]
    assert (newer["overridden"], newer["version"], newer["src"]) == (False, "3.32.0", None)


def test_a_dependency_too_old_with_no_pypi_release_named_is_an_error_that_says_which():
    with pytest.raises(NixError) as error:
        built(versions=AT_THE_PIN | {"tomlkit": TOMLKIT_TOO_OLD})
    (requirement,) = [r for r in PROJECT["dependencies"] if name_of(r) == "tomlkit"]
    assert f"gen-matrix needs {requirement} (pyproject.toml), this nixpkgs has tomlkit {TOMLKIT_TOO_OLD}" in str(error.value)
    assert "package.nix" in str(error.value)


def test_the_source_is_the_packages_and_nothing_else(tmp_path):
    """A copy of the tracked files, with what a checkout gathers beside them (a venv, bytecode,
    a build folder): the source holds exactly the packages' folders, pyproject.toml and the
    README, and every kind of package data pyproject.toml names."""
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
    for path in [*tracked, "package.nix"]:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        if (REPO / path).is_file():
            shutil.copyfile(REPO / path, tmp_path / path)
    for stray in (".venv/lib/python3.13/site-packages/click/__init__.py", "generator/__pycache__/cli.cpython-313.pyc",
                  "build/lib/generator/cli.py", "generator/__pycache__/knowledge.yaml.marshal",
                  "generator/__pycache__/dataclasses.cpython-311.marshal",
                  "generator/__pycache__/dataclasses.cpython-311.marshal.4242.tmp",
                  "templates/__pycache__/0123abcd.f0708eda3d18cf28.cache"):
        (tmp_path / stray).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / stray).write_text("")
    layout = PYPROJECT["tool"]["setuptools"]
    folders = {layout["package-dir"].get(package, package.replace(".", "/")) for package in layout["packages"]}
    expected = {path for path in tracked if (REPO / path).is_file() and any(path.startswith(f"{folder}/") for folder in folders)}
    expected |= {"pyproject.toml", PROJECT["readme"]}
    source = built(root=tmp_path)["src"]
    assert set(source) == expected
    assert not any(path.startswith(("tests/", ".github/", "benchmarks/")) for path in source)
    for package, globs in layout["package-data"].items():
        folder = layout["package-dir"].get(package, package.replace(".", "/"))
        for glob in globs:
            assert fnmatch.filter(source, f"{folder}/{glob}"), f"no {folder}/{glob} in the source"


def test_default_nix_calls_package_nix_with_the_given_pkgs():
    args = nix_eval(f"""
      let
        set = {standin(AT_THE_PIN)};
        pkgs.callPackage = path: overrides: import path ({{ inherit (set) lib python3Packages; }} // overrides);
      in (import {REPO / "default.nix"} {{ inherit pkgs; }}).version""")
    assert args == PROJECT["version"]


def test_the_flake_builds_and_runs_it_on_four_systems_from_a_pinned_nixpkgs():
    flake = nix_eval(f"""
      let
        set = {standin(AT_THE_PIN)};
        genAttrs = names: f: builtins.listToAttrs (map (name: {{ inherit name; value = f name; }}) names);
        nixpkgs = {{
          lib = {{ inherit genAttrs; getExe = pkg: "/nix/store/…-${{pkg.pname}}/bin/${{pkg.meta.mainProgram}}"; }};
          legacyPackages = genAttrs [ "x86_64-linux" "aarch64-linux" "x86_64-darwin" "aarch64-darwin" ] (system: {{
            callPackage = path: overrides: import path ({{ inherit (set) lib python3Packages; }} // overrides);
          }});
        }};
        flake = import {REPO / "flake.nix"};
        outputs = flake.outputs {{ self = outputs; inherit nixpkgs; }};
      in {{
        url = flake.inputs.nixpkgs.url;
        packages = builtins.mapAttrs (_: p: p.default.version) outputs.packages;
        apps = outputs.apps;
      }}""")
    assert set(flake["packages"]) == set(flake["apps"]) == SYSTEMS
    assert set(flake["packages"].values()) == {PROJECT["version"]}
    for app in flake["apps"].values():
        assert app["default"] == {"type": "app", "program": "/nix/store/…-gen-matrix/bin/gen-matrix"}
    rev = re.fullmatch(r"github:NixOS/nixpkgs/([0-9a-f]{40})", flake["url"]).group(1)
    # package.nix names the revision at which it read filelock's version
    assert f"NixOS/nixpkgs@{rev}" in (REPO / "package.nix").read_text(encoding="utf-8")
    assert rev == PIN
