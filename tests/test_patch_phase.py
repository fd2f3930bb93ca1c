"""A variant that builds another PyTorch source than its pin's passes its patch phase in a real
local build, and would not with the pin's --replace-fail kept where a real text lacks a pattern.

nix-build runs the unpack and patch phases of the variant's torch derivation (its own `src`
swapped for a skeletal tree, its own `patches` and `postPatch`) with
tests/fixtures/pytorch-source/patch-phase.sh as builder, over the tree of the PyTorch release
the variant builds. The trees hold the real lines of the files a wheel of that release
carries and leave the other files empty (README.md there says which substitutions that
leaves unverified). The pin's postPatch is read from the evaluated test package set, so the
test follows whatever tests/nix holds. What it cannot prove: a substitution in a file left
empty (its warning is expected, and says nothing), and anything past the patch phase.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

import phase_harness
from conftest import REPO, needs_nix
from phase_harness import PHASE, SOURCES, needs_nix_build

MANIFEST = json.loads((SOURCES / "sources.json").read_text())
PINS = {"fe5e41d": "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3", "0182a36": "0182a361324364ae3f436a63005877674cf45efb"}
# Each pin with releases other than its own (fe5e41d: 2.8.0, 0182a36: 2.9.1): an older one,
# the other pin's, and 2.10.0, which the 2.10 example builds on nixpkgs pins of 2.9.1.
CASES = [("fe5e41d", "v2.7.1"), ("fe5e41d", "v2.9.1"), ("fe5e41d", "v2.10.0"),
         ("0182a36", "v2.7.1"), ("0182a36", "v2.8.0"), ("0182a36", "v2.10.0")]

pytestmark = [needs_nix, needs_nix_build]


@dataclass(frozen=True)
class Substitution:
    file: str
    mode: str  # --replace-fail, --replace-warn, ...
    pattern: str


def substitutions(post_patch: str) -> list[Substitution]:
    """The substituteInPlace replacements of a postPatch, in order, read as the shell reads them."""
    found = []
    for command in commands(post_patch):
        words = command_words(command)[1:]
        first_option = next(i for i, word in enumerate(words) if word.startswith("--"))
        files, options = words[:first_option], words[first_option:]
        while options:
            mode, pattern = options[0], options[1]
            found += [Substitution(file, mode, pattern) for file in files]
            options = options[3:]
    return found


def commands(post_patch: str) -> list[str]:
    """Each substituteInPlace command of a postPatch, with its continuation lines."""
    lines, found, i = post_patch.split("\n"), [], 0
    while i < len(lines):
        if lines[i].lstrip().startswith("substituteInPlace "):
            end = i
            while lines[end].rstrip().endswith("\\"):
                end += 1
            found.append("\n".join(lines[i:end + 1]))
            i = end + 1
        else:
            i += 1
    return found


def command_words(command: str) -> list[str]:
    return shlex.split(command.replace("\\\n", " "))


def unread(tag: str) -> set[str]:
    return {path for path, entry in MANIFEST[tag]["files"].items() if entry["status"] == "unread"}


def absent(tag: str, file: str) -> set[str]:
    """The patterns a read file's whole text lacks (none for a file the tree leaves empty)."""
    return set(MANIFEST[tag]["files"][file].get("absent", []))


def soften_unread(post_patch: str, files: set[str]) -> str:
    """`post_patch` with --replace-warn for the substitutions in `files`, whose text the tree
    does not hold: a failure there would say nothing about the real release."""
    for command in commands(post_patch):
        if command_words(command)[1] in files:
            post_patch = post_patch.replace(command, command.replace("--replace-fail", "--replace-warn"))
    return post_patch


@pytest.fixture(scope="module")
def host_path() -> str:
    return phase_harness.host_path()


@pytest.fixture(scope="module")
def recipes(tmp_path_factory) -> dict:
    """Per case, the recipe of a CUDA variant that builds the case's release on the case's pin."""
    return {(pin, tag): phase_harness.torch_recipe(
        tmp_path_factory.mktemp(f"{pin}-{tag}"),
        f'pytorch:\n  version: "{tag[1:]}"\n'
        f'  source: {{rev: {tag}, hash: "sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}}\n'
        f"nixpkgs: {{rev: {PINS[pin]}}}\n"
        'gpu: {python: ["3.13"], cuda: ["12.8"], sm: [sm90], isa: [avx2]}\n') for pin, tag in CASES}


def phase_args(recipe: Path, pin: str, tag: str, host_path: str) -> list[str]:
    return phase_harness.phase_args(recipe, phase_harness.fake_nixpkgs(PINS[pin]), SOURCES / tag, host_path)


