"""The build workflow's jobs and steps, as GitHub reads and runs them.

The build workflow is rendered for matrices that differ in what its jobs are given (the
timeout, build.jobs, ci.substituters, ci.cache), read with PyYAML, and the steps' bash run
with stand-in tools (nproc, flox, nix-build, sudo) on a PATH of their own and a stand-in
/proc/meminfo: what a job would do on two machines, without the host's Nix, Flox or memory.
"""

from __future__ import annotations

import dataclasses
import json
import shutil

import pytest

from generator import layout
from generator.model import Cache

from conftest import with_ci
from test_workflow_steps import FLAKE, Shell, documents, expansion, named  # noqa: F401 (fixture)

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="the steps are bash")

SUBSTITUTERS_STEP = "Fetch from the public binary caches of ci.substituters"
PUSH_STEP = "Push what was built to the binary cache"
# What the build step calls beyond bash's builtins and the stand-ins, from the host.
BUILD_TOOLS = ("awk", "date", "sleep", "sort", "tee")
GIB = 1024 * 1024  # kB


def build_document(expansion) -> dict:
    return documents(expansion, FLAKE)[layout.WORKFLOW_BUILD_FILE]


def with_jobs(expansion, jobs: int):
    return dataclasses.replace(expansion, matrix=dataclasses.replace(expansion.matrix, jobs=jobs))


@pytest.mark.parametrize("minutes", [45, 720])
def test_every_build_job_has_the_timeout_and_runs_on_after_a_failure(expansion, minutes):
    document = build_document(with_ci(expansion, timeout_minutes=minutes))
    assert document["jobs"], "no build job"
    for name, job in document["jobs"].items():
        assert job["timeout-minutes"] == minutes, name
        # one failed build leaves the shard's other builds running
        assert job["strategy"]["fail-fast"] is False, name


def build_shell(tmp_path, cores: int, total_gib: int, available_gib: int, metadata_fetched: bool = True) -> Shell:
    """A runner of `cores` cores and that much memory, whose flox build records what it was
    given once the memory sampler has taken its first sample."""
    shell = Shell(tmp_path)
    for tool in BUILD_TOOLS:
        (shell.bin / tool).symlink_to(shutil.which(tool))
    shell.tool("nproc", f"echo {cores}\n")
    (tmp_path / "meminfo").write_text(f"MemTotal:       {total_gib * GIB} kB\nMemFree:          1024 kB\n"
                                      f"MemAvailable:   {available_gib * GIB} kB\n")
    shell.tool("flox", '[ "$1" = build ] || exit 9\n'
                       'until [ -s "$RUNNER_TEMP/memory-$2" ]; do sleep 0.05; done\n'
                       'printf "%s\\n" "$NIX_CONFIG" > "$RUNNER_TEMP/flox-build-$2"\n')
    shell.tool("nix-build", f'printf "%s\\n" "$*" >> "$RUNNER_TEMP/nix-build-calls"\nexit {0 if metadata_fetched else 1}\n')
    return shell


def run_build(shell, document, builds: str, metadata_only: str = ""):
    step = named(document, "Build")[0]
    result = shell.run(step, env={"BUILDS": builds, "METADATA_ONLY": metadata_only, "TORCH": builds.split()[0]},
                       replace={"/proc/meminfo": str(shell.root / "meminfo")})
    assert result.returncode == 0, result.stderr
    return {name: json.loads((shell.root / "measured" / f"{name}.json").read_text()) for name in builds.split()}


@pytest.mark.parametrize("jobs, cores, given", [(4, 16, 4), (32, 16, 16), (8, 8, 8)])
def test_the_builds_get_the_runners_cores_at_most_build_jobs(tmp_path, expansion, jobs, cores, given):
    document = build_document(with_jobs(expansion, jobs))
    measured = run_build(build_shell(tmp_path, cores, 64, 16), document, "torch-a vision-a")
    for name in ("torch-a", "vision-a"):
        assert measured[name]["cores"] == given
        assert (tmp_path / f"flox-build-{name}").read_text().splitlines()[0] == f"cores = {given}"


