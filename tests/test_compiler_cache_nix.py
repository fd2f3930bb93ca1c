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
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from conftest import FIXTURE_MATRIX, REPO, drv_paths, expansion_of, fake_for, needs_nix, nix_eval

pytestmark = needs_nix

FIX_FILE = "nix/fixes/compiler-cache-ccache.nix"
# The GPU variants build on the default self-hosted runners, which the matrix says are its own.
CACHE_ON = "  compiler_cache: ccache\n  compiler_cache_runners: dedicated\n"


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
    on, off = project(tmp_path, "on", CACHE_ON), project(tmp_path, "off")
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
"$NIX_INSTANTIATE" --eval --expr "(import $PWD/$1 { genMatrixNixpkgs = $FAKE; }).$3.outPath" | tr -d '"'
"""
# nix-instantiate itself, with a recipe evaluated against the test package set, not its pin
NIX_INSTANTIATE_STANDIN = """#!/usr/bin/env bash
case " $* " in *" .flox/pkgs/"*) exec "$NIX_INSTANTIATE" "$@" --arg genMatrixNixpkgs "$FAKE" ;; esac
exec "$NIX_INSTANTIATE" "$@"
"""


def test_the_build_jobs_give_the_sandbox_the_folder_the_recipes_name(tmp_path, run):
    """The setup step, run by real bash: it reads the folder from the fix the recipes build
    with (real nix-instantiate), creates it for the build users and adds it to nix.conf."""
    on, off = project(tmp_path, "on", CACHE_ON), project(tmp_path, "off")
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
    (bin_ / "nix-instantiate").write_text(NIX_INSTANTIATE_STANDIN, encoding="utf-8")
    (bin_ / "nix-instantiate").chmod(0o755)
    torch = next(v for v in expansion_of(on).variants if v.cuda and not v.is_companion)
    ccache = nix_eval(f"(import {on / '.flox/pkgs' / (torch.name + '.nix')} "
                      f"{{ genMatrixNixpkgs = {fake_for(torch, expansion_of(on).matrix)}; }}).genMatrix.pkgs.ccache.outPath")
    calls, output, job_env = tmp_path / "calls", tmp_path / "output", tmp_path / "env"
    conf = tmp_path / "etc-nix"
    conf.mkdir()
    env = dict(os.environ, PATH=f"{bin_}{os.pathsep}{os.environ['PATH']}", CALLS=str(calls),
               GITHUB_OUTPUT=str(output), GITHUB_ENV=str(job_env), NIX_CONF_DIR=str(conf), TORCH=torch.name,
               FAKE=fake_for(torch, expansion_of(on).matrix), NIX_INSTANTIATE=shutil.which("nix-instantiate"),
               **steps[SETUP]["env"])
    done = subprocess.run(["bash", "-e", "-c", steps[SETUP]["run"]], cwd=on, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    # the ccache of the recipe's pin reaches the later steps as a step output, never through
    # $GITHUB_ENV, which a build's output must not write
    # the folder of the torch's group, as its recipe names it, under the one sandbox path
    group = torch.compiler_cache_group
    assert output.read_text() == f"dir={folder}/{group}\ngroup={group}\nccache={ccache}/bin/ccache\n"
    assert not job_env.exists() or "CCACHE" not in job_env.read_text()
    recorded = calls.read_text().splitlines()
    assert f"sudo mkdir -p {folder}/{group}" in recorded
    assert f"sudo chown root:nixbld {folder} {folder}/{group}" in recorded
    assert f"sudo chmod 0770 {folder} {folder}/{group}" in recorded
    assert recorded[recorded.index(f"sudo tee {folder}/{group}/ccache.conf") + 1] == "  stdin: max_size = 5G"
    assert recorded[recorded.index(f"sudo tee -a {conf}/nix.conf") + 1] == f"  stdin: extra-sandbox-paths = {folder}"
    assert "sudo systemctl restart nix-daemon" in recorded


def _shards(run, root: Path, tmp_path: Path) -> list[list[str]]:
    """The torch of each job, by shard, as the plan the build jobs read (plan.json) has them."""
    import json

    plan = tmp_path / f"plan-{root.name}"
    assert run("ci", "--root", root, "--plan", plan).exit_code == 0
    return [[job["name"] for job in shard] for shard in json.loads((plan / "plan.json").read_text())["shards"]]


def test_with_ccache_each_runner_builds_the_torches_sharing_cpu_side_objects_one_after_another(tmp_path, run):
    on, off = project(tmp_path, "on", CACHE_ON), project(tmp_path, "off")
    for root in (on, off):
        assert run("--root", root).exit_code == 0
    variants = expansion_of(on).by_name

    def runs(shard: list[str]) -> list[tuple]:
        """The shard's CPU-side groups in the order its jobs meet them, one entry per run of equals."""
        keys = [variants[name].cpu_side for name in shard]
        return [key for index, key in enumerate(keys) if index == 0 or keys[index - 1] != key]

    cached, plain = _shards(run, on, tmp_path), _shards(run, off, tmp_path)
    assert sorted(map(sorted, cached)) == sorted(map(sorted, plain))  # the same jobs on the same runners
    # in name order a group is split (sm61-avx, sm61-avx2, sm75-avx, ...): the test can fail
    assert any(len(runs(shard)) > len(set(runs(shard))) for shard in plain)
    for shard in cached:
        assert len(runs(shard)) == len(set(runs(shard))), shard


