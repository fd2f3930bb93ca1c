"""scripts/mutation.py's module -> tests table covers every module, Nix file and template, and
every hand-written mutant of a Nix file or template still applies to the file as it is."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SCRIPTS = REPO / "scripts"


@pytest.fixture(scope="module")
def mutation():
    sys.path.insert(0, str(SCRIPTS))
    try:
        spec = importlib.util.spec_from_file_location("mutation", SCRIPTS / "mutation.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.path.remove(str(SCRIPTS))


def sources() -> set[str]:
    """Every file the table must name: generator's Python and Nix, nix/, templates/."""
    patterns = ("generator/**/*.py", "generator/**/*.nix", "nix/**/*.nix", "templates/**/*.j2")
    return {path.relative_to(REPO).as_posix() for pattern in patterns for path in REPO.glob(pattern)}


def test_every_module_nix_file_and_template_has_its_tests_named(mutation):
    named = {source for source, _ in mutation.MODULES.values()}
    missing = sources() - named - set(mutation.NO_LOGIC)
    assert not missing, f"not in scripts/mutation.py's MODULES (nor NO_LOGIC): {sorted(missing)}"
    assert not named & set(mutation.NO_LOGIC), "a file is both mutated and said to hold no logic"


def test_the_table_names_files_that_exist(mutation):
    for name, (source, tests) in mutation.MODULES.items():
        assert (REPO / source).is_file(), f"{name}: no {source}"
        assert tests, f"{name}: no tests named"
        for test in tests:
            assert (REPO / test).is_file() and Path(test).name.startswith("test_"), f"{name}: no test file {test}"
    for path in mutation.NO_LOGIC:
        assert (REPO / path).is_file(), f"NO_LOGIC names {path}, which does not exist"


def test_every_nix_file_and_template_has_mutants_that_apply(mutation):
    for name, (source, _) in mutation.MODULES.items():
        if source.endswith(".py"):
            continue
        mutants = mutation.MUTANTS.get(source, ())
        assert len(mutants) >= 3, f"{name}: {len(mutants)} hand-written mutants of {source}; write some"
        text = (REPO / source).read_text()
        for what, old, new in mutants:
            assert old != new, f"{source}: the mutant {what!r} changes nothing"
            assert text.count(old) == 1, f"{source}: the text of the mutant {what!r} is not there once"
            assert mutation.mutate(text, old, new) != text
    assert set(mutation.MUTANTS) <= {source for source, _ in mutation.MODULES.values()}, \
        "mutants of a file the table does not name"


def test_a_mutant_whose_text_is_not_there_once_is_refused(mutation):
    assert mutation.mutate("a b c", "b", "x") == "a x c"
    for text in ("a c", "b b"):
        with pytest.raises(ValueError):
            mutation.mutate(text, "b", "x")


def test_mutmuts_copy_of_the_repository_holds_every_file_a_test_may_read():
    # mutmut runs the tests in a copy (mutants/) of generator/, tests/ and also_copy alone: a
    # file left out fails a test in its first run, and then no mutant of the module is checked
    tomllib = pytest.importorskip("tomllib")
    listed = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: no list of the repository's files")
    top = {path.split("/", 1)[0] for path in listed.stdout.splitlines()}
    copied = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["mutmut"]["also_copy"])
    missing = top - copied - {"generator", "tests", "pyproject.toml"}
    assert not missing, f"not in [tool.mutmut] also_copy: {sorted(missing)}"


def test_an_entry_restricted_to_some_functions_names_functions_of_its_module(mutation):
    import ast
    for name, functions in mutation.FUNCTIONS.items():
        source = mutation.MODULES[name][0]
        tree = ast.parse((REPO / source).read_text())
        defined = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
        defined |= {f"{cls.name}.{node.name}" for cls in tree.body if isinstance(cls, ast.ClassDef)
                    for node in cls.body if isinstance(node, ast.FunctionDef)}
        assert set(functions) <= defined, f"{name}: no such function in {source}: {sorted(set(functions) - defined)}"
        assert len(set(functions)) == len(functions), f"{name}: a function named twice"