@pytest.mark.parametrize("total, available", [(64, 16), (16, 12)])
def test_the_peak_memory_in_use_is_measured_in_gib(tmp_path, expansion, total, available):
    measured = run_build(build_shell(tmp_path, 4, total, available), build_document(expansion), "torch-b")
    assert measured["torch-b"]["peak_memory_gib"] == total - available
    assert measured["torch-b"]["builds"] == "full"


@pytest.mark.parametrize("fetched", [True, False])
def test_a_metadata_only_build_asks_nix_for_substitutes_only(tmp_path, expansion, fetched):
    """Its heavy build is fetched (--max-jobs 0), never compiled there; where nothing serves it,
    it is compiled by the flox build after."""
    shell = build_shell(tmp_path, 4, 32, 8, metadata_fetched=fetched)
    measured = run_build(shell, build_document(expansion), "torch-c vision-c", metadata_only="vision-c")
    calls = (tmp_path / "nix-build-calls").read_text().splitlines()
    assert calls == [".flox/pkgs/vision-c.nix -A unwrapped --max-jobs 0 --no-out-link"]
    assert measured["torch-c"]["builds"] == "full"
    assert measured["vision-c"]["builds"] == ("wrapper" if fetched else "full")


SUBSTITUTERS = (("https://cache.example.org", "cache.example.org-1:AAAA"),
                ("https://other.example.net/nix", "other.example.net:BBBB"))


@pytest.mark.parametrize("substituters", [(), SUBSTITUTERS[:1], SUBSTITUTERS])
def test_the_daemon_fetches_from_the_substituters_given_only(tmp_path, expansion, substituters):
    document = build_document(with_ci(expansion, substituters=substituters))
    found = named(document, SUBSTITUTERS_STEP)
    if not substituters:
        assert found == []
        return
    assert len(found) == 1
    shell = Shell(tmp_path)
    (shell.bin / "tee").symlink_to(shutil.which("tee"))
    shell.tool("sudo", 'exec "$@"\n')
    shell.tool("systemctl", 'printf "%s\\n" "$*" >> "$RUNNER_TEMP/systemctl"\n')
    conf = tmp_path / "nix"
    conf.mkdir()
    result = shell.run(found[0], env={"NIX_CONF_DIR": str(conf)})
    assert result.returncode == 0, result.stderr
    assert (conf / "nix.conf").read_text() == (
        f"extra-substituters = {' '.join(url for url, _ in substituters)}\n"
        f"extra-trusted-public-keys = {' '.join(key for _, key in substituters)}\n")
    assert (tmp_path / "systemctl").read_text() == "restart nix-daemon\n"


CACHES = {
    "attic": Cache("attic", "https://attic.example.org/main", "main:CCCC", "main", "ATTIC_TOKEN"),
    "cachix": Cache("cachix", "https://acme.cachix.org", "acme.cachix.org-1:DDDD", "acme", "CACHIX_TOKEN"),
    "s3": Cache("s3", "https://s3.example.org/nix", "s3.example.org:EEEE", "s3://nix?region=eu", "S3_KEY"),
    "flox": Cache("flox", None, None, None, None),
}


@pytest.mark.parametrize("kind", sorted(CACHES))
def test_only_an_attic_push_is_given_the_substituter(expansion, kind):
    """attic's server is read from the substituter; no other push is given it, and a Flox
    catalog is pushed to by publishing, not by this step."""
    found = named(build_document(with_ci(expansion, cache=CACHES[kind])), PUSH_STEP)
    if kind == "flox":
        assert found == []
        return
    assert len(found) == 1
    env = found[0]["env"]
    assert env["CACHE_NAME"] == CACHES[kind].name
    if kind == "attic":
        assert env["CACHE_SUBSTITUTER"] == CACHES[kind].substituter
    else:
        assert "CACHE_SUBSTITUTER" not in env
