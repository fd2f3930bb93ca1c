"""Benchmark gen-matrix against its budgets, side by side with a plain jinja2 script.

Each figure runs in a fresh process, several times; the median is reported with the
process's peak memory (VmHWM):

  cold      `gen-matrix generate` into a tree holding only matrix.yaml (and the README)
  noop      `gen-matrix generate` on a current tree (it must write 0 files)
  check     `gen-matrix check` on a current tree
  drift     `gen-matrix check` after an edit that changes every build hash (exit 1, a report)
  jinja2    a plain script: yaml.safe_load of the matrix, one jinja2 render per file of the
            same bytes gen-matrix writes, written to the same paths. It validates, expands
            and owns nothing: the floor under cold generate.

Budgets, printed as met or not: the shipped matrix's cold generate and check at most 0.5 s;
2,000 variants cold at most 1.5 s; cold and drift linear up to 50,000 variants (the time per
variant at the largest size at most twice that at 2,000); peak memory at most 150 MB at
10,000 variants.

--paired is the gate that tests/test_benchmarks.py runs in CI: for the shipped matrix and at
each size, a cold generate and the plain jinja2 script, one after the other on the same
matrix (in the order A B B A, so that a machine slowing down weighs on both alike), each in a
fresh process. The figure is each one's least CPU time over its runs (user and system, the
process's own): other work on a shared machine only adds to it (another process's cache
misses, the kernel's write-back), so the least is nearest the work itself. It exits 1 where
generate takes more than GATE times the jinja2 script at a size near 2,000 variants, and
prints the medians and wall times beside.

Usage:
  python benchmarks/bench.py                     # shipped matrix; 2,000, 10,000 and 50,000 variants
  python benchmarks/bench.py --runs 5 --sizes 2000 10000 --json out.json
  python benchmarks/bench.py --paired --sizes 2000 --runs 3
"""

from __future__ import annotations

import argparse
import compileall
import json
import math
import os
import re
import resource
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

# The plain script: the same files, each rendered by jinja2 from its lines, and written.
PLAIN = """
import json, sys
from pathlib import Path
import jinja2, yaml
yaml.load(Path(sys.argv[1]).read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
template = jinja2.Environment(keep_trailing_newline=True).from_string("{% for line in lines %}{{ line }}{% endfor %}")
target = Path(sys.argv[3])
for relative, lines in json.loads(Path(sys.argv[2]).read_text()).items():
    path = target / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(template.render(lines=lines).encode())
"""

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


# Runs `-m MODULE ARGS` or `-c CODE ARGS` and reports the process's own peak memory (VmHWM)
# on exit. rusage cannot be used: a child's ru_maxrss also counts the parent's memory it was
# forked from.
PEAK = """
import atexit, runpy, sys
def report():
    with open("/proc/self/status") as status:
        peak = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    sys.stderr.write(f"\\nPEAK_KB {peak}\\n")
    sys.stderr.flush()
atexit.register(report)
mode, target, *sys.argv[1:] = sys.argv[1:]
if mode == "-m":
    sys.argv[0] = target
    runpy.run_module(target, run_name="__main__", alter_sys=True)
else:
    exec(compile(target, "<plain>", "exec"), {"__name__": "__main__"})
"""


# The first run of each tree, not timed, keeps what an installed gen-matrix keeps after its first
# run: its templates compiled (templates/__pycache__/), which a run told to write no bytecode
# (PYTHONDONTWRITEBYTECODE, which may be set here) leaves to compile every time.
FIRST_RUN = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def measure(args: list[str], expect: int = 0, env: dict | None = None) -> tuple[float, float, str]:
    """(seconds, peak MiB, stdout) of one run of `python ARGS` in a fresh process."""
    os.sync()  # write back what earlier runs left dirty, so that no run pays for another's writes
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", PEAK, *args], capture_output=True, text=True, cwd=REPO, env=env)
    elapsed = time.perf_counter() - start
    if result.returncode != expect:
        raise SystemExit(f"{' '.join(args[:4])} exited {result.returncode}:\n{result.stderr[-2000:]}")
    peak_kb = int(re.search(r"PEAK_KB (\d+)", result.stderr).group(1))
    return elapsed, peak_kb / 1024, result.stdout


