"""Benchmark gen-matrix on a synthetic matrix of thousands of variants.

For each figure the command runs in a fresh process several times and the median is
reported, with the process's peak memory (max RSS):

  cold          `gen-matrix generate` into an empty tree, with the cache as runs on other
                trees leave it (compiled templates, no record of this tree)
  first         the same with an empty cache: the first run after installing gen-matrix
  noop          `gen-matrix generate` on an up-to-date tree (it must write 0 files)
  noop-full     the same with --no-cache: every stage runs
  check         `gen-matrix check` on an up-to-date tree
  check-full    the same with --no-cache
  baseline      a bare Python loop writing the same bytes to the same number of files:
                the practical floor for cold generate

Each ratio to the baseline is the median over the runs of the figure's time over the time of
the baseline run just before it: the shared machine's speed drifts from one minute to the
next, and two runs taken together drift together. The same figures follow for the shipped
matrix.yaml. gen-matrix's bytecode is compiled first, as pip does when it installs a package,
and the cache lives in the benchmark's own folder.

Usage:
  python benchmarks/bench.py                      # about 2,000 variants, 9 runs each
  python benchmarks/bench.py --variants 4000 --runs 3 --json out.json
  python benchmarks/bench.py --scaling            # 500, 1,000, 2,000, 4,000 variants
  python benchmarks/bench.py --dir /dev/shm       # in memory: without the disk's variance
"""

from __future__ import annotations

import argparse
import compileall
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from generator import knowledge as knowledge_  # noqa: E402
from generator.knowledge import incompatibility  # noqa: E402

BASE_PYTHONS = ["3.11", "3.12", "3.13", "3.14"]

# The floor: the same texts, loaded from one file, written to the same paths.
BASELINE = """
import json, sys
from pathlib import Path
files = json.loads(Path(sys.argv[1]).read_text())
target = Path(sys.argv[2])
for relative, text in files.items():
    path = target / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
"""


def per_python() -> int:
    """Variants one Python contributes to the synthetic matrix, companions included."""
    k = knowledge_.build(knowledge_.builtin())
    gpu = [(c, s, i) for c in k.cuda.values() for s in k.sm.values() for i in k.isa.values()
           if not incompatibility(sm=s, cuda=c, isa=i)]
    companions = 2 * sum(1 for _, s, _ in gpu if s.name in ("sm90", "sm120"))
    return len(gpu) + companions + len(k.isa) + len(k.accelerator)


def synthetic_matrix(target: int) -> dict:
    """A realistic matrix: every CUDA, SM and ISA of the knowledge table, torchvision and
    torchaudio for the sm90 and sm120 variants, enough Pythons for `target` variants (beyond
    3.14, rows for future Pythons are added under knowledge:)."""
    k = knowledge_.build(knowledge_.builtin())
    count = max(1, math.ceil(target / per_python()))
    pythons = (BASE_PYTHONS + [f"3.{minor}" for minor in range(15, 15 + count)])[:count]
    # SMs that some CUDA release of the table still compiles for (not Kepler, Xavier)
    sms = sorted(s.name for s in k.sm.values() if any(not incompatibility(sm=s, cuda=c) for c in k.cuda.values()))
    matrix = {
        "pytorch": {"version": "2.9.1"},
        "nixpkgs": {"rev": "6a030d535719c5190187c4cec156f335e95e3211"},
        "build": {"jobs": 32, "system_features": ["big-parallel"]},
        "gpu": {"python": pythons, "cuda": sorted(k.cuda), "sm": sms, "isa": sorted(k.isa)},
        "cpu": {"python": pythons, "isa": sorted(k.isa)},
        "darwin": {"python": pythons, "accelerator": sorted(k.accelerator)},
        "companions": [{"packages": ["torchvision", "torchaudio"], "when": {"sm": ["sm90", "sm120"]}}],
    }
    extra = [p for p in pythons if p not in k.python]
    if extra:
        matrix["knowledge"] = {"python": {p: {} for p in extra}}
    return matrix


