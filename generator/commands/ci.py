"""What CI builds: the variants whose derivations changed since a git revision, in shards.

`matrix.state.json` records, per variant, the identity of its heavy build (see state.py:
a companion's includes its torch's) and of its published wrapper. Comparing the state
computed now with the one committed at a revision says which variants must be rebuilt,
which changed only their wrapper (metadata_only: the heavy build is unchanged and is not
rebuilt), and which are gone. A job is a torch with its changed companions, built in that
order on one runner, so that a run builds each torch once.

That comparison of text identities needs nothing but the two commits. Where Nix can fetch
the pins (a CI runner), `--by derivations` compares what the recipes evaluate to instead
(gen-matrix eval, at the revision and now): a heavy build is selected exactly when its
drvPath changed, a wrapper alone when only its own did. A recipe that cannot be evaluated
at the revision falls back to the text identity; one that cannot be evaluated now is
selected, and the plan names its error before anything builds.

The plan job runs this once (`write_plan`): the shards, a summary that fits GitHub's step
summary at any size, the full plan as JSON for an artifact, and the evaluation it made.
"""

from __future__ import annotations

import os
import stat
import tarfile
import tempfile
import time
from dataclasses import field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

from ..pipeline import load, lock, state, write
from ..errors import GenMatrixError, Location
from ..layout import PKGS_DIR, STATE_FILE
from . import eval as eval_command
from . import measured as measured_
from . import sandbox
from ..model import CI, KINDS, Expansion, Variant
from ..records import dataclass



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
    gpu: bool  # on a GPU runner of its SM: the smoke test also computes on the device

    def as_json(self) -> dict:
        # Space-separated names: the build step's shell loops over them (names are safe tokens).
        return {"name": self.name, "system": self.system, "runner": list(self.runner),
                "builds": " ".join(self.builds), "metadata_only": " ".join(self.metadata_only),
                "gpu": self.gpu}


# How a selection was made: every variant (no revision to compare with), by the text
# identities of the state file, or by the derivations the recipes evaluate to.
EVERY, TEXT, DERIVATIONS = "every", "text", "derivations"
# Why a variant was selected. WRAPPER: its wrapper alone changed (metadata only, the heavy
# build is unchanged); every other reason builds it whole. BUILD: its heavy build changed;
# NEW: not in the state at the revision (by derivations: or without a recipe there); EVERY: no
# revision to compare with; UNEVALUATED: its recipe does not evaluate now (the plan names the
# error, and nothing builds).
BUILD, WRAPPER, NEW, EVERY_VARIANT, UNEVALUATED = "build", "wrapper", "new", "every", "not evaluated"
REASONS = {
    BUILD: "its heavy build changed",
    WRAPPER: "its wrapper alone changed (metadata only): the heavy build is unchanged",
    NEW: "new: not in the state at the revision, or without a recipe there",
    EVERY_VARIANT: "every variant: no revision to compare with",
    UNEVALUATED: "its recipe does not evaluate now",
}
# Where metadata-only jobs get the unchanged heavy build: the published wrapper's closure in
# the organisation's Flox catalog, or the binary cache of ci.cache; None: nowhere, so they
# build it (and the estimate counts them as full builds).
CATALOG, CACHE = "catalog", "cache"


@dataclass(frozen=True)
class Selection:
    """The builds a CI run selects, and how it selected them."""

    # by name; with build.compiler_cache, by their compiler cache group (Variant.cpu_side), then by name
    jobs: tuple[Job, ...]
    deleted: tuple[str, ...]  # in the state at the revision, no longer in the matrix
    selected_by: str = EVERY
    # by DERIVATIONS: the variants whose recipe did not evaluate at the revision, compared
    # by their text identity instead
    by_text: tuple[str, ...] = ()
    why: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))  # name -> one of REASONS
    # by DERIVATIONS: every recipe as evaluated now, in name order, which the plan hands on
    # so that nothing evaluates it again
    evaluated: tuple[eval_command.Result, ...] = ()
    # by DERIVATIONS: the recipes not evaluated, now or at the revision, in the time allowed
    # (they are among `by_text`)
    out_of_time: tuple[str, ...] = ()

    def shards(self, size: int) -> tuple[tuple[Job, ...], ...]:
        """The jobs in shards of at most `size`, each on one runner (its labels, GPU or not),
        so that a shard's jobs need no more from the plan job's outputs than that runner and
        their count; by runner, then by name."""
        by_runner: dict[tuple, list[Job]] = {}
        for job in self.jobs:
            by_runner.setdefault((job.runner, job.gpu), []).append(job)
        return tuple(tuple(jobs[start:start + size]) for _, jobs in sorted(by_runner.items())
                     for start in range(0, len(jobs), size))

    @property
    def builds(self) -> tuple[str, ...]:
        return tuple(name for job in self.jobs for name in job.builds)

    def as_json(self) -> dict:
        return {"include": [job.as_json() for job in self.jobs], "deleted": list(self.deleted),
                "selected_by": self.selected_by, "by_text": list(self.by_text),
                "why": dict(sorted(self.why.items()))}


