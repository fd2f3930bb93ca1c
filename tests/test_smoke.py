"""smoke: the torch in an interpreter, checked against a variant and the host."""

from __future__ import annotations

import dataclasses
import importlib.metadata
import importlib.util
import json
import os
import platform
import re
import shutil
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from generator.commands import host, listing, promise, smoke

from conftest import REPO, expansion_of, needs_posix

HOSTS = Path(__file__).parent / "fixtures" / "hosts"
MATRIX = REPO / "matrix.yaml"
AVX512_HOST = HOSTS / "xeon8480-h100" / "cpuinfo"

needs_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None,
    reason="torch is not installed in the test interpreter: `pip install torch==2.13.0` (the CPU build) "
           "to smoke-test a real torch",
)


# QEMU's user-mode emulator runs this machine's Python on an emulated CPU: a Haswell has AVX2
# and no AVX-512, whatever CPU the tests run on.
QEMU = shutil.which("qemu-x86_64")
needs_qemu = pytest.mark.skipif(
    QEMU is None or platform.machine() != "x86_64",
    reason="qemu-x86_64 not found on an x86_64 machine: install it (apt-get install qemu-user) to smoke-test "
           "on an emulated AVX2-only CPU",
)


def torch_version() -> str:
    return importlib.metadata.version("torch")


def lines(result) -> list[str]:
    return result.stdout.splitlines()


# ---- the comparison, on probe facts made up for each case ------------------------------

def variant(name: str):
    expansion = expansion_of(REPO)
    return expansion.matrix, listing.find(expansion, name, "matrix.yaml")


def host_of(name: str) -> host.Host:
    return host.gather(cpuinfo=HOSTS / name / "cpuinfo", gpus=(), gpu_source="")


def gpu_facts(**changes) -> dict:
    facts = {
        "python": "3.13.5", "torch": "2.8.0", "torch_file": "/nix/store/x-torch/torch/__init__.py",
        "machine": "x86_64", "aten_cpu_capability": None,
        "cuda": "12.8", "cuda_available": True, "arch_list": ["sm_90"], "arch_source": "torch.cuda.get_arch_list()",
        "cpu_capability": "AVX512", "cpu_ceiling": "AVX512", "cpu_ceiling_source": "torch.cpu",
        "devices": [{"name": "NVIDIA H100 80GB HBM3", "capability": "9.0"}],
        "compute": {"cpu": {"device": "cpu", "ok": True, "size": 64, "wrong": 0},
                    "cuda": {"device": "cuda:0", "ok": True, "size": 64, "wrong": 0}},
    }
    facts.update(changes)
    return facts


def verdict(checks) -> dict[str, str]:
    return {check.name: check.state for check in checks}


def test_a_matching_gpu_build_passes_every_check():
    matrix, sm90 = variant("pytorch-python313-cuda12_8-sm90-avx512")
    checks = smoke.checks(promise.promise_of(matrix, sm90), gpu_facts(), host_of("xeon8480-h100"))
    assert verdict(checks) == {"torch": "PASS", "python": "PASS", "version": "PASS", "cuda": "PASS",
                               "arch": "PASS", "cpu": "PASS", "kernels": "PASS", "compute": "PASS", "gpu": "PASS"}
    assert checks[-1].detail == ("64x64 matmul on cuda:0 (NVIDIA H100 80GB HBM3, compute capability 9.0) "
                                 "gives the exact product")


@pytest.mark.parametrize("changes, failing, detail", [
    ({"torch": "2.7.1"}, "version", "torch 2.7.1; the variant is PyTorch 2.8.0"),
    ({"python": "3.12.9"}, "python", "Python 3.12.9; the variant is for Python 3.13"),
    ({"cuda": "12.6"}, "cuda", "torch.version.cuda is 12.6; the variant is CUDA 12.8"),
    ({"arch_list": ["sm_80", "sm_86"]}, "arch", "sm_90 (sm90) is not in torch.cuda.get_arch_list(): sm_80 sm_86"),
    ({"arch_list": ["sm_80", "sm_90"]}, "arch", "torch.cuda.get_arch_list() is sm_80 sm_90: beyond sm_90 (sm90) "
                                                "this torch holds sm_80, which the variant does not promise"),
    ({"arch_list": ["sm_90", "compute_80"]}, "arch", "torch.cuda.get_arch_list() is sm_90 compute_80: beyond sm_90 "
                                                     "(sm90) this torch holds compute_80, which the variant does not promise"),
    ({"compute": {"cpu": {"device": "cpu", "ok": True, "size": 64, "wrong": 0},
                  "cuda": {"device": "cuda:0", "ok": False, "size": 64, "wrong": 7}}}, "gpu",
     "64x64 matmul on cuda:0: 7 wrong values"),
    ({"compute": {"cpu": {"device": "cpu", "ok": True, "size": 64, "wrong": 0},
                  "cuda": {"device": "cuda:0", "ok": False, "error": "RuntimeError: no kernel image"}}}, "gpu",
     "matmul on cuda:0 failed: RuntimeError: no kernel image"),
    ({"compute": {"cpu": {"device": "cpu", "ok": False, "size": 64, "wrong": 3},
                  "cuda": {"device": "cuda:0", "ok": True, "size": 64, "wrong": 0}}}, "compute",
     "64x64 matmul on cpu: 3 wrong values"),
])
def test_each_mismatch_fails_its_own_check(changes, failing, detail):
    matrix, sm90 = variant("pytorch-python313-cuda12_8-sm90-avx512")
    checks = smoke.checks(promise.promise_of(matrix, sm90), gpu_facts(**changes), host_of("xeon8480-h100"))
    failed = [check for check in checks if check.failed]
    assert [(c.name, c.detail) for c in failed] == [(failing, detail)]


