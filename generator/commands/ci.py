"""What CI builds: the variants whose derivations changed since a git revision, in shards.

`matrix.state.json` records, per variant, the identity of its heavy build (see state.py:
a companion's includes its torch's) and of its published wrapper. Comparing the state
computed now with the one committed at a revision says which variants must be rebuilt,
which changed only their wrapper (metadata_only: the heavy build is unchanged and is not
rebuilt), and which are gone. A job is a torch with its changed companions, built in that
order on one runner, so that a run builds each torch once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

from ..pipeline import state
from ..errors import GenMatrixError, Location
from ..layout import STATE_FILE
from ..model import CI, KINDS, Expansion, Variant



@dataclass(frozen=True)
class Job:
    """One entry of the GitHub Actions build matrix: a torch and its companions, built in
    this order on one runner, so that the companions use the torch just built (or fetched)
    and no run builds a torch twice."""

    name: str  # the torch variant's
    system: str
    runner: tuple[str, ...]  # runs-on labels
    builds: tuple[str, ...]  # what changed of the group: the torch first, then its companions
    metadata_only: tuple[str, ...]  # those of `builds` whose heavy build is unchanged: only the wrapper builds
    smoke: bool  # run `gen-matrix smoke` after the build (on a GPU runner)

    def as_json(self) -> dict:
        # Space-separated names: the build step's shell loops over them (names are safe tokens).
        return {"name": self.name, "system": self.system, "runner": list(self.runner),
                "builds": " ".join(self.builds), "metadata_only": " ".join(self.metadata_only),
                "smoke": self.smoke}


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
    """(runner labels, smoke-test?) of a torch variant: on a GPU runner for its SM it is built
    and tested there; else on the runner for its kind and system, or for its system."""
    if variant.sm is not None:
        for gpu in ci.gpu_runners:
            if gpu.system == variant.system and variant.sm.name in gpu.sms:
                return gpu.labels, True
    by_kind = ci.kind_runners.get(variant.kind, {})
    return by_kind.get(variant.system, ci.runners[variant.system]), False


def select(expansion: Expansion, now: dict[str, state.Entry],
           before: dict[str, state.Entry] | None) -> Selection:
    """Every variant when `before` is None; else those whose build, metadata or wrapper
    identity differs from it: one job per torch whose group has any."""
    ci = expansion.matrix.ci
    changed: dict[str, list[Variant]] = {}
    metadata_only = set()
    for variant in sorted(expansion.variants, key=lambda v: (v.is_companion, v.name)):
        old, new = (before or {}).get(variant.name), now[variant.name]
        if old is not None and (old.build, old.metadata, old.wrapper) == (new.build, new.metadata, new.wrapper):
            continue
        if old is not None and old.build == new.build:
            metadata_only.add(variant.name)
        changed.setdefault(variant.torch or variant.name, []).append(variant)
    jobs = []
    for torch_name, group in sorted(changed.items()):
        torch = expansion.by_name[torch_name]
        runner, smoke = placement(ci, torch)
        builds = tuple(v.name for v in group)
        jobs.append(Job(torch_name, torch.system, runner, builds,
                        tuple(name for name in builds if name in metadata_only),
                        smoke and torch_name in builds))
    deleted = tuple(sorted(set(before or {}) - set(now)))
    return Selection(tuple(jobs), deleted)


@dataclass(frozen=True)
class Plan:
    """What a run builds, counted for its summary, with the estimated build time."""

    torches: Mapping[str, int]  # kind -> torch builds
    companions: int
    wrappers: int  # wrapper-only builds: metadata changed, the heavy build did not
    deleted: int
    minutes: int  # estimated, from knowledge.build_costs
    cached: bool  # whether a binary cache is set (a wrapper-only build fetches its heavy build)


def plan(expansion: Expansion, selection: Selection) -> Plan:
    costs = expansion.matrix.knowledge.build_costs
    torches = {kind: 0 for kind in KINDS}
    companions = wrappers = minutes = 0
    for job in selection.jobs:
        for name in job.builds:
            variant = expansion.by_name[name]
            if name in job.metadata_only:
                wrappers += 1
                minutes += costs["wrapper"].minutes
            elif variant.is_companion:
                companions += 1
                minutes += costs["companion"].minutes
            else:
                torches[variant.kind] += 1
                minutes += costs[variant.kind].minutes
    return Plan(MappingProxyType(torches), companions, wrappers, len(selection.deleted), minutes,
                expansion.matrix.ci.cache is not None)


def summary(expansion: Expansion, selection: Selection) -> str:
    """The plan of a run in Markdown, for $GITHUB_STEP_SUMMARY."""
    from ..pipeline.render import environment  # render imports this module for the workflow

    costs = expansion.matrix.knowledge.build_costs
    return environment(False).get_template("ci-summary.md.j2").render(
        plan=plan(expansion, selection), costs=[costs[kind] for kind in KINDS + ("companion", "wrapper")],
        jobs=selection.jobs)


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
