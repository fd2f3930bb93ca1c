"""gen-matrix eval: every recipe evaluated by the real nix-instantiate, each failure named
with Nix's message, one failure never hiding another."""

from __future__ import annotations

import collections
import dataclasses
import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from generator.commands import eval as eval_command

from conftest import (FAKE_NIXPKGS, NIX_INSTANTIATE, REPO, drv_paths, expansion_of, needs_nix, needs_posix,
                      wrapped_package_set)
from generator.errors import GenMatrixError


def generated(project: Path, run) -> Path:
    assert run("--root", project).exit_code == 0
    return project


def lines(output: str) -> dict[str, str]:
    """Recipe name -> the rest of its line, from `gen-matrix eval`'s output."""
    return {line.split("  ", 1)[0]: line.split("  ", 1)[1] for line in output.splitlines()
            if "  " in line and not line.startswith("gen-matrix:")}


def package_set(tmp_path: Path, body: str) -> Path:
    """A package set that wraps the test one (`fake`) with `body`, a function of its arguments."""
    return wrapped_package_set(tmp_path / "nixpkgs", body)


# ---- the runs of nix-instantiate, with a stand-in that answers as eval.nix does -------------

class Answering:
    """Stands for sandbox.Runs: answers each nix-instantiate command as eval.nix does (a trace
    of every recipe of its spec, then their JSON), and records the command and its time limit."""

    def __init__(self) -> None:
        self.calls: list[tuple[list[str], float]] = []

    def __enter__(self) -> "Answering":
        return self

    def __exit__(self, *_) -> None:
        pass

    def run(self, command: list[str], limit: float):
        from generator.commands import sandbox

        self.calls.append((command, limit))
        spec = json.loads(Path(command[command.index("spec") + 1]).read_text(encoding="utf-8"))
        nonce = command[command.index("nonce") + 1]
        values = {r["name"]: {"drv": f"/nix/store/{Path(r['file']).stem}.drv", "heavy": "/nix/store/h.drv"}
                  for r in spec["recipes"]}
        traces = [f"trace: gen-matrix-eval {nonce}: " + json.dumps({"name": name, "value": value})
                  for name, value in values.items()]
        return sandbox.Finished(0, json.dumps(values), "\n".join(traces), False)


def stand_in_target(name: str, nixpkgs: str | None = None) -> eval_command.Target:
    return eval_command.Target(name, "cpu", Path(f"/repo/.flox/pkgs/{name}.nix"), "x86_64-linux", nixpkgs, "pin",
                               Path("/repo"), "https://example.org/nixpkgs.tar.gz")


def test_a_run_takes_no_longer_than_the_time_left_and_none_starts_after_the_deadline():
    import time

    runs = Answering()
    ran = eval_command._run(((0, stand_in_target("a")),), "nix-instantiate", runs, time.monotonic() + 5)
    assert ran == eval_command._Ran({"0": {"drv": "/nix/store/a.drv", "heavy": "/nix/store/h.drv"}}, {}, None, False)
    ((_, limit),) = runs.calls
    assert 0 < limit <= 5
    assert eval_command._run(((0, stand_in_target("a")),), "nix-instantiate", runs, time.monotonic() - 1) == \
        eval_command._Ran({}, {}, None, True)
    assert len(runs.calls) == 1


def test_each_run_has_a_fresh_nonce_of_128_bits():
    runs = Answering()
    for _ in range(2):
        eval_command._run(((0, stand_in_target("a")),), "nix-instantiate", runs, None)
    nonces = [command[command.index("nonce") + 1] for command, _ in runs.calls]
    assert all(len(nonce) == 32 and int(nonce, 16) >= 0 for nonce in nonces) and nonces[0] != nonces[1]


def test_recipes_with_a_package_set_and_with_their_pin_evaluate_side_by_side(monkeypatch, tmp_path):
    monkeypatch.setattr(eval_command.sandbox, "Runs", Answering)
    found = (stand_in_target("pinned"), stand_in_target("given", str(tmp_path)), stand_in_target("pinned-too"))
    results = eval_command.evaluate(found, "nix-instantiate", jobs=1)
    assert [(r.name, r.drv, r.error) for r in results] == [
        ("pinned", "/nix/store/pinned.drv", None), ("given", "/nix/store/given.drv", None),
        ("pinned-too", "/nix/store/pinned-too.drv", None)]


