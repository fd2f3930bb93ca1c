"""The torch build fixes of nix/fixes do what they say, run as a build runs them.

One recipe gets every fix of torch: PyTorch 2.10.0 from source with CUDA 13.0 on nixpkgs
6a030d5 for avx CPUs (the pairing examples/pytorch-2.10 uses). nix-build runs its unpack and
patch phases and then its preConfigure (phase_harness, `configure` of patch-phase.nix) over
the skeletal v2.10.0 tree, against the test package set with the files the fixes point at
made real (tests/fixtures/build-fixes/realised.nix). Real CMake (the `cmake` wheel of the
test extra) then reads what the build left:

- findcudatoolkit-stub: the pin's postPatch deletes cmake/Modules/FindCUDAToolkit.cmake and
  the stub takes its place; find_package(CUDAToolkit) through it reaches CMake's own module
  and leaves the module path as it was (the stub would otherwise find itself again);
- avx-only-kernels: setup.py hands every CMAKE_* variable of the environment to CMake as
  -DNAME=VALUE (tools/setup_helpers/cmake.py, read at pytorch/pytorch 00ef8f06). The file
  CMAKE_PROJECT_INCLUDE_BEFORE names sets exactly five cache entries, and PyTorch's checks of
  the compiler (tests/fixtures/build-fixes/cmake/avx, after pytorch/pytorch db8ddc78) find
  neither AVX2 nor AVX-512 with it, where they find both without it;
- cccl-include: CXXFLAGS, CFLAGS and CUDAFLAGS each start with a folder of the build in which
  <cccl/cuda/std/utility> is cuda_cccl's <cuda/std/utility>, and so for cub, thrust and nv.

What this cannot prove: what PyTorch's own CMake does past these checks, that nvcc reads
CUDAFLAGS (CMake starts CMAKE_CUDA_FLAGS from it, by its documentation), and the layout of
the real cuda_cccl (tests/nix/README.md says where the test package set's was read).
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import REPO, needs_nix, nix_eval, nix_string
from phase_harness import SOURCES, build, host_path, needs_nix_build, phase_args, torch_recipe

FIXTURES = REPO / "tests" / "fixtures" / "build-fixes"
PROJECTS = FIXTURES / "cmake"
CCCL = FIXTURES / "cuda_cccl" / "include"
TREE = SOURCES / "v2.10.0"
MATRIX = """\
pytorch:
  version: "2.10.0"
  source: {rev: v2.10.0, hash: "sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}
nixpkgs: {rev: 6a030d535719c5190187c4cec156f335e95e3211}
gpu: {python: ["3.13"], cuda: ["13.0"], sm: [sm90], isa: [avx]}
"""
# What the preset file must leave in the cache: PyTorch's answers for a compiler without AVX2
# and AVX-512 (cmake/MiscCheck.cmake and cmake/Modules/FindAVX.cmake).
PRESETS = {
    "CXX_AVX2_FOUND": ("BOOL", "FALSE"),
    "C_AVX2_FOUND": ("BOOL", "FALSE"),
    "CXX_AVX512_FOUND": ("BOOL", "FALSE"),
    "C_AVX512_FOUND": ("BOOL", "FALSE"),
    "CAFFE2_COMPILER_SUPPORTS_AVX512_EXTENSIONS": ("BOOL", "OFF"),
}


def cmake_program() -> str | None:
    try:
        import cmake
    except ImportError:
        return shutil.which("cmake")
    return str(Path(cmake.CMAKE_BIN_DIR) / "cmake")


CMAKE = cmake_program()
needs_cmake = pytest.mark.skipif(
    CMAKE is None, reason="cmake not found: pip install -e '.[test]' installs it (the cmake wheel)")
needs_compilers = pytest.mark.skipif(
    not any(shutil.which(c) for c in ("cc", "gcc", "clang"))
    or not any(shutil.which(c) for c in ("c++", "g++", "clang++")),
    reason="no C and C++ compilers on this machine for the CMake checks to run")

pytestmark = [needs_nix, needs_nix_build]


@dataclass(frozen=True)
class Configured:
    out: Path                   # the `configure` output: environment, build/
    environment: dict[str, str]  # what preConfigure exported, as setup.py would see it

    def in_build(self, path: str) -> Path:
        """Where a path in $NIX_BUILD_TOP of the finished build is kept in the output."""
        top = self.environment["NIX_BUILD_TOP"]
        assert path.startswith(top + "/"), f"{path} is not in the build's own folder {top}"
        return self.out / "build" / path[len(top) + 1:]


@pytest.fixture(scope="module")
def configured(tmp_path_factory) -> Configured:
    recipe = torch_recipe(tmp_path_factory.mktemp("recipe"), MATRIX)
    code, log, out = build(phase_args(recipe, str(FIXTURES / "nixpkgs.nix"), TREE, host_path()), "configure")
    assert code == 0, log
    entries = (out / "environment").read_text().split("\0")
    return Configured(out, dict(entry.split("=", 1) for entry in entries if entry))


def cmake(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([CMAKE, *args], capture_output=True, text=True)


def results(build_dir: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in (build_dir / "results.txt").read_text().splitlines())


def cache_entries(build_dir: Path) -> dict[str, tuple[str, str]]:
    """CMakeCache.txt as {name: (type, value)}."""
    entries = {}
    for line in (build_dir / "CMakeCache.txt").read_text().splitlines():
        if line and not line.startswith(("#", "//")):
            declaration, value = line.split("=", 1)
            name, kind = declaration.rsplit(":", 1)
            entries[name] = (kind, value)
    return entries


def preset_file(configured: Configured) -> str:
    environment = configured.environment
    assert "CMAKE_PROJECT_INCLUDE_BEFORE" in environment, "preConfigure exports no CMAKE_PROJECT_INCLUDE_BEFORE"
    return environment["CMAKE_PROJECT_INCLUDE_BEFORE"]


@needs_cmake
def test_the_findcudatoolkit_stub_replaces_the_deleted_module_and_reaches_cmakes_own(configured, tmp_path):
    modules = configured.out / "build" / "source" / "cmake" / "Modules"
    stub = modules / "FindCUDAToolkit.cmake"
    # The fix writes the stub only where the file is gone: a stub in place of the tree's own
    # file means the pin's postPatch deleted it first.
    assert stub.is_file()
    assert stub.read_text() != (TREE / "cmake" / "Modules" / "FindCUDAToolkit.cmake").read_text()
    run = cmake("-S", str(PROJECTS / "cudatoolkit"), "-B", str(tmp_path), f"-DTORCH_MODULES={modules}")
    assert run.returncode == 0, run.stdout + run.stderr
    assert results(tmp_path) == {"cmake_module_ran": "ON", "module_path_kept": "ON"}


@needs_cmake
def test_the_avx_preset_file_sets_exactly_its_cache_entries(configured, tmp_path):
    (tmp_path / "empty.cmake").write_text("")
    found = {}
    for name, preset in {"with": preset_file(configured), "without": str(tmp_path / "empty.cmake")}.items():
        run = cmake("-S", str(PROJECTS / "presets"), "-B", str(tmp_path / name),
                    f"-DCMAKE_PROJECT_INCLUDE_BEFORE={preset}")
        assert run.returncode == 0, run.stdout + run.stderr
        found[name] = cache_entries(tmp_path / name)
    added = {name: entry for name, entry in found["with"].items() if name not in found["without"]}
    assert added == PRESETS


@needs_cmake
@needs_compilers
@pytest.mark.parametrize("any_compiler", [True, False], ids=["every-check-passes", "pytorchs-own-code"])
def test_pytorchs_avx_checks_find_no_avx2_or_avx512_with_the_preset(configured, tmp_path, any_compiler):
    """With any_compiler each check's program is one every compiler builds with no flag, so
    that, whatever this machine's compiler or CPU, the checks find AVX2 and AVX-512 without
    the preset: the preset, not the host, makes them find nothing."""
    (tmp_path / "empty.cmake").write_text("")
    presets = {"with": preset_file(configured)}
    if any_compiler:
        presets["without"] = str(tmp_path / "empty.cmake")
    seen = {}
    for name, preset in presets.items():
        run = cmake("-S", str(PROJECTS / "avx"), "-B", str(tmp_path / name),
                    f"-DANY_COMPILER={'ON' if any_compiler else 'OFF'}", f"-DCMAKE_PROJECT_INCLUDE_BEFORE={preset}")
        assert run.returncode == 0, run.stdout + run.stderr
        seen[name] = results(tmp_path / name)
    assert seen["with"] == {name: "OFF" for name in PRESETS}
    if any_compiler:
        assert seen["without"] == {name: "ON" for name in PRESETS}


@pytest.mark.parametrize("variable", ["CXXFLAGS", "CFLAGS", "CUDAFLAGS"])
def test_the_cccl_include_goes_first_for_every_compiler(configured, variable):
    assert variable in configured.environment, f"preConfigure exports no {variable}"
    first = configured.environment[variable].split()[0]
    assert first.startswith("-I"), configured.environment[variable]
    folder = configured.in_build(first[2:])
    for header in ["cuda/std/utility", "cub/cub.cuh", "thrust/version.h", "nv/target"]:
        assert (folder / "cccl" / header).read_text() == (CCCL / header).read_text(), header


@pytest.mark.parametrize("present", [True, False], ids=["tree-has-the-module", "module-deleted"])
def test_the_findcudatoolkit_stub_is_written_only_where_the_module_is_gone(tmp_path, present):
    """The fix's postPatch, run by a real bash in a tree: a FindCUDAToolkit.cmake the tree still
    has (a pin whose postPatch keeps it) is left as it is; a deleted one becomes the stub,
    after whatever postPatch nixpkgs had."""
    fix = nix_string(REPO / "nix" / "fixes" / "findcudatoolkit-stub.nix")
    script = nix_eval(f'((import {fix}).torch {{ }} {{ }} {{ postPatch = "echo nixpkgs > ran\\n"; }}).postPatch')
    modules = tmp_path / "cmake" / "Modules"
    modules.mkdir(parents=True)
    own = "# the tree's own module\n"
    if present:
        (modules / "FindCUDAToolkit.cmake").write_text(own)
    subprocess.run(["bash", "-euc", script], cwd=tmp_path, check=True, env={"PATH": "/usr/bin:/bin"})
    assert (tmp_path / "ran").read_text() == "nixpkgs\n"
    written = (modules / "FindCUDAToolkit.cmake").read_text()
    if present:
        assert written == own
    else:
        assert "include(FindCUDAToolkit)" in written and "list(FILTER CMAKE_MODULE_PATH EXCLUDE" in written


@pytest.mark.parametrize("old, where", [
    ('{ env = { PYTORCH_BUILD_VERSION = "2.9.1"; PYTORCH_BUILD_NUMBER = "0"; USE_NNPACK = "1"; }; }', "env"),
    ('{ PYTORCH_BUILD_VERSION = "2.9.1"; env = { USE_NNPACK = "1"; }; postPatch = "true\\n"; }', "top"),
], ids=["version-in-env", "version-at-top-level"])
def test_the_source_version_fix_sets_the_version_where_nixpkgs_has_it_and_keeps_the_rest(old, where):
    """torch-source-version on a torch that keeps PYTORCH_BUILD_VERSION in env beside other
    variables (newer nixpkgs) and on one that has it at the top level (older): the version
    is replaced where it is, and nothing else of env is lost."""
    fix = nix_string(REPO / "nix" / "fixes" / "torch-source-version.nix")
    new = nix_eval(f'let old = {old}; in old // ((import {fix}).torch {{ version = "2.10.0"; }} {{ }} old)')
    env = new["env"]
    assert env["USE_NNPACK"] == "1"
    if where == "env":
        assert env["PYTORCH_BUILD_VERSION"] == "2.10.0" and env["PYTORCH_BUILD_NUMBER"] == "0"
        assert "PYTORCH_BUILD_VERSION" not in new
    else:
        assert new["PYTORCH_BUILD_VERSION"] == "2.10.0" and "PYTORCH_BUILD_VERSION" not in env
    assert new["postPatch"].endswith("echo 2.10.0 > version.txt\n")