# Runs `-m MODULE ARGS` or `-c CODE ARGS` and reports the process's own peak memory
# (VmHWM) on exit, also when it ends with os._exit, as the gen-matrix command does. rusage
# cannot be used: a child's ru_maxrss also counts the parent's memory it was forked from.
PEAK = """
import atexit, os, runpy, sys
def report():
    with open("/proc/self/status") as status:
        peak = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    sys.stderr.write(f"\\nPEAK_KB {peak}\\n")
    sys.stderr.flush()
def hard_exit(status, exit=os._exit):
    report()
    exit(status)
atexit.register(report)
os._exit = hard_exit
mode, target, *sys.argv[1:] = sys.argv[1:]
if mode == "-m":
    sys.argv[0] = target
    runpy.run_module(target, run_name="__main__", alter_sys=True)
else:
    exec(compile(target, "<baseline>", "exec"), {"__name__": "__main__"})
"""


ENV = dict(os.environ)


def measure(args: list[str], env: dict | None = None) -> tuple[float, float, str]:
    """(seconds, peak MiB, stdout) of one run of `python ARGS` in a fresh process."""
    # Write back what earlier runs left dirty, so that no run pays for another's writes.
    os.sync()
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", PEAK, *args], capture_output=True, text=True, cwd=REPO, env=env or ENV)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(args[:2])} failed:\n{result.stderr}")
    peak_kb = int(re.search(r"PEAK_KB (\d+)", result.stderr).group(1))
    return elapsed, peak_kb / 1024, result.stdout


def gen_matrix(*args: str) -> list[str]:
    return ["-m", "generator", *args]


FIGURES = {
    "cold": ("generate",),
    "first": ("generate",),
    "noop": ("generate",),
    "noop-full": ("generate", "--no-cache"),
    "check": ("check",),
    "check-full": ("check", "--no-cache"),
}


def bench_tree(source: Path, runs: int, work: Path) -> dict:
    """Median figures of gen-matrix on copies of the tree `source` (its matrix.yaml, and its
    README when it has one), against the baseline of writing what it generates."""
    inputs = [name for name in ("matrix.yaml", "README.md") if (source / name).exists()]

    def seeded(folder: Path) -> Path:
        """`folder`, made, with a copy of the inputs and nothing generated."""
        folder.mkdir()
        for name in inputs:
            shutil.copy(source / name, folder / name)
        return folder

    sample = seeded(work / "sample")
    _, _, out = measure(gen_matrix("--root", str(sample)))
    variants = int(re.search(r"(\d+) variants", out).group(1))
    generated = {p.relative_to(sample).as_posix(): p.read_text() for p in sorted(sample.rglob("*"))
                 if p.is_file() and p.name not in inputs}
    texts = work / "texts.json"
    texts.write_text(json.dumps(generated))

    figures: dict[str, list] = {name: [] for name in ("baseline", *FIGURES)}
    ratios: dict[str, list] = {name: [] for name in FIGURES}

    def timed(name: str, args: list[str], env: dict | None = None) -> str:
        """Runs the figure `name`, right after a run of the baseline to compare it with."""
        floor = work / "baseline"
        floor.mkdir()
        base = measure(["-c", BASELINE, str(texts), str(floor)])
        shutil.rmtree(floor)
        figures["baseline"].append(base[:2])
        seconds, peak, out = measure(args, env)
        figures[name].append((seconds, peak))
        ratios[name].append(seconds / base[0])
        return out

    for i in range(runs):
        tree, first = seeded(work / f"tree{i}"), seeded(work / f"first{i}")
        timed("cold", gen_matrix(*FIGURES["cold"], "--root", str(tree)))
        empty_cache = work / f"first-cache{i}"
        timed("first", gen_matrix(*FIGURES["first"], "--root", str(first)),
              dict(ENV, GEN_MATRIX_CACHE_DIR=str(empty_cache)))
        shutil.rmtree(first)
        shutil.rmtree(empty_cache, ignore_errors=True)
        # The run after a cold one finds the tree current, and records it in the cache.
        measure(gen_matrix("--root", str(tree)))
        for name in ("noop", "noop-full", "check", "check-full"):
            out = timed(name, gen_matrix(*FIGURES[name], "--root", str(tree)))
            written = re.search(r"(\d+) written", out)
            if written and int(written.group(1)):
                raise SystemExit(f"{name} generate wrote {written.group(1)} files")
            if name.startswith("check") and "are current" not in out:
                raise SystemExit(f"{name} did not find the tree current:\n{out}")
        shutil.rmtree(tree)
    result = {"variants": variants, "files": len(generated), "bytes": sum(len(t.encode()) for t in generated.values()),
              "runs": runs, "noop_files_written": 0}
    for name, samples in figures.items():
        result[name] = {"seconds": statistics.median(s for s, _ in samples),
                        "peak_mib": max(m for _, m in samples), "runs_seconds": [s for s, _ in samples]}
    for name in FIGURES:
        result[name]["x_baseline"] = statistics.median(ratios[name])
        result[name]["runs_x_baseline"] = ratios[name]
        result[name]["x_baseline_medians"] = result[name]["seconds"] / result["baseline"]["seconds"]
    return result