def read_selection(expansion: Expansion, text: str, file: str) -> Selection:
    """A selection as `gen-matrix ci` printed it, for the matrix it was made from. Every field
    is checked, since a selection file may come from anywhere: its names, systems and runners
    reach the summary, the plan and the workflow's `runs-on`."""
    import json

    from ..model import DEFAULT_RUNNERS, check_name
    from ..pipeline import schema

    hint = "write it with `gen-matrix ci [--changed-since REF] > FILE` from this matrix"
    variants = expansion.by_name

    def refuse(field: str, message: str) -> GenMatrixError:
        return GenMatrixError.at(Location(file), f"not a selection printed by `gen-matrix ci`: {field}{message}", hint)

    def kind(value) -> str:
        return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
            type(value), "a number")

    def fields(value, field: str, keys: tuple[str, ...]) -> dict:
        if not isinstance(value, dict):
            raise refuse(field, f" must be an object, not {kind(value)}")
        for key in keys:
            if key not in value:
                raise refuse(field, f" lacks '{key}'")
        for key in value:
            if key not in keys:
                raise refuse(field, f" has the unknown field '{key}'")
        return value

    def of_type(value, field: str, wanted: type, what: str):
        if not isinstance(value, wanted):
            raise refuse(field, f" must be {what}, not {kind(value)}")
        return value

    def names(value, field: str, in_matrix: bool = True) -> tuple[str, ...]:
        """A list of variant names: of this matrix, or (not `in_matrix`) names a variant could have."""
        for index, name in enumerate(of_type(value, field, list, "a list of variant names")):
            named(name, f"{field}[{index}]", in_matrix)
        return tuple(value)

    def named(name, field: str, in_matrix: bool = True) -> str:
        of_type(name, field, str, "a variant name")
        if in_matrix and name not in variants:
            raise refuse(field, f": '{name}' is not a variant of the matrix")
        if not in_matrix and check_name(name):
            raise refuse(field, f": {check_name(name)}")
        return name

    def job(entry, field: str) -> Job:
        fields(entry, field, JOB_FIELDS)
        torch = variants[named(entry["name"], f"{field}.name")]
        if torch.is_companion:
            raise refuse(f"{field}.name", f": '{torch.name}' is a companion; a job is named after its torch")
        system = of_type(entry["system"], f"{field}.system", str, "a system")
        if system not in DEFAULT_RUNNERS:
            raise refuse(f"{field}.system", f": '{system}' is not a system gen-matrix builds for "
                                            f"({', '.join(DEFAULT_RUNNERS)})")
        if system != torch.system:
            raise refuse(f"{field}.system", f": '{torch.name}' builds on {torch.system}, not {system}")
        labels = schema.problems_of(entry["runner"], "runnerLabels", f"{field}.runner")
        if labels:
            raise refuse("", labels[0])
        builds = of_type(entry["builds"], f"{field}.builds", str,
                         "a string of variant names separated by spaces").split()
        if not builds:
            raise refuse(f"{field}.builds", f" is empty; the job builds {torch.name} or its companions")
        for index, name in enumerate(builds):
            variant = variants[named(name, f"{field}.builds[{index}]")]
            # a job whose torch is unchanged builds its changed companions alone
            if (variant.torch or variant.name) != torch.name or (index > 0 and not variant.is_companion):
                raise refuse(f"{field}.builds[{index}]", f": '{name}' is not built in this job, which builds "
                                                         f"{torch.name} (first) and its companions")
        metadata_only = of_type(entry["metadata_only"], f"{field}.metadata_only", str,
                                "a string of variant names separated by spaces").split()
        for index, name in enumerate(metadata_only):
            if name not in builds:
                raise refuse(f"{field}.metadata_only[{index}]", f": '{name}' is not among the job's builds")
        gpu = of_type(entry["gpu"], f"{field}.gpu", bool, "true or false")
        return Job(torch.name, system, tuple(entry["runner"]), tuple(builds), tuple(metadata_only), gpu)

    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise GenMatrixError.at(Location(file, error.lineno, error.colno),
                                f"not a selection printed by `gen-matrix ci`: not JSON: {error.msg}", hint) from None
    except RecursionError:  # json nests by recursion: thousands of brackets exhaust it
        raise refuse("", "nested thousands of levels deep") from None
    except ValueError:  # Python reads no integer of more than 4,300 digits
        raise refuse("", "holds a number thousands of digits long") from None
    fields(data, "the file", SELECTION_FIELDS)
    jobs = tuple(job(entry, f"include[{index}]")
                 for index, entry in enumerate(of_type(data["include"], "include", list, "a list of jobs")))
    built: set[str] = set()
    for index, entry in enumerate(jobs):
        for name in entry.builds:
            if name in built:
                raise refuse(f"include[{index}].builds", f": '{name}' is built by an earlier job too")
            built.add(name)
    deleted = names(data["deleted"], "deleted", in_matrix=False)
    for index, name in enumerate(deleted):
        if name in variants:
            raise refuse(f"deleted[{index}]", f": '{name}' is still a variant of the matrix")
    selected_by = of_type(data["selected_by"], "selected_by", str, "a string")
    if selected_by not in (EVERY, TEXT, DERIVATIONS):
        raise refuse("selected_by", f": '{selected_by}' is not one of {EVERY}, {TEXT}, {DERIVATIONS}")
    by_text = names(data["by_text"], "by_text")
    why = of_type(data["why"], "why", dict, "an object of variant names and reasons")
    for name, reason in why.items():
        if name not in built:
            raise refuse(f"why.{name}", ": not built by any job")
        if reason not in REASONS:
            given = f"'{reason}'" if isinstance(reason, str) else kind(reason)
            raise refuse(f"why.{name}", f": {given} is not a reason for a build ({', '.join(map(repr, REASONS))})")
    unexplained = sorted(built - set(why))
    if unexplained:
        raise refuse("why", f": no reason given for '{unexplained[0]}'")
    return Selection(jobs, deleted, selected_by, by_text, MappingProxyType(dict(why)))


