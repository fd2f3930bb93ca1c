"""The generated workflow's scripts, run: what a pull request, a push, a push after a
cancelled run and a manual dispatch build and publish, and where the published marker goes.

tests/workflow_harness.py runs the `run:` scripts of the generated workflow with bash in
clones of a local origin repository, with stub `flox` and `nix` and the real gen-matrix.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest
import yaml

from conftest import SYNTHETIC, needs_nix, wrapped_package_set
from workflow_harness import Harness, Run

pytestmark = [pytest.mark.skipif(shutil.which("git") is None or shutil.which("bash") is None,
                                 reason="the workflow's scripts need git and bash"), needs_nix]

MARKER = "gen-matrix-published"
PINNED = "github:acme/gen-matrix/" + "0123456789abcdef" * 2 + "01234567"
LOCK = ".flox/env/manifest.lock"
# Three CUDA torches, one CPU torch, and two companions of the sm75 torch.
MATRIX = """\
pytorch: {version: "2.8.0"}
nixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}
gpu:
  python: ["3.13"]
  cuda: ["12.8"]
  sm: [sm75, sm86, sm90]
  isa: [avx2]
cpu:
  python: ["3.13"]
  isa: [avx2]
companions:
  - packages: [torchvision, torchaudio]
    when: {sm: sm75}
