"""ci.builders: the build job's step that tells the Nix daemon of the remote builders, run by
real bash with a stand-in sudo that runs the command as this user and records it (the step
writes under /etc/nix, which a test may not), then the step that removes the keys.
tests/test_workflow_logic.py runs whole build jobs with them, through a stand-in ssh."""

from __future__ import annotations

import base64
import os
import re
import stat
import subprocess
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from generator import layout
from generator.cli import main
from generator.model import CI, Builder

from conftest import FIXTURE_MATRIX, REPO

SETUP = "Send the heavy builds to the remote builders of ci.builders"
REMOVE = "Remove the remote builders' keys"
BUILDERS = """\
  builders:
    - {url: "ssh-ng://nix@a.example.org", systems: [x86_64-linux, aarch64-linux], features: [big-parallel, cuda],
       max_jobs: 8, ssh_key_secret: A_KEY, known_hosts_secret: A_HOST}
    - {url: "ssh://b.example.org", systems: [aarch64-linux], ssh_key_secret: B_KEY, known_hosts_secret: B_HOST}
"""
SECRETS = {"A_KEY": "-----BEGIN KEY-----\nAAAA 'a' $(touch x) \"\n-----END KEY-----",
           "A_HOST": "a.example.org ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAhost",
           "B_KEY": "b-key", "B_HOST": "b.example.org ecdsa-sha2-nistp256 AAAAE2VjZHNh"}
SUDO = """#!/usr/bin/env bash
{ printf 'sudo'; printf ' %s' "$@"; printf '\\n'; } >> "$CALLS"
exec "$@"
"""


def build_steps(root: Path) -> dict:
    document = yaml.safe_load((root / layout.WORKFLOW_BUILD_FILE).read_text(encoding="utf-8"))
    return {step.get("name") or step["uses"]: step for step in document["jobs"]["build"]["steps"]}


@pytest.fixture(scope="module")
def steps(tmp_path_factory) -> dict:
    """The build job's steps of the tests' matrix with BUILDERS."""
    root = tmp_path_factory.mktemp("builders")
    text = FIXTURE_MATRIX.read_text(encoding="utf-8")
    assert "\nci:\n" in text
    (root / "matrix.yaml").write_text(text.replace("\nci:\n", "\nci:\n" + BUILDERS, 1), encoding="utf-8")
    done = CliRunner().invoke(main, ["--root", str(root)])
    assert done.exit_code == 0, done.output
    return build_steps(root)


def run_step(tmp_path: Path, step: dict, secrets: dict) -> subprocess.CompletedProcess:
    """A step as GitHub runs it, `${{ secrets.NAME }}` in its env given the value of `secrets`
    (empty where unset, as GitHub gives a secret a run cannot read)."""
    bin_ = tmp_path / "bin"
    if not bin_.exists():
        bin_.mkdir()
        for name, text in (("sudo", SUDO), ("systemctl", "#!/bin/sh\nexit 0\n")):
            (bin_ / name).write_text(text, encoding="utf-8")
            (bin_ / name).chmod(0o755)
    given = {key: re.sub(r"\$\{\{ secrets\.(\w+) \}\}", lambda found: secrets.get(found[1], ""), str(value))
             for key, value in step.get("env", {}).items()}
    env = dict(os.environ, PATH=f"{bin_}{os.pathsep}{os.environ['PATH']}", CALLS=str(tmp_path / "calls"),
               NIX_CONF_DIR=str(tmp_path / "etc-nix"), **given)
    (tmp_path / "etc-nix").mkdir(exist_ok=True)
    return subprocess.run(["bash", "-e", "-c", step["run"]], env=env, cwd=tmp_path, capture_output=True, text=True)