def gen_matrix(*args: str) -> list[str]:
    return ["-m", "generator", *args]


FIGURES = ("cold", "noop", "check", "drift", "jinja2")
# generate at 2,000 variants against the plain jinja2 script writing the same files, in CPU time:
# at most 2x. generate measures about 1.8x in memory on the idle machine (BENCHMARKS.md); a
# figure of a few runs on a loaded machine strays up to a tenth above the steady one, so
# tests/test_benchmarks.py takes a figure above the gate again, with more runs, before it fails.
GATE = 2.0


def cpu_timed(args: list[str]) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds: user and system, user seconds alone) of one run of `python
    ARGS` in a fresh process. The runs are one at a time, so the children's usage grows by this
    one's alone."""
    os.sync()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=REPO)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(args[:4])} exited {result.returncode}:\n{result.stderr[-2000:]}")
    user = after.ru_utime - before.ru_utime
    return wall, user + (after.ru_stime - before.ru_stime), user


def paired(target: int | None, runs: int, work: Path) -> dict:
    """A cold generate and the plain jinja2 script on one synthetic matrix of at least `target`
    variants (None: the shipped matrix.yaml), `runs` times each, in the order A B B A: their
    median CPU and wall seconds."""
    source = work / "source"
    source.mkdir()
    if target is None:
        shutil.copy(REPO / "matrix.yaml", source / "matrix.yaml")
    else:
        (source / "matrix.yaml").write_text(yaml.safe_dump(synthetic_matrix(target), sort_keys=False))
    sample = work / "sample"
    sample.mkdir()
    shutil.copy(source / "matrix.yaml", sample / "matrix.yaml")
    _, _, out = measure(gen_matrix("--root", str(sample)), env=FIRST_RUN)
    variants = int(re.search(r"(\d+) variants", out).group(1))
    generated = {p.relative_to(sample).as_posix(): p.read_text().splitlines(keepends=True)
                 for p in sorted(sample.rglob("*")) if p.is_file() and p.name != "matrix.yaml"}
    lines = work / "lines.json"
    lines.write_text(json.dumps(generated))
    shutil.rmtree(sample)

    def generate(i: int) -> tuple[float, float, float]:
        tree = work / f"tree{i}"
        tree.mkdir()
        shutil.copy(source / "matrix.yaml", tree / "matrix.yaml")
        try:
            return cpu_timed(gen_matrix("--root", str(tree)))
        finally:
            shutil.rmtree(tree)

    def plain(i: int) -> tuple[float, float, float]:
        target_folder = work / f"plain{i}"
        try:
            return cpu_timed(["-c", PLAIN, str(source / "matrix.yaml"), str(lines), str(target_folder)])
        finally:
            shutil.rmtree(target_folder, ignore_errors=True)

    samples: dict[str, list[tuple[float, float, float]]] = {"generate": [], "jinja2": []}
    for i in range(runs):
        order = (("generate", generate), ("jinja2", plain))
        for name, step in order if i % 2 == 0 else order[::-1]:
            samples[name].append(step(i))
    result = {"variants": variants, "files": len(generated), "runs": runs}
    for name, runs_ in samples.items():
        result[name] = {"wall": statistics.median(w for w, _, _ in runs_), "cpu": min(c for _, c, _ in runs_),
                        "cpu_median": statistics.median(c for _, c, _ in runs_), "runs_cpu": [c for _, c, _ in runs_],
                        "user": min(u for _, _, u in runs_), "runs_user": [u for _, _, u in runs_]}
    result["ratio"] = result["generate"]["cpu"] / result["jinja2"]["cpu"]
    result["ratio_user"] = result["generate"]["user"] / result["jinja2"]["user"]
    return result


