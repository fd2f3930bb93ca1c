"""gen-matrix eval: what each recipe evaluates to, asked of the real nix-instantiate.

A recipe that does not evaluate cannot build; finding that out costs seconds here and
hours on a build runner. Each recipe is evaluated against its pin, fetched by Nix as
`flox build` fetches it, or against a package set handed in (`--nixpkgs`), for the system
of the runner that builds it. The Nix side is eval.nix beside this file.

The recipes are shared out among a pool of nix-instantiate processes (`evaluate`): each
evaluates one batch of recipes of one package set and system, so that it parses the set
once; the first batches hold about the same number of recipes, a fair share of the
processes that run at once (`processes`: the cores, no more than the memory holds at the
sandbox's cap on each). Every recipe of a batch is evaluated under tryEval, so that one
refusal (a throw or an assert) does not hide the others; where it is a refusal of
gen-matrix's Nix library (nix/lib/refuse.nix), its message is traced and read here. A
failure tryEval cannot catch (a missing attribute, an abort, a syntax error) ends the
process; the recipes are evaluated in order and each result is traced as it comes, so the
recipes before the failing one keep their results, the failing one gets the process's
message, and those after it go on in new processes, shared among the idle workers. Any
other failure tryEval caught is evaluated once more on its own, without tryEval, for Nix's
message.

Evaluation is confined (sandbox.py): Nix reads the recipes' repository, the package set
handed in (the git work tree it lies in, else its own folder) and the pins it fetches, and
nothing else. The results are read from nix-instantiate's stdout, which a recipe cannot
write to; where the process failed, from the traces that carry a nonce the recipe cannot
read, so that a recipe's own `builtins.trace` cannot forge a result. A refusal's message
carries no nonce (the library cannot read it): a recipe can word its own failure with it,
and no other recipe's result.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import tempfile
import time
from contextlib import contextmanager
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Iterator, Mapping, Sequence

from ..errors import GenMatrixError, Location, printable
from ..layout import PKGS_DIR
from ..model import COMPANION, Expansion, Matrix, Variant
from . import sandbox
from ..records import dataclass

EVAL_NIX = Path(__file__).with_name("eval.nix")
NIX_INSTANTIATE = "nix-instantiate"
INSTALL_HINT = ("install Nix, which brings nix-instantiate: `apt-get install nix-bin` on Debian or Ubuntu, "
                "or the installer from https://nixos.org/download")
# Nix colours its messages on a terminal; what it prints is shown as text.
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_ERROR = re.compile(r"^\s*error:\s*(.*)$")


@dataclass(frozen=True)
class Target:
    """A recipe to evaluate: its file, and the package set and system it evaluates with."""

    name: str
    kind: str  # gpu, cpu, darwin, or companion
    file: Path
    system: str
    nixpkgs: str | None  # an absolute path; None: the recipe's pin, fetched
    pin: str
    root: Path  # the repository: the recipe imports its Nix library from there
    url: str  # where the pin's tarball is fetched from, where nixpkgs is None


@dataclass(frozen=True)
class Result:
    """What a recipe evaluated to: its derivations, or the error that stopped it."""

    name: str
    kind: str
    drv: str | None  # the published wrapper's drvPath
    heavy_drv: str | None  # the heavy build's: torch, torchvision or torchaudio
    error: str | None  # the first line of Nix's message, where it did not evaluate

    @property
    def ok(self) -> bool:
        return self.error is None

    def as_json(self) -> dict:
        return {"name": self.name, "kind": self.kind, "drv": self.drv, "heavy_drv": self.heavy_drv,
                "error": self.error}


@dataclass(frozen=True)
class Counts:
    """How many recipes evaluated, how many failed, and how many torch builds they make."""

    recipes: int
    evaluated: int
    failed: int
    torch_builds: int  # distinct heavy drvPaths of the torch recipes


def counts(results: tuple[Result, ...]) -> Counts:
    evaluated = [r for r in results if r.ok]
    torches = {r.heavy_drv for r in evaluated if r.kind != COMPANION}
    return Counts(len(results), len(evaluated), len(results) - len(evaluated), len(torches))


def kind_of(variant: Variant) -> str:
    return COMPANION if variant.is_companion else variant.kind


def package_sets(matrix: Matrix, given: tuple[str, ...], where: str = "--nixpkgs") -> dict[str, str | None]:
    """Pin name -> the package set its recipes evaluate against: an absolute path, or None
    for the pin itself. Each of `given` is PATH (every pin) or PIN=PATH (one pin)."""
    pins = [pin.name for pin in matrix.pins]
    chosen: dict[str, str | None] = dict.fromkeys(pins)
    for text in given:
        pin, _, path = text.partition("=")
        if not path or pin not in pins:
            pin, path = "", text
        hint = ("give a nixpkgs checkout, or a package set such as tests/nix/nixpkgs, as PATH (every pin) or "
                "PIN=PATH (one pin)")
        try:
            resolved = Path(path).expanduser()
            there = resolved.exists()
        except (RuntimeError, OSError) as error:  # ~user with no such user; a name longer than the system takes
            why = getattr(error, "strerror", None) or error
            raise GenMatrixError.at(Location(f"{where} {text}"), f"cannot use this path: {why}", hint) from None
        if not there:
            raise GenMatrixError.at(Location(f"{where} {text}"), f"no such file or folder: {path}", hint)
        if not resolved.is_dir() and not resolved.is_file():  # Nix would wait on a FIFO for ever
            raise GenMatrixError.at(Location(f"{where} {text}"), "not a folder or a regular file (a FIFO or a device)",
                                    hint)
        for name in ([pin] if pin else pins):
            chosen[name] = str(resolved.resolve())
    return chosen


def targets(expansion: Expansion, root: Path, variants: tuple[Variant, ...],
            sets: Mapping[str, str | None]) -> tuple[Target, ...]:
    """The recipes of `variants` as written under `root`/.flox/pkgs. A companion evaluates
    with its torch's pin, which its recipe imports."""
    made = []
    for variant in variants:
        file = root / PKGS_DIR / f"{variant.name}.nix"
        if not file.is_file():
            raise GenMatrixError.at(Location(str(file)), "the recipe is not there",
                                    "run `gen-matrix` to write the recipes, then evaluate them")
        pin = expansion.by_name[variant.torch].pin if variant.is_companion else variant.pin
        url = next(p.url for p in expansion.matrix.pins if p.name == pin)
        made.append(Target(variant.name, kind_of(variant), file.resolve(), variant.system, sets.get(pin), pin,
                           root.resolve(), url))
    return tuple(made)


