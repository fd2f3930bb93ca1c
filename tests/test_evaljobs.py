"""gen-matrix eval through nix-eval-jobs: its lines, as it really printed them, read into the
results eval.py gives; and what it would walk (evaljobs.nix) the derivations eval.nix gives.
No nix-eval-jobs runs here: the lines are recorded ones (tests/fixtures/nix-eval-jobs)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from generator.commands import eval as eval_command
from generator.commands import evaljobs

from conftest import FAKE_NIXPKGS, NIX_INSTANTIATE, REPO, expansion_of, needs_nix

RECORDED = REPO / "tests" / "fixtures" / "nix-eval-jobs"


def target(name: str) -> eval_command.Target:
    return eval_command.Target(name, "cpu", Path(f"/repo/.flox/pkgs/{name}.nix"), "x86_64-linux", None, "pin",
                               Path("/repo"), "https://example.org/nixpkgs.tar.gz")


# ---- (a) the lines nix-eval-jobs printed ---------------------------------------------------

def test_the_recorded_derivations_are_read_with_their_paths_and_drvpaths():
    found = evaljobs.jobs((RECORDED / "patchelf-hydrajobs.jsonl").read_text(encoding="utf-8"))
    assert [job.path for job in found] == [("coverage",), ("patchelf-win32",), ("patchelf-win64",), ("release",),
                                           ("tarball",)]
    assert found[0].drv_path == "/nix/store/fmbqzaq8mim1423879lhn9whs6imx5w4-patchelf-coverage-0.18.0.drv"
    assert found[3].drv_path == "/nix/store/3xpwg8f623dpkh6cblv2fzcq5n99xl0j-patchelf-0.18.0.drv"
    assert found[4].drv_path == "/nix/store/c0gg7lj101xhd8v2b3cjl5dwwkpxfc0q-patchelf-tarball-0.18.0.drv"
    assert len({job.drv_path for job in found}) == 5 and all(job.error is None for job in found)


def test_a_recorded_error_is_a_recipes_error_and_a_derivation_beside_it_is_not():
    found = evaljobs.jobs((RECORDED / "nixpkgs-cmake-and-a-removed-alias.jsonl").read_text(encoding="utf-8"))
    cmake, alias = found
    assert cmake == evaljobs.Job(("cmake",), "/nix/store/3fr8b3xlygv2a64ff7fq7564j4sxv4lc-cmake-3.29.6.drv", None)
    assert alias.path == ("adoptopenjdk-openj9-bin-15",) and alias.drv_path is None
    assert alias.error.startswith("error:\n       … from call site\n")
    # the recipe's error is the last `error:` line of Nix's message, not the first or the trace
    read = evaljobs.results([("adoptopenjdk-openj9-bin-15", target("a")), ("cmake", target("b"))], found)
    assert read[0] == eval_command.Result(
        "a", "cpu", None, None, "adoptopenjdk has been removed as the upstream project is deprecated. JDK 15 is also "
        "EOL. Consider using `semeru-bin-17`.")
    # cmake is one derivation, not a recipe's three: what is missing is said
    assert read[1] == eval_command.Result("b", "cpu", None, None, "nix-eval-jobs printed no derivation of cmake.drv")


def test_the_lines_of_both_recordings_together_keep_each_record_apart():
    text = "\n".join((RECORDED / name).read_text(encoding="utf-8")
                     for name in ("nixpkgs-cmake-and-a-removed-alias.jsonl", "patchelf-hydrajobs.jsonl"))
    found = evaljobs.jobs("warning: `--gc-roots-dir' not specified\n{}\n[1]\n" + text)
    assert len(found) == 7
    assert [job.path[0] for job in found if job.error] == ["adoptopenjdk-openj9-bin-15"]
    assert sum(job.drv_path is not None for job in found) == 6


# ---- (b) what nix-eval-jobs walks is what eval.nix evaluates -------------------------------

TWO_PINS = """\
pytorch: {version: "2.9.1"}
nixpkgs:
  pins:
    - {name: old, rev: 0182a361324364ae3f436a63005877674cf45efb, when: {cuda: ["12.8"]}}
    - {name: main, rev: 6a030d535719c5190187c4cec156f335e95e3211}