def test_past_the_deadline_every_recipe_is_out_of_time(monkeypatch):
    import time

    monkeypatch.setattr(eval_command.sandbox, "Runs", Answering)
    found = (stand_in_target("a"), stand_in_target("b"))
    assert eval_command.evaluate(found, "nix-instantiate", deadline=time.monotonic() - 1) == tuple(
        eval_command.Result(name, "cpu", None, None, eval_command.OUT_OF_TIME) for name in ("a", "b"))


class Catching(Answering):
    """Answers every recipe with null, as eval.nix does for a failure tryEval caught, even for
    a batch of one, which eval.nix evaluates without tryEval (`catch` false)."""

    def run(self, command: list[str], limit: float):
        from generator.commands import sandbox

        self.calls.append((command, limit))
        spec = json.loads(Path(command[command.index("spec") + 1]).read_text(encoding="utf-8"))
        return sandbox.Finished(0, json.dumps({r["name"]: None for r in spec["recipes"]}), "", False)


@pytest.mark.parametrize("names", [("a", "b"), ("a", "b", "c")])
def test_a_recipe_asked_alone_for_its_message_is_asked_once(monkeypatch, names):
    """A failure caught in a batch is evaluated once more alone, for Nix's message; where that
    gives none either, the recipe did not evaluate: it is not asked again until the deadline."""
    import time

    runs = Catching()
    monkeypatch.setattr(eval_command.sandbox, "Runs", lambda: runs)
    found = tuple(stand_in_target(name) for name in names)
    results = eval_command.evaluate(found, "nix-instantiate", jobs=1, deadline=time.monotonic() + 3)
    assert results == tuple(eval_command.Result(name, "cpu", None, None, eval_command.NOT_EVALUATED)
                            for name in names)
    catches = [command[command.index("catch") + 1] for command, _ in runs.calls]
    assert sorted(catches) == ["false"] * len(names) + ["true"]

HINT = "give a nixpkgs checkout, or a package set such as tests/nix/nixpkgs, as PATH (every pin) or PIN=PATH (one pin)"


@needs_posix("a FIFO (os.mkfifo)")
def test_each_package_set_that_cannot_be_used_is_located_with_what_to_give(project, tmp_path):
    matrix = expansion_of(project).matrix
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    long = str(tmp_path / ("p" * 5000))
    try:  # the words are Python's own
        Path("~no-such-user-here").expanduser()
        pytest.skip("this system has a user named no-such-user-here")
    except RuntimeError as error:
        no_home = str(error)
    for given, message in ((str(tmp_path / "none"), f"no such file or folder: {tmp_path / 'none'}"),
                           (str(fifo), "not a folder or a regular file (a FIFO or a device)"),
                           (long, "cannot use this path: File name too long"),
                           ("~no-such-user-here/nixpkgs", f"cannot use this path: {no_home}")):
        with pytest.raises(GenMatrixError) as refused:
            eval_command.package_sets(matrix, (given,))
        assert str(refused.value) == f"--nixpkgs {given}: {message}\n  hint: {HINT}"


def test_a_package_set_for_one_pin_leaves_the_others_to_their_pins(project, tmp_path):
    matrix = expansion_of(project).matrix
    pin = matrix.pins[0].name
    assert eval_command.package_sets(matrix, (f"{pin}={tmp_path}",)) == {
        p.name: (str(tmp_path.resolve()) if p.name == pin else None) for p in matrix.pins}


def test_a_target_carries_its_recipes_pin(project, tmp_path):
    expansion = expansion_of(project)
    variant = next(v for v in expansion.variants if not v.is_companion)
    (tmp_path / ".flox" / "pkgs").mkdir(parents=True)
    (tmp_path / ".flox" / "pkgs" / f"{variant.name}.nix").write_text("{ }\n")
    (target,) = eval_command.targets(expansion, tmp_path, (variant,), {})
    assert (target.pin, target.nixpkgs) == (variant.pin, None)


class Finishing(Answering):
    """Stands for sandbox.Runs: every command ends as `finished` says, or raises `error`."""

    def __init__(self, finished=None, error: OSError | None = None) -> None:
        super().__init__()
        self.finished, self.error = finished, error

    def run(self, command: list[str], limit: float):
        self.calls.append((command, limit))
        if self.error:
            raise self.error
        return self.finished


