"""smoke: the torch in an interpreter, checked against a variant and the host."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import sys
import textwrap
from pathlib import Path

import pytest

from generator.commands import host, listing, smoke

from conftest import REPO, expansion_of

HOSTS = Path(__file__).parent / "fixtures" / "hosts"
MATRIX = REPO / "matrix.yaml"
AVX512_HOST = HOSTS / "xeon8480-h100" / "cpuinfo"

needs_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None,
    reason="torch is not installed in the test interpreter: `pip install torch==2.13.0` (the CPU build) "
           "to smoke-test a real torch",
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
        "cuda": "12.8", "cuda_available": True, "arch_list": ["sm_90"], "cpu_capability": "AVX512",
        "devices": [{"name": "NVIDIA H100 80GB HBM3", "capability": "9.0"}],
        "compute": {"cpu": {"device": "cpu", "ok": True, "size": 64, "wrong": 0},
                    "cuda": {"device": "cuda:0", "ok": True, "size": 64, "wrong": 0}},
    }
    facts.update(changes)
    return facts


def verdict(checks) -> dict[str, bool]:
    return {check.name: check.ok for check in checks}


def test_a_matching_gpu_build_passes_every_check():
    matrix, sm90 = variant("pytorch-python313-cuda12_8-sm90-avx512")
    checks = smoke.checks(matrix, sm90, gpu_facts(), host_of("xeon8480-h100"))
    assert verdict(checks) == {"torch": True, "python": True, "version": True, "cuda": True, "arch": True,
                               "cpu": True, "kernels": True, "compute": True}
    assert checks[-1].detail == ("64x64 matmul on cuda:0 (NVIDIA H100 80GB HBM3, compute capability 9.0) "
                                 "gives the exact product")


@pytest.mark.parametrize("changes, failing, detail", [
    ({"torch": "2.7.1"}, "version", "torch 2.7.1; the variant is PyTorch 2.8.0"),
    ({"python": "3.12.9"}, "python", "Python 3.12.9; the variant is for Python 3.13"),
    ({"cuda": "12.6"}, "cuda", "torch.version.cuda is 12.6; the variant is CUDA 12.8"),
    ({"arch_list": ["sm_80", "sm_86"]}, "arch", "sm_90 (sm90) is not in torch.cuda.get_arch_list(): sm_80 sm_86"),
    ({"compute": {"cuda": {"device": "cuda:0", "ok": False, "size": 64, "wrong": 7}}}, "compute",
     "64x64 matmul on cuda:0: 7 wrong values"),
    ({"compute": {"cuda": {"device": "cuda:0", "ok": False, "error": "RuntimeError: no kernel image"}}}, "compute",
     "matmul on cuda:0 failed: RuntimeError: no kernel image"),
])
def test_each_mismatch_fails_its_own_check(changes, failing, detail):
    matrix, sm90 = variant("pytorch-python313-cuda12_8-sm90-avx512")
    checks = smoke.checks(matrix, sm90, gpu_facts(**changes), host_of("xeon8480-h100"))
    failed = [check for check in checks if not check.ok]
    assert [(c.name, c.detail) for c in failed] == [(failing, detail)]


def test_a_cpu_only_torch_for_a_gpu_variant_reports_the_missing_cuda():
    matrix, sm90 = variant("pytorch-python313-cuda12_8-sm90-avx512")
    facts = gpu_facts(cuda=None, cuda_available=False, arch_list=[], devices=[],
                      compute={"cpu": {"device": "cpu", "ok": True, "size": 64, "wrong": 0}})
    failed = {c.name: c.detail for c in smoke.checks(matrix, sm90, facts, host_of("xeon8480-h100")) if not c.ok}
    assert failed == {
        "cuda": "this torch has no CUDA (torch.version.cuda is None): a CPU-only build; "
                "pytorch-python313-cuda12_8-sm90-avx512 is built with CUDA 12.8",
        "arch": "sm_90 (sm90) is not in torch.cuda.get_arch_list(): empty, no CUDA kernels at all",
        "compute": "no CUDA device: torch.cuda.is_available() is False (this torch has no CUDA)",
    }


@pytest.mark.parametrize("name, capability, ok", [
    ("pytorch-python313-cuda12_8-sm61-avx", "DEFAULT", True),
    ("pytorch-python313-cuda12_8-sm61-avx", "AVX2", False),  # the AVX2 kernels were not compiled out
    ("pytorch-python313-cpu-avx2", "AVX2", True),
    ("pytorch-python313-cpu-avx2", "DEFAULT", True),  # a CPU may offer less; never more than the build
    ("pytorch-python313-cpu-avx2", "AVX512", False),
    ("pytorch-python313-cpu-avx512", "AVX512", True),
])
def test_the_cpu_kernels_torch_dispatches_to_must_fit_the_isa(name, capability, ok):
    matrix, chosen = variant(name)
    facts = gpu_facts(cpu_capability=capability, cuda=None if chosen.cuda is None else "12.8")
    (kernels,) = [c for c in smoke.checks(matrix, chosen, facts, host_of("xeon8480-h100")) if c.name == "kernels"]
    assert kernels.ok is ok, kernels.detail
    if not ok:
        assert f"a {chosen.isa.name} build may only report" in kernels.detail


def test_host_cpu_without_the_variants_isa_fails():
    matrix, avx512 = variant("pytorch-python313-cuda12_8-sm90-avx512")
    checks = smoke.checks(matrix, avx512, gpu_facts(), host_of("ryzen5950x-rtx3090"))
    (cpu,) = [c for c in checks if c.name == "cpu"]
    assert not cpu.ok
    assert cpu.detail == "avx512 needs avx512f avx512dq avx512vl avx512bw; the host CPU lacks avx512f avx512dq avx512vl avx512bw"
    matrix, armv9 = variant("pytorch-python313-cpu-armv9")
    (cpu,) = [c for c in smoke.checks(matrix, armv9, gpu_facts(cuda=None), host_of("epyc9654-nogpu")) if c.name == "cpu"]
    assert not cpu.ok and cpu.detail == "armv9 needs an aarch64 CPU; this one is x86_64"


def test_darwin_variant_needs_apple_silicon_and_computes_on_mps():
    matrix, mps = variant("pytorch-python313-darwin-mps")
    facts = gpu_facts(cuda=None, cuda_available=False, compute={"mps": {"device": "mps", "ok": True, "size": 64, "wrong": 0}})
    mac = host.gather(uname="Darwin arm64", gpus=(), proc_cpuinfo=Path("/nonexistent"))
    assert all(c.ok for c in smoke.checks(matrix, mps, facts, mac))
    on_linux = {c.name: c.ok for c in smoke.checks(matrix, mps, facts, host_of("epyc9654-nogpu"))}
    assert on_linux["host"] is False


def test_an_interpreter_without_torch_fails_at_the_import():
    matrix, cpu = variant("pytorch-python313-cpu-avx2")
    checks = smoke.checks(matrix, cpu, {"python": "3.13.1", "import_error": "ModuleNotFoundError: No module named 'torch'"},
                          host_of("ryzen5950x-rtx3090"))
    assert [(c.name, c.ok, c.detail) for c in checks] == [
        ("torch", False, "import torch failed: ModuleNotFoundError: No module named 'torch'")]


# ---- the command, with real interpreters -----------------------------------------------

def test_missing_interpreter_is_invalid_input_saying_how_to_get_one(run, tmp_path):
    (tmp_path / "matrix.yaml").write_text(MATRIX.read_text())
    result = run("smoke", "--root", tmp_path, "pytorch-python313-cpu-avx2")
    assert result.exit_code == 2
    assert "python-pytorch-python313-cpu-avx2/bin/python: no such interpreter" in result.stderr
    assert "flox build pytorch-python313-cpu-avx2" in result.stderr


def script(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text))
    path.chmod(0o755)
    return path


def test_an_interpreter_that_dies_fails_clearly(run, tmp_path):
    python = script(tmp_path / "python", """\
        #!/bin/sh
        echo "Segmentation fault (core dumped)" >&2
        exit 139
    """)
    result = run("smoke", "--matrix", MATRIX, "pytorch-python313-cpu-avx2", "--python", python)
    assert result.exit_code == 1
    assert "FAIL  torch  the interpreter exited with status 139: Segmentation fault (core dumped)" in result.stdout


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
    result = run("smoke", "--matrix", MATRIX, "pytorch-python313-cpu-avx2", "--python", sys.executable,
                 "--cpuinfo", AVX512_HOST)
    assert result.exit_code == 1
    out = lines(result)
    assert out[0] == f"smoke test of pytorch-python313-cpu-avx2 with {sys.executable} (Python {sys.version.split()[0]})"
    assert f"FAIL  version  torch {torch_version()}; the variant is PyTorch 2.8.0" in out
    assert "PASS  cuda     no CUDA, as for a variant without CUDA" in out
    assert "PASS  compute  64x64 matmul on cpu gives the exact product" in out
    assert any(line.startswith("PASS  cpu      the host CPU shows avx2 fma f16c (avx2); torch uses its ") for line in out)
    assert out[-1].startswith("gen-matrix: ") and out[-1].endswith(" failed")


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


@needs_torch
def test_real_torch_of_an_avx_variant_is_checked_for_its_kernels(run):
    result = run("smoke", "--matrix", MATRIX, "pytorch-python313-cuda12_8-sm61-avx", "--python", sys.executable,
                 "--cpuinfo", AVX512_HOST)
    (kernels,) = [line for line in lines(result) if line.split()[1:2] == ["kernels"]]
    # the PyPI wheel holds AVX2 kernels: it is no avx build
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
    assert ("FAIL  compute  no CUDA device: torch.cuda.is_available() is False (this torch has no CUDA)") in out


@needs_torch
def test_real_torch_passes_a_matrix_of_its_own_version(run, tmp_path):
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    (tmp_path / "matrix.yaml").write_text(textwrap.dedent(f"""\
        pytorch: {{version: "{torch_version().split('+')[0]}"}}
        nixpkgs: {{rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}}
        knowledge:
          python:
            "{python}": {{}}
        cpu: {{python: ["{python}"], isa: [avx2]}}
    """))
    name = f"pytorch-python{python.replace('.', '')}-cpu-avx2"
    result = run("smoke", "--root", tmp_path, name, "--python", sys.executable, "--cpuinfo", AVX512_HOST)
    assert result.exit_code == 0, result.stdout
    assert [line.split()[:2] for line in lines(result)[1:-1]] == [
        ["PASS", "torch"], ["PASS", "python"], ["PASS", "version"], ["PASS", "cuda"], ["PASS", "cpu"],
        ["PASS", "kernels"], ["PASS", "compute"]]
    assert lines(result)[-1] == "gen-matrix: 7 of 7 checks passed"
