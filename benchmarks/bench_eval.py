"""Benchmark `gen-matrix eval` (and the plan's `gen-matrix ci --by derivations`) against the
test package set, with the real nix-instantiate.

Each matrix is generated into a fresh folder; each pin's recipes are evaluated against the
package set in tests/nix that impersonates that pin (tests/nix/nixpkgs-<rev>), and each
figure is the median of several runs, each a fresh process:

  eval          `gen-matrix eval --nixpkgs PIN=PATH ...`: every recipe, exit 0 expected
  ci            `gen-matrix ci --changed-since HEAD --by derivations`: every recipe evaluated
                twice (at HEAD's commit and in the working tree), as the plan job does

Budget, printed as met or not: the 237 recipes of examples/pytorch-2.10 evaluate in at most
60 s.

Usage:
  python benchmarks/bench_eval.py                 # the shipped matrix and examples/pytorch-2.10
  python benchmarks/bench_eval.py --runs 5
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
TEST_NIX = REPO / "tests" / "nix"
MATRICES = {"shipped matrix.yaml": REPO / "matrix.yaml", "examples/pytorch-2.10": REPO / "examples/pytorch-2.10/matrix.yaml"}
BUDGET = ("examples/pytorch-2.10", 60.0)


def gen_matrix() -> list[str]:
    return [sys.executable, "-m", "generator"]


def package_sets(matrix: Path) -> list[str]:
    """--nixpkgs PIN=PATH for each pin of `matrix`: the test package set of its revision."""
    data = yaml.safe_load(matrix.read_text())
    pins = data["nixpkgs"].get("pins") or [dict(data["nixpkgs"], name="default")]
    found = []
    for pin in pins:
        folder = TEST_NIX / f"nixpkgs-{pin['rev'][:7]}"
        if not folder.is_dir():
            raise SystemExit(f"no test package set for the pin {pin['name']} ({pin['rev']}): {folder}")
        found += ["--nixpkgs", f"{pin['name']}={folder}"]
    return found


def timed(args: list[str], cwd: Path) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} exited with {done.returncode}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return elapsed, done.stdout


def bench(title: str, matrix: Path, runs: int, work: Path) -> dict:
    root = work / title.replace("/", "-").replace(" ", "-")
    root.mkdir()
    shutil.copy(matrix, root / "matrix.yaml")
    subprocess.run([*gen_matrix(), "--root", root], cwd=REPO, check=True, capture_output=True)
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "generated"], cwd=root, check=True)
    sets = package_sets(matrix)
    evals, cis, last = [], [], ""
    for _ in range(runs):
        elapsed, last = timed([*gen_matrix(), "eval", "--root", str(root), *sets], REPO)
        evals.append(elapsed)
        elapsed, _ = timed([*gen_matrix(), "ci", "--root", str(root), "--changed-since", "HEAD", "--by", "derivations",
                            *sets], REPO)
        cis.append(elapsed)
    counts = last.splitlines()[-1]
    return {"title": title, "recipes": int(counts.split()[1]), "counts": counts,
            "eval": statistics.median(evals), "ci": statistics.median(cis)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="runs of each figure")
    args = parser.parse_args()
    if shutil.which("nix-instantiate") is None:
        raise SystemExit("nix-instantiate is not on PATH: install Nix (apt-get install nix-bin)")
    version = subprocess.run(["nix-instantiate", "--version"], capture_output=True, text=True).stdout.strip()
    print(f"{version}; {os.cpu_count()} cores; median of {args.runs} runs")
    results = []
    with tempfile.TemporaryDirectory(prefix="gen-matrix-bench-eval-") as folder:
        for title, matrix in MATRICES.items():
            results.append(bench(title, matrix, args.runs, Path(folder)))
    print(f"{'matrix':<24} {'recipes':>7} {'eval':>9} {'ci --by derivations':>20}")
    for result in results:
        print(f"{result['title']:<24} {result['recipes']:>7} {result['eval']:>8.2f}s {result['ci']:>19.2f}s")
        print(f"  {result['counts']}")
    title, limit = BUDGET
    measured = next(r for r in results if r["title"] == title)
    met = measured["eval"] <= limit
    print("budgets")
    print(f"  {'met    ' if met else 'NOT MET'}  {title}, {measured['recipes']} recipes, eval <= {limit:.0f} s: "
          f"{measured['eval']:.2f} s")


if __name__ == "__main__":
    main()
