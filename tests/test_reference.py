"""docs/reference.md, the matrix.yaml reference: generated from the schema's descriptions in
gen-matrix's own checkout, checked by `check` there, and never written into a matrix's repository."""

from __future__ import annotations

import copy
import shutil

import pytest

from conftest import REPO
from generator.outputs import reference
from generator.pipeline import load, schema as schema_, validate
from generator.layout import REFERENCE_FILE


@pytest.fixture
def checkout(tmp_path):
    """A copy of gen-matrix's checkout as far as a run reads it: pyproject.toml names the
    project, and the shipped matrix.yaml."""
    for name in ("pyproject.toml", "matrix.yaml"):
        shutil.copy(REPO / name, tmp_path / name)
    return tmp_path


def test_the_checkout_gets_the_reference_and_check_holds_it_current(checkout, run):
    assert run("--root", checkout).exit_code == 0
    text = (checkout / REFERENCE_FILE).read_text()
    assert text == (REPO / REFERENCE_FILE).read_text()
    assert "/docs/reference.md text eol=lf" in (checkout / ".gitattributes").read_text()
    assert run("check", "--root", checkout).exit_code == 0


def test_an_edited_schema_description_changes_the_reference_and_check_fails_on_the_stale_one(
        checkout, run, monkeypatch):
    assert run("--root", checkout).exit_code == 0
    edited = schema_.schema()
    edited["properties"]["ci"]["properties"]["main_branch"]["description"] = "the branch that publishes, newly worded"
    monkeypatch.setattr(reference, "read_schema", lambda: copy.deepcopy(edited))
    stale = run("check", "--root", checkout)
    assert stale.exit_code == 1 and REFERENCE_FILE in stale.stdout
    assert "the branch that publishes, newly worded" in stale.stdout
    assert run("--root", checkout).exit_code == 0
    row = next(line for line in (checkout / REFERENCE_FILE).read_text().splitlines() if "`ci.main_branch`" in line)
    assert row.endswith("| the branch that publishes, newly worded |")


def test_a_matrix_repository_gets_no_reference(project, run):
    assert run("--root", project).exit_code == 0
    assert not (project / "docs").exists()
    assert "reference.md" not in (project / ".gitattributes").read_text()


def test_every_key_of_the_schema_is_listed_with_a_description():
    rows = {row.path: row for row in reference.rows(schema_.schema())}
    for path in ("pytorch.version", "nixpkgs.pins[].when", "gpu.restrict[].only.isa", "companions[].when.kind",
                 "knowledge.fixes.<name>.when.pytorch", "ci.cache.secret", "ci.gpu_runners[].sm"):
        assert path in rows, path
    assert [path for path, row in rows.items() if not row.description] == []
    assert rows["ci.cache.type"].allowed == 'one of "cachix", "attic", "s3", "flox"'
    assert rows["ci.shard_size"].allowed == "at least 1; at most 256"
    assert rows["nixpkgs.sha256"].type == "text or null"
    assert rows["pytorch.version"].required and rows["ci.cache.type"].required
    assert not rows["pytorch.source.owner"].required and not rows["ci.cache.name"].required


MINIMAL = """\
pytorch:
  version: "2.8.0"
  source: {rev: v2.8.0, hash: "sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}
nixpkgs:
  rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3
cpu:
  python: ["3.13"]
  isa: [avx2]
"""


def test_each_default_the_reference_shows_is_the_one_gen_matrix_takes(tmp_path):
    path = tmp_path / "matrix.yaml"
    # and a remote builder that leaves out what it may
    path.write_text(MINIMAL + "ci:\n  builders: [{url: 'ssh-ng://b', systems: [x86_64-linux], ssh_key_secret: K, "
                    "known_hosts_secret: H}]\n")
    matrix = validate.validate(load.read(path, "matrix.yaml"))
    ci = matrix.ci
    taken = {"pytorch.source.owner": matrix.torch_source.owner, "pytorch.source.repo": matrix.torch_source.repo,
             "nixpkgs.capability_scope": matrix.capability_scope, "build.jobs": matrix.jobs,
             "build.system_features": list(matrix.system_features),
             "build.compiler_cache": matrix.compiler_cache or "none",  # off is None in the model
             "ci.organisation_variable": ci.organisation_variable, "ci.main_branch": ci.main_branch,
             "ci.timeout_minutes": ci.timeout_minutes, "ci.shard_size": ci.shard_size,
             "ci.plan_runner": list(ci.plan_runner),
             "ci.builders[].features": list(ci.builders[0].features), "ci.builders[].max_jobs": ci.builders[0].max_jobs}
    taken.update({f"ci.runners.{system}": list(labels) for system, labels in ci.runners.items()})
    taken.update({f"ci.kind_runners.{kind}.{system}": list(labels)
                  for kind, systems in ci.kind_runners.items() for system, labels in systems.items()})
    shown = {row.path: row.default for row in reference.rows(schema_.schema()) if row.default}
    assert shown == {path: reference.json.dumps(value) for path, value in taken.items()}
