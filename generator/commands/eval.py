"""gen-matrix eval: what each recipe evaluates to, asked of the real nix-instantiate.

A recipe that does not evaluate cannot build; finding that out costs seconds here and
hours on a build runner. Each recipe is evaluated against its pin, fetched by Nix as
`flox build` fetches it, or against a package set handed in (`--nixpkgs`), for the system
of the runner that builds it. The Nix side is eval.nix beside this file.

All recipes of one package set and system are evaluated in one nix-instantiate process,
each under tryEval, so that one refusal (a throw or an assert) does not hide the others.
A failure tryEval cannot catch (a missing attribute, a syntax error) ends the process; the
recipes are evaluated in order and each result is traced as it comes, so the recipes before
the failing one keep their results, the failing one gets the process's message, and those
after it are evaluated again, in as many processes as there are cores. A failure tryEval
caught is evaluated once more on its own, without tryEval, for Nix's message.

Evaluation is confined (sandbox.py): Nix reads the recipes' repository, the package set
handed in (the git work tree it lies in, else its own folder) and the pins it fetches, and
nothing else. The results are read from nix-instantiate's stdout, which a recipe cannot
write to; where the process failed, from the traces that carry a nonce the recipe cannot
read, so that a recipe's own `builtins.trace` cannot forge a result.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from ..errors import GenMatrixError, Location, printable
from ..layout import PKGS_DIR
from ..model import COMPANION, Expansion, Matrix, Variant
from . import sandbox

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


def evaluate(found: tuple[Target, ...], program: str, jobs: int | None = None,
             messages: bool = True, deadline: float | None = None) -> tuple[Result, ...]:
    """Every target's derivations or error, in the order given. Without `messages`, a
    failure tryEval caught is not evaluated again for its message. `deadline` (a
    time.monotonic() value) bounds the whole run: a process still running then is killed,
    none starts after, and the recipes they did not evaluate get OUT_OF_TIME."""
    groups: dict[tuple[str | None, str, str], list[Target]] = {}
    for target in found:
        groups.setdefault((target.nixpkgs, target.pin if target.nixpkgs is None else "", target.system),
                          []).append(target)
    done: dict[str, Result] = {}
    workers = jobs or os.cpu_count() or 1
    rounds = [tuple(group) for _, group in sorted(groups.items(), key=lambda item: str(item[0]))]
    # Runs innermost: on Ctrl-C it kills the processes, and then the pool's threads can end.
    with ThreadPoolExecutor(max_workers=workers) as pool, sandbox.Runs() as runs:
        while rounds:
            following: list[tuple[Target, ...]] = []
            evaluations = pool.map(lambda chunk: _run(chunk, program, runs, deadline), rounds)
            for chunk, (outcome, error, late) in zip(rounds, evaluations):
                failed = next((index for index, target in enumerate(chunk) if target.name not in outcome), None)
                if late:
                    for target in chunk:
                        if target.name not in outcome:
                            done[target.name] = Result(target.name, target.kind, None, None, OUT_OF_TIME)
                elif error is not None and failed is not None:  # at the first recipe it did not trace
                    target = chunk[failed]
                    done[target.name] = Result(target.name, target.kind, None, None, error)
                    rest = chunk[failed + 1:]
                    size = max(1, -(-len(rest) // workers))
                    following += [rest[start:start + size] for start in range(0, len(rest), size)]
                for target in chunk:
                    if target.name not in outcome:
                        continue
                    value = outcome[target.name]
                    if value is None and not messages:
                        done[target.name] = Result(target.name, target.kind, None, None, NOT_EVALUATED)
                    elif value is None:  # caught by tryEval: once more alone, for the message
                        following.append((target,))
                    else:
                        done[target.name] = Result(target.name, target.kind, value["drv"], value["heavy"], None)
            rounds = following
    return tuple(done[target.name] for target in found)


def _run(chunk: tuple[Target, ...], program: str, runs: sandbox.Runs,
         deadline: float | None) -> tuple[dict, str | None, bool]:
    """One nix-instantiate over `chunk`: name -> derivations (None where tryEval caught a
    failure) of the recipes it evaluated; the error line where the process failed; and
    whether the deadline stopped it (or came before it started). A chunk of one recipe is
    evaluated without tryEval, so that its failure comes with Nix's message."""
    limit = sandbox.TIMEOUT_S if deadline is None else min(sandbox.TIMEOUT_S, deadline - time.monotonic())
    if limit <= 0:
        return {}, None, True
    first = chunk[0]
    spec = {"nixpkgs": first.nixpkgs, "recipes": [{"name": t.name, "file": str(t.file)} for t in chunk]}
    nonce = secrets.token_hex(16)
    # In a file: thousands of recipes would pass the length one argument may have.
    with tempfile.TemporaryDirectory(prefix="gen-matrix-eval-") as folder:
        file = Path(folder).resolve() / "spec.json"
        file.write_text(json.dumps(spec), encoding="utf-8")
        readable = [file.parent, EVAL_NIX.resolve().parent, *dict.fromkeys(t.root for t in chunk)]
        if first.nixpkgs is not None:
            readable.append(readable_tree(Path(first.nixpkgs)))
        command = [program, "--eval", "--strict", "--json", str(EVAL_NIX), "--argstr", "spec", str(file),
                   "--argstr", "nonce", nonce, "--arg", "catch", "false" if len(chunk) == 1 else "true",
                   "--option", "system", first.system,
                   *sandbox.options(readable, [] if first.nixpkgs is not None else [first.url])]
        try:
            done = runs.run(command, limit)
        except OSError as error:
            return {}, f"cannot run {program}: {error.strerror or error}", False
    traced = {}
    ours = re.compile(rf"^trace: gen-matrix-eval {nonce}: (\{{.*\}})$")
    for line in done.stderr.splitlines():
        found = ours.match(_ANSI.sub("", line))
        entry = _json(found[1]) if found else None
        # a package set can trace anything, even a line that looks like eval.nix's
        if isinstance(entry, dict) and isinstance(entry.get("name"), str) and "value" in entry \
                and _derivations(entry["value"]):
            traced[entry["name"]] = entry["value"]
    if done.dropped:
        return traced, done.overflow(NIX_INSTANTIATE, sandbox.OUTPUT_BYTES), False
    if done.timed_out:
        if limit < sandbox.TIMEOUT_S:
            return traced, None, True
        return traced, (f"{NIX_INSTANTIATE} ran for more than {sandbox.TIMEOUT_S:.0f} s and was stopped "
                        "(does the recipe loop?)"), False
    if done.returncode != 0:
        message = error_line(done.stderr) or f"{NIX_INSTANTIATE} exited with {done.returncode}"
        if message == "out of memory":
            message += f" (evaluation may take {sandbox.MEMORY_BYTES // 2**30} GiB)"
        return traced, message, False
    outcome = _json(done.stdout)
    if not isinstance(outcome, dict) or not all(_derivations(value) for value in outcome.values()):
        return traced, printable(f"{NIX_INSTANTIATE} printed no JSON of eval.nix's: {done.stdout[:200]!r}"), False
    return outcome, None, False


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