def test_how_a_run_of_nix_instantiate_that_fails_is_told():
    from generator.commands import sandbox

    one = ((0, stand_in_target("a")),)
    stopped = Finishing(sandbox.Finished(-9, "", "", True))
    assert eval_command._run(one, "nix-instantiate", stopped, None) == eval_command._Ran(
        {}, {}, f"nix-instantiate ran for more than {sandbox.TIMEOUT_S:.0f} s and was stopped (does the recipe loop?)",
        False)
    memory = Finishing(sandbox.Finished(1, "", "error: out of memory\n", False))
    assert eval_command._run(one, "nix-instantiate", memory, None) == eval_command._Ran(
        {}, {}, f"out of memory (evaluation may take {sandbox.MEMORY_BYTES // 2**30} GiB)", False)
    missing = Finishing(error=FileNotFoundError(2, "No such file or directory"))
    assert eval_command._run(one, "nix-instantiate", missing, None) == eval_command._Ran(
        {}, {}, "cannot run nix-instantiate: No such file or directory", False)


def test_only_a_pin_that_is_fetched_is_an_allowed_uri():
    runs = Answering()
    eval_command._run(((0, stand_in_target("fetched")),), "nix-instantiate", runs, None)
    eval_command._run(((0, stand_in_target("given", "/some/nixpkgs")),), "nix-instantiate", runs, None)
    allowed = [command[command.index("allowed-uris") + 1] for command, _ in runs.calls]
    assert allowed == ["https://example.org/nixpkgs.tar.gz", ""]


# ---- the real nix-instantiate ---------------------------------------------------------------

@needs_nix
def test_the_shipped_matrix_evaluates_against_the_test_package_set(run):
    result = run("eval", "--root", REPO, "--nixpkgs", FAKE_NIXPKGS)
    assert result.exit_code == 0, result.output
    found = lines(result.stdout)
    assert len(found) == 62
    assert all(line.endswith(".drv") and line.count(".drv") == 2 for line in found.values())
    assert result.stdout.splitlines()[-1].startswith("gen-matrix: 62 recipes, 62 evaluated, 0 failed, ")


@needs_nix
def test_the_drvpaths_are_those_nix_gives_each_recipe_alone(project, run):
    root = generated(project, run)
    result = run("eval", "--root", root, "--json", "--nixpkgs", FAKE_NIXPKGS)
    assert result.exit_code == 0, result.output
    found = {entry["name"]: entry for entry in json.loads(result.stdout)}
    alone = drv_paths(root)  # each against the package set of its pin and system
    assert set(found) == set(alone)
    for name, entry in found.items():
        assert (entry["drv"], entry["heavy_drv"], entry["error"]) == (alone[name]["wrapper"], alone[name]["build"], None)
    kinds = {entry["kind"] for entry in found.values()}
    assert kinds <= {"gpu", "cpu", "darwin", "companion"} and "companion" in kinds
    torches = {entry["heavy_drv"] for entry in found.values() if entry["kind"] != "companion"}
    assert f"{len(torches)} distinct torch builds" in result.stderr


# Three pins, each given its own revision of the test package set: tests/nix/nixpkgs-<rev>,
# which imports ../nixpkgs, the package set all revisions share.
PER_REVISION = """\
pytorch: {version: "2.9.1"}
nixpkgs:
  pins:
    - {name: cuda12, rev: 0182a361324364ae3f436a63005877674cf45efb, when: {cuda: ["12.8"]}}
    - {name: cuda13_1, rev: 2017d6d515f8a7b289fe06d3a880a7ec588c3900, when: {cuda: "13.1"}}
    - {name: main, rev: 6a030d535719c5190187c4cec156f335e95e3211}
gpu: {python: ["3.13"], cuda: ["12.8", "13.0", "13.1"], sm: [sm90], isa: [avx2]}
cpu: {python: ["3.13"], isa: [avx2]}
darwin: {python: ["3.13"], accelerator: [mps]}
companions:
  - packages: [torchvision]
    when: all
"""