# The fields of a selection and of each of its jobs, as `Selection.as_json` and `Job.as_json` write them.
SELECTION_FIELDS = ("include", "deleted", "selected_by", "by_text", "why")
JOB_FIELDS = ("name", "system", "runner", "builds", "metadata_only", "gpu")


def matrix_json(jobs: tuple[Job, ...]) -> dict:
    """A value for `strategy.matrix`: every top-level key there is an axis, so only `include`."""
    return {"include": [job.as_json() for job in jobs]}


def changes_by_text(expansion: Expansion, now: dict[str, state.Entry],
                    before: dict[str, state.Entry] | None) -> dict[str, str]:
    """Variant -> BUILD or WRAPPER, for those whose build, metadata or wrapper identity
    differs from `before`; every variant when `before` is None."""
    changes = {}
    for variant in expansion.variants:
        old, new = (before or {}).get(variant.name), now[variant.name]
        if old is not None and (old.build, old.metadata, old.wrapper) == (new.build, new.metadata, new.wrapper):
            continue
        changes[variant.name] = (EVERY_VARIANT if before is None else NEW if old is None
                                 else WRAPPER if old.build == new.build else BUILD)
    return changes


def changes_by_derivations(expansion: Expansion, by_text: dict[str, str], before: dict[str, state.Entry],
                           now_drvs: dict[str, eval_command.Result],
                           before_drvs: dict[str, eval_command.Result]) -> tuple[dict[str, str], tuple[str, ...]]:
    """Variant -> BUILD or WRAPPER, by what the recipes evaluate to now and at the revision;
    and the variants the text identity decided, because they did not evaluate there."""
    changes, fallback = {}, []
    for variant in expansion.variants:
        name = variant.name
        new, old = now_drvs.get(name), before_drvs.get(name)
        if name not in before:
            changes[name] = NEW
        elif new is not None and _out_of_time(new):  # not evaluated in the time allowed: by text
            fallback.append(name)
            if name in by_text:
                changes[name] = by_text[name]
        elif new is None or not new.ok:
            changes[name] = UNEVALUATED  # selected: the plan names its error and stops before any build
        elif old is None or not old.ok:
            fallback.append(name)
            if name in by_text:
                changes[name] = by_text[name]
        elif old.heavy_drv != new.heavy_drv:
            changes[name] = BUILD
        elif old.drv != new.drv:
            changes[name] = WRAPPER
    return changes, tuple(sorted(fallback))


def select(expansion: Expansion, changes: dict[str, str], deleted: tuple[str, ...] = (),
           selected_by: str = EVERY, by_text: tuple[str, ...] = ()) -> Selection:
    """One job per torch whose group has a change: the torch first, then its companions."""
    ci = expansion.matrix.ci
    changed: dict[str, list[Variant]] = {}
    for variant in sorted(expansion.variants, key=lambda v: (v.is_companion, v.name)):
        if variant.name in changes:
            changed.setdefault(variant.torch or variant.name, []).append(variant)
    jobs = []
    groups = sorted(changed.items())
    if expansion.matrix.compiler_cache is not None:
        # Builds that compile the same CPU-side objects run one after another, each
        # finding the objects of the one before in the compiler cache.
        groups.sort(key=lambda item: expansion.by_name[item[0]].cpu_side)
    for torch_name, group in groups:
        torch = expansion.by_name[torch_name]
        runner, gpu = ci.placement(torch)
        builds = tuple(v.name for v in group)
        jobs.append(Job(torch_name, torch.system, runner, builds,
                        tuple(name for name in builds if changes[name] == WRAPPER),
                        gpu))
    return Selection(tuple(jobs), tuple(sorted(deleted)), selected_by, by_text, MappingProxyType(dict(changes)))


