"""What `gen-matrix ci --changed-since` rebuilds in a matrix of two nixpkgs pins.

A rule right for one pin can be wrong for two: a build identity made from every pin instead
of the variant's own rebuilds every torch after an edit to one pin, and one made from the
pin's name or its hash rebuilds every torch after a rename or a hash filled in. Each edit
below is made to a generated and committed repository of two pins, several variants of
each and their companions; the selection is compared with the derivations the recipes
evaluate to before and after (real drvPaths, against the test package set of each pin's
revision), and with what the edit is known to need: none, or exactly one pin's variants.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import FAKE_NIXPKGS, drv_paths, expansion_of, needs_nix

OLDER, NEWER, OTHER = ("6a030d535719c5190187c4cec156f335e95e3211", "0182a361324364ae3f436a63005877674cf45efb",
                       "2017d6d515f8a7b289fe06d3a880a7ec588c3900")
HASH_A, HASH_B = "1" * 51 + "a", "0" * 51 + "b"
# Two pins, each with GPU variants of two Pythons and two ISAs, a CPU variant on one of
# them, and companions on both: the names of the pins' variants differ only in their SM.
MATRIX = f"""\
pytorch: {{version: "2.9.1"}}
nixpkgs:
  pins:
    - {{name: older, rev: {OLDER}, when: {{sm: sm90}}}}
    - {{name: newer, rev: {NEWER}}}
gpu:
  python: ["3.12", "3.13"]
  cuda: ["12.8"]
  sm: [sm75, sm90]
  isa: [avx2, avx512]
cpu:
  python: ["3.13"]
  isa: [avx2]
companions:
  - packages: [torchvision]
    when: {{isa: avx2, python: "3.13"}}
"""


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root, check=True,
                          capture_output=True, text=True).stdout


def committed(tmp_path: Path, run) -> Path:
    """A repository of the two-pin matrix, generated and committed."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / "matrix.yaml").write_text(MATRIX)
    assert run("--root", root).exit_code == 0
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    return root


@pytest.fixture
def two_pins(tmp_path, run) -> Path:
    return committed(tmp_path, run)


def replace(old: str, new: str):
    def apply(text: str) -> str:
        assert text.count(old) == 1, old
        return text.replace(old, new)
    return apply


def both(*edits):
    def apply(text: str) -> str:
        for edit in edits:
            text = edit(text)
        return text
    return apply


OLDER_LINE = f"- {{name: older, rev: {OLDER}, "
NEWER_LINE = f"- {{name: newer, rev: {NEWER}"
ON_OLDER = "sm90"  # the SM of the older pin's variants
# edit -> (the change to matrix.yaml, the SM whose variants must be rebuilt whole, or None: nothing)
EDITS = {
    "a hash filled in for one pin": (replace(OLDER_LINE, OLDER_LINE + f"sha256: {HASH_A}, "), None),
    "a hash filled in for each pin": (both(replace(OLDER_LINE, OLDER_LINE + f"sha256: {HASH_A}, "),
                                           replace(NEWER_LINE, NEWER_LINE + f", sha256: {HASH_B}")), None),
    "both pins renamed": (both(replace("name: older", "name: old"), replace("name: newer", "name: new")), None),
    "one pin moved to another revision": (replace(OLDER_LINE, f"- {{name: older, rev: {OTHER}, "), ON_OLDER),
    "one pin given a config option": (replace(OLDER_LINE, OLDER_LINE + "config: {cudaForwardCompat: false}, "),
                                      ON_OLDER),
    "the other pin given a config option": (replace(NEWER_LINE, NEWER_LINE + ", config: {cudaForwardCompat: false}"),
                                            "not " + ON_OLDER),
}


def selected(run, root: Path, *options) -> dict[str, bool]:
    """name -> whether only its wrapper builds, over every build of every job (since HEAD
    unless the options say)."""
    since = () if "--changed-since" in options else ("--changed-since", "HEAD")
    result = run("ci", "--root", root, *since, *options)
    assert result.exit_code == 0, result.output
    return {name: name in job["metadata_only"].split()
            for job in json.loads(result.stdout)["include"] for name in job["builds"].split()}


def rebuilt(root: Path, sm: str | None) -> set[str]:
    """The variants an edit of `sm`'s pin rebuilds: those of the pin, with their companions."""
    if sm is None:
        return set()
    expansion = expansion_of(root)

    def on(variant) -> bool:
        torch = expansion.by_name[variant.torch] if variant.is_companion else variant
        return (torch.sm is not None and torch.sm.name == ON_OLDER) == (sm == ON_OLDER)
    return {v.name for v in expansion.variants if on(v)}


@needs_nix
@pytest.mark.slow
@pytest.mark.parametrize("edit", EDITS)
def test_an_edit_to_one_pin_rebuilds_that_pins_variants_and_an_edit_that_changes_no_derivation_rebuilds_none(
        edit, two_pins, run):
    root = two_pins
    before = drv_paths(root)
    change, sm = EDITS[edit]
    (root / "matrix.yaml").write_text(change((root / "matrix.yaml").read_text()))
    generated = run("--root", root)
    assert generated.exit_code == 0, generated.output
    after = drv_paths(root)
    builds_changed = {name for name in after if before[name]["build"] != after[name]["build"]}
    wrappers_changed = {name for name in after if before[name]["wrapper"] != after[name]["wrapper"]}
    # What the test package sets say: an edit that changes no derivation changes none here,
    # and an edit to one pin changes some of its variants' (a config option a CPU build does
    # not read leaves it as it was) and none of the other pin's.
    assert builds_changed == wrappers_changed
    assert builds_changed <= rebuilt(root, sm) and bool(builds_changed) == (sm is not None)
    assert 0 < len(rebuilt(root, ON_OLDER)) < len(after)  # each pin has variants of its own
    # By the text identity, every variant of the edited pin, whole, and nothing else.
    chosen = selected(run, root)
    assert set(chosen) == rebuilt(root, sm) and not any(chosen.values())


