"""gen-matrix eval through nix-eval-jobs, where it is on PATH.

nix-eval-jobs (https://github.com/nix-community/nix-eval-jobs, Hydra's evaluator on its own)
walks an attribute set of derivations in a pool of worker processes, each restarted past a
memory cap, and prints one JSON line per derivation: `attr` and `attrPath` (where it is),
and `drvPath`, or `error` (Nix's message) where it failed, without stopping the others. For
a batch of recipes of one package set and system, evaljobs.nix beside this file gives each
recipe the three derivations eval.nix gives the drvPaths of (`NAME.drv`, `NAME.heavy`,
`NAME.python`); the lines are read back into eval.py's results, the same as its own pool of
nix-instantiate gives: a recipe's error is the first line of the message of any of its
three (or of the recipe itself), the last `error:` line of the message, as eval.py reads
Nix's.

It is used where `nix-eval-jobs` is on PATH, unless GEN_MATRIX_NO_EVAL_JOBS is set to a
value that is not empty. Evaluation is confined as eval.py's is (sandbox.options): the same
Nix options, which nix-eval-jobs takes as nix-instantiate does.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Sequence

from ..errors import printable
from . import sandbox
from ..records import dataclass
from .eval import OUT_OF_TIME, Result, Target, _failed, _group, error_line, processes, spec_file, time_left

NIX_EVAL_JOBS = "nix-eval-jobs"
EVALJOBS_NIX = Path(__file__).with_name("evaljobs.nix")
OPT_OUT = "GEN_MATRIX_NO_EVAL_JOBS"
# The derivations of a recipe, as evaljobs.nix names them.
ATTRS = ("drv", "heavy", "python")


def program() -> str | None:
    """nix-eval-jobs, where it is on PATH and the user did not opt out; else None."""
    if os.environ.get(OPT_OUT):
        return None
    return shutil.which(NIX_EVAL_JOBS)


@dataclass(frozen=True)
class Job:
    """One line of nix-eval-jobs: where the derivation is, its drvPath or its error."""

    path: tuple[str, ...]
    drv_path: str | None
    error: str | None


def jobs(stdout: str) -> list[Job]:
    """The records nix-eval-jobs printed, one JSON object a line; other lines are skipped.
    `attrPath` says where (older versions print `attr` alone, the path joined by dots)."""
    found = []
    for line in stdout.splitlines():
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if not isinstance(record, dict) or not isinstance(record.get("attr"), str):
            continue
        path = record.get("attrPath")
        if not (isinstance(path, list) and path and all(isinstance(part, str) for part in path)):
            path = record["attr"].split(".")
        error, drv_path = record.get("error"), record.get("drvPath")
        found.append(Job(tuple(path), drv_path if isinstance(drv_path, str) else None,
                         error if isinstance(error, str) else None))
    return found


def results(batch: Sequence[tuple[str, Target]], found: Sequence[Job], failure: str | None = None) -> list[Result]:
    """Each target of `batch` (by its key, the name evaljobs.nix gives it) as eval.py's
    Result, from the records `found`. A recipe none of whose records failed and that lacks
    one gets `failure` (what ended the process), else says which record is missing."""
    by_key: dict[str, dict[str, Job]] = {}
    for job in found:
        by_key.setdefault(job.path[0], {})[".".join(job.path[1:])] = job
    made = []
    for key, target in batch:
        mine = by_key.get(key, {})
        errors = [mine[attr].error for attr in ("", *ATTRS) if attr in mine and mine[attr].error is not None]
        missing = [attr for attr in ATTRS if attr not in mine or mine[attr].drv_path is None]
        if errors:
            made.append(_failed(target, error_line(errors[0]) or "error"))
        elif missing:
            made.append(_failed(target, failure or f"{NIX_EVAL_JOBS} printed no derivation of {key}.{missing[0]}"))
        else:
            made.append(Result(target.name, target.kind, mine["drv"].drv_path, mine["heavy"].drv_path, None))
    return made


def options(readable: Sequence[Path], uris: Sequence[str]) -> list[str]:
    """sandbox.options as nix-eval-jobs takes them: its search path is `--include`."""
    return ["--include" if option == "-I" else option for option in sandbox.options(readable, uris)]


def command(program: str, spec: Path, roots: Path, first: Target, readable: Sequence[Path], workers: int) -> list[str]:
    return [program, "--gc-roots-dir", str(roots), "--workers", str(workers),
            "--max-memory-size", str(sandbox.MEMORY_BYTES // 2**20), "--option", "system", first.system,
            *options(readable, [] if first.nixpkgs is not None else [first.url]),
            "--argstr", "spec", str(spec), str(EVALJOBS_NIX.resolve())]


def evaluate(found: tuple[Target, ...], program: str, jobs: int | None = None, deadline: float | None = None,
             quiet: tuple[Target, ...] = ()) -> tuple[Result, ...]:
    """What eval.evaluate gives, from one nix-eval-jobs for each package set and system, its
    workers `jobs` (eval.processes)."""
    every = (*found, *quiet)
    groups: dict = {}
    for index, target in enumerate(every):
        groups.setdefault(_group(target), []).append(index)
    done: dict[int, Result] = {}
    with sandbox.Runs() as runs:
        for _, members in sorted(groups.items(), key=lambda item: str(item[0])):
            batch = [(f"r{index}", every[index]) for index in members]
            for index, result in zip(members, _run(batch, program, runs, processes(jobs), deadline)):
                done[index] = result
    return tuple(done[index] for index in range(len(every)))


def _run(batch: list[tuple[str, Target]], program: str, runs: sandbox.Runs, workers: int,
         deadline: float | None) -> list[Result]:
    limit = time_left(deadline)
    if limit <= 0:
        return [_failed(target, OUT_OF_TIME) for _, target in batch]
    first = batch[0][1]
    with spec_file(batch, EVALJOBS_NIX) as (file, readable):
        roots = file.parent / "gc-roots"
        roots.mkdir()
        try:
            done = runs.run(command(program, file, roots, first, readable, workers), limit)
        except OSError as error:
            return [_failed(target, f"cannot run {program}: {error.strerror or error}") for _, target in batch]
    failure = None
    if done.dropped:
        failure = done.overflow(NIX_EVAL_JOBS, sandbox.OUTPUT_BYTES)
    elif done.timed_out:
        failure = OUT_OF_TIME if limit < sandbox.TIMEOUT_S else (
            f"{NIX_EVAL_JOBS} ran for more than {sandbox.TIMEOUT_S:.0f} s and was stopped (does a recipe loop?)")
    elif done.returncode != 0:
        failure = error_line(done.stderr) or f"{NIX_EVAL_JOBS} exited with {done.returncode}"
    return results(batch, jobs("" if done.dropped else done.stdout), failure and printable(failure))