def selection(expansion: Expansion, root: Path, now: dict[str, state.Entry], since: str | None,
              by: str = TEXT, nixpkgs: tuple[str, ...] = (), minutes: float | None = None) -> Selection:
    """What a run builds: every variant without `since`; else what changed since it, by
    the text identities or (`by` DERIVATIONS) by the derivations, evaluating for at most
    `minutes` (None: until done)."""
    if since is None:
        return select(expansion, changes_by_text(expansion, now, None))
    before = committed_state(root, since)
    deleted = tuple(set(before) - set(now))
    by_text = changes_by_text(expansion, now, before)
    if by == TEXT:
        return select(expansion, by_text, deleted, TEXT)
    deadline = None if minutes is None else time.monotonic() + minutes * 60
    program = eval_command.nix_instantiate("--by derivations")
    sets = eval_command.package_sets(expansion.matrix, nixpkgs)
    variants = tuple(sorted(expansion.variants, key=lambda v: v.name))
    with tempfile.TemporaryDirectory(prefix="gen-matrix-") as folder:
        tree = Path(folder)
        found: list[Variant] = []
        same: set[str] = set()
        if _tree_at(root, since, tree):
            # A variant in the base's state file without a recipe there was never built from it: new.
            before = {name: entry for name, entry in before.items()
                      if name not in now or (tree / PKGS_DIR / f"{name}.nix").is_file()}
            found = [v for v in variants if v.name in before]
            # What evaluates from the same files as now evaluates to the same derivations:
            # only the others are evaluated at the revision, in the same processes as now.
            # Only whether each evaluates there matters, not why one does not.
            same = _same_files(expansion, root, tree, found)
        again = tuple(v for v in found if v.name not in same)
        results = eval_command.evaluate(eval_command.targets(expansion, root, variants, sets), program,
                                        deadline=deadline, quiet=eval_command.targets(expansion, tree, again, sets))
    now_drvs = _by_name(results[:len(variants)])
    before_drvs = {v.name: now_drvs[v.name] for v in found if v.name in same}
    before_drvs.update(_by_name(results[len(variants):]))
    # what was not evaluated now in the time allowed is compared by its text identity
    before_drvs = {name: result for name, result in before_drvs.items() if not _out_of_time(now_drvs[name])}
    changes, fallback = changes_by_derivations(expansion, by_text, before, now_drvs, before_drvs)
    return replace(select(expansion, changes, deleted, DERIVATIONS, fallback),
                   evaluated=tuple(now_drvs[v.name] for v in variants if not _out_of_time(now_drvs[v.name])),
                   out_of_time=tuple(sorted(name for name, result in {**before_drvs, **now_drvs}.items()
                                            if _out_of_time(result))))


def fits_before_evaluating(expansion: Expansion, root: Path, since: str | None, size: int) -> None:
    """Refuse now a plan whose selection is sure to need more shards of `size` than a run
    holds, before the recipes are rendered or evaluated (minutes at that size): every variant
    without `since`; else those not in the state at `since`, which are selected (NEW)
    whatever the recipes evaluate to. A selection that turns out too large only after the
    evaluation is refused then, by `github_output`."""
    before = {} if since is None else committed_state(root, since)
    certain = {variant.name: NEW for variant in expansion.variants if variant.name not in before}
    fitting(expansion, select(expansion, certain), size, certain=since is not None)


def _out_of_time(result: eval_command.Result) -> bool:
    return result.error == eval_command.OUT_OF_TIME


def _same_files(expansion: Expansion, root: Path, tree: Path, variants: list[Variant]) -> set[str]:
    """The variants whose recipe (and a companion's torch's recipe) and whose Nix library
    (nix/, with the pins and the fixes) are byte for byte the same now and in `tree`."""
    def files(base: Path) -> dict[str, bytes]:
        folder = base / "nix"
        return {path.relative_to(base).as_posix(): path.read_bytes()
                for path in sorted(folder.rglob("*")) if path.is_file()} if folder.is_dir() else {}

    if files(root) != files(tree):
        return set()

    def recipe(base: Path, name: str) -> bytes | None:
        path = base / PKGS_DIR / f"{name}.nix"
        return path.read_bytes() if path.is_file() else None

    same = set()
    for variant in variants:
        names = (variant.name,) + ((variant.torch,) if variant.torch else ())
        if all(recipe(root, name) is not None and recipe(root, name) == recipe(tree, name) for name in names):
            same.add(variant.name)
    return same


def _by_name(results: tuple[eval_command.Result, ...]) -> dict[str, eval_command.Result]:
    return {result.name: result for result in results}


@dataclass(frozen=True)
class Group:
    """Builds of one kind in a plan: how many, and the first names, for a summary that fits."""

    label: str
    count: int
    first: tuple[str, ...]  # at most FIRST_NAMES, in name order


# Names shown per group in the summary; every name is in the plan's JSON.
FIRST_NAMES = 10


@dataclass(frozen=True)
class Plan:
    """What a run builds, counted for its summary, with the estimated build time."""

    torches: Mapping[str, int]  # kind -> torch builds, whole (metadata-only ones without a source included)
    companions: int
    wrappers: int  # wrapper-only builds over a heavy build fetched from `source`
    deleted: int
    minutes: int  # estimated: from measurements (--measured) where there are any, else knowledge.build_costs
    source: str | None  # CATALOG, CACHE or None: where metadata-only builds get their heavy build
    metadata_only: int  # builds whose heavy build is unchanged; without a source they count as full
    groups: tuple[Group, ...]
    unevaluated: tuple[tuple[str, str], ...]  # (name, Nix's error) of the recipes that do not evaluate now
    # how many builds were estimated from their own measurement (OWN), from the mean of the
    # measured builds of their kind (KIND), or guessed from knowledge.build_costs (GUESSED)
    estimated_from: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    # the CUDA library sets (magma, NCCL and the rest of a pin's CUDA release) the torch builds
    # need: for one SM (capability scope nixpkgs), and for the pin's default capabilities
    cuda_libraries: "CudaLibraries" = None
    # the jobs estimated past their time limit (`time_limit`), longest first
    too_long: tuple["LongJob", ...] = ()
    # with ci.builders: (builder URL, jobs whose heavy builds Nix sends it), for each builder
    # in order, and the jobs no builder serves, which build on their runner
    builders: tuple[tuple[str, int], ...] = ()
    on_runners: int = 0
    # with build.compiler_cache: the estimate where each compiler cache group's builds run one
    # after another on one cache (knowledge.build_costs' cached_percent taken off every guessed
    # torch build of a group but its first), and how many builds that lowers; None without it
    minutes_cached: int | None = None
    cached_builds: int = 0


