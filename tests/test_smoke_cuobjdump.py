"""smoke reads the GPU code torch's libraries hold with NVIDIA's cuobjdump.

The libraries in fixtures/cuda-libraries are real: nvcc 13.0 made them (make.sh says how),
each holding one kernel for the architectures its name gives. The tests that run cuobjdump
skip where it is absent; `pip install nvidia-cuda-cuobjdump` (300 kB, Linux) brings it, and
.ci/run installs it. What they cannot prove: that a torch build's libtorch_cuda.so, with
thousands of kernels, lists the same way; the parser takes each listed line alike.
"""

from __future__ import annotations

import gzip
import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

from generator import knowledge as knowledge_
from generator.commands import cuobjdump, promise, smoke

from conftest import needs_posix
from test_smoke import crashing_torch, lines

LIBRARIES = Path(__file__).parent / "fixtures" / "cuda-libraries"
KNOWLEDGE = knowledge_.build(knowledge_.builtin())


def installed_cuobjdump() -> Path | None:
    """cuobjdump on PATH, else the one `pip install nvidia-cuda-cuobjdump` put beside the tests."""
    if shutil.which("cuobjdump"):
        return Path(shutil.which("cuobjdump"))
    spec = importlib.util.find_spec("nvidia")
    for folder in (spec.submodule_search_locations if spec else ()):
        found = sorted(Path(folder).glob("*/bin/cuobjdump"))
        if found:
            return found[0]
    return None


CUOBJDUMP = installed_cuobjdump()
needs_cuobjdump = pytest.mark.skipif(
    CUOBJDUMP is None or not sys.platform.startswith("linux"),
    reason="no cuobjdump on PATH or from pip: `pip install nvidia-cuda-cuobjdump` (Linux) to read real CUDA libraries",
)


def sm(name: str):
    return KNOWLEDGE.sm[name]


# What cuobjdump 13.5.37 (pip: nvidia-cuda-cuobjdump 13.5.37) printed for the fixtures, with
# the messages it writes to stderr: sm80-sm90a-sm100f-ptx90.so, then ptx75.so.
RECORDED_ELF = """\
ELF file    1: sm80-sm90a-sm100f-ptx90.1.sm_80.cubin
ELF file    2: sm80-sm90a-sm100f-ptx90.2.sm_90a.cubin
ELF file    3: sm80-sm90a-sm100f-ptx90.3.sm_100.cubin
"""
RECORDED_PTX = """\
PTX file    1: sm80-sm90a-sm100f-ptx90.1.sm_90.ptx
"""
RECORDED_NONE = ("cuobjdump info    : No ELF file found to extract from 'ptx75.so'. You may try with -all "
                 "option.\n")


def test_the_listings_cuobjdump_prints_are_read_as_sass_and_ptx():
    assert cuobjdump.parse(RECORDED_ELF) == (frozenset({"sm_80", "sm_90a", "sm_100"}), frozenset())
    assert cuobjdump.parse(RECORDED_PTX) == (frozenset(), frozenset({"sm_90"}))
    assert cuobjdump.parse(RECORDED_NONE) == (frozenset(), frozenset())


# A real torch: what cuobjdump listed for the CUDA libraries of PyTorch's wheel 2.11.0+cu130
# (README.md beside the listings says where and how).
WHEEL = Path(__file__).parent / "fixtures" / "cuobjdump-torch-2.11.0-cu130"


def wheel_listing(library: str) -> list[str]:
    return gzip.decompress((WHEEL / f"{library}.list-elf.gz").read_bytes()).decode().splitlines()


def wheel_held() -> tuple[cuobjdump.Held, ...]:
    return tuple(cuobjdump.Held(Path(library), *cuobjdump.parse("\n".join(wheel_listing(library))))
                 for library in ("libtorch_cuda.so", "libtorch_cuda_linalg.so", "libtorch_nvshmem.so"))


