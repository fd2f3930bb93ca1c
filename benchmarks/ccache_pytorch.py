"""Compiler-cache reuse on real PyTorch translation units, host and device, with g++ and nvcc.

Compiles a fixed sample of PyTorch 2.6.0's units (Debian's source, unpacked under
.deps/pytorch) through ccache as the `env` scripts configure it (ccache as the compiler launcher
of g++ and nvcc, CCACHE_DIR, CCACHE_MAXSIZE and CCACHE_BASEDIR at the checkout), one after the
other (-j1), for three variants built one after another in the same checkout, as a person
building one variant after another would: sm_80 with AVX2, sm_90 with AVX2, sm_80 with AVX-512.
Each variant writes its own ATen/cuda/CUDAConfig.h (PyTorch's configure_file writes the -gencode
flags into it as NVCC_FLAGS_EXTRA) and passes its ISA as CXXFLAGS, which reach the host
compiles and not nvcc's (CMake keeps CMAKE_CUDA_FLAGS apart). The generated sources come from
PyTorch's own torchgen, run once (`--per-operator-headers`, as the build does); the CUDA
libraries' headers the toolkit lacks (cuBLAS, cuSPARSE, cuSOLVER) from NVIDIA's wheels.

    python benchmarks/ccache_pytorch.py --work .deps/bench --cuda-headers DIR > figures.json
    python benchmarks/ccache_pytorch.py ... --sample 50 10 --jobs 2 --variants sm80-avx2 sm90-avx2

Prints one JSON object: for each variant and unit, seconds and ccache's result. Minutes per
unit: keep the sample small on a loaded machine. `--sample HOST DEVICE` takes a systematic
sample instead of the fixed lists: every k-th unit, in sorted order, of c10/core, c10/util,
ATen's top folder and ATen's native operators (host), and of ATen's native CUDA units
(device), each unit that does not preprocess here (a header of a library this machine lacks)
replaced by the next one. `--jobs` compiles that many units at once (each timed alone).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCE = REPO / ".deps" / "pytorch" / "pytorch-v2.6.0"
CCACHE = shutil.which("ccache", path=str(Path(sys.executable).parent)) or shutil.which("ccache")
NVCC = "/usr/local/cuda/bin/nvcc"

HOST = [  # c10, ATen, and two host units that include ATen/cuda/CUDAConfig.h
    "c10/core/TensorImpl.cpp", "c10/core/StorageImpl.cpp", "c10/core/Device.cpp", "c10/util/Exception.cpp",
    "aten/src/ATen/native/Activation.cpp", "aten/src/ATen/native/BinaryOps.cpp",
    "aten/src/ATen/native/UnaryOps.cpp", "aten/src/ATen/native/TensorFactories.cpp",
    "aten/src/ATen/cuda/detail/CUDAHooks.cpp", "aten/src/ATen/cuda/CUDAContext.cpp",
]
KERNELS = ["aten/src/ATen/native/cpu/Activation.cpp", "aten/src/ATen/native/cpu/FillKernel.cpp"]
# cmake/Codegen.cmake: each CPU kernel once per capability, with these flags (x86-64, GCC)
CAPABILITIES = {"DEFAULT": [], "AVX2": ["-mavx2", "-mfma", "-mf16c"],
                "AVX512": ["-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx512dq", "-mfma"]}
# Codegen.cmake defines these for all of torch_cpu where the kernels are compiled for them
HAVE = ["-DHAVE_AVX2_CPU_DEFINITION", "-DHAVE_AVX512_CPU_DEFINITION"]
DEVICE = ["aten/src/ATen/native/cuda/FillKernel.cu", "aten/src/ATen/native/cuda/AbsKernel.cu",
          "aten/src/ATen/native/cuda/ActivationGeluKernel.cu"]
# what `gen-matrix env` exports as CXXFLAGS for each ISA (the knowledge's flags)
ISA = {"avx2": ["-mavx2", "-mfma", "-mf16c"],
       "avx512": ["-mavx512f", "-mavx512dq", "-mavx512vl", "-mavx512bw", "-mfma"]}
VARIANTS = [("sm80-avx2", "80", "avx2"), ("sm90-avx2", "90", "avx2"), ("sm80-avx512", "80", "avx512")]
COMMON = ["-O3", "-DNDEBUG", "-DAT_PER_OPERATOR_HEADERS", "-DFMT_HEADER_ONLY=1", "-w"]
CUDA_CONFIG = """\
#pragma once
#define AT_CUDNN_ENABLED() 0
#define AT_CUSPARSELT_ENABLED() 0
#define AT_ROCM_ENABLED() 0
#define AT_MAGMA_ENABLED() 0
#define NVCC_FLAGS_EXTRA "-gencode;arch=compute_{sm},code=sm_{sm}"
"""


def result_of(log: Path) -> str:
    found = re.findall(r"Result: (\S+)", log.read_text()) if log.exists() else []
    if {"direct_cache_hit", "preprocessed_cache_hit"} & set(found):
        return "hit"
    return "miss" if "cache_miss" in found else "/".join(sorted(set(found))) or "none"


HOST_FOLDERS = ("c10/core", "c10/util", "aten/src/ATen", "aten/src/ATen/native")
DEVICE_FOLDER = "aten/src/ATen/native/cuda"


def includes(build: Path, cuda_headers: Path) -> list[str]:
    return ["-I" + str(p) for p in (SOURCE / "aten" / "src", SOURCE, build / "include", build / "gen",
                                    Path("/usr/local/cuda/include"), cuda_headers)]


def systematic(units: list[str], count: int, usable) -> list[str]:
    """Every k-th of the sorted `units`, each one `usable` rejects replaced by the next."""
    step, picked = len(units) / count, []
    for index in range(count):
        for unit in units[int(index * step):]:
            if unit not in picked and usable(unit):
                picked.append(unit)
                break
    return picked


def sample(host: int, device: int, build: Path, cuda_headers: Path) -> tuple[list[str], list[str]]:
    def preprocesses(unit: str) -> bool:
        return subprocess.run(["g++", "-std=gnu++17", "-E", "-o", os.devnull, *HAVE, *COMMON,
                               *includes(build, cuda_headers), unit], cwd=SOURCE, capture_output=True).returncode == 0

    def nvcc_preprocesses(unit: str) -> bool:
        return subprocess.run([NVCC, "-std=c++17", "-E", "-o", os.devnull, "-DTORCH_CUDA_BUILD_MAIN_LIB", *COMMON,
                               *includes(build, cuda_headers), unit], cwd=SOURCE, capture_output=True).returncode == 0

    hosts = sorted(str(p.relative_to(SOURCE)) for folder in HOST_FOLDERS for p in (SOURCE / folder).glob("*.cpp"))
    devices = sorted(str(p.relative_to(SOURCE)) for p in (SOURCE / DEVICE_FOLDER).glob("*.cu"))
    return systematic(hosts, host, preprocesses), systematic(devices, device, nvcc_preprocesses)


def compile_all(build: Path, sm: str, isa: str, cuda_headers: Path, env: dict, host=HOST, device=DEVICE,
                workers: int = 1) -> list[dict]:
    include = includes(build, cuda_headers)
    jobs = []
    for unit in host:
        jobs.append(("host", unit, ["g++", "-std=gnu++17", "-fPIC", "-fopenmp", "-DCAFFE2_BUILD_MAIN_LIB",
                                    "-DC10_BUILD_MAIN_LIB", *HAVE, *ISA[isa], *COMMON, *include]))
    for unit in KERNELS:
        for capability, flags in CAPABILITIES.items():
            defines = [f"-DCPU_CAPABILITY={capability}", f"-DCPU_CAPABILITY_{capability}"]
            jobs.append((f"kernel-{capability}", unit, ["g++", "-std=gnu++17", "-fPIC", "-fopenmp",
                                                        "-DCAFFE2_BUILD_MAIN_LIB", *HAVE, *ISA[isa], *COMMON, *flags,
                                                        *defines, *include]))
    for unit in device:
        jobs.append(("device", unit, [NVCC, "-ccbin", "g++", "-std=c++17", "-Xcompiler", "-fPIC",
                                      "-DTORCH_CUDA_BUILD_MAIN_LIB", "--expt-relaxed-constexpr",
                                      "--expt-extended-lambda", "-gencode", f"arch=compute_{sm},code=sm_{sm}",
                                      *COMMON, *include]))
    def one(job) -> dict:
        kind, unit, command = job
        name = unit.replace("/", "_") + "." + kind
        log = build / "logs" / (name + ".log")  # a log of its own: compiles may run at once
        log.parent.mkdir(parents=True, exist_ok=True)
        log.unlink(missing_ok=True)
        out = build / "obj" / (name + ".o")
        out.parent.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        done = subprocess.run(["nice", CCACHE, *command, "-c", unit, "-o", str(out)], cwd=SOURCE,
                              env={**env, "CCACHE_LOGFILE": str(log)}, capture_output=True, text=True)
        seconds = time.monotonic() - started
        found = {"kind": kind, "unit": unit, "seconds": round(seconds, 2), "rc": done.returncode,
                 "result": result_of(log), "error": done.stderr[-400:] if done.returncode else ""}
        print(f"{kind:16} {unit:50} {found['result']:5} {seconds:7.1f} s rc={done.returncode}",
              file=sys.stderr, flush=True)
        return found

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(one, jobs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, required=True, help="the ccache folder's parent (fresh)")
    parser.add_argument("--generated", type=Path, required=True, help="torchgen's output (the folder holding ATen/)")
    parser.add_argument("--cuda-headers", type=Path, required=True, help="a folder with cublas_v2.h, cusparse.h ...")
    parser.add_argument("--sample", type=int, nargs=2, metavar=("HOST", "DEVICE"),
                        help="a systematic sample of this many host and CUDA units instead of the fixed lists")
    parser.add_argument("--jobs", type=int, default=1, help="units compiled at once (default 1)")
    parser.add_argument("--variants", nargs="+", choices=[name for name, _, _ in VARIANTS],
                        default=[name for name, _, _ in VARIANTS], help="the variants to build (in the order above)")
    args = parser.parse_args()
    args.cuda_headers, args.generated = args.cuda_headers.resolve(), args.generated.resolve()
    build = SOURCE / "build-bench"  # one build folder in the checkout, the same path for every variant
    shutil.rmtree(build, ignore_errors=True)
    (build / "include" / "ATen" / "cuda").mkdir(parents=True)
    shutil.copytree(args.generated, build / "gen")
    env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp"),
           # as the env script exports them
           "CCACHE_DIR": str(args.work.resolve() / "ccache"), "CCACHE_MAXSIZE": "25G", "CCACHE_BASEDIR": str(SOURCE)}
    shutil.rmtree(args.work / "ccache", ignore_errors=True)
    host, device = HOST, DEVICE
    if args.sample:
        (build / "include" / "ATen" / "cuda" / "CUDAConfig.h").write_text(CUDA_CONFIG.format(sm="80"))
        host, device = sample(*args.sample, build, args.cuda_headers)
    figures = {"ccache": subprocess.run([CCACHE, "--version"], capture_output=True, text=True).stdout.splitlines()[0],
               "jobs": args.jobs, "host": host, "device": device, "variants": {}}
    for name, sm, isa in VARIANTS:
        if name not in args.variants:
            continue
        (build / "include" / "ATen" / "cuda" / "CUDAConfig.h").write_text(CUDA_CONFIG.format(sm=sm))
        shutil.rmtree(build / "obj", ignore_errors=True)
        print(f"== {name}", file=sys.stderr, flush=True)
        figures["variants"][name] = compile_all(build, sm, isa, args.cuda_headers, env, host, device, args.jobs)
    print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
