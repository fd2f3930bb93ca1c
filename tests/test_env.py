"""env: the variables for building a variant with setup.py, in bash, cmd and PowerShell."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator import buildenv

from conftest import REPO

MATRIX = REPO / "matrix.yaml"
BASH = shutil.which("bash")
needs_bash = pytest.mark.skipif(BASH is None, reason="bash not found")


def environment_after(script: str) -> dict[str, str]:
    """The variables a clean bash has after sourcing `script`, less those it had before."""
    def env(source: str) -> dict[str, str]:
        out = subprocess.run([BASH, "--norc", "--noprofile", "-c", f"{source} env -0"], env={},
                             input=script, capture_output=True, text=True, check=True).stdout
        return dict(item.split("=", 1) for item in out.split("\0") if item)
    before, after = env(""), env("source /dev/stdin >/dev/null;")
    return {k: v for k, v in after.items() if before.get(k) != v}


def env_script(run, name: str, shell: str = "bash") -> str:
    result = run("env", "--matrix", MATRIX, name, "--shell", shell)
    assert result.exit_code == 0, result.output
    return result.stdout


@needs_bash
@pytest.mark.parametrize("name, expected", [
    ("pytorch-python313-cuda12_8-sm61-avx", {
        "TORCH_CUDA_ARCH_LIST": "6.1", "USE_CUDA": "1", "USE_CUDNN": "0",
        "USE_FBGEMM": "0", "USE_MKLDNN": "0", "USE_MKLDNN_CBLAS": "0", "USE_NNPACK": "0",
        "CFLAGS": "-mavx -mno-fma -mno-bmi -mno-bmi2 -mno-avx2",
        "CXXFLAGS": "-mavx -mno-fma -mno-bmi -mno-bmi2 -mno-avx2", "MAX_JOBS": "32"}),
    ("pytorch-python313-cuda12_8-sm120-avx512bf16", {
        "TORCH_CUDA_ARCH_LIST": "12.0", "USE_CUDA": "1", "USE_CUDNN": "1",
        "CFLAGS": "-mavx512f -mavx512dq -mavx512vl -mavx512bw -mfma -mavx512bf16",
        "CXXFLAGS": "-mavx512f -mavx512dq -mavx512vl -mavx512bw -mfma -mavx512bf16", "MAX_JOBS": "32"}),
    ("pytorch-python313-cpu-armv9", {
        "USE_CUDA": "0", "CFLAGS": "-march=armv9-a+sve+sve2", "CXXFLAGS": "-march=armv9-a+sve+sve2",
        "BLAS": "OpenBLAS", "MAX_JOBS": "32"}),
    ("pytorch-python313-darwin-mps", {"USE_CUDA": "0", "USE_MPS": "1", "MAX_JOBS": "32"}),
])
def test_bash_output_sourced_in_bash_sets_exactly_the_variables(run, name, expected):
    assert environment_after(env_script(run, name)) == expected


def test_bash_comments_name_the_cuda_toolkit_and_the_pytorch_version(run):
    text = env_script(run, "pytorch-python313-cuda12_8-sm90-avx512")
    assert "# Needs the CUDA 12.8 toolkit (nvcc on PATH, or CUDA_HOME); running the build needs NVIDIA driver 570.26" in text
    assert "# PyTorch 2.8.0 (git checkout v2.8.0) for Python 3.13." in text
    assert "# Builds without CUDA." in env_script(run, "pytorch-python313-cpu-avx2")


def test_cmd_uses_msvc_arch_flags(run):
    text = env_script(run, "pytorch-python313-cuda12_8-sm61-avx", "cmd")
    assert text.splitlines()[0].startswith("rem Build environment of pytorch-python313-cuda12_8-sm61-avx")
    assert [line for line in text.splitlines() if line.startswith("set ")] == [
        'set "TORCH_CUDA_ARCH_LIST=6.1"', 'set "USE_CUDA=1"', 'set "USE_CUDNN=0"', 'set "USE_FBGEMM=0"',
        'set "USE_MKLDNN=0"', 'set "USE_MKLDNN_CBLAS=0"', 'set "USE_NNPACK=0"', 'set "CFLAGS=/arch:AVX"', 'set "CXXFLAGS=/arch:AVX"',
        'set "MAX_JOBS=32"']
    assert "rem Needs the CUDA 12.8 toolkit" in text and "\n#" not in text


def test_powershell_uses_msvc_arch_flags(run):
    text = env_script(run, "pytorch-python313-cpu-avx512vnni", "powershell")
    assert [line for line in text.splitlines() if line.startswith("$env:")] == [
        "$env:USE_CUDA = '0'", "$env:CFLAGS = '/arch:AVX512'", "$env:CXXFLAGS = '/arch:AVX512'",
        "$env:BLAS = 'OpenBLAS'", "$env:MAX_JOBS = '32'"]


def test_an_isa_without_an_msvc_flag_says_so(run):
    text = env_script(run, "pytorch-python313-cpu-armv8_2", "powershell")
    assert "# armv8_2 has no MSVC /arch: equivalent; the compiler's defaults apply." in text
    assert "CFLAGS" not in text


@needs_bash
@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"), max_size=30))
def test_bash_quote_gives_back_any_value(value):
    out = subprocess.run([BASH, "--norc", "--noprofile", "-c", f"printf %s {buildenv.bash_quote(value)}"],
                         capture_output=True, check=True).stdout
    assert out.decode("utf-8", "surrogateescape") == value


def test_cmd_and_powershell_quoting():
    assert buildenv.cmd_quote("/arch:AVX2") == "/arch:AVX2"
    assert buildenv.cmd_quote("50%") == "50%%"
    assert buildenv.cmd_quote("a&b|c>d") == "a&b|c>d"  # literal inside set "NAME=value"
    with pytest.raises(ValueError):
        buildenv.cmd_quote('say "hi"')
    assert buildenv.powershell_quote("it's $HOME") == "'it''s $HOME'"
    assert buildenv.powershell_quote("a\u2019b") == "'a\u2019\u2019b'"
