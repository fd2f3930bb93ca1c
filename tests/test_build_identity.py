"""What `gen-matrix ci --changed-since` selects follows the derivations.

Each edit below is made to a generated repository; the recipes are evaluated against the
test package set before and after (real derivations: drvPath), and the selection is
compared with what changed: a variant is selected exactly when its published wrapper's
derivation changed or it is new, and marked metadata_only exactly when its heavy build
(torch, or a companion) did not change.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from generator import layout

from conftest import FAKE_NIXPKGS, REPO, drv_paths, expansion_of, needs_nix

pytestmark = needs_nix


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


def committed(project: Path, run) -> Path:
    """`project` generated and committed in a fresh git repository."""
    assert run("--root", project).exit_code == 0
    git(project, "init", "-q")
    git(project, "-c", "user.name=t", "-c", "user.email=t@t", "add", "-A")
    git(project, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    return project


def edit_matrix(old: str, new: str):
    def apply(root: Path, monkeypatch) -> None:
        path = root / "matrix.yaml"
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new, 1))
    return apply


def comment_in(folder_attr: str, module, source: Path, file: str, anchor: str, lines: str):
    """An edit that adds comment `lines` before `anchor` in `file` of a copy of gen-matrix's
    `source` folder, which gen-matrix then uses."""
    def apply(root: Path, monkeypatch) -> None:
        copy = root.parent / f"{root.name}-{source.name}-edited"
        shutil.copytree(source, copy)
        target = copy / file
        text = target.read_text()
        assert anchor in text
        target.write_text(text.replace(anchor, lines + anchor, 1))
        monkeypatch.setattr(module, folder_attr, copy)
    return apply


GPU_DESCRIPTION = 'description:\n  gpu: "PyTorch {pytorch} for {gpus} ({sm}), {isa} CPUs, CUDA {cuda}"\n'

EDITS = {
    "description pattern": edit_matrix("naming:", GPU_DESCRIPTION + "naming:"),
    "GPU names of one SM": edit_matrix(
        "companions:", 'knowledge:\n  sm:\n    sm75:\n      gpus: [Tesla T4, GeForce RTX 2080 Ti, TITAN RTX]\n\ncompanions:'),
    "template comment": comment_in("TEMPLATES", layout, REPO / "templates", "torch.nix.j2", "{ genMatrixNixpkgs",
                                   "{# a comment about the recipe #}\n# a Nix comment in every recipe\n"),
    "Nix library comment": comment_in("LIBRARY", layout, REPO / "nix", "lib/torch.nix", "  built = ",
                                      "  # a comment, and a blank line\n\n"),
    "jobs cap": edit_matrix("jobs: 32", "jobs: 16"),
    "one SM added": edit_matrix("sm: [sm61, sm75,", "sm: [sm61, sm70, sm75,"),
    "the pin": lambda root, monkeypatch: (
        edit_matrix("rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3", "rev: 0182a361324364ae3f436a63005877674cf45efb")(
            root, monkeypatch),
        edit_matrix('version: "2.8.0"', 'version: "2.9.1"')(root, monkeypatch)),
}


# By the text identity (offline), and by the derivations themselves (gen-matrix eval at the
# revision and now), here against the test package set of the matrix's one pin: a pin edit
# would need the package set of the other pin, which one --nixpkgs cannot give both sides.
BY = [("text", edit) for edit in EDITS] + [("derivations", edit) for edit in EDITS if edit != "the pin"]


@pytest.mark.parametrize("by, edit", BY)
def test_selection_follows_the_derivations(by, edit, project, run, monkeypatch):
    root = committed(project, run)
    before = drv_paths(root)
    EDITS[edit](root, monkeypatch)
    assert run("--root", root).exit_code == 0
    after = drv_paths(root)
    extra = ("--nixpkgs", FAKE_NIXPKGS) if by == "derivations" else ()
    result = run("ci", "--root", root, "--changed-since", "HEAD", "--by", by, *extra)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["selected_by"] == by
    # name -> metadata only?, over every build of every job (a job is a torch and its companions)
    selected = {name: name in job["metadata_only"].split()
                for job in json.loads(result.stdout)["include"] for name in job["builds"].split()}

    wrappers_changed = {name for name in after if before.get(name, {}).get("wrapper") != after[name]["wrapper"]}
    builds_changed = {name for name in after if before.get(name, {}).get("build") != after[name]["build"]}
    assert set(selected) == wrappers_changed
    assert {name for name, metadata_only in selected.items() if not metadata_only} == builds_changed
    # A companion is rebuilt whenever its torch's build changed.
    expansion = expansion_of(root)
    for variant in expansion.variants:
        if variant.is_companion and variant.torch in builds_changed:
            assert selected.get(variant.name) is False
    if edit in ("template comment", "Nix library comment", "jobs cap"):
        assert selected == {} and before == after
    if edit in ("description pattern", "GPU names of one SM"):
        assert selected and all(selected.values()) and not builds_changed
    if edit == "the pin":
        assert builds_changed == set(after)
    if edit == "one SM added":
        assert set(selected) == set(after) - set(before) and len(selected) == 7
