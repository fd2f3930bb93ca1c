"""The plan's warning of jobs that may run past their time limit: each job's estimate (its
torch and companions, measured or guessed) against the limit its runner gives it, the build
jobs' timeout-minutes (ci.timeout_minutes) and on a GitHub-hosted runner at most GitHub's 6
hours. A job whose heavy builds go to a remote builder waits for them on its runner, under the
same limit (docs/ci.md, "Nix remote builders")."""

from __future__ import annotations

from pathlib import Path

from generator.commands import ci as ci_
from generator.commands import measured as measured_

from conftest import expansion_of

# Three GPU torches (the sm90 one with two companions) and two CPU torches, all x86_64-linux:
# the CPU ones on ubuntu-latest (GitHub-hosted), the GPU ones on the runner `ci` gives.
MATRIX = """\
pytorch: {version: "2.8.0"}
nixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}
build: {system_features: [big-parallel]}
gpu:
  python: ["3.13"]
  cuda: ["12.8"]
  sm: [sm75, sm80, sm90]
  isa: [avx2]
cpu:
  python: ["3.12", "3.13"]
  isa: [avx2]
companions:
  - {packages: [torchvision, torchaudio], when: {sm: [sm90]}}
ci:
"""
GPU = {sm: f"pytorch-python313-cuda12_8-{sm}-avx2" for sm in ("sm75", "sm80", "sm90")}
CPU = {python: f"pytorch-python{python}-cpu-avx2" for python in ("312", "313")}
BUILDER = ("  builders:\n"
           "    - {url: 'ssh-ng://nix@big.example.org', systems: [x86_64-linux], features: [big-parallel],\n"
           "       ssh_key_secret: BIG_KEY, known_hosts_secret: BIG_HOST}\n")


def expansion(tmp_path: Path, ci: str):
    (tmp_path / "matrix.yaml").write_text(MATRIX + ci, encoding="utf-8")
    return expansion_of(tmp_path)


def measured(minutes: dict[str, float]) -> dict:
    return {(name, measured_.FULL): measured_.Measurement(name, measured_.FULL, value * 60, 32, None, None, "m.json")
            for name, value in minutes.items()}


def warned(found: ci_.Plan) -> dict:
    return {job.name: (job.minutes, job.limit, job.builder, job.estimated_from) for job in found.too_long}


def plan_of(expansion, measurements: dict):
    every = {variant.name: ci_.EVERY_VARIANT for variant in expansion.variants}
    selection = ci_.select(expansion, every)
    return (ci_.plan(expansion, selection, None, measurements),
            ci_.summary(expansion, selection, None, None, measurements),
            ci_.plan_json(expansion, selection, 256, None, None, measurements))


def test_on_hosted_runners_a_job_past_6_hours_is_named_measured_or_partly_and_one_at_the_limit_is_not(tmp_path):
    """GPU jobs on a hosted larger runner: sm75 measured at 7 hours, sm90's torch at 5.5 (with
    its two companions guessed at 30 minutes each: 6.5 hours), sm80 unmeasured, so the mean of
    its kind's, 6.25 hours; the CPU jobs guessed at an hour; exactly 6 hours is within."""
    found, summary, document = plan_of(
        expansion(tmp_path, "  kind_runners: {gpu: {x86_64-linux: [linux-64-cores]}}\n"),
        measured({GPU["sm75"]: 420, GPU["sm90"]: 330, CPU["312"]: 360}))
    assert warned(found) == {
        GPU["sm75"]: (420, 360, None, "from measurements"),
        GPU["sm80"]: (375, 360, None, "from measurements"),
        GPU["sm90"]: (390, 360, None, "1 of 3 builds from measurements, the rest guessed"),
    }
    assert [job.name for job in found.too_long] == [GPU["sm75"], GPU["sm90"], GPU["sm80"]]  # longest first
    assert "**3 job(s) may run past their time limit" in summary
    assert (f"- `{GPU['sm75']}` on linux-64-cores: about 7.0 hours (from measurements), limit 6.0 hours" in summary)
    assert (f"- `{GPU['sm90']}` on linux-64-cores: about 6.5 hours "
            "(1 of 3 builds from measurements, the rest guessed), "
            "limit 6.0 hours" in summary)
    for way_out in ("- a larger runner label (ci.kind_runners or ci.runners)", "- ci.builders: a Nix remote builder",
                    "fewer SMs per build"):
        assert way_out in summary
    assert "a higher ci.timeout_minutes" not in summary  # 360 on a hosted runner: raising it gives nothing
    assert CPU["312"] not in summary.split("may run past")[1].split("The ways out")[0]  # 6 hours: within
    assert document["past_time_limit"][0] == {
        "job": GPU["sm75"], "runner": ["linux-64-cores"], "builder": None, "estimated_minutes": 420,
        "limit_minutes": 360, "estimated_from": {"measured": 1, "guessed": 0}}


