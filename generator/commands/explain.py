"""Why a variant is in the matrix and what it is made of, or why a combination is not.

Pure functions over an Expansion; `gen-matrix explain` prints what they return. The
reasons are found by the same rules `expand` applies, in the same order, so the first
reason given is the one that decided.
"""

from __future__ import annotations

import dataclasses
import itertools
from pathlib import PurePosixPath

from ..errors import GenMatrixError, Location
from ..pipeline.expand import combination_text, variant_name
from ..knowledge import CANNOT, NOTE, Knowledge, Sm, Toolkit, findings, sm_cuda_problem, version_key
from ..records import dataclass
from .handbuild import build_drivers, newest_line
from ..knowledge import wheels_for
from .wheels import as_json as wheel_json, prebuilt_line, release_table
from .listing import axis_value
from ..model import KIND_AXES, KINDS, SCOPE_TEXT, Expansion, Matrix, Section, Variant, jobs_text
from ..layout import PKGS_DIR
from ..pipeline.render import describe
from ..pipeline.schema import suggest

KNOWLEDGE_RULE = "the knowledge table"


@dataclass(frozen=True)
class Reason:
    """Why a combination is out: the rule, where it is written, and what it says."""

    rule: str  # "the knowledge table", "gpu.restrict[0]", "gpu.exclude[1]", "gpu.cuda", "the matrix"
    where: str  # where the rule is written; empty for the knowledge table
    text: str

    def __str__(self) -> str:
        return f"{self.rule} ({self.where}): {self.text}" if self.where else f"{self.rule}: {self.text}"


@dataclass(frozen=True)
class Resolved:
    """Everything the recipe of a variant is made from."""

    file: str
    build: str
    details: tuple[tuple[str, str], ...]  # axis -> what the knowledge table says of its value
    cpu_flags: tuple[str, ...]
    disabled: tuple[str, ...]  # PyTorch features switched off (USE_<X>=0)
    switches: tuple[tuple[str, str], ...]  # what torch's derivation sets beyond nixpkgs' own torch
    nixpkgs_off: tuple[tuple[str, str], ...]  # (feature, why) nixpkgs itself turns off
    capabilities: tuple[str, ...]
    capability_scope: str | None
    blas: str | None
    platforms: tuple[str, ...]
    jobs: int
    jobs_text: str
    system_features: tuple[str, ...]
    description: str
    pin: str  # "name (nixpkgs rev)"
    fixes: tuple[tuple[str, str], ...]  # (fix, why)
    support: tuple[str, ...]  # what PyTorch's release notes say against the combination


@dataclass(frozen=True)
class Outcome:
    """One full combination: its variant, or why there is none."""

    kind: str
    combination: tuple[tuple[str, str], ...]
    name: str | None  # what its variant is, or would be, named
    origin: str | None  # the rule that put it in the matrix; None when it is not in it
    resolved: Resolved | None
    reasons: tuple[Reason, ...]  # why it is not in the matrix, the deciding one first
    knowledge: str | None  # why the knowledge table rules it out; None when it allows it

    @property
    def included(self) -> bool:
        return self.origin is not None


@dataclass(frozen=True)
class Explanation:
    """What explain answers: each combination asked about, and what else it was asked."""

    query: tuple[tuple[str, str], ...]  # what was asked: ("name", ...) or the given axes
    outcomes: tuple[Outcome, ...]
    pytorch: tuple[str, ...] = ()  # what the release table says for `explain --pytorch`
    build: tuple[str, ...] = ()  # whether nvcc and PyTorch can build the SM asked about by hand
    wheels: tuple[str, ...] = ()  # which of PyTorch's own wheels run on the SM asked about
    wheel_fits: tuple = ()  # the same as knowledge.WheelFit values, for --json


def _section(matrix: Matrix, kind: str) -> Section | None:
    return next((s for s in matrix.sections if s.kind == kind), None)


def _reasons(matrix: Matrix, kind: str, combination: dict) -> tuple[Reason, ...]:
    section = _section(matrix, kind)
    if section is None:
        return (Reason("the matrix", matrix.file, f"has no {kind}: section"),)
    reasons = []
    for axis, values in section.axes:
        if combination[axis] not in values:
            where = section.where_value(axis, values[0]) if values else section.where
            reasons.append(Reason(f"{kind}.{axis}", str(where),
                                  f"{axis} {combination[axis]} is not among {kind}.{axis} values "
                                  f"({', '.join(values) or 'none'})"))
    verdict = matrix.knowledge.why_not(combination)
    if verdict:
        reasons.append(Reason(KNOWLEDGE_RULE, "", verdict))
    for rule in section.restrict:
        if rule.forbids(combination):
            reasons.append(Reason(rule.when.label, str(rule.when.where), f"where {rule.when}, only {rule.only}"))
    for rule in section.exclude:
        if rule.matches(combination):
            reasons.append(Reason(rule.label, str(rule.where), f"excluded: {rule}"))
    return tuple(reasons)


