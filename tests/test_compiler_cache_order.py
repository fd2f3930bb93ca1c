"""With build.compiler_cache, `gen-matrix ci` runs the builds that compile the same CPU-side
objects one after another on their runner, so that each finds the objects of the one before
in the cache: checked over any selection of a matrix of two pins whose SMs interleave, several
Pythons and ISAs, on two runners, and split in shards of any size."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from generator.commands import ci as ci_
from generator.pipeline import expand, load, validate

MATRIX = """\
pytorch: {version: "2.9.1"}
nixpkgs:
  pins:
    - {name: older, rev: 6a030d535719c5190187c4cec156f335e95e3211, when: {sm: [sm75, sm86]}}
    - {name: newer, rev: 0182a361324364ae3f436a63005877674cf45efb}
build: {compiler_cache: ccache, compiler_cache_runners: dedicated}
gpu:
  python: ["3.12", "3.13"]
  cuda: ["12.8"]
  sm: [sm75, sm80, sm86, sm90]
  isa: [avx2, avx512]
cpu:
  python: ["3.12", "3.13"]
  isa: [avx2, avx512]
companions:
  - packages: [torchvision]
    when: {isa: avx2}
ci:
  gpu_runners: [{labels: [h100], system: x86_64-linux, sm: [sm90]}]
"""


def expansion_of(text: str):
    return expand.expand(validate.validate(load.parse(text, "matrix.yaml")))


CACHED = expansion_of(MATRIX)
UNCACHED = expansion_of(MATRIX.replace("build: {compiler_cache: ccache, compiler_cache_runners: dedicated}\n", ""))
NAMES = sorted(CACHED.by_name)


def shares(variant) -> tuple:
    """What a torch's CPU-side objects are compiled from, beside the source: its kind, pin,
    Python, CUDA release and CPU flags (all but the SM)."""
    return (variant.kind, variant.pin, variant.python.name, variant.cuda.name if variant.cuda else None,
            variant.isa.flags if variant.isa else None)


@settings(max_examples=60, deadline=None)
@given(st.sets(st.sampled_from(NAMES), min_size=2), st.integers(1, 8))
def test_builds_sharing_cpu_side_objects_run_one_after_another_on_their_runner(changed, size):
    changes = dict.fromkeys(changed, ci_.BUILD)
    selection = ci_.select(CACHED, changes)
    assert sorted(name for job in selection.jobs for name in job.builds) == sorted(changed)
    by_runner: dict[tuple, list] = {}
    for shard in selection.shards(size):  # in order: a runner's shards run its jobs in this order
        by_runner.setdefault((shard[0].runner, shard[0].gpu), []).extend(shard)
    for jobs in by_runner.values():
        keys = [shares(CACHED.by_name[job.name]) for job in jobs]
        for index, key in enumerate(keys):  # once a key is left, it never comes back
            assert key not in keys[:index] or keys[index - 1] == key, [job.name for job in jobs]
    # without the cache, by name as before
    plain = ci_.select(UNCACHED, changes)
    assert [job.name for job in plain.jobs] == sorted(job.name for job in plain.jobs)
    assert {job.name: job.builds for job in plain.jobs} == {job.name: job.builds for job in selection.jobs}


def test_the_matrix_has_torches_that_share_across_sms_and_pins_that_interleave():
    torches = [v for v in CACHED.variants if not v.is_companion and v.kind == "gpu"]
    by_key: dict[tuple, list[str]] = {}
    for variant in torches:
        by_key.setdefault(shares(variant), []).append(variant.sm.name)
    assert all(len(sms) == 2 for sms in by_key.values()) and len(by_key) == 8
    assert {v.sm.name: v.pin for v in torches} == {"sm75": "older", "sm80": "newer", "sm86": "older", "sm90": "newer"}


def test_the_plan_takes_the_cached_percent_off_each_guessed_torch_build_of_a_group_but_its_first():
    """The estimate with the cache: every guessed torch build of a compiler cache group after the
    first built on it costs (1 - cached_percent) of a build; a measured build keeps its own
    minutes; companions and CPU-only builds of groups of one are not lowered."""
    from generator.commands import measured as measured_

    torches = [v for v in CACHED.variants if not v.is_companion]
    selection = ci_.select(CACHED, dict.fromkeys((v.name for v in CACHED.variants), ci_.BUILD))
    costs = CACHED.matrix.knowledge.build_costs
    share = costs["gpu"].cached_percent / 100
    assert 0 < share < 1 and "BENCHMARKS.md" in costs["gpu"].cached_source
    groups: dict[str, int] = {}
    for variant in torches:
        groups[variant.compiler_cache_group] = groups.get(variant.compiler_cache_group, 0) + 1
    gpu_groups = {v.compiler_cache_group for v in torches if v.kind == "gpu"}
    later = sum(groups[group] - 1 for group in gpu_groups)
    assert len(gpu_groups) >= 4 and later >= 8  # two pins, two Pythons, two ISAs; several SMs each
    assert all(groups[v.compiler_cache_group] == 1 for v in torches if v.kind == "cpu")
    found = ci_.plan(CACHED, selection)
    assert found.cached_builds == later
    assert found.minutes_cached == round(found.minutes - later * costs["gpu"].minutes * share)
    text = ci_.summary(CACHED, selection)
    assert f"{later} guessed torch build(s) after the first of their group" in text
    assert f"{round(share * 100)} %" in text
    # without the cache there is no such figure, and the estimate is the same
    plain = ci_.plan(UNCACHED, ci_.select(UNCACHED, dict.fromkeys((v.name for v in UNCACHED.variants), ci_.BUILD)))
    assert (plain.minutes_cached, plain.cached_builds, plain.minutes) == (None, 0, found.minutes)
    assert "compiler\ncache group" not in ci_.summary(UNCACHED, ci_.select(UNCACHED, dict.fromkeys(
        (v.name for v in UNCACHED.variants), ci_.BUILD)))
    # two builds of one group measured: every build of their kind is then estimated from
    # measurements (which ran with the cache as it was), so none is lowered again
    group = sorted(gpu_groups)[0]
    members = [v for v in torches if v.compiler_cache_group == group]
    measured = {(v.name, measured_.FULL): measured_.Measurement(v.name, measured_.FULL, 600.0, 32, None, None, "m.json")
                for v in members[:2]}
    with_measured = ci_.plan(CACHED, selection, measured=measured)
    assert with_measured.estimated_from[ci_.GUESSED] < found.estimated_from[ci_.GUESSED]
    assert (with_measured.cached_builds, with_measured.minutes_cached) == (0, with_measured.minutes)
