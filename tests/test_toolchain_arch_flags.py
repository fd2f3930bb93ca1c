"""The env script's CUDA settings through PyTorch's own arch selection, the real CMake and nvcc.

Each test runs a generated bash script (`gen-matrix env`, CUDA 13.0) to its build step with the
machine's real nvcc on PATH, so that its checks read the real toolkit, and takes the environment
it hands the build. That environment goes where PyTorch's setup.py sends it: every CMAKE_*,
USE_* and BUILD_* variable and TORCH_CUDA_ARCH_LIST to CMake as a -D option, CUDACXX as the CUDA
compiler (tools/setup_helpers/cmake.py). A small CMake project configures CUDA with the real
CMake and nvcc, runs PyTorch's own selection as cmake/public/cuda.cmake does
(torch_cuda_get_nvcc_gencode_flag from cmake/public/utils.cmake, over
cmake/Modules_CUDA_fix/upstream/FindCUDA/select_compute_arch.cmake, then CMAKE_CUDA_ARCHITECTURES
OFF), builds one kernel with the -gencode flags it yields, and cuobjdump reads the library back.
torch.utils.cpp_extension._get_cuda_arch_flags, the selection of extensions, is run from the same
source on the same TORCH_CUDA_ARCH_LIST. The flags are compared with what the script promised,
written out below SM by SM.

PyTorch's source is Debian's `pytorch_2.6.0+dfsg.orig.tar.xz` (SHA-256 below), unpacked under
.deps/pytorch (git-ignored; `.ci/run` downloads it): the tests skip, with the reason, where it is
absent, as they do where nvcc, CMake or cuobjdump is. The scripts are for a newer PyTorch than
2.6.0; the selection code these tests run is the same in form for the plain SMs they give it.
"""

from __future__ import annotations

import ast
import collections
import hashlib
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from conftest import REPO, needs_posix
from generator.commands import cuobjdump

from test_env import BASH, built_environment, fake_checkout, run_bash
from test_smoke_cuobjdump import CUOBJDUMP
from test_toolchain_fatbin import NVCC

