"""The benchmarks' own checks. The gate: `generate` at 2,000 variants against a plain jinja2
script that writes the same files, paired in one run of benchmarks/bench.py (--paired), which
fails above its GATE. And benchmarks/bench_plan.py's plan by derivations, which stops with an
error where it measured no evaluation.

The figures are CPU times of fresh processes, the least of runs in the order A B B A, so that a
machine slowed by other work weighs on both sides alike; the script prints them, and pytest
shows them with the failure (or always with -s)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import REPO, needs_posix

BENCH = REPO / "benchmarks" / "bench.py"
sys.path.insert(0, str(REPO / "benchmarks"))

import bench  # noqa: E402
import bench_plan  # noqa: E402

REFUSED = "access to absolute path '/elsewhere/nixpkgs' is forbidden in restricted mode"
UNKNOWN_SM = "unknown CUDA capability 5.3"  # what a recipe of the synthetic matrix may fail with


def plan_of(variants: int, failures: list[tuple[str, str]], out_of_time: int = 0) -> tuple[dict, list[dict]]:
    """bench_plan's row of a plan by derivations, and its failures, as plan.json gives them."""
    entries = [{"name": name, "error": error} for name, error in failures]
    return {"not_evaluated": len(entries), "out_of_time": out_of_time,
            "evaluated": variants - len(entries) - out_of_time}, entries


@pytest.mark.parametrize("variants, failures, out_of_time, why", [
    (3, [("a", UNKNOWN_SM), ("b", UNKNOWN_SM)], 0, None),  # some evaluate: a measurement
    (3, [("a", UNKNOWN_SM), ("b", UNKNOWN_SM), ("c", "infinite recursion")], 0, "all 3 recipes failed"),
    (3, [("a", UNKNOWN_SM), ("b", REFUSED)], 0, f"b: {REFUSED}"),  # the box refused, whatever else evaluated
    (3, [("a", UNKNOWN_SM)], 2, "none of the 3 recipes evaluated (2 out of time)"),
    (0, [], 0, "none of the 0 recipes evaluated"),
])
def test_a_plan_by_derivations_that_measured_no_evaluation_says_why(variants, failures, out_of_time, why):
    found = bench_plan.measured_nothing(*plan_of(variants, failures, out_of_time), variants)
    assert found == why if why is None else found.startswith(why)


@pytest.mark.slow
@needs_posix("the children's CPU time (resource.getrusage)")
def test_generate_at_2000_variants_stays_within_the_gate_of_the_plain_jinja2_script(tmp_path):
    done = subprocess.run([sys.executable, str(BENCH), "--paired", "--sizes", "2000", "--runs", "3", "--dir",
                           str(tmp_path)], capture_output=True, text=True, cwd=REPO)
    print(done.stdout, done.stderr)
    gate = re.search(rf"(met    |NOT MET)  (\d+) variants, generate <= {bench.GATE:g}x the plain jinja2 script "
                     r"\(least CPU\): ([\d.]+)x", done.stdout)
    assert gate, done.stdout + done.stderr
    assert 2000 <= int(gate[2]) < 3000
    assert done.returncode == (0 if gate[1] == "met    " else 1)
    assert gate[1] == "met    ", f"generate took {gate[3]}x the plain jinja2 script's least CPU time"