def test_every_line_a_real_torchs_listing_holds_is_read():
    listing = wheel_listing("libtorch_cuda.so")
    assert len(listing) == 2789
    assert all(cuobjdump.parse(line)[0] for line in listing)  # "ELF file 2787: libtorch_cuda.2787.sm_90.cubin" too
    sass, ptx = cuobjdump.parse("\n".join(listing))
    assert sorted(sass) == ["sm_100", "sm_100a", "sm_103a", "sm_120", "sm_120a", "sm_121a", "sm_75", "sm_80",
                            "sm_86", "sm_89", "sm_90", "sm_90a"]
    assert ptx == frozenset()


@pytest.mark.parametrize("gpu, state, lacking", [
    ("sm90", "PASS", ""),  # the H200 the listings were read on
    ("sm89", "PASS", ""),  # sm_89 in libtorch_cuda, sm_86 in the others
    ("sm121", "PASS", ""),  # sm_120 SASS runs on 12.1
    ("sm75", "FAIL", "libtorch_cuda_linalg.so"),  # its kernels start at sm_80
    ("sm110", "FAIL", "libtorch_cuda.so, libtorch_cuda_linalg.so, libtorch_nvshmem.so"),
])
def test_a_real_torchs_libraries_are_judged_library_by_library(tmp_path, gpu, state, lacking):
    check = cuobjdump.code_verdict(sm(gpu), wheel_held(), (), tmp_path)
    assert check.state == state, check.detail
    verb = "hold" if "," in lacking else "holds"
    assert check.detail.startswith(f"{lacking} {verb} neither" if lacking else "every library cuobjdump read")


@pytest.mark.parametrize("arch, ptx, gpu, runs", [
    ("sm_90", False, "sm90", True),
    ("sm_80", False, "sm86", True),  # SASS runs on later minors of its major version
    ("sm_86", False, "sm80", False),
    ("sm_80", False, "sm90", False),  # not across major versions
    ("sm_90a", False, "sm90", True),
    ("sm_90a", True, "sm100", False),  # architecture-specific code runs on its own version alone
    ("sm_100", False, "sm103", True),
    ("sm_90", True, "sm120", True),  # PTX compiles for any later GPU
    ("sm_90", True, "sm89", False),
    ("sm_100f", True, "sm103", True),
    ("sm_100f", True, "sm120", False),  # family code stays in its family
])
def test_which_code_runs_on_which_gpu(arch, ptx, gpu, runs):
    assert cuobjdump.runs_on(arch, sm(gpu), ptx) is runs


def torch_install(tmp_path: Path, **libraries: str) -> Path:
    """A torch folder whose lib holds copies of the fixture libraries, by the names given."""
    folder = tmp_path / "torch"
    (folder / "lib").mkdir(parents=True)
    for name, fixture in libraries.items():
        shutil.copy(LIBRARIES / fixture, folder / "lib" / f"{name}.so")
    return folder


def verdict(folder: Path, gpu: str) -> smoke.Check:
    return cuobjdump.gpu_code(promise.hand_promise(KNOWLEDGE, "a build", None, None, None, sm(gpu), None, False),
                          {"torch_file": str(folder / "__init__.py")}, CUOBJDUMP)


@needs_cuobjdump
def test_real_cuobjdump_reads_the_sass_and_ptx_a_library_holds():
    read = {path.name: cuobjdump.read(CUOBJDUMP, path) for path in sorted(LIBRARIES.glob("*.so"))}
    assert read == {
        "no-gpu-code.so": None,
        "ptx75.so": cuobjdump.Held(LIBRARIES / "ptx75.so", frozenset(), frozenset({"sm_75"})),
        "sm80-sm90a-sm100f-ptx90.so": cuobjdump.Held(LIBRARIES / "sm80-sm90a-sm100f-ptx90.so",
                                                     frozenset({"sm_80", "sm_90a", "sm_100"}), frozenset({"sm_90"})),
        "sm86.so": cuobjdump.Held(LIBRARIES / "sm86.so", frozenset({"sm_86"}), frozenset()),
    }


