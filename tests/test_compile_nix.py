"""nix/lib/compile.nix's shell fragment, run under a real bash: the compile jobs it leaves a build
for the memory and cores a builder has, and the flags it exports."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import needs_nix, nix_eval

ROOT = Path(__file__).resolve().parent.parent
MEMINFO = "/proc/meminfo"


def fragment(cpu_flags: list[str], job_memory_gib: int) -> str:
    flags = " ".join(f'"{flag}"' for flag in cpu_flags)
    return nix_eval(f"let lib = import {ROOT / 'tests/nix/nixpkgs/lib.nix'}; in "
                    f"import {ROOT / 'nix/lib/compile.nix'} {{ inherit lib; }} "
                    f"{{ cpuFlags = [ {flags} ]; jobMemoryGib = {job_memory_gib}; }}")


def run_fragment(tmp_path: Path, script: str, *, available_kib: int | None, cores: int) -> dict[str, str]:
    """Run the fragment with a meminfo of `available_kib` in place of the builder's and
    NIX_BUILD_CORES=`cores`; return what it exported."""
    assert script.count(MEMINFO) == 1, "the fragment reads the builder's memory from /proc/meminfo"
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       999999999 kB\n"
                       + (f"MemAvailable:   {available_kib} kB\n" if available_kib is not None else ""))
    script = script.replace(MEMINFO, str(meminfo))
    result = subprocess.run(["bash", "-c", script + '\necho "cores=$NIX_BUILD_CORES"\necho "cflags=$CFLAGS"\n'
                             'echo "cxxflags=$CXXFLAGS"'],
                            env={"PATH": "/usr/bin:/bin", "NIX_BUILD_CORES": str(cores), "CFLAGS": "-O2",
                                 "CXXFLAGS": "-O2"},
                            capture_output=True, text=True, check=True)
    return dict(line.split("=", 1) for line in result.stdout.splitlines() if "=" in line and not line.startswith("gen"))


GIB = 1024 * 1024  # KiB


@needs_nix
@pytest.mark.parametrize(("available_gib", "cores", "job_gib", "expected"), [
    (64, 32, 4, "16"),   # memory binds: 64 / 4
    (64, 8, 4, "8"),     # cores bind: left alone
    (64, 0, 4, "16"),    # 0 is "all cores" to Nix: memory decides
    (3, 32, 4, "1"),     # less than one job's memory: never 0, which Nix reads as all cores
    (3, 0, 4, "1"),
    (64, 32, 2, "32"),   # a CPU build's smaller jobs
    (7, 32, 2, "3"),
])
def test_jobs_follow_the_builders_memory_and_cores(tmp_path, available_gib, cores, job_gib, expected):
    exported = run_fragment(tmp_path, fragment([], job_gib), available_kib=available_gib * GIB, cores=cores)
    assert exported["cores"] == expected


@needs_nix
def test_a_builder_that_tells_no_memory_keeps_its_cores(tmp_path):
    exported = run_fragment(tmp_path, fragment([], 4), available_kib=None, cores=12)
    assert exported["cores"] == "12"


@needs_nix
def test_the_instruction_sets_flags_reach_c_and_cxx(tmp_path):
    exported = run_fragment(tmp_path, fragment(["-mavx2", "-mfma"], 4), available_kib=64 * GIB, cores=4)
    assert exported["cflags"] == "-O2 -mavx2 -mfma"
    assert exported["cxxflags"] == "-O2 -mavx2 -mfma"
    untouched = run_fragment(tmp_path, fragment([], 4), available_kib=64 * GIB, cores=4)
    assert untouched["cflags"] == "-O2" and untouched["cxxflags"] == "-O2"