def test_the_compiled_architectures_are_read_without_a_gpu_and_ptx_of_the_sm_is_allowed():
    matrix, sm90 = variant("pytorch-python313-cuda12_8-sm90-avx512")
    no_gpu = gpu_facts(cuda_available=False, devices=[], arch_list=["sm_90", "compute_90"],
                       arch_source="torch._C._cuda_getArchFlags()",
                       compute={"cpu": {"device": "cpu", "ok": True, "size": 64, "wrong": 0}})
    states = {c.name: (c.state, c.detail) for c in smoke.checks(promise.promise_of(matrix, sm90), no_gpu, host_of("xeon8480-h100"))}
    assert states["arch"] == ("PASS", "torch._C._cuda_getArchFlags() is sm_90 compute_90: exactly sm_90 (sm90)")
    assert states["gpu"][0] == "SKIP" and "no usable NVIDIA GPU" in states["gpu"][1]
    assert states["compute"][0] == "PASS"
    unreadable = dict(no_gpu, arch_list=[])
    (arch,) = [c for c in smoke.checks(promise.promise_of(matrix, sm90), unreadable, host_of("xeon8480-h100")) if c.name == "arch"]
    assert arch.state == "SKIP" and "sm_90 cannot be checked here" in arch.detail


def test_a_cpu_only_torch_for_a_gpu_variant_reports_the_missing_cuda():
    matrix, sm90 = variant("pytorch-python313-cuda12_8-sm90-avx512")
    facts = gpu_facts(cuda=None, cuda_available=False, arch_list=[], devices=[],
                      compute={"cpu": {"device": "cpu", "ok": True, "size": 64, "wrong": 0}})
    checks = smoke.checks(promise.promise_of(matrix, sm90), facts, host_of("xeon8480-h100"))
    assert {c.name: c.detail for c in checks if c.failed} == {
        "cuda": "this torch has no CUDA (torch.version.cuda is None): a CPU-only build; "
                "pytorch-python313-cuda12_8-sm90-avx512 is built with CUDA 12.8",
        "arch": "sm_90 (sm90) is not in torch.cuda.get_arch_list(): empty, no CUDA kernels at all",
    }
    assert [(c.name, c.state, c.detail) for c in checks if c.state == "SKIP"] == [
        ("gpu", "SKIP", "this torch has no CUDA: nothing can run on a GPU")]


@pytest.mark.parametrize("name, capability, ceiling, state", [
    ("pytorch-python313-cuda12_8-sm61-avx", "DEFAULT", "AVX512", "PASS"),
    ("pytorch-python313-cuda12_8-sm61-avx", "AVX2", "AVX512", "FAIL"),  # the AVX2 kernels were not compiled out
    ("pytorch-python313-cuda12_8-sm61-avx", "DEFAULT", "DEFAULT", "SKIP"),  # a CPU without AVX2 cannot tell
    ("pytorch-python313-cpu-avx2", "AVX2", "AVX512", "PASS"),
    ("pytorch-python313-cpu-avx2", "AVX2", "AVX2", "SKIP"),  # an AVX2-only CPU cannot show AVX-512 kernels
    ("pytorch-python313-cpu-avx2", "DEFAULT", "DEFAULT", "SKIP"),  # a CPU may offer less; never more than the build
    ("pytorch-python313-cpu-avx2", "AVX512", "AVX512", "FAIL"),
    ("pytorch-python313-cpu-avx2", "AVX2", None, "SKIP"),  # the CPU's own kernels unknown
    ("pytorch-python313-cpu-avx512", "AVX512", "AVX512", "PASS"),
    ("pytorch-python313-cpu-avx512", "AVX2", "AVX2", "PASS"),  # nothing lies beyond avx512
])
def test_the_cpu_kernels_torch_dispatches_to_must_fit_the_isa(name, capability, ceiling, state):
    matrix, chosen = variant(name)
    facts = gpu_facts(cpu_capability=capability, cpu_ceiling=ceiling, cuda=None if chosen.cuda is None else "12.8",
                      arch_list=[f"sm_{chosen.sm.capability.replace('.', '')}"] if chosen.sm else [])
    (kernels,) = [c for c in smoke.checks(promise.promise_of(matrix, chosen), facts, host_of("xeon8480-h100")) if c.name == "kernels"]
    assert kernels.state == state, kernels.detail
    if state == "FAIL":
        assert f"a build for {chosen.isa.name} may only report" in kernels.detail


def test_an_avx2_only_cpu_skips_the_kernels_check_saying_what_would_prove_it():
    matrix, avx2 = variant("pytorch-python313-cpu-avx2")
    facts = gpu_facts(cuda=None, cpu_capability="AVX2", cpu_ceiling="AVX2")
    (kernels,) = [c for c in smoke.checks(promise.promise_of(matrix, avx2), facts, host_of("ryzen5950x-rtx3090")) if c.name == "kernels"]
    assert (kernels.state, kernels.detail) == (
        "SKIP", "torch.backends.cpu.get_cpu_capability() is AVX2, which avx2 allows; this CPU tops out at AVX2, "
                "so kernels beyond avx2 cannot show here: run smoke on a CPU with AVX512")


def test_aten_cpu_capability_holding_the_dispatch_down_is_a_skip_not_a_pass():
    matrix, avx2 = variant("pytorch-python313-cpu-avx2")
    facts = gpu_facts(cuda=None, cpu_capability="AVX2", cpu_ceiling="AVX512", aten_cpu_capability="avx2")
    (kernels,) = [c for c in smoke.checks(promise.promise_of(matrix, avx2), facts, host_of("xeon8480-h100")) if c.name == "kernels"]
    assert kernels.state == "SKIP"
    assert "ATEN_CPU_CAPABILITY=avx2 holds the dispatch at AVX2" in kernels.detail
    # a cap above what the build may hold proves nothing less: the CPU decides
    facts = dict(facts, aten_cpu_capability="avx512")
    (kernels,) = [c for c in smoke.checks(promise.promise_of(matrix, avx2), facts, host_of("xeon8480-h100")) if c.name == "kernels"]
    assert kernels.state == "PASS"