def bench(target: int, runs: int, work: Path) -> dict:
    source = work / "source"
    source.mkdir()
    (source / "matrix.yaml").write_text(yaml.safe_dump(synthetic_matrix(target), sort_keys=False))
    return bench_tree(source, runs, work)


def print_result(result: dict, title: str = "") -> None:
    print(f"{title}{result['variants']} variants, {result['files']} files, {result['bytes'] / 1e6:.1f} MB, "
          f"median of {result['runs']} runs")
    # x baseline: the median of the paired ratios; x medians: median seconds over the baseline's
    print(f"{'':11} {'seconds':>8} {'x baseline':>11} {'x medians':>10} {'peak MiB':>9}")
    for name in ("baseline", *FIGURES):
        row = result[name]
        ratios = (f"{row['x_baseline']:.2f}", f"{row['x_baseline_medians']:.2f}") if name in FIGURES else ("1.00",) * 2
        print(f"{name:11} {row['seconds']:8.3f} {ratios[0]:>11} {ratios[1]:>10} {row['peak_mib']:9.1f}")
    print(f"no-op generate wrote {result['noop_files_written']} files")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variants", type=int, default=2000, help="at least this many variants")
    parser.add_argument("--runs", type=int, default=9, help="runs of each figure; the machine's noise calls for several")
    parser.add_argument("--scaling", action="store_true", help="run at 500, 1000, 2000 and 4000 variants")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--dir", type=Path, help="where the trees are written [default: the system's temporary "
                        "folder]; a tmpfs such as /dev/shm takes the disk's own variance out of the figures")
    args = parser.parse_args()
    # Bytecode as an installed package has it (pip compiles it; PYTHONDONTWRITEBYTECODE may be set here).
    compileall.compile_dir(REPO / "generator", quiet=1)
    sizes = [500, 1000, 2000, 4000] if args.scaling else [args.variants]
    results = {"synthetic": []}
    with tempfile.TemporaryDirectory(prefix="gen-matrix-bench-", dir=args.dir) as folder:
        ENV["GEN_MATRIX_CACHE_DIR"] = str(Path(folder) / "cache")
        for i, size in enumerate(sizes):
            work = Path(folder) / f"synthetic{i}"
            work.mkdir()
            result = bench(size, args.runs, work)
            results["synthetic"].append(result)
            print_result(result)
            print()
        shipped = Path(folder) / "shipped"
        shipped.mkdir()
        results["shipped"] = bench_tree(REPO, args.runs, shipped)
        print_result(results["shipped"], "the shipped matrix.yaml: ")
    if args.scaling:
        print()
        print("scaling (median seconds, x baseline; cold per 1,000 variants; peak MiB of cold)")
        print(f"{'variants':>8} {'baseline':>8} {'cold':>13} {'check':>13} {'noop':>7} {'noop-full':>9} "
              f"{'check-full':>10} {'cold/1k':>7} {'peak':>5}")
        for r in results["synthetic"]:
            def figure(name: str) -> str:
                return f"{r[name]['seconds']:.3f} ({r[name]['x_baseline']:.2f}x)"
            print(f"{r['variants']:8} {r['baseline']['seconds']:8.3f} {figure('cold'):>13} {figure('check'):>13} "
                  f"{r['noop']['seconds']:7.3f} {r['noop-full']['seconds']:9.3f} {r['check-full']['seconds']:10.3f} "
                  f"{r['cold']['seconds'] / r['variants'] * 1000:7.3f} {r['cold']['peak_mib']:5.1f}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
