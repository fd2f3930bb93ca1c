"""smoke checks a hand build: one an `env` script made, named as the script names it or by its axes."""

from __future__ import annotations

import re
import sys

import pytest
from hypothesis import given, settings, strategies as st

from generator import knowledge as knowledge_
from generator.commands import handbuild, host, promise, smoke

from conftest import REPO
from test_smoke import HOSTS, gpu_facts, lines, needs_torch, torch_version

KNOWLEDGE = knowledge_.build(knowledge_.builtin())
THIS_PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"


def env_name(run, *axes: str) -> str:
    """The name the script `gen-matrix env` writes for these axes gives its build."""
    result = run("env", *axes)
    assert result.exit_code == 0, result.stderr
    (name,) = re.findall(r'^echo "building (\S+) with', result.stdout, re.M)
    return name


# ---- the name, read back ----------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(release=st.sampled_from(sorted(KNOWLEDGE.pytorch)), data=st.data())
def test_every_name_env_gives_is_read_back_as_its_axes(release, data):
    row = KNOWLEDGE.pytorch[release]
    version = data.draw(st.sampled_from([row.newest, f"{release}.0"]))
    python = data.draw(st.sampled_from(handbuild._pythons(KNOWLEDGE)))
    sm = data.draw(st.none() | st.sampled_from(list(KNOWLEDGE.sm.values())))
    cuda = data.draw(st.sampled_from(handbuild.cuda_releases(KNOWLEDGE))) if sm else None
    isa = data.draw(st.none() | st.sampled_from(list(KNOWLEDGE.isa.values())))
    name = handbuild.name_of(version, python, cuda, sm, isa)
    assert handbuild.axes_of_name(KNOWLEDGE, name) == handbuild.Named(version, python, cuda, sm, isa)


@pytest.mark.parametrize("name, axes", [
    ("pytorch-2.8.0-python311-cuda12_9-sm120", ("2.8.0", "3.11", "12.9", "sm120", None)),
    ("pytorch-2.8.0-python39-cuda12_6-sm86-avx2", ("2.8.0", "3.9", "12.6", "sm86", "avx2")),
    ("pytorch-1.12.1-python37-cpu", ("1.12.1", "3.7", None, None, None)),  # the oldest Python of the oldest release
    ("pytorch-2.13.0-python315-cpu-armv9", ("2.13.0", "3.15", None, None, "armv9")),  # the newest of the newest
])
def test_names_env_scripts_print_are_read_back(name, axes):
    named = handbuild.axes_of_name(KNOWLEDGE, name)
    assert (named.pytorch, named.python, named.cuda, named.sm and named.sm.name, named.isa and named.isa.name) == axes


@pytest.mark.parametrize("name", [
    "pytorch-python313-cuda12_8-sm90-avx512",  # a matrix variant's name has no version
    "pytorch-2.8.0-python311-cuda12_9-sm12",
    "pytorch-2.8.0-python311-cuda12_9",
    "pytorch-2.8.0-python311-sm120",
    "pytorch-9.9.0-python311-cpu",
    "pytorch-2.8.0-python311-cpu-avx1024",
    "torch-2.8.0-python311-cpu",
])
def test_a_name_env_cannot_give_is_none(name):
    assert handbuild.axes_of_name(KNOWLEDGE, name) is None


# ---- the checks ---------------------------------------------------------------------------

def promise_of_name(name: str) -> promise.Promise:
    return promise.hand_build(KNOWLEDGE, name, None, None, None, None, "matrix.yaml", None)


def states(promise: promise.Promise, **changes) -> dict[str, tuple[str, str]]:
    checks = smoke.checks(promise, gpu_facts(**changes), host.gather(cpuinfo=HOSTS / "xeon8480-h100" / "cpuinfo",
                                                                       gpus=(), gpu_source=""))
    return {check.name: (check.state, check.detail) for check in checks}


def test_a_named_hand_build_gets_the_checks_of_a_variant():
    found = states(promise_of_name("pytorch-2.8.0-python313-cuda12_8-sm90-avx512"))
    assert {name: state for name, (state, _) in found.items()} == {
        "torch": "PASS", "python": "PASS", "version": "PASS", "cuda": "PASS", "arch": "PASS", "cpu": "PASS",
        "kernels": "PASS", "compute": "PASS", "gpu": "PASS"}
    assert found["version"][1] == "torch 2.8.0; the build is PyTorch 2.8.0"
    wrong = states(promise_of_name("pytorch-2.8.0-python312-cuda12_9-sm120-avx2"))
    assert {name for name, (state, _) in wrong.items() if state == "FAIL"} == {"python", "cuda", "arch", "kernels"}
    assert wrong["cuda"][1] == "torch.version.cuda is 12.8; the build is CUDA 12.9"


def test_a_cpu_only_name_promises_no_cuda():
    found = states(promise_of_name("pytorch-2.8.0-python313-cpu"))
    assert found["cuda"] == ("FAIL", "this torch has CUDA 12.8; pytorch-2.8.0-python313-cpu is built without CUDA")
    assert "gpu" not in found and "arch" not in found and "cpu" not in found


