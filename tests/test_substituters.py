"""ci.substituters: public binary caches the build jobs add to the daemon's nix.conf. The
step is run by real bash with a stand-in sudo that records what it is given (the step
writes /etc/nix/nix.conf, which a test may not); a matrix without the setting keeps its
workflow as it was."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import yaml

from generator import layout

from conftest import FIXTURE_MATRIX

CUDA = ("https://cache.nixos-cuda.org", "cache.nixos-cuda.org:74DUi4Ye579gUqzH4ziL9IyiJBlDpMRn9MBN8oNan9M=")
FLOX = ("https://cache.flox.dev", "flox-cache-public-1:7F4OyH7ZCnFhcze3fJdfyXYLQw/aV7GEed86nQ7IsOs=")
STEP = "Fetch from the public binary caches of ci.substituters"
SUDO = """#!/usr/bin/env bash
{ printf 'sudo'; printf ' %s' "$@"; printf '\\n'; } >> "$CALLS"
case "$1" in tee) sed 's/^/  stdin: /' >> "$CALLS" ;; esac
"""


def project(tmp_path: Path, name: str, entries: list[tuple[str, str]] | None) -> Path:
    root = tmp_path / name
    root.mkdir()
    text = FIXTURE_MATRIX.read_text(encoding="utf-8")
    if entries is not None:
        lines = "".join(f'    - {{url: "{url}", key: "{key}"}}\n' for url, key in entries)
        assert "\nci:\n" in text
        text = text.replace("\nci:\n", "\nci:\n  substituters:\n" + lines, 1)
    (root / "matrix.yaml").write_text(text, encoding="utf-8")
    return root


def steps(root: Path) -> dict:
    document = yaml.safe_load((root / layout.WORKFLOW_BUILD_FILE).read_text(encoding="utf-8"))
    return {step.get("name") or step["uses"]: step for step in document["jobs"]["build"]["steps"]}


def test_the_build_jobs_add_each_cache_and_its_key_to_the_daemons_nix_conf(tmp_path, run):
    on, off = project(tmp_path, "on", [CUDA, FLOX]), project(tmp_path, "off", None)
    for root in (on, off):
        assert run("--root", root).exit_code == 0
    assert STEP not in steps(off)
    step = steps(on)[STEP]
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    for name, text in (("sudo", SUDO), ("systemctl", "#!/bin/sh\nexit 0\n")):
        (bin_ / name).write_text(text, encoding="utf-8")
        (bin_ / name).chmod(0o755)
    calls, conf = tmp_path / "calls", tmp_path / "etc-nix"
    env = dict(os.environ, PATH=f"{bin_}{os.pathsep}{os.environ['PATH']}", CALLS=str(calls), NIX_CONF_DIR=str(conf),
               **step["env"])
    done = subprocess.run(["bash", "-e", "-c", step["run"]], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert calls.read_text().splitlines() == [
        f"sudo tee -a {conf}/nix.conf",
        f"  stdin: extra-substituters = {CUDA[0]} {FLOX[0]}",
        f"  stdin: extra-trusted-public-keys = {CUDA[1]} {FLOX[1]}",
        "sudo systemctl restart nix-daemon",
    ]


def test_a_url_that_could_reach_the_workflow_as_an_expression_is_refused(tmp_path, run):
    root = project(tmp_path, "bad", [("https://cache.example.org/${{ secrets.X }}", CUDA[1])])
    result = run("--root", root)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "ci.substituters[0].url" in result.stderr and "matrix.yaml:" in result.stderr
    assert not (root / layout.WORKFLOW_BUILD_FILE).exists()
