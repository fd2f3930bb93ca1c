"""adopt, inferring: the matrix that gives exactly the recipes' names: axes, companions,
pins and the rules that choose them, the PyTorch version and source, and the fewest
restrict and exclude rules."""

from __future__ import annotations

import itertools
from collections import Counter

from ...errors import GenMatrixError, Location
from ...knowledge import Knowledge, version_key
from ...model import KIND_AXES
from ...pipeline import expand
from .reading import COMPANIONS, Recipe


def _sort_key(knowledge: Knowledge, axis: str):
    if axis in ("python", "cuda"):
        return version_key
    if axis == "sm":
        return lambda name: version_key(knowledge.sm[name].capability)
    if axis == "isa":
        return lambda name: (knowledge.isa[name].arch != "x86_64", name)
    return lambda name: name


def _matches(rule: dict, combination: dict) -> bool:
    return all(combination.get(axis) in values for axis, values in rule.items())


def _value(values, knowledge, axis):
    values = sorted(values, key=_sort_key(knowledge, axis))
    return values[0] if len(values) == 1 else values


def _rules(knowledge: Knowledge, kind: str, axes: dict, wanted: set) -> tuple[list, list, set]:
    """The fewest restrict and exclude rules (greedy) that keep exactly `wanted` of the
    product the knowledge table allows; and what of `wanted` no rule can give."""
    names = KIND_AXES[kind]
    product = [dict(zip(names, values)) for values in itertools.product(*(axes[a] for a in names))]
    possible = {tuple(c.items()) for c in product if knowledge.why_not(c) is None}
    extras = possible - wanted
    candidates = []  # (kind of rule, rule, covered extras)
    for a, b in itertools.permutations(names, 2):
        for value in axes[a]:
            allowed = {dict(w)[b] for w in wanted if dict(w)[a] == value}
            removed = {e for e in extras if dict(e)[a] == value and dict(e)[b] not in allowed}
            if removed and allowed:
                candidates.append(("restrict", (a, value, b, frozenset(allowed)), removed))
    wanted_dicts = [dict(w) for w in wanted]
    seen = set()
    for extra in sorted(extras):
        e = dict(extra)
        for size in range(1, len(names) + 1):
            for subset in itertools.combinations(names, size):
                pattern = tuple((axis, e[axis]) for axis in subset)
                if pattern in seen:
                    continue
                seen.add(pattern)
                if any(all(w[axis] == v for axis, v in pattern) for w in wanted_dicts):
                    continue
                covered = {x for x in extras if all(dict(x)[axis] == v for axis, v in pattern)}
                candidates.append(("exclude", pattern, covered))
    uncovered, chosen = set(extras), []
    while uncovered:
        # the most extras removed, then the fewest values written
        best = max(candidates, key=lambda c: (len(c[2] & uncovered),
                                              -(len(c[1]) if c[0] == "exclude" else 1 + len(c[1][3]))), default=None)
        if best is None or not best[2] & uncovered:
            break
        chosen.append(best)
        uncovered -= best[2]
    for candidate in reversed(chosen[:]):  # a rule whose extras the others all remove goes
        if candidate[2] <= set().union(*(c[2] for c in chosen if c is not candidate)):
            chosen.remove(candidate)
    restricts: dict = {}
    for _, (a, value, b, allowed), _ in (c for c in chosen if c[0] == "restrict"):
        restricts.setdefault((a, b, allowed), []).append(value)
    restrict = [{"when": {a: _value(values, knowledge, a)}, "only": {b: _value(allowed, knowledge, b)}}
                for (a, b, allowed), values in restricts.items()]
    # Excludes that differ in one axis's value become one rule with a list.
    patterns = [dict(pattern) for _, pattern, _ in (c for c in chosen if c[0] == "exclude")]
    merged: dict = {}
    for pattern in patterns:
        axes_ = tuple(sorted(pattern))
        for axis in axes_:
            rest = tuple((k, pattern[k]) for k in axes_ if k != axis)
            merged.setdefault((axes_, axis, rest), set()).add(pattern[axis])
    exclude, used = [], set()
    for (axes_, axis, rest), values in sorted(merged.items(), key=lambda item: -len(item[1])):
        members = {tuple(sorted(dict(rest, **{axis: v}).items())) for v in values}
        members -= used
        if not members:
            continue
        used |= members
        rule = dict(rest)
        rule[axis] = _value({dict(m)[axis] for m in members}, knowledge, axis)
        exclude.append({k: rule[k] for k in names if k in rule})
    return restrict, exclude, wanted - possible