def test_a_captured_cpu_unlike_this_one_is_said_not_mixed():
    matrix, avx2 = variant("pytorch-python313-cpu-avx2")
    facts = gpu_facts(cuda=None, cpu_capability="AVX512", cpu_ceiling="AVX512")
    checks = {c.name: c for c in smoke.checks(promise.promise_of(matrix, avx2), facts, host_of("ryzen5950x-rtx3090"))}
    assert checks["cpu"].detail == "the host CPU shows avx2 fma f16c (avx2)"
    assert checks["kernels"].state == "FAIL"
    assert smoke.notes(matrix.knowledge, facts, host_of("ryzen5950x-rtx3090"), "--cpuinfo x") == (
        "the cpu check is about the CPU --cpuinfo x describes (x86_64, up to AVX2 kernels); torch dispatches on "
        "this machine's (x86_64, up to AVX512 kernels), which the kernels check is about",)
    assert smoke.notes(matrix.knowledge, facts, host_of("xeon8480-h100"), "--cpuinfo x") == ()
    assert smoke.notes(matrix.knowledge, facts, host_of("ryzen5950x-rtx3090"), None) == ()


def test_a_companion_must_import_with_this_torch():
    matrix, torch_variant = variant("pytorch-python313-cpu-avx2")
    facts = gpu_facts(cuda=None, cpu_ceiling="AVX2", cpu_capability="AVX2",
                      companions={"torchvision": {"version": "0.23.0", "file": "/x/torchvision/__init__.py"}})
    (vision,) = [c for c in smoke.checks(promise.promise_of(matrix, torch_variant), facts, host_of("xeon8480-h100"), ("torchvision",))
                 if c.name == "torchvision"]
    assert (vision.state, vision.detail) == ("PASS", "torchvision 0.23.0 imports with this torch and runs torchvision.ops.nms")
    facts["companions"] = {"torchvision": {"error": "RuntimeError: operator torchvision::nms does not exist"}}
    (vision,) = [c for c in smoke.checks(promise.promise_of(matrix, torch_variant), facts, host_of("xeon8480-h100"), ("torchvision",))
                 if c.name == "torchvision"]
    assert (vision.state, vision.detail) == (
        "FAIL", "import torchvision with this torch failed: RuntimeError: operator torchvision::nms does not exist")


def test_the_metadata_revision_of_the_build_must_be_the_recipes(tmp_path):
    (tmp_path / ".metadata-rev").write_text("3\n")
    assert smoke.metadata(tmp_path, 3).state == "PASS"
    assert (smoke.metadata(tmp_path, 4).state, smoke.metadata(tmp_path, 4).detail) == (
        "FAIL", f"{tmp_path / '.metadata-rev'} is 3; the recipe's revision is 4")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert smoke.metadata(empty, 0) == smoke.Check(
        "metadata", "FAIL", f"{empty / '.metadata-rev'} is not there: this is not a build of a gen-matrix recipe")


@pytest.mark.parametrize("machine, arch", [("AMD64", "x86_64"), ("x86_64", "x86_64"), ("arm64", "aarch64"),
                                           ("ARM64", "aarch64"), ("aarch64", "aarch64")])
def test_the_machine_windows_and_macos_report_is_named_as_linux_names_it(machine, arch):
    assert smoke._arch(machine) == arch


def test_host_cpu_without_the_variants_isa_fails():
    matrix, avx512 = variant("pytorch-python313-cuda12_8-sm90-avx512")
    checks = smoke.checks(promise.promise_of(matrix, avx512), gpu_facts(), host_of("ryzen5950x-rtx3090"))
    (cpu,) = [c for c in checks if c.name == "cpu"]
    assert cpu.failed
    assert cpu.detail == "avx512 needs avx512f avx512dq avx512vl avx512bw; the host CPU lacks avx512f avx512dq avx512vl avx512bw"
    matrix, armv9 = variant("pytorch-python313-cpu-armv9")
    (cpu,) = [c for c in smoke.checks(promise.promise_of(matrix, armv9), gpu_facts(cuda=None), host_of("epyc9654-nogpu")) if c.name == "cpu"]
    assert cpu.failed and cpu.detail == "armv9 needs an aarch64 CPU; this one is x86_64"


def test_darwin_variant_needs_apple_silicon_and_computes_on_mps():
    matrix, mps = variant("pytorch-python313-darwin-mps")
    facts = gpu_facts(cuda=None, cuda_available=False, compute={"mps": {"device": "mps", "ok": True, "size": 64, "wrong": 0}})
    mac = host.gather(uname="Darwin arm64", gpus=(), proc_cpuinfo=Path("/nonexistent"))
    assert not any(c.failed for c in smoke.checks(promise.promise_of(matrix, mps), facts, mac))
    on_linux = {c.name: c.state for c in smoke.checks(promise.promise_of(matrix, mps), facts, host_of("epyc9654-nogpu"))}
    assert on_linux["host"] == "FAIL"


def test_an_interpreter_without_torch_fails_at_the_import():
    matrix, cpu = variant("pytorch-python313-cpu-avx2")
    checks = smoke.checks(promise.promise_of(matrix, cpu), {"python": "3.13.1", "import_error": "ModuleNotFoundError: No module named 'torch'"},
                          host_of("ryzen5950x-rtx3090"))
    assert [(c.name, c.state, c.detail) for c in checks] == [
        ("torch", "FAIL", "import torch failed: ModuleNotFoundError: No module named 'torch'")]


# ---- the command, with real interpreters -----------------------------------------------

def test_missing_interpreter_is_invalid_input_saying_how_to_get_one(run, tmp_path):
    (tmp_path / "matrix.yaml").write_text(MATRIX.read_text())
    result = run("smoke", "--root", tmp_path, "pytorch-python313-cpu-avx2")
    assert result.exit_code == 2
    assert f"{Path('python-pytorch-python313-cpu-avx2', 'bin', 'python')}: no such interpreter" in result.stderr
    assert "flox build pytorch-python313-cpu-avx2" in result.stderr


needs_sh = needs_posix("a stand-in interpreter written as a #!/bin/sh script")


def script(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text))
    path.chmod(0o755)
    return path


@needs_sh
def test_an_interpreter_that_dies_fails_clearly(run, tmp_path):
    python = script(tmp_path / "python", """\
        #!/bin/sh
        echo "Segmentation fault (core dumped)" >&2
        exit 139
    """)
    result = run("smoke", "--matrix", MATRIX, "pytorch-python313-cpu-avx2", "--python", python)
    assert result.exit_code == 1
    assert "FAIL  torch  the interpreter exited with status 139: Segmentation fault (core dumped)" in result.stdout


