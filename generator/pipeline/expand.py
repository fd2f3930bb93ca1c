"""Expand a Matrix into its variants: the product of each section's axes, less what the
knowledge table says cannot work and what the matrix's rules leave out, plus its includes."""

from __future__ import annotations

import itertools

from ..errors import GenMatrixError, Location, Problem
from ..knowledge import RULED_AXES, why_not_rows
from . import pinned
from ..model import (KIND_AXES, Dropped, Expansion, Matrix, Section, Variant, check_name, nixpkgs_scope_needed,
                     system_of)

def variant_name(matrix: Matrix, kind: str, combination: dict, package: str = "pytorch") -> str:
    """The name the variant of a full combination has, or would have."""
    return _name(matrix, kind, matrix.knowledge.rows(combination), package)


def _name(matrix: Matrix, kind: str, rows: dict, package: str) -> str:
    tokens = {axis: getattr(row, "token", row.name) for axis, row in rows.items()}
    return matrix.naming[kind].format(package=package, **tokens)


def _variant(matrix: Matrix, kind: str, rows: dict, origin: str, fixes_by_facts: dict,
             package: str = "pytorch", torch: Variant | None = None) -> Variant:
    """The variant of a full combination, given as its table rows by axis, with its pin and
    fixes (a companion's are its torch's). `fixes_by_facts` holds the fixes of the facts met
    so far in this expansion, by what the facts are made of (_facts' arguments): thousands of
    variants share a few dozen facts."""
    name = _name(matrix, kind, rows, package)
    if torch is not None:
        return Variant(name=name, kind=kind, origin=origin, package=package, torch=torch.name, pin=torch.pin,
                       fixes=torch.fixes, **rows)
    pin = matrix.pin_of(kind, {axis: row.name for axis, row in rows.items()})
    if pin is None:
        return Variant(name=name, kind=kind, origin=origin, package=package, **rows)  # expand() reports it
    cuda, isa = rows.get("cuda"), rows.get("isa")
    key = (kind, cuda.name if cuda else None, isa.name if isa else None,
           system_of(kind, isa, rows.get("accelerator")), pin.name)
    if key not in fixes_by_facts:
        fixes_by_facts[key] = _fixes(matrix, _facts(matrix, *key), pin.rev)
    return Variant(name=name, kind=kind, origin=origin, package=package, pin=pin.name, fixes=fixes_by_facts[key],
                   **rows)


def _fixes(matrix: Matrix, facts: dict, rev: str) -> tuple[str, ...]:
    """The fixes a variant with `facts` takes, on the nixpkgs `rev` of its pin."""
    # a fix whose change the pin's nixpkgs already holds would change nothing there
    row = matrix.knowledge.pins.get(rev)
    carried = set(row.carries) if row is not None else set()
    return tuple(sorted(fix.name for fix in matrix.knowledge.fixes.values()
                        if fix.applies(facts) and fix.name not in carried))


def fix_facts(matrix: Matrix, variant: Variant, pin: str) -> dict:
    """What a build fix's `when` is matched against, for a variant built on `pin`."""
    return _facts(matrix, variant.kind, variant.cuda.name if variant.cuda else None,
                  variant.isa.name if variant.isa else None, variant.system, pin)


def _facts(matrix: Matrix, kind: str, cuda: str | None, isa: str | None, system: str, pin: str) -> dict:
    return {"pytorch": matrix.pytorch_version, "cuda": cuda, "source": matrix.torch_source is not None,
            "isa": isa, "system": system, "kind": kind, "pin": pin, "compiler_cache": matrix.compiler_cache}


def combination_text(combination) -> str:
    """A combination as messages show it: `python 3.13, cuda 12.8, sm sm90, isa avx2`."""
    return ", ".join(f"{axis} {value}" for axis, value in dict(combination).items())


def _companions(matrix: Matrix, torches: list[Variant], warnings: list, fixes_by_facts: dict) -> list[Variant]:
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
                rows = matrix.knowledge.rows(torch.combination)
                companion = _variant(matrix, torch.kind, rows, origin, fixes_by_facts, package, torch)
                made.setdefault(companion.name, companion)
    return list(made.values())