gpu: {python: ["3.13"], cuda: ["12.8", "12.9"], sm: [sm90, sm86], isa: [avx2]}
cpu: {python: ["3.13"], isa: [avx2]}
"""


@pytest.fixture(scope="module")
def two_pins(tmp_path_factory):
    """A repository of two pins whose old package set lacks CUDA 12.8 (its recipes refuse),
    and the spec of each pin's recipes, as eval.py writes it."""
    from click.testing import CliRunner

    from generator.cli import main

    tmp_path = tmp_path_factory.mktemp("evaljobs")
    root = tmp_path / "project"
    root.mkdir()
    (root / "matrix.yaml").write_text(TWO_PINS)
    assert CliRunner().invoke(main, ["--root", str(root)]).exit_code == 0
    old = tmp_path / "nixpkgs-0182a36"
    shutil.copytree(FAKE_NIXPKGS, old / "fake")
    revisions = old / "fake" / "revisions.nix"
    text = revisions.read_text()
    at = text.index('"0182a36" = {')
    revisions.write_text(text[:at] + text[at:].replace("cuda = cuda2025;", 'cuda = removeAttrs cuda2025 [ "12_8" ];', 1))
    (old / "default.nix").write_text('args: import ./fake (args // { revision = "0182a36"; })\n')
    sets = {"old": str(old), "main": str(REPO / "tests" / "nix" / "nixpkgs-6a030d5")}
    expansion = expansion_of(root)
    found = eval_command.targets(expansion, root, tuple(expansion.variants), sets)
    specs = {}
    for pin, nixpkgs in sets.items():
        recipes = [{"name": f"r{index}", "file": str(t.file)} for index, t in enumerate(found) if t.pin == pin]
        spec = tmp_path / f"spec-{pin}.json"
        spec.write_text(json.dumps({"nixpkgs": nixpkgs, "recipes": recipes}))
        specs[pin] = spec
    return found, specs