@dataclass(frozen=True)
class CudaLibraries:
    """The CUDA library sets a run's GPU torch builds link, each counted once however many
    variants share it (the CPU instruction set does not change them).

    for_sm: (pin, CUDA release, capability) sets built for one SM (capability scope nixpkgs).
    No public cache builds a single capability, so each is built, once, by the first job that
    needs it.
    defaults: (pin, CUDA release) sets of nixpkgs' default capabilities. cache.nixos.org holds
    nothing unfree, so they are built unless a cache of ci.substituters (or ci.cache, after a
    first run) holds that pin's; whether one does is known only by asking it."""

    for_sm: int
    defaults: int
    substituters: int  # how many caches ci.substituters lists


def cuda_libraries(expansion: Expansion, names) -> CudaLibraries:
    matrix = expansion.matrix
    for_sm, defaults = set(), set()
    for name in names:
        variant = expansion.by_name[name]
        if variant.is_companion or variant.sm is None:
            continue
        if matrix.capability_scope_of(variant) == "nixpkgs":
            for_sm.add((variant.pin, variant.cuda.name, variant.sm.capability))
        else:
            defaults.add((variant.pin, variant.cuda.name))
    return CudaLibraries(len(for_sm), len(defaults), len(matrix.ci.substituters))


def heavy_source(ci: CI, organisation: str | None) -> str | None:
    """Where a metadata-only job gets the unchanged heavy build: a binary cache Nix
    substitutes from (ci.cache with a substituter) first; else the Flox catalog the wrappers
    are published to, whose closure holds it; None where neither is set."""
    if ci.cache is not None and ci.cache.substituter:
        return CACHE
    return CATALOG if organisation else None


# GitHub stops a job on a GitHub-hosted runner after 6 hours ("Usage limits, billing, and
# administration": job execution time); a self-hosted runner's job may run for 5 days
# (ci.timeout_minutes' maximum).
HOSTED_JOB_MINUTES = 6 * 60
SELF_HOSTED_JOB_MINUTES = 5 * 24 * 60


def hosted(runner: tuple[str, ...]) -> bool:
    """Whether a job with these runs-on labels runs on a GitHub-hosted runner: every
    self-hosted runner carries the label self-hosted."""
    return "self-hosted" not in runner


def time_limit(ci: CI, runner: tuple[str, ...]) -> int:
    """The minutes a build job on these runs-on labels may run before it is stopped: its
    timeout-minutes (ci.timeout_minutes), and on a GitHub-hosted runner at most GitHub's 6
    hours. A job whose heavy builds go to a remote builder (ci.builders) waits for them on its
    runner: the same limit."""
    return min(ci.timeout_minutes, HOSTED_JOB_MINUTES) if hosted(runner) else ci.timeout_minutes


@dataclass(frozen=True)
class LongJob:
    """A job estimated past its time limit, for the plan's warning."""

    name: str  # the torch variant's
    runner: tuple[str, ...]
    builder: str | None  # the URL of the remote builder its heavy builds go to; None: its runner
    minutes: int  # the estimate: its torch's, its companions' and its wrappers' builds
    limit: int  # time_limit of its runner
    measured: int  # of its builds, estimated from measurements (their own or their kind's)
    guessed: int  # of its builds, guessed from knowledge.build_costs

    @property
    def estimated_from(self) -> str:
        if not self.guessed:
            return "from measurements"
        if not self.measured:
            return "guessed from knowledge.build_costs"
        return f"{self.measured} of {self.measured + self.guessed} builds from measurements, the rest guessed"


# Where a build's estimate came from: see Plan.estimated_from.
OWN, KIND, GUESSED = "own", "kind", "guessed"


def remote_builder(expansion: Expansion, job: Job) -> str | None:
    """The URL of the builder of ci.builders that Nix sends the job's heavy builds to, as the
    daemon chooses one: the first of the job's system that offers every feature the recipes
    require (build.system_features); None where the job builds on its runner."""
    builder = expansion.matrix.ci.builder(job.system, expansion.matrix.system_features)
    return None if builder is None else builder.url


def cost_row(variant: Variant, builds: str) -> str:
    """The knowledge.build_costs row a build falls under: wrapper, companion, or its kind."""
    if builds == measured_.WRAPPER:
        return "wrapper"
    return "companion" if variant.is_companion else variant.kind