@needs_cuobjdump
@pytest.mark.parametrize("gpu, state", [
    ("sm86", "PASS"),  # sm_80 SASS in one, sm_86 in the other
    ("sm90", "FAIL"),  # libc10_cuda holds sm_86 alone
    ("sm120", "FAIL"),
])
def test_every_library_with_gpu_code_must_hold_code_the_promised_gpu_runs(tmp_path, gpu, state):
    folder = torch_install(tmp_path, libtorch_cuda="sm80-sm90a-sm100f-ptx90.so", libc10_cuda="sm86.so",
                           libc10="no-gpu-code.so")
    check = verdict(folder, gpu)
    assert (check.name, check.state) == ("code", state)
    assert "libtorch_cuda.so (SASS sm_80 sm_90a sm_100; PTX sm_90)" in check.detail
    assert "libc10.so" not in check.detail
    if state == "FAIL":
        assert check.detail.startswith(f"libc10_cuda.so holds neither SASS for {gpu} ")


@needs_cuobjdump
@pytest.mark.parametrize("gpu, state", [("sm90", "PASS"), ("sm120", "PASS"), ("sm89", "PASS"), ("sm75", "FAIL")])
def test_ptx_that_compiles_for_the_gpu_is_enough(tmp_path, gpu, state):
    check = verdict(torch_install(tmp_path, libtorch_cuda="sm80-sm90a-sm100f-ptx90.so"), gpu)
    assert check.state == state, check.detail


@needs_cuobjdump
def test_a_torch_without_gpu_code_or_without_cuobjdump_is_a_skip_saying_why(tmp_path):
    check = verdict(torch_install(tmp_path, libc10="no-gpu-code.so"), "sm90")
    assert (check.state, check.detail) == (
        "SKIP", f"no library in {tmp_path / 'torch' / 'lib'} holds GPU code, by cuobjdump: there is no CUDA code "
                "to check")
    promised = promise.hand_promise(KNOWLEDGE, "a build", None, None, None, sm("sm90"), None, False)
    without = cuobjdump.gpu_code(promised, {"torch_file": str(tmp_path / "torch" / "__init__.py")}, None)
    assert without.name == check.name == "code"
    assert without.state == "SKIP" and without.detail.startswith("no cuobjdump on PATH, beside nvcc")


@needs_cuobjdump
@pytest.mark.parametrize("found", [True, False], ids=["torch-found", "no-torch"])
@pytest.mark.parametrize("gpu", [None, "sm90"], ids=["no-sm-promised", "sm90"])
def test_the_code_check_runs_only_where_an_sm_is_promised_and_torch_was_found(tmp_path, gpu, found):
    """A CPU-only build promises no SM: its torch, found or not, gets no code check; nor does a
    promised SM where no torch was found. Only both together read the libraries."""
    folder = torch_install(tmp_path, libc10="sm80-sm90a-sm100f-ptx90.so")
    promised = promise.hand_promise(KNOWLEDGE, "a build", None, None, None, gpu and sm(gpu), None, gpu is None)
    facts = {"torch_file": str(folder / "__init__.py")} if found else {}
    check = cuobjdump.gpu_code(promised, facts, CUOBJDUMP)
    if gpu and found:
        assert (check.name, check.state) == ("code", "PASS")
    else:
        assert check is None


@needs_cuobjdump
def test_a_library_of_any_name_that_holds_gpu_code_counts(tmp_path):
    # PyTorch's wheel holds kernels in libtorch_nvshmem.so too (fixtures/cuobjdump-torch-2.11.0-cu130)
    folder = torch_install(tmp_path, libtorch_cuda="sm80-sm90a-sm100f-ptx90.so", libtorch_nvshmem="sm86.so")
    assert verdict(folder, "sm90").detail.startswith("libtorch_nvshmem.so holds neither SASS for sm90")


@needs_cuobjdump
def test_a_library_cuobjdump_cannot_read_leaves_the_verdict_open_unless_another_fails(tmp_path):
    folder = torch_install(tmp_path, libtorch_cuda="sm80-sm90a-sm100f-ptx90.so")
    (folder / "lib" / "libtorch_cuda_linalg.so").write_bytes(b"not a library")
    check = verdict(folder, "sm90")
    assert check.state == "SKIP"
    assert check.detail.endswith("; unread: cuobjdump --list-elf libtorch_cuda_linalg.so: cuobjdump fatal   : "
                                 f"Invalid fatbin header in '{folder / 'lib' / 'libtorch_cuda_linalg.so'}'")
    shutil.copy(LIBRARIES / "sm86.so", folder / "lib" / "libc10_cuda.so")
    assert verdict(folder, "sm90").state == "FAIL"