def print_paired(result: dict, title: str) -> None:
    print(f"{title}: {result['variants']} variants, {result['files']} files, {result['runs']} runs each, "
          f"in the order A B B A")
    print(f"{'':9} {'least CPU s':>12} {'median CPU s':>13} {'least user s':>13} {'median wall s':>14}")
    for name in ("generate", "jinja2"):
        row = result[name]
        print(f"{name:9} {row['cpu']:12.3f} {row['cpu_median']:13.3f} {row['user']:13.3f} {row['wall']:14.3f}")
    print(f"generate / jinja2, least CPU: {result['ratio']:.2f}x (median CPU: "
          f"{result['generate']['cpu_median'] / result['jinja2']['cpu_median']:.2f}x, least user: "
          f"{result['ratio_user']:.2f}x, median wall: {result['generate']['wall'] / result['jinja2']['wall']:.2f}x)")


def gated(results: list[dict]) -> list[tuple[str, str, bool]]:
    """(budget, figure, met) of the gate, at each size near 2,000 variants."""
    return [(f"{r['variants']} variants, generate <= {GATE:g}x the plain jinja2 script (least CPU)",
             f"{r['ratio']:.2f}x", r["ratio"] <= GATE) for r in results if abs(r["variants"] - 2000) < 1000]


def bench_tree(source: Path, runs: int, work: Path) -> dict:
    """Median figures on copies of the tree `source` (its matrix.yaml, and its README)."""
    inputs = [name for name in ("matrix.yaml", "README.md") if (source / name).exists()]

    def seeded(folder: Path) -> Path:
        folder.mkdir()
        for name in inputs:
            shutil.copy(source / name, folder / name)
        return folder

    sample = seeded(work / "sample")
    _, _, out = measure(gen_matrix("--root", str(sample)), env=FIRST_RUN)
    variants = int(re.search(r"(\d+) variants", out).group(1))
    generated = {p.relative_to(sample).as_posix(): p.read_text().splitlines(keepends=True)
                 for p in sorted(sample.rglob("*")) if p.is_file() and p.name not in inputs}
    lines = work / "lines.json"
    lines.write_text(json.dumps(generated))
    samples: dict[str, list] = {name: [] for name in FIGURES}
    for i in range(runs):
        tree = seeded(work / f"tree{i}")
        samples["cold"].append(measure(gen_matrix("--root", str(tree)))[:2])
        seconds, peak, out = measure(gen_matrix("--root", str(tree)))
        if "0 written" not in out:
            raise SystemExit(f"a no-op generate wrote files: {out}")
        samples["noop"].append((seconds, peak))
        samples["check"].append(measure(gen_matrix("check", "--root", str(tree)))[:2])
        matrix = tree / "matrix.yaml"
        # A build feature goes into every heavy build: every build hash changes.
        matrix.write_text(matrix.read_text().replace("big-parallel", "kvm", 1))
        samples["drift"].append(measure(gen_matrix("check", "--root", str(tree)), expect=1)[:2])
        plain = work / f"plain{i}"
        samples["jinja2"].append(measure(["-c", PLAIN, str(source / "matrix.yaml"), str(lines), str(plain)])[:2])
        shutil.rmtree(tree)
        shutil.rmtree(plain)
    result = {"variants": variants, "files": len(generated), "runs": runs}
    for name, pairs in samples.items():
        result[name] = {"seconds": statistics.median(s for s, _ in pairs), "peak_mib": max(m for _, m in pairs),
                        "runs_seconds": [s for s, _ in pairs]}
    return result


def bench(target: int, runs: int, work: Path) -> dict:
    source = work / "source"
    source.mkdir()
    (source / "matrix.yaml").write_text(yaml.safe_dump(synthetic_matrix(target), sort_keys=False))
    return bench_tree(source, runs, work)


def print_result(result: dict, title: str) -> None:
    print(f"{title}: {result['variants']} variants, {result['files']} files, median of {result['runs']} runs")
    print(f"{'':8} {'seconds':>8} {'x jinja2':>9} {'peak MiB':>9}")
    for name in FIGURES:
        row = result[name]
        print(f"{name:8} {row['seconds']:8.3f} {row['seconds'] / result['jinja2']['seconds']:9.2f} {row['peak_mib']:9.1f}")


