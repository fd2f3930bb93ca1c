"""env: the variables for building a variant with setup.py, in bash, cmd and PowerShell."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.commands import buildenv

from conftest import REPO

MATRIX = REPO / "matrix.yaml"
BASH = shutil.which("bash")
needs_bash = pytest.mark.skipif(BASH is None, reason="bash not found")


GOLDEN = REPO / "tests" / "golden" / "env"
SUFFIX = {"bash": "sh", "cmd": "cmd", "powershell": "ps1"}
RTX_5070 = "pytorch-python313-cuda12_8-sm120-avx2"


def env_script(run, name: str, shell: str = "bash") -> str:
    result = run("env", "--matrix", MATRIX, name, "--shell", shell)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("shell", buildenv.SHELLS)
@pytest.mark.parametrize("name", [RTX_5070, "pytorch-python313-cuda12_8-sm61-avx", "pytorch-python313-cpu-avx512vnni"])
def test_each_shell_matches_its_golden_file(run, update_golden, name, shell):
    text = env_script(run, name, shell)
    golden = GOLDEN / f"{name}.{SUFFIX[shell]}"
    if update_golden:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8"), f"rerun with --update-golden if {golden.name} should change"


# ---- the bash script, run for real against a fake toolchain --------------------------------

def fake_checkout(tmp_path, nvcc_release: str | None, cache: str | None = None):
    """A checkout folder and a PATH whose nvcc reports `nvcc_release` and whose python
    writes the environment it was started with to python-env.txt instead of building."""
    tools = tmp_path / "bin"
    tools.mkdir()
    if nvcc_release:
        (tools / "nvcc").write_text("#!/bin/sh\necho 'nvcc: NVIDIA (R) Cuda compiler driver'\n"
                                    f"echo 'Cuda compilation tools, release {nvcc_release}, V{nvcc_release}.41'\n")
    (tools / "python").write_text('#!/bin/sh\nenv > python-env.txt\necho "python $*" >> python-env.txt\n')
    for tool in tools.iterdir():
        tool.chmod(0o755)
    checkout = tmp_path / "pytorch"
    (checkout / "build").mkdir(parents=True)
    if cache is not None:
        (checkout / "build" / "CMakeCache.txt").write_text(cache)
    path = f"{tools}:/usr/bin:/bin"
    return checkout, path


def run_bash(script: str, checkout, path: str, **extra):
    return subprocess.run([BASH, "-s"], input=script, cwd=checkout, env={"PATH": path, **extra},
                          capture_output=True, text=True)


def built_environment(checkout) -> dict[str, str]:
    lines = (checkout / "python-env.txt").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line and not line.startswith("python "))


@needs_bash
@pytest.mark.parametrize("release", ["12.3", "12.4"])
def test_an_nvcc_too_old_for_the_sm_stops_the_build(run, tmp_path, release):
    checkout, path = fake_checkout(tmp_path, release)
    done = run_bash(env_script(run, RTX_5070), checkout, path)
    assert done.returncode == 1
    assert done.stderr.strip() == (f"error: nvcc is CUDA {release}; sm120 (Blackwell consumer) needs CUDA >= 12.8: "
                                   "install CUDA 12.8")
    assert not (checkout / "python-env.txt").exists()


@needs_bash
def test_an_nvcc_past_the_sms_last_cuda_stops_the_build(run, tmp_path):
    checkout, path = fake_checkout(tmp_path, "13.0")
    done = run_bash(env_script(run, "pytorch-python313-cuda12_8-sm61-avx"), checkout, path)
    assert done.returncode == 1 and "sm61 (Pascal) was dropped after CUDA 12.9" in done.stderr


@needs_bash
def test_no_nvcc_stops_the_build(run, tmp_path):
    checkout, path = fake_checkout(tmp_path, None)
    done = run_bash(env_script(run, RTX_5070), checkout, path)
    assert done.returncode == 1 and "nvcc not found: install the CUDA 12.8 toolkit" in done.stderr


@needs_bash
def test_a_good_nvcc_builds_with_the_variants_switches_and_jobs_from_the_machine(run, tmp_path):
    checkout, path = fake_checkout(tmp_path, "12.8")
    done = run_bash(env_script(run, RTX_5070), checkout, path)
    assert done.returncode == 0, done.stderr
    env = built_environment(checkout)
    assert {k: env[k] for k in ("TORCH_CUDA_ARCH_LIST", "CMAKE_CUDA_ARCHITECTURES", "USE_CUDA", "USE_CUDNN",
                                "CFLAGS")} == {"TORCH_CUDA_ARCH_LIST": "12.0", "CMAKE_CUDA_ARCHITECTURES": "120",
                                               "USE_CUDA": "1", "USE_CUDNN": "1", "CFLAGS": "-mavx2 -mfma -mf16c"}
    cores = os.cpu_count()
    memory_gb = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2**30
    assert env["MAX_JOBS"] == str(max(1, min(cores, memory_gb // buildenv.JOB_MEMORY_GB["cuda"])))
    assert "USE_DISTRIBUTED" not in env  # Linux keeps the distributed stack, as the recipe
    assert (checkout / "python-env.txt").read_text().splitlines()[-1] == \
        "python -m pip install --no-build-isolation -v -e ."


@needs_bash
def test_max_jobs_from_the_environment_wins(run, tmp_path):
    checkout, path = fake_checkout(tmp_path, "12.8")
    assert run_bash(env_script(run, RTX_5070), checkout, path, MAX_JOBS="3").returncode == 0
    assert built_environment(checkout)["MAX_JOBS"] == "3"


@needs_bash
@pytest.mark.parametrize("cache, removed", [
    ("CMAKE_CUDA_ARCHITECTURES:STRING=89\n", True),
    ("CMAKE_BUILD_TYPE:STRING=Release\n", True),
    ("CMAKE_CUDA_ARCHITECTURES:STRING=120\n", False),
    ("CMAKE_CUDA_ARCHITECTURES:UNINITIALIZED=120\n", False),
])
def test_a_cmake_cache_for_another_architecture_is_removed(run, tmp_path, cache, removed):
    checkout, path = fake_checkout(tmp_path, "12.8", cache)
    done = run_bash(env_script(run, RTX_5070), checkout, path)
    assert done.returncode == 0, done.stderr
    assert (checkout / "build" / "CMakeCache.txt").exists() != removed
    assert ("removing build/CMakeCache.txt" in done.stderr) == removed


@pytest.mark.parametrize("name", [RTX_5070, "pytorch-python313-cuda12_8-sm61-avx", "pytorch-python313-cpu-armv9",
                                  "pytorch-python313-darwin-mps"])
def test_shellcheck_passes_the_bash_script(run, tmp_path, name):
    shellcheck = shutil.which("shellcheck") or str(Path(sys.executable).with_name("shellcheck"))
    script = tmp_path / "build.sh"
    script.write_text(env_script(run, name))
    done = subprocess.run([shellcheck, "--shell=bash", str(script)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout


# ---- cmd and PowerShell: what the RTX 5070 build needed, and a parse with tree-sitter -------

@pytest.mark.parametrize("shell", buildenv.WINDOWS_SHELLS)
def test_windows_scripts_have_what_the_rtx_5070_build_needed(run, shell):
    text = env_script(run, RTX_5070, shell)
    assert "NVIDIA driver 570.65 or newer on Windows" in text  # not the Linux 570.26
    set_ = (lambda n, v: f'set "{n}={v}"') if shell == "cmd" else (lambda n, v: f"$env:{n} = '{v}'")
    for name, value in [("TORCH_CUDA_ARCH_LIST", "12.0"), ("CMAKE_CUDA_ARCHITECTURES", "120"),
                        ("USE_DISTRIBUTED", "0"), ("CMAKE_CUDA_USE_RESPONSE_FILE_FOR_OBJECTS", "ON"),
                        ("CMAKE_NINJA_FORCE_RESPONSE_FILE", "ON"), ("CFLAGS", "/arch:AVX2")]:
        assert set_(name, value) in text.splitlines(), name
    assert "MAX_JOBS=32" not in text and "TotalPhysicalMemory" in text
    assert "needs CUDA >= 12.8" in text.replace("^>=", ">=") and "1208" in text
    assert "VSCMD_ARG_TGT_ARCH" in text and "cl.exe" in text
    assert "c10d" in text  # says why distributed is off
    assert text.rstrip().splitlines()[-1 if shell == "cmd" else -2] == buildenv.BUILD_COMMAND


def test_cmd_messages_keep_parentheses_out_of_parenthesised_blocks(run):
    # cmd ends an ( ... ) block at the first ")", even inside an echo
    for line in env_script(run, RTX_5070, "cmd").splitlines():
        if line.startswith("if ") and "(echo" in line:
            assert line.count("(") == line.count(")") == 1 or "\"" in line, line


@pytest.mark.parametrize("shell, grammar", [("powershell", "tree_sitter_powershell"), ("cmd", "tree_sitter_batch")])
@pytest.mark.parametrize("name", [RTX_5070, "pytorch-python313-cuda12_8-sm61-avx", "pytorch-python313-cpu-avx512vnni"])
def test_windows_scripts_parse(run, shell, grammar, name):
    tree_sitter = pytest.importorskip("tree_sitter")
    language = pytest.importorskip(grammar)
    tree = tree_sitter.Parser(tree_sitter.Language(language.language())).parse(env_script(run, name, shell).encode())
    assert not tree.root_node.has_error


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


@needs_bash
def test_an_avx_build_presets_cmake_so_no_avx2_kernels_are_built(run, tmp_path):
    # what nix/fixes/avx-only-kernels.nix does for the recipe; `smoke` then expects DEFAULT kernels
    checkout, path = fake_checkout(tmp_path, "12.8")
    done = run_bash(env_script(run, "pytorch-python313-cuda12_8-sm61-avx"), checkout, path)
    assert done.returncode == 0, done.stderr
    preset = checkout / buildenv.AVX_ONLY_FILE
    assert built_environment(checkout)["CMAKE_PROJECT_INCLUDE_BEFORE"] == str(preset)
    assert 'set(CXX_AVX2_FOUND FALSE CACHE BOOL "AVX-only build")' in preset.read_text().splitlines()
    for shell in buildenv.WINDOWS_SHELLS:
        assert "CMAKE_PROJECT_INCLUDE_BEFORE" in env_script(run, "pytorch-python313-cuda12_8-sm61-avx", shell)
    assert "CMAKE_PROJECT_INCLUDE_BEFORE" not in env_script(run, RTX_5070, "cmd")
