"""smoke's `code` check against what NVIDIA's real nvcc puts into a fatbin.

Each test builds a small CUDA library with the machine's nvcc (CUDA 13.0 here and in CI, at
/usr/local/cuda) for one kind of target: SASS for one SM, an arch-specific (`a`) and a
family-specific (`f`) target, PTX alone, and a mixed list. The real cuobjdump reads it back, and
smoke's verdict for every GPU of the knowledge table is checked against binary compatibility as
the CUDA C Programming Guide states it ("Binary Compatibility", "Feature Availability"), written
out below GPU by GPU rather than computed with the code under test. Marked `toolchain`;
skipped, with the reason, only where nvcc or cuobjdump is absent.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from generator.commands import cuobjdump, promise

from test_smoke_cuobjdump import CUOBJDUMP, KNOWLEDGE, sm


def installed_nvcc() -> Path | None:
    found = shutil.which("nvcc")
    if found:
        return Path(found)
    for folder in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if folder and (Path(folder) / "bin" / "nvcc").is_file():
            return Path(folder) / "bin" / "nvcc"
    return None


NVCC = installed_nvcc()
pytestmark = [
    pytest.mark.toolchain,
    pytest.mark.skipif(NVCC is None, reason="no nvcc on PATH, in CUDA_HOME or /usr/local/cuda: a CUDA toolkit builds "
                                            "the libraries these tests read"),
    pytest.mark.skipif(CUOBJDUMP is None, reason="no cuobjdump: `pip install nvidia-cuda-cuobjdump` (Linux)"),
]

KERNEL = 'extern "C" __global__ void scale(float *x, float a) { x[threadIdx.x] *= a; }\n'

ALL = ["3.5", "3.7", "5.0", "5.2", "5.3", "6.0", "6.1", "6.2", "7.0", "7.2", "7.5", "8.0", "8.6", "8.7", "8.9",
       "9.0", "10.0", "10.1", "10.3", "11.0", "12.0", "12.1"]

# target -> (nvcc's -gencode options, the SASS and PTX cuobjdump lists, the capabilities whose GPUs run it)
TARGETS = {
    # SASS runs on its own major version, at its minor or a later one
    "sm_75": (["arch=compute_75,code=sm_75"], {"sm_75"}, set(), ["7.5"]),
    "sm_90": (["arch=compute_90,code=sm_90"], {"sm_90"}, set(), ["9.0"]),
    "sm_80": (["arch=compute_80,code=sm_80"], {"sm_80"}, set(), ["8.0", "8.6", "8.7", "8.9"]),
    # arch-specific code runs on its own compute capability alone
    "sm_90a": (["arch=compute_90a,code=sm_90a"], {"sm_90a"}, set(), ["9.0"]),
    # family-specific code runs within its family (10.0, 10.1, 10.3); cuobjdump names its SASS sm_100
    "sm_100f": (["arch=compute_100f,code=sm_100f"], {"sm_100"}, set(), ["10.0", "10.1", "10.3"]),
    # PTX is compiled by the driver for its own compute capability and every later one
    "compute_120": (["arch=compute_120,code=compute_120"], set(), {"sm_120"}, ["12.0", "12.1"]),
    "compute_75": (["arch=compute_75,code=compute_75"], set(), {"sm_75"}, ALL[ALL.index("7.5"):]),
    # PTX of an arch-specific or family-specific target stays where its SASS would run
    "compute_90a": (["arch=compute_90a,code=compute_90a"], set(), {"sm_90a"}, ["9.0"]),
    "compute_100f": (["arch=compute_100f,code=compute_100f"], set(), {"sm_100f"}, ["10.0", "10.1", "10.3"]),
    # a mixed list: what runs is what any one of its entries runs
    "sm_80+sm_90a+compute_90": (["arch=compute_80,code=sm_80", "arch=compute_90a,code=sm_90a",
                                 "arch=compute_90,code=compute_90"], {"sm_80", "sm_90a"}, {"sm_90"},
                                ["8.0", "8.6", "8.7", "8.9", *ALL[ALL.index("9.0"):]]),
}


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    """Each target's library, built by nvcc as a torch build embeds its kernels."""
    folder = tmp_path_factory.mktemp("fatbins")
    (folder / "kernel.cu").write_text(KERNEL)
    libraries = {}
    for name, (gencodes, _, _, _) in TARGETS.items():
        library = folder / f"{name.replace('+', '-')}.so"
        options = [option for gencode in gencodes for option in ("-gencode", gencode)]
        result = subprocess.run([str(NVCC), "-shared", "-Xcompiler", "-fPIC", "-cudart", "none", *options,
                                 str(folder / "kernel.cu"), "-o", str(library)], capture_output=True, text=True)
        assert result.returncode == 0, f"nvcc {' '.join(options)}: {result.stderr}"
        libraries[name] = library
    return libraries