def _expand_section(matrix: Matrix, section: Section, problems: list, warnings: list, fixes_by_facts: dict):
    kept: dict[tuple, Variant] = {}
    reasons: dict[tuple, str | None] = {}  # why_not_rows, by the values of the axes it weighs
    dropped: list[Dropped] = []
    used_excludes: set[int] = set()
    axes = [axis for axis, _ in section.axes]
    tables = [matrix.knowledge.table(axis) for axis in axes]
    origin = f"the product of {section.kind}: axes ({matrix.file}:{section.where.line})"
    for values in itertools.product(*(values for _, values in section.axes)):
        key = tuple(zip(axes, values))
        combination = dict(key)
        ruled = tuple(map(combination.get, RULED_AXES))
        if ruled not in reasons:
            reasons[ruled] = why_not_rows({axis: table[value] for axis, table, value in zip(axes, tables, values)})
        reason = reasons[ruled]
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
        rows = {axis: table[value] for axis, table, value in zip(axes, tables, values)}
        kept[key] = _variant(matrix, section.kind, rows, origin, fixes_by_facts)
    for i, rule in enumerate(section.exclude):
        if i not in used_excludes:
            warnings.append(Problem(rule.where, f"{rule.label} matches no variant: {rule}",
                                    "remove the rule, or check its values against the axes"))
    for rule in section.include:
        combination = {axis: allowed[0] for axis, allowed in rule.values}
        rows = matrix.knowledge.rows(combination)
        reason = why_not_rows(rows)
        if reason:
            problems.append(Problem(rule.where, f"{rule.label} cannot work: {reason}",
                                    "change the entry, or remove it"))
            continue
        key = tuple((axis, combination[axis]) for axis in KIND_AXES[section.kind])
        dropped = [d for d in dropped if d.combination != key or d.rule == "knowledge"]
        kept[key] = _variant(matrix, section.kind, rows, f"{rule.label} ({rule.where})", fixes_by_facts)
    warnings += _barren(section, kept, dropped) + _narrowed(matrix, section, kept, dropped)
    return list(kept.values()), dropped


def _barren(section: Section, kept: dict, dropped: list[Dropped]) -> list[Problem]:
    """Axis values the knowledge table leaves without any variant. Almost always a slip,
    such as an aarch64-only GPU listed beside x86_64 instruction sets only, and silent
    otherwise: rules the user wrote (restrict, exclude) are deliberate and not counted."""
    warnings = []
    # One pass over the variants, not one per value: a matrix of 50,000 has hundreds of values.
    used = {pair for key in kept for pair in key}
    gone_by_value: dict = {}
    for d in dropped:
        for pair in d.combination:
            gone_by_value.setdefault(pair, []).append(d)
    for axis, values in section.axes:
        for value in values:
            if (axis, value) in used:
                continue
            gone = gone_by_value.get((axis, value), [])
            if gone and all(d.rule == "knowledge" for d in gone):
                warnings.append(Problem(
                    section.where_value(axis, value),
                    f"{section.kind}.{axis} {value} yields no variant: {gone[0].reason}",
                    f"remove it, or add values it works with; `gen-matrix explain --{axis} {value}` "
                    "shows why for each combination",
                ))
    return warnings


# The axes whose value's own limits (its CUDA releases, its hosts) rule a combination out:
# a GPU's, or an accelerator's; a narrowed combination is said at that value.
_LIMITED_AXES = ("sm", "accelerator", "gfx")