@needs_sh
def test_a_python_without_torch_fails_the_import(run, tmp_path):
    # the base interpreter without site-packages cannot import torch
    base = Path(sys.base_prefix) / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    python = script(tmp_path / "python", f"""\
        #!/bin/sh
        exec {base} -S "$@"
    """)
    result = run("smoke", "--matrix", MATRIX, "pytorch-python313-cpu-avx2", "--python", python)
    assert result.exit_code == 1
    assert "FAIL  torch  import torch failed: ModuleNotFoundError: No module named 'torch'" in result.stdout


@needs_torch
def test_real_torch_against_the_shipped_cpu_variant_fails_on_the_version(run):
    if not torch_version().endswith("+cpu"):
        pytest.skip(f"torch {torch_version()} is not the CPU-only build this test expects")
    result = run("smoke", "--matrix", MATRIX, "pytorch-python313-cpu-avx2", "--python", sys.executable,
                 "--cpuinfo", AVX512_HOST)
    assert result.exit_code == 1
    out = lines(result)
    assert out[0] == f"smoke test of pytorch-python313-cpu-avx2 with {sys.executable} (Python {sys.version.split()[0]})"
    assert f"FAIL  version  torch {torch_version()}; the variant is PyTorch 2.8.0" in out
    assert "PASS  cuda     no CUDA, as for a variant without CUDA" in out
    assert "PASS  compute  64x64 matmul on cpu gives the exact product" in out
    assert "PASS  cpu      the host CPU shows avx2 fma f16c (avx2)" in out
    assert out[-1].startswith("gen-matrix: ") and " failed" in out[-1]


@needs_torch
def test_a_relative_interpreter_path_works_from_anywhere(run, monkeypatch):
    # the probe runs in an empty folder: before, a relative --python could not be run there
    monkeypatch.chdir(Path(sys.executable).parent.parent.parent)
    relative = Path(sys.executable).relative_to(Path.cwd())
    result = run("smoke", "--matrix", MATRIX, "pytorch-python313-cpu-avx2", "--python", str(relative),
                 "--cpuinfo", AVX512_HOST)
    assert "cannot run it" not in result.output
    assert lines(result)[1].startswith("PASS  torch    torch ")
    assert lines(result)[0].startswith(f"smoke test of pytorch-python313-cpu-avx2 with {Path.cwd() / relative} ")


def this_cpu_runs() -> str:
    """The best CPU kernels this machine's CPU runs, as torch (the one under test) tells."""
    import torch
    return "AVX512" if torch.cpu._is_avx512_supported() else "AVX2" if torch.cpu._is_avx2_supported() else "DEFAULT"


@needs_torch
def test_real_torch_of_an_avx_variant_is_checked_for_its_kernels(run, monkeypatch):
    monkeypatch.delenv("ATEN_CPU_CAPABILITY", raising=False)
    result = run("smoke", "--matrix", MATRIX, "pytorch-python313-cuda12_8-sm61-avx", "--python", sys.executable,
                 "--cpuinfo", AVX512_HOST)
    (kernels,) = [line for line in lines(result) if line.split()[1:2] == ["kernels"]]
    # the PyPI wheel holds AVX2 kernels: it is no avx build, which any CPU with AVX2 shows
    if this_cpu_runs() == "DEFAULT":
        assert kernels.startswith("SKIP  kernels  torch.backends.cpu.get_cpu_capability() is DEFAULT, which avx allows; "
                                  "this CPU tops out at DEFAULT")
    else:
        assert kernels.startswith("FAIL  kernels  torch.backends.cpu.get_cpu_capability() is AVX")


@needs_torch
def test_real_torch_against_a_gpu_variant_reports_the_missing_cuda(run):
    if not torch_version().endswith("+cpu"):
        pytest.skip(f"torch {torch_version()} is not the CPU-only build this test expects")
    result = run("smoke", "--matrix", MATRIX, "pytorch-python313-cuda12_8-sm90-avx512", "--python", sys.executable,
                 "--cpuinfo", AVX512_HOST)
    assert result.exit_code == 1
    out = lines(result)
    assert ("FAIL  cuda     this torch has no CUDA (torch.version.cuda is None): a CPU-only build; "
            "pytorch-python313-cuda12_8-sm90-avx512 is built with CUDA 12.8") in out
    assert "FAIL  arch     sm_90 (sm90) is not in torch.cuda.get_arch_list(): empty, no CUDA kernels at all" in out
    assert "PASS  compute  64x64 matmul on cpu gives the exact product" in out
    assert "SKIP  gpu      this torch has no CUDA: nothing can run on a GPU" in out


def matrix_for_this_python(tmp_path: Path, version: str, kind: str, axes: str) -> str:
    """A matrix of PyTorch `version` with one section, `kind` with `axes`, for the Python the
    tests run in; returns its variants' names up to the Python."""
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    (tmp_path / "matrix.yaml").write_text(textwrap.dedent(f"""\
        pytorch: {{version: "{version}"}}
        nixpkgs: {{rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}}
        knowledge:
          python:
            "{python}": {{}}
    """) + f'{kind}: {{python: ["{python}"], {axes}}}\n')
    return f"pytorch-python{python.replace('.', '')}"


def own_version_matrix(tmp_path: Path) -> str:
    """A matrix whose CPU variant is the installed torch, which must be a CPU-only build."""
    if not torch_version().endswith("+cpu"):
        pytest.skip(f"torch {torch_version()} is not the CPU-only build this test expects")
    return matrix_for_this_python(tmp_path, torch_version().split("+")[0], "cpu", "isa: [avx2]") + "-cpu-avx2"


def checks_of(result) -> list[list[str]]:
    return [line.split()[:2] for line in lines(result)[1:-1] if not line.startswith("NOTE")]


