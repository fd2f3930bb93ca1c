"""Metadata revisions: a metadata-only change bumps exactly the variants it touches."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from generator import layout
from generator import run as generator_run
from generator.pipeline import state

from conftest import expansion_of

STATE = state.STATE_FILE


def entries(root: Path) -> dict[str, state.Entry]:
    return state.read(root).entries


def edit(root: Path, old: str, new: str) -> None:
    path = root / "matrix.yaml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def generate(run, root: Path) -> str:
    result = run("--root", root)
    assert result.exit_code == 0, result.output
    return result.stdout


GPU_DESCRIPTION = 'description:\n  gpu: "PyTorch {pytorch} for {gpus} ({sm}), {isa} CPUs, CUDA {cuda}"\n'


def test_metadata_only_edit_bumps_exactly_the_affected_variants(project, run):
    generate(run, project)
    before = entries(project)
    assert set(e.revision for e in before.values()) == {0}
    edit(project, "naming:", GPU_DESCRIPTION + "naming:")
    generate(run, project)
    after = entries(project)
    bumped = sorted(name for name in after if after[name].revision != before[name].revision)
    gpu_torches = [n for n in after if n.startswith("pytorch-") and "-cuda" in n]
    companions = [n for n in after if not n.startswith("pytorch-")]
    # A companion's description quotes its torch's, so it follows.
    assert bumped == sorted(gpu_torches + companions)
    assert all(after[name].revision == 1 for name in bumped)
    assert all(after[name].build == before[name].build for name in after)
    recipe = (project / ".flox/pkgs/pytorch-python313-cuda12_8-sm90-avx2.nix").read_text()
    assert "    revision = 1;" in recipe and '"PyTorch 2.8.0 for H100, H200, GH200 (sm90)' in recipe
    assert "    revision = 0;" in (project / ".flox/pkgs/pytorch-python313-cpu-avx2.nix").read_text()
    # The same run updated the docs: the new description, with its revision.
    assert ("| `pytorch-python313-cuda12_8-sm90-avx2` | 3.13 | 12.8 | sm90 | avx2 | "
            "PyTorch 2.8.0 for H100, H200, GH200 (sm90), avx2 CPUs, CUDA 12.8 | 1 |") in (
        project / "BUILD_MATRIX.md").read_text()


def test_rerun_is_stable(project, run):
    generate(run, project)
    edit(project, "naming:", GPU_DESCRIPTION + "naming:")
    generate(run, project)
    snapshot = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    assert "0 written" in generate(run, project)
    assert {p: p.read_bytes() for p in project.rglob("*") if p.is_file()} == snapshot
    assert run("check", "--root", project).exit_code == 0


FEATURES = ("system_features: [big-parallel]", "system_features: [big-parallel, kvm]")


def test_a_build_change_needs_no_bump(project, run):
    generate(run, project)
    before = entries(project)
    edit(project, *FEATURES)
    generate(run, project)
    after = entries(project)
    assert all(after[name].build != before[name].build for name in after)
    assert all(after[name].revision == 0 for name in after)


def test_the_number_of_compile_jobs_changes_no_build(project, run):
    """build.jobs is the CI builders' cores, not part of any derivation."""
    generate(run, project)
    before, recipes = entries(project), {p: p.read_bytes() for p in (project / ".flox/pkgs").glob("*.nix")}
    edit(project, "jobs: 32", "jobs: 16")
    assert "2 written" in generate(run, project)  # the build workflow, and its digest in the state file
    assert entries(project) == before
    assert {p: p.read_bytes() for p in (project / ".flox/pkgs").glob("*.nix")} == recipes
    assert 'JOBS: "16"' in (project / layout.WORKFLOW_BUILD_FILE).read_text()


def test_build_and_metadata_change_together_needs_no_bump(project, run):
    generate(run, project)
    edit(project, *FEATURES)
    edit(project, "naming:", GPU_DESCRIPTION + "naming:")
    generate(run, project)
    assert all(e.revision == 0 for e in entries(project).values())


def test_revisions_never_go_down(project, run):
    generate(run, project)
    original = (project / "matrix.yaml").read_text()
    edit(project, "naming:", GPU_DESCRIPTION + "naming:")
    generate(run, project)
    (project / "matrix.yaml").write_text(original)  # the description back as it was
    generate(run, project)
    name = "pytorch-python313-cuda12_8-sm61-avx"
    assert entries(project)[name].revision == 2
    assert "    revision = 2;" in (project / f".flox/pkgs/{name}.nix").read_text()


def test_a_torch_build_change_changes_its_companions_build_hash(project, run):
    """Only the torch recipe's own inputs change (cuDNN for sm61); the companion imports it."""
    generate(run, project)
    before = entries(project)
    companion = project / ".flox/pkgs/torchvision-python313-cuda12_8-sm61-avx.nix"
    companion_text = companion.read_text()
    edit(project, "companions:", "knowledge:\n  sm:\n    sm61: {cudnn: true}\ncompanions:")
    generate(run, project)
    after = entries(project)
    changed = sorted(name for name in after if after[name].build != before[name].build)
    assert changed == ["pytorch-python313-cuda12_8-sm61-avx", "pytorch-python313-cuda12_8-sm61-avx2",
                       "torchaudio-python313-cuda12_8-sm61-avx", "torchvision-python313-cuda12_8-sm61-avx"]
    assert companion.read_text() == companion_text  # its own recipe is the same: only its torch's changed
    assert all(e.revision == 0 for e in after.values())