def test_the_limit_is_ci_timeout_minutes_where_lower_and_a_self_hosted_runner_may_run_longer(tmp_path):
    """timeout_minutes 100: the CPU jobs (hosted, guessed at an hour) are within it, every GPU
    job (self-hosted, guessed at 3 hours) past it. timeout_minutes 600: the GPU jobs are within
    it, and a CPU job measured at 7 hours still passes GitHub's 6 (the other, at 5, does not)."""
    found, summary, document = plan_of(expansion(tmp_path, "  timeout_minutes: 100\n"), {})
    assert warned(found) == {
        GPU["sm75"]: (180, 100, None, "guessed from knowledge.build_costs"),
        GPU["sm80"]: (180, 100, None, "guessed from knowledge.build_costs"),
        GPU["sm90"]: (240, 100, None, "guessed from knowledge.build_costs"),
    }
    assert "timeout-minutes (ci.timeout_minutes: 100)" in summary
    assert "- a higher ci.timeout_minutes, for a job whose limit it is;" in summary
    assert "on self-hosted, linux, x64, pytorch-builder: about 3.0 hours (guessed from knowledge.build_costs), " \
           "limit 1.7 hours" in summary
    assert [(job["job"], job["estimated_from"]) for job in document["past_time_limit"]] == [
        (GPU["sm90"], {"measured": 0, "guessed": 3}), (GPU["sm75"], {"measured": 0, "guessed": 1}),
        (GPU["sm80"], {"measured": 0, "guessed": 1})]

    longer = tmp_path / "longer"
    longer.mkdir()
    found, summary, _ = plan_of(expansion(longer, "  timeout_minutes: 600\n"),
                                measured({CPU["313"]: 420, CPU["312"]: 300}))
    assert warned(found) == {CPU["313"]: (420, 360, None, "from measurements")}
    assert "a higher ci.timeout_minutes" not in summary  # GitHub's 6 hours: raising it gives nothing

    # a self-hosted job past 600 minutes: up to 5 days, raising ci.timeout_minutes helps
    past = tmp_path / "past"
    past.mkdir()
    found, summary, _ = plan_of(expansion(past, "  timeout_minutes: 600\n"), measured({GPU["sm75"]: 700}))
    assert warned(found) == {GPU["sm75"]: (700, 600, None, "from measurements"),
                             GPU["sm80"]: (700, 600, None, "from measurements"),
                             GPU["sm90"]: (760, 600, None, "1 of 3 builds from measurements, the rest guessed")}
    assert "- a higher ci.timeout_minutes, for a job whose limit it is;" in summary


def test_a_job_on_a_remote_builder_keeps_its_runners_limit_and_the_warning_names_the_builder(tmp_path):
    """With ci.builders every x86_64-linux job sends its heavy builds to the builder; the job
    still waits for them on its runner: the CPU job measured at 7 hours passes the hosted
    runner's 6, the GPU jobs (self-hosted, 3 hours guessed) are within the 360 minutes."""
    found, summary, document = plan_of(expansion(tmp_path, BUILDER), measured({CPU["312"]: 420, CPU["313"]: 300}))
    builder = "ssh-ng://nix@big.example.org"
    assert warned(found) == {CPU["312"]: (420, 360, builder, "from measurements")}
    assert (f"- `{CPU['312']}` on ubuntu-latest, heavy builds on {builder}: about 7.0 hours (from measurements)"
            in summary)
    assert document["past_time_limit"][0]["builder"] == builder


def test_no_job_past_its_limit_no_warning(tmp_path):
    found, summary, document = plan_of(expansion(tmp_path, "  timeout_minutes: 300\n"), measured({CPU["312"]: 299}))
    assert found.too_long == () and document["past_time_limit"] == []
    assert "may run past" not in summary and "The ways out" not in summary
