"""build.compiler_cache: ccache builds torch through nixpkgs' ccache wrapper, and a matrix
without it builds exactly what it built before the option existed.

"Before" is gen-matrix itself at the commit before the option's Nix file was added, taken
from this repository's history and run on the same matrix: its recipes and this version's
are evaluated with the real nix-instantiate against the test package set (tests/nix) and
their drvPaths compared. What the package set cannot prove: that the real nixpkgs at each
pin has ccacheWrapper and overrideCC in the form modelled there (tests/nix/README.md says
where each was read), and that a real build hits the cache.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from conftest import FAKES, FIXTURE_MATRIX, REPO, drv_paths, expansion_of, fake_for, needs_nix, nix_eval

pytestmark = needs_nix

FIX_FILE = "nix/fixes/compiler-cache-ccache.nix"


def git(*args: str, text: bool = True):
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=text)


@pytest.fixture(scope="module")
def before(tmp_path_factory) -> Path:
    """gen-matrix's source at the commit before the compiler cache existed."""
    added = git("log", "--diff-filter=A", "--format=%H", "--", FIX_FILE)
    commits = added.stdout.split() if added.returncode == 0 else []
    if not commits:
        pytest.skip("no git history here to find gen-matrix before build.compiler_cache (a shallow or archived checkout)")
    parent = git("rev-parse", "--verify", "--quiet", f"{commits[-1]}^")
    if parent.returncode != 0:
        pytest.skip("the commit that added build.compiler_cache has no parent in this checkout (shallow)")
    archive = git("archive", "--format=tar", parent.stdout.strip(), text=False)
    assert archive.returncode == 0, archive.stderr
    folder = tmp_path_factory.mktemp("before")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(folder, filter="data") if hasattr(tarfile, "data_filter") else tar.extractall(folder)
    return folder


def project(tmp_path: Path, name: str, build_lines: str = "") -> Path:
    root = tmp_path / name
    root.mkdir()
    text = FIXTURE_MATRIX.read_text(encoding="utf-8")
    assert "\nbuild:\n" in text
    (root / "matrix.yaml").write_text(text.replace("\nbuild:\n", "\nbuild:\n" + build_lines), encoding="utf-8")
    return root