@needs_torch
def test_real_torch_passes_a_matrix_of_its_own_version_with_the_dispatch_held_at_avx2(run, tmp_path, monkeypatch):
    # the wheel holds AVX-512 kernels; held at AVX2, no CPU can show them, and smoke says so
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "avx2")
    name = own_version_matrix(tmp_path)
    result = run("smoke", "--root", tmp_path, name, "--python", sys.executable, "--cpuinfo", AVX512_HOST)
    assert result.exit_code == 0, result.stdout
    assert checks_of(result) == [
        ["PASS", "torch"], ["PASS", "python"], ["PASS", "version"], ["PASS", "cuda"], ["PASS", "cpu"],
        ["SKIP", "kernels"], ["PASS", "compute"]]
    assert lines(result)[-1] == "gen-matrix: 6 of 7 checks passed, 1 could not be told here (SKIP)"


@needs_torch
def test_real_torch_with_the_default_dispatch_is_judged_by_what_this_cpu_runs(run, tmp_path, monkeypatch):
    monkeypatch.delenv("ATEN_CPU_CAPABILITY", raising=False)
    name = own_version_matrix(tmp_path)
    result = run("smoke", "--root", tmp_path, name, "--python", sys.executable, "--cpuinfo", AVX512_HOST)
    (kernels,) = [line for line in lines(result) if line.split()[1:2] == ["kernels"]]
    if this_cpu_runs() == "AVX512":  # the wheel's AVX-512 kernels show: no avx2 build
        assert result.exit_code == 1, result.stdout
        assert kernels == ("FAIL  kernels  torch.backends.cpu.get_cpu_capability() is AVX512; a build for avx2 may "
                           "only report DEFAULT or AVX2: this torch holds kernels beyond avx2, which crash a CPU "
                           "without them")
    else:  # this CPU cannot show them
        assert result.exit_code == 0, result.stdout
        assert kernels.startswith("SKIP  kernels  ") and "run smoke on a CPU with AVX512" in kernels


@needs_torch
@needs_qemu
@needs_sh
def test_on_a_cpu_without_avx512_the_kernels_check_says_it_cannot_tell(run, tmp_path, monkeypatch):
    # the wheel's AVX-512 kernels cannot show on a Haswell: neither PASS nor FAIL, exit 0
    monkeypatch.delenv("ATEN_CPU_CAPABILITY", raising=False)
    haswell = script(tmp_path / "haswell-python", f"""\
        #!/bin/sh
        exec {QEMU} -cpu Haswell {sys.executable} "$@"
    """)
    name = own_version_matrix(tmp_path)
    result = run("smoke", "--root", tmp_path, name, "--python", haswell,
                 "--cpuinfo", HOSTS / "ryzen5950x-rtx3090" / "cpuinfo")
    assert result.exit_code == 0, result.stdout
    assert ("SKIP  kernels  torch.backends.cpu.get_cpu_capability() is AVX2, which avx2 allows; this CPU tops out "
            "at AVX2, so kernels beyond avx2 cannot show here: run smoke on a CPU with AVX512") in lines(result)
    assert not any(line.startswith("NOTE") for line in lines(result))  # the captured CPU and this one agree
    assert lines(result)[-1] == "gen-matrix: 6 of 7 checks passed, 1 could not be told here (SKIP)"


def crashing_torch(tmp_path: Path, version: str = "2.8.0", cuda: str = "12.8") -> Path:
    """An interpreter whose torch dies of SIGILL on import, as a build for AVX-512 does on a
    CPU without it; its version.py says what the build is."""
    package = tmp_path / "site" / "torch"
    package.mkdir(parents=True)
    (package / "version.py").write_text(f"from typing import Optional\n__version__ = '{version}'\n"
                                        f"cuda: Optional[str] = '{cuda}'\n")
    (package / "__init__.py").write_text("import os, signal\nos.kill(os.getpid(), signal.SIGILL)\n")
    base = Path(sys.base_prefix) / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    return script(tmp_path / "python", f"""\
        #!/bin/sh
        PYTHONPATH={tmp_path / "site"} exec {base} -S "$@"
    """)


def gpu_matrix(tmp_path: Path) -> str:
    return matrix_for_this_python(tmp_path, "2.8.0", "gpu", 'cuda: ["12.8"], sm: [sm90], isa: [avx512]') \
        + "-cuda12_8-sm90-avx512"


@needs_sh
def test_a_builder_without_the_isa_checks_the_build_from_its_files(run, tmp_path):
    name = gpu_matrix(tmp_path)
    avx2_only = HOSTS / "ryzen5950x-rtx3090" / "cpuinfo"
    result = run("smoke", "--root", tmp_path, name, "--python", crashing_torch(tmp_path), "--cpuinfo", avx2_only,
                 "--builder")
    assert result.exit_code == 0, result.stdout
    assert [line.split()[:2] for line in lines(result)[1:-1]] == [
        ["SKIP", "torch"], ["PASS", "python"], ["PASS", "version"], ["PASS", "cuda"], ["SKIP", "arch"],
        ["SKIP", "kernels"], ["SKIP", "compute"], ["SKIP", "gpu"], ["SKIP", "code"]]
    assert ("the interpreter was killed by SIGILL (an instruction this CPU does not have)" in lines(result)[1]
            and "lacks avx512f avx512dq avx512vl avx512bw" in lines(result)[1])
    assert "PASS  version  torch/version.py says 2.8.0; the variant is PyTorch 2.8.0" in lines(result)


@needs_sh
def test_a_builder_without_the_isa_still_fails_a_wrong_build(run, tmp_path):
    name = gpu_matrix(tmp_path)
    avx2_only = HOSTS / "ryzen5950x-rtx3090" / "cpuinfo"
    result = run("smoke", "--root", tmp_path, name, "--python", crashing_torch(tmp_path, "2.7.1", "12.6"),
                 "--cpuinfo", avx2_only, "--builder")
    assert result.exit_code == 1
    assert "FAIL  version  torch/version.py says 2.7.1; the variant is PyTorch 2.8.0" in lines(result)
    assert "FAIL  cuda     torch/version.py says CUDA 12.6; the variant is CUDA 12.8" in lines(result)