def _details(variant: Variant) -> tuple[tuple[str, str], ...]:
    details = [("python", variant.python.attr)]
    if variant.cuda:
        details.append(("cuda", f"{variant.cuda.attr}; NVIDIA driver {variant.cuda.driver} or newer"))
    if variant.sm:
        gpus = f": {', '.join(variant.sm.gpus)}" if variant.sm.gpus else ""
        details.append(("sm", f"capability {variant.sm.capability}, {variant.sm.family}{gpus}"))
    if variant.isa:
        details.append(("isa", f"{variant.isa.arch}; /proc/cpuinfo shows {' '.join(variant.isa.cpuinfo)}"))
    if variant.accelerator:
        about = variant.accelerator.description or variant.accelerator.name
        details.append(("accelerator", f"{variant.accelerator.arch}; {about}"))
    return tuple(details)


def resolve(expansion: Expansion, variant: Variant) -> Resolved:
    matrix = expansion.matrix
    return Resolved(
        file=f"{PKGS_DIR}/{variant.name}.nix",
        build=f"flox build {variant.name}",
        details=_details(variant),
        cpu_flags=tuple(variant.isa.flags) if variant.isa else (),
        disabled=variant.disabled_features,
        switches=tuple(matrix.switches(variant).items()),
        nixpkgs_off=tuple((row.name, row.why) for row in matrix.nixpkgs_off(variant)),
        capabilities=(variant.sm.capability,) if variant.sm else (),
        capability_scope=matrix.capability_scope_of(variant) if variant.sm else None,
        blas=variant.blas,
        platforms=variant.platforms,
        jobs=matrix.jobs,
        jobs_text=jobs_text(matrix, variant),
        system_features=matrix.system_features,
        description=describe(expansion, variant),
        pin=f"{variant.pin} (nixpkgs {next(p.rev for p in matrix.pins if p.name == variant.pin)})",
        fixes=tuple((name, matrix.knowledge.fixes[name].why) for name in variant.fixes) + _disabled_fixes(expansion, variant),
        support=release_support(matrix, variant.combination),
    )


def _disabled_fixes(expansion: Expansion, variant: Variant) -> tuple[tuple[str, str], ...]:
    """The fixes the matrix turned off (`enabled: false`) that would apply to the variant."""
    from ..pipeline.expand import fix_facts

    matrix = expansion.matrix
    facts = fix_facts(matrix, matrix_torch(expansion, variant), variant.pin)
    return tuple((f"{fix.name} (disabled)", fix.why) for fix in matrix.knowledge.fixes.values()
                 if not fix.enabled and dataclasses.replace(fix, enabled=True).applies(facts))


def matrix_torch(expansion: Expansion, variant: Variant) -> Variant:
    """The torch variant whose build a variant's fixes come from: itself, or a companion's torch."""
    return expansion.by_name.get(variant.torch, variant) if variant.torch else variant


def release_support(matrix, combination, version: str | None = None) -> tuple[str, ...]:
    """What PyTorch's release notes (the knowledge table's pytorch rows) say against a
    combination, for the matrix's PyTorch or `version`: an SM its source does not build for, a
    CUDA its source does not build with or its wheels leave out, a Python outside its range,
    an SM its own wheels leave out."""
    version = version or matrix.pytorch_version
    k = matrix.knowledge
    if k.release(version) is None:
        return (f"PyTorch {version} is not in the knowledge table's pytorch rows: "
                "its CUDA and Python support is unchecked",)
    sm = combination.get("sm")
    return tuple(f.text for f in findings(k, sm=k.sm[sm] if sm else None, cuda=combination.get("cuda"),
                                          pytorch=version, python=combination.get("python"))
                 if f.axis in ("cuda", "python", "pytorch") and not (f.level == CANNOT and f.axis == "cuda"))


