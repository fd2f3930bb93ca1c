"""Expand a Matrix into its variants: the product of each section's axes, less what the
knowledge table says cannot work and what the matrix's rules leave out, plus its includes."""

from __future__ import annotations

import itertools
import re

from .errors import GenMatrixError, Location, Problem
from .knowledge import incompatibility
from .model import KIND_AXES, Dropped, Expansion, Matrix, Section, Variant

SAFE_NAME = re.compile(r"^[a-z0-9][a-z0-9_.+-]*$")


def check_name(name: str) -> str | None:
    """Why `name` cannot be a package and file name; None when it can."""
    if not SAFE_NAME.match(name) or ".." in name or len(name) > 200:
        return (f"'{name}' is not a safe package name: use lower-case letters, digits and . _ + -, "
                "starting with a letter or digit")
    return None


def _variant(matrix: Matrix, kind: str, combination: dict, origin: str,
             package: str = "pytorch", torch: str | None = None) -> Variant:
    k = matrix.knowledge
    values = {axis: k.table(axis)[value] for axis, value in combination.items()}
    fields = {"package": package}
    fields.update({axis: getattr(v, "token", v.name) for axis, v in values.items()})
    name = matrix.naming[kind].format(**fields)
    return Variant(name=name, kind=kind, origin=origin, package=package, torch=torch, **values)


def _companions(matrix: Matrix, torches: list[Variant], warnings: list) -> list[Variant]:
    """The torchvision/torchaudio variants of each torch variant a companions rule selects."""
    made: dict[str, Variant] = {}
    for rule in matrix.companions:
        selected = [torch for torch in torches if rule.selects(torch)]
        if not selected:
            warnings.append(Problem(rule.where, f"{rule.label} selects no variant: {rule.when}",
                                    "remove the rule, or check its values against the axes"))
        for torch in selected:
            for package in rule.packages:
                origin = f"{rule.label} ({rule.where}), built against {torch.name}"
                companion = _variant(matrix, torch.kind, torch.combination, origin, package, torch.name)
                made.setdefault(companion.name, companion)
    return list(made.values())


def _why_not(matrix: Matrix, kind: str, combination: dict) -> str | None:
    k = matrix.knowledge
    return incompatibility(**{axis: k.table(axis)[value] for axis, value in combination.items()
                              if axis in ("sm", "cuda", "isa", "accelerator")})


def _expand_section(matrix: Matrix, section: Section, problems: list, warnings: list):
    kept: dict[tuple, Variant] = {}
    dropped: list[Dropped] = []
    used_excludes: set[int] = set()
    axes = [axis for axis, _ in section.axes]
    origin = f"the product of {section.kind}: axes ({matrix.file}:{section.where.line})"
    for values in itertools.product(*(values for _, values in section.axes)):
        combination = dict(zip(axes, values))
        key = tuple(combination.items())
        reason = _why_not(matrix, section.kind, combination)
        if reason:
            dropped.append(Dropped(section.kind, key, reason, "knowledge"))
            continue
        rule = next((r for r in section.restrict if r.forbids(combination)), None)
        if rule:
            dropped.append(Dropped(section.kind, key, f"where {rule.when}, only {rule.only}",
                                   f"{rule.when.label} ({rule.when.where})"))
            continue
        excluded = [i for i, rule in enumerate(section.exclude) if rule.matches(combination)]
        if excluded:
            used_excludes.update(excluded)
            rule = section.exclude[excluded[0]]
            dropped.append(Dropped(section.kind, key, f"excluded: {rule}", f"{rule.label} ({rule.where})"))
            continue
        kept[key] = _variant(matrix, section.kind, combination, origin)
    for i, rule in enumerate(section.exclude):
        if i not in used_excludes:
            warnings.append(Problem(rule.where, f"{rule.label} matches no variant: {rule}",
                                    "remove the rule, or check its values against the axes"))
    for rule in section.include:
        combination = {axis: allowed[0] for axis, allowed in rule.values}
        reason = _why_not(matrix, section.kind, combination)
        if reason:
            problems.append(Problem(rule.where, f"{rule.label} cannot work: {reason}",
                                    "change the entry, or remove it"))
            continue
        key = tuple((axis, combination[axis]) for axis in KIND_AXES[section.kind])
        dropped = [d for d in dropped if d.combination != key or d.rule == "knowledge"]
        kept[key] = _variant(matrix, section.kind, combination, f"{rule.label} ({rule.where})")
    return list(kept.values()), dropped


def expand(matrix: Matrix) -> Expansion:
    """Every variant of the matrix, sorted by name; raises GenMatrixError if any cannot exist."""
    problems: list[Problem] = []
    warnings: list[Problem] = []
    variants: list[Variant] = []
    dropped: list[Dropped] = []
    for section in matrix.sections:
        kept, gone = _expand_section(matrix, section, problems, warnings)
        variants += kept
        dropped += gone
    variants += _companions(matrix, variants, warnings)
    by_name: dict[str, Variant] = {}
    where = {s.kind: s.where for s in matrix.sections}
    for variant in variants:
        unsafe = check_name(variant.name)
        if unsafe:
            problems.append(Problem(where[variant.kind], unsafe, "change naming in matrix.yaml"))
        elif variant.name in by_name:
            problems.append(Problem(
                where[variant.kind], f"two variants are both named '{variant.name}'",
                "make naming patterns include every axis, or remove one of the entries",
            ))
        by_name[variant.name] = variant
    if not variants and not problems:
        problems.append(Problem(where[matrix.sections[0].kind] if matrix.sections else Location(matrix.file),
                                "the matrix expands to no variant",
                                "every combination was dropped; `gen-matrix explain` says why for each"))
    if problems:
        raise GenMatrixError(problems)
    return Expansion(matrix, tuple(sorted(variants, key=lambda v: v.name)),
                     tuple(sorted(dropped, key=lambda d: (d.kind, d.combination))),
                     tuple(sorted(set(warnings))))