def test_a_mutant_is_counted_for_the_function_it_is_of(mutation):
    # mutmut's names: a function's mutants x_NAME__mutmut_N, a method's xǁCLASSǁNAME__mutmut_N
    mutation.FUNCTIONS["example"] = ("serves", "WheelFit.driver_for", "_branch")
    try:
        statuses = {"generator.knowledge.x_serves__mutmut_1": "killed",
                    "generator.knowledge.x_serves__mutmut_12": "survived",
                    "generator.knowledge.x__branch__mutmut_3": "killed",
                    "generator.knowledge.xǁWheelFitǁdriver_for__mutmut_18": "survived",
                    "generator.knowledge.x_code_runs__mutmut_2": "killed",
                    "generator.knowledge.x_serves_all__mutmut_1": "killed",
                    "generator.knowledge.xǁCudaǁdriver_for__mutmut_1": "killed",
                    "generator.knowledge.xǁWheelFitǁcommand__mutmut_4": "survived"}
        kept = mutation._restrict("example", statuses)
        assert sorted(kept) == ["generator.knowledge.x__branch__mutmut_3", "generator.knowledge.x_serves__mutmut_1",
                                "generator.knowledge.x_serves__mutmut_12",
                                "generator.knowledge.xǁWheelFitǁdriver_for__mutmut_18"]
        assert mutation._restrict("no-such-entry", statuses) == statuses
    finally:
        del mutation.FUNCTIONS["example"]


def test_a_scratch_copy_is_a_git_repository_of_its_own_holding_its_files(mutation, tmp_path, monkeypatch):
    # as in a checkout: the scratch folder lies inside a git repository that ignores it
    outer = tmp_path / "outer"
    outer.mkdir()
    (outer / ".gitignore").write_text(".mutation/\n")
    subprocess.run(["git", "init", "-q", str(outer)], check=True, capture_output=True)
    monkeypatch.setattr(mutation, "SCRATCH", outer / ".mutation")
    for name in ("nix-default", "tpl-show"):
        source, tests = mutation.MODULES[name]
        root = mutation.scratch_copy(name, source, tests)

        def git(*args: str) -> str:
            return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout

        assert Path(git("rev-parse", "--show-toplevel").strip()).resolve() == root.resolve()
        listed = set(git("ls-files", "--cached", "--others", "--exclude-standard").split())
        present = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and ".git" not in p.parts}
        assert listed == present
        assert {source, *tests, "tests/conftest.py"} <= listed


def test_a_narrower_selection_may_name_single_tests_and_names_none_whose_file_is_gone(mutation, tmp_path,
                                                                                     monkeypatch):
    """--tests takes files or single tests (FILE::NAME, as pytest names them): mutmut's
    selection in the scratch copy keeps both, in their order, and drops those whose file the
    copy has not."""
    outer = tmp_path / "outer"
    outer.mkdir()
    subprocess.run(["git", "init", "-q", str(outer)], check=True, capture_output=True)
    monkeypatch.setattr(mutation, "SCRATCH", outer / ".mutation")
    kept = ("tests/test_list_show.py::test_show_prints_a_variant", "tests/test_ci.py",
            "tests/test_ci.py::test_a_cache_reaches_the_build_jobs[x]", "tests/test_cli.py::TestX::test_y")
    gone = ("tests/test_gone.py::test_x", "tests/test_gone.py", "tests/no_such_folder::test_y")
    asked = (gone[0], kept[0], kept[1], gone[1], kept[2], kept[3], gone[2])
    source, _ = mutation.MODULES["tpl-show"]
    root = mutation.scratch_copy("tpl-show", source, asked)
    import tomlkit

    selection = tomlkit.parse((root / "pyproject.toml").read_text())["tool"]["mutmut"]["pytest_add_cli_args_test_selection"]
    assert list(selection) == list(kept)
    assert mutation.present(root, asked) == list(kept)