def for_pytorch(expansion: Expansion, version: str, given: dict[str, str]) -> tuple[str, ...]:
    """What the release table says of PyTorch `version` with the given axis values (`explain --pytorch`)."""
    k = expansion.matrix.knowledge
    release = k.release(version)
    if release is None:
        raise GenMatrixError.at(Location("--pytorch"), f"PyTorch {version} is not in the knowledge table's pytorch rows",
                                f"known release lines: {', '.join(sorted(k.pytorch, key=version_key))}")
    combination = {axis: (text.strip() if axis == "cuda" and text.strip() in k.toolkit
                          else axis_value(k, axis, text, f"--{axis}"))
                   for axis, text in given.items() if axis in ("cuda", "python", "sm")}
    notes = release_support(expansion.matrix, combination, version)
    experimental = f" (experimental: {', '.join(release.experimental_cuda)})" if release.experimental_cuda else ""
    summary = (f"PyTorch {release.name}: Python {release.python[0]} to {release.python[1]}, "
               f"CUDA {', '.join(release.cuda)}{experimental}")
    asked = ", ".join(f"{a} {v}" for a, v in combination.items())
    return (summary,) + (notes or ((f"PyTorch {release.name}'s release notes say nothing against {asked}",)
                                   if asked else ()))


def _included(expansion: Expansion, variant: Variant) -> Outcome:
    return Outcome(variant.kind, tuple(variant.combination.items()), variant.name, variant.origin,
                   resolve(expansion, variant), (), None)


def _outcome(expansion: Expansion, kind: str, combination: dict) -> Outcome:
    matrix = expansion.matrix
    for variant in expansion.variants:
        if variant.package == "pytorch" and variant.kind == kind and variant.combination == combination:
            return _included(expansion, variant)
    return Outcome(kind, tuple(combination.items()), variant_name(matrix, kind, combination), None, None,
                   _reasons(matrix, kind, combination), matrix.knowledge.why_not(combination))


def by_name(expansion: Expansion, name: str) -> Explanation:
    """The variant called `name`, or, for a name the matrix would give a dropped combination,
    why it is not there. A path to the recipe (`.flox/pkgs/NAME.nix`) works too."""
    if name.endswith(".nix"):
        name = PurePosixPath(name).name[: -len(".nix")]
    matrix = expansion.matrix
    query = (("name", name),)
    if name in expansion.by_name:
        return Explanation(query, (_included(expansion, expansion.by_name[name]),))
    for dropped in expansion.dropped:
        combination = dict(dropped.combination)
        if variant_name(matrix, dropped.kind, combination) == name:
            return Explanation(query, (_outcome(expansion, dropped.kind, combination),))
    names = [v.name for v in expansion.variants]
    raise GenMatrixError.at(
        Location(matrix.file), f"no variant is named '{name}'",
        suggest(name, names) or "`gen-matrix explain --sm SM --cuda VERSION --isa ISA` explains a combination",
    )


def by_values(expansion: Expansion, given: dict[str, str], kind: str | None = None,
              pytorch: str | None = None) -> Explanation:
    """Every full combination that has the `given` axis values, in the matrix or not; with an
    SM given, first whether nvcc and PyTorch (`pytorch`, else the matrix's) can build it at all.

    Axes not given take the values of the matrix's section; without `kind`, every kind of
    variant that has all the given axes is asked about."""
    explanation = _by_values(expansion, given, kind, pytorch)
    if "sm" not in given:
        return explanation
    k = expansion.matrix.knowledge
    values = {axis: text.strip() if axis == "cuda" and k.cuda_release(text.strip()) else axis_value(k, axis, text, f"--{axis}")
              for axis, text in given.items() if axis in ("sm", "cuda", "python")}
    sm, python = k.sm[values["sm"]], values.get("python")
    # PyTorch's own wheels are part of the answer whatever the matrix holds: they cost no build
    explanation = dataclasses.replace(explanation, wheels=(prebuilt_line(k, sm, python=python),
                                                           *release_table(k, sm, python)),
                                      wheel_fits=wheels_for(k, sm, python=python))
    if pytorch is None and all(o.included for o in explanation.outcomes):
        if not explanation.wheel_fits:  # no wheel: what a build from source gives, beyond the matrix
            line = newest_line(k, sm, python, cuda=values.get("cuda"))
            explanation = dataclasses.replace(explanation, wheels=explanation.wheels + ((line,) if line else ()))
        return explanation  # the matrix builds all of it: the outcomes say everything
    return dataclasses.replace(explanation, build=hand_build(
        k, sm, values.get("cuda"), python, pytorch or expansion.matrix.pytorch_version, notes=pytorch is None))