def test_each_builder_is_a_line_of_the_daemons_machines_file_with_a_key_of_its_own(tmp_path, steps):
    names = list(steps)
    assert names.index(SETUP) + 1 == names.index("Build") and names.index(REMOVE) == names.index("Build") + 1
    assert steps[REMOVE]["if"] == "always()"
    for _ in range(2):  # a self-hosted runner runs it again: nix.conf names the machines file once
        done = run_step(tmp_path, steps[SETUP], SECRETS)
        assert done.returncode == 0, done.stderr
    folder = tmp_path / "etc-nix" / "gen-matrix-builders"
    lines = [line.split(" ") for line in (folder / "machines").read_text().splitlines()]
    assert [line[:7] for line in lines] == [
        ["ssh-ng://nix@a.example.org", "x86_64-linux,aarch64-linux", f"{folder}/key-0", "8", "1", "big-parallel,cuda",
         "-"],
        ["ssh://b.example.org", "aarch64-linux", f"{folder}/key-1", "1", "1", "-", "-"]]
    # Nix takes each builder's host key, "KEYTYPE KEY" of its known_hosts line, in base64.
    assert [base64.b64decode(line[7], validate=True).decode() for line in lines] == [
        SECRETS["A_HOST"].split(" ", 1)[1], SECRETS["B_HOST"].split(" ", 1)[1]]
    assert (folder / "key-0").read_text() == SECRETS["A_KEY"] + "\n" and (folder / "key-1").read_text() == "b-key\n"
    assert stat.S_IMODE((folder / "key-0").stat().st_mode) == 0o600 and stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert not (tmp_path / "x").exists()  # the key is data, never run
    assert (tmp_path / "etc-nix" / "nix.conf").read_text() == \
        f"builders = @{folder}/machines\nbuilders-use-substitutes = true\n"
    calls = (tmp_path / "calls").read_text()
    assert "AAAA" not in calls and "b-key" not in calls  # neither key on a command line
    assert calls.count("sudo systemctl restart nix-daemon") == 1
    done = run_step(tmp_path, steps[REMOVE], {})
    assert done.returncode == 0, done.stderr
    assert not folder.exists()


def test_a_builder_whose_secrets_this_run_cannot_read_is_left_out(tmp_path, steps):
    done = run_step(tmp_path, steps[SETUP], {"B_KEY": "b-key", "B_HOST": SECRETS["B_HOST"]})
    assert done.returncode == 0, done.stderr
    assert "::warning::the secrets A_KEY and A_HOST are not both available to this run: nothing is sent to " \
           "ssh-ng://nix@a.example.org" in done.stdout
    machines = (tmp_path / "etc-nix" / "gen-matrix-builders" / "machines").read_text().splitlines()
    assert [line.split(" ")[0] for line in machines] == ["ssh://b.example.org"]


def test_a_known_hosts_secret_that_is_no_known_hosts_line_stops_the_job(tmp_path, steps):
    done = run_step(tmp_path, steps[SETUP], dict(SECRETS, B_HOST="b.example.org"))
    assert done.returncode == 1
    assert "::error::the secret B_HOST is no known_hosts line (HOST KEYTYPE KEY)" in done.stdout


def test_without_builders_the_build_job_has_neither_step():
    shipped = build_steps(REPO)  # the shipped matrix has no ci.builders
    assert SETUP not in shipped and REMOVE not in shipped and "Build" in shipped


def test_a_build_goes_to_the_first_builder_of_its_system_that_offers_every_feature_it_requires():
    small = Builder("ssh-ng://small", ("x86_64-linux",), ("big-parallel",), 1, "K", "H")
    big = Builder("ssh://big", ("x86_64-linux", "aarch64-linux"), ("big-parallel", "cuda", "kvm"), 4, "K", "H")
    ci = CI(builders=(small, big))
    assert ci.builder("x86_64-linux", ("big-parallel",)) == small and ci.builder("x86_64-linux", ()) == small
    assert ci.builder("x86_64-linux", ("big-parallel", "cuda")) == big
    assert ci.builder("aarch64-linux", ("big-parallel",)) == big
    assert ci.builder("x86_64-linux", ("big-parallel", "nixos-test")) is None
    assert ci.builder("aarch64-darwin", ()) is None and CI().builder("x86_64-linux", ()) is None