def package_set(folder: Path, revision: str) -> Path:
    """The test package set impersonating `revision`, inside a folder of its own (evaluation
    reads nothing outside the package set's folder)."""
    folder.mkdir()
    shutil.copytree(FAKE_NIXPKGS, folder / "fake")
    (folder / "default.nix").write_text(f'args: import ./fake (args // {{ revision = "{revision}"; }})\n')
    return folder


# By the derivations, each pin's recipes evaluate against its own package set, the same at
# the revision and now: only the edits that keep each pin's name and revision.
BY_DERIVATIONS = ["a hash filled in for one pin", "a hash filled in for each pin", "one pin given a config option"]


@needs_nix
@pytest.mark.slow
@pytest.mark.parametrize("edit", BY_DERIVATIONS)
def test_by_derivations_two_pins_rebuild_what_their_own_package_set_says(edit, two_pins, run, tmp_path):
    root = two_pins
    change, sm = EDITS[edit]
    (root / "matrix.yaml").write_text(change((root / "matrix.yaml").read_text()))
    assert run("--root", root).exit_code == 0
    sets = ("--nixpkgs", f"older={package_set(tmp_path / 'older', OLDER[:7])}",
            "--nixpkgs", f"newer={package_set(tmp_path / 'newer', NEWER[:7])}")
    chosen = selected(run, root, "--by", "derivations", *sets)
    assert set(chosen) == rebuilt(root, sm) and not any(chosen.values())


def build_identities(root: Path, text: str) -> dict[str, str]:
    """Each variant's heavy-build identity, as the state file records it, for matrix `text`."""
    from generator.pipeline import render

    (root / "matrix.yaml").write_text(text)
    return {recipe.variant.name: recipe.entry.build
            for recipe in render.recipes(expansion_of(root), {}, root)}


@pytest.fixture(scope="module")
def identities_before(tmp_path_factory) -> dict[str, str]:
    return build_identities(tmp_path_factory.mktemp("before"), MATRIX)


@pytest.mark.parametrize("edit", EDITS)
def test_the_build_identities_change_for_the_edited_pins_variants_alone(edit, identities_before, tmp_path):
    """What `ci --changed-since` compares by text, without generating: quick."""
    change, sm = EDITS[edit]
    before = identities_before
    after = build_identities(tmp_path, change(MATRIX))
    assert set(before) == set(after)
    assert {name for name in after if before[name] != after[name]} == rebuilt(tmp_path, sm)


@needs_nix
@pytest.mark.slow
def test_by_derivations_each_revision_of_a_history_is_compared_as_it_was_committed(two_pins, run, tmp_path):
    """Two commits after the base, each editing one pin: compared with the base, both pins'
    GPU variants are rebuilt; with the commit between, only the last edit's. Each side is
    the recipes of that very revision, not of the newest."""
    root = two_pins
    edits = (EDITS["one pin given a config option"][0], EDITS["the other pin given a config option"][0])
    for index, change in enumerate(edits):
        (root / "matrix.yaml").write_text(change((root / "matrix.yaml").read_text()))
        assert run("--root", root).exit_code == 0
        git(root, "commit", "-qam", f"edit {index}")
    sets = ("--nixpkgs", f"older={package_set(tmp_path / 'older', OLDER[:7])}",
            "--nixpkgs", f"newer={package_set(tmp_path / 'newer', NEWER[:7])}")
    expansion = expansion_of(root)

    def gpu_on(sm: str) -> set[str]:
        def torch(variant):
            return expansion.by_name[variant.torch] if variant.is_companion else variant
        return {v.name for v in expansion.variants if torch(v).sm is not None and torch(v).sm.name == sm}

    both = selected(run, root, "--by", "derivations", *sets, "--changed-since", "HEAD~2")
    assert set(both) == gpu_on("sm90") | gpu_on("sm75") and not any(both.values())
    last = selected(run, root, "--by", "derivations", *sets, "--changed-since", "HEAD~1")
    assert set(last) == gpu_on("sm75") and not any(last.values())
    assert selected(run, root, "--by", "derivations", *sets, "--changed-since", "HEAD") == {}


@needs_nix
@pytest.mark.parametrize("hashes", [(HASH_A, None), (None, HASH_B), (HASH_A, HASH_B), (None, None)],
                         ids=["first", "second", "both", "neither"])
def test_each_pin_of_nix_pins_holds_its_own_hash_set_or_empty_and_its_own_config(hashes, tmp_path):
    from generator.layout import PINS_FILE
    from generator.pipeline import render

    from conftest import nix_eval

    text = MATRIX.replace(OLDER_LINE, OLDER_LINE + "config: {cudaForwardCompat: false}, ")
    for line, hash_ in zip((OLDER_LINE, NEWER_LINE), hashes):
        if hash_:
            text = text.replace(line, line + f"sha256: {hash_}, " if line == OLDER_LINE else line + f", sha256: {hash_}")
    (tmp_path / "matrix.yaml").write_text(text)
    expansion = expansion_of(tmp_path)
    (tmp_path / "pins.nix").write_text(render.files(expansion, ())[PINS_FILE])
    assert nix_eval(f"import {tmp_path / 'pins.nix'}") == {
        "older": {"rev": OLDER, "sha256": hashes[0], "config": {"cudaForwardCompat": False}, "patches": {}},
        "newer": {"rev": NEWER, "sha256": hashes[1], "config": {}, "patches": {}},
    }