def _selector(group: set, among: list, keys: tuple) -> dict | None:
    """The smallest rule over `keys` that picks exactly `group` out of `among` (dicts)."""
    members = [c for c in among if c["name"] in group]
    for size in range(1, len(keys) + 1):
        for subset in itertools.combinations(keys, size):
            rule = {}
            for axis in subset:
                values = {c.get(axis) for c in members}
                if None in values:
                    break
                rule[axis] = values
            else:
                if {c["name"] for c in among if _matches(rule, c)} == group:
                    return rule
    return None


def _plain_rule(rule: dict, knowledge: Knowledge) -> dict:
    return {axis: _value(values, knowledge, axis) for axis, values in rule.items()}


def _pin_torch(revs: Counter, knowledge: Knowledge, where: str) -> str:
    """The PyTorch version of recipes that build their pin's own torch: the torch the knowledge
    table says their pins hold, that of the pin most recipes use where the pins differ (the
    matrix then warns at pytorch.version of the others)."""
    held = Counter()
    for rev, count in revs.items():
        if rev in knowledge.pins:
            held[knowledge.pins[rev].torch] += count
    if not held:
        unknown = ", ".join(sorted(rev[:7] for rev in revs))
        raise GenMatrixError.at(
            Location(where), f"the recipes build their pin's own PyTorch, and the knowledge table does not know which "
                             f"torch nixpkgs {unknown} holds",
            "give it with --pytorch-version, e.g. what `nix-instantiate --eval -A python3Packages.torch.version "
            "<the pin>` prints; or add the pin's row under knowledge.pins (generator/knowledge.yaml)")
    return max(sorted(held.items()), key=lambda item: item[1])[0]


def infer(recipes: list[Recipe], knowledge: Knowledge, pytorch_version: str | None, where: str,
          nixpkgs_rev: str | None = None) -> tuple[dict, list[str]]:
    """The matrix of the recipes, and warnings about what it cannot say."""
    warnings: list[str] = []
    torches = [r for r in recipes if r.package == "pytorch"]
    if not torches:
        raise GenMatrixError.at(Location(where), "no torch recipe among the recipes", "adopt starts from torch recipes")
    matrix: dict = {}

    revs = Counter(r.rev for r in torches if r.rev)
    if not revs:
        if not nixpkgs_rev:
            raise GenMatrixError.at(Location(where), "no recipe pins nixpkgs: they build against the environment's",
                                    "give the nixpkgs revision they should build against with --nixpkgs-rev REV")
        revs = Counter({nixpkgs_rev: len(torches)})

    sources = Counter(r.source for r in torches)
    source = sources.most_common(1)[0][0]
    if len(sources) > 1:
        warnings.append(f"the recipes build {len(sources)} different PyTorch sources; the matrix takes the most common")
    if source is not None:
        version, owner, repo, rev, hash_ = source
        matrix["pytorch"] = {"version": version, "source": {"rev": rev, "hash": hash_}}
        if (owner, repo) != ("pytorch", "pytorch"):
            matrix["pytorch"]["source"].update(owner=owner, repo=repo)
    else:
        matrix["pytorch"] = {"version": pytorch_version or _pin_torch(revs, knowledge, where)}

    facts = [dict(r.combination, kind=r.kind, name=r.name) for r in torches]
    nixpkgs: dict = {}
    if len(revs) == 1:
        nixpkgs["rev"] = next(iter(revs))
        shas = {r.tarball_sha256 for r in torches}
        nixpkgs["sha256"] = shas.pop() if len(shas) == 1 else None
        config = _shared_config(torches)
        if config:
            nixpkgs["config"] = config
    elif revs:
        nixpkgs["pins"] = _pins(torches, facts, revs, knowledge, warnings)
    nixpkgs["capability_scope"] = "auto"
    matrix["nixpkgs"] = nixpkgs

    jobs = Counter(r.jobs for r in torches if r.jobs)
    features = Counter(r.system_features for r in torches if r.system_features is not None)
    matrix["build"] = {"jobs": jobs.most_common(1)[0][0] if jobs else 16,
                       "system_features": list(features.most_common(1)[0][0]) if features else []}

    for kind in ("gpu", "cpu", "darwin"):
        mine = [r for r in torches if r.kind == kind]
        if not mine:
            continue
        axes = {axis: sorted({dict(r.combination)[axis] for r in mine}, key=_sort_key(knowledge, axis))
                for axis in KIND_AXES[kind]}
        section: dict = dict(axes)
        restrict, exclude, impossible = _rules(knowledge, kind, axes, {r.combination for r in mine})
        for combination in sorted(impossible):
            warnings.append(f"{kind} {expand.combination_text(combination)}: the knowledge table rules it out "
                            f"({knowledge.why_not(dict(combination))}); `gen-matrix explain` says more")
        if restrict:
            section["restrict"] = restrict
        if exclude:
            section["exclude"] = exclude
        matrix[kind] = section

    companions = [r for r in recipes if r.package in COMPANIONS]
    if companions:
        matrix["companions"] = _companions(companions, facts, knowledge, warnings)
    return matrix, warnings