def _narrowed(matrix: Matrix, section: Section, kept: dict, dropped: list[Dropped]) -> list[Problem]:
    """A warning for each GPU (or accelerator) the knowledge table keeps from part of the
    product (sm70 beside CUDA 12.8 to 13.1 loses its 13.x half): the values of the other axes
    it has no variant with, and why. Combinations a rule the user wrote also keeps out are
    deliberate and not counted; a value left with no variant at all (of either axis) is _barren's."""
    names = [axis for axis, _ in section.axes]
    ruled = {d.combination for d in dropped if d.rule == "knowledge" and (
        any(rule.forbids(dict(d.combination)) for rule in section.restrict)
        or any(rule.matches(dict(d.combination)) for rule in section.exclude))}
    used = {pair for key in kept for pair in key}
    # One pass over the dropped, not one per value (as in _barren).
    gone_by_value: dict = {}
    for d in dropped:
        if d.rule == "knowledge" and d.combination not in ruled:
            for pair in d.combination:
                gone_by_value.setdefault(pair, []).append(d)
    warnings = []
    for axis, values in section.axes:
        if axis not in _LIMITED_AXES:
            continue
        for value in values:
            if (axis, value) not in used:
                continue
            gone = gone_by_value.get((axis, value), [])
            said = []
            for other in names:
                if other in ("python", axis):
                    continue
                row = matrix.knowledge.table(axis)[value]
                lost = [v for v in dict(section.axes)[other]  # a value with no variant at all is _barren's
                        if (other, v) in used and any((other, v) in d.combination for d in gone)
                        and why_not_rows({axis: row, other: matrix.knowledge.table(other)[v]})]
                if lost:
                    reason = why_not_rows({axis: row, other: matrix.knowledge.table(other)[lost[0]]})
                    said.append(f"{other} {', '.join(lost)} ({reason.split('; ')[0]})")
            if said:
                warnings.append(Problem(section.where_value(axis, value),
                                        f"{section.kind}.{axis} {value} has no variant with {'; '.join(said)}; "
                                        f"`gen-matrix explain --{axis} {value}` says more"))
    return warnings


def _unpinned(matrix: Matrix, variants: list[Variant]) -> list[Problem]:
    return [Problem(matrix.pins[-1].where,
                    f"no nixpkgs pin takes {variant.kind} {combination_text(variant.combination)} ({variant.name})",
                    "add a pin without `when` at the end of nixpkgs.pins, or widen a pin's rule")
            for variant in variants if not variant.pin][:1]


def _scope_refused(matrix: Matrix, variants: list[Variant]) -> list[Problem]:
    """capability_scope torch where torch alone cannot serve an SM: refused, once per SM and
    CUDA release, rather than silently rebuilt nixpkgs-wide."""
    if matrix.capability_scope != "torch":
        return []
    reasons = {}
    for variant in variants:
        if variant.sm is not None and not variant.is_companion:
            reason = nixpkgs_scope_needed(variant)
            if reason:
                reasons.setdefault((variant.sm.name, variant.cuda.name), reason)
    return [Problem(matrix.capability_scope_where or Location(matrix.file),
                    f"capability_scope torch cannot build {sm} with CUDA {cuda}: {reason}",
                    "set nixpkgs.capability_scope to auto (torch alone where the cache serves the SM, every CUDA "
                    f"library built for it elsewhere) or nixpkgs, or take {sm} out of the matrix")
            for (sm, cuda), reason in sorted(reasons.items())]


def _compiler_cache_refused(matrix: Matrix, variants: list[Variant]) -> list[Problem]:
    """build.compiler_cache where a torch builds on a self-hosted runner, unless the matrix
    states that its runners build nothing but what its owner trusts: such a runner keeps the
    cache between jobs, and every build there, a pull request's or another repository's job,
    can write entries that a later torch links in."""
    if matrix.compiler_cache is None or matrix.compiler_cache_runners == "dedicated":
        return []
    shared = sorted({matrix.ci.placement(v)[0] for v in variants
                     if not v.is_companion and "self-hosted" in matrix.ci.placement(v)[0]})
    if not shared:
        return []
    runners = "; ".join(f"[{', '.join(labels)}]" for labels in shared)
    return [Problem(matrix.compiler_cache_where or Location(matrix.file),
                    f"build.compiler_cache: {matrix.compiler_cache} would keep the compiler cache on self-hosted "
                    f"runners ({runners}), where every build can write it: a pull request's build, or another "
                    "repository's job on the same runner, could plant objects that a later torch links in unseen",
                    "if those runners build nothing but what you trust (this repository's jobs, no pull request "
                    "from a fork, no other user of their Nix daemon), say so with `compiler_cache_runners: "
                    "dedicated` under build:; else build the torches on GitHub-hosted runners, or remove "
                    "build.compiler_cache (docs/ci.md, \"Compiler cache\")")]


def _unused_pins(matrix: Matrix, variants: list[Variant]) -> list[Problem]:
    used = {variant.pin for variant in variants}
    return [Problem(pin.where, f"the nixpkgs pin '{pin.name}' builds no variant",
                    "remove it, or check its `when` rule and the order of the pins")
            for pin in matrix.pins if pin.name not in used and len(matrix.pins) > 1]


