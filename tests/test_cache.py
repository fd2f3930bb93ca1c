"""The cache: a run that found the tree current lets the next one with the same inputs skip
the pipeline, and nothing it holds can make a stale or edited tree pass."""

from __future__ import annotations

import builtins
import io
import json
import os
import subprocess
import sys

import pytest

from generator import cache, layout, pipeline

from conftest import REPO

RECIPE = ".flox/pkgs/pytorch-python313-cuda12_8-sm90-avx512.nix"


@pytest.fixture
def current(project, run):
    """A generated tree, and a check that found it current (so the cache holds its record)."""
    assert run("--root", project).exit_code == 0
    assert run("check", "--root", project).exit_code == 0
    return project


@pytest.fixture
def no_pipeline(monkeypatch):
    """Make any use of the pipeline fail: what passes then was answered by the cache."""
    def refuse(*args, **kwargs):
        raise AssertionError("the pipeline ran")
    monkeypatch.setattr(pipeline, "expansion", refuse)


def test_a_current_tree_is_answered_from_the_record(current, run, no_pipeline):
    result = run("check", "--root", current)
    assert result.exit_code == 0 and "generated files are current" in result.stdout
    generate = run("--root", current)
    assert generate.exit_code == 0 and "62 variants; 0 written, 68 unchanged, 0 removed" in generate.stdout


def test_the_record_lives_outside_the_tree(current, cache_folder):
    record = json.loads(cache.record_file(pipeline.locate(None, str(current))).read_text())
    assert cache.record_file(pipeline.locate(None, str(current))).parent == cache_folder
    assert record["root"] == os.path.abspath(current) and len(record["outputs"]) == 68
    assert not [p for p in current.rglob("*") if "cache" in p.name]


def test_no_cache_runs_every_stage(current, run, no_pipeline):
    with pytest.raises(AssertionError, match="the pipeline ran"):
        run("check", "--no-cache", "--root", current)


@pytest.mark.parametrize("change", ["edit", "delete", "append"])
def test_a_changed_output_is_caught_despite_the_record(current, run, change):
    recipe = current / RECIPE
    if change == "edit":
        recipe.write_text(recipe.read_text().replace('"9.0"', '"8.9"'))
    elif change == "delete":
        recipe.unlink()
    else:
        recipe.write_text(recipe.read_text() + "\n")
    result = run("check", "--root", current)
    assert result.exit_code == 1
    assert (f"missing: {RECIPE}" if change == "delete" else f"--- a/{RECIPE}") in result.stdout
    assert run("--root", current).exit_code == 0
    assert run("check", "--root", current).exit_code == 0


def test_a_stale_generated_file_is_caught_despite_the_record(current, run):
    extra = current / ".flox/pkgs/pytorch-python313-cpu-sse.nix"
    extra.write_text((current / ".flox/pkgs/pytorch-python313-cpu-avx2.nix").read_text())
    result = run("check", "--root", current)
    assert result.exit_code == 1 and "extra (no longer in the matrix): .flox/pkgs/pytorch-python313-cpu-sse.nix" in result.stdout
    assert "1 removed" in run("--root", current).stdout


def test_a_file_of_the_users_beside_the_recipes_is_no_reason_to_run(current, run, no_pipeline):
    (current / ".flox/pkgs/notes.txt").write_text("mine\n")
    assert run("check", "--root", current).exit_code == 0


@pytest.mark.parametrize("edit", [
    ("matrix.yaml", lambda text: text.replace("jobs: 32", "jobs: 8")),
    ("matrix.yaml", lambda text: text + "\n# a comment changes no output, but it is another input\n"),
    (layout.README_FILE, lambda text: "# mine\n" + text),
    (layout.STATE_FILE, lambda text: text.replace('"revision": 0', '"revision": 3', 1)),
])
def test_changed_inputs_run_the_pipeline(current, run, monkeypatch, edit):
    name, change = edit
    path = current / name
    path.write_text(change(path.read_text()) if path.exists() else change(""))
    ran = []
    real = pipeline.expansion
    monkeypatch.setattr(pipeline, "expansion", lambda *a, **k: ran.append(1) or real(*a, **k))
    run("check", "--root", current)
    assert ran


def test_another_version_of_gen_matrix_does_not_trust_the_record(current, run, monkeypatch):
    ran = []
    real = pipeline.expansion
    monkeypatch.setattr(pipeline, "expansion", lambda *a, **k: ran.append(1) or real(*a, **k))
    monkeypatch.setattr(cache, "tool_digest", lambda: "another gen-matrix")
    assert run("check", "--root", current).exit_code == 0
    assert ran


