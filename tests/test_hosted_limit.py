"""The plan's warning of jobs that may pass GitHub's 6 hours on a GitHub-hosted runner, which
stops them there: each job's estimate (its torch and companions, measured or guessed) against
the limit, on hosted runners only."""

from __future__ import annotations

from conftest import expansion_of
from test_measured import measurement, plan, repo, write  # noqa: F401  (repo: the module's fixture)

HOUR = 3600


def test_a_job_estimated_past_6_hours_on_a_hosted_runner_is_named_with_the_way_out(repo, tmp_path, run):
    variants = expansion_of(repo).variants
    cpus = sorted(v.name for v in variants if v.kind == "cpu" and not v.is_companion)
    gpu = next(v.name for v in variants if v.kind == "gpu" and not v.is_companion)
    folder = tmp_path / "measured"
    write(folder / "a" / "long.json", measurement(cpus[0], 7 * HOUR))  # on ubuntu-latest: past the limit
    write(folder / "b" / "short.json", measurement(cpus[1], 5 * HOUR))  # within it
    write(folder / "c" / "gpu.json", measurement(gpu, 10 * HOUR))  # self-hosted: no limit of GitHub's
    found = plan(run, repo, tmp_path, "--measured", folder)
    limit = found["plan"]["past_hosted_limit"]
    assert [job["job"] for job in limit] == [cpus[0]]
    assert limit[0]["estimated_minutes"] == 7 * 60 and "self-hosted" not in limit[0]["runner"]
    summary = found["summary"]
    assert "**1 job(s) may pass GitHub's 6 hours on a GitHub-hosted runner" in summary
    assert "a larger runner label" in summary and "fewer SMs per build" in summary
    assert f"- `{cpus[0]}` on " in summary and "about 7.0 hours" in summary
    assert cpus[1] not in summary.split("may pass GitHub's")[1].split("\n\n")[1]


def test_no_job_past_the_limit_no_warning(repo, tmp_path, run):
    found = plan(run, repo, tmp_path)
    assert found["plan"]["past_hosted_limit"] == [] and "may pass GitHub's" not in found["summary"]