@needs_nix
@pytest.mark.parametrize("in_git", [True, False], ids=["in a git work tree", "in a plain folder"])
def test_the_per_revision_package_sets_evaluate_from_the_tree_they_lie_in(in_git, run, tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    (root / "matrix.yaml").write_text(PER_REVISION)
    generated(root, run)
    checkout = tmp_path / "checkout"  # the test package sets, where a checkout of gen-matrix has them
    shutil.copytree(REPO / "tests" / "nix", checkout / "tests" / "nix")
    if in_git:
        subprocess.run(["git", "init", "-q", str(checkout)], check=True, capture_output=True)
    sets = {pin.name: checkout / "tests" / "nix" / f"nixpkgs-{pin.rev[:7]}" for pin in expansion_of(root).matrix.pins}
    given = [argument for name, folder in sorted(sets.items()) for argument in ("--nixpkgs", f"{name}={folder}")]
    result = run("eval", "--root", root, "--json", *given)
    found = {entry["name"]: entry for entry in json.loads(result.stdout)}
    if not in_git:  # a package set is read from its own folder: ../nixpkgs is outside it
        assert result.exit_code == 1
        assert all(entry["error"] == f"access to absolute path '{checkout / 'tests' / 'nix' / 'nixpkgs'}' is "
                   "forbidden in restricted mode" for entry in found.values())
        return
    assert result.exit_code == 0, result.output
    alone = drv_paths(root)  # each recipe against its own pin's revision, for its system, unconfined
    assert set(found) == set(alone) and len(found) == 10
    for name, entry in found.items():
        assert (entry["drv"], entry["heavy_drv"], entry["error"]) == (alone[name]["wrapper"], alone[name]["build"],
                                                                      None)
    pins = {v.name: v.pin for v in expansion_of(root).variants if not v.is_companion}
    assert set(pins.values()) == {"cuda12", "cuda13_1", "main"}
    heavy = {pin: {found[name]["heavy_drv"] for name in pins if pins[name] == pin} for pin in set(pins.values())}
    assert len(set().union(*heavy.values())) == sum(len(drvs) for drvs in heavy.values())  # no pin's build is another's


@needs_nix
def test_a_package_set_that_does_not_evaluate_fails_every_recipe_by_name(project, run, tmp_path):
    root = generated(project, run)
    broken = package_set(tmp_path, 'builtins.abort "this package set is broken"')
    result = run("eval", "--root", root, "--nixpkgs", broken)
    assert result.exit_code == 1
    found = lines(result.stdout)
    names = sorted(v.name for v in expansion_of(root).variants)
    assert sorted(found) == names
    assert all("this package set is broken" in line for line in found.values())
    assert f"{len(names)} recipes, 0 evaluated, {len(names)} failed" in result.stdout


@needs_nix
@pytest.mark.parametrize("how, body, with_cuda_fails", [
    # a throw, as nixpkgs refuses a package: caught per recipe by tryEval
    ("thrown", 'if args.config.cudaSupport or false then throw "no CUDA in this package set" else fake args', True),
    # a Python the package set lacks: the library's refusal, caught as a throw
    ("no such Python", 'let pkgs = fake args; in if args.config.cudaSupport or false '
                       'then builtins.removeAttrs pkgs [ "python313Packages" ] else pkgs', True),
    # an abort ends the process: the recipes after the failing one are evaluated again
    ("aborted", 'if args.config.cudaSupport or false then builtins.abort "no CUDA in this package set" else fake args',
     True),
    # ...also where it fails first, and every recipe after it evaluates (CPU names sort first)
    ("aborted first", 'if args.config.cudaSupport or false then fake args else builtins.abort "no CUDA in this package set"',
     False),
])
def test_one_failing_recipe_hides_no_other(how, body, with_cuda_fails, project, run, tmp_path):
    root = generated(project, run)
    result = run("eval", "--root", root, "--json", "--nixpkgs", package_set(tmp_path, body))
    assert result.exit_code == 1
    found = {entry["name"]: entry for entry in json.loads(result.stdout)}
    expansion = expansion_of(root)
    with_cuda = {v.name for v in expansion.variants if (expansion.by_name[v.torch] if v.torch else v).cuda}
    assert with_cuda and len(with_cuda) < len(found)
    failing = with_cuda if with_cuda_fails else set(found) - with_cuda
    message = ("this nixpkgs has no python313Packages, so it cannot build for Python 3.13: pick a pin that has it "
               "(nixpkgs.pins in matrix.yaml) or drop Python 3.13") if how == "no such Python" else (
        "no CUDA in this package set" if how == "thrown" else
        "evaluation aborted with the following error message: 'no CUDA in this package set'")
    alone = drv_paths(root)
    for name, entry in found.items():
        if name in failing:
            assert entry["drv"] is None and entry["error"] == message, entry
        else:
            assert entry["error"] is None and entry["drv"] == alone[name]["wrapper"], entry


# Two pins, each without one of the CUDA releases asked: 13.1 at 6a030d5 (the test package
# set's own), 12.8 at 0182a36 (a copy of the test package set with it taken out).
TWO_PINS = """\
pytorch: {version: "2.9.1"}
nixpkgs:
  pins:
    - {name: old, rev: 0182a361324364ae3f436a63005877674cf45efb, when: {cuda: ["12.8"]}}
    - {name: main, rev: 6a030d535719c5190187c4cec156f335e95e3211}
gpu: {python: ["3.13"], cuda: ["12.8", "13.1"], sm: [sm90, sm86], isa: [avx2]}
cpu: {python: ["3.13"], isa: [avx2]}
"""


def refused_cuda(held: str, release: str) -> str:
    attribute = "cudaPackages_" + release.replace(".", "_")
    return (f"{held} has no {attribute}, so it cannot build CUDA {release}: pin a nixpkgs that has it for CUDA "
            f"{release} (nixpkgs.pins in matrix.yaml) or drop {release} from gpu.cuda")


@needs_nix
def test_a_cuda_release_a_pin_lacks_is_refused_by_name_without_ending_the_process(counted, run, tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    (root / "matrix.yaml").write_text(TWO_PINS)
    generated(root, run)
    old = tmp_path / "nixpkgs-0182a36"  # its own folder, so that evaluation may read all of it
    shutil.copytree(FAKE_NIXPKGS, old / "fake")
    revisions = old / "fake" / "revisions.nix"
    text = revisions.read_text()
    at = text.index('"0182a36" = {')
    assert text[at:].index("cuda = cuda2025;") < text[at:].index("\n  };")  # in its block
    revisions.write_text(text[:at] + text[at:].replace("cuda = cuda2025;", 'cuda = removeAttrs cuda2025 [ "12_8" ];', 1))
    (old / "default.nix").write_text('args: import ./fake (args // { revision = "0182a36"; })\n')
    main = REPO / "tests" / "nix" / "nixpkgs-6a030d5"
    result = run("eval", "--root", root, "--json", "--nixpkgs", f"old={old}", "--nixpkgs", f"main={main}")
    assert result.exit_code == 1
    found = {entry["name"]: entry for entry in json.loads(result.stdout)}
    expansion = expansion_of(root)
    cuda = {v.name: v.cuda and v.cuda.name for v in expansion.variants}
    assert sorted(set(cuda.values()), key=str) == ["12.8", "13.1", None]
    for name, entry in found.items():
        if cuda[name] is None:
            assert entry["error"] is None and entry["drv"].endswith(".drv"), entry
        else:
            pin = "old" if cuda[name] == "12.8" else "main"
            assert entry == {"name": name, "kind": "gpu", "drv": None, "heavy_drv": None,
                             "error": refused_cuda(f"the nixpkgs handed in for pin {pin}", cuda[name])}
    # the refusals are read from the traces of the first processes: none is evaluated again alone
    targets = eval_command.targets(expansion, root, tuple(expansion.variants), {"old": str(old), "main": str(main)})
    assert len(counted.read_text().splitlines()) == len(eval_command.batches(targets, eval_command.processes()))


@pytest.fixture
def counted(tmp_path, monkeypatch) -> Path:
    """nix-instantiate on PATH through a wrapper that logs each of its processes."""
    log = tmp_path / "processes"
    folder = tmp_path / "bin"
    folder.mkdir()
    wrapper = folder / "nix-instantiate"
    wrapper.write_text(f'#!/bin/sh\necho "$*" >> {log}\nexec {NIX_INSTANTIATE} "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    return log


@needs_nix
@pytest.mark.parametrize("cores", [1, 4])
def test_each_process_evaluates_one_package_set_and_system_and_no_more_start_than_the_cores_need(
        cores, counted, run, monkeypatch):
    monkeypatch.setattr(eval_command.os, "cpu_count", lambda: cores)
    monkeypatch.setattr(eval_command.os, "sysconf", lambda name: 2**40 if name == "SC_PHYS_PAGES" else 4096)
    result = run("eval", "--root", REPO, "--nixpkgs", FAKE_NIXPKGS)
    assert result.exit_code == 0, result.output
    systems = collections.Counter(v.system for v in expansion_of(REPO).variants)
    processes = counted.read_text().splitlines()
    started = collections.Counter(line.split("--option system ", 1)[1].split()[0] for line in processes)
    assert set(started) == set(systems) == {"x86_64-linux", "aarch64-linux", "aarch64-darwin"}
    if cores == 1:  # one process per package set and system
        assert started == collections.Counter(set(systems))
    else:  # the cores share the recipes: a system with more than its share is split, the others are not
        share = -(-sum(systems.values()) // cores)
        assert started == {system: -(-count // share) for system, count in systems.items()}
        assert len(processes) <= len(systems) + cores - 1


@pytest.mark.parametrize("jobs, cores, memory, expected", [
    (None, 4, 64 * 2**30, 4),  # the cores, where the memory holds them
    (None, 4, 20 * 2**30, 2),  # no more than the memory holds at the cap on each
    (3, 16, 64 * 2**30, 3),  # as many as asked
    (8, 16, 2**30, 1),  # at least one
])
def test_processes_at_once_are_the_jobs_bounded_by_the_memory(jobs, cores, memory, expected, monkeypatch):
    assert eval_command.sandbox.MEMORY_BYTES == 8 * 2**30
    monkeypatch.setattr(eval_command.os, "cpu_count", lambda: cores)
    monkeypatch.setattr(eval_command.os, "sysconf", lambda name: memory // 4096 if name == "SC_PHYS_PAGES" else 4096)
    assert eval_command.processes(jobs) == expected


@pytest.mark.parametrize("sizes, workers", [
    ({("a", "x86_64-linux"): 10, ("a", "aarch64-linux"): 3, ("b", "x86_64-linux"): 7}, 2),
    ({("a", "x86_64-linux"): 10, ("a", "aarch64-linux"): 3, ("b", "x86_64-linux"): 7}, 5),
    ({("a", "x86_64-linux"): 1, ("b", "aarch64-darwin"): 1}, 4),
    ({("a", "x86_64-linux"): 9}, 1),
    ({("a", "x86_64-linux"): 2, ("b", "x86_64-linux"): 31}, 3),
])
def test_batches_hold_one_package_set_and_system_each_and_share_the_recipes_out(sizes, workers):
    found = tuple(
        dataclasses.replace(stand_in_target(f"{nixpkgs}-{system}-{i}", f"/sets/{nixpkgs}"), system=system)
        for (nixpkgs, system), count in sizes.items() for i in range(count))
    made = eval_command.batches(found, workers)
    assert sorted(index for batch in made for index in batch) == list(range(len(found)))  # each recipe once
    assert [len(batch) for batch in made] == sorted((len(batch) for batch in made), reverse=True)  # largest first
    share = -(-len(found) // workers)
    for (nixpkgs, system), count in sizes.items():
        mine = [batch for batch in made if (found[batch[0]].nixpkgs, found[batch[0]].system) == (f"/sets/{nixpkgs}", system)]
        assert all((found[i].nixpkgs, found[i].system) == (f"/sets/{nixpkgs}", system) for b in mine for i in b)
        assert len(mine) == -(-count // share)  # as few as the share allows
        assert max(map(len, mine)) - min(map(len, mine)) <= 1
    assert len(made) <= len(sizes) + workers - 1


# Recipes written by hand, so that each fails (or not) where a test wants: eval.nix reads a
# recipe's three drvPaths, which may be any strings.
def recipe_text(how: str, name: str) -> str:
    value = (f'{{ drvPath = "/nix/store/{name}.drv"; unwrapped.drvPath = "/nix/store/heavy-{name}.drv"; '
             f'pythonEnv.drvPath = "/nix/store/python-{name}.drv"; }}')
    return "{ genMatrixNixpkgs ? null }:\n" + {
        "evaluates": value,
        "throws": f'throw "{name} throws"',  # caught by tryEval
        "refuses": f'import ./refuse.nix "{name} is refused"',  # caught, its message traced (the library's)
        "misses": f'{{ }}.missing-{name}',  # a missing attribute: ends the process
        "aborts": f'abort "{name} aborts"',  # ends the process
    }[how] + "\n"


class Counting:
    """sandbox.Runs that counts the processes it starts and the recipes each one was given."""

    started: list[int] = []

    real = eval_command.sandbox.Runs

    def __init__(self, *args) -> None:
        self.runs = Counting.real(*args)

    def __enter__(self) -> "Counting":
        self.runs.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.runs.__exit__(*exc)

    def run(self, command: list[str], limit: float):
        spec = json.loads(Path(command[command.index("spec") + 1]).read_text(encoding="utf-8"))
        Counting.started.append(len(spec["recipes"]))
        return self.runs.run(command, limit)


@needs_nix
@needs_posix("the sandbox's process groups")
@pytest.mark.parametrize("jobs", [1, 2])
def test_failures_are_isolated_in_their_batch_and_each_recipe_gets_what_it_gets_alone(jobs, tmp_path, monkeypatch):
    # Two package sets, two systems; in the first batch uncaught failures at the first and the
    # last place and one in the middle, beside a throw and a refusal of the library's own.
    plans = {
        ("one", "x86_64-linux"): ["misses", "evaluates", "refuses", "throws", "evaluates", "aborts", "evaluates",
                                  "evaluates", "misses"],
        ("one", "aarch64-linux"): ["evaluates", "refuses", "evaluates"],
        ("two", "x86_64-linux"): ["throws", "evaluates", "misses", "refuses"],
    }
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    shutil.copy(REPO / "nix" / "lib" / "refuse.nix", tmp_path)
    found = []
    for (nixpkgs, system), hows in plans.items():
        for i, how in enumerate(hows):
            name = f"{nixpkgs}-{system}-{i}-{how}"
            file = tmp_path / f"{name}.nix"
            file.write_text(recipe_text(how, name))
            found.append(eval_command.Target(name, "cpu", file, system, str(tmp_path / nixpkgs), "pin", tmp_path,
                                             "https://example.org/nixpkgs.tar.gz"))
    found = tuple(found)
    monkeypatch.setattr(eval_command.sandbox, "Runs", Counting)
    monkeypatch.setattr(Counting, "started", [])
    program = eval_command.nix_instantiate()
    together = eval_command.evaluate(found, program, jobs=jobs)
    started = list(Counting.started)
    alone = tuple(eval_command.evaluate((target,), program)[0] for target in found)
    assert together == alone
    by_name = {r.name: r for r in together}
    for target in found:
        how, result = target.name.rsplit("-", 1)[1], by_name[target.name]
        if how == "evaluates":
            assert (result.drv, result.heavy_drv, result.error) == (f"/nix/store/{target.name}.drv",
                                                                    f"/nix/store/heavy-{target.name}.drv", None)
        else:
            said = {"throws": f"{target.name} throws", "refuses": f"{target.name} is refused",
                    "misses": f"attribute 'missing-{target.name}' missing", "aborts": f"{target.name} aborts"}[how]
            assert result.drv is None and said in result.error, result
    # The processes: the first batches; one more for what follows each failure that ended a
    # process, unless it was last; one alone for each throw, for its message. None for a
    # refusal, whose message is traced; never one per recipe.
    first = eval_command.batches(found, jobs)
    ended = [index for batch in first for index in batch
             if found[index].name.endswith(("misses", "aborts")) and index != batch[-1]]
    throws = sum(target.name.endswith("throws") for target in found)
    if jobs == 1:
        assert len(started) == len(first) + len(ended) + throws == 8
    else:  # what follows a failure may be shared out among the idle workers
        assert len(first) + len(ended) + throws <= len(started) <= len(first) + jobs * len(ended) + throws
    assert len(started) < len(found)
@needs_nix
def test_names_choose_the_recipes(project, run):
    root = generated(project, run)
    names = ["pytorch-python313-cpu-avx2", "torchvision-python313-cuda12_8-sm75-avx"]
    result = run("eval", *names, "--root", root, "--nixpkgs", FAKE_NIXPKGS)
    assert result.exit_code == 0, result.output
    assert sorted(lines(result.stdout)) == names


def test_an_unknown_name_is_bad_input(project, run):
    root = generated(project, run)
    result = run("eval", "pytorch-no-such-variant", "--root", root)
    assert result.exit_code == 2 and "no variant is called 'pytorch-no-such-variant'" in result.stderr


def test_a_package_set_that_is_not_there_is_bad_input(project, run, tmp_path):
    root = generated(project, run)
    result = run("eval", "--root", root, "--nixpkgs", tmp_path / "nowhere")
    assert result.exit_code == 2 and "no such file or folder" in result.stderr


def test_without_nix_instantiate_it_says_how_to_get_it(project, run, tmp_path, monkeypatch):
    root = generated(project, run)
    monkeypatch.setenv("PATH", str(tmp_path))
    result = run("eval", "--root", root)
    assert result.exit_code == 2
    assert "nix-instantiate is not on PATH" in result.stderr and "apt-get install nix-bin" in result.stderr


@pytest.mark.parametrize("stderr, expected", [
    # Nix 2.8: the error first, then where
    ("error: attribute 'cudaPackages_13_1' missing\n\n       at /x/nixpkgs.nix:37:20:\n", "attribute 'cudaPackages_13_1' missing"),
    # later Nix: a trace of frames, the error last
    ("error:\n       … while calling the 'derivationStrict' builtin\n         at /builtin/derivation.nix:9:12:\n\n"
     "       error: Package ‘torch-2.9.1’ in /x is marked as broken, refusing to evaluate.\n\n       a) To temporarily allow",
     "Package ‘torch-2.9.1’ in /x is marked as broken, refusing to evaluate."),
    ("warning: unknown setting 'foo'\n\x1b[31;1merror:\x1b[0m syntax error, unexpected end of file\n",
     "syntax error, unexpected end of file"),
    # an error whose message follows on lines of its own: the last of them
    ("error:\n       Failed assertions:\n       - the CUDA release is not supported\n\n",
     "- the CUDA release is not supported"),
    ("error:\n\n", "error"),  # nothing after it
    ("error:\n       first\n       second\n       third\n", "third"),  # the last of several, not the second
    ("error:\n       only\n", "only"),
    ("some output\nthe last words\n", "the last words"),  # no error line at all
    ("", ""),
    ("   \n\n", ""),
])
def test_the_error_line_is_the_message_nix_ends_with(stderr, expected):
    assert eval_command.error_line(stderr) == expected


@needs_nix
def test_without_messages_a_caught_failure_is_not_evaluated_again(counted, project, run, tmp_path):
    root = generated(project, run)
    refusing = package_set(tmp_path, 'if args.config.cudaSupport or false then throw "no CUDA here" else fake args')
    expansion = expansion_of(root)
    variants = tuple(expansion.variants)
    sets = eval_command.package_sets(expansion.matrix, (str(refusing),))
    found = eval_command.targets(expansion, root, variants, sets)
    program = eval_command.nix_instantiate()
    quiet = eval_command.evaluate(found, program, messages=False)
    processes = len(counted.read_text().splitlines())
    assert processes == len(eval_command.batches(found, eval_command.processes()))  # none beyond the first
    failed = [r for r in quiet if not r.ok]
    assert failed and all(r.error == eval_command.NOT_EVALUATED for r in failed)
    told = eval_command.evaluate(found, program)
    assert [r.name for r in told if not r.ok] == [r.name for r in failed]
    assert all("no CUDA here" in r.error for r in told if not r.ok)


@pytest.mark.parametrize("value, holds", [
    (None, True), ({"drv": "/nix/store/a.drv", "heavy": "/nix/store/b.drv"}, True),
    ({"drv": "/nix/store/a.drv"}, False), ({"heavy": "/nix/store/b.drv"}, False), ({"drv": 1, "heavy": "x"}, False),
    (["/nix/store/a.drv"], False), ("/nix/store/a.drv", False),
])
def test_only_the_shape_eval_nix_gives_is_read_as_derivations(value, holds):
    assert eval_command._derivations(value) is holds


def test_a_recipe_that_is_not_written_and_a_package_set_that_is_not_there_are_located(project, tmp_path):
    expansion = expansion_of(project)
    variant = expansion.variants[0]
    with pytest.raises(GenMatrixError) as refused:
        eval_command.targets(expansion, tmp_path, (variant,), {})
    file = tmp_path / ".flox" / "pkgs" / f"{variant.name}.nix"
    assert str(refused.value) == (f"{file}: the recipe is not there\n  hint: run `gen-matrix` to write the recipes, "
                                  "then evaluate them")
    with pytest.raises(GenMatrixError) as refused:
        eval_command.package_sets(expansion.matrix, (str(tmp_path / "none"),))
    assert str(refused.value).startswith(f"--nixpkgs {tmp_path / 'none'}: no such file or folder: ")


@needs_nix
@pytest.mark.parametrize("limit, out_of_time", [("0.0001", True), ("30", False)])
def test_the_time_limit_bounds_every_evaluation_together_and_names_what_it_did_not_reach(project, run, limit,
                                                                                       out_of_time):
    root = generated(project, run)
    names = ["pytorch-python313-cpu-avx2", "torchvision-python313-cuda12_8-sm75-avx"]
    result = run("eval", *names, "--root", root, "--nixpkgs", FAKE_NIXPKGS, "--time-limit", limit)
    assert result.exit_code == (1 if out_of_time else 0), result.output
    said = [line for line in result.stdout.splitlines() if f"error: {eval_command.OUT_OF_TIME}" in line]
    assert [line.split()[0] for line in said] == (names if out_of_time else [])


@pytest.mark.parametrize("limit", ["nan", "inf", "0"])
def test_eval_refuses_a_time_limit_that_is_no_limit(project, run, limit):
    result = run("eval", "--root", project, "--time-limit", limit)
    assert result.exit_code == 2 and "Invalid value for '--time-limit'" in result.stderr
