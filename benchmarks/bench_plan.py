"""Benchmark the CI plan: the one `gen-matrix ci --plan` run of the plan job, at 2,000,
10,000 and 50,000 variants, against GitHub's limits.

For each size a synthetic matrix (benchmarks/bench.py's) is generated and committed in a
git repository, and each figure is the median of several runs, each a fresh process, with
the process's peak memory (VmHWM):

  every     `gen-matrix ci --plan DIR --organisation acme`: no revision, every variant
            selected; the largest outputs, summary and plan a run can have
  changed   `gen-matrix ci --changed-since HEAD~1 --plan DIR --organisation acme` after a
            commit that changes the build of one SM and the metadata of another (rebuilds
            and metadata-only builds): the committed state read back with git and compared

Both select by text identity (`--by text`, the default): what gen-matrix itself does. The
plan job selects `--by derivations`, as the third figure does, once (it takes minutes):

  derivations  `gen-matrix ci --changed-since HEAD~1 --by derivations --time-limit 20 --plan
            DIR`, as the plan job runs it, against the test package set of the synthetic
            matrix's pin (tests/nix/nixpkgs-6a030d5, which imports ../nixpkgs: gen-matrix
            reads it from this checkout's git work tree): every recipe evaluated now, and at the
            base revision only those whose files differ there; what the 20 minutes do not
            reach is compared by its text identity, and counted. A plan that measured no
            evaluation stops the benchmark with an error (exit 1, saying why): no recipe
            evaluated, every one failed, or restricted evaluation refused to read one
  plain     one plain `nix-instantiate --eval --strict --json` over the recipes the plan
            found to evaluate, the baseline of Nix's own speed: ONE process, unrestricted (no
            sandbox options), each recipe imported with the test package set of its pin and
            system (tests/nix/nixpkgs-6a030d5-<system>, as the tests' drv_paths does) and its
            three drvPaths taken (the wrapper, the heavy build, the Python env), as eval.nix
            takes them. Its drvPaths must equal the plan's (eval.txt), or the benchmark stops

The plan by derivations and the plain run are timed by wall clock and by CPU (user and system
of the children, their nix-instantiate processes included, from getrusage); the processes
the plan started are counted through a nix-instantiate on PATH that logs each start.

Printed for the largest outputs (`every`): the shards, the largest shard output and all the
plan job's outputs together, in UTF-16 as GitHub counts them (GitHub: 1 MB of outputs per
job, 50 MB per run), the step summary (GitHub: 1 MiB), the plan's JSON (an artifact), and
the two workflow files with the longest `run:` script of either. With --actionlint,
the generated workflow is also checked with actionlint and shellcheck (tests/test_ci.py's
way), and the time that took is printed.

Budgets, printed as met or not: at 50,000 variants the plan takes at most 180 s; it grows
linearly (the time per variant at the largest size at most twice that at the smallest);
the plan job's outputs together under 1 MB, the summary under 1 MiB, shards of at most 256
jobs, at most 256 shards; each workflow file under 500,000 bytes (GitHub starts no run of a
larger one) and every `run:` script under 18,000 characters (one of about 20,000 made
GitHub refuse a workflow); `--by derivations` within the plan job's 30 minutes, its CPU at
most 1.5x the plain nix-instantiate's, and every recipe evaluated within its 20 minutes.

Usage:
  python benchmarks/bench_plan.py                   # 2,000, 10,000 and 50,000 variants
  python benchmarks/bench_plan.py --sizes 2000 --runs 5 --actionlint
  python benchmarks/bench_plan.py --sizes 2000 10000 --no-derivations
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench import REPO, gen_matrix, measure, synthetic_matrix  # noqa: E402

MB, MIB = 1_000_000, 1024 * 1024
BUDGET_SECONDS = 180.0
BIN = Path(sys.executable).parent
WORKFLOW_BYTES, RUN_CHARACTERS = 500_000, 18_000
PLAN_JOB_SECONDS = 30 * 60
WORKFLOWS = (".github/workflows/flox-variants.yml", ".github/workflows/flox-variants-build.yml")
PACKAGE_SET = REPO / "tests" / "nix" / "nixpkgs-6a030d5"  # the synthetic matrix's pin
PLAIN_RATIO = 1.5  # the plan by derivations' CPU against one plain nix-instantiate's
EVALUATION_SECONDS = 20 * 60  # the plan job's --time-limit


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def repository(target: int, work: Path) -> tuple[Path, int]:
    """A git repository with a synthetic matrix of at least `target` variants, generated and
    committed, then a second commit with one SM's build and another's metadata changed."""
    root = work / "repo"
    root.mkdir()
    matrix = synthetic_matrix(target)
    (root / "matrix.yaml").write_text(yaml.safe_dump(matrix, sort_keys=False))
    _, _, out = measure(gen_matrix("--root", str(root)))
    variants = int(out.split(" variants")[0].rsplit(" ", 1)[-1])
    git(root, "init", "-q", "-b", "main")
    for key, value in (("user.name", "Bench"), ("user.email", "bench@example.invalid"), ("commit.gpgsign", "false")):
        git(root, "config", key, value)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "The matrix")
    sms = matrix.setdefault("knowledge", {}).setdefault("sm", {})
    sms["sm90"] = {"gpus": ["H100", "H200", "GH200", "H20"]}  # metadata: wrappers only
    sms["sm86"] = {"cudnn": False}  # the build: heavy builds
    (root / "matrix.yaml").write_text(yaml.safe_dump(matrix, sort_keys=False))
    measure(gen_matrix("--root", str(root)))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "sm90's GPUs, sm86 without cuDNN")
    return root, variants


def sizes_of(folder: Path, root: Path) -> dict:
    outputs = {}
    for line in (folder / "github-output").read_text().splitlines():
        key, value = line.split("=", 1)
        outputs[key] = len(value.encode("utf-16-le"))  # as GitHub counts an output's size
    shards = next(json.loads(line.split("=", 1)[1])["include"]
                  for line in (folder / "github-output").read_text().splitlines() if line.startswith("shards="))
    documents = [yaml.safe_load((root / path).read_text()) for path in WORKFLOWS]
    scripts = [step["run"] for document in documents for job in document["jobs"].values()
               for step in job.get("steps", ()) if "run" in step]
    return {
        "shards": len(shards),
        "largest_shard_jobs": max((len(shard["slots"]) for shard in shards), default=0),
        "largest_output_bytes": max(outputs.values()),
        "outputs_bytes": sum(outputs.values()),
        "summary_bytes": (folder / "summary.md").stat().st_size,
        "plan_json_bytes": (folder / "plan.json").stat().st_size,
        "workflow_bytes": max((root / path).stat().st_size for path in WORKFLOWS),
        "longest_run_characters": max(len(script) for script in scripts),
        "builds": len(json.loads((folder / "plan.json").read_text())["builds"]),
    }


def actionlint(root: Path) -> tuple[bool, float, str]:
    found = {name: shutil.which(name, path=str(BIN)) or shutil.which(name) for name in ("actionlint", "shellcheck")}
    if None in found.values():
        return False, 0.0, "actionlint or shellcheck not found: pip install -e '.[test]'"
    start = time.perf_counter()
    done = subprocess.run([found["actionlint"], "-no-color", "-shellcheck", found["shellcheck"], *WORKFLOWS],
                          cwd=root, capture_output=True, text=True)
    return done.returncode == 0, time.perf_counter() - start, (done.stdout + done.stderr)[-2000:]


def children_cpu() -> float:
    """CPU seconds (user and system) of the children waited for so far, theirs included."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def counting(work: Path) -> Path:
    """A folder holding a nix-instantiate that logs each start to work/processes and runs the
    real one: put first on PATH, it counts the processes a run starts."""
    real = shutil.which("nix-instantiate")
    if real is None:
        raise SystemExit("bench_plan: nix-instantiate is not on PATH: the plan by derivations needs it")
    folder = work / "counting"
    folder.mkdir()
    wrapper = folder / "nix-instantiate"
    wrapper.write_text(f'#!/bin/sh\necho >> "{work / "processes"}"\nexec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    return folder


def derivations(root: Path, work: Path, variants: int) -> dict:
    """One plan as the plan job makes it, by derivations, against the test package set."""
    folder = work / "derivations"
    path = os.environ["PATH"]
    os.environ["PATH"] = f"{counting(work)}{os.pathsep}{path}"
    try:
        before = children_cpu()
        seconds, peak, _ = measure(gen_matrix("ci", "--root", str(root), "--changed-since", "HEAD~1", "--by",
                                              "derivations", "--nixpkgs", f"default={PACKAGE_SET}", "--time-limit",
                                              "20", "--plan", str(folder), "--organisation", "acme"))
        cpu = children_cpu() - before
    finally:
        os.environ["PATH"] = path
    plan = json.loads((folder / "plan.json").read_text())
    failed = len(plan["not_evaluated"])
    processes = (work / "processes").read_text().count("\n") if (work / "processes").exists() else 0
    row = {"seconds": seconds, "cpu": cpu, "processes": processes, "peak_mib": peak, "builds": len(plan["builds"]),
           "out_of_time": len(plan["out_of_time"]), "by_text": len(plan["by_text"]), "not_evaluated": failed,
           "evaluated": variants - failed - len(plan["out_of_time"]),
           "errors": Counter(entry["error"] for entry in plan["not_evaluated"]).most_common(3)}
    stop = measured_nothing(row, plan["not_evaluated"], variants)
    if stop:
        raise SystemExit(f"bench_plan: the plan by derivations measured nothing: {stop}")
    row["plain"] = plain(root, work, evaluated_now(folder / "eval.txt"))
    return row


def evaluated_now(eval_txt: Path) -> dict[str, tuple[str, str]]:
    """Recipe -> (heavy drvPath, wrapper drvPath) of those the plan evaluated, from its eval.txt."""
    found = {}
    for line in eval_txt.read_text().splitlines():
        fields = line.split("  ")
        if len(fields) == 3 and fields[1].endswith(".drv") and fields[2].endswith(".drv"):
            found[fields[0]] = (fields[1], fields[2])
    return found


def plain(root: Path, work: Path, evaluated: dict[str, tuple[str, str]]) -> dict:
    """One plain nix-instantiate over the recipes in `evaluated`, unrestricted: its wall and
    CPU seconds. Stops the benchmark where it fails, or where its drvPaths are not the plan's."""
    from generator import run as generator_run
    from generator.layout import PKGS_DIR, locate

    systems = {v.name: v.system for v in generator_run.expansion(locate(str(root / "matrix.yaml"), str(root))).variants}
    names = sorted(evaluated)
    expression = "[\n" + "".join(
        f"(let r = import (/. + {json.dumps(str(root / PKGS_DIR / (name + '.nix')))}) {{ genMatrixNixpkgs = "
        f"/. + {json.dumps(f'{PACKAGE_SET}-{systems[name]}')}; }}; in [ r.unwrapped.drvPath r.drvPath "
        f"r.pythonEnv.drvPath ])\n" for name in names) + "]\n"
    file = work / "plain.nix"
    file.write_text(expression)
    before, start = children_cpu(), time.perf_counter()
    done = subprocess.run(["nix-instantiate", "--eval", "--strict", "--json", str(file)], capture_output=True, text=True)
    seconds, cpu = time.perf_counter() - start, children_cpu() - before
    if done.returncode != 0:
        raise SystemExit(f"bench_plan: the plain nix-instantiate failed:\n{done.stderr[-2000:]}")
    drvs = json.loads(done.stdout)
    differ = [name for name, found in zip(names, drvs) if tuple(found[:2]) != evaluated[name]]
    if differ:
        raise SystemExit(f"bench_plan: the plain nix-instantiate gives other drvPaths than the plan for "
                         f"{len(differ)} recipes, the first: {differ[0]}")
    return {"seconds": seconds, "cpu": cpu, "recipes": len(names)}


def measured_nothing(row: dict, failures: list[dict], variants: int) -> str | None:
    """Why a plan by derivations measured no evaluation of the recipes, or None: no recipe
    evaluated, every one failed, or evaluation refused to read what it was given (the
    figure then times the refusal, not the recipes)."""
    refused = next((f for f in failures if "forbidden in restricted mode" in f["error"]), None)
    if refused is not None:
        return f"{refused['name']}: {refused['error']}"
    if variants and row["not_evaluated"] >= variants:
        return f"all {variants} recipes failed to evaluate, the first: {failures[0]['error']}"
    if row["evaluated"] <= 0:
        return f"none of the {variants} recipes evaluated ({row['out_of_time']} out of time)"
    return None


def bench(target: int, runs: int, work: Path, lint: bool, by_derivations: bool = True) -> dict:
    root, variants = repository(target, work)
    result: dict = {"variants": variants, "runs": runs}
    for name, since in (("every", ()), ("changed", ("--changed-since", "HEAD~1"))):
        samples = []
        for i in range(runs):
            folder = work / f"{name}{i}"
            samples.append(measure(gen_matrix("ci", "--root", str(root), *since, "--plan", str(folder),
                                              "--organisation", "acme"))[:2])
        result[name] = {"seconds": statistics.median(s for s, _ in samples), "peak_mib": max(m for _, m in samples),
                        "runs_seconds": [s for s, _ in samples], **sizes_of(work / f"{name}0", root)}
    if by_derivations:
        result["derivations"] = derivations(root, work, variants)
    if lint:
        ok, seconds, output = actionlint(root)
        result["actionlint"] = {"passed": ok, "seconds": seconds, "output": "" if ok else output}
    shutil.rmtree(root)
    return result


def print_result(result: dict) -> None:
    print(f"{result['variants']} variants, median of {result['runs']} runs")
    print(f"  {'':8} {'seconds':>8} {'peak MiB':>9} {'builds':>7} {'shards':>7} {'largest output':>15} "
          f"{'all outputs':>12} {'summary':>9} {'plan.json':>10}")
    for name in ("every", "changed"):
        row = result[name]
        print(f"  {name:8} {row['seconds']:8.2f} {row['peak_mib']:9.0f} {row['builds']:7} {row['shards']:7} "
              f"{row['largest_output_bytes']:>13,} B {row['outputs_bytes']:>10,} B {row['summary_bytes']:>7,} B "
              f"{row['plan_json_bytes']:>8,} B")
    print(f"  largest workflow file {result['every']['workflow_bytes']:,} B, longest run: script "
          f"{result['every']['longest_run_characters']:,} characters")
    if "derivations" in result:
        row = result["derivations"]
        print(f"  by derivations (--time-limit 20): {row['seconds']:.1f} s, peak {row['peak_mib']:.0f} MiB, "
              f"{row['evaluated']} recipes evaluated, {row['not_evaluated']} do not evaluate, "
              f"{row['out_of_time']} not evaluated in time, {row['builds']} builds, {row['by_text']} by text")
        base = row["plain"]
        print(f"  {'':26} {'wall s':>8} {'CPU s':>8} {'processes':>10}")
        print(f"  {'by derivations':26} {row['seconds']:8.1f} {row['cpu']:8.1f} {row['processes']:10}")
        print(f"  {'plain nix-instantiate':26} {base['seconds']:8.1f} {base['cpu']:8.1f} {1:10}   "
              f"({base['recipes']} recipes that evaluate, unrestricted)")
        print(f"  by derivations / plain: CPU {row['cpu'] / base['cpu']:.2f}x, wall {row['seconds'] / base['seconds']:.2f}x")
        for error, count in row["errors"]:
            print(f"    {count} do not evaluate: {error}")
    if "actionlint" in result:
        lint = result["actionlint"]
        print(f"  actionlint with shellcheck: {'passed' if lint['passed'] else 'FAILED'} in {lint['seconds']:.1f} s")
        if not lint["passed"]:
            print(lint["output"])


def budgets(results: list[dict]) -> list[tuple[str, str, bool]]:
    found = []
    for result in results:
        n, every = result["variants"], result["every"]
        found.append((f"{n} variants, the plan job's outputs (UTF-16) <= 1 MB", f"{every['outputs_bytes']:,} B",
                      every["outputs_bytes"] <= MB))
        found.append((f"{n} variants, summary <= 1 MiB", f"{every['summary_bytes']:,} B", every["summary_bytes"] <= MIB))
        found.append((f"{n} variants, shards of <= 256 jobs", f"{every['largest_shard_jobs']}",
                      every["largest_shard_jobs"] <= 256))
        found.append((f"{n} variants, <= 256 shards", f"{every['shards']}", every["shards"] <= 256))
        found.append((f"{n} variants, each workflow file < {WORKFLOW_BYTES:,} B", f"{every['workflow_bytes']:,} B",
                      every["workflow_bytes"] < WORKFLOW_BYTES))
        found.append((f"{n} variants, every run: script < {RUN_CHARACTERS:,} characters",
                      f"{every['longest_run_characters']:,}", every["longest_run_characters"] < RUN_CHARACTERS))
        if "derivations" in result:
            seconds = result["derivations"]["seconds"]
            found.append((f"{n} variants, --by derivations within the plan job's 30 minutes", f"{seconds:.0f} s",
                          seconds < PLAN_JOB_SECONDS))
            row = result["derivations"]
            ratio = row["cpu"] / row["plain"]["cpu"]
            found.append((f"{n} variants, --by derivations CPU <= {PLAIN_RATIO:g}x one plain nix-instantiate",
                          f"{ratio:.2f}x ({row['cpu']:.1f} s against {row['plain']['cpu']:.1f} s)",
                          ratio <= PLAIN_RATIO))
            found.append((f"{n} variants, --by derivations evaluates every recipe within {EVALUATION_SECONDS // 60} "
                          "minutes wall", f"{seconds:.0f} s, {row['out_of_time']} not evaluated in time",
                          seconds <= EVALUATION_SECONDS and row["out_of_time"] == 0))
        if "actionlint" in result:
            found.append((f"{n} variants, actionlint with shellcheck", "passed" if result["actionlint"]["passed"]
                          else "failed", result["actionlint"]["passed"]))
    by_size = {r["variants"]: r for r in results}
    largest = max(by_size)
    if largest >= 40_000:
        seconds = max(by_size[largest][name]["seconds"] for name in ("every", "changed"))
        found.append((f"{largest} variants, plan <= {BUDGET_SECONDS:.0f} s", f"{seconds:.1f} s", seconds <= BUDGET_SECONDS))
    smallest = min(by_size)
    if largest >= 4 * smallest:
        for name in ("every", "changed"):
            per_small = by_size[smallest][name]["seconds"] / smallest
            per_large = by_size[largest][name]["seconds"] / largest
            found.append((f"{name} linear to {largest} variants (per variant <= 2x that at {smallest})",
                          f"{per_large / per_small:.2f}x", per_large <= 2 * per_small))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="*", default=[2000, 10000, 50000],
                        help="synthetic matrices of at least these many variants")
    parser.add_argument("--runs", type=int, default=3, help="runs of each figure")
    parser.add_argument("--actionlint", action="store_true", help="also check each generated workflow with actionlint")
    parser.add_argument("--no-derivations", dest="derivations", action="store_false",
                        help="leave out the plan by derivations (minutes at 10,000 variants and more)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--dir", type=Path, help="where the trees are written [default: the system's temporary folder]")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory(prefix="gen-matrix-bench-plan-", dir=args.dir) as folder:
        for i, size in enumerate(args.sizes):
            work = Path(folder) / f"synthetic{i}"
            work.mkdir()
            results.append(bench(size, args.runs, work, args.actionlint, args.derivations))
            print_result(results[-1])
            print(flush=True)
    print("budgets")
    found = budgets(results)
    for budget, figure, met in found:
        print(f"  {'met    ' if met else 'NOT MET'}  {budget}: {figure}")
    if args.json:
        args.json.write_text(json.dumps({"results": results, "budgets": [
            {"budget": b, "figure": f, "met": m} for b, f, m in found]}, indent=2) + "\n")


if __name__ == "__main__":
    main()