def readable_tree(package_set: Path) -> Path:
    """The folder Nix may read for a package set handed in: the git work tree it lies in, as
    Nix reads a flake's whole tree, so that a set which wraps another of the same tree
    (tests/nix/nixpkgs-<rev> imports ../nixpkgs) evaluates; else its own folder."""
    folder = package_set if package_set.is_dir() else package_set.parent
    return next((above for above in (folder, *folder.parents) if (above / ".git").exists()), folder)


def nix_instantiate(where: str = "gen-matrix eval") -> str:
    found = shutil.which(NIX_INSTANTIATE)
    if found is None:
        raise GenMatrixError.at(Location(where), f"{NIX_INSTANTIATE} is not on PATH: recipes are evaluated with it",
                                INSTALL_HINT)
    return found


# What a failure says where its message was not asked for (messages=False).
NOT_EVALUATED = "did not evaluate"
# What a recipe gets where the run's deadline came before its evaluation ended.
OUT_OF_TIME = "not evaluated: the time allowed for evaluation ran out"


def processes(jobs: int | None = None) -> int:
    """How many nix-instantiate processes run at once: `jobs` (default: the cores), no more
    than the machine's memory holds at the sandbox's cap on each (sandbox.MEMORY_BYTES), and
    at least one."""
    wanted = jobs or os.cpu_count() or 1
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows): the cores alone
        return wanted
    return max(1, min(wanted, memory // sandbox.MEMORY_BYTES))


def batches(found: tuple[Target, ...], workers: int) -> list[tuple[int, ...]]:
    """The positions of `found` split into the first processes' batches: one package set and
    system each, each about the same number of recipes (a fair share of `workers`), the
    largest first. Every batch parses its package set once, so there are no more of them
    than the workers need to share the recipes out."""
    groups: dict[tuple[str | None, str, str], list[int]] = {}
    for index, target in enumerate(found):
        groups.setdefault(_group(target), []).append(index)
    size = max(1, -(-len(found) // workers))
    made = []
    for _, members in sorted(groups.items(), key=lambda item: str(item[0])):
        made += _pieces(members, -(-len(members) // size))
    return sorted(made, key=len, reverse=True)


def _group(target: Target) -> tuple[str | None, str, str]:
    """What the recipes of one process share: the package set (a pin fetched is its own), the system."""
    return target.nixpkgs, target.pin if target.nixpkgs is None else "", target.system


def _pieces(members, count: int) -> list[tuple[int, ...]]:
    """`members` in `count` runs of consecutive members, their lengths one apart at most."""
    count = max(1, min(count, len(members)))
    return [tuple(members[len(members) * k // count:len(members) * (k + 1) // count]) for k in range(count)]


def evaluate(found: tuple[Target, ...], program: str, jobs: int | None = None,
             messages: bool = True, deadline: float | None = None,
             quiet: tuple[Target, ...] = ()) -> tuple[Result, ...]:
    """Every target's derivations or error, in the order given. `jobs` processes at most run
    at once (`processes`). Without `messages`, a failure tryEval caught is not evaluated again
    for its message. `quiet`: more targets (another revision's recipes, say), evaluated in the
    same processes as `found` (a name may be in both), never asked for a message; their
    results follow those of `found`. `deadline` (a time.monotonic() value) bounds the whole
    run: a process still running then is killed, none starts after, and the recipes they did
    not evaluate get OUT_OF_TIME.

    A failure tryEval cannot catch ends its process; the traced prefix says where (see the
    module's docstring), so the batch is split there: the failing recipe gets the process's
    message and the recipes after it go on in new processes, as many as there are idle
    workers. That costs one process per such failure; halving the batch (bisection) would
    cost about log2 of its size, and evaluate every recipe before the failure again.

    Where nix-eval-jobs is on PATH (and GEN_MATRIX_NO_EVAL_JOBS is not set), it evaluates
    instead, with the same results (evaljobs.py)."""
    from . import evaljobs  # it builds on this module

    other = evaljobs.program()
    if other is not None:
        return evaljobs.evaluate(found, other, jobs, deadline, quiet)
    every = (*found, *quiet)
    told = len(found) if messages else 0  # the positions below this are asked for their message
    done: dict[int, Result] = {}
    workers = processes(jobs)
    queue = batches(every, workers)
    running: dict = {}
    # Runs innermost: on Ctrl-C it kills the processes, and then the pool's threads can end.
    with ThreadPoolExecutor(max_workers=workers) as pool, sandbox.Runs() as runs:
        def start() -> None:
            queue.sort(key=len, reverse=True)
            while queue and len(running) < workers:
                batch = queue.pop(0)
                running[pool.submit(_run, tuple((index, every[index]) for index in batch), program, runs,
                                    deadline)] = batch
        start()
        while running:
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                batch = running.pop(future)
                ran = future.result()
                untraced = [index for index in batch if str(index) not in ran.values]
                if ran.late:
                    for index in untraced:
                        done[index] = _failed(every[index], OUT_OF_TIME)
                elif ran.error is not None and untraced:  # at the first recipe it did not trace
                    done[untraced[0]] = _failed(every[untraced[0]], ran.error)
                    rest = batch[batch.index(untraced[0]) + 1:]
                    if rest:
                        queue += _pieces(rest, workers - len(running) - len(queue))
                for index in batch:
                    if str(index) not in ran.values:
                        continue
                    target, value = every[index], ran.values[str(index)]
                    if value is not None:
                        done[index] = Result(target.name, target.kind, value["drv"], value["heavy"], None)
                    elif str(index) in ran.refused:  # our library's refusal, with its message
                        done[index] = _failed(target, ran.refused[str(index)])
                    # caught by tryEval: once more alone, for the message. A recipe alone is
                    # evaluated without tryEval, so it fails with its message rather than give
                    # null; were it to, asking again would ask for ever.
                    elif index < told and len(batch) > 1:
                        queue.append((index,))
                    else:
                        done[index] = _failed(target, NOT_EVALUATED)
            start()
    return tuple(done[index] for index in range(len(every)))


def _failed(target: Target, error: str) -> Result:
    return Result(target.name, target.kind, None, None, error)


@dataclass(frozen=True)
class _Ran:
    """What one nix-instantiate said of its batch, each recipe by its key (its position)."""

    values: dict  # key -> derivations, or None where tryEval caught a failure
    refused: dict  # key -> the message of our library's refusal, where it traced one
    error: str | None  # the error line, where the process failed
    late: bool  # whether the deadline stopped it, or came before it started


def time_left(deadline: float | None) -> float:
    """The seconds one process may run: the sandbox's limit, or less where the run's deadline
    comes first (0 or less: none may start)."""
    return sandbox.TIMEOUT_S if deadline is None else min(sandbox.TIMEOUT_S, deadline - time.monotonic())


@contextmanager
def spec_file(batch: Sequence[tuple[str, Target]], nix_file: Path) -> Iterator[tuple[Path, list[Path]]]:
    """The spec of `batch` (keys and targets of one package set and system) that `nix_file`
    reads, in a temporary file, and the folders evaluation may read: that file's, the Nix
    file's, the recipes' repositories and the package set handed in. In a file: thousands of
    recipes would pass the length one argument may have."""
    first = batch[0][1]
    spec = {"nixpkgs": first.nixpkgs, "recipes": [{"name": key, "file": str(target.file)} for key, target in batch]}
    with tempfile.TemporaryDirectory(prefix="gen-matrix-eval-") as folder:
        file = Path(folder).resolve() / "spec.json"
        file.write_text(json.dumps(spec), encoding="utf-8")
        readable = [file.parent, nix_file.resolve().parent, *dict.fromkeys(target.root for _, target in batch)]
        if first.nixpkgs is not None:
            readable.append(readable_tree(Path(first.nixpkgs)))
        yield file, readable


def _run(batch: tuple[tuple[int, Target], ...], program: str, runs: sandbox.Runs,
         deadline: float | None) -> _Ran:
    """One nix-instantiate over `batch` (positions and targets of one package set and
    system). A batch of one recipe is evaluated without tryEval, so that its failure comes
    with Nix's message."""
    limit = time_left(deadline)
    if limit <= 0:
        return _Ran({}, {}, None, True)
    first = batch[0][1]
    nonce = secrets.token_hex(16)
    with spec_file([(str(index), target) for index, target in batch], EVAL_NIX) as (file, readable):
        command = [program, "--eval", "--strict", "--json", str(EVAL_NIX), "--argstr", "spec", str(file),
                   "--argstr", "nonce", nonce, "--arg", "catch", "false" if len(batch) == 1 else "true",
                   "--option", "system", first.system,
                   *sandbox.options(readable, [] if first.nixpkgs is not None else [first.url])]
        try:
            done = runs.run(command, limit)
        except OSError as error:
            return _Ran({}, {}, f"cannot run {program}: {error.strerror or error}", False)
    traced, refused = _traces(done.stderr, nonce)
    if done.dropped:
        return _Ran(traced, refused, done.overflow(NIX_INSTANTIATE, sandbox.OUTPUT_BYTES), False)
    if done.timed_out:
        if limit < sandbox.TIMEOUT_S:
            return _Ran(traced, refused, None, True)
        return _Ran(traced, refused, (f"{NIX_INSTANTIATE} ran for more than {sandbox.TIMEOUT_S:.0f} s and was "
                                      "stopped (does the recipe loop?)"), False)
    if done.returncode != 0:
        message = error_line(done.stderr) or f"{NIX_INSTANTIATE} exited with {done.returncode}"
        if message == "out of memory":
            message += f" (evaluation may take {sandbox.MEMORY_BYTES // 2**30} GiB)"
        return _Ran(traced, refused, message, False)
    outcome = _json(done.stdout)
    if not isinstance(outcome, dict) or not all(_derivations(value) for value in outcome.values()):
        return _Ran(traced, refused,
                    printable(f"{NIX_INSTANTIATE} printed no JSON of eval.nix's: {done.stdout[:200]!r}"), False)
    return _Ran(outcome, refused, None, False)


# What nix/lib/refuse.nix traces before it throws.
_REFUSAL = re.compile(r"^trace: gen-matrix-refusal: (.*)$")


def _traces(stderr: str, nonce: str) -> tuple[dict, dict]:
    """From a process's stderr: key -> derivations of each recipe eval.nix traced (carrying
    `nonce`), and key -> the message of the last refusal of our library traced while that
    recipe was evaluated, where tryEval caught its failure. A recipe could trace a line
    that looks like a refusal: that only words its own failure."""
    traced, refused = {}, {}
    ours = re.compile(rf"^trace: gen-matrix-eval {nonce}: (\{{.*\}})$")
    refusal = None
    for line in stderr.splitlines():
        line = _ANSI.sub("", line)
        found = ours.match(line)
        if found is None:
            said = _REFUSAL.match(line)
            refusal = said[1] if said else refusal
            continue
        entry = _json(found[1])
        # a package set can trace anything, even a line that looks like eval.nix's
        if isinstance(entry, dict) and isinstance(entry.get("name"), str) and "value" in entry \
                and _derivations(entry["value"]):
            traced[entry["name"]] = entry["value"]
            if entry["value"] is None and refusal is not None:
                refused[entry["name"]] = printable(refusal)
        refusal = None
    return traced, refused


def _json(text: str):
    """The value `text` holds as JSON; None when it holds none."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _derivations(value) -> bool:
    """Whether `value` is what eval.nix gives for a recipe: its drvPaths, or null where tryEval failed."""
    return value is None or (isinstance(value, dict) and isinstance(value.get("drv"), str)
                             and isinstance(value.get("heavy"), str))


def error_line(stderr: str) -> str:
    """The first line of the message Nix ends with, its control characters escaped (a recipe's
    throw can hold any). Nix 2.8 prints the error first; later versions print a trace of frames
    (`… while evaluating`) and the error last."""
    return printable(_error_line(stderr))


def _error_line(stderr: str) -> str:
    lines = [_ANSI.sub("", line) for line in stderr.splitlines()]
    for index in range(len(lines) - 1, -1, -1):
        found = _ERROR.match(lines[index])
        if found:
            text = found[1].strip()
            if text:
                return text
            following = [line.strip() for line in lines[index + 1:] if line.strip()]
            return following[-1] if following else "error"
    rest = [line.strip() for line in lines if line.strip()]
    return rest[-1] if rest else ""


def line(result: Result) -> str:
    """What `gen-matrix eval` prints for one recipe."""
    if result.ok:
        return f"{result.name}  {result.heavy_drv}  {result.drv}"
    return f"{result.name}  error: {result.error}"


def report(found: Counts) -> str:
    return (f"gen-matrix: {found.recipes} recipes, {found.evaluated} evaluated, {found.failed} failed, "
            f"{found.torch_builds} distinct torch builds")