def texts(recipe: Path, pin: str, tag: str, host_path: str) -> dict:
    result = subprocess.run(["nix-instantiate", "--eval", "--strict", "--json", str(PHASE), "-A", "texts",
                             *phase_args(recipe, pin, tag, host_path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def build(recipe: Path, pin: str, tag: str, host_path: str, post_patch_file: Path | None = None):
    """nix-build the patch phase, offline: (exit code, build log, the patched tree or None)."""
    return phase_harness.build(phase_args(recipe, pin, tag, host_path), "phase", post_patch_file)


def warned_files(log: str) -> list[str]:
    return re.findall(r"WARNING: pattern .* doesn't match anything in file '([^']+)'", log)


def unquote(printf_q: str) -> str:
    return re.sub(r"\\(.)", r"\1", printf_q)


def kept_post_patch(recipe_text: str, pin_text: str) -> str:
    """The recipe's postPatch with the pin's part as the pin wrote it, --replace-fail kept."""
    softened = pin_text.replace("--replace-fail", "--replace-warn")
    assert recipe_text.startswith(softened), "the recipe's postPatch does not start with the pin's, softened"
    return pin_text + recipe_text[len(softened):]


@pytest.mark.parametrize("pin,tag", CASES)
def test_a_foreign_source_passes_its_patch_phase(pin, tag, recipes, host_path):
    recipe = recipes[pin, tag]
    code, log, out = build(recipe, pin, tag, host_path)
    assert code == 0, log
    text = texts(recipe, pin, tag, host_path)
    assert "--replace-fail" in text["pin"] and "--replace-fail" not in text["recipe"]
    used = substitutions(text["recipe"])
    # A read file warns exactly for the patterns its real text lacks; every other pattern
    # the postPatch names in it was found and replaced.
    read_used = [s for s in used if s.file not in unread(tag)]
    expected = sorted(s.file for s in read_used if s.pattern in absent(tag, s.file))
    assert sorted(f for f in warned_files(log) if f not in unread(tag)) == expected
    for file in {s.file for s in read_used if s.pattern not in absent(tag, s.file)}:
        assert (out / file).read_text() != (SOURCES / tag / file).read_text(), file
    # The fixes that append to postPatch ran after the pin's part.
    assert (out / "version.txt").read_text() == f"{tag[1:]}\n"
    assert (out / "cmake/Modules/FindCUDAToolkit.cmake").read_text().startswith(
        "# Delegates to CMake's own FindCUDAToolkit")


@pytest.mark.parametrize("pin,tag", CASES)
def test_with_replace_fail_kept_the_phase_stops_where_a_real_text_lacks_its_pattern(pin, tag, recipes, host_path,
                                                                                   tmp_path):
    recipe = recipes[pin, tag]
    text = texts(recipe, pin, tag, host_path)
    kept = soften_unread(kept_post_patch(text["recipe"], text["pin"]), unread(tag))
    (tmp_path / "postPatch").write_text(kept)
    code, log, _ = build(recipe, pin, tag, host_path, tmp_path / "postPatch")
    stops = [s for s in substitutions(kept) if s.mode == "--replace-fail" and s.pattern in absent(tag, s.file)]
    if not stops:
        assert code == 0, log
        return
    assert code != 0
    (error,) = re.findall(r"ERROR: pattern (.*) doesn't match anything in file '([^']+)'", log)
    assert (unquote(error[0]), error[1]) == (stops[0].pattern, stops[0].file)


@pytest.mark.parametrize("pin", sorted(PINS))
def test_a_pin_that_points_inductor_at_openssl_stops_on_2_7_1_with_replace_fail_kept(pin, recipes, host_path,
                                                                                     tmp_path):
    """nixpkgs' 2.8.0 and 2.9.1 postPatch point inductor at openssl with --replace-fail;
    PyTorch 2.7.1's codecache.py, read whole from its wheel, has no "openssl"."""
    recipe = recipes[pin, "v2.7.1"]
    text = texts(recipe, pin, "v2.7.1", host_path)
    openssl = Substitution("torch/_inductor/codecache.py", "--replace-fail", '"openssl"')
    if openssl not in substitutions(text["pin"]):
        pytest.skip(f"the postPatch of {pin} in tests/nix does not point inductor at openssl")
    (tmp_path / "postPatch").write_text(soften_unread(kept_post_patch(text["recipe"], text["pin"]), unread("v2.7.1")))
    code, log, _ = build(recipe, pin, "v2.7.1", host_path, tmp_path / "postPatch")
    assert code != 0
    assert "ERROR: pattern \\\"openssl\\\" doesn't match anything in file 'torch/_inductor/codecache.py'" in log
    code, log, _ = build(recipe, pin, "v2.7.1", host_path)
    assert code == 0, log


def test_the_trees_hold_what_sources_json_says():
    for tag, entry in MANIFEST.items():
        tree = SOURCES / tag
        assert sorted(str(p.relative_to(tree)) for p in tree.rglob("*") if p.is_file()) == sorted(entry["files"])
        for path, record in entry["files"].items():
            kept = (tree / path).read_text()
            if record["status"] == "unread":
                assert kept == ""
            else:
                assert kept.count("\n") == len(record["kept"]) <= record["lines"]


def test_only_the_source_patch_fix_touches_replace_fail():
    """torch-source-patches rewrites every --replace-fail of postPatch, taking them all for the pin's."""
    users = sorted(p.name for p in (REPO / "nix").rglob("*.nix")
                   if "--replace-fail" in re.sub(r"#.*", "", p.read_text()))
    assert users == ["torch-source-patches.nix"]