def _unsupported(matrix: Matrix, variants: list[Variant]) -> tuple[list[Problem], list[Problem]]:
    """Where the matrix asks PyTorch for a CUDA or Python of its release, once per value:
    warnings where the release's source cannot build with it (a CUDA outside its source range,
    a Python outside its range), notes where only PyTorch's own wheels leave a CUDA out (a build
    from source works, untested upstream). Nothing where the knowledge table lacks the release."""
    release = matrix.knowledge.release(matrix.pytorch_version)
    if release is None:
        return [], []
    reasons: dict[tuple[str, str], tuple[bool, str]] = {}
    for cuda in {variant.cuda.name for variant in variants if variant.cuda is not None}:
        source = release.cuda_source_problem(cuda)
        if source:
            reasons[("cuda", cuda)] = (True, source)
        elif release.cuda_support(cuda):
            reasons[("cuda", cuda)] = (False, release.cuda_support(cuda))
    for python in {variant.python.name for variant in variants}:
        reason = release.python_support(python)
        if reason:
            reasons[("python", python)] = (True, reason)
    where = {s.kind: s for s in matrix.sections}
    warnings, notes = [], []
    for (axis, value), (blocking, reason) in sorted(reasons.items()):
        section = next((s for s in where.values() if value in dict(s.axes).get(axis, ())), None)
        location = section.where_value(axis, value) if section else Location(matrix.file)
        if blocking:
            warnings.append(Problem(location, reason, f"`gen-matrix explain --{axis} {value}` says more; "
                                                      "PyTorch may fail to build or behave with it"))
        else:
            notes.append(Problem(location, reason, f"`gen-matrix explain --{axis} {value}` says more"))
    return warnings, notes


def expand(matrix: Matrix, allow_empty: bool = False) -> Expansion:
    """Every variant of the matrix, sorted by name; raises GenMatrixError if any cannot exist.

    `allow_empty` returns a matrix that expands to nothing, so `explain` can say why."""
    problems: list[Problem] = []
    warnings: list[Problem] = []
    variants: list[Variant] = []
    dropped: list[Dropped] = []
    fixes_by_facts: dict[tuple, tuple[str, ...]] = {}
    for section in matrix.sections:
        kept, gone = _expand_section(matrix, section, problems, warnings, fixes_by_facts)
        variants += kept
        dropped += gone
    variants += _companions(matrix, variants, warnings, fixes_by_facts)
    problems += _unpinned(matrix, variants) + _scope_refused(matrix, variants) + _compiler_cache_refused(matrix, variants)
    unsupported, notes = _unsupported(matrix, variants)
    pin_warnings, pin_notes = pinned.check(matrix, variants)
    warnings += _unused_pins(matrix, variants) + unsupported + pin_warnings
    notes += pin_notes
    by_name: dict[str, Variant] = {}
    where = {s.kind: s.where for s in matrix.sections}
    for variant in variants:
        unsafe = check_name(variant.name)
        if unsafe:
            problems.append(Problem(where[variant.kind], unsafe, f"change naming.{variant.kind} in matrix.yaml"))
        elif variant.name in by_name:
            first = by_name[variant.name]
            problems.append(Problem(
                where[variant.kind],
                f"two variants are both named '{variant.name}': {first.kind} {combination_text(first.combination)} "
                f"from {first.origin}, and {variant.kind} {combination_text(variant.combination)} from {variant.origin}",
                "make the naming patterns tell them apart, or remove one of the entries",
            ))
            continue
        by_name[variant.name] = variant
    if not variants and not problems and not allow_empty:
        example = f"; e.g. {combination_text(dropped[0].combination)}: {dropped[0].reason}" if dropped else ""
        problems.append(Problem(where[matrix.sections[0].kind] if matrix.sections else Location(matrix.file),
                                f"the matrix expands to no variant{example}",
                                "every combination was dropped; `gen-matrix explain` says why for each"))
    if problems:
        raise GenMatrixError(problems)
    return Expansion(matrix, tuple(sorted(variants, key=lambda v: v.name)),
                     tuple(sorted(dropped, key=lambda d: (d.kind, d.combination))),
                     tuple(sorted(set(warnings))), tuple(sorted(set(notes))))
