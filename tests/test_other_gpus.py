"""GPUs that are not NVIDIA's: AMD (ROCm, gfx targets), Intel (XPU) and Apple (MPS), asked
about from a folder without a matrix, read from rocminfo and sycl-ls, and explained.

The rocminfo and sycl-ls outputs under tests/fixtures/other-gpus are written from the tools'
documented formats, not captured on a machine (their README says so): these tests prove the
parsing of that format, not of every version of the tools.
"""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

from generator import knowledge as K
from generator.commands import detect, host, othergpus

from conftest import REPO

KNOWLEDGE = K.build(K.builtin())
FIXTURES = REPO / "tests" / "fixtures" / "other-gpus"
LINUX = ("--uname", "Linux x86_64", "--cpu-flags", "avx avx2 fma f16c")


@pytest.mark.parametrize("gpu, target, index", [
    ("AMD Instinct MI300X", "gfx942", "rocm7.2"),
    ("Instinct MI250", "gfx90a", "rocm7.2"),
    ("Radeon RX 7900 XTX", "gfx1100", "rocm7.2"),
    ("AMD Radeon RX 7600", "gfx1102", "rocm7.2"),
    ("Radeon RX 9070 XT", "gfx1201", "rocm7.2"),
    ("Intel Arc A770", "dg2", "xpu"),
    ("Intel(R) Arc(TM) B580 Graphics", "bmg", "xpu"),
    ("Intel Data Center GPU Max 1550", "pvc", "xpu"),
])
def test_detect_names_the_target_and_the_wheel_from_an_empty_folder(run, tmp_path, gpu, target, index):
    result = run("detect", "--root", tmp_path, "--gpu", gpu, *LINUX)
    assert result.exit_code == 0, result.output
    assert f"GPU 0: {gpu}: {target} (" in result.stdout
    assert f"--index-url https://download.pytorch.org/whl/{index}`" in result.stdout
    assert f"uv pip install torch==2.13.0 --torch-backend={index}`" in result.stdout
    assert "sm.<smXX>.gpus" not in result.output and "compute capability" not in result.output
    # the answer first: PyTorch's own wheel for the GPU, then uv's twin, not the CPU-only build
    first, second = result.stdout.splitlines()[:2]
    assert first == f"pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/{index}"
    assert second == f"uv pip install torch==2.13.0 --torch-backend={index}"
    facts = json.loads(run("detect", "--root", tmp_path, "--gpu", gpu, *LINUX, "--json").stdout)
    assert (facts["gpus"][0]["target"], facts["gpus"][0]["sm"]) == (target, None)
    assert facts["variant"].startswith("pytorch-python") and "-cpu-" in facts["variant"]
    assert facts["answer"] == [first, second]


@pytest.mark.parametrize("gpu", ["Apple M3", "Apple M1 Max"])
def test_an_apple_gpu_on_macos_gets_the_mps_variant(run, tmp_path, gpu):
    result = run("detect", "--root", tmp_path, "--gpu", gpu, "--uname", "Darwin arm64")
    assert result.exit_code == 0, result.output
    # every Apple Silicon Mac runs PyTorch's own wheel with MPS: that first, the matrix's build after
    pip, uv = result.stdout.splitlines()[:2]
    assert re.fullmatch(r"pip install torch==[0-9]+\.[0-9]+\.[0-9]+", pip) and uv == f"uv {pip}"
    name = run("detect", "--root", tmp_path, "--gpu", gpu, "--uname", "Darwin arm64", "--name")
    assert name.stdout.strip().endswith("-darwin-mps")
    assert f"GPU 0: {gpu}: mps (" in result.stdout and "macOS 14.0 or later" in result.stdout


def test_an_apple_gpu_on_linux_is_told_it_needs_macos(run, tmp_path):
    result = run("detect", "--root", tmp_path, "--gpu", "Apple M2", *LINUX)
    assert 'runs MPS under macOS only: give --uname "Darwin arm64"' in result.stderr


def test_an_nvidia_card_still_gets_its_sm(run, tmp_path):
    result = run("detect", "--root", tmp_path, "--gpu", "Tesla T4", *LINUX)
    assert "GPU 0: Tesla T4: sm75 (Turing)" in result.stdout and "gfx" not in result.stdout


def test_an_unknown_card_is_still_refused(run, tmp_path):
    result = run("detect", "--root", tmp_path, "--gpu", "Radeon HD 7970", *LINUX)
    assert result.exit_code == 2 and "not in the GPU name table" in result.stderr


@pytest.mark.parametrize("gpu, said", [
    ("AMD Instinct MI300X", "is gfx942 (AMD CDNA 3, ROCm)"),
    ("Radeon RX 7900 XTX", "is gfx1100 (AMD RDNA 3, ROCm)"),
    ("Intel Arc A770", "is dg2 (Intel Alchemist, XPU)"),
    ("Apple M3", "is mps (Apple M series, MPS (Metal))"),
])
def test_explain_answers_for_them(run, tmp_path, gpu, said):
    result = run("explain", "--root", tmp_path, "--gpu", gpu)
    assert result.exit_code == 0, result.output
    assert f"gpu: {gpu} {said}" in result.stdout
    assert json.loads(run("explain", "--root", tmp_path, "--gpu", gpu, "--json").stdout)["target"] == said.split()[1]
    # a kind the matrix cannot build says why, where it is nixpkgs' torch that lacks it
    built = next(line for line in result.stdout.splitlines() if line.startswith("build: "))
    assert ("nixpkgs' torch has no XPU switch" in built) == (gpu == "Intel Arc A770"), built