def plan(expansion: Expansion, selection: Selection, organisation: str | None = None,
         measured: Mapping[tuple[str, str], measured_.Measurement] = MappingProxyType({})) -> Plan:
    costs = expansion.matrix.knowledge.build_costs
    source = heavy_source(expansion.matrix.ci, organisation)
    torches = {kind: 0 for kind in KINDS}
    companions = wrappers = metadata_only = 0
    minutes = 0.0
    names: dict[str, list[str]] = {}
    by_row: dict[str, list[float]] = {}
    for found in measured.values():
        if found.variant in expansion.by_name:
            by_row.setdefault(cost_row(expansion.by_name[found.variant], found.builds), []).append(found.minutes)
    means = {row: sum(values) / len(values) for row, values in by_row.items()}
    estimated_from = {OWN: 0, KIND: 0, GUESSED: 0}

    def estimate(variant: Variant, builds: str) -> float:
        own, row = measured.get((variant.name, builds)), cost_row(variant, builds)
        if own is not None:
            estimated_from[OWN] += 1
            return own.minutes
        if row in means:
            estimated_from[KIND] += 1
            return means[row]
        estimated_from[GUESSED] += 1
        return costs[row].minutes

    # what build.compiler_cache holds: the guessed torch builds of a group after its first
    cache_on = bool(expansion.matrix.compiler_cache)
    saved, cached_builds, groups_seen = 0.0, 0, set()
    too_long = []
    ci = expansion.matrix.ci
    sent = dict.fromkeys((builder.url for builder in ci.builders), 0)
    for job in selection.jobs:
        builder = remote_builder(expansion, job)
        if builder is not None:
            sent[builder] += 1
        before, guessed_before = minutes, estimated_from[GUESSED]
        measured_before = estimated_from[OWN] + estimated_from[KIND]
        for name in job.builds:
            variant = expansion.by_name[name]
            metadata_only += name in job.metadata_only
            if name in job.metadata_only and source is not None:
                wrappers += 1
                minutes += estimate(variant, measured_.WRAPPER)
                label = "wrapper only"
            elif variant.is_companion:
                companions += 1
                minutes += estimate(variant, measured_.FULL)
                label = "companions"
            else:
                torches[variant.kind] += 1
                guessed = estimated_from[GUESSED]
                minutes += estimate(variant, measured_.FULL)
                label = f"torch, {variant.kind}"
                if cache_on:
                    share = costs[variant.kind].cached_percent / 100
                    if estimated_from[GUESSED] > guessed and share and variant.compiler_cache_group in groups_seen:
                        saved += costs[variant.kind].minutes * share
                        cached_builds += 1
                    groups_seen.add(variant.compiler_cache_group)
            names.setdefault(label, []).append(name)
        limit = time_limit(ci, job.runner)
        if minutes - before > limit:
            too_long.append(LongJob(job.name, job.runner, builder, round(minutes - before), limit,
                                    estimated_from[OWN] + estimated_from[KIND] - measured_before,
                                    estimated_from[GUESSED] - guessed_before))
    names["no longer in the matrix"] = list(selection.deleted)
    groups = tuple(Group(label, len(found), tuple(sorted(found)[:FIRST_NAMES]))
                   for label, found in names.items() if found)
    unevaluated = tuple((r.name, r.error or "") for r in selection.evaluated if not r.ok)
    heavy = [name for job in selection.jobs for name in job.builds
             if not (name in job.metadata_only and source is not None)]
    return Plan(MappingProxyType(torches), companions, wrappers, len(selection.deleted), round(minutes), source,
                metadata_only, tuple(sorted(groups, key=lambda g: g.label)), unevaluated,
                MappingProxyType(estimated_from), cuda_libraries(expansion, heavy),
                tuple(sorted(too_long, key=lambda job: (-job.minutes, job.name))),
                tuple(sent.items()), len(selection.jobs) - sum(sent.values()) if ci.builders else 0,
                round(minutes - saved) if cache_on else None, cached_builds)


def summary(expansion: Expansion, selection: Selection, organisation: str | None = None,
            compared_with: str | None = None,
            measured: Mapping[tuple[str, str], measured_.Measurement] = MappingProxyType({})) -> str:
    """The plan of a run in Markdown, for $GITHUB_STEP_SUMMARY: counts, the estimate and the
    first names of each group, a few kilobytes whatever the size of the matrix (GitHub takes
    at most 1 MiB); every name is in the plan's JSON (`plan_json`)."""
    from ..templating import environment  # jinja2, only when a summary is written

    costs = expansion.matrix.knowledge.build_costs
    ci = expansion.matrix.ci
    found = plan(expansion, selection, organisation, measured)
    return environment(False).get_template("ci-summary.md.j2").render(
        plan=found, costs=[costs[kind] for kind in KINDS + ("companion", "wrapper")],
        jobs=len(selection.jobs), selected_by=selection.selected_by, by_text=selection.by_text[:FIRST_NAMES],
        by_text_count=len(selection.by_text), out_of_time=selection.out_of_time[:FIRST_NAMES],
        out_of_time_count=len(selection.out_of_time), first=FIRST_NAMES, organisation=organisation,
        compared_with=compared_with, organisation_variable=ci.organisation_variable,
        hosted_hours=HOSTED_JOB_MINUTES // 60, timeout_minutes=ci.timeout_minutes,
        raise_timeout=any(job.limit < (HOSTED_JOB_MINUTES if hosted(job.runner) else SELF_HOSTED_JOB_MINUTES)
                          for job in found.too_long),
        cache=ci.cache, system_features=expansion.matrix.system_features)