@needs_sh
def test_a_crash_is_a_failure_where_the_cpu_has_the_isa_or_off_a_builder(run, tmp_path):
    name = gpu_matrix(tmp_path)
    python = crashing_torch(tmp_path)
    for extra in (["--cpuinfo", AVX512_HOST, "--builder"], ["--cpuinfo", HOSTS / "ryzen5950x-rtx3090" / "cpuinfo"]):
        result = run("smoke", "--root", tmp_path, name, "--python", python, *extra)
        assert result.exit_code == 1, result.stdout
        assert lines(result)[1] == ("FAIL  torch  the interpreter was killed by SIGILL (an instruction this CPU "
                                    "does not have)")


def test_the_workflow_calls_smoke_with_options_it_has():
    # the workflow harness stands in for smoke; this holds the real command to the same call
    from generator.cli import main
    workflow = (REPO / ".github" / "workflows" / "flox-variants-build.yml").read_text()
    (call,) = {line.strip() for line in workflow.splitlines() if "gen-matrix smoke" in line}  # one per build job
    known = {option for param in main.commands["smoke"].params for option in param.opts}
    assert {"--builder", "--python", "--result"} <= set(re.findall(r"--[a-z-]+", call)) <= known


# ---- what comes from outside: the probe's output and the build's files ------------------

CPU_FACTS = {"python": "3.13.1", "torch": "2.8.0", "torch_file": "/x/torch/__init__.py", "machine": "x86_64",
             "cuda": None, "cpu_capability": "AVX2", "cpu_ceiling": "AVX2",
             "compute": {"cpu": {"device": "cpu", "ok": True, "size": 64, "wrong": 0}}}


def printing_file(tmp_path: Path, output: Path) -> Path:
    """An interpreter that prints the file `output`, whatever it is asked to run."""
    return script(tmp_path / "python", f"""\
        #!/bin/sh
        cat '{output}'
    """)


def printing(tmp_path: Path, facts: dict) -> Path:
    """An interpreter that prints `facts` as the probe's report, whatever it is asked to run."""
    (tmp_path / "facts.json").write_text(json.dumps(facts))
    return printing_file(tmp_path, tmp_path / "facts.json")


def smoke_with_result(run, tmp_path: Path, facts: dict, result: Path):
    """smoke of the shipped matrix's avx2 CPU variant, on a captured AVX2 CPU, in a thread: a
    read that waits for ever fails the test instead of hanging it."""
    outcome = {}
    worker = threading.Thread(target=lambda: outcome.update(result=run(
        "smoke", "--matrix", MATRIX, "pytorch-python313-cpu-avx2", "--python", printing(tmp_path, facts),
        "--cpuinfo", HOSTS / "ryzen5950x-rtx3090" / "cpuinfo", "--result", result)), daemon=True)
    worker.start()
    worker.join(60)
    assert not worker.is_alive(), "smoke hangs reading --result"
    return outcome["result"]


@needs_sh
@pytest.mark.parametrize("make, message", [
    pytest.param(lambda path: os.mkfifo(path), "not a regular file (a folder, a FIFO or a device)",
                 id="fifo"),
    pytest.param(lambda path: path.symlink_to("/dev/zero"), "not a regular file (a folder, a FIFO or a device)",
                 id="dev-zero"),
    pytest.param(lambda path: path.write_bytes(b"7" * (smoke.METADATA_BYTES + 1)),
                 f"the file is larger than {smoke.METADATA_BYTES} bytes", id="huge"),
    pytest.param(lambda path: path.write_bytes(b"\xff\xfe3\n"), "the byte 0xff is not UTF-8 text", id="binary"),
])
def test_the_builds_metadata_revision_is_read_as_any_input_is(run, tmp_path, make, message):
    build = tmp_path / "result"
    build.mkdir()
    make(build / ".metadata-rev")
    result = smoke_with_result(run, tmp_path, CPU_FACTS, build)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"error: {build / '.metadata-rev'}" in result.stderr and message in result.stderr
    assert ("hint: give --result the build of a gen-matrix recipe: the result-NAME link `flox build NAME` leaves"
            in result.stderr)


@needs_sh
def test_escape_sequences_from_the_interpreter_and_the_build_are_shown_not_obeyed(run, tmp_path):
    build = tmp_path / "result"
    build.mkdir()
    (build / ".metadata-rev").write_text("\x1b[2J3\n")  # clears the screen
    facts = dict(CPU_FACTS, torch_file="/x/\x1b]0;owned\x07torch/__init__.py")  # sets the window's title
    result = smoke_with_result(run, tmp_path, facts, build)
    assert result.exit_code == 1
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "PASS  torch     torch 2.8.0 from /x/\\x1b]0;owned\\x07torch/__init__.py" in lines(result)
    assert f"FAIL  metadata  {build / '.metadata-rev'} is \\x1b[2J3; the recipe's revision is 0" in lines(result)


def test_a_line_break_from_the_interpreter_cannot_forge_a_line_of_the_log(run, tmp_path):
    build = tmp_path / "result"
    build.mkdir()
    (build / ".metadata-rev").write_text("0\n::error::forged by the build\n")
    facts = dict(CPU_FACTS, torch_file="/x/\n::error::forged by torch\ntorch/__init__.py")
    result = smoke_with_result(run, tmp_path, facts, build)
    assert not [line for line in result.output.splitlines() if line.startswith("::")], result.output
    assert "PASS  torch     torch 2.8.0 from /x/\\n::error::forged by torch\\ntorch/__init__.py" in lines(result)


@needs_sh
@pytest.mark.parametrize("changes, why", [
    ({"compute": "fast"}, "'compute' is str"),
    ({"compute": {"cpu": {"device": "cpu", "ok": False}}}, "'compute' of cpu is not a computation's result"),
    ({"arch_list": 90}, "'arch_list' is int"),
    ({"arch_list": [90]}, "'arch_list' holds more than names"),
    ({"devices": [{"name": "H100"}]}, "'devices' holds more than GPUs with a name and a capability"),
    ({"import_error": 5}, "'import_error' is int"),
    ({"files": {"torch": "there"}}, "'files' holds more than packages"),
    ({"companions": {"torchvision": []}}, "'companions' holds more than modules"),
])
def test_facts_not_of_the_probes_shape_fail_the_torch_check(run, tmp_path, changes, why):
    result = run("smoke", "--matrix", MATRIX, "pytorch-python313-cuda12_8-sm90-avx512", "--python",
                 printing(tmp_path, dict(CPU_FACTS, cuda="12.8", **changes)))
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert lines(result)[1] == f"FAIL  torch  the interpreter printed facts that are not smoke_probe.py's: {why}"


