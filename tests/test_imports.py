"""What a command imports: the libraries and modules that only some runs need are imported by
those runs alone, for every run pays for what it imports. Each run is a fresh process, the way a
user runs gen-matrix; the tests elsewhere show that each of these, where it is imported, does
its work."""

from __future__ import annotations

import json
import shutil
import importlib.util
import subprocess
import sys

import pytest

from conftest import FIXTURE_MATRIX, REPO

# Each is imported where a run needs it: tomlkit to edit a Flox manifest or read a pyproject.toml,
# filelock to take the run lock where Python has no fcntl (Windows), jsonschema to word what is
# wrong with a matrix that the validator generated from the schema refuses, the rest by the
# command or the folder they serve.
ON_DEMAND = ("tomlkit", "filelock", "importlib.metadata", "jsonschema", "generator.commands.buildenv",
             "generator.commands.measured",
             "generator.outputs.reference")
RUN = ("import json, sys\n"
       "from generator.cli import main\n"
       "status = 0\n"
       "try:\n"
       "    main(sys.argv[1:], prog_name='gen-matrix')\n"
       "except SystemExit as done:\n"
       "    status = done.code or 0\n"
       f"print(json.dumps([status, sorted(set(sys.modules) & {set(ON_DEMAND)!r})]))\n")


# The run lock: flock through fcntl on POSIX, filelock's LockFileEx on Windows.
LOCK = [] if importlib.util.find_spec("fcntl") else ["filelock"]


def imported(*args, status: int = 0) -> list[str]:
    """Which of ON_DEMAND a run of `gen-matrix ARGS` in a fresh process imported; it exits with `status`."""
    done = subprocess.run([sys.executable, "-c", RUN, *map(str, args)], cwd=REPO, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    exited, modules = json.loads(done.stdout.splitlines()[-1])
    assert exited == status, done.stderr[-2000:]
    return modules


@pytest.fixture
def repository(tmp_path):
    shutil.copy(FIXTURE_MATRIX, tmp_path / "matrix.yaml")
    return tmp_path


def test_a_first_generate_imports_no_more_than_the_lock_and_check_the_manifest_editor_alone(repository):
    # no manifest to edit yet (a new one is rendered), no pyproject.toml, no measured/
    assert imported("generate", "--root", repository) == LOCK
    # check takes no lock; the manifest is now there, and tomlkit reads it
    assert imported("check", "--root", repository) == ["tomlkit"]
    assert imported("--root", repository) == sorted(LOCK + ["tomlkit"])


def test_the_measurements_reader_is_imported_where_the_repository_keeps_measurements(repository):
    (repository / "measured").mkdir()
    assert "generator.commands.measured" in imported("generate", "--root", repository)


def test_the_env_and_reference_modules_are_imported_by_the_runs_that_use_them(repository):
    assert imported("env", "pytorch-python313-cpu-avx2", "--root", repository) == ["generator.commands.buildenv"]
    # gen-matrix's own source tree, where the reference of matrix.yaml is generated too
    (repository / "pyproject.toml").write_text('[project]\nname = "gen-matrix"\n')
    assert imported("generate", "--root", repository) == sorted(LOCK + ["generator.outputs.reference", "tomlkit"])


def test_a_matrix_that_pins_no_gen_matrix_reads_the_installation_without_importlib_metadata(repository):
    """The default pin, and the warning that there is none, read this gen-matrix's installation
    record and metadata themselves: importlib.metadata would import email's parser."""
    matrix = repository / "matrix.yaml"
    text = matrix.read_text()
    matrix.write_text(text.replace("\n  gen_matrix: github:acme/gen-matrix/0123456789abcdef0123456789abcdef01234567", ""))
    assert matrix.read_text() != text
    assert imported("generate", "--root", repository) == LOCK


def test_jsonschema_is_imported_where_the_matrix_breaks_the_schema_alone(repository):
    # the runs above, of matrices the schema takes, leave it out: the generated validator takes them
    matrix = repository / "matrix.yaml"
    matrix.write_text(matrix.read_text(encoding="utf-8") + "bulid: {jobs: 8}\n", encoding="utf-8")
    assert imported("generate", "--root", repository, status=2) == ["jsonschema"]
    assert imported("check", "--root", repository, status=2) == ["jsonschema"]
