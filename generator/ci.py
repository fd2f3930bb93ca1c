"""What CI builds: the variants whose derivations changed since a git revision, in shards.

`matrix.state.json` records, per variant, the identity of its heavy build (see state.py:
a companion's includes its torch's) and of its published wrapper. Comparing the state
computed now with the one committed at a revision says which variants must be rebuilt,
which changed only their wrapper (metadata_only: the heavy build is unchanged and is not
rebuilt), and which are gone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from . import state
from .errors import GenMatrixError, Location
from .layout import STATE_FILE
from .model import CI, Expansion, Variant



@dataclass(frozen=True)
class Job:
    """One entry of the GitHub Actions build matrix."""

    name: str
    system: str
    runner: tuple[str, ...]  # runs-on labels
    metadata_only: bool
    smoke: bool  # run `gen-matrix smoke` after the build (on a GPU runner)

    def as_json(self) -> dict:
        return {"name": self.name, "system": self.system, "runner": list(self.runner),
                "metadata_only": self.metadata_only, "smoke": self.smoke}


@dataclass(frozen=True)
class Selection:
    jobs: tuple[Job, ...]  # sorted by name
    deleted: tuple[str, ...]  # in the state at the revision, no longer in the matrix

    def shards(self, size: int) -> tuple[tuple[Job, ...], ...]:
        return tuple(self.jobs[start:start + size] for start in range(0, len(self.jobs), size))

    def as_json(self) -> dict:
        return {"include": [job.as_json() for job in self.jobs], "deleted": list(self.deleted)}


def matrix_json(jobs: tuple[Job, ...]) -> dict:
    """A value for `strategy.matrix`: every top-level key there is an axis, so only `include`."""
    return {"include": [job.as_json() for job in jobs]}


def placement(ci: CI, variant: Variant) -> tuple[tuple[str, ...], bool]:
    """(runner labels, smoke-test?) of a variant: torch on a GPU runner for its SM is tested there."""
    if variant.sm is not None and variant.package == "pytorch":
        for gpu in ci.gpu_runners:
            if gpu.system == variant.system and variant.sm.name in gpu.sms:
                return gpu.labels, True
    return ci.runners[variant.system], False


def select(expansion: Expansion, now: dict[str, state.Entry],
           before: dict[str, state.Entry] | None) -> Selection:
    """Every variant when `before` is None; else those whose build or metadata hash differs from it."""
    ci = expansion.matrix.ci
    jobs = []
    for variant in sorted(expansion.variants, key=lambda v: v.name):
        old, new = (before or {}).get(variant.name), now[variant.name]
        if old is not None and (old.build, old.metadata, old.wrapper) == (new.build, new.metadata, new.wrapper):
            continue
        runner, smoke = placement(ci, variant)
        metadata_only = old is not None and old.build == new.build
        jobs.append(Job(variant.name, variant.system, runner, metadata_only, smoke))
    deleted = tuple(sorted(set(before or {}) - set(now)))
    return Selection(tuple(jobs), deleted)


def shard_count(variants: int, size: int) -> int:
    """Build jobs the workflow needs so that every variant of the matrix fits: at least one."""
    return max(1, math.ceil(variants / size))


def workflow_context(expansion: Expansion) -> dict:
    """What templates/flox-variants.yml.j2 is given: one build job per shard the matrix can fill."""
    ci = expansion.matrix.ci
    shards = [
        {
            "index": index,
            "output": f"shard_{index}",
            "output_value": f"${{{{ steps.select.outputs.shard_{index} }}}}",
            "condition": f"contains(fromJSON(needs.plan.outputs.shards), {index})",
            "matrix": f"${{{{ fromJSON(needs.plan.outputs.shard_{index}) }}}}",
        }
        for index in range(shard_count(len(expansion.variants), ci.shard_size))
    ]
    return {
        "ci": ci,
        "shards": shards,
        "organisation_from_variable": f"${{{{ vars.{ci.organisation_variable} }}}}",
        "organisation_default": ci.organisation or "",
        "smoke": bool(ci.gpu_runners),
        "jobs": expansion.matrix.jobs,
        "state_file": STATE_FILE,
    }


def committed_state(root: Path, ref: str) -> dict[str, state.Entry]:
    """The state file as committed at `ref` in the repository at `root`; empty where it had none."""
    where = Location(f"--changed-since {ref}")
    hint = ("name a branch, tag or commit of this repository; in GitHub Actions check out with "
            "fetch-depth: 0 so that the history is there")
    if not ref or ref.startswith("-"):
        raise GenMatrixError.at(where, "not a git revision", hint)
    import subprocess  # here: only --changed-since runs a program

    def git(*args: str) -> subprocess.CompletedProcess:
        try:
            return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, encoding="utf-8")
        except OSError as error:
            raise GenMatrixError.at(where, f"cannot run git: {error.strerror or error}",
                                    "install git, which --changed-since reads the history with") from None

    found = git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if found.returncode != 0:
        detail = found.stderr.strip().splitlines()
        reason = f" ({detail[0]})" if detail else ""
        raise GenMatrixError.at(where, f"no such commit in the repository at {root}{reason}", hint)
    path = f"{found.stdout.strip()}:./{STATE_FILE}"
    if git("cat-file", "-e", path).returncode != 0:
        return {}  # before the state file existed, every variant is new
    shown = git("show", path)
    if shown.returncode != 0:
        raise GenMatrixError.at(where, f"cannot read {STATE_FILE}: {shown.stderr.strip()}")
    return state.parse(shown.stdout, f"{ref}:{STATE_FILE}")
