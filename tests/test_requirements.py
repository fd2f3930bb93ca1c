"""The lock the tests are installed from (requirements/test.txt) satisfies pyproject.toml, with a
hash on every line, and is what the README, .ci/run and the project's workflow install."""

from __future__ import annotations

import importlib.util
import re
import shlex

import pytest
import tomlkit
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

from conftest import REPO

LOCK = REPO / "requirements" / "test.txt"


def lock_module():
    spec = importlib.util.spec_from_file_location("lock_script", REPO / "scripts" / "lock.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def entries(text: str) -> list[tuple[str, str, str, list[str]]]:
    """(name, version, marker, hashes) of each pinned package of a hashed requirements file."""
    found = []
    for block in re.split(r"\n(?=[A-Za-z0-9])", text):
        first = block.split("\\\n", 1)[0]
        pinned = re.match(r"([A-Za-z0-9_.-]+)==(\S+?)\s*(?:;\s*(.*?))?\s*$", first.strip())
        if pinned:
            found.append((pinned[1], pinned[2], pinned[3] or "", re.findall(r"--hash=sha256:([0-9a-f]{64})", block)))
    return found


def normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def project() -> dict:
    return tomlkit.parse((REPO / "pyproject.toml").read_text())["project"]


ENVIRONMENTS = [  # where the project's workflow runs the suite
    {"python_full_version": python, "python_version": python.rsplit(".", 1)[0], "sys_platform": platform,
     "platform_system": system, "os_name": os_name, "platform_machine": machine,
     "implementation_name": "cpython", "platform_python_implementation": "CPython", "extra": ""}
    for python in ("3.10.12", "3.11.9", "3.13.1")
    for platform, system, os_name, machine in (("linux", "Linux", "posix", "x86_64"), ("darwin", "Darwin", "posix", "arm64"),
                                               ("win32", "Windows", "nt", "AMD64"))
]


def pinned_for(environment: dict) -> dict[str, str]:
    versions: dict[str, str] = {}
    for name, version, marker, _ in entries(LOCK.read_text()):
        if not marker or Marker(marker).evaluate(environment):
            assert normal(name) not in versions, f"{name} is pinned twice for {environment}"
            versions[normal(name)] = version
    return versions


@pytest.mark.parametrize("environment", ENVIRONMENTS,
                         ids=[f"{e['sys_platform']}-{e['python_version']}" for e in ENVIRONMENTS])
def test_the_lock_pins_every_dependency_and_test_dependency_within_pyprojects_bounds(environment):
    versions = pinned_for(environment)
    wanted = [*project()["dependencies"], *project()["optional-dependencies"]["test"]]
    for text in wanted:
        requirement = Requirement(text)
        if requirement.marker and not requirement.marker.evaluate(environment):
            continue
        name = normal(requirement.name)
        assert name in versions, f"{requirement.name} is not in requirements/test.txt: run python scripts/lock.py"
        assert requirement.specifier.contains(versions[name], prereleases=True), (
            f"requirements/test.txt pins {requirement.name}=={versions[name]}, outside {requirement.specifier}: "
            "run python scripts/lock.py")


def test_every_locked_package_has_its_hashes():
    found = entries(LOCK.read_text())
    assert len(found) > 20
    for name, version, _, hashes in found:
        assert hashes, f"{name}=={version} has no hash"
        assert len(set(hashes)) == len(hashes)


def test_the_entries_reader_sees_what_pip_would_install():
    text = ("# a comment\nabc==1.0 \\\n    --hash=sha256:" + "a" * 64 + "\n    # via x\n"
            "d-e==2.0 ; sys_platform == 'win32' \\\n    --hash=sha256:" + "b" * 64 + " \\\n    --hash=sha256:"
            + "c" * 64 + "\nnohash==3.0\n")
    assert entries(text) == [("abc", "1.0", "", ["a" * 64]),
                             ("d-e", "2.0", "sys_platform == 'win32'", ["b" * 64, "c" * 64]),
                             ("nohash", "3.0", "", [])]


def test_the_readme_and_ci_install_the_lock_and_then_gen_matrix_without_its_dependencies():
    readme = (REPO / "README.md").read_text()
    test_command = next(line for line in readme.splitlines() if " -m pytest" in line)
    words = shlex.split(test_command)
    assert "requirements/test.txt" in words and words[words.index("requirements/test.txt") - 1] == "-r"
    gen_matrix = test_command.split("&&")[2].split()
    assert {"--no-deps", "-e", "."} <= set(gen_matrix)
    assert "[test]" not in test_command
    ci = (REPO / ".ci" / "run").read_text()
    assert ci.rstrip().splitlines()[-1] == test_command
    workflow = (REPO / ".github" / "workflows" / "tests.yml").read_text()
    assert "pip install -r requirements/test.txt" in workflow and "'.[test]'" not in workflow


def test_minimal_pins_each_runtime_dependency_at_its_lower_bound():
    pins = lock_module().lower_bounds()
    assert len(pins) == len(project()["dependencies"]) >= 2
    for pin, requirement in zip(pins, project()["dependencies"]):
        name, version = pin.split("==")
        parsed = Requirement(requirement)
        assert normal(name) == normal(parsed.name)
        assert SpecifierSet(f">={version}") == parsed.specifier  # exactly the bound, nothing looser


def test_a_dependency_without_a_plain_lower_bound_is_refused(monkeypatch):
    module = lock_module()
    monkeypatch.setattr(module, "dependencies", lambda: ["click>=8.1", "jinja2<4"])
    with pytest.raises(SystemExit) as error:
        module.lower_bounds()
    assert "jinja2<4" in str(error.value) and "NAME>=VERSION" in str(error.value)
