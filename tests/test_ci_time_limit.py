"""`gen-matrix ci --by derivations --time-limit`, as the generated workflow's plan job runs it:
what is not evaluated in the time allowed is compared by its text identity, each variant for
itself, and the plan says which."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.commands import ci as ci_
from generator.commands import eval as eval_command

from conftest import REPO, expansion_of, needs_nix
from test_rebuild_two_pins import MATRIX, committed

SHIPPED = expansion_of(REPO)


def test_a_time_limit_without_selection_by_derivations_is_refused(project, run):
    for by in ((), ("--by", "text")):
        result = run("ci", "--root", project, "--time-limit", "5", *by)
        assert result.exit_code == 2 and "--time-limit bounds the evaluation of --by derivations" in result.output


def test_the_workflow_gives_a_time_limit_the_command_line_takes(tmp_path, run):
    """The plan job calls `gen-matrix ci ... --time-limit "$EVALUATION_MINUTES"`: a number of minutes."""
    (tmp_path / "matrix.yaml").write_text(MATRIX)
    assert run("--root", tmp_path).exit_code == 0
    text = (tmp_path / ".github/workflows/flox-variants.yml").read_text()
    plan = next(job for job in yaml.safe_load(text)["jobs"].values()
                if any("--time-limit" in step.get("run", "") for step in job["steps"]))
    minutes = next(step["env"]["EVALUATION_MINUTES"] for step in plan["steps"] if "--time-limit" in step.get("run", ""))
    assert 0 < float(minutes) < plan["timeout-minutes"]  # it stops before the job's own limit does
    assert '--by derivations --time-limit "$EVALUATION_MINUTES"' in text


@pytest.fixture
def edited(tmp_path, run) -> Path:
    """The two-pin matrix committed, then edited: a metadata edit to the sm75 variants and a
    build edit to the sm90 ones (their pin's config)."""
    root = committed(tmp_path, run)
    text = MATRIX.replace("    - {name: older, ", "    - {name: older, config: {cudaForwardCompat: false}, ")
    text += "knowledge:\n  sm:\n    sm75:\n      gpus: [Tesla T4, GeForce RTX 2080 Ti]\n"
    (root / "matrix.yaml").write_text(text)
    result = run("--root", root)
    assert result.exit_code == 0, result.output
    return root


@needs_nix
@pytest.mark.slow
def test_with_no_time_left_each_variant_is_compared_by_its_text_identity_and_the_plan_names_them(edited, run,
                                                                                                 tmp_path):
    by_text = run("ci", "--root", edited, "--changed-since", "HEAD")
    assert by_text.exit_code == 0, by_text.output
    result = run("ci", "--root", edited, "--changed-since", "HEAD", "--by", "derivations", "--time-limit", "1e-9",
                 "--plan", tmp_path / "plan")
    assert result.exit_code == 0, result.output
    every = sorted(v.name for v in expansion_of(edited).variants)
    found = json.loads((tmp_path / "plan" / "plan.json").read_text())
    assert found["selected_by"] == "derivations" and found["out_of_time"] == found["by_text"] == every
    # exactly what the text identities select: the sm90 builds whole, the sm75 wrappers alone
    text_jobs = json.loads(by_text.stdout)["include"]
    assert found["shards"] == [text_jobs]
    builds = {entry["name"]: entry["metadata_only"] for entry in found["builds"]}
    assert {name for name, wrapper in builds.items() if wrapper} == {n for n in every if "-sm75-" in n}
    assert {name for name, wrapper in builds.items() if not wrapper} == {n for n in every if "-sm90-" in n}
    summary = (tmp_path / "plan" / "summary.md").read_text()
    assert f"**The time allowed for evaluation ran out (`--time-limit`):** {len(every)} recipe(s)" in summary
    assert found["not_evaluated"] == [] and (tmp_path / "plan" / "eval-errors.txt").read_text() == ""


# --- each variant for itself ------------------------------------------------------------

NAMES = sorted(SHIPPED.by_name)[:12]
# What a recipe evaluated to, at the revision or now: the same derivations, another heavy
# build, another wrapper alone, an error, or nothing in the time allowed; None: no recipe.
OUTCOMES = ("same", "heavy", "wrapper", "error", "out of time", None)


def result(name: str, outcome: str) -> eval_command.Result:
    kind = eval_command.kind_of(SHIPPED.by_name[name])
    if outcome in ("error", "out of time"):
        return eval_command.Result(name, kind, None, None,
                                   eval_command.OUT_OF_TIME if outcome == "out of time" else "boom")
    return eval_command.Result(name, kind, f"/nix/store/{'w' if outcome == 'wrapper' else 's'}-{name}.drv",
                               f"/nix/store/{'h' if outcome == 'heavy' else 's'}-{name}.drv", None)


STATE = st.tuples(st.booleans(), st.sampled_from(OUTCOMES[:5]), st.sampled_from(OUTCOMES),
                  st.sampled_from((None, ci_.BUILD, ci_.WRAPPER)))


def decide(states: dict) -> tuple[dict, tuple]:
    before, now_drvs, before_drvs, by_text = {}, {}, {}, {}
    for name, (in_state, now, then, text) in states.items():
        if in_state:
            before[name] = None
        now_drvs[name] = result(name, now)
        if then is not None:
            before_drvs[name] = result(name, "same" if then in ("heavy", "wrapper") else then)
        if text is not None:
            by_text[name] = text
    return ci_.changes_by_derivations(SHIPPED, by_text, before, now_drvs, before_drvs)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.sampled_from(NAMES), STATE, min_size=2, max_size=len(NAMES)))
def test_each_variant_is_decided_by_its_own_derivations_or_its_own_text_identity(states):
    """With several variants, each out of time, failing or changed in its own way, every
    variant gets what it gets alone: none's fallback to its text identity reaches another."""
    changes, fallback = decide(states)
    for name, state in states.items():
        alone_changes, alone_fallback = decide({name: state})
        assert changes.get(name) == alone_changes.get(name), name
        assert (name in fallback) == (name in alone_fallback), name
    for name, (in_state, now, then, text) in states.items():
        if in_state and now == "out of time":  # not evaluated now: by text, whatever the revision gave
            assert name in fallback and changes.get(name) == text
        if in_state and now in ("same", "heavy", "wrapper") and then in ("same", "heavy", "wrapper"):
            assert name not in fallback
            assert changes.get(name) == {"same": None, "heavy": ci_.BUILD, "wrapper": ci_.WRAPPER}[now]