def test_an_interpreter_path_longer_than_the_system_takes_is_invalid_input(run, tmp_path):
    result = run("smoke", "--matrix", MATRIX, "pytorch-python313-cpu-avx2", "--python", tmp_path / ("p" * 5000))
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "cannot look for the interpreter" in result.stderr and "hint: give --python the path" in result.stderr
    assert f"error: {tmp_path / ('p' * 5000)}: cannot look" in result.stderr


def test_every_check_of_a_cpu_build_and_a_missing_companion_whole():
    matrix, avx2 = variant("pytorch-python313-cpu-avx2")
    facts = gpu_facts(cuda=None, cpu_ceiling="AVX2", cpu_capability="AVX2")
    C = smoke.Check
    assert smoke.checks(promise.promise_of(matrix, avx2), facts, host_of("ryzen5950x-rtx3090"), ("torchvision",)) == (
        C("torch", "PASS", "torch 2.8.0 from /nix/store/x-torch/torch/__init__.py"),
        C("python", "PASS", "Python 3.13.5; the variant is for Python 3.13"),
        C("version", "PASS", "torch 2.8.0; the variant is PyTorch 2.8.0"),
        C("cuda", "PASS", "no CUDA, as for a variant without CUDA"),
        C("cpu", "PASS", "the host CPU shows avx2 fma f16c (avx2)"),
        C("kernels", "SKIP", "torch.backends.cpu.get_cpu_capability() is AVX2, which avx2 allows; this CPU tops out at "
                             "AVX2, so kernels beyond avx2 cannot show here: run smoke on a CPU with AVX512"),
        C("compute", "PASS", "64x64 matmul on cpu gives the exact product"),
        C("torchvision", "FAIL", "import torchvision with this torch failed: not imported"))


def test_a_cuda_patch_release_is_its_release_and_nothing_computed_is_a_failure_of_each_device():
    matrix, sm90 = variant("pytorch-python313-cuda12_8-sm90-avx512")
    checks = {c.name: c for c in smoke.checks(promise.promise_of(matrix, sm90), gpu_facts(cuda="12.8.1", compute={}),
                                              host_of("xeon8480-h100"))}
    assert checks["cuda"] == smoke.Check("cuda", "PASS", "torch.version.cuda is 12.8.1; the variant is CUDA 12.8")
    assert checks["compute"] == smoke.Check("compute", "FAIL", "no CPU: nothing computed")
    assert checks["gpu"] == smoke.Check("gpu", "FAIL", "no CUDA device: nothing computed")
    unchecked = dataclasses.replace(promise.promise_of(matrix, sm90), cuda=None)
    (cuda,) = [c for c in smoke.checks(unchecked, gpu_facts(cuda="12.8.1"), host_of("xeon8480-h100")) if c.name == "cuda"]
    assert cuda == smoke.Check("cuda", "PASS", "torch.version.cuda is 12.8.1; no CUDA release was given to check it "
                                               "against")


# ---- what the probe printed on a real GPU machine ---------------------------------------

PROBED = Path(__file__).parent / "fixtures" / "probe"


@needs_sh
def test_what_a_real_cuda_torch_printed_on_an_h200_is_read_and_judged_as_it_was_there(tmp_path):
    # fixtures/probe/README.md: the probe's output and the host, both captured on the machine,
    # and the lines smoke printed there for this hand build
    python = printing_file(tmp_path, PROBED / "torch-2.11.0-cu130-h200.txt")
    facts = smoke.probe(python, "no hint needed", ("torchvision", "torchaudio"))
    knowledge = expansion_of(REPO).matrix.knowledge
    build = promise.hand_build(knowledge, None, "NVIDIA H200", "13.0", "avx512bf16", "2.11", "matrix.yaml", None)
    C = smoke.Check
    lib = "/opt/torch/.venv/lib/python3.12/site-packages"
    assert smoke.checks(build, facts, host_of("xeon-vm-h200"), ("torchvision", "torchaudio")) == (
        C("torch", "PASS", f"torch 2.11.0+cu130 from {lib}/torch/__init__.py"),
        C("version", "PASS", "torch 2.11.0+cu130; the build is PyTorch 2.11"),
        C("cuda", "PASS", "torch.version.cuda is 13.0; the build is CUDA 13.0"),
        C("arch", "FAIL", "torch.cuda.get_arch_list() is sm_75 sm_80 sm_86 sm_90 sm_100 sm_120: beyond sm_90 (sm90) "
                          "this torch holds sm_100 sm_120 sm_75 sm_80 sm_86, which the build does not promise"),
        C("cpu", "PASS", "the host CPU shows avx512f avx512dq avx512vl avx512bw avx512_bf16 (avx512bf16)"),
        C("kernels", "PASS", "torch.backends.cpu.get_cpu_capability() is AVX512, which avx512bf16 allows; avx512bf16 "
                             "allows every CPU kernel torch has for x86_64 (DEFAULT, AVX2, AVX512)"),
        C("compute", "PASS", "64x64 matmul on cpu gives the exact product"),
        C("gpu", "PASS", "64x64 matmul on cuda:0 (NVIDIA H200, compute capability 9.0) gives the exact product"),
        C("torchvision", "PASS", "torchvision 0.26.0+cu130 imports with this torch and runs torchvision.ops.nms"),
        C("torchaudio", "PASS", "torchaudio 2.11.0+cu130 imports with this torch"))
    # the same torch promised for avx2 only: its AVX-512 kernels are beyond what it may hold
    avx2 = promise.hand_build(knowledge, None, "NVIDIA H200", "13.0", "avx2", "2.11", "matrix.yaml", None)
    (kernels,) = [c for c in smoke.checks(avx2, facts, host_of("xeon-vm-h200")) if c.name == "kernels"]
    assert kernels == C("kernels", "FAIL", "torch.backends.cpu.get_cpu_capability() is AVX512; a build for avx2 may "
                                           "only report DEFAULT or AVX2: this torch holds kernels beyond avx2, which "
                                           "crash a CPU without them")