def hand_build(knowledge: Knowledge, sm: Sm, cuda: str | None, python: str | None, version: str,
               notes: bool = True) -> tuple[str, ...]:
    """Whether nvcc of CUDA `cuda` and PyTorch `version` can build for `sm`, from the knowledge
    table alone (matrix or not); the newest release that does, keeping the user's Python and
    CUDA where they fit; the first release that builds for it."""
    release = knowledge.release(version)
    lines = []
    found = findings(knowledge, sm=sm, cuda=cuda, pytorch=version, python=python)
    blocking = [f.text for f in found if f.level != NOTE]
    what = f"{sm.name}" + (f" with CUDA {cuda}" if cuda else "") + f" and PyTorch {version}"
    if blocking:
        lines.append(f"build: {what} cannot be built: " + "; ".join(blocking))
    elif release is None:
        lines.append(f"build: PyTorch {version} is not in the knowledge table's pytorch rows: unchecked")
    elif cuda:
        command = (f"gen-matrix env --sm {sm.name} --cuda {cuda} --pytorch "
                   f"{version if version.count('.') == 2 else release.newest}" + (f" --python {python}" if python else ""))
        lines.append(f"build: {what} can be built by hand: CUDA {cuda}'s nvcc compiles for it and the release's source "
                     f"builds with it; running it needs {build_drivers(knowledge, sm, cuda)}; `{command}` writes the script")
    if blocking or not cuda:
        line = newest_line(knowledge, sm, python, cuda=cuda)
        if line:
            lines.append(line)
    if notes:
        lines += [f"note: {f.text}" for f in found if f.level == NOTE]
    if sm.first_pytorch:
        lines.append(f"first release: PyTorch {sm.first_pytorch} is the first whose source builds for {sm.name} "
                     f"(CUDA >= {sm.min_cuda})")
    return tuple(lines)


def _by_values(expansion: Expansion, given: dict[str, str], kind: str | None, pytorch: str | None) -> Explanation:
    matrix = expansion.matrix
    cuda = given.get("cuda")
    if cuda is not None and cuda.strip() in matrix.knowledge.toolkit:
        return _unpackaged_cuda(expansion, given, matrix.knowledge.toolkit[cuda.strip()], pytorch)
    given = {axis: axis_value(matrix.knowledge, axis, text, f"--{axis}") for axis, text in given.items()}
    if kind is not None:
        extra = [axis for axis in given if axis not in KIND_AXES[kind]]
        if extra:
            raise GenMatrixError.at(Location("--kind"), f"{kind} variants have no {' or '.join(extra)}",
                                    f"{kind} variants are the product of {', '.join(KIND_AXES[kind])}")
        kinds = [kind]
    else:
        fitting = [k for k in KINDS if set(given) <= set(KIND_AXES[k])]
        if not fitting:
            raise GenMatrixError.at(Location(f"--{next(iter(given))}"),
                                    f"no kind of variant has all of {', '.join(given)}",
                                    "ask about gpu (python, cuda, sm, isa), cpu (python, isa), darwin "
                                    "(python, accelerator) or rocm (python, rocm, gfx, isa) separately")
        kinds = [k for k in fitting if _section(matrix, k)] or fitting
    outcomes: dict[tuple, Outcome] = {}
    for kind_ in kinds:
        axes = KIND_AXES[kind_]
        section = _section(matrix, kind_)
        if section is None and set(given) != set(axes):
            outcomes[(kind_,)] = Outcome(kind_, tuple(given.items()), None, None, None,
                                         _reasons(matrix, kind_, given), None)
            continue
        choices = [[given[axis]] if axis in given else list(dict(section.axes)[axis]) for axis in axes]
        for values in itertools.product(*choices):
            combination = dict(zip(axes, values))
            outcomes[(kind_, values)] = _outcome(expansion, kind_, combination)
        for variant in expansion.variants:  # includes beyond the product
            combination = variant.combination
            if (variant.package == "pytorch" and variant.kind == kind_
                    and all(combination[axis] == value for axis, value in given.items())):
                outcomes.setdefault((kind_, tuple(combination.values())), _included(expansion, variant))
    ordered = sorted(outcomes.values(), key=lambda o: (KINDS.index(o.kind), o.name or "", o.combination))
    return Explanation(tuple(given.items()), tuple(ordered))