def generate_with(source: Path, root: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(source))
    done = subprocess.run([sys.executable, "-m", "generator", "--root", str(root)], cwd=root, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_without_the_option_every_derivation_is_the_one_built_before(before, tmp_path, run):
    old = project(tmp_path, "old")
    generate_with(before, old)
    absent, off = project(tmp_path, "absent"), project(tmp_path, "off", "  compiler_cache: none\n")
    for root in (absent, off):
        assert run("--root", root).exit_code == 0
    expected = drv_paths(old)
    assert len(expected) == len(expansion_of(old).variants) > 50
    assert drv_paths(absent) == expected
    assert drv_paths(off) == expected


def _facts(root: Path) -> dict:
    """Per variant: whether its heavy build's compiler is the ccache wrapper, the CUDA release
    whose backend stdenv it compiles with (null without CUDA), and the drvPath of NCCL in its
    package set (GPU variants)."""
    expansion = expansion_of(root)
    body = "".join(
        f'"{v.name}" = let r = import {root / ".flox/pkgs" / (v.name + ".nix")} '
        f'{{ genMatrixNixpkgs = {fake_for(v, expansion.matrix)}; }}; build = r.unwrapped; in {{ '
        f'ccache = build.stdenv.cc.cc.isCcache or false; '
        f'backend = build.stdenv.drvAttrs.cudaBackend or null; '
        f'nccl = if {"true" if v.cuda else "false"} then r.genMatrix.pkgs.cudaPackages.nccl.drvPath else null; }};\n'
        for v in expansion.variants if not v.is_companion)
    return nix_eval("{\n" + body + "}")


def test_with_ccache_every_torch_compiles_through_the_wrapper_and_nothing_else_changes(tmp_path, run):
    on, off = project(tmp_path, "on", "  compiler_cache: ccache\n"), project(tmp_path, "off")
    for root in (on, off):
        assert run("--root", root).exit_code == 0
    cached, plain = _facts(on), _facts(off)
    variants = {v.name: v for v in expansion_of(on).variants}
    assert cached.keys() == plain.keys() and any(variants[n].cuda for n in cached) and any(
        not variants[n].cuda for n in cached)
    for name, facts in cached.items():
        assert facts["ccache"] is True, name
        assert plain[name]["ccache"] is False, name
        # a CUDA torch keeps compiling with the CUDA release's own compiler, now through ccache
        cuda = variants[name].cuda
        assert facts["backend"] == (cuda.name if cuda else None) == plain[name]["backend"], name
        # the CUDA libraries stay the binary cache's
        assert facts["nccl"] == plain[name]["nccl"], name
    builds_on, builds_off = drv_paths(on), drv_paths(off)
    assert all(builds_on[name]["build"] != builds_off[name]["build"] for name in cached)



def _build_steps(root: Path) -> dict:
    import yaml

    from generator import layout

    document = yaml.safe_load((root / layout.WORKFLOW_BUILD_FILE).read_text(encoding="utf-8"))
    return {step.get("name") or step["uses"]: step for step in document["jobs"]["build"]["steps"]}


SETUP = "Give the builds the compiler cache folder (build.compiler_cache)"
# A stand-in for sudo: records each command and what it was given on stdin, and runs nothing
# (the script writes /etc/nix/nix.conf and a folder under /nix/var, which a test may not).
SUDO = """#!/usr/bin/env bash
{ printf 'sudo'; printf ' %s' "$@"; printf '\\n'; } >> "$CALLS"
case "$1" in tee) cat | sed 's/^/  stdin: /' >> "$CALLS" ;; test) exit 1 ;; esac
"""


NIX_BUILD = """#!/usr/bin/env bash
[ "$2" = -A ] && [ "$4" = --no-out-link ] || { echo "unexpected: nix-build $*" >&2; exit 1; }
nix-instantiate --eval --expr "(import $PWD/$1 { genMatrixNixpkgs = $FAKE; }).$3.outPath" | tr -d '"'
"""


def test_the_build_jobs_give_the_sandbox_the_folder_the_recipes_name(tmp_path, run):
    """The setup step, run by real bash: it reads the folder from the fix the recipes build
    with (real nix-instantiate), creates it for the build users and adds it to nix.conf."""
    on, off = project(tmp_path, "on", "  compiler_cache: ccache\n"), project(tmp_path, "off")
    for root in (on, off):
        assert run("--root", root).exit_code == 0
    assert not any("compiler cache" in name for name in _build_steps(off))
    steps = _build_steps(on)
    folder = nix_eval(f"(import {on / FIX_FILE}).cacheDir")
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    (bin_ / "sudo").write_text(SUDO, encoding="utf-8")
    (bin_ / "sudo").chmod(0o755)
    (bin_ / "systemctl").write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    (bin_ / "systemctl").chmod(0o755)
    # nix-build would fetch the pin and build: the stand-in evaluates the same attribute of
    # the same recipe against the test package set and prints the output path it would build
    (bin_ / "nix-build").write_text(NIX_BUILD, encoding="utf-8")
    (bin_ / "nix-build").chmod(0o755)
    torch = next(v for v in expansion_of(on).variants if v.cuda and not v.is_companion)
    ccache = nix_eval(f"(import {on / '.flox/pkgs' / (torch.name + '.nix')} "
                      f"{{ genMatrixNixpkgs = {fake_for(torch, expansion_of(on).matrix)}; }}).genMatrix.pkgs.ccache.outPath")
    calls, output, job_env = tmp_path / "calls", tmp_path / "output", tmp_path / "env"
    conf = tmp_path / "etc-nix"
    conf.mkdir()
    env = dict(os.environ, PATH=f"{bin_}{os.pathsep}{os.environ['PATH']}", CALLS=str(calls),
               GITHUB_OUTPUT=str(output), GITHUB_ENV=str(job_env), NIX_CONF_DIR=str(conf), TORCH=torch.name,
               FAKE=fake_for(torch, expansion_of(on).matrix), **steps[SETUP]["env"])
    done = subprocess.run(["bash", "-e", "-c", steps[SETUP]["run"]], cwd=on, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    # the ccache of the recipe's pin reaches the later steps as a step output, never through
    # $GITHUB_ENV, which a build's output must not write
    assert output.read_text() == f"dir={folder}\nccache={ccache}/bin/ccache\n"
    assert not job_env.exists() or "CCACHE" not in job_env.read_text()
    recorded = calls.read_text().splitlines()
    assert f"sudo mkdir -p {folder}" in recorded
    assert f"sudo chown root:nixbld {folder}" in recorded and f"sudo chmod 0770 {folder}" in recorded
    assert recorded[recorded.index(f"sudo tee -a {conf}/nix.conf") + 1] == f"  stdin: extra-sandbox-paths = {folder}"
    assert "sudo systemctl restart nix-daemon" in recorded


def _shards(run, root: Path, tmp_path: Path) -> list[list[str]]:
    """The torch of each job, by shard, as the plan the build jobs read (plan.json) has them."""
    import json

    plan = tmp_path / f"plan-{root.name}"
    assert run("ci", "--root", root, "--plan", plan).exit_code == 0
    return [[job["name"] for job in shard] for shard in json.loads((plan / "plan.json").read_text())["shards"]]


def test_with_ccache_each_runner_builds_the_torches_sharing_cpu_side_objects_one_after_another(tmp_path, run):
    from generator.commands.ci import cpu_side

    on, off = project(tmp_path, "on", "  compiler_cache: ccache\n"), project(tmp_path, "off")
    for root in (on, off):
        assert run("--root", root).exit_code == 0
    variants = expansion_of(on).by_name

    def runs(shard: list[str]) -> list[tuple]:
        """The shard's CPU-side groups in the order its jobs meet them, one entry per run of equals."""
        keys = [cpu_side(variants[name]) for name in shard]
        return [key for index, key in enumerate(keys) if index == 0 or keys[index - 1] != key]

    cached, plain = _shards(run, on, tmp_path), _shards(run, off, tmp_path)
    assert sorted(map(sorted, cached)) == sorted(map(sorted, plain))  # the same jobs on the same runners
    # in name order a group is split (sm61-avx, sm61-avx2, sm75-avx, ...): the test can fail
    assert any(len(runs(shard)) > len(set(runs(shard))) for shard in plain)
    for shard in cached:
        assert len(runs(shard)) == len(set(runs(shard))), shard