def instantiate(expression: str) -> dict:
    done = subprocess.run([NIX_INSTANTIATE, "--eval", "--strict", "--json", "--expr", expression],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def walked(spec: Path) -> dict:
    """What nix-eval-jobs finds in evaljobs.nix: key -> attr -> drvPath, or null where it fails."""
    return instantiate(
        f"builtins.mapAttrs (key: jobs: assert jobs.recurseForDerivations; builtins.listToAttrs (map (attr: "
        f"{{ name = attr; value = let t = builtins.tryEval jobs.${{attr}}.drvPath; in if t.success then t.value "
        f"else null; }}) [ \"drv\" \"heavy\" \"python\" ])) "
        f"(import {evaljobs.EVALJOBS_NIX} {{ spec = \"{spec}\"; }})")


@needs_nix
def test_evaljobs_nix_gives_every_recipe_the_derivations_eval_nix_gives(two_pins):
    found, specs = two_pins
    refused, heavy = 0, set()
    for pin, spec in specs.items():
        ours = instantiate(f'import {eval_command.EVAL_NIX} {{ spec = "{spec}"; nonce = "n"; }}')
        theirs = walked(spec)
        assert sorted(theirs) == sorted(ours) and len(ours) >= 2
        for key, value in ours.items():
            if value is None:
                refused += 1
                assert theirs[key]["drv"] is None  # a recipe that refuses fails there too
            else:
                assert theirs[key] == value
        heavy |= {value["heavy"] for value in ours.values() if value}
    assert refused >= 2 and len(heavy) >= 2


# ---- (c) results read from the lines are evaluate()'s -------------------------------------

def message(spec: Path, key: str, attr: str) -> str:
    """The error the real Nix gives evaluating one derivation of evaljobs.nix, as nix-eval-jobs records it."""
    done = subprocess.run([NIX_INSTANTIATE, "--eval", "--expr",
                           f'(import {evaljobs.EVALJOBS_NIX} {{ spec = "{spec}"; }}).{key}.{attr}.drvPath'],
                          capture_output=True, text=True)
    assert done.returncode != 0
    return done.stderr


@needs_nix
def test_results_read_from_the_lines_of_every_recipe_are_those_evaluate_gives(two_pins, monkeypatch):
    monkeypatch.setenv(evaljobs.OPT_OUT, "1")  # evaluate() is the pool of nix-instantiate
    found, specs = two_pins
    expected = eval_command.evaluate(found, eval_command.nix_instantiate())
    assert evaljobs.program() is None
    lines = []
    for pin, spec in specs.items():
        for key, attrs in sorted(walked(spec).items()):
            for attr, drv_path in attrs.items():
                record = {"attr": f"{key}.{attr}", "attrPath": [key, attr]}
                if drv_path is None:
                    record["error"] = message(spec, key, attr)
                else:
                    record |= {"drvPath": drv_path, "system": "x86_64-linux"}
                lines.append(json.dumps(record))
    failing = {json.loads(line)["attrPath"][0] for line in lines if "error" in json.loads(line)}
    assert 2 <= len(failing) < len(found)
    # with the real Nix, a refused recipe fails in all three of its derivations
    assert all(sum(f'"{key}.' in line and '"error"' in line for line in lines) == 3 for key in failing)
    read = evaljobs.results([(f"r{index}", t) for index, t in enumerate(found)], evaljobs.jobs("\n".join(lines)))
    assert tuple(read) == expected
    assert sum(not r.ok for r in expected) == len(failing) and any(r.ok for r in expected)


@needs_nix
@pytest.mark.parametrize("attr", evaljobs.ATTRS)
def test_an_error_in_any_one_of_a_recipes_three_derivations_is_the_recipes_error(two_pins, attr):
    found, specs = two_pins
    walk = walked(specs["main"])
    good = sorted(key for key, attrs in walk.items() if all(attrs.values()))
    assert len(good) >= 2
    refused = next(key for key, attrs in walked(specs["old"]).items() if not any(attrs.values()))
    error = message(specs["old"], refused, attr)
    lines = [json.dumps({"attr": f"{key}.{a}", "attrPath": [key, a], "drvPath": walk[key][a]})
             for key in good for a in evaljobs.ATTRS if (key, a) != (good[0], attr)]
    lines.append(json.dumps({"attr": f"{good[0]}.{attr}", "attrPath": [good[0], attr], "error": error}))
    by_key = {f"r{index}": t for index, t in enumerate(found)}
    read = evaljobs.results([(key, by_key[key]) for key in good], evaljobs.jobs("\n".join(lines)))
    assert read[0] == eval_command.Result(by_key[good[0]].name, by_key[good[0]].kind, None, None, eval_command.error_line(error))
    assert read[0].error.startswith("the nixpkgs handed in for pin old has no cudaPackages_12_8")
    assert all(r.ok and r.drv == walk[key]["drv"] and r.heavy_drv == walk[key]["heavy"]
               for key, r in zip(good[1:], read[1:]))


# ---- when it is used, and how it is run ---------------------------------------------------

def test_it_is_used_where_it_is_on_path_unless_the_user_opts_out(tmp_path, monkeypatch):
    monkeypatch.delenv(evaljobs.OPT_OUT, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert evaljobs.program() is None
    there = tmp_path / "nix-eval-jobs"  # never run: only found
    there.write_text("")
    there.chmod(0o755)
    assert evaljobs.program() == str(there)
    monkeypatch.setenv(evaljobs.OPT_OUT, "")
    assert evaljobs.program() == str(there)
    monkeypatch.setenv(evaljobs.OPT_OUT, "1")
    assert evaljobs.program() is None


def test_evaluate_hands_its_targets_to_nix_eval_jobs_where_it_is_found(monkeypatch):
    asked = []
    monkeypatch.setattr(evaljobs, "program", lambda: "/bin/nix-eval-jobs")
    monkeypatch.setattr(evaljobs, "evaluate", lambda *args: asked.append(args) or ())
    found, quiet = (target("a"), target("b")), (target("c"),)
    assert eval_command.evaluate(found, "nix-instantiate", 3, deadline=5.0, quiet=quiet) == ()
    assert asked == [(found, "/bin/nix-eval-jobs", 3, 5.0, quiet)]


# The flags nix-eval-jobs documents (its README.md, "Further options", at commit
# 1c51df3613e64e9165c99d21fd42b98a96d8a97f), of those gen-matrix passes.
DOCUMENTED = {"--argstr", "--gc-roots-dir", "--include", "--max-memory-size", "--option", "--workers"}


def test_the_command_line_is_of_documented_flags_with_evaluation_restricted(tmp_path):
    first = eval_command.Target("a", "cpu", tmp_path / "a.nix", "aarch64-linux", None, "main", tmp_path,
                                "https://example.org/one.tar.gz")
    made = evaljobs.command("nix-eval-jobs", tmp_path / "spec.json", tmp_path / "roots", first, [tmp_path], 6)
    assert {part for part in made if part.startswith("-")} == DOCUMENTED
    assert made[-1] == str(evaljobs.EVALJOBS_NIX.resolve())
    assert made[made.index("--workers") + 1] == "6"
    assert made[made.index("--max-memory-size") + 1] == str(8 * 1024)  # MiB: the sandbox's cap on each
    pairs = {made[i + 1]: made[i + 2] for i, part in enumerate(made) if part == "--option"}
    assert pairs["system"] == "aarch64-linux" and pairs["restrict-eval"] == "true"
    assert pairs["allowed-uris"] == "https://example.org/one.tar.gz"
    assert made[made.index("--argstr") + 1:made.index("--argstr") + 3] == ["spec", str(tmp_path / "spec.json")]