@pytest.mark.parametrize("name, target", [
    ("Radeon RX 7900", "gfx1100"),  # the XT and the XTX: two cards, one target
    ("MI300", None),  # no card is named so
    ("Intel Arc", None),  # the A770 (dg2) and the B580 (bmg): two targets, no answer
    ("Radeon RX", None),
    ("gfx90a", "gfx90a"),
    ("Radeon RX 7900 XT", "gfx1100"),
    ("Tesla T4", None),
])
def test_names_match_whole_words_and_one_target(name, target):
    found = othergpus.match(KNOWLEDGE, name)
    assert (found.name if found else None) == target


def test_a_wheel_list_without_the_target_is_passed_over():
    # a gfx the newest list lacks falls back to a release whose list was not read, and says so
    rdna1 = K.OtherGpu("gfx1010", "rocm", "RDNA", ("Radeon RX 5700 XT",), "test")
    line = othergpus.wheel_line(KNOWLEDGE, rdna1)
    assert "PyTorch 2.12" in line and "was not read" in line and "rocm7.2" in line
    # with no list read anywhere but the newest, and the newest lacking it, nothing is offered
    only = {"2.13": KNOWLEDGE.other_wheels["2.13"]}
    table = dataclasses.replace(KNOWLEDGE, other_wheels=only)
    assert "lists no PyTorch wheels" in othergpus.wheel_line(table, rdna1)


def test_a_python_outside_a_release_picks_an_older_one():
    line = othergpus.wheel_line(KNOWLEDGE, KNOWLEDGE.other_gpus["gfx1201"], python="3.9")
    assert "PyTorch 2.8.0" in line and "rocm6.4" in line and "ROCm 6.4.1 or newer" in line


def test_rocminfo_gives_each_gpu_agent_with_its_target():
    gpus = host.parse_rocminfo((FIXTURES / "rocminfo-mi300x-rx7900xtx.txt").read_text())
    assert [(g.name, g.target) for g in gpus] == [("AMD Instinct MI300X", "gfx942"), ("Radeon RX 7900 XTX", "gfx1100")]
    assert host.parse_rocminfo((FIXTURES / "rocminfo-cpu-only.txt").read_text()) == ()


def test_sycl_ls_gives_each_level_zero_gpu_once():
    gpus = host.parse_sycl_ls((FIXTURES / "sycl-ls-arc-a770-b580.txt").read_text())
    assert [g.name for g in gpus] == ["Intel(R) Arc(TM) A770 Graphics", "Intel(R) Arc(TM) B580 Graphics"]


def _runner(outputs: dict[str, str]):
    def run(argv):
        return (0, outputs[argv[0]]) if argv[0] in outputs else (127, f"{argv[0]} not found")
    return run


@pytest.mark.parametrize("tools, source, names", [
    ({"rocminfo": "rocminfo-mi300x-rx7900xtx.txt"}, "rocminfo", ["AMD Instinct MI300X", "Radeon RX 7900 XTX"]),
    ({"rocminfo": "rocminfo-cpu-only.txt", "sycl-ls": "sycl-ls-arc-a770-b580.txt"}, "sycl-ls",
     ["Intel(R) Arc(TM) A770 Graphics", "Intel(R) Arc(TM) B580 Graphics"]),
    ({}, "no NVIDIA GPU", []),
])
def test_without_nvidia_smi_the_other_tools_are_asked(tools, source, names):
    outputs = {tool: (FIXTURES / file).read_text() for tool, file in tools.items()}
    gpus, found_by, error = host.read_gpus(_runner(outputs))
    assert [g.name for g in gpus] == names and found_by.startswith(source) and error is None


def test_detect_reads_rocminfo_targets_and_serves_every_gpu(tmp_path):
    outputs = {"rocminfo": (FIXTURES / "rocminfo-mi300x-rx7900xtx.txt").read_text()}
    machine = host.gather(uname="Linux x86_64", cpu_flags="avx avx2 fma f16c", run=_runner(outputs),
                          nvml=lambda: None)
    from generator import run as run_

    expansion, _ = run_.expansion_or_example(_project(tmp_path))
    result = detect.recommend(machine, expansion)
    assert [(f.other.name, f.how) for f in result.gpus] == [
        ("gfx942", "its target as the vendor's tool reports it"), ("gfx1100", "its target as the vendor's tool reports it")]
    assert sum("whl/rocm7.2" in reason for reason in result.reasons) == 2


def _project(folder):
    from generator import layout

    return layout.Project(folder, folder / "matrix.yaml", False)