def plan_json(expansion: Expansion, selection: Selection, size: int, organisation: str | None = None,
              compared_with: str | None = None,
              measured: Mapping[tuple[str, str], measured_.Measurement] = MappingProxyType({})) -> dict:
    """The full plan: every selected name, why it was selected, whether only its wrapper
    builds, and its job; what is no longer in the matrix; the recipes that do not evaluate."""
    found = plan(expansion, selection, organisation, measured)
    builds = [{"name": name, "job": job.name, "why": REASONS.get(selection.why.get(name, BUILD), BUILD),
               "metadata_only": name in job.metadata_only,
               "builds": "wrapper" if name in job.metadata_only and found.source is not None else "full",
               "builder": remote_builder(expansion, job)}
              for job in selection.jobs for name in job.builds]
    return {"compared_with": compared_with, "selected_by": selection.selected_by,
            "heavy_source": found.source, "estimated_minutes": found.minutes,
            "estimated_from": dict(found.estimated_from),
            "past_time_limit": [{"job": job.name, "runner": list(job.runner), "builder": job.builder,
                                 "estimated_minutes": job.minutes, "limit_minutes": job.limit,
                                 "estimated_from": {"measured": job.measured, "guessed": job.guessed}}
                                for job in found.too_long],
            "cuda_libraries": {"for_sm": found.cuda_libraries.for_sm, "defaults": found.cuda_libraries.defaults,
                               "substituters": found.cuda_libraries.substituters},
            "jobs": len(selection.jobs), "builds": builds, "deleted": list(selection.deleted),
            "shards": [[job.as_json() for job in jobs] for jobs in selection.shards(size)],
            "by_text": list(selection.by_text), "out_of_time": list(selection.out_of_time),
            "not_evaluated": [{"name": name, "error": error} for name, error in found.unevaluated]}


# GitHub runs at most 256 jobs of one matrix: the build job's matrix of shards, and each
# shard's matrix of torches.
MAX_SHARDS = 256


def fitting(expansion: Expansion, selection: Selection, size: int,
            certain: bool = False) -> tuple[tuple[Job, ...], ...]:
    """The selection's shards of at most `size`, or the refusal where a run cannot hold them,
    at the matrix section that selects the most torch builds, with the axes to make smaller.
    `certain`: the selection is the part of one not yet made (before any evaluation) that
    it selects whatever the recipes evaluate to."""
    shards = selection.shards(size)
    if len(shards) <= MAX_SHARDS:
        return shards
    by_kind: dict[str, list[Variant]] = {}
    for job in selection.jobs:
        torch = expansion.by_name[job.name]
        by_kind.setdefault(torch.kind, []).append(torch)
    counts = sorted(((len(torches), kind) for kind, torches in by_kind.items()), reverse=True)
    largest = counts[0][1]
    section = next(section for section in expansion.matrix.sections if section.kind == largest)
    values = {axis: len({torch.combination[axis] for torch in by_kind[largest]}) for axis, _ in section.axes}
    axes = "; ".join(f"{largest}.{axis}: {count} values"
                     for axis, count in sorted(values.items(), key=lambda item: (-item[1], item[0])) if count > 1)
    before = (", before evaluating: these are new since the revision, selected whatever the recipes "
              "evaluate to") if certain else ""
    lower = f"raise ci.shard_size (or --shard-size) from {size} to 256, " if size < 256 else ""
    raise GenMatrixError.at(
        section.where,
        f"the selection needs {len(shards)} shards of at most {size} torch builds, and a run holds at most "
        f"{MAX_SHARDS}: {len(selection.jobs):,} torch builds in one run "
        f"({', '.join(f'{kind} {count:,}' for count, kind in counts)}){before}",
        f"{lower}take values out of the largest axes ({axes or 'each has one value'}), or add the variants "
        f"in parts, a commit or pull request at a time, each after the run of the one before has published "
        f"(a run builds what changed since the last publish)")
    return shards


def github_output(expansion: Expansion, selection: Selection, size: int) -> str:
    """The plan job's outputs, as lines for $GITHUB_OUTPUT: whether anything builds, and the
    build job's matrix, one entry per non-empty shard with its runner and its slots, one per
    job (at most `size`, GitHub's 256). GitHub takes at most 1 MB of outputs from one job,
    counted as UTF-16: a shard costs at most about 1 kB here whatever its jobs build, and each
    job reads its builds from the plan's JSON (`plan_json`'s "shards", by shard and slot)."""
    import json

    shards = fitting(expansion, selection, size)
    include = [{"shard": index, "runner": list(jobs[0].runner), "gpu": jobs[0].gpu,
                "slots": list(range(len(jobs)))} for index, jobs in enumerate(shards)]
    lines = [f"build={'true' if shards else 'false'}",
             "shards=" + json.dumps({"include": include}, separators=(",", ":"))]
    return "".join(line + "\n" for line in lines)


# The file that makes a folder a plan folder: `write_plan` writes into a folder that is empty
# or holds it, so that a plan never lands among someone's files (the Nix library, a home).
PLAN_MARKER = ".gen-matrix-plan"
PLAN_MARKER_TEXT = "gen-matrix ci --plan wrote this folder, and rewrites it: keep nothing else here\n"


