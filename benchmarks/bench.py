"""Benchmark gen-matrix on a synthetic matrix of thousands of variants.

For each figure the command runs in a fresh process several times and the median is
reported, with the process's peak memory (max RSS):

  cold      `gen-matrix generate` into an empty tree
  noop      `gen-matrix generate` on an up-to-date tree (it must write 0 files)
  check     `gen-matrix check` on an up-to-date tree
  baseline  a bare Python loop writing the same bytes to the same number of files:
            the practical floor for cold generate

Usage:
  python benchmarks/bench.py                      # about 2,000 variants, 5 runs each
  python benchmarks/bench.py --variants 4000 --runs 3 --json out.json
  python benchmarks/bench.py --scaling            # 500, 1,000, 2,000, 4,000 variants
  python benchmarks/bench.py --dir /dev/shm       # in memory: without the disk's variance
"""

from __future__ import annotations

import argparse
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
# (VmHWM) on exit. rusage cannot be used: a child's ru_maxrss also counts the parent's
# memory it was forked from.
PEAK = """
import atexit, runpy, sys
def report():
    with open("/proc/self/status") as status:
        peak = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    sys.stderr.write(f"\\nPEAK_KB {peak}\\n")
atexit.register(report)
mode, target, *sys.argv[1:] = sys.argv[1:]
if mode == "-m":
    sys.argv[0] = target
    runpy.run_module(target, run_name="__main__", alter_sys=True)
else:
    exec(compile(target, "<baseline>", "exec"), {"__name__": "__main__"})
"""


def measure(args: list[str]) -> tuple[float, float, str]:
    """(seconds, peak MiB, stdout) of one run of `python ARGS` in a fresh process."""
    # Write back what earlier runs left dirty, so that no run pays for another's writes.
    os.sync()
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", PEAK, *args], capture_output=True, text=True, cwd=REPO)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(args[:2])} failed:\n{result.stderr}")
    peak_kb = int(re.search(r"PEAK_KB (\d+)", result.stderr).group(1))
    return elapsed, peak_kb / 1024, result.stdout


def gen_matrix(*args: str) -> list[str]:
    return ["-m", "generator", *args]


def bench(target: int, runs: int, work: Path) -> dict:
    source = work / "source"
    source.mkdir()
    (source / "matrix.yaml").write_text(yaml.safe_dump(synthetic_matrix(target), sort_keys=False))
    _, _, out = measure(gen_matrix("--root", str(source)))
    variants = int(re.search(r"(\d+) variants", out).group(1))
    generated = {p.relative_to(source).as_posix(): p.read_text() for p in sorted(source.rglob("*"))
                 if p.is_file() and p.name != "matrix.yaml"}
    texts = work / "texts.json"
    texts.write_text(json.dumps(generated))
    files = len(generated)
    written = sum(len(t.encode()) for t in generated.values())

    figures: dict[str, list] = {"cold": [], "noop": [], "check": [], "baseline": []}
    for i in range(runs):
        tree = work / f"cold{i}"
        tree.mkdir()
        shutil.copy(source / "matrix.yaml", tree / "matrix.yaml")
        figures["cold"].append(measure(gen_matrix("--root", str(tree)))[:2])
        _, _, out = measure(gen_matrix("--root", str(tree)))
        figures["noop"].append(measure(gen_matrix("--root", str(tree)))[:2])
        written_noop = int(re.search(r"(\d+) written", out).group(1))
        if written_noop:
            raise SystemExit(f"no-op generate wrote {written_noop} files")
        figures["check"].append(measure(gen_matrix("check", "--root", str(tree)))[:2])
        target_dir = work / f"baseline{i}"
        target_dir.mkdir()
        figures["baseline"].append(measure(["-c", BASELINE, str(texts), str(target_dir)])[:2])
        shutil.rmtree(tree)
        shutil.rmtree(target_dir)
    result = {"variants": variants, "files": files, "bytes": written, "runs": runs, "noop_files_written": 0}
    for name, samples in figures.items():
        result[name] = {"seconds": statistics.median(s for s, _ in samples),
                        "peak_mib": max(m for _, m in samples)}
    base = result["baseline"]["seconds"]
    for name in ("cold", "noop", "check"):
        result[name]["x_baseline"] = result[name]["seconds"] / base
    return result


def print_result(result: dict) -> None:
    print(f"{result['variants']} variants, {result['files']} files, {result['bytes'] / 1e6:.1f} MB, "
          f"median of {result['runs']} runs")
    print(f"{'':10} {'seconds':>8} {'x baseline':>11} {'peak MiB':>9}")
    for name in ("baseline", "cold", "noop", "check"):
        row = result[name]
        ratio = f"{row['x_baseline']:.2f}" if "x_baseline" in row else "1.00"
        print(f"{name:10} {row['seconds']:8.3f} {ratio:>11} {row['peak_mib']:9.1f}")
    print(f"no-op generate wrote {result['noop_files_written']} files")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variants", type=int, default=2000, help="at least this many variants")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--scaling", action="store_true", help="run at 500, 1000, 2000 and 4000 variants")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--dir", type=Path, help="where the trees are written [default: the system's temporary "
                        "folder]; a tmpfs such as /dev/shm takes the disk's own variance out of the figures")
    args = parser.parse_args()
    sizes = [500, 1000, 2000, 4000] if args.scaling else [args.variants]
    results = []
    for size in sizes:
        with tempfile.TemporaryDirectory(prefix="gen-matrix-bench-", dir=args.dir) as work:
            result = bench(size, args.runs, Path(work))
        results.append(result)
        print_result(result)
        print()
    if args.scaling:
        print("scaling (median seconds; per 1,000 variants)")
        print(f"{'variants':>8} {'cold':>8} {'noop':>8} {'check':>8} {'cold/1k':>8}")
        for r in results:
            print(f"{r['variants']:8} {r['cold']['seconds']:8.3f} {r['noop']['seconds']:8.3f} "
                  f"{r['check']['seconds']:8.3f} {r['cold']['seconds'] / r['variants'] * 1000:8.3f}")
    if args.json:
        args.json.write_text(json.dumps(results if args.scaling else results[0], indent=2) + "\n")


if __name__ == "__main__":
    main()
