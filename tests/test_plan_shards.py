"""`gen-matrix ci --plan` past GitHub's 256 shards a run: where the variants new since the
revision (or, with no revision, every variant) need more, the plan refuses before rendering or
evaluating a recipe (at 86,000 variants the evaluation would take up to the plan job's 20
minutes), at the matrix section that selects the most, and says what to do: the axes to make
smaller, or the variants added in parts. A stand-in nix-instantiate on PATH records whether
evaluation started: just past the limit and far past it, it never does; at the limit, it does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))
from bench import synthetic_matrix  # noqa: E402

# 4 Pythons × 4 CUDA releases × 10 SMs × 2 ISAs, less what CUDA 13 no longer compiles for:
# more than 256 torch builds, so more than 256 shards of one.
WIDE = """\
pytorch: {version: "2.9.1"}
nixpkgs: {rev: 6a030d535719c5190187c4cec156f335e95e3211}
gpu:
  python: ["3.11", "3.12", "3.13", "3.14"]
  cuda: ["12.6", "12.8", "12.9", "13.0"]
  sm: [sm75, sm80, sm86, sm89, sm90, sm100, sm103, sm120, sm70, sm61]
  isa: [avx2, avx512]
"""


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root, check=True,
                   capture_output=True)


@pytest.fixture
def recorder(tmp_path, monkeypatch) -> Path:
    """A nix-instantiate first on PATH that writes down each time it runs, and fails."""
    folder = tmp_path / "bin"
    folder.mkdir()
    called = tmp_path / "nix-instantiate-called"
    script = folder / "nix-instantiate"
    script.write_text(f"#!/bin/sh\necho \"$@\" >> '{called}'\necho 'error: a stand-in' >&2\nexit 1\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}:{subprocess.os.environ['PATH']}")
    return called


def committed(root: Path, matrix: str, run, generate_base: bool) -> None:
    """`root` with a commit of the matrix generated, or one of nothing followed by one of the matrix."""
    root.mkdir()
    if generate_base:
        (root / "matrix.yaml").write_text(matrix)
        assert run("--root", root).exit_code == 0
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", "base")
    if generate_base:
        return
    (root / "matrix.yaml").write_text(matrix)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "the matrix")


def plan(run, root: Path, folder: Path, *more: str, since: bool = True):
    return run("ci", "--root", root, *(("--changed-since", "HEAD~1") if since else ()), "--by", "derivations",
               "--nixpkgs", f"default={REPO / 'tests/nix/nixpkgs-6a030d5'}", "--plan", folder, *more)


# 256 GPU torches (4 Pythons × 2 CUDA releases × 8 SMs × 4 ISAs, every one buildable) on the
# self-hosted GPU runner and one CPU torch on ubuntu-latest: in shards of one, 257, one past
# what a run holds; without the CPU section, 256 exactly.
JUST_OVER = """\
pytorch: {version: "2.9.1"}
nixpkgs: {rev: 6a030d535719c5190187c4cec156f335e95e3211}
gpu:
  python: ["3.11", "3.12", "3.13", "3.14"]
  cuda: ["12.8", "12.9"]
  sm: [sm61, sm70, sm75, sm80, sm86, sm89, sm90, sm120]
  isa: [avx, avx2, avx512, avx512bf16]
cpu:
  python: ["3.13"]
  isa: [avx2]