SOURCE = REPO / ".deps" / "pytorch" / "pytorch-v2.6.0"
TARBALL_SHA256 = "099a9601bc40d67656e75735c44abedb0fbe92d08817852ab7472eebb7e6ddff"
CMAKE = shutil.which("cmake")
CCACHE = shutil.which("ccache", path=str(Path(sys.executable).parent)) or shutil.which("ccache")
# The toolkit's own bin folder (nvcc on PATH may be a script that calls it): the script takes
# CUDA_HOME from where nvcc is
TOOLKITS = (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda")
TOOLKIT_BIN = next((Path(folder) / "bin" for folder in TOOLKITS
                    if folder and (Path(folder) / "bin" / "nvcc").is_file()), NVCC.parent if NVCC else None)

pytestmark = [
    pytest.mark.toolchain,
    needs_posix("the bash script runs with stand-in tools written as #!/bin/sh scripts"),
    pytest.mark.skipif(BASH is None, reason="bash not found"),
    pytest.mark.skipif(NVCC is None, reason="no nvcc on PATH, in CUDA_HOME or /usr/local/cuda"),
    pytest.mark.skipif(CUOBJDUMP is None, reason="no cuobjdump: `pip install nvidia-cuda-cuobjdump` (Linux)"),
    pytest.mark.skipif(CMAKE is None or CCACHE is None, reason="no cmake or ccache: the test extra installs both"),
    pytest.mark.skipif(not (SOURCE / "cmake").is_dir(),
                       reason=f"no PyTorch source at {SOURCE}: .ci/run downloads Debian's "
                              "pytorch_2.6.0+dfsg.orig.tar.xz and unpacks it there"),
]

# GPU -> what the script must promise: TORCH_CUDA_ARCH_LIST, CMAKE_CUDA_ARCHITECTURES and the
# -gencode flags PyTorch's CMake makes of them (SASS for the one SM, no PTX)
PROMISED = {
    "sm75": ("7.5", "75", ["-gencode", "arch=compute_75,code=sm_75"]),
    "sm80": ("8.0", "80", ["-gencode", "arch=compute_80,code=sm_80"]),
    "sm86": ("8.6", "86", ["-gencode", "arch=compute_86,code=sm_86"]),
    "sm90": ("9.0", "90", ["-gencode", "arch=compute_90,code=sm_90"]),
    "sm100": ("10.0", "100", ["-gencode", "arch=compute_100,code=sm_100"]),
    "sm120": ("12.0", "120", ["-gencode", "arch=compute_120,code=sm_120"]),
}
# What PyTorch 2.6.0's _get_cuda_arch_flags knows (its supported_arches); 12.0 came later
EXTENSION_KNOWS = {"7.5", "8.0", "8.6", "9.0", "10.0"}

KERNEL = 'extern "C" __global__ void scale(float *x, float a) { x[threadIdx.x] *= a; }\n'

PROJECT = """\
cmake_minimum_required(VERSION 3.18)
project(arch_check LANGUAGES CXX CUDA)
# As cmake/public/cuda.cmake: PyTorch's selection, then CMake's own architectures off
include("{source}/cmake/Modules_CUDA_fix/upstream/FindCUDA/select_compute_arch.cmake")
include("{source}/cmake/public/utils.cmake")
torch_cuda_get_nvcc_gencode_flag(NVCC_FLAGS_EXTRA)
set(CMAKE_CUDA_ARCHITECTURES OFF)
file(WRITE "${{CMAKE_BINARY_DIR}}/gencode.txt" "${{NVCC_FLAGS_EXTRA}}")
string(REPLACE ";" " " extra "${{NVCC_FLAGS_EXTRA}}")
string(APPEND CMAKE_CUDA_FLAGS " ${{extra}}")
add_library(kernels SHARED kernels.cu)
set_target_properties(kernels PROPERTIES CUDA_RUNTIME_LIBRARY None)
"""

# A selection of what select_compute_arch.cmake makes of an arch list, in script mode
SELECT = """\
include("{source}/cmake/Modules_CUDA_fix/upstream/FindCUDA/select_compute_arch.cmake")
cuda_select_nvcc_arch_flags(flags "{arch}")
message("${{flags}}")
"""


def script_environment(run, tmp_path: Path, gpu: str) -> dict[str, str]:
    """The environment the script of `gpu` (CUDA 13.0) hands the build, run with the real nvcc
    and ccache; python, g++, cmake and ninja answer as fakes (test_env.fake_checkout)."""
    result = run("env", "--gpu", gpu, "--cuda", "13.0")
    assert result.exit_code == 0, result.output
    checkout, tools = fake_checkout(tmp_path, None, version=version_of(result.stdout), python=python_of(result.stdout))
    cudnn = tmp_path / "cudnn"
    cudnn.mkdir()
    (cudnn / "cudnn_version.h").write_text("#define CUDNN_MAJOR 9\n")
    (Path(tools) / "ccache").symlink_to(CCACHE)
    done = run_bash(result.stdout, checkout, f"{tools}{os.pathsep}{TOOLKIT_BIN}", CUDNN_INCLUDE_DIR=str(cudnn),
                    HOME=str(tmp_path))
    assert done.returncode == 0, done.stderr
    return built_environment(checkout)


def version_of(script: str) -> str:
    return next(line.split()[2] for line in script.splitlines() if line.startswith("# PyTorch "))


def python_of(script: str) -> str:
    return next(line for line in script.splitlines() if line.startswith("# PyTorch ")).rsplit(" ", 1)[1].rstrip(".")


def cmake_options(environment: dict[str, str]) -> list[str]:
    """What tools/setup_helpers/cmake.py passes CMake of the environment: BUILD_*, USE_* and
    CMAKE_* by their own names, TORCH_CUDA_ARCH_LIST among its named options."""
    return [f"-D{name}={value}" for name, value in sorted(environment.items())
            if name.startswith(("BUILD_", "USE_", "CMAKE_")) or name == "TORCH_CUDA_ARCH_LIST"]


def extension_flags(arch_list: str) -> list[str]:
    """torch.utils.cpp_extension._get_cuda_arch_flags, PyTorch's own code read from the source
    (torch itself is not imported: with TORCH_CUDA_ARCH_LIST set the function does not use it)."""
    tree = ast.parse((SOURCE / "torch" / "utils" / "cpp_extension.py").read_text())
    function = next(node for node in tree.body
                    if isinstance(node, ast.FunctionDef) and node.name == "_get_cuda_arch_flags")
    names = {"os": os, "collections": collections, "warnings": warnings, "List": list, "Optional": type(None)}
    exec(compile(ast.Module([function], []), "cpp_extension.py", "exec"), names)
    saved = os.environ.get("TORCH_CUDA_ARCH_LIST")
    os.environ["TORCH_CUDA_ARCH_LIST"] = arch_list
    try:
        return names["_get_cuda_arch_flags"]()
    finally:
        if saved is None:
            del os.environ["TORCH_CUDA_ARCH_LIST"]
        else:
            os.environ["TORCH_CUDA_ARCH_LIST"] = saved


def test_the_source_is_debians_tarball():
    tarball = SOURCE.parent / "pytorch_2.6.0+dfsg.orig.tar.xz"
    if not tarball.exists():
        pytest.skip(f"the tarball is not beside {SOURCE}")
    assert hashlib.sha256(tarball.read_bytes()).hexdigest() == TARBALL_SHA256


@pytest.mark.parametrize("gpu", PROMISED)
def test_the_scripts_cuda_settings_become_the_promised_gencode_flags(run, tmp_path, gpu):
    arch_list, architectures, gencode = PROMISED[gpu]
    environment = script_environment(run, tmp_path, gpu)
    assert (environment["TORCH_CUDA_ARCH_LIST"], environment["CMAKE_CUDA_ARCHITECTURES"]) == (arch_list, architectures)
    launcher = environment["CMAKE_CUDA_COMPILER_LAUNCHER"]
    assert Path(launcher).resolve() == Path(CCACHE).resolve()

    project, build = tmp_path / "project", tmp_path / "project-build"
    project.mkdir()
    (project / "kernels.cu").write_text(KERNEL)
    (project / "CMakeLists.txt").write_text(PROJECT.format(source=SOURCE))
    # the script's environment, less the fakes' PATH: the real compilers and CMake
    env = {**environment, "PATH": f"{TOOLKIT_BIN}{os.pathsep}{os.environ['PATH']}",
           "CCACHE_DIR": str(tmp_path / "ccache")}
    configured = subprocess.run([CMAKE, "-S", str(project), "-B", str(build), *cmake_options(environment)],
                                env=env, capture_output=True, text=True)
    assert configured.returncode == 0, configured.stdout + configured.stderr
    assert (build / "gencode.txt").read_text().split(";") == gencode
    cache = (build / "CMakeCache.txt").read_text()
    assert f"CMAKE_CUDA_COMPILER:FILEPATH={environment['CUDACXX']}" in cache  # the nvcc the script checked
    built = subprocess.run([CMAKE, "--build", str(build), "--verbose"], env=env, capture_output=True, text=True)
    assert built.returncode == 0, built.stdout + built.stderr
    compile_line = next(line for line in built.stdout.splitlines() if "kernels.cu" in line and " -c " in line)
    assert compile_line.startswith(f"{launcher} {environment['CUDACXX']} ")  # through the launcher
    assert " ".join(gencode) in compile_line and "--generate-code" not in compile_line

    held = cuobjdump.read(CUOBJDUMP, build / "libkernels.so")
    assert (set(held.sass), set(held.ptx)) == ({gencode[1].split("code=")[1]}, set())

    if arch_list in EXTENSION_KNOWS:
        assert extension_flags(environment["TORCH_CUDA_ARCH_LIST"]) == ["=".join(gencode)]


# An arch list -> what PyTorch's CMake makes of it: a +PTX entry, an arch-specific target and
# the lists of PyTorch's own wheels the knowledge reads (knowledge.serves)
ARCH_LISTS = {
    "9.0+PTX": ["arch=compute_90,code=sm_90", "arch=compute_90,code=compute_90"],
    "9.0a": ["arch=compute_90a,code=sm_90a"],
    "8.0;9.0a+PTX": ["arch=compute_80,code=sm_80", "arch=compute_90a,code=sm_90a", "arch=compute_90a,code=compute_90a"],
    "8.0;9.0;10.0;11.0;12.0+PTX": ["arch=compute_80,code=sm_80", "arch=compute_90,code=sm_90",
                                   "arch=compute_100,code=sm_100", "arch=compute_110,code=sm_110",
                                   "arch=compute_120,code=sm_120", "arch=compute_120,code=compute_120"],
    "7.5;8.0;8.6;9.0;10.0;12.0+PTX": ["arch=compute_75,code=sm_75", "arch=compute_80,code=sm_80",
                                      "arch=compute_86,code=sm_86", "arch=compute_90,code=sm_90",
                                      "arch=compute_100,code=sm_100", "arch=compute_120,code=sm_120",
                                      "arch=compute_120,code=compute_120"],
}


@pytest.mark.parametrize("arch", ARCH_LISTS)
def test_an_arch_list_is_read_as_pytorchs_cmake_turns_it_into_code(tmp_path, arch):
    """The knowledge reads an entry as SASS for its SM and, with +PTX, PTX of it too
    (knowledge._target); PyTorch's CMake must make those -gencode flags of it, and nvcc the code."""
    from generator.knowledge import _target

    (tmp_path / "select.cmake").write_text(SELECT.format(source=SOURCE, arch=arch))
    done = subprocess.run([CMAKE, "-P", str(tmp_path / "select.cmake")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    flags = done.stderr.strip().split(";")
    assert flags[0::2] == ["-gencode"] * (len(flags) // 2)
    assert flags[1::2] == ARCH_LISTS[arch]

    sass, ptx = set(), set()
    for entry in arch.split(";"):
        (have, suffix, has_ptx) = _target(entry)
        name = f"{have[0]}{have[1]}{suffix}"
        sass.add(f"arch=compute_{name},code=sm_{name}")
        if has_ptx:
            ptx.add(f"arch=compute_{name},code=compute_{name}")
    assert set(flags[1::2]) == sass | ptx

    (tmp_path / "kernel.cu").write_text(KERNEL)
    library = tmp_path / "kernel.so"
    built = subprocess.run([str(NVCC), "-shared", "-Xcompiler", "-fPIC", "-cudart", "none", *flags,
                            str(tmp_path / "kernel.cu"), "-o", str(library)], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    held = cuobjdump.read(CUOBJDUMP, library)
    assert set(held.sass) == {flag.split("code=")[1] for flag in sass}
    assert set(held.ptx) == {"sm_" + flag.split("code=compute_")[1] for flag in ptx}
    if all(entry.removesuffix("+PTX") in EXTENSION_KNOWS | {"9.0a"} for entry in arch.split(";")):
        assert extension_flags(arch) == sorted("-gencode=" + flag for flag in flags[1::2])