# Two pins (older for sm75 and sm86), two CUDA releases, one Python and ISA for the GPUs and
# two ISAs without them: every group of torches that can share objects has two SMs, or one CPU.
GROUPS_MATRIX = """\
pytorch: {version: "2.9.1"}
nixpkgs:
  pins:
    - {name: older, rev: 6a030d535719c5190187c4cec156f335e95e3211, sha256: null, when: {sm: [sm75, sm86]}}
    - {name: newer, rev: 0182a361324364ae3f436a63005877674cf45efb, sha256: null}
build: {compiler_cache: ccache, compiler_cache_runners: dedicated}
gpu:
  python: ["3.13"]
  cuda: ["12.8", "12.9"]
  sm: [sm75, sm80, sm86, sm90]
  isa: [avx2]
cpu:
  python: ["3.13"]
  isa: [avx2, avx512]
ci:
  gen_matrix: github:acme/gen-matrix/0123456789abcdef0123456789abcdef01234567
"""


@pytest.fixture(scope="module")
def groups(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """The GROUPS_MATRIX repository, and the compiler cache folder of each torch as its recipe
    names it (real nix-instantiate, against the test package set of its pin)."""
    from click.testing import CliRunner

    from generator.cli import main

    root = tmp_path_factory.mktemp("groups")
    (root / "matrix.yaml").write_text(GROUPS_MATRIX, encoding="utf-8")
    done = CliRunner().invoke(main, ["--root", str(root)])
    assert done.exit_code == 0, done.output
    expansion = expansion_of(root)
    body = "".join(
        f'"{v.name}" = (import {root / ".flox/pkgs" / (v.name + ".nix")} '
        f'{{ genMatrixNixpkgs = {fake_for(v, expansion.matrix)}; }}).unwrapped.compilerCacheDir;\n'
        for v in expansion.variants if not v.is_companion)
    return root, nix_eval("{\n" + body + "}")


def test_each_group_of_torches_that_can_share_objects_has_a_folder_of_its_own(groups):
    root, folders = groups
    torches = expansion_of(root).by_name
    cache = nix_eval(f"(import {root / FIX_FILE}).cacheDir")
    assert all(folder.rsplit("/", 1)[0] == cache for folder in folders.values())  # the one sandbox path
    by_folder: dict[str, set[str]] = {}
    by_side: dict[tuple, set[str]] = {}
    for name, folder in folders.items():
        by_folder.setdefault(folder, set()).add(name)
        by_side.setdefault(torches[name].cpu_side, set()).add(name)
    # the torches that `gen-matrix ci` runs one after another are those that share a folder
    assert sorted(map(sorted, by_folder.values())) == sorted(map(sorted, by_side.values()))

    def folder(axes: str) -> str:
        return folders[f"pytorch-python313-{axes}"]

    assert folder("cuda12_8-sm80-avx2") == folder("cuda12_8-sm90-avx2")  # two SMs of one group
    assert folder("cuda12_8-sm75-avx2") == folder("cuda12_8-sm86-avx2")
    assert folder("cuda12_8-sm80-avx2") != folder("cuda12_8-sm75-avx2")  # two pins
    assert folder("cuda12_8-sm80-avx2") != folder("cuda12_9-sm80-avx2")  # two CUDA releases
    assert folder("cpu-avx2") != folder("cpu-avx512")  # two sets of CPU flags
    assert len(by_folder) == 6


def _expanded(text: str, values: dict[str, str]) -> str:
    """`text` with each ${{ expression }} replaced by its value in `values`."""
    import re

    done = re.sub(r"\$\{\{\s*([^}]+?)\s*\}\}", lambda found: values[found.group(1)], text)
    assert "${{" not in done
    return done


def _restored(step: dict, values: dict[str, str], saved: list[str]) -> str | None:
    """The key actions/cache restores, of the `saved` ones (oldest first): the exact key, else
    the newest that starts with the first restore key that any starts with (GitHub's "Cache
    key matching")."""
    key = _expanded(step["with"]["key"], values)
    if key in saved:
        return key
    for prefix in _expanded(step["with"]["restore-keys"], values).split():
        found = [name for name in saved if name.startswith(prefix)]
        if found:
            return found[-1]
    return None


def test_actions_cache_hands_a_job_what_its_own_group_saved_and_nothing_of_another(groups):
    root, folders = groups
    steps = _build_steps(root)
    restore = next(step for name, step in steps.items() if name.startswith("Restore the compiler cache"))
    assert restore["with"]["path"] == "${{ runner.temp }}/compiler-cache"
    assert "$RUNNER_TEMP/compiler-cache" in next(step["run"] for name, step in steps.items()
                                                 if name.startswith("Keep the compiler cache"))

    def job(axes: str, run_id: str) -> dict[str, str]:
        name = f"pytorch-python313-{axes}"
        return {"runner.os": "Linux", "runner.arch": "X64", "runner.temp": "/tmp/runner",
                "github.run_id": run_id, "github.run_attempt": "1", "env.TORCH": name,
                "steps.compiler-cache.outputs.group": folders[name].rsplit("/", 1)[1]}

    # what jobs of an earlier run saved, each under its own key (actions/cache saves at the end)
    saved = [_expanded(restore["with"]["key"], job(axes, "100")) for axes in ("cuda12_8-sm80-avx2", "cpu-avx2")]
    assert len(set(saved)) == 2
    # a later run: sm90 of sm80's group takes sm80's; the other groups take nothing
    assert _restored(restore, job("cuda12_8-sm90-avx2", "101"), saved) == saved[0]
    assert _restored(restore, job("cpu-avx2", "101"), saved) == saved[1]
    for axes in ("cuda12_8-sm75-avx2", "cuda12_9-sm80-avx2", "cpu-avx512"):
        assert _restored(restore, job(axes, "101"), saved) is None, axes
    # two jobs of one group in one run save under keys of their own
    assert _expanded(restore["with"]["key"], job("cuda12_8-sm80-avx2", "102")) != \
        _expanded(restore["with"]["key"], job("cuda12_8-sm90-avx2", "102"))