def test_state_file_is_valid_json_with_every_variant(project, run):
    generate(run, project)
    data = json.loads((project / STATE).read_text())
    assert len(data["variants"]) == 62
    assert data["generated"].startswith("Generated from matrix.yaml by gen-matrix")


@pytest.fixture
def sources(tmp_path, monkeypatch):
    """Copies of the templates and of the Nix library that a test may edit, used by the
    renderer for that test."""
    shutil.copytree(layout.TEMPLATES, tmp_path / "templates")
    shutil.copytree(layout.LIBRARY, tmp_path / "nix")
    monkeypatch.setattr(layout, "TEMPLATES", tmp_path / "templates")
    monkeypatch.setattr(layout, "LIBRARY", tmp_path / "nix")
    return tmp_path


def identities_of(root: Path) -> dict[str, state.Entry]:
    files = generator_run.outputs(layout.locate(str(root / "matrix.yaml"), str(root)), expansion_of(root), state.read(root))
    return state.parse(files[STATE], STATE)


def append(path: Path, text: str) -> None:
    path.write_text(path.read_text() + text)


def changed(before: dict[str, state.Entry], after: dict[str, state.Entry], what: str) -> list[str]:
    return sorted(name for name in after if getattr(after[name], what) != getattr(before[name], what))


COMPANIONS = ["torchaudio-python313-cuda12_8-sm61-avx", "torchaudio-python313-cuda12_8-sm75-avx",
              "torchvision-python313-cuda12_8-sm61-avx", "torchvision-python313-cuda12_8-sm75-avx"]


def test_a_template_change_marks_only_the_recipes_made_from_it(project, sources):
    before = identities_of(project)
    template = sources / "templates" / "companion.nix.j2"
    append(template, "{# a note #}\n# a Nix comment\n")
    assert identities_of(project) == before  # neither changes what Nix builds
    template.write_text(template.read_text().replace("package = {{ package }};", "package = {{ package }}; x = 1;"))
    after = identities_of(project)
    assert changed(before, after, "build") == COMPANIONS
    append(sources / "templates" / "torch.nix.j2", "# trailing\n")
    assert identities_of(project) == after
    template = sources / "templates" / "torch.nix.j2"
    template.write_text(template.read_text().replace("pin = {{ pin }};", "pin = {{ pin }}; x = 1;"))
    assert changed(after, identities_of(project), "build") == sorted(after)  # companions follow their torch


def test_a_library_change_marks_only_the_builds_made_with_it(project, sources):
    before = identities_of(project)
    append(sources / "nix" / "lib" / "torch.nix", "# a comment changes no derivation\n")
    assert identities_of(project) == before
    library = sources / "nix" / "lib" / "companion.nix"
    library.write_text(library.read_text().replace("requiredSystemFeatures = systemFeatures;",
                                                   "requiredSystemFeatures = systemFeatures ++ [ ];"))
    after = identities_of(project)
    assert changed(before, after, "build") == COMPANIONS
    fix = sources / "nix" / "fixes" / "avx-only-kernels.nix"
    fix.write_text(fix.read_text().replace("{", "{ x = 1;", 1))
    avx = [name for name in after if name.endswith("-avx")]
    assert changed(after, identities_of(project), "build") == sorted(avx) and len(avx) == 12  # with the companions


def test_a_wrapper_change_republishes_every_variant_and_rebuilds_none(project, sources):
    before = identities_of(project)
    wrapper = sources / "nix" / "lib" / "wrapper.nix"
    wrapper.write_text(wrapper.read_text().replace("mkdir -p $out", "mkdir -p $out/"))
    after = identities_of(project)
    assert changed(before, after, "wrapper") == sorted(after)
    assert changed(before, after, "build") == [] and changed(before, after, "revision") == []


@given(st.dictionaries(st.text(), st.builds(state.Entry, st.text(), st.text(), st.text(), st.integers(0, 2**63 - 1))),
       st.text())
def test_the_state_file_reads_back_as_written_in_any_order(entries, header):
    text = state.dump(entries, header, {"a.nix": "{ }\n"})
    # what a reader gets back: every entry and the record, whatever order they came in
    document = json.loads(text)
    assert document["generated"] == header
    assert {name: state.Entry(v["build"], v["metadata"], v["wrapper"], v["revision"])
            for name, v in document["variants"].items()} == entries
    assert document["files"] == {"a.nix": hashlib.sha256(b"{ }\n").hexdigest()}
    # byte for byte the same from the entries in another order: names sorted, one newline at the end
    assert state.dump(dict(reversed(list(entries.items()))), header, {"a.nix": "{ }\n"}) == text
    assert list(document["variants"]) == sorted(entries) and text.endswith("}\n") and not text.endswith("\n\n")


def test_a_run_reads_the_state_file_once(project, run, monkeypatch):
    """Identities and the record of written files come from one read of one text: a state
    file replaced between two reads could pair one file's revisions with another's record."""
    assert run("--root", project).exit_code == 0
    reads = []
    real = state.read_text

    def counted(path, name, *args, **kwargs):
        reads.append(name)
        return real(path, name, *args, **kwargs)

    monkeypatch.setattr(state, "read_text", counted)
    assert run("--root", project).exit_code == 0
    assert run("check", "--root", project).exit_code == 0
    assert reads == [STATE, STATE]
