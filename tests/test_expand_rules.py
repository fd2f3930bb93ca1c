"""Expansion with several restrict and exclude rules that overlap: a variant is kept exactly
when no rule drops it, each drop is told by the first rule that makes it, and only an exclude
that drops nothing of its own is warned of, whatever the others drop."""

from __future__ import annotations

import itertools

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.errors import GenMatrixError
from generator.pipeline import expand, load, validate

BASE = 'pytorch: {version: "2.8.0"}\nnixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}\n'
AXES = {"python": ["3.11", "3.12", "3.13"], "isa": ["avx2", "avx512", "avx512bf16", "avx512vnni"]}
VALUES = st.fixed_dictionaries({}, optional={axis: st.lists(st.sampled_from(values), min_size=1, max_size=2,
                                                            unique=True) for axis, values in AXES.items()})
EXCLUDE = VALUES.filter(bool)
OTHER = {"python": "isa", "isa": "python"}
RESTRICT = st.sampled_from(sorted(AXES)).flatmap(
    lambda axis: st.tuples(st.just(axis), st.sampled_from(AXES[axis]),
                           st.lists(st.sampled_from(AXES[OTHER[axis]]), min_size=1, max_size=3, unique=True)))


def matches(rule: dict, combination: dict) -> bool:
    return all(combination[axis] in values for axis, values in rule.items())


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(st.lists(EXCLUDE, min_size=2, max_size=4), st.lists(RESTRICT, max_size=2))
def test_overlapping_excludes_and_restricts_keep_exactly_what_no_rule_drops(excludes, restricts):
    restrict = [{"when": {axis: [value]}, "only": {OTHER[axis]: only}} for axis, value, only in restricts]
    section = {"cpu": {**AXES, "exclude": [{a: v[0] if len(v) == 1 else v for a, v in rule.items()}
                                           for rule in excludes]}}
    if restrict:
        section["cpu"]["restrict"] = restrict
    kept, left_by_restrict = set(), []
    for values in itertools.product(*AXES.values()):
        combination = dict(zip(AXES, values))
        if any(matches(r["when"], combination) and not matches(r["only"], combination) for r in restrict):
            continue
        left_by_restrict.append(combination)
        if not any(matches(rule, combination) for rule in excludes):
            kept.add(f"pytorch-python{values[0].replace('.', '')}-cpu-{values[1]}")
    try:
        result = expand.expand(validate.validate(load.parse(BASE + yaml.safe_dump(section), "matrix.yaml")))
    except GenMatrixError as error:  # where every combination is dropped, a located error says so
        assert not kept and "the matrix expands to no variant" in str(error)
        return
    assert {v.name for v in result.variants} == kept
    # an exclude is warned of when it matches nothing the restricts leave, though an earlier
    # exclude drops the same variants
    warned = [w for w in result.warnings if "matches no variant" in w.message]
    idle = [rule for rule in excludes if not any(matches(rule, c) for c in left_by_restrict)]
    assert len(warned) == len(idle)
    for drop in result.dropped:  # told by the first exclude that matches it
        combination = dict(drop.combination)
        first = next((i for i, rule in enumerate(excludes) if matches(rule, combination)), None)
        if drop.reason.startswith("excluded: "):
            assert first is not None
            assert drop.reason == "excluded: " + ", ".join(
                f"{axis} {'/'.join(values)}" for axis, values in
                sorted(excludes[first].items(), key=lambda item: list(AXES).index(item[0])))