def test_a_builder_checks_a_companion_by_its_files_and_fails_one_that_is_not_there():
    matrix, sm90 = variant("pytorch-python313-cuda12_8-sm90-avx512")
    facts = {"failed": "the interpreter was killed by SIGILL", "python": "3.13.5",
             "files": {"torch": {"file": "/x/torch/__init__.py", "__version__": "2.8.0", "cuda": "12.8"},
                       "torchvision": {"file": "/x/torchvision/__init__.py", "__version__": "0.23.0"}}}
    checks = smoke.checks(promise.promise_of(matrix, sm90), facts, host_of("ryzen5950x-rtx3090"),
                          ("torchvision", "torchaudio"), builder=True)
    lacks = "cannot run on this CPU, which lacks avx512f avx512dq avx512vl avx512bw"
    assert checks[-2:] == (smoke.Check("torchvision", "SKIP", f"torchvision 0.23.0 is there; its import {lacks}"),
                           smoke.Check("torchaudio", "FAIL", "no torchaudio in this Python"))


@needs_sh
def test_a_probe_that_runs_past_its_time_fails_saying_so(tmp_path, monkeypatch):
    monkeypatch.setattr(smoke, "PROBE_TIMEOUT_S", 1)
    python = script(tmp_path / "python", """\
        #!/bin/sh
        exec sleep 30
    """)
    assert smoke.probe(python, "no hint needed") == {"failed": "the probe ran past 1 s"}


def test_a_captured_cpu_of_another_architecture_is_said_even_where_the_kernel_levels_are_named_alike():
    matrix, _ = variant("pytorch-python313-cpu-avx2")
    graviton = host_of("graviton2-nogpu")
    described = smoke.host_ceiling(matrix.knowledge, graviton)
    facts = gpu_facts(cuda=None, machine="x86_64", cpu_capability=described, cpu_ceiling=described)
    assert smoke.notes(matrix.knowledge, facts, graviton, "--cpuinfo x") == (
        f"the cpu check is about the CPU --cpuinfo x describes (aarch64, up to {described} kernels); torch "
        f"dispatches on this machine's (x86_64, up to {described} kernels), which the kernels check is about",)


def test_the_kernel_levels_are_those_of_the_machine_torch_runs_on():
    # an x86 build's promise, checked by a torch that reports an aarch64 machine: the levels it
    # may dispatch to are aarch64's (SVE256 is one), not x86's
    matrix, avx2 = variant("pytorch-python313-cpu-avx2")
    facts = gpu_facts(cuda=None, machine="aarch64", cpu_capability="DEFAULT", cpu_ceiling="SVE256")
    (kernels,) = [c for c in smoke.checks(promise.promise_of(matrix, avx2), facts, host_of("ryzen5950x-rtx3090"))
                  if c.name == "kernels"]
    assert kernels == smoke.Check("kernels", "PASS", "torch.backends.cpu.get_cpu_capability() is DEFAULT on a CPU "
                                                     "that runs SVE256 kernels: this torch holds none beyond avx2 "
                                                     "(DEFAULT, AVX2)")
    untold = gpu_facts(cuda=None, cpu_capability="AVX2", cpu_ceiling=None,
                       cpu_ceiling_source="torch.cpu has no capability ceiling")
    (kernels,) = [c for c in smoke.checks(promise.promise_of(matrix, avx2), untold, host_of("ryzen5950x-rtx3090"))
                  if c.name == "kernels"]
    assert kernels == smoke.Check("kernels", "SKIP", "torch.backends.cpu.get_cpu_capability() is AVX2, which avx2 "
                                                     "allows; which kernels this CPU runs cannot be told (torch.cpu "
                                                     "has no capability ceiling), so kernels beyond avx2 may be there "
                                                     "unseen")


def test_a_gpu_hand_build_without_a_cuda_release_fails_a_cpu_only_torch():
    knowledge = expansion_of(REPO).matrix.knowledge
    build = promise.hand_build(knowledge, None, "sm_90", None, None, None, "matrix.yaml", None)
    (cuda,) = [c for c in smoke.checks(build, gpu_facts(cuda=None), host_of("xeon8480-h100")) if c.name == "cuda"]
    assert cuda == smoke.Check("cuda", "FAIL", "this torch has no CUDA (torch.version.cuda is None): a CPU-only build; "
                                               "the hand build for sm90 is built with CUDA")


def test_the_cpu_check_where_its_flags_are_unknown_and_on_a_builder_that_lacks_them():
    matrix, avx512 = variant("pytorch-python313-cuda12_8-sm90-avx512")
    windows = host.gather(uname="Windows AMD64", gpus=(), gpu_source="")
    (cpu,) = [c for c in smoke.checks(promise.promise_of(matrix, avx512), gpu_facts(), windows) if c.name == "cpu"]
    assert cpu == smoke.Check("cpu", "FAIL", "the CPU's flags are unknown on Windows; avx512 needs avx512f avx512dq "
                                             "avx512vl avx512bw")
    (cpu,) = [c for c in smoke.checks(promise.promise_of(matrix, avx512), gpu_facts(), host_of("ryzen5950x-rtx3090"),
                                      builder=True) if c.name == "cpu"]
    assert cpu == smoke.Check("cpu", "SKIP", "avx512 needs avx512f avx512dq avx512vl avx512bw; this builder's CPU "
                                             "lacks avx512f avx512dq avx512vl avx512bw, and need not run what it builds")


def test_an_apple_silicon_host_passes_the_host_check_by_name():
    matrix, mps = variant("pytorch-python313-darwin-mps")
    facts = gpu_facts(cuda=None, cuda_available=False, compute={"mps": {"device": "mps", "ok": True, "size": 64, "wrong": 0}})
    mac = host.gather(uname="Darwin arm64", gpus=(), proc_cpuinfo=Path("/nonexistent"))
    (check,) = [c for c in smoke.checks(promise.promise_of(matrix, mps), facts, mac) if c.name == "host"]
    assert check == smoke.Check("host", "PASS", "Darwin aarch64")