def budgets(shipped: dict, synthetic: list[dict]) -> list[tuple[str, str, bool]]:
    """(budget, figure, met) for each budget the sizes measured can tell."""
    found = []
    for name in ("cold", "check"):
        seconds = shipped[name]["seconds"]
        found.append((f"shipped matrix, {name} <= 0.5 s", f"{seconds:.3f} s", seconds <= 0.5))
    by_size = {r["variants"]: r for r in synthetic}
    near = lambda n: min(by_size, key=lambda v: abs(v - n)) if by_size else None  # noqa: E731
    small = near(2000)
    if small is not None and abs(small - 2000) < 1000:
        seconds = by_size[small]["cold"]["seconds"]
        found.append((f"{small} variants, cold <= 1.5 s", f"{seconds:.3f} s", seconds <= 1.5))
    ten = near(10000)
    if ten is not None and abs(ten - 10000) < 3000:
        peak = max(by_size[ten][name]["peak_mib"] for name in ("cold", "noop", "check", "drift"))
        found.append((f"{ten} variants, peak memory <= 150 MB", f"{peak * 1.048576:.0f} MB", peak * 1.048576 <= 150))
    largest = max(by_size) if by_size else None
    if small is not None and largest is not None and largest >= 4 * small:
        for name in ("cold", "drift"):
            per_small = by_size[small][name]["seconds"] / small
            per_large = by_size[largest][name]["seconds"] / largest
            found.append((f"{name} linear to {largest} variants (per variant <= 2x that at {small})",
                          f"{per_large / per_small:.2f}x", per_large <= 2 * per_small))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="*", default=[2000, 10000, 50000],
                        help="synthetic matrices of at least these many variants")
    parser.add_argument("--runs", type=int, default=3, help="runs of each figure")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--dir", type=Path, help="where the trees are written [default: the system's temporary folder]")
    parser.add_argument("--paired", action="store_true",
                        help=f"only the gate: generate against the plain jinja2 script, at most {GATE:g}x near "
                             "2,000 variants")
    args = parser.parse_args()
    # Bytecode as an installed package has it (pip compiles it; PYTHONDONTWRITEBYTECODE may be set here).
    compileall.compile_dir(REPO / "generator", quiet=1)
    if args.paired:
        sys.exit(main_paired(args))
    results: dict = {"synthetic": []}
    with tempfile.TemporaryDirectory(prefix="gen-matrix-bench-", dir=args.dir) as folder:
        shipped = Path(folder) / "shipped"
        shipped.mkdir()
        results["shipped"] = bench_tree(REPO, args.runs, shipped)
        print_result(results["shipped"], "the shipped matrix.yaml")
        for i, size in enumerate(args.sizes):
            work = Path(folder) / f"synthetic{i}"
            work.mkdir()
            results["synthetic"].append(bench(size, args.runs, work))
            print()
            print_result(results["synthetic"][-1], "synthetic")
    print()
    print("budgets")
    results["budgets"] = []
    for budget, figure, met in budgets(results["shipped"], results["synthetic"]):
        print(f"  {'met    ' if met else 'NOT MET'}  {budget}: {figure}")
        results["budgets"].append({"budget": budget, "figure": figure, "met": met})
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


def main_paired(args: argparse.Namespace) -> int:
    results = []
    with tempfile.TemporaryDirectory(prefix="gen-matrix-bench-paired-", dir=args.dir) as folder:
        for i, size in enumerate([None, *args.sizes]):
            work = Path(folder) / f"matrix{i}"
            work.mkdir()
            results.append(paired(size, args.runs, work))
            print_paired(results[-1], "the shipped matrix.yaml" if size is None else "synthetic")
            print(flush=True)
    found = gated(results)
    if not found:
        print(f"no size near 2,000 variants: the gate ({GATE:g}x) was not measured")
        return 1
    print("gate")
    for budget, figure, met in found:
        print(f"  {'met    ' if met else 'NOT MET'}  {budget}: {figure}")
    if args.json:
        args.json.write_text(json.dumps({"paired": results, "gate": [
            {"budget": b, "figure": f, "met": m} for b, f, m in found]}, indent=2) + "\n")
    return 0 if all(met for _, _, met in found) else 1


if __name__ == "__main__":
    main()