def _unpackaged_cuda(expansion: Expansion, given: dict[str, str], toolkit: Toolkit,
                     pytorch: str | None = None) -> Explanation:
    """A CUDA release nixpkgs does not package, hence no variant has: what the knowledge table
    says of it against each SM asked about (or each SM of the matrix), and what PyTorch's
    release notes say of it. A hand build with that toolkit meets the same limits."""
    matrix = expansion.matrix
    k = matrix.knowledge
    cuda = toolkit.name
    others = {axis: axis_value(k, axis, text, f"--{axis}") for axis, text in given.items() if axis != "cuda"}
    section = _section(matrix, "gpu")
    sms = [others["sm"]] if "sm" in others else list(dict(section.axes).get("sm", ())) if section else list(k.sm)
    packaged = ", ".join(sorted(k.cuda, key=version_key))
    outcomes = []
    for sm in sms:
        combination = {axis: value for axis, value in (("python", others.get("python")), ("cuda", cuda), ("sm", sm),
                                                       ("isa", others.get("isa"))) if value is not None}
        verdict = sm_cuda_problem(k.sm[sm], cuda)
        reasons = [Reason(KNOWLEDGE_RULE, "", verdict)] if verdict else []
        reasons.append(Reason(KNOWLEDGE_RULE, "", f"nixpkgs packages no CUDA {cuda} (it packages {packaged}); "
                              f"a hand build with it needs {build_drivers(k, k.sm[sm], cuda)}"))
        reasons += [Reason("PyTorch's release notes", "", note)
                    for note in release_support(matrix, {"cuda": cuda, "sm": sm}, pytorch)]
        outcomes.append(Outcome("gpu", tuple(combination.items()), None, None, None, tuple(reasons), verdict))
    return Explanation(tuple(given.items()), tuple(outcomes))


def _detail_lines(outcome: Outcome) -> list[tuple[str, str]]:
    if outcome.resolved is None:
        rows = [("kept out by" if i == 0 else "also", str(reason)) for i, reason in enumerate(outcome.reasons)]
        if outcome.knowledge is None and outcome.name is not None:  # else it is among the reasons
            rows.append(("knowledge", "allows this combination"))
        return rows
    r = outcome.resolved
    details = dict(r.details)
    rows = [("put in by", outcome.origin), ("file", r.file), ("build with", r.build)]
    rows += [(axis, f"{value} ({details[axis]})" if axis in details else value)
             for axis, value in outcome.combination]
    if r.cpu_flags:
        rows.append(("cpu flags", " ".join(r.cpu_flags)))
    rows.append(("switches", " ".join(f"{key}={value}" for key, value in r.switches) or "none beyond nixpkgs' own"))
    rows += [("nixpkgs", f"{feature} off: {why}") for feature, why in r.nixpkgs_off]
    if r.capabilities:
        rows.append(("capabilities", f"{', '.join(r.capabilities)} ({SCOPE_TEXT[r.capability_scope]})"))
    rows += [("blas", r.blas or "none"), ("platforms", ", ".join(r.platforms)), ("jobs", r.jobs_text),
             ("features", ", ".join(r.system_features) or "none"), ("description", r.description),
             ("nixpkgs pin", r.pin)]
    rows += [("build fix" if i == 0 else "", f"{name}: {why}") for i, (name, why) in enumerate(r.fixes)]
    rows += [("PyTorch", note) for note in r.support]
    return rows


def _headline(outcome: Outcome) -> str:
    what = f"{outcome.kind}: {combination_text(outcome.combination)}" if outcome.combination else f"{outcome.kind} variants"
    if outcome.name is None:
        return f"{what}: not in the matrix"
    state = "in the matrix" if outcome.included else "not in the matrix"
    return f"{outcome.name}: {state} ({what})"


def text(explanation: Explanation, example: str | None = None) -> str:
    """The explanation as `gen-matrix explain` prints it: one outcome in full, several one a line.
    Asked about a GPU where there is no matrix (`example`: the shipped example that stands in),
    PyTorch's own wheels and what a build gives come first, and the example's variants in one line."""
    notes = "".join(f"{note}\n" for note in explanation.pytorch)
    build = "".join(f"{line}\n" for line in explanation.build)
    wheels = "".join(f"{line}\n" for line in explanation.wheels)
    if example is not None and wheels and len(explanation.outcomes) > 1:
        inside = sum(o.included for o in explanation.outcomes)
        return (wheels + build + notes + f"the shipped example {example} holds {inside} of "
                f"{len(explanation.outcomes)} such combinations; `gen-matrix explain NAME` shows one in full\n")
    return build + _outcomes_text(explanation) + wheels + notes