def test_cuobjdump_is_found_beside_nvcc_or_in_cuda_home(tmp_path, monkeypatch):
    toolkit = tmp_path / "cuda" / "bin"
    toolkit.mkdir(parents=True)
    tool = toolkit / cuobjdump.TOOL
    tool.write_text("")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.delenv("CUDA_HOME", raising=False)
    assert cuobjdump.find(None) is None
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "cuda"))
    assert cuobjdump.find(None) == tool
    monkeypatch.delenv("CUDA_HOME")
    (toolkit / "nvcc").write_text("")
    (toolkit / "nvcc").chmod(0o755)
    monkeypatch.setenv("PATH", str(toolkit.parent / "nothing") + ":" + str(toolkit))
    tool.rename(toolkit / "elsewhere")
    assert cuobjdump.find(None) is None
    (toolkit / "elsewhere").rename(tool)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "nvcc").symlink_to(toolkit / "nvcc")  # nvcc linked from elsewhere, as /usr/bin/nvcc
    assert cuobjdump.find(None) == tool


# ---- through the command line ----------------------------------------------------------

def test_a_cuobjdump_that_is_not_there_is_invalid_input_naming_the_option(run, tmp_path):
    result = run("smoke", "--gpu", "sm90", "--python", sys.executable, "--cuobjdump", tmp_path / "cuobjdump",
                 "--root", tmp_path)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: --cuobjdump: {tmp_path / 'cuobjdump'} is not an executable file")
    assert list(tmp_path.iterdir()) == []


@needs_cuobjdump
@needs_posix("a stand-in interpreter written as a #!/bin/sh script")
def test_smoke_reads_the_code_of_the_torch_the_interpreter_has_even_where_it_cannot_import(run, tmp_path):
    python = crashing_torch(tmp_path)
    lib = tmp_path / "site" / "torch" / "lib"
    lib.mkdir()
    shutil.copy(LIBRARIES / "sm86.so", lib / "libtorch_cuda.so")
    result = run("smoke", "--gpu", "RTX 3090", "--cuda", "12.8", "--python", python, "--cuobjdump", CUOBJDUMP,
                 "--root", tmp_path)
    assert result.exit_code == 1, result.stdout
    assert lines(result)[-2] == ("PASS  code   every library cuobjdump read holds code sm86 (compute capability "
                                 "8.6) runs: libtorch_cuda.so (SASS sm_86; PTX none)")
    result = run("smoke", "--gpu", "sm90", "--python", python, "--cuobjdump", CUOBJDUMP, "--root", tmp_path)
    assert lines(result)[-2].startswith("FAIL  code   libtorch_cuda.so holds neither SASS for sm90 (compute "
                                        "capability 9.0) nor PTX that compiles for it")


@needs_cuobjdump
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed in the test interpreter")
def test_a_real_cpu_torch_holds_no_gpu_code(run, tmp_path):
    import torch

    if torch.version.cuda is not None:
        pytest.skip(f"torch {torch.__version__} is a CUDA build; this test reads a CPU-only one")
    result = run("smoke", "--gpu", "sm90", "--python", sys.executable, "--cuobjdump", CUOBJDUMP, "--root", tmp_path)
    folder = Path(torch.__file__).parent / "lib"
    assert f"SKIP  code     no library in {folder} holds GPU code, by cuobjdump: there is no CUDA code to check" \
        in lines(result)


def test_a_cuobjdump_that_hangs_is_stopped_and_said_so(tmp_path, monkeypatch):
    """cuobjdump is the user's (--cuobjdump PATH): one that never answers stops the check
    after TIMEOUT_S, as a library it could not read, instead of holding smoke up."""
    tool = tmp_path / "cuobjdump"
    tool.write_text("#!/bin/sh\nexec sleep 3\n")
    tool.chmod(0o755)
    monkeypatch.setattr(cuobjdump, "TIMEOUT_S", 0.5)
    library = tmp_path / "libtorch_cuda.so"
    library.write_bytes(b"")
    assert cuobjdump.read(tool, library) == "cuobjdump --list-elf libtorch_cuda.so ran past 0.5 s"