"""
AT_THE_LIMIT = JUST_OVER.split("cpu:")[0]
# Far past it: 4 × 3 × 12 × 5 GPU torches, less the 40 of CUDA 12.6 with sm100 or sm120 (it is too
# old for them): 680, and 5 CPU ones.
FAR_OVER = (JUST_OVER.replace('["12.8", "12.9"]', '["12.6", "12.8", "12.9"]')
            .replace("sm: [sm61,", "sm: [sm50, sm52, sm60, sm61,").replace("sm120]", "sm100, sm120]")
            .replace("avx512bf16]", "avx512bf16, avx512vnni]")
            .replace("isa: [avx2]", "isa: [avx, avx2, avx512, avx512bf16, avx512vnni]"))


@pytest.mark.parametrize("since", [True, False], ids=["changed-since", "every-variant"])
@pytest.mark.parametrize("matrix, shards, counts, axes", [
    (JUST_OVER, 257, "(gpu 256, cpu 1)", "gpu.sm: 8 values; gpu.isa: 4 values; gpu.python: 4 values; "
                                          "gpu.cuda: 2 values"),
    (FAR_OVER, 685, "(gpu 680, cpu 5)", "gpu.sm: 12 values; gpu.isa: 5 values; gpu.python: 4 values; "
                                         "gpu.cuda: 3 values"),
], ids=["just-over", "far-over"])
def test_past_256_shards_the_plan_refuses_before_evaluating_and_names_the_axes(tmp_path, run, recorder, since,
                                                                                matrix, shards, counts, axes):
    root, folder = tmp_path / "repo", tmp_path / "plan"
    committed(root, matrix, run, generate_base=False)
    result = plan(run, root, folder, "--shard-size", "1", since=since)
    assert result.exit_code == 2, result.output
    error = next(line for line in result.output.splitlines() if line.startswith("error:"))
    # at the section that selects the most, with the count of each kind
    assert error.startswith(f"error: {root / 'matrix.yaml'}:3:1: the selection needs {shards} shards of at most 1 "
                            f"torch builds, and a run holds at most 256: {shards} torch builds in one run {counts}")
    assert error.endswith(", before evaluating: these are new since the revision, selected whatever the recipes "
                          "evaluate to") == since
    assert (f"hint: raise ci.shard_size (or --shard-size) from 1 to 256, take values out of the largest axes "
            f"({axes}), or add the variants in parts") in result.output
    assert not recorder.exists() and not folder.exists()
    assert "Traceback" not in result.output


def test_at_256_shards_the_plan_goes_on_to_evaluate(tmp_path, run, recorder):
    root, folder = tmp_path / "repo", tmp_path / "plan"
    committed(root, AT_THE_LIMIT, run, generate_base=False)
    assert run("--root", root).exit_code == 0  # the recipes, to evaluate
    result = plan(run, root, folder, "--shard-size", "1")
    assert recorder.exists() and "a run holds at most 256" not in result.output


def test_a_selection_that_may_fit_is_evaluated(tmp_path, run, recorder):
    """Every variant but the new ones was in the state at the revision: by derivations the
    selection may be small, so the recipes are evaluated (here by the stand-in, which fails)."""
    root, folder = tmp_path / "repo", tmp_path / "plan"
    committed(root, WIDE, run, generate_base=True)
    wider = WIDE.replace("sm61]", "sm61, sm60]")  # a few new variants
    (root / "matrix.yaml").write_text(wider)
    assert run("--root", root).exit_code == 0
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "one SM more")
    plan(run, root, folder, "--shard-size", "1")
    assert recorder.exists()


@pytest.mark.slow
def test_at_86000_variants_the_plan_refuses_before_evaluating(tmp_path, run, recorder):
    """The benchmark's matrix (benchmarks/bench.py), first committed: 86,486 variants, every
    one new since the revision, in 259 shards of 256; not one recipe is rendered or evaluated."""
    root, folder = tmp_path / "repo", tmp_path / "plan"
    committed(root, yaml.safe_dump(synthetic_matrix(86_000), sort_keys=False), run, generate_base=False)
    result = plan(run, root, folder)
    assert result.exit_code == 2, result.output[-2000:]
    assert "the selection needs 259 shards of at most 256 torch builds" in result.output
    assert "before evaluating" in result.output
    assert "hint: take values out of the largest axes (gpu." in result.output and "shard_size" not in result.output
    assert not recorder.exists() and not folder.exists()
    assert not (root / ".flox").exists()