def _outcomes_text(explanation: Explanation) -> str:
    if len(explanation.outcomes) == 1:
        (outcome,) = explanation.outcomes
        rows = _detail_lines(outcome)
        width = max(len(label) for label, _ in rows)
        return "\n".join([_headline(outcome)] + [f"  {label:<{width}}  {value}" for label, value in rows]) + "\n"
    lines = []
    for outcome in explanation.outcomes:
        head = outcome.name or (f"{outcome.kind}: {combination_text(outcome.combination)}" if outcome.combination
                                else f"{outcome.kind} variants")
        if outcome.included:
            lines.append(f"{head}: in the matrix, from {outcome.origin}")
        else:
            lines.append(f"{head}: not in the matrix: " + "; also ".join(str(r) for r in outcome.reasons))
    inside = sum(o.included for o in explanation.outcomes)
    lines.append(f"{inside} in the matrix, {len(explanation.outcomes) - inside} not; "
                 "`gen-matrix explain NAME` shows one in full")
    return "\n".join(lines) + "\n"


def as_json(explanation: Explanation) -> dict:
    """The explanation as `gen-matrix explain --json` prints it."""
    def outcome(o: Outcome) -> dict:
        resolved = None
        if o.resolved is not None:
            r = o.resolved
            resolved = {
                "file": r.file, "build": r.build, "details": dict(r.details), "cpu_flags": list(r.cpu_flags),
                "disabled": list(r.disabled), "switches": dict(r.switches),
                "nixpkgs_off": [{"feature": feature, "why": why} for feature, why in r.nixpkgs_off],
                "capabilities": list(r.capabilities),
                "capability_scope": r.capability_scope, "blas": r.blas, "platforms": list(r.platforms),
                "jobs": r.jobs, "system_features": list(r.system_features), "description": r.description,
                "pin": r.pin, "fixes": [{"name": name, "why": why} for name, why in r.fixes],
                "pytorch_support": list(r.support),
            }
        return {
            "kind": o.kind, "combination": dict(o.combination), "name": o.name, "in_matrix": o.included,
            "origin": o.origin, "reasons": [{"rule": r.rule, "where": r.where, "text": r.text} for r in o.reasons],
            # a partial combination (no section to complete it from) has no verdict
            "knowledge": {"allows": o.knowledge is None, "reason": o.knowledge} if o.name else None,
            "resolved": resolved,
        }

    return {"query": dict(explanation.query), "outcomes": [outcome(o) for o in explanation.outcomes],
            "pytorch": list(explanation.pytorch), "build": list(explanation.build),
            "wheels": [wheel_json(fit) for fit in explanation.wheel_fits], "wheel_summary": list(explanation.wheels)}


def other_gpu(knowledge: Knowledge, text: str):
    """The target of an `--sm` value that names a GPU that is not NVIDIA's; None for an SM, an
    NVIDIA card or a name neither table knows (axis_value then says what it does not know)."""
    from .othergpus import match
    from ..knowledge import gpu_name_matches

    if knowledge.lookup("sm", text) or gpu_name_matches(knowledge, text):
        return None
    return match(knowledge, text)


def other_text(knowledge: Knowledge, name: str, gpu, python: str | None = None, built: tuple[str, ...] = ()) -> str:
    """What explain says of a GPU that is not NVIDIA's: its target, the wheels that serve it, and
    the matrix's variants for it (`built`, names) or why none."""
    from .othergpus import BACKEND, NOT_BUILT, describe, wheel_line

    lines = [f"gpu: {name} is {describe(gpu)} ({gpu.source})"]
    if gpu.kind == "mps":
        lines.append("build: the darwin variants of a matrix build MPS (`gen-matrix explain --accelerator mps`)")
    elif gpu.kind == "rocm":
        lines.append(f"build: the rocm variants of a matrix build a gfx target (`gen-matrix explain --gfx {gpu.name}`)")
    else:
        lines.append(f"build: gen-matrix builds CUDA, CPU, ROCm and Apple variants, not {BACKEND[gpu.kind]} ones: "
                     f"{NOT_BUILT[gpu.kind]}")
    lines.append(wheel_line(knowledge, gpu, python, built))
    return "\n".join(lines) + "\n"
