"""detect, explain and env in a folder without a matrix: the shipped knowledge and the newest
shipped example answer, and each says which matrix it read."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from conftest import REPO
from generator.cli import main
from generator.commands import init

HOST = REPO / "tests" / "fixtures" / "hosts" / "xeon8480-h100"
NEWEST = f"no matrix.yaml here: the shipped example {init.examples()[-1]}"
DETECT = ["detect", "--uname", "Linux x86_64", "--cpuinfo", str(HOST / "cpuinfo"),
          "--nvidia-smi-output", str(HOST / "nvidia-smi.csv")]


@pytest.fixture
def empty(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def invoke(*args):
    # lines unwrapped (COLUMNS=1000): these tests read what is said; tests/test_terminal.py the wrapping
    return CliRunner(env={"COLUMNS": "1000"}).invoke(main, list(args), catch_exceptions=False)


def test_detect_without_a_matrix_recommends_from_the_newest_example(empty):
    result = invoke(*DETECT)
    assert result.exit_code == 0, result.output
    example = invoke(*DETECT, "--matrix", str(init.EXAMPLES / init.examples()[-1] / "matrix.yaml"))
    assert result.stdout.splitlines()[0] == example.stdout.splitlines()[0]
    assert f"matrix: {NEWEST}" in result.stderr.splitlines()
    assert json.loads(invoke(*DETECT, "--json").stdout)["matrix"] == NEWEST


def test_detect_names_the_matrix_it_read(empty):
    (empty / "matrix.yaml").write_text("pytorch: {version: '2.8.0'}\nnixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}\n"
                                       "cpu: {python: ['3.12'], isa: [avx2]}\n")
    result = invoke(*DETECT)
    assert "  variant: pytorch-python312-cpu-avx2" in result.stdout.splitlines()
    # the matrix here is a repository's: its build is Flox's, where the example's is the script
    assert result.stdout.splitlines()[-1] == "  build: `flox build pytorch-python312-cpu-avx2`"
    assert "matrix: matrix.yaml" in result.stderr.splitlines()
    assert json.loads(invoke(*DETECT, "--json").stdout)["matrix"] == "matrix.yaml"


def test_explain_without_a_matrix_answers_from_the_newest_example(empty):
    result = invoke("explain", "--sm", "6.1", "--cuda", "13.0", "--isa", "avx2")
    assert result.exit_code == 0, result.output
    assert "sm61 (Pascal) was dropped after CUDA 12.9" in result.stdout
    assert f"matrix: {NEWEST}" in result.stderr.splitlines()
    as_json = json.loads(invoke("explain", "--sm", "9.0", "--json").stdout)
    assert as_json["matrix"] == NEWEST


@pytest.mark.parametrize("command", [DETECT, ["explain", "--sm", "9.0"], ["env", "pytorch-python313-cpu-avx2"]])
def test_a_matrix_named_that_is_not_there_is_still_an_error(empty, command):
    result = invoke(*command, "--matrix", "nowhere.yaml")
    assert result.exit_code == 2 and "nowhere.yaml: file not found" in result.output


def test_env_by_name_without_a_matrix_reads_the_shipped_example(empty):
    # the names detect and explain print without a matrix are the shipped example's: env takes them
    result = invoke("env", "pytorch-python313-cpu-avx2")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("#!/usr/bin/env bash")
    assert f"matrix: {NEWEST}" in result.stderr.splitlines()
    detected = invoke(*DETECT, "--name").stdout.strip()
    assert invoke("env", detected, "--shell", "powershell", "-o", "build.ps1").exit_code == 0
    assert (empty / "build.ps1").is_file()


def test_env_by_a_name_the_example_lacks_says_what_to_do(empty):
    result = invoke("env", "pytorch-python313-cpu-avx3")
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"{NEWEST}: no variant named 'pytorch-python313-cpu-avx3'" in result.output
    assert "--gpu, --cuda, --pytorch, --python, --isa or --detect" in result.output


def test_env_by_axes_without_a_matrix_writes_a_script(empty):
    result = invoke("env", "--gpu", "sm_90", "--isa", "avx2")
    assert result.exit_code == 0 and result.stdout.startswith("#!/usr/bin/env bash")


def test_explain_a_gpu_without_a_matrix_answers_with_the_wheels_first(empty):
    result = invoke("explain", "--gpu", "RTX 4090")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("prebuilt: ") and "sm89" in lines[0]
    assert lines[1] == "wheels: PyTorch's own that run on sm89:"
    # a table: a header, then a row for each CUDA release, index and systems
    assert lines[2].split() == ["PyTorch", "CUDA", "index", "systems", "runs", "as", "driver", "(Linux", "/", "Windows)"]
    assert all(line.startswith("  ") for line in lines[2:-1])
    assert lines[-1].startswith(f"the shipped example {init.examples()[-1]} holds ")
    assert "note:" not in result.stderr  # the example's own notes are not the reader's
    # with a matrix here, its variants come first and its notes are said
    example = init.EXAMPLES / init.examples()[-1] / "matrix.yaml"
    (empty / "matrix.yaml").write_text(example.read_text())
    mine = invoke("explain", "--gpu", "RTX 4090")
    assert mine.stdout.splitlines()[0].startswith("pytorch-") and "note:" in mine.stderr