def test_the_knowledge_table_has_the_gpus_these_tests_judge():
    # a GPU added to the knowledge must be given its verdicts below
    assert sorted((row.capability for row in KNOWLEDGE.sm.values()), key=lambda c: tuple(map(int, c.split(".")))) \
        == ALL


@pytest.mark.parametrize("target", TARGETS)
def test_cuobjdump_reads_back_the_code_nvcc_was_asked_for(built, target):
    _, sass, ptx, _ = TARGETS[target]
    held = cuobjdump.read(CUOBJDUMP, built[target])
    assert (set(held.sass), set(held.ptx)) == (sass, ptx)


@pytest.mark.parametrize("target", TARGETS)
def test_smokes_verdict_for_every_gpu_is_binary_compatibility(built, target, tmp_path):
    _, _, _, runs = TARGETS[target]
    lib = tmp_path / "torch" / "lib"
    lib.mkdir(parents=True)
    shutil.copy(built[target], lib / "libtorch_cuda.so")
    verdicts = {}
    for row in KNOWLEDGE.sm.values():
        promised = promise.hand_promise(KNOWLEDGE, "a build", None, None, None, row, None, False)
        check = cuobjdump.gpu_code(promised, {"torch_file": str(lib.parent / "__init__.py")}, CUOBJDUMP)
        verdicts[row.capability] = check.state
    assert sorted(c for c, state in verdicts.items() if state == "PASS") == sorted(runs)
    assert all(state == "FAIL" for c, state in verdicts.items() if c not in runs)


@pytest.mark.parametrize("target", TARGETS)
def test_the_knowledges_rule_agrees_with_what_nvcc_built(built, target):
    # knowledge.code_runs is the rule wheels' arch lists are judged by too (explain, detect)
    _, _, _, runs = TARGETS[target]
    held = cuobjdump.read(CUOBJDUMP, built[target])
    for capability in ALL:
        row = next(r for r in KNOWLEDGE.sm.values() if r.capability == capability)
        runs_here = any(cuobjdump.runs_on(arch, row, False) for arch in held.sass) \
            or any(cuobjdump.runs_on(arch, row, True) for arch in held.ptx)
        assert runs_here is (capability in runs), (target, capability)


def test_a_gpu_the_promise_names_fails_where_one_library_lacks_its_code(built, tmp_path):
    lib = tmp_path / "torch" / "lib"
    lib.mkdir(parents=True)
    shutil.copy(built["sm_80"], lib / "libtorch_cuda.so")
    shutil.copy(built["sm_90a"], lib / "libtorch_cuda_linalg.so")
    for gpu, state in (("sm80", "FAIL"), ("sm90", "FAIL"), ("sm86", "FAIL")):
        promised = promise.hand_promise(KNOWLEDGE, "a build", None, None, None, sm(gpu), None, False)
        check = cuobjdump.gpu_code(promised, {"torch_file": str(lib.parent / "__init__.py")}, CUOBJDUMP)
        assert check.state == state, check.detail
    shutil.copy(built["sm_80+sm_90a+compute_90"], lib / "libtorch_cuda_linalg.so")
    promised = promise.hand_promise(KNOWLEDGE, "a build", None, None, None, sm("sm86"), None, False)
    check = cuobjdump.gpu_code(promised, {"torch_file": str(lib.parent / "__init__.py")}, CUOBJDUMP)
    assert check.state == "PASS", check.detail
