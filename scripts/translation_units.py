"""Count the translation units of a PyTorch source tree by what compiles them, for the share of
a CUDA build that a compiler cache can reuse across variants that differ only in their GPU.

    python3 scripts/translation_units.py PATH/TO/pytorch

A CUDA build of PyTorch compiles three kinds of units:
- host units (.cpp, .cc, .c) with the C/C++ compiler. Their flags are the build's CPU flags and
  defines; TORCH_CUDA_ARCH_LIST reaches only nvcc's -gencode, so they compile the same for
  every SM: a variant for another SM can take them from the cache;
- ATen's CPU kernels (aten/src/ATen/native/cpu/*.cpp and native/quantized/cpu/kernels/*.cpp,
  cmake/Codegen.cmake's cpu_kernel_cpp_in), compiled once per CPU capability: DEFAULT, AVX2
  and AVX512 on x86-64. Host units too;
- CUDA units (.cu), compiled by nvcc for the SMs of TORCH_CUDA_ARCH_LIST: nothing to reuse
  across SMs.

Counted: aten/src/ATen, c10, torch/csrc and caffe2's core folders, without tests, benchmarks
and the backends a Linux CUDA build leaves out (MPS, Metal, Vulkan, ROCm/HIP, XPU, NNAPI,
MTIA). Not counted: the sources PyTorch's codegen writes at build time (RegisterCUDA.cpp,
Operators_*.cpp and the like; host units, most of them) and third_party's. It is an estimate
by count and by bytes of source, not by compile time: a CUDA unit takes longer to compile than
a host unit of its size.
"""

from __future__ import annotations

import argparse
import os
import re
from collections import Counter
from pathlib import Path

FOLDERS = ("aten/src/ATen", "c10", "torch/csrc", "caffe2")
LEFT_OUT = re.compile(
    r"(^|/)(test|tests|benchmark|benchmarks|mps|metal|vulkan|hip|miopen|xpu|nnapi|opencl|mtia)(/|$)"
    r"|/(android|ios)/|/Metal|qnnpack/(test|bench)"
    r"|^torch/csrc/(deploy|jit/mobile/nnc|api/src/python)"
    r"|^torch/csrc/distributed/c10d/.*(Gloo|UCC|MPI)"
    r"|^caffe2/(?!core/|perfkernels/|serialize/|utils/)")
CPU_KERNELS = re.compile(r"^aten/src/ATen/native/(cpu|quantized/cpu/kernels)/[^/]+\.cpp$")
CPU_CAPABILITIES = 3  # DEFAULT, AVX2, AVX512 on x86-64 (cmake/Codegen.cmake)
HOST, KERNELS, CUDA = "host units (.cpp .cc .c)", "CPU kernels, once per CPU capability", "CUDA units (.cu)"


def count(root: Path) -> tuple[Counter, Counter]:
    units, size = Counter(), Counter()
    for folder in FOLDERS:
        for directory, _, files in os.walk(root / folder):
            for name in files:
                path = f"{Path(directory).relative_to(root).as_posix()}/{name}"
                extension = name.rsplit(".", 1)[-1]
                if extension not in ("cpp", "cc", "c", "cu") or LEFT_OUT.search(path):
                    continue
                kind, times = ((CUDA, 1) if extension == "cu" else
                               (KERNELS, CPU_CAPABILITIES) if CPU_KERNELS.match(path) else (HOST, 1))
                units[kind] += times
                size[kind] += times * (root / path).stat().st_size
    return units, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="a PyTorch source tree")
    root = parser.parse_args().root
    units, size = count(root)
    version = (root / "version.txt").read_text().strip() if (root / "version.txt").is_file() else "unknown"
    print(f"PyTorch source tree {root} (version.txt: {version})")
    print("| kind | units compiled | MB of source |")
    print("| --- | ---: | ---: |")
    for kind in (HOST, KERNELS, CUDA):
        print(f"| {kind} | {units[kind]} | {size[kind] / 1e6:.1f} |")
    total, total_size = sum(units.values()), sum(size.values())
    host, host_size = total - units[CUDA], total_size - size[CUDA]
    print(f"host share: {100 * host / total:.0f} % of {total} units, {100 * host_size / total_size:.0f} % of the source")


if __name__ == "__main__":
    main()