def _pins(torches, facts, revs, knowledge, warnings) -> list[dict]:
    """Pins in order, each but the last with the `when` rule that picks its recipes."""
    by_rev = {rev: {r.name for r in torches if r.rev == rev} for rev in revs}
    keys = ("cuda", "kind", "python", "sm", "isa", "accelerator")
    ordered = sorted(revs, key=lambda rev: (-revs[rev], rev))  # the most used first

    def rules_beside(default: str) -> dict:
        return {rev: _selector(by_rev[rev], facts, keys) for rev in ordered if rev != default}

    # the most used revision whose recipes leave every other one a rule; else the most used
    default = next((rev for rev in ordered if all(rules_beside(rev).values())), ordered[0])
    rules = rules_beside(default)
    pins = []
    for rev, rule in rules.items():
        if rule is None:
            warnings.append(f"no rule over the axes picks exactly the recipes of nixpkgs {rev[:7]}; they take the default pin")
            continue
        pins.append({"name": f"nixpkgs_{rev[:7]}", "rev": rev, "when": _plain_rule(rule, knowledge)})
    pins.append({"name": f"nixpkgs_{default[:7]}", "rev": default})
    shas = {rev: {r.tarball_sha256 for r in torches if r.rev == rev} for rev in revs}
    for pin in pins:
        if len(shas[pin["rev"]]) == 1 and None not in shas[pin["rev"]]:
            pin["sha256"] = next(iter(shas[pin["rev"]]))
        config = _shared_config([r for r in torches if r.rev == pin["rev"]])
        if config:
            pin["config"] = config
    return pins


def _shared_config(recipes) -> dict:
    """The nixpkgs config every one of the recipes sets alike: a pin's config is all its variants'."""
    shared = set.intersection(*(set(r.config) for r in recipes)) if recipes else set()
    return {key: list(value) if isinstance(value, tuple) else value for key, value in sorted(shared)}


def _companions(companions, facts, knowledge, warnings) -> list[dict]:
    packages: dict[str, set] = {}
    for c in companions:
        packages.setdefault(c.torch, set()).add(c.package)
    groups: dict[tuple, set] = {}
    for torch, made in packages.items():
        groups.setdefault(tuple(p for p in COMPANIONS if p in made), set()).add(torch)
    keys = ("kind", "python", "cuda", "sm", "isa", "accelerator")
    rules = []
    for made, torches in sorted(groups.items()):
        if torches == {f["name"] for f in facts}:
            rules.append({"packages": list(made), "when": "all"})
            continue
        rule = _selector(torches, facts, keys)
        if rule is not None:
            rules.append({"packages": list(made), "when": _plain_rule(rule, knowledge)})
            continue
        for torch in sorted(torches):  # one rule per torch variant: always exact
            fact = next((f for f in facts if f["name"] == torch), None)
            if fact is None:
                warnings.append(f"{', '.join(made)} of {torch}: no such torch recipe")
                continue
            when = {k: fact[k] for k in keys if k in fact and k != "kind"}
            if any(f["name"] != torch and _matches({k: {v} for k, v in when.items()}, f) for f in facts):
                when = {"kind": fact["kind"], **when}  # a CPU torch's axes are also a GPU one's
            rules.append({"packages": list(made), "when": when})
    return rules