"""
SM75 = ["pytorch-python313-cuda12_8-sm75-avx2", "torchaudio-python313-cuda12_8-sm75-avx2",
        "torchvision-python313-cuda12_8-sm75-avx2"]
SM86 = ["pytorch-python313-cuda12_8-sm86-avx2"]
SM90 = ["pytorch-python313-cuda12_8-sm90-avx2"]
CPU = ["pytorch-python313-cpu-avx2"]


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout.strip()


class Project:
    """A working copy that pushes to a bare origin, as a developer's clone does."""

    def __init__(self, tmp_path: Path, run, matrix: str = MATRIX):
        self.run = run
        self.origin = tmp_path / "origin.git"
        self.work = tmp_path / "work"
        git(tmp_path, "init", "-q", "--bare", "-b", "main", str(self.origin))
        git(tmp_path, "init", "-q", "-b", "main", str(self.work))
        for key, value in (("user.name", "Dev"), ("user.email", "dev@example.invalid")):
            git(self.work, "config", key, value)
        git(self.work, "remote", "add", "origin", str(self.origin))
        data = yaml.safe_load(matrix)
        data.setdefault("ci", {}).setdefault("gen_matrix", PINNED)  # as `gen-matrix init` writes it
        (self.work / "matrix.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
        self.generate()
        self.harness = Harness(tmp_path / "ci", self.origin)
        self.harness.lock(self.work)  # `flox activate`, as `gen-matrix init` tells the user to

    def generate(self) -> None:
        result = self.run("--root", self.work)
        assert result.exit_code == 0, result.output

    def commit(self, message: str, change=None, branch: str = "main") -> str:
        """Change the matrix's data (a function of it), regenerate, commit and push."""
        if change is not None:
            path = self.work / "matrix.yaml"
            data = yaml.safe_load(path.read_text())
            change(data)
            path.write_text(yaml.safe_dump(data, sort_keys=False))
            self.generate()
        git(self.work, "add", "-A")
        git(self.work, "commit", "-q", "--allow-empty", "-m", message)
        git(self.work, "push", "-q", "origin", f"HEAD:refs/heads/{branch}")
        return git(self.work, "rev-parse", "HEAD")


def sm_build(sm: str, cudnn: bool):
    """A change to an SM's build: its torch (and companions) must be rebuilt."""
    return lambda data: data.setdefault("knowledge", {}).setdefault("sm", {}).setdefault(sm, {}).update(cudnn=cudnn)


def sm_gpus(sm: str, gpus: list[str]):
    """A change to an SM's metadata alone: only the wrappers are rebuilt."""
    return lambda data: data.setdefault("knowledge", {}).setdefault("sm", {}).setdefault(sm, {}).update(gpus=gpus)


def assert_each_torch_built_once(run: Run) -> None:
    """No build twice in a run, and a companion only in its torch's job, after that torch."""
    counts = Counter(run.builds())
    assert all(count == 1 for count in counts.values()), counts
    built_in: dict[str, list[str]] = {}  # job -> builds, in order
    for line in run.log:
        found = re.fullmatch(r"(build \[\S+\] / build \[\S+\]): flox build (\S+)", line)
        if found:
            built_in.setdefault(found[1], []).append(found[2])
    assert sum(map(len, built_in.values())) == len(run.builds())
    jobs = {re.sub(r"^torch(vision|audio)-", "pytorch-", builds[0]) for builds in built_in.values()}
    assert len(jobs) == len(built_in), "two jobs of one torch"
    for job, builds in built_in.items():
        torch = re.sub(r"^torch(vision|audio)-", "pytorch-", builds[0])
        for position, name in enumerate(builds):
            assert re.sub(r"^torch(vision|audio)-", "pytorch-", name) == torch, f"{name} built in the job of {torch}"
            if name != torch and torch in builds:
                assert builds.index(torch) < position, f"{name} built before its torch"


@pytest.fixture
def project(tmp_path, run) -> Project:
    made = Project(tmp_path, run)
    first = made.commit("The matrix")
    done = made.harness.run("push", first)
    assert done.results["mark-published"] == "success", "\n".join(done.log)
    assert made.harness.tag(MARKER) == first
    assert made.harness.published() == sorted(CPU + SM75 + SM86 + SM90)
    return made


def test_a_pull_request_builds_what_it_changes_and_publishes_nothing(project):
    before = project.harness.published()
    git(project.work, "checkout", "-q", "-b", "feature")
    head = project.commit("Pascal-free cuDNN for sm86", sm_build("sm86", False), branch="feature")
    run = project.harness.run("pull_request", head, base_ref="main")
    assert sorted(run.builds()) == SM86
    assert run.publishes() == [] and project.harness.published() == before
    assert run.results["mark-published"] == "skipped"
    assert project.harness.tag(MARKER) != head


def test_a_push_publishes_what_changed_and_moves_the_marker(project):
    head = project.commit("sm90 without cuDNN", sm_build("sm90", False))
    run = project.harness.run("push", head)
    assert sorted(run.builds()) == SM90 and sorted(run.publishes()) == SM90
    assert_each_torch_built_once(run)
    assert project.harness.tag(MARKER) == head
    assert "Compared with the last successful publish" in run.summary
    assert "| torch, gpu | 1 |" in run.summary and "estimate" in run.summary


def test_a_push_after_a_cancelled_run_publishes_what_that_run_missed(project):
    published = project.harness.tag(MARKER)
    missed = project.commit("sm90 without cuDNN, sm86's GPUs", lambda data: (sm_build("sm90", False)(data),
                                                                          sm_gpus("sm86", ["RTX 3090"])(data)))
    cancelled = project.harness.run("push", missed, cancel_after=1)
    assert cancelled.results["mark-published"] == "skipped"
    assert project.harness.tag(MARKER) == published  # not moved: one publish never ran
    head = project.commit("sm75 without cuDNN", sm_build("sm75", False))
    run = project.harness.run("push", head)
    # changed since the last successful publish: the missed run's two variants and this push's group
    assert sorted(set(run.publishes())) == sorted(SM75 + SM86 + SM90)
    assert_each_torch_built_once(run)
    assert "pytorch-python313-cuda12_8-sm86-avx2" in run.summary.split("wrapper only |")[-1]  # metadata only
    assert project.harness.tag(MARKER) == head
    print("\n".join(cancelled.log + run.log))


def test_a_manual_dispatch_with_changed_since_publishes_that_range_and_leaves_the_marker(project):
    published = project.harness.tag(MARKER)
    first = project.commit("sm90 without cuDNN", sm_build("sm90", False))
    head = project.commit("sm75 without cuDNN", sm_build("sm75", False))
    run = project.harness.run("workflow_dispatch", head, inputs={"changed-since": first})
    assert sorted(run.publishes()) == SM75
    assert_each_torch_built_once(run)
    assert project.harness.tag(MARKER) == published  # sm90 is still unpublished
    later = project.harness.run("workflow_dispatch", head, inputs={"changed-since": ""})
    # sm75 again: Flox exits 0 for a build it already has, and that is a success
    assert sorted(set(later.publishes())) == sorted(SM75 + SM90)
    assert any("is already published for this revision" in line for line in later.log)
    assert later.results["build"] == "success"
    assert project.harness.tag(MARKER) == head


def test_a_dispatch_on_another_branch_builds_publishes_nothing_and_leaves_the_marker(project):
    published, before = project.harness.tag(MARKER), project.harness.published()
    git(project.work, "checkout", "-q", "-b", "trial")
    head = project.commit("sm90 without cuDNN", sm_build("sm90", False), branch="trial")
    run = project.harness.run("workflow_dispatch", head, ref="refs/heads/trial")
    assert sorted(run.builds()) == SM90 and sorted(run.smokes()) == SM90
    assert run.publishes() == [] and project.harness.published() == before  # only main publishes
    assert run.results["mark-published"] == "skipped" and project.harness.tag(MARKER) == published


def test_a_dispatch_on_another_branch_leaves_mains_run_alone(project):
    main = project.commit("sm90 without cuDNN", sm_build("sm90", False))
    git(project.work, "checkout", "-q", "-b", "trial")
    trial = project.commit("sm86 without cuDNN", sm_build("sm86", False), branch="trial")
    main_group, main_cancels = project.harness.concurrency("push", main)
    trial_group, trial_cancels = project.harness.concurrency("workflow_dispatch", trial, ref="refs/heads/trial")
    # different groups: the dispatch neither cancels main's run nor waits for it, nor main for it
    assert main_group != trial_group
    assert main_cancels is False and trial_cancels is False  # nor does a run of a branch cancel its own
    assert project.harness.concurrency("workflow_dispatch", main) == (main_group, False)  # main's dispatch waits
    first_pr, cancels = project.harness.concurrency("pull_request", trial, base_ref="main", ref="refs/pull/1/merge")
    assert cancels is True and first_pr != project.harness.concurrency(
        "pull_request", trial, base_ref="main", ref="refs/pull/2/merge")[0]
    # and main's run, after the dispatch ran, publishes what it changed and moves the marker
    project.harness.run("workflow_dispatch", trial, ref="refs/heads/trial")
    run = project.harness.run("push", main)
    assert sorted(run.publishes()) == SM90 and project.harness.tag(MARKER) == main


def assert_each_build_smoke_tested_then_published(run: Run) -> None:
    """Every build is smoke-tested, once, after it was built and before anything of its job is published."""
    assert sorted(run.smokes()) == sorted(run.builds())
    for job in {re.fullmatch(r"(build \[\S+\] / build \[\S+\]): .*", line)[1] for line in run.log
                if re.fullmatch(r"build \[\S+\] / build \[\S+\]: flox build \S+", line)}:
        calls = [line.split(": ", 1)[1] for line in run.log if line.startswith(job + ": ")]
        smoked = [index for index, call in enumerate(calls) if call.startswith("gen-matrix smoke ")]
        published = [index for index, call in enumerate(calls) if call.startswith("flox publish ")]
        built = [index for index, call in enumerate(calls) if call.startswith("flox build ")]
        assert smoked and max(built) < min(smoked)
        assert not published or max(smoked) < min(published)


def test_every_build_is_smoke_tested_before_it_is_published(project):
    head = project.commit("sm75 without cuDNN", sm_build("sm75", False))
    run = project.harness.run("push", head)
    assert sorted(run.publishes()) == SM75  # the torch and both companions
    assert_each_build_smoke_tested_then_published(run)
    smoke = next(call for call in run.calls if call.startswith("gen-matrix smoke torchvision-"))
    assert "--result result-torchvision-python313-cuda12_8-sm75-avx2" in smoke


def test_a_metadata_only_build_is_smoke_tested_before_it_is_published(project):
    head = project.commit("sm86's GPUs", sm_gpus("sm86", ["RTX 3090"]))
    run = project.harness.run("push", head)
    assert "pytorch-python313-cuda12_8-sm86-avx2" in run.summary.split("wrapper only |")[-1]
    assert "Selected by derivations" in run.summary  # the wrapper's drvPath changed, the build's did not
    assert run.publishes() == SM86 and run.smokes() == SM86
    assert_each_build_smoke_tested_then_published(run)


def test_a_metadata_only_job_fetches_its_heavy_build_from_the_catalog_and_compiles_nothing(project):
    head = project.commit("sm75's and sm86's GPUs", lambda data: (sm_gpus("sm75", ["T4"])(data),
                                                                  sm_gpus("sm86", ["RTX 3090"])(data)))
    run = project.harness.run("push", head)
    assert sorted(run.builds()) == sorted(SM75 + SM86)
    # each installed as published (its closure fetched from the catalog), then only the wrapper built
    for name in SM75 + SM86:
        assert f"flox install -d {name}" not in run.calls  # an environment of its own, outside the checkout
        assert any(call.startswith("flox install -d ") and call.endswith(f" acme/{name}") for call in run.calls)
    assert run.compiled() == [] and sorted(run.substituted()) == sorted(SM75 + SM86)
    assert sorted(run.publishes()) == sorted(SM75 + SM86)
    assert "fetch their unchanged heavy build from the Flox catalog of\nacme" in run.summary
    assert "| wrapper only | 4 |" in run.summary


def test_without_an_organisation_the_plan_counts_metadata_only_builds_as_full_and_they_compile(project):
    git(project.work, "checkout", "-q", "-b", "feature")
    head = project.commit("sm86's GPUs", sm_gpus("sm86", ["RTX 3090"]), branch="feature")
    run = project.harness.run("pull_request", head, base_ref="main", variables={})
    assert "No source for the heavy builds of 1 metadata-only build(s)" in run.summary
    assert "| torch, gpu | 1 |" in run.summary
    assert run.compiled() == SM86 and run.substituted() == []
    assert any("metadata only, but its heavy build is in neither the catalog nor a cache" in line for line in run.log)


def test_the_full_plan_is_an_artifact_linked_from_the_summary(project):
    head = project.commit("sm75 without cuDNN, sm86's GPUs", lambda data: (sm_build("sm75", False)(data),
                                                                          sm_gpus("sm86", ["RTX 3090"])(data)))
    run = project.harness.run("push", head)
    plan = json.loads(run.artifacts["gen-matrix-plan"].read_text())
    assert {entry["name"]: entry["builds"] for entry in plan["builds"]} == {
        **{name: "full" for name in SM75}, SM86[0]: "wrapper"}
    assert all(entry["why"] for entry in plan["builds"])
    assert "[plan.json](https://github.invalid/artifacts/gen-matrix-plan)" in run.summary


def test_each_build_job_measures_its_builds_and_the_next_plan_estimates_from_them(project, tmp_path):
    from generator.commands import measured

    head = project.commit("sm90 without cuDNN, sm86's GPUs", lambda data: (sm_build("sm90", False)(data),
                                                                          sm_gpus("sm86", ["RTX 3090"])(data)))
    run = project.harness.run("push", head)
    # as `gh run download -p 'gen-matrix-measured-*' -D measured` lays them out
    folder = tmp_path / "measured"
    for name, kept in run.artifacts.items():
        if name.startswith("gen-matrix-measured-"):
            shutil.copytree(kept, folder / name)
    found = {path.stem: measured.parse(path.read_text(), str(path)) for path in folder.rglob("*.json")}
    assert sorted(found) == sorted(run.builds())
    assert {name: m.builds for name, m in found.items()} == {**{n: "full" for n in SM90}, SM86[0]: "wrapper"}
    assert all(m.cores >= 1 and m.wall_seconds >= 0 and m.compiler_cache_hit_rate is None for m in found.values())
    assert all(m.peak_memory_gib > 0 for m in found.values()) or not Path("/proc/meminfo").exists()
    result = project.run("ci", "--root", project.work, "--summary", "--measured", folder)
    assert result.exit_code == 0, result.output
    assert f"{len(SM90)} measured for that very build" in result.output


def test_a_failed_smoke_test_publishes_nothing_of_its_job_and_leaves_the_marker(project):
    published = project.harness.tag(MARKER)
    before = project.harness.published()
    head = project.commit("sm75 and sm90 without cuDNN",
                          lambda data: (sm_build("sm75", False)(data), sm_build("sm90", False)(data)))
    # a companion fails: its torch, smoke-tested and passing, is not published either
    run = project.harness.run("push", head, env={"STUB_FAIL_SMOKE": "torchaudio-python313-cuda12_8-sm75-avx2"})
    assert not any(name in run.publishes() for name in SM75)
    assert run.publishes() == SM90  # the other job is unaffected
    assert project.harness.published() == sorted(set(before))
    assert run.results["mark-published"] == "skipped" and project.harness.tag(MARKER) == published
    assert any("step 'Smoke-test every build before it is published' failed" in line for line in run.log)


def test_a_recipe_that_does_not_evaluate_fails_the_plan_and_nothing_builds(project, tmp_path):
    broken = wrapped_package_set(tmp_path / "broken",
                                'if args.config.cudaSupport or false then throw "no CUDA here" else fake args')
    again = project.commit("sm86 without cuDNN", sm_build("sm86", False))
    failed = project.harness.run("push", again, env={"GEN_MATRIX_NIXPKGS": str(broken)})
    assert failed.results["plan"] == "failure" and failed.builds() == [] and failed.publishes() == []
    errors = [line for line in failed.log if "::error title=" in line]
    assert any(f"::error title={SM86[0]} does not evaluate::no CUDA here" in line for line in errors), errors
    assert "recipe(s) do not evaluate: nothing is built." in failed.summary
    assert failed.results["mark-published"] == "skipped"


def test_a_dispatch_with_a_revision_that_does_not_exist_stops_before_any_build(project):
    head = project.commit("sm90 without cuDNN", sm_build("sm90", False))
    run = project.harness.run("workflow_dispatch", head, inputs={"changed-since": "no-such-tag"})
    assert run.results["plan"] == "failure" and run.builds() == [] and run.publishes() == []
    assert any("no such commit" in line for line in run.log), "\n".join(run.log)


def test_a_failed_publish_leaves_the_marker_and_a_retry_publishes_what_it_missed(project):
    published = project.harness.tag(MARKER)
    head = project.commit("sm86 and sm90 without cuDNN",
                          lambda data: (sm_build("sm86", False)(data), sm_build("sm90", False)(data)))
    failed = project.harness.run("push", head, env={"STUB_FAIL_PUBLISH": SM90[0]})
    assert failed.results["mark-published"] == "skipped" and project.harness.tag(MARKER) == published
    # the failure said "already": the exit status, not the words, failed the job
    assert failed.results["build"] == "failure"
    assert any("already closed" in line for line in failed.log)
    retried = project.harness.run("push", head)
    assert sorted(retried.publishes()) == sorted(SM86 + SM90)
    assert any(f"{SM86[0]} is already published for this revision" in line for line in retried.log)
    assert project.harness.tag(MARKER) == head


def test_a_stale_lock_stops_the_run_before_any_build_with_the_command_to_run(project):
    head = project.commit("sm90 without cuDNN", sm_build("sm90", False))
    run = project.harness.run("push", head, env={"STUB_RELOCK": '{"lockfile-version": 1, "new": true}'})
    assert run.results["plan"] == "failure" and run.builds() == [] and run.publishes() == []
    assert any("flox activate -- true && git add .flox/env/manifest.lock" in line for line in run.log)
    assert run.results["mark-published"] == "skipped"


def test_a_missing_lock_stops_the_run_with_the_command_to_run(project):
    git(project.work, "rm", "-q", LOCK)
    head = project.commit("No lock")
    run = project.harness.run("push", head)
    assert run.results["plan"] == "failure" and run.builds() == []
    assert any("not locked: run `flox activate -- true && git add .flox/env/manifest.lock`" in line
               for line in run.log)


@pytest.mark.parametrize("what, given, fix", [
    ("organisation", {"variables": {}}, "run `gh variable set FLOX_ORG --body ORG`"),
    ("token", {"secrets": {}}, "run `gh secret set FLOX_FLOXHUB_TOKEN` with a FloxHub token"),
])
def test_a_publishing_run_without_its_organisation_or_token_stops_first_with_the_fix(project, what, given, fix):
    head = project.commit("sm90 without cuDNN", sm_build("sm90", False))
    run = project.harness.run("push", head, **given)
    assert run.results["plan"] == "failure" and run.builds() == [] and run.publishes() == []
    errors = [line for line in run.log if line.startswith("plan: ::error::")]  # the step's output
    assert len(errors) == 1 and fix in errors[0], "\n".join(run.log)
    # the plan's first step: no Flox, no evaluation, no gen-matrix ran before it stopped
    assert run.calls == [], run.calls
    assert project.harness.tag(MARKER) != head
    # a pull request publishes nothing, so needs neither
    git(project.work, "checkout", "-q", "-b", f"no-{what}")
    pull = project.commit("sm86 without cuDNN", sm_build("sm86", False), branch=f"no-{what}")
    assert project.harness.run("pull_request", pull, base_ref="main", **given).results["plan"] == "success"


def test_with_a_cache_every_build_is_pushed_once_after_its_job_built_it(tmp_path, run):
    project = Project(tmp_path, run, MATRIX + """\
ci:
  gen_matrix: "github:acme/gen-matrix/0123456789abcdef0123456789abcdef01234567"
  cache: {type: cachix, substituter: "https://acme.cachix.org", public_key: "acme.cachix.org-1:AAAA",
          name: acme, secret: CACHIX_AUTH_TOKEN}
""")
    first = project.commit("The matrix, with a cache")
    done = project.harness.run("push", first)
    command = "/tools/cachix/bin/cachix push acme "  # the pinned package set's cachix, by its store path
    pushes = [line.split(command, 1)[1] for line in done.calls if command in line]
    assert all(line.endswith(" (CACHIX_AUTH_TOKEN set)") for line in pushes)
    pushed = sorted(path.rsplit("/", 1)[1] for line in pushes for path in line.split() if "/" in path)
    assert pushed == sorted(done.builds()) == sorted(CPU + SM75 + SM86 + SM90)
    assert len(pushes) == 4  # one per job: the sm75 torch's pushes its companions with it




def test_more_than_256_variants_are_built_once_and_published_across_two_shards(tmp_path, run):
    project = Project(tmp_path, run, SYNTHETIC)
    head = project.commit("300 variants")
    done = project.harness.run("push", head)
    assert done.results["build"] == "success"
    assert len({line.split(" / ")[0] for line in done.log if line.startswith("build [")}) == 2  # two shards
    assert len(done.builds()) == 300
    assert_each_torch_built_once(done)
    assert sorted(done.publishes()) == sorted(done.builds()) == project.harness.published()
    assert project.harness.tag(MARKER) == head
    edited = project.commit("sm90 without cuDNN", sm_build("sm90", False))
    again = project.harness.run("push", edited)
    assert sorted(again.publishes()) == sorted(name for name in done.builds() if "-sm90-" in name)
    assert len(again.publishes()) == 30


# Two remote builders of x86_64-linux: one without the cuda feature every recipe requires here.
BUILDERS = """\
build: {system_features: [big-parallel, cuda]}
ci:
  gen_matrix: "github:acme/gen-matrix/0123456789abcdef0123456789abcdef01234567"
  builders:
    - {url: "ssh-ng://nix@small.example.org", systems: [x86_64-linux], features: [big-parallel],
       ssh_key_secret: SMALL_KEY, known_hosts_secret: SMALL_HOST}
    - {url: "ssh://nix@big.example.org", systems: [x86_64-linux], features: [big-parallel, cuda, kvm], max_jobs: 4,
       ssh_key_secret: BIG_KEY, known_hosts_secret: BIG_HOST}
"""
BIG_KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----"
BIG_HOST_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBigBuilderHostKey"
ARM = "pytorch-python313-cpu-armv8_2"


def test_remote_builders_build_the_heavy_builds_they_serve_with_the_key_in_one_step(tmp_path, run):
    project = Project(tmp_path, run, MATRIX.replace("  isa: [avx2]\ncompanions", "  isa: [avx2, armv8_2]\ncompanions")
                      + BUILDERS)
    first = project.commit("The matrix, with remote builders")
    secrets = {"FLOX_FLOXHUB_TOKEN": "token", "SMALL_KEY": "small-key", "SMALL_HOST": "small.example.org ssh-rsa AAAB",
               "BIG_KEY": BIG_KEY, "BIG_HOST": f"big.example.org {BIG_HOST_KEY}"}
    # The builder's side: the key it accepts (in a file: no step's environment holds it), its host key.
    (tmp_path / "accepted-key").write_text(BIG_KEY + "\n")
    done = project.harness.run("push", first, secrets=secrets,
                               env={"STUB_BUILDER_KEY_FILE": str(tmp_path / "accepted-key"),
                                    "STUB_BUILDER_HOST_KEY": BIG_HOST_KEY})
    assert done.results["mark-published"] == "success", "\n".join(done.log)
    x86 = sorted(CPU + SM75 + SM86 + SM90)
    # Every x86_64-linux build on the builder with every feature, logged in to with its key; the
    # aarch64-linux torch, which no builder serves, on its runner.
    remote = [call.split()[1] for call in done.calls
              if call.endswith(" heavy build compiled on ssh://nix@big.example.org")]
    assert sorted(remote) == x86 and done.compiled() == [ARM]
    assert sum(call == "ssh nix@big.example.org" for call in done.calls) == len(x86)
    # The plan said so, job by job: in plan.json, and counted by builder in the summary.
    planned = json.loads(done.artifacts["gen-matrix-plan"].read_text())
    assert {build["name"]: build["builder"] for build in planned["builds"]} == \
        dict({name: "ssh://nix@big.example.org" for name in x86}, **{ARM: None})
    assert "- ssh-ng://nix@small.example.org: 0 job(s)\n- ssh://nix@big.example.org: 4 job(s)\n" \
        "- the jobs' own runners: 1 job(s)\n" in done.summary
    # The builders' secrets reach the one step that writes the key files, in each build job.
    jobs = {label for label, _, _ in done.secret_steps if "/ build [" in label}
    assert len(jobs) == 5
    for name in ("SMALL_KEY", "SMALL_HOST", "BIG_KEY", "BIG_HOST"):
        assert {(label, step) for label, step, secret in done.secret_steps if secret == name} == \
            {(label, "Send the heavy builds to the remote builders of ci.builders") for label in jobs}
    # Never on a command line; and no key file is left once a job has ended.
    assert not [call for call in done.calls if "b3BlbnNzaC1rZXktdjEAAAAA" in call or "small-key" in call]
    assert list(project.harness.root.glob("run*/*.nix-conf/gen-matrix-builders")) == []
    assert any(call.startswith("sudo rm -rf ") and call.endswith("/gen-matrix-builders") for call in done.calls)


def test_without_the_builders_secrets_the_heavy_builds_build_on_the_runner(tmp_path, run):
    project = Project(tmp_path, run, MATRIX + BUILDERS)
    first = project.commit("The matrix, with remote builders")
    done = project.harness.run("push", first, secrets={"FLOX_FLOXHUB_TOKEN": "token"})
    assert done.results["mark-published"] == "success", "\n".join(done.log)
    assert sorted(done.compiled()) == sorted(CPU + SM75 + SM86 + SM90)
    assert not any(call.startswith("ssh ") for call in done.calls)
    assert any("the secrets BIG_KEY and BIG_HOST are not both available to this run" in line for line in done.log)