@pytest.mark.parametrize("damage", ["", "{", "[]", '{"inputs": 1}', '{"inputs": "x", "outputs": {}, "variants": 1, "warnings": []}'])
def test_a_damaged_record_is_ignored(current, run, damage):
    cache.record_file(pipeline.locate(None, str(current))).write_text(damage)
    recipe = current / RECIPE
    recipe.write_text(recipe.read_text() + "# edited\n")
    assert run("check", "--root", current).exit_code == 1
    assert run("--root", current).exit_code == 0
    assert run("check", "--root", current).exit_code == 0


def test_only_a_run_that_found_the_tree_current_is_recorded(project, run):
    assert run("--root", project).exit_code == 0  # wrote everything: nothing recorded
    assert not cache.record_file(pipeline.locate(None, str(project))).exists()
    recipe = project / RECIPE
    recipe.write_text(recipe.read_text() + "# edited\n")
    assert run("check", "--root", project).exit_code == 1  # not current: nothing recorded
    assert not cache.record_file(pipeline.locate(None, str(project))).exists()


def test_warnings_are_repeated_from_the_record(project, run, monkeypatch):
    matrix = project / "matrix.yaml"
    matrix.write_text(matrix.read_text().replace("      only: {isa: [avx, avx2]}\n",
                                                 "      only: {isa: [avx, avx2]}\n  exclude:\n    - {sm: sm61, isa: avx512}\n"))
    run("--root", project)
    first = run("check", "--root", project)
    assert "matches no variant" in first.stderr
    monkeypatch.setattr(pipeline, "expansion", lambda *a, **k: pytest.fail("the pipeline ran"))
    again = run("check", "--root", project)
    assert again.exit_code == 0 and again.stderr == first.stderr


def test_a_cache_that_cannot_be_written_is_no_error(project, run, monkeypatch, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("GEN_MATRIX_CACHE_DIR", str(blocker / "cache"))
    assert run("--root", project).exit_code == 0
    assert run("check", "--root", project).exit_code == 0


def test_a_full_run_reads_no_file_of_the_tree_but_the_inputs_the_record_hashes(project, run, monkeypatch):
    """The record is keyed on the matrix and layout.TREE_INPUTS: a run that read another file of
    the tree could give other outputs for the same key."""
    (project / layout.README_FILE).write_text("# a README\n")
    assert run("--root", project).exit_code == 0
    opened = []
    real = io.open

    def watch(file, *args, **kwargs):
        opened.append(os.path.abspath(file) if isinstance(file, (str, os.PathLike)) else file)
        return real(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", watch)
    monkeypatch.setattr(io, "open", watch)
    assert run("check", "--no-cache", "--root", project).exit_code == 0
    monkeypatch.undo()
    p = pipeline.locate(None, str(project))
    outputs = pipeline.outputs(p, pipeline.expansion(p))
    root = os.path.abspath(project)
    read = {os.path.relpath(f, root) for f in opened if isinstance(f, str) and f.startswith(root + os.sep)}
    assert read - set(outputs) <= {"matrix.yaml", *layout.TREE_INPUTS}, read - set(outputs)
    assert "matrix.yaml" in read and layout.README_FILE in read


def test_an_answer_from_the_record_loads_none_of_the_pipeline(tmp_path):
    """`gen-matrix check` on a current tree: no YAML, templates, schema or TOML."""
    env = dict(os.environ, GEN_MATRIX_CACHE_DIR=str(tmp_path / "cache"))
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "matrix.yaml").write_bytes((REPO / "matrix.yaml").read_bytes())
    for command in ([], ["check"]):
        subprocess.run([sys.executable, "-m", "generator", *command, "--root", str(tree)], env=env, check=True,
                       capture_output=True, cwd=REPO)
    probe = ("import sys\nfrom generator.cli import main\n"
             "try:\n    main(['check', '--root', sys.argv[1]])\nexcept SystemExit as exit:\n    assert not exit.code, exit.code\n"
             "loaded = sorted({'yaml', 'jinja2', 'jsonschema', 'tomlkit', 'generator.pipeline'} & set(sys.modules))\n"
             "assert not loaded, loaded\n")
    result = subprocess.run([sys.executable, "-c", probe, str(tree)], env=env, capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0, result.stderr
    assert "generated files are current" in result.stdout