def write_plan(expansion: Expansion, selection: Selection, folder: Path, size: int,
               organisation: str | None = None, compared_with: str | None = None,
               measured: Mapping[tuple[str, str], measured_.Measurement] = MappingProxyType({})) -> None:
    """Everything the plan job needs from one selection, into `folder`: the outputs, the
    summary, the full plan (plan.json, uploaded as an artifact), and the evaluation of the
    recipes now (eval.txt, and eval-errors.txt with those that do not evaluate), so that
    nothing is selected or evaluated twice. `folder` is new, empty, or one this wrote before;
    each file is written whole beside its place and renamed into it, never through a link."""
    import json

    results = selection.evaluated
    evaluated = "".join(eval_command.line(result) + "\n" for result in results)
    if results:
        evaluated += eval_command.report(eval_command.counts(results)) + "\n"
    files = {
        "github-output": github_output(expansion, selection, size),
        "summary.md": summary(expansion, selection, organisation, compared_with, measured),
        "plan.json": json.dumps(plan_json(expansion, selection, size, organisation, compared_with, measured),
                                indent=1) + "\n",
        "eval.txt": evaluated,
        "eval-errors.txt": "".join(eval_command.line(result) + "\n" for result in results if not result.ok),
        PLAN_MARKER: PLAN_MARKER_TEXT,
    }
    _plan_folder(folder, files)
    token = lock.new_token()
    for name, text in files.items():
        try:
            write.atomic_write(str(folder / name), text, token)  # LF on every system, as the runners read them
        except OSError as error:
            raise GenMatrixError.at(Location(str(folder / name)), f"cannot write the file: {error.strerror or error}",
                                    "free some space or fix the folder's permissions, then run it again") from None


def _plan_folder(folder: Path, files: Mapping[str, str]) -> None:
    """Make `folder` ready for the plan's `files`, or refuse it: a link, anything but a folder,
    a folder that holds other files than a plan's, or a plan file that is not a regular file."""
    where = Location(f"--plan {folder}")
    hint = "give --plan a new or empty folder (or one `gen-matrix ci --plan` wrote before)"
    if os.path.islink(folder):
        raise GenMatrixError.at(where, "this is a symbolic link; gen-matrix never writes through one", hint)
    try:
        if not os.path.lexists(folder):
            folder.mkdir(parents=True)
            return
        if not os.path.isdir(folder):
            raise GenMatrixError.at(where, "this is not a folder", hint)
        held = sorted(os.listdir(folder))
    except OSError as error:
        raise GenMatrixError.at(where, f"cannot make or read the folder: {error.strerror or error}", hint) from None
    if not held:
        return
    marker = load.read_text(folder / PLAN_MARKER, str(folder / PLAN_MARKER), len(PLAN_MARKER_TEXT), hint) \
        if PLAN_MARKER in held else None
    if marker != PLAN_MARKER_TEXT:
        raise GenMatrixError.at(where, f"the folder holds files of its own ({', '.join(held[:3])}"
                                       f"{', ...' if len(held) > 3 else ''}), and no plan gen-matrix wrote", hint)
    strangers = [name for name in held if name not in files]
    if strangers:
        raise GenMatrixError.at(Location(str(folder / strangers[0])), "a file gen-matrix's plan does not write",
                                "move it away: a plan folder holds the plan alone")
    for name in held:
        if not stat.S_ISREG(os.lstat(folder / name).st_mode):
            raise GenMatrixError.at(Location(str(folder / name)),
                                    "this is not a regular file (a link, a folder, a FIFO or a device), but the "
                                    "plan writes a file here", "move it away, then run it again")


def _git(root: Path, where: Location, *args: str, text: bool = True) -> sandbox.Finished:
    try:
        done = sandbox.capture(["git", *args], cwd=root, text=text)
    except OSError as error:
        raise GenMatrixError.at(where, f"cannot run git: {error.strerror or error}",
                                "install git, which --changed-since reads the history with") from None
    if done.dropped:
        raise GenMatrixError.at(where, done.overflow(f"git {args[0]}", sandbox.OUTPUT_BYTES),
                                "give a revision whose recipes are smaller")
    return done


def _commit(root: Path, ref: str) -> str:
    where = Location(f"--changed-since {ref}")
    hint = ("name a branch, tag or commit of this repository; in GitHub Actions check out with "
            "fetch-depth: 0 so that the history is there")
    if not ref or ref.startswith("-"):
        raise GenMatrixError.at(where, "not a git revision", hint)
    found = _git(root, where, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if found.returncode != 0:
        detail = found.stderr.strip().splitlines()
        reason = f" ({detail[0]})" if detail else ""
        raise GenMatrixError.at(where, f"no such commit in the repository at {root}{reason}", hint)
    return found.stdout.strip()


def committed_state(root: Path, ref: str) -> dict[str, state.Entry]:
    """The state file as committed at `ref` in the repository at `root`; empty where it had none."""
    where = Location(f"--changed-since {ref}")
    path = f"{_commit(root, ref)}:./{STATE_FILE}"
    if _git(root, where, "cat-file", "-e", path).returncode != 0:
        return {}  # before the state file existed, every variant is new
    shown = _git(root, where, "show", path)
    if shown.returncode != 0:
        raise GenMatrixError.at(where, f"cannot read {STATE_FILE}: {shown.stderr.strip()}")
    return state.parse(shown.stdout, f"{ref}:{STATE_FILE}")


def _tree_at(root: Path, ref: str, into: Path) -> bool:
    """The recipes and the Nix library as committed at `ref`, written under `into`; False
    where that commit has none."""
    commit = _commit(root, ref)
    # Into a file, not through a pipe: a matrix of 50,000 recipes archives to more than the
    # output gen-matrix reads from a program, and the archive is this repository's own.
    file = into / "base.tar"
    archive = _git(root, Location(f"--changed-since {ref}"), "archive", "--format=tar", "-o", str(file), commit,
                   "--", PKGS_DIR, "nix")
    if archive.returncode != 0:
        return False
    with tarfile.open(file) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(into, filter="data")
        else:  # Python before 3.12: git's own archive of this repository, nothing outside it
            tar.extractall(into)
    file.unlink()
    return True