@pytest.mark.parametrize("version, promised, state", [
    ("2.8.0a0+gitba56102", "2.8.0", "PASS"),  # what a build from a v2.8.0 checkout says it is
    ("2.8.0+cu128", "2.8.0", "PASS"),
    ("2.8.1", "2.8.0", "FAIL"),
    ("2.9.1", "2.9", "PASS"),
    ("2.10.0", "2.1", "FAIL"),
])
def test_the_version_is_the_release_a_checkout_of_it_builds(version, promised, state):
    build = promise.hand_build(KNOWLEDGE, None, None, None, None, promised, "matrix.yaml", None)
    assert states(build, torch=version)["version"][0] == state


def test_axes_left_out_are_not_checked():
    build = promise.hand_build(KNOWLEDGE, None, "H100", None, None, None, "matrix.yaml", None)
    found = states(build, cuda="13.0")
    assert set(found) == {"torch", "cuda", "arch", "compute", "gpu"}
    assert found["cuda"] == ("PASS", "torch.version.cuda is 13.0; no CUDA release was given to check it against")
    assert states(build, cuda=None)["cuda"][0] == "FAIL"
    only_isa = promise.hand_build(KNOWLEDGE, None, None, None, "avx512", None, "matrix.yaml", None)
    assert set(states(only_isa)) == {"torch", "cpu", "kernels", "compute"}


# ---- through the command line, from a folder without a matrix -------------------------------

@needs_torch
def test_the_name_an_env_script_prints_checks_a_real_torch_from_an_empty_folder(run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    name = env_name(run, "--gpu", "sm120", "--cuda", "12.9", "--pytorch", "2.8.0", "--python", THIS_PYTHON)
    result = run("smoke", name, "--python", sys.executable)
    assert result.exit_code == 1, result.stdout + result.stderr
    out = lines(result)
    assert out[0] == f"smoke test of {name} with {sys.executable} (Python {sys.version.split()[0]})"
    assert f"PASS  python   Python {sys.version.split()[0]}; the build is for Python {THIS_PYTHON}" in out
    assert f"FAIL  version  torch {torch_version()}; the build is PyTorch 2.8.0" in out
    assert "FAIL  arch     sm_120 (sm120) is not in torch.cuda.get_arch_list(): empty, no CUDA kernels at all" in out
    assert list(tmp_path.iterdir()) == []


@needs_torch
def test_axes_describing_this_torch_pass(run, tmp_path):
    import torch

    if torch.version.cuda is not None:
        pytest.skip(f"torch {torch.__version__} is a CUDA build; this test checks a CPU-only one")
    version = torch_version().split("+")[0]
    result = run("smoke", "--pytorch", version, "--python", sys.executable, "--root", tmp_path)
    assert result.exit_code == 0, result.stdout
    assert lines(result)[0].startswith(f"smoke test of the hand build for PyTorch {version} with ")
    assert f"PASS  version  torch {torch.__version__}; the build is PyTorch {version}" in lines(result)
    name = env_name(run, "--pytorch", version, "--python", THIS_PYTHON)
    assert run("smoke", name, "--python", sys.executable, "--root", tmp_path).exit_code == 0


@pytest.mark.parametrize("arguments, message", [
    (["--gpu", "GTX 9999"], "error: --gpu: unknown sm 'GTX 9999'"),
    (["--sm", "sm12"], "error: --gpu: unknown sm 'sm12'"),
    (["--gpu", "sm90", "--cuda", "12.99"], "error: --cuda: unknown CUDA release '12.99'"),
    (["--pytorch", "9.9.9"], "error: --pytorch: unknown PyTorch release '9.9.9'"),
    (["--isa", "avx1024"], "error: --isa: unknown isa 'avx1024'"),
    (["--gpu", "sm90"], "error: --python: no interpreter to test the hand build for sm90"),
    (["--gpu", "sm90", "--python", sys.executable, "--result", "result"],
     "error: --result: the hand build for sm90 is no build of a gen-matrix recipe"),
    (["pytorch-2.8.0-python311-cuda12_9-sm12"], "error: matrix.yaml: no matrix here, so no variant is called "
                                                "'pytorch-2.8.0-python311-cuda12_9-sm12'; and it is not the name of "
                                                "a build `gen-matrix env` writes a script for"),
])
def test_bad_hand_build_input_is_invalid_saying_where(run, tmp_path, monkeypatch, arguments, message):
    monkeypatch.chdir(tmp_path)
    result = run("smoke", *arguments)
    assert result.exit_code == 2
    assert result.stderr.startswith(message), result.stderr
    assert "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_name_neither_of_the_matrix_nor_of_env_says_both(run):
    result = run("smoke", "--matrix", REPO / "matrix.yaml", "pytorch-python313-cuda12_8-sm90-avx51",
                 "--python", sys.executable)
    assert result.exit_code == 2
    assert result.stderr.startswith(
        "error: matrix.yaml: no variant is called 'pytorch-python313-cuda12_8-sm90-avx51' in the matrix, and it is "
        "not the name of a build `gen-matrix env` writes a script for")
    assert "did you mean 'pytorch-python313-cuda12_8-sm90-avx512'?" in result.stderr


def test_a_name_and_axes_together_are_a_usage_error(run, tmp_path):
    result = run("smoke", "pytorch-2.8.0-python311-cpu", "--gpu", "sm90", "--root", tmp_path)
    assert result.exit_code == 2
    assert "give a NAME or the axes of a hand build (--gpu), not both" in result.stderr
