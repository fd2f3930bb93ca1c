"""env: the variables for building a variant with setup.py, in bash, cmd and PowerShell."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator import knowledge
from generator.commands import buildenv
from generator.errors import GenMatrixError, Location

from conftest import REPO, needs_posix

MATRIX = REPO / "matrix.yaml"
BASH = shutil.which("bash")


def needs_bash(test):
    """The bash script, run with stand-in tools: #!/bin/sh scripts and links to the system's
    own, on a PATH of their own."""
    return needs_posix("stand-in tools written as #!/bin/sh scripts")(
        pytest.mark.skipif(BASH is None, reason="bash not found")(test))


GOLDEN = REPO / "tests" / "golden" / "env"
SUFFIX = {"bash": "sh", "cmd": "cmd", "powershell": "ps1"}
RTX_5070 = "pytorch-python313-cuda12_8-sm120-avx2"


def env_script(run, name: str, shell: str = "bash") -> str:
    result = run("env", "--matrix", MATRIX, name, "--shell", shell)
    assert result.exit_code == 0, result.output
    return result.stdout


# The Kepler build of PyTorch 1.12 on Windows: a combination no matrix holds.
KEPLER = ("--gpu", "Tesla K40c", "--cuda", "11.4", "--pytorch", "1.12.1", "--python", "3.9")
KEPLER_NAME = "pytorch-1.12.1-python39-cuda11_4-sm35"


def axes_script(run, *axes: str, shell: str = "bash", root=None) -> str:
    where = ("--root", root) if root is not None else ("--matrix", MATRIX)
    result = run("env", *where, *axes, "--shell", shell)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("shell", buildenv.SHELLS)
@pytest.mark.parametrize("name", [RTX_5070, "pytorch-python313-cuda12_8-sm61-avx", "pytorch-python313-cpu-avx512vnni",
                                  KEPLER_NAME])
def test_each_shell_matches_its_golden_file(run, update_golden, name, shell):
    text = axes_script(run, *KEPLER, shell=shell) if name == KEPLER_NAME else env_script(run, name, shell)
    golden = GOLDEN / f"{name}.{SUFFIX[shell]}"
    if update_golden:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8"), f"rerun with --update-golden if {golden.name} should change"


# ---- the bash script, run for real against a fake toolchain --------------------------------

def fake_checkout(tmp_path, nvcc_release: str | None, cache: str | None = None, *, version: str = "2.8.0",
                  python: str = "3.13", gcc: str = "13.2.0", cmake: str = "3.31.6", ninja: bool = True,
                  cudnn: bool = True, checkout: bool = True):
    """A PyTorch checkout (setup.py, version.txt, requirements.txt) and a PATH of fakes: nvcc
    reports `nvcc_release`, python reports `python` as its version, logs each call to
    calls.txt and, for the build itself, writes the environment it was started with to
    python-env.txt instead of building; g++, cmake and ninja answer as those would."""
    tools = tmp_path / "bin"
    tools.mkdir()
    if nvcc_release:
        (tools / "nvcc").write_text("#!/bin/sh\necho 'nvcc: NVIDIA (R) Cuda compiler driver'\n"
                                    f"echo 'Cuda compilation tools, release {nvcc_release}, V{nvcc_release}.41'\n")
        if cudnn:
            (tmp_path / "include").mkdir()
            (tmp_path / "include" / "cudnn_version.h").write_text("#define CUDNN_MAJOR 9\n")
    (tools / "python").write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = -c ]; then echo {python}; exit 0; fi\n'
        'echo "python $*" >> calls.txt\n'
        'case "$*" in *" -e ."*|*"build --wheel"*) env > python-env.txt; echo "python $*" >> python-env.txt;; esac\n')
    (tools / "g++").write_text(f"#!/bin/sh\ncase \"$1\" in -dumpversion) echo {gcc};; *) echo 'g++ (GCC) {gcc}'; "
                               "echo 'Copyright (C) 2023 Free Software Foundation, Inc.';; esac\n")
    (tools / "cmake").write_text(f"#!/bin/sh\necho 'cmake version {cmake}'\n")
    if ninja:
        (tools / "ninja").write_text("#!/bin/sh\necho 1.12.1\n")
    for tool in tools.iterdir():
        tool.chmod(0o755)
    for tool in SYSTEM_TOOLS:  # only these of the system: no ninja, compiler or CUDA of the host's
        if shutil.which(tool):
            (tools / tool).symlink_to(shutil.which(tool))
    tree = tmp_path / "pytorch"
    (tree / "build").mkdir(parents=True)
    if checkout:
        (tree / "setup.py").write_text("")
        (tree / "version.txt").write_text(f"{version}a0\n")
        (tree / "requirements.txt").write_text("numpy\n")
    if cache is not None:
        (tree / "build" / "CMakeCache.txt").write_text(cache)
    return tree, str(tools)


SYSTEM_TOOLS = ("sh", "sed", "awk", "cut", "cat", "getconf", "dirname", "grep", "mkdir", "rm", "env", "sysctl")


def run_bash(script: str, checkout, path: str, **extra):
    return subprocess.run([BASH, "-s"], input=script, cwd=checkout, env={"PATH": path, **extra},
                          capture_output=True, text=True)


def built_environment(checkout) -> dict[str, str]:
    lines = (checkout / "python-env.txt").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line and not line.startswith("python "))


def calls(checkout) -> list[str]:
    path = checkout / "calls.txt"
    return path.read_text().splitlines() if path.exists() else []


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
def test_a_cuda_too_new_for_the_pytorch_release_stops_the_build(run, tmp_path):
    # sm120 builds with CUDA 13.0, PyTorch 2.8 does not
    checkout, path = fake_checkout(tmp_path, "13.0")
    done = run_bash(env_script(run, RTX_5070), checkout, path)
    assert done.returncode == 1
    assert "nvcc is CUDA 13.0; PyTorch 2.8's source does not build with CUDA 13.0 or newer" in done.stderr
    assert not (checkout / "python-env.txt").exists()


@needs_bash
def test_no_nvcc_stops_the_build(run, tmp_path):
    checkout, path = fake_checkout(tmp_path, None)
    done = run_bash(env_script(run, RTX_5070), checkout, path)
    assert done.returncode == 1 and "nvcc not found: install the CUDA 12.8 toolkit" in done.stderr


@needs_bash
def test_an_empty_folder_stops_the_build_before_anything_is_installed(run, tmp_path):
    checkout, path = fake_checkout(tmp_path, "13.0", checkout=False)
    done = run_bash(env_script(run, RTX_5070), checkout, path)
    assert done.returncode == 1
    assert "no PyTorch checkout here" in done.stderr and "git checkout v2.8.0" in done.stderr
    assert calls(checkout) == []  # no pip install, no build


@needs_bash
def test_a_checkout_of_another_version_stops_the_build_with_the_checkout_to_run(run, tmp_path):
    checkout, path = fake_checkout(tmp_path, "12.8", version="2.9.0")
    done = run_bash(env_script(run, RTX_5070), checkout, path)
    assert done.returncode == 1
    assert done.stderr.strip() == ("error: this checkout is PyTorch 2.9.0a0, not 2.8.0: git checkout v2.8.0 && "
                                   "git submodule sync && git submodule update --init --recursive")


@needs_bash
def test_another_python_stops_the_build(run, tmp_path):
    checkout, path = fake_checkout(tmp_path, "12.8", python="3.12")
    done = run_bash(env_script(run, RTX_5070), checkout, path)
    assert done.returncode == 1 and "python is 3.12; this build is for Python 3.13" in done.stderr
    assert calls(checkout) == []


@needs_bash
def test_no_ninja_stops_the_build_after_the_requirements(run, tmp_path):
    checkout, path = fake_checkout(tmp_path, "12.8", ninja=False)
    done = run_bash(env_script(run, RTX_5070), checkout, path)
    assert done.returncode == 1 and "ninja not found: python -m pip install ninja" in done.stderr
    assert calls(checkout) == ["python -m pip install -r requirements.txt"]


@needs_bash
def test_no_cudnn_stops_a_build_that_uses_it(run, tmp_path):
    # the script also looks in the system's include folders, which the test cannot empty
    system = [folder for folder in ("/usr/include", "/usr/include/x86_64-linux-gnu", "/usr/include/aarch64-linux-gnu")
              if any((Path(folder) / header).exists() for header in ("cudnn.h", "cudnn_version.h"))]
    if system:
        pytest.skip(f"this machine has cuDNN in {system[0]}, where the script finds it: no build here lacks it")
    checkout, path = fake_checkout(tmp_path, "12.8", cudnn=False)
    done = run_bash(env_script(run, RTX_5070), checkout, path)
    assert done.returncode == 1 and "cuDNN not found" in done.stderr and "CUDNN_ROOT" in done.stderr


@needs_bash
def test_a_good_toolchain_builds_with_the_variants_switches_and_jobs_from_the_machine(run, tmp_path):
    checkout, path = fake_checkout(tmp_path, "12.8")
    done = run_bash(env_script(run, RTX_5070), checkout, path)
    assert done.returncode == 0, done.stderr
    env = built_environment(checkout)
    assert {k: env[k] for k in ("TORCH_CUDA_ARCH_LIST", "CMAKE_CUDA_ARCHITECTURES", "USE_CUDA", "USE_CUDNN",
                                "CFLAGS")} == {"TORCH_CUDA_ARCH_LIST": "12.0", "CMAKE_CUDA_ARCHITECTURES": "120",
                                               "USE_CUDA": "1", "USE_CUDNN": "1", "CFLAGS": "-mavx2 -mfma -mf16c"}
    assert env["CUDA_HOME"] == str(tmp_path) and env["CUDACXX"] == str(tmp_path / "bin" / "nvcc")
    cores = os.cpu_count()
    memory_gb = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2**30
    assert env["MAX_JOBS"] == str(max(1, min(cores, memory_gb // knowledge.build(knowledge.builtin()).job_memory_gb(cuda=True))))
    assert "USE_DISTRIBUTED" not in env  # Linux keeps the distributed stack, as the recipe
    assert calls(checkout) == ["python -m pip install -r requirements.txt",
                               "python -m pip install --no-build-isolation -v -e ."]


@needs_bash
def test_max_jobs_from_the_environment_wins_within_memory(run, tmp_path):
    checkout, path = fake_checkout(tmp_path, "12.8")
    assert run_bash(env_script(run, RTX_5070), checkout, path, MAX_JOBS="1").returncode == 0
    assert built_environment(checkout)["MAX_JOBS"] == "1"


@needs_bash
def test_a_preset_max_jobs_beyond_memory_is_capped_with_a_word(run, tmp_path):
    checkout, path = fake_checkout(tmp_path, "12.8")
    done = run_bash(env_script(run, RTX_5070), checkout, path, MAX_JOBS="100000")
    assert done.returncode == 0, done.stderr
    memory_gb = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2**30
    jobs = max(1, min(os.cpu_count(), memory_gb // knowledge.build(knowledge.builtin()).job_memory_gb(cuda=True)))
    assert built_environment(checkout)["MAX_JOBS"] == str(jobs)
    assert f"MAX_JOBS=100000 needs about 400000 GB of memory; this machine has {memory_gb} GB: using {jobs}" \
        in done.stderr


@needs_bash
@pytest.mark.parametrize("cache", [
    # the seed failure: an earlier USE_DISTRIBUTED=ON attempt at the same architecture
    "CMAKE_CUDA_ARCHITECTURES:STRING=120\nUSE_DISTRIBUTED:BOOL=ON\n",
    "CMAKE_CUDA_ARCHITECTURES:STRING=89\n",
    "CMAKE_BUILD_TYPE:STRING=Release\n",
])
def test_a_cmake_cache_without_this_scripts_stamp_is_removed(run, tmp_path, cache):
    checkout, path = fake_checkout(tmp_path, "12.8", cache)
    done = run_bash(env_script(run, RTX_5070), checkout, path)
    assert done.returncode == 0, done.stderr
    assert not (checkout / "build" / "CMakeCache.txt").exists()
    assert "removing build/CMakeCache.txt: it was configured with other switches than these" in done.stderr
    stamp = (checkout / "build" / buildenv.STAMP).read_text().splitlines()
    assert "CMAKE_CUDA_ARCHITECTURES=120" in stamp and f"CUDA_HOME={tmp_path}" in stamp


@needs_bash
def test_a_cmake_cache_is_kept_while_the_switches_stay_and_removed_when_one_changes(run, tmp_path):
    checkout, path = fake_checkout(tmp_path, "12.8")
    script = env_script(run, RTX_5070)
    assert run_bash(script, checkout, path).returncode == 0
    cache = checkout / "build" / "CMakeCache.txt"
    cache.write_text("CMAKE_CUDA_ARCHITECTURES:STRING=120\n")  # what the build configured
    again = run_bash(script, checkout, path)
    assert again.returncode == 0 and cache.exists() and "removing" not in again.stderr
    other = run_bash(env_script(run, "pytorch-python313-cuda12_8-sm61-avx"), checkout, path)
    assert other.returncode == 0 and not cache.exists() and "removing build/CMakeCache.txt" in other.stderr


@needs_bash
def test_the_wheel_option_builds_a_wheel(run, tmp_path):
    checkout, path = fake_checkout(tmp_path, "12.8")
    result = run("env", "--matrix", MATRIX, RTX_5070, "--wheel")
    done = run_bash(result.stdout, checkout, path)
    assert done.returncode == 0, done.stderr
    assert calls(checkout)[-2:] == ["python -m pip install build", buildenv.WHEEL_COMMAND]


@pytest.mark.parametrize("name", [RTX_5070, "pytorch-python313-cuda12_8-sm61-avx", "pytorch-python313-cpu-armv9",
                                  "pytorch-python313-darwin-mps", KEPLER_NAME])
def test_shellcheck_passes_the_bash_script(run, tmp_path, name):
    # beside the interpreter, as the test extra installs it (shellcheck.exe on Windows)
    shellcheck = shutil.which("shellcheck") or shutil.which("shellcheck", path=str(Path(sys.executable).parent))
    if shellcheck is None:
        pytest.skip("shellcheck not found: the test extra installs it (pip install -e '.[test]')")
    script = tmp_path / "build.sh"
    script.write_text(axes_script(run, *KEPLER) if name == KEPLER_NAME else env_script(run, name),
                      encoding="utf-8", newline="")  # as bash reads it: LF on every system
    done = subprocess.run([shellcheck, "--shell=bash", str(script)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout


# ---- cmd and PowerShell: what the RTX 5070 build needed, and a parse with tree-sitter -------

@pytest.mark.parametrize("shell", buildenv.WINDOWS_SHELLS)
def test_windows_scripts_have_what_the_rtx_5070_build_needed(run, shell):
    text = env_script(run, RTX_5070, shell)
    assert "NVIDIA driver 570.65 or newer on Windows" in text  # not the Linux 570.26
    set_ = (lambda n, v: f"set {n}={v}") if shell == "cmd" else (lambda n, v: f"$env:{n} = '{v}'")
    for name, value in [("TORCH_CUDA_ARCH_LIST", "12.0"), ("CMAKE_CUDA_ARCHITECTURES", "120"),
                        ("USE_DISTRIBUTED", "0"), ("CMAKE_CUDA_USE_RESPONSE_FILE_FOR_OBJECTS", "ON"),
                        ("CMAKE_NINJA_FORCE_RESPONSE_FILE", "ON"), ("CFLAGS", "/arch:AVX2")]:
        assert set_(name, value) in text.splitlines(), name
    assert "MAX_JOBS=32" not in text and "TotalPhysicalMemory" in text
    assert ("sm120 needs CUDA 12.8 or newer" if shell == "cmd" else "needs CUDA >= 12.8") in text and "1208" in text
    assert "VSCMD_ARG_TGT_ARCH" in text and "cl.exe" in text
    assert "c10d" in text  # says why distributed is off
    assert text.rstrip().splitlines()[-1 if shell == "cmd" else -2] == buildenv.BUILD_COMMAND


def test_cmd_messages_keep_parentheses_out_of_parenthesised_blocks(run):
    # cmd ends an ( ... ) block at the first ")", even inside an echo
    for line in env_script(run, RTX_5070, "cmd").splitlines():
        if line.startswith("if ") and "(echo" in line:
            assert line.count("(") == line.count(")") == 1 or "\"" in line, line


@pytest.mark.parametrize("shell, grammar", [("powershell", "tree_sitter_powershell"), ("cmd", "tree_sitter_batch")])
@pytest.mark.parametrize("name", [RTX_5070, "pytorch-python313-cuda12_8-sm61-avx", "pytorch-python313-cpu-avx512vnni",
                                  KEPLER_NAME])
def test_windows_scripts_parse(run, shell, grammar, name):
    tree_sitter = pytest.importorskip("tree_sitter")
    language = pytest.importorskip(grammar)
    text = axes_script(run, *KEPLER, shell=shell) if name == KEPLER_NAME else env_script(run, name, shell)
    tree = tree_sitter.Parser(tree_sitter.Language(language.language())).parse(text.encode())
    assert not tree.root_node.has_error


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


# ---- the stale-cache stamp on Windows ------------------------------------------------------

@pytest.mark.parametrize("shell", buildenv.WINDOWS_SHELLS)
def test_windows_scripts_stamp_every_switch_and_remove_a_cache_without_the_same_stamp(run, shell):
    text = env_script(run, RTX_5070, shell)
    names = [name for name, _ in buildenv.variables(buildenv.target_of(
        matrix(), matrix_variant(RTX_5070), shell), shell).items()] + ["CUDA_PATH"]
    stamp_line = next(line for line in text.splitlines() if "USE_DISTRIBUTED" in line and "CUDA_PATH" in line)
    assert all(name in stamp_line for name in names)  # the cache goes whenever one of them differs
    assert ("fc /b" in text if shell == "cmd" else "-ne $switches" in text)
    assert ("del build\\CMakeCache.txt" if shell == "cmd" else "Remove-Item build\\CMakeCache.txt") in text
    # no test of the architecture alone any more: the stamp holds it with every other switch
    assert "CMAKE_CUDA_ARCHITECTURES:[A-Z]*" not in text


def test_powershell_says_how_to_run_it_and_how_to_get_msvc_there(run):
    text = env_script(run, RTX_5070, "powershell")
    assert "-ExecutionPolicy Bypass" in text and "Enter-VsDevShell" in text
    assert "run vcvars64.bat" not in text


def matrix():
    from generator import run as pipeline
    from generator.layout import locate
    return pipeline.expansion(locate(str(MATRIX), None)).matrix


def matrix_variant(name):
    from generator import run as pipeline
    from generator.layout import locate
    return pipeline.expansion(locate(str(MATRIX), None)).by_name[name]


# ---- env refuses what it cannot script ----------------------------------------------------

@pytest.mark.parametrize("name, shell, wanted", [
    ("torchvision-python313-cuda12_8-sm61-avx", "bash",
     "error: NAME: torchvision-python313-cuda12_8-sm61-avx is a torchvision build on top of "
     "pytorch-python313-cuda12_8-sm61-avx; `gen-matrix env` scripts PyTorch itself\n  hint: run `gen-matrix env "
     "pytorch-python313-cuda12_8-sm61-avx --shell bash`, then build torchvision at its matching tag with `python -m "
     "pip install --no-build-isolation -v .` in its checkout\n"),
    ("pytorch-python313-darwin-mps", "cmd",
     "error: NAME: pytorch-python313-darwin-mps builds for macOS (Metal Performance Shaders on Apple Silicon); a cmd "
     "script is for Windows with MSVC\n  hint: run `gen-matrix env pytorch-python313-darwin-mps --shell bash` on the "
     "Mac\n"),
    ("pytorch-python313-cpu-armv9", "powershell",
     "run `gen-matrix env pytorch-python313-cpu-armv9 --shell bash` on the aarch64 Linux machine"),
])
def test_env_refuses_a_variant_its_shell_cannot_build_and_names_what_to_run(run, name, shell, wanted):
    result = run("env", "--matrix", MATRIX, name, "--shell", shell)
    assert result.exit_code == 2 and result.stdout == ""
    assert wanted in result.stderr and "Traceback" not in result.stderr


# ---- env by axes, without a matrix entry ---------------------------------------------------

def test_the_kepler_script_checks_vs_2019_carries_the_workarounds_and_targets_3_5(run):
    text = axes_script(run, *KEPLER, shell="cmd")
    assert "set TORCH_CUDA_ARCH_LIST=3.5" in text.splitlines()
    assert "if %MSC_VER% GEQ 1930" in text and "Visual Studio 2017 or 2019" in text
    assert " setuptools^<74 " in text and "_msvccompiler" in text  # the pin, with its reason
    assert "CMAKE_POLICY_VERSION_MINIMUM=3.5" in text and "Compatibility with CMake ^< 3.5" in text
    assert "set USE_KINETO=0" in text.splitlines() and " numpy^<2 " in text
    assert "NVIDIA driver 471.11 on Windows, or newer within R470, sm35's last driver branch" in text
    assert "set PY_WANTED=3.9" in text and "set PT_WANTED=1.12" in text


@needs_bash
@pytest.mark.parametrize("cmake, applied", [("4.0.2", True), ("3.31.6", False)])
def test_the_kepler_bash_script_builds_against_fakes_with_the_cmake_workaround_only_on_cmake_4(
        run, tmp_path, cmake, applied):
    checkout, path = fake_checkout(tmp_path, "11.4", version="1.12.1", python="3.9", gcc="11.4.0", cmake=cmake)
    done = run_bash(axes_script(run, *KEPLER), checkout, path)
    assert done.returncode == 0, done.stderr
    env = built_environment(checkout)
    # CUDA 11.4 takes cuDNN 8.x, whose 8.5 still supports Kepler: cuDNN stays on
    assert env["TORCH_CUDA_ARCH_LIST"] == "3.5" and env["USE_CUDNN"] == "1"
    assert (env.get("CMAKE_POLICY_VERSION_MINIMUM") == "3.5") == applied
    assert "python -m pip install numpy<2" in calls(checkout)  # no setuptools pin off Windows
    assert "USE_KINETO" not in env  # the Kineto workaround is for the Windows build


@needs_bash
def test_a_gcc_newer_than_the_cuda_release_takes_stops_the_build(run, tmp_path):
    checkout, path = fake_checkout(tmp_path, "11.4", version="1.12.1", python="3.9", gcc="13.2.0")
    done = run_bash(axes_script(run, *KEPLER), checkout, path)
    assert done.returncode == 1
    assert "g++ is GCC 13; CUDA 11.4's nvcc accepts GCC up to 11: install g++-11" in done.stderr


def test_env_by_axes_needs_no_matrix(run, tmp_path):
    assert axes_script(run, *KEPLER, root=tmp_path) == axes_script(run, *KEPLER)


@pytest.mark.parametrize("axes, option, wanted", [
    (("--gpu", "RTX 5070", "--cuda", "12.4", "--shell", "cmd"), "--cuda",
     "sm120 (Blackwell consumer) needs CUDA >= 12.8 and PyTorch >= 2.7; this asks for CUDA 12.4"),
    (("--gpu", "RTX 5070", "--cuda", "12.8", "--pytorch", "2.6"), "--pytorch", "PyTorch >= 2.7"),
    (("--gpu", "Tesla K80", "--cuda", "12.1", "--pytorch", "1.12"), "--cuda", "sm37 (Kepler GK210) was dropped after CUDA 11.8"),
    (("--gpu", "RTX 5070", "--cuda", "13.0", "--pytorch", "2.8"), "--cuda", "PyTorch 2.8's source does not build with CUDA 13.0"),
    (("--gpu", "RTX 5070", "--pytorch", "2.8", "--python", "3.8"), "--python", "PyTorch 2.8 supports Python 3.9 to 3.13"),
    (("--gpu", "sm35", "--cuda", "11.9"), "--cuda", "unknown CUDA release '11.9'"),
    (("--gpu", "sm35", "--pytorch", "1.11"), "--pytorch", "unknown PyTorch release '1.11'"),
    (("--gpu", "Jetson Orin", "--shell", "cmd"), "--gpu", "found only on aarch64 hosts"),
    (("--gpu", "Jetson Orin", "--isa", "avx2"), "--isa", "a Jetson part, found only on aarch64 hosts"),
])
def test_env_refuses_a_combination_that_cannot_work_with_the_reason_and_the_nearest_that_does(run, axes, option, wanted):
    result = run("env", "--matrix", MATRIX, *axes)
    assert result.exit_code == 2 and result.stdout == "", result.output
    first = result.stderr.splitlines()[0]
    assert first.startswith(f"error: {option}: ") and wanted in first, result.stderr
    if "aarch64" in wanted and option == "--isa":
        assert "give an --isa of the CPUs sm87 sits beside (armv8_2, armv9), or none" in result.stderr
    if "unknown" not in wanted and "aarch64" not in wanted:
        nearest = result.stderr.split("the nearest combination that works: ", 1)[1].strip()
        assert nearest.startswith("gen-matrix env --gpu")
        # the suggestion is itself a combination that works
        words = __import__("shlex").split(nearest)[2:]
        assert run("env", "--matrix", MATRIX, *words).exit_code == 0
    if "RTX 5070" in axes and "3.8" not in axes:  # PyTorch's own wheels run on it: said before any build
        assert "no build is needed: PyTorch " in result.stderr and "--index-url https://download.pytorch.org/whl/cu" \
            in result.stderr.split("the nearest combination", 1)[0]


def test_the_nearest_combination_keeps_what_was_asked_where_it_can(run):
    result = run("env", "--matrix", MATRIX, "--gpu", "RTX 5070", "--cuda", "12.8", "--pytorch", "2.6", "--shell", "cmd")
    assert "--cuda 12.8 --pytorch 2.7.1 --python 3.13 --shell cmd" in result.stderr


def test_axes_left_out_take_the_newest_that_works(run):
    text = axes_script(run, "--gpu", "sm35", "--python", "3.12")
    assert text.splitlines()[1].startswith("# Build script of pytorch-2.7.1-python312-cuda11_8-sm35,")


def test_env_takes_a_name_or_axes_not_both_nor_neither(run):
    assert run("env", "--matrix", MATRIX, RTX_5070, "--cuda", "12.8").exit_code == 2
    assert run("env", "--matrix", MATRIX).exit_code == 2


def test_detect_takes_this_machines_gpu_cpu_and_python_where_not_given():
    from generator import knowledge
    from generator.commands import handbuild
    from generator.commands.host import Cpu, Gpu, Host

    table = knowledge.build(knowledge.builtin())
    machine = Host("Windows", "x86_64", Cpu("x86_64", "Xeon E5-2690 v2", frozenset({"avx"})),
                   (Gpu("Tesla K80", "3.7", "472.50"),), "nvidia-smi")
    gpu, isa, python = handbuild.detected(table, None, None, "3.9", machine)
    assert (gpu, isa, python) == ("3.7", "avx", "3.9")
    assert handbuild.detected(table, "sm35", "avx2", "3.9", machine)[:2] == ("sm35", "avx2")  # given axes win
    target = handbuild.resolve(table, handbuild.Asked(gpu, "11.4", "1.12", python, isa, "cmd"))
    assert target.name == "pytorch-1.12.1-python39-cuda11_4-sm37-avx" and target.fixes == (buildenv.AVX_ONLY_FIX,)


@pytest.mark.parametrize("cuda, version", [("11.4", "1.12.1"), ("11.8", "2.7.1"), ("12.4", "2.6.0"), ("12.8", "2.11.0")])
def test_a_cuda_release_without_a_pytorch_takes_the_newest_release_built_with_it_else_the_nearest(run, cuda, version):
    text = axes_script(run, "--gpu", "sm86", "--cuda", cuda)
    assert f"# PyTorch {version} (git checkout v{version}," in text


@pytest.mark.parametrize("msvc, names", [((1930, 1950), "Visual Studio 2022"), ((1950, 1960), "Visual Studio 2026"),
                                         ((1910, 1951), "Visual Studio 2017, 2019, 2022 or 2026"),
                                         ((1910, 1930), "Visual Studio 2017 or 2019"),
                                         ((1910, 1940), "Visual Studio 2017, 2019 or 2022 (2022 up to 17.9)"),
                                         ((1910, 1950), "Visual Studio 2017, 2019 or 2022"),
                                         ((1920, 1960), "Visual Studio 2019, 2022 or 2026"),
                                         # VS 2022's first MSVC alone (_MSC_VER 1930) is still VS 2022
                                         ((1910, 1931), "Visual Studio 2017, 2019 or 2022")])
def test_the_msvc_range_of_a_cuda_release_is_named_by_its_visual_studio_releases(msvc, names):
    assert buildenv.visual_studio(msvc) == names


# ---- each switch turned off says why, before it is set ---------------------------------------

@needs_bash
def test_the_kepler_script_keeps_cudnn_on_where_its_cuda_release_takes_a_cudnn_that_supports_it(run, tmp_path):
    checkout, path = fake_checkout(tmp_path, "11.4", version="1.12.1", python="3.9", gcc="11.4.0")
    script = axes_script(run, *KEPLER)
    done = run_bash(script, checkout, path)
    assert done.returncode == 0, done.stderr
    assert built_environment(checkout)["USE_CUDNN"] == "1"
    said = [line for line in done.stdout.splitlines() if line.startswith("USE_CUDNN=")]
    assert said == [f"USE_CUDNN=1: {knowledge.CUDNN_RULE}, but cuDNN 8.5 for CUDA <=11.7 still supports sm35 "
                    "(compute capability 3.5): build with that cuDNN, or set USE_CUDNN=0 before running this script "
                    "to build without it"]
    # the user's USE_CUDNN wins
    off = run_bash(script, checkout, path, USE_CUDNN="0")
    assert off.returncode == 0, off.stderr
    assert built_environment(checkout)["USE_CUDNN"] == "0"
    assert any(line.startswith("USE_CUDNN=0: ") for line in off.stdout.splitlines())


@needs_bash
def test_the_kepler_script_of_a_cuda_no_older_cudnn_is_built_for_turns_it_off_unless_the_user_turns_it_on(
        run, tmp_path):
    checkout, path = fake_checkout(tmp_path, "11.8", version="2.7.1", python="3.13", gcc="11.4.0")
    script = axes_script(run, "--gpu", "Tesla K40c", "--cuda", "11.8", "--pytorch", "2.7.1", "--python", "3.13")
    done = run_bash(script, checkout, path)
    assert done.returncode == 0, done.stderr
    assert built_environment(checkout)["USE_CUDNN"] == "0"
    said = [line for line in done.stdout.splitlines() if line.startswith("USE_CUDNN=")]
    assert said == [f"USE_CUDNN=0: {knowledge.CUDNN_RULE} (sm35 is compute capability 3.5); cuDNN 8.5 does, for CUDA "
                    "<=11.7: set USE_CUDNN=1 before running this script only with an older cuDNN that still supports "
                    "sm35"]
    # "set USE_CUDNN=1 yourself" is possible: the script keeps it, and then checks that cuDNN is there
    on = run_bash(script, checkout, path, USE_CUDNN="1")
    assert on.returncode == 0, on.stderr
    assert built_environment(checkout)["USE_CUDNN"] == "1"
    assert "Running the build needs NVIDIA driver R470, sm35's last driver branch: 450.80.02 on Linux" in script


# A workaround that sets USE_CUDNN, on two builds: the Kepler one of PyTorch 1.12 (whose USE_CUDNN
# defaults to 1 where no one sets it) and an sm86 one (which uses current cuDNN).
SM86 = "pytorch-python313-cuda12_8-sm86-avx2"
CUDNN_BUILDS = {"kepler": (KEPLER, {"nvcc_release": "11.4", "version": "1.12.1", "python": "3.9", "gcc": "11.4.0"}),
                "sm86": ((SM86,), {"nvcc_release": "12.8"})}


def cudnn_workaround_script(run, root, build: str, value: str, shell: str = "bash") -> str:
    """The script of `build`, from a matrix whose workaround sets USE_CUDNN to `value` on GPU builds."""
    root.mkdir(exist_ok=True)
    (root / "matrix.yaml").write_text(
        'pytorch: {version: "2.8.0"}\nnixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}\n'
        'gpu: {python: ["3.13"], cuda: ["12.8"], sm: [sm86], isa: [avx2]}\n'
        "knowledge:\n  workarounds:\n    cudnn-choice:\n      why: the tests' choice of cuDNN\n"
        f'      source: tests/test_env.py\n      when: {{kind: [gpu]}}\n      env: {{USE_CUDNN: "{value}"}}\n')
    return axes_script(run, *CUDNN_BUILDS[build][0], shell=shell, root=root)


def test_a_workaround_that_sets_use_cudnn_only_for_a_cmake_range_is_refused_at_its_line(run, tmp_path):
    """The script settles USE_CUDNN and checks for cuDNN before it reads CMake's version: a
    value set only for some CMake could not decide either. Each such row is an error; a CMake
    row without USE_CUDNN and a row without cmake: that sets it are not."""
    rows = {"cmake-cudnn-off": ('">=4"', '{USE_Y: "1", USE_CUDNN: "0"}'), "cmake-other": ('">=4"', '{USE_Z: "1"}'),
            "plain-cudnn": (None, '{USE_CUDNN: "0"}'), "cmake-cudnn-on": ('">=5"', '{USE_CUDNN: "1"}')}
    text = ('pytorch: {version: "2.8.0"}\nnixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}\n'
            'gpu: {python: ["3.13"], cuda: ["12.8"], sm: [sm86], isa: [avx2]}\nknowledge:\n  workarounds:\n')
    for name, (cmake, env) in rows.items():
        text += f"    {name}:\n      why: w\n      source: s\n      when: {{}}\n"
        text += (f"      cmake: {cmake}\n" if cmake else "") + f"      env: {env}\n"
    (tmp_path / "matrix.yaml").write_text(text, encoding="utf-8")
    lines = text.splitlines()
    for args in (("--root", tmp_path), ("env", "--root", tmp_path, "--gpu", "sm86", "--cuda", "12.8")):
        result = run(*args)
        assert result.exit_code == 2 and "Traceback" not in result.output
        errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
        assert len(errors) == 2, result.stderr
        for name, cmake in (("cmake-cudnn-off", ">=4"), ("cmake-cudnn-on", ">=5")):
            start = next(i for i, line in enumerate(lines) if line.strip() == f"{name}:")
            line = next(i for i, line in enumerate(lines) if i > start and "USE_CUDNN" in line) + 1
            assert any(f"matrix.yaml:{line}:" in error and f"'{name}' sets USE_CUDNN only where CMake is {cmake}" in error
                       for error in errors), result.stderr
        assert "cmake-other" not in result.stderr and "plain-cudnn" not in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["matrix.yaml"]


def system_cudnn() -> str | None:
    """A system include folder the script searches that holds cuDNN: no build here lacks it."""
    return next((folder for folder in ("/usr/include", "/usr/include/x86_64-linux-gnu", "/usr/include/aarch64-linux-gnu")
                 if any((Path(folder) / header).exists() for header in ("cudnn.h", "cudnn_version.h"))), None)


@needs_bash
@pytest.mark.parametrize("build", sorted(CUDNN_BUILDS))
@pytest.mark.parametrize("value", ["0", "1"])
@pytest.mark.parametrize("users", [None, "0", "1"])
def test_a_workarounds_use_cudnn_is_the_builds_and_decides_whether_cudnn_must_be_found(
        run, tmp_path, build, value, users):
    if system_cudnn():
        pytest.skip(f"this machine has cuDNN in {system_cudnn()}, where the script finds it: no build here lacks it")
    script = cudnn_workaround_script(run, tmp_path / "project", build, value)
    before = {} if users is None else {"USE_CUDNN": users}
    fakes = CUDNN_BUILDS[build][1]
    (tmp_path / "bare").mkdir()
    checkout, path = fake_checkout(tmp_path / "bare", cudnn=False, **fakes)
    done = run_bash(script, checkout, path, **before)
    said = [line for line in done.stdout.splitlines() if line.startswith("USE_CUDNN=")]
    if value == "1":  # cuDNN must be found, before anything is installed
        assert done.returncode == 1 and "cuDNN not found" in done.stderr, done.stdout + done.stderr
        assert calls(checkout) == [] and said == []
        (tmp_path / "with").mkdir()
        checkout, path = fake_checkout(tmp_path / "with", cudnn=True, **fakes)
        done = run_bash(script, checkout, path, **before)
        said = [line for line in done.stdout.splitlines() if line.startswith("USE_CUDNN=")]
    assert done.returncode == 0, done.stderr
    assert built_environment(checkout)["USE_CUDNN"] == value
    assert said == [f"USE_CUDNN={value}: workaround cudnn-choice: the tests' choice of cuDNN"]


@needs_bash
def test_an_avx_script_says_why_each_feature_of_the_isas_disable_list_is_off(run, tmp_path):
    checkout, path = fake_checkout(tmp_path, "12.8")
    done = run_bash(env_script(run, "pytorch-python313-cuda12_8-sm61-avx"), checkout, path)
    assert done.returncode == 0, done.stderr
    env = built_environment(checkout)
    table = knowledge.build(knowledge.builtin())
    for feature in table.isa["avx"].disable:
        assert env[f"USE_{feature}"] == "0"
        assert (f"USE_{feature}=0: the knowledge table's avx row disables {feature}, which needs a newer instruction "
                "set than avx") in done.stdout.splitlines()
    blackwell = run_bash(env_script(run, RTX_5070), checkout, path)
    assert blackwell.returncode == 0 and "=0: " not in blackwell.stdout  # nothing turned off, nothing said


@pytest.mark.parametrize("shell, say", [("cmd", "echo "), ("powershell", "Write-Output '")])
def test_windows_scripts_say_why_before_each_switch_they_turn_off(run, shell, say):
    lines = axes_script(run, *KEPLER, shell=shell).splitlines()
    set_ = "set " if shell == "cmd" else "$env:"
    for name, what in [("USE_KINETO", "workaround no-kineto: "), ("USE_CUPTI", "workaround no-kineto: ")]:
        where = next(i for i, line in enumerate(lines) if line.startswith(f"{set_}{name}"))
        assert lines[where - 1].startswith(f"{say}{name}=0: ") and what in lines[where - 1], lines[where - 1]
    # USE_CUDNN is the user's where set, else the default: never set over theirs
    assert not [line for line in lines if line.startswith((f"{set_}USE_CUDNN", "set USE_CUDNN"))]
    default = ('if not defined USE_CUDNN set "USE_CUDNN=1"' if shell == "cmd"
               else "if (-not $env:USE_CUDNN) { $env:USE_CUDNN = '1' }")
    assert default in lines
    said = next(line for line in lines if "USE_CUDNN" in line and "cuDNN 8.5" in line)
    assert said.startswith("echo USE_CUDNN=!USE_CUDNN!: " if shell == "cmd" else 'Write-Output ("USE_CUDNN=$env:USE_CUDNN"')


# ---- the checks come before anything changes the machine ---------------------------------

@needs_bash
@pytest.mark.parametrize("problem, fake, said", [
    ("nvcc too old", {"nvcc_release": "11.0"}, "nvcc is CUDA 11.0; sm120 (Blackwell consumer) needs CUDA >= 12.8"),
    ("nvcc too new", {"nvcc_release": "13.0"}, "PyTorch 2.8's source does not build with CUDA 13.0"),
    ("no nvcc", {"nvcc_release": None}, "nvcc not found"),
    ("GCC too new", {"nvcc_release": "12.8", "gcc": "15.1.0"}, "g++ is GCC 15; CUDA 12.8's nvcc accepts GCC up to 14"),
])
def test_a_failed_toolkit_check_stops_the_script_before_pip_runs(run, tmp_path, problem, fake, said):
    checkout, path = fake_checkout(tmp_path, fake["nvcc_release"], gcc=fake.get("gcc", "13.2.0"))
    pip = Path(path) / "pip"  # a pip of its own too, in case a script ever calls it directly
    pip.write_text(f"#!/bin/sh\necho \"pip $*\" >> {checkout}/calls.txt\n")
    pip.chmod(0o755)
    done = run_bash(env_script(run, RTX_5070), checkout, path)
    assert done.returncode == 1 and said in done.stderr, done.stderr
    assert calls(checkout) == []  # neither python -m pip nor pip ran


@pytest.mark.parametrize("shell", buildenv.WINDOWS_SHELLS)
def test_windows_scripts_check_msvc_nvcc_and_cudnn_before_pip_installs_anything(run, shell):
    # no cmd.exe or Windows PowerShell here: the order of the lines is what can be checked
    text = env_script(run, RTX_5070, shell)
    first_pip = text.index("python -m pip install")
    for check in ("cl.exe", "VSCMD_ARG_TGT_ARCH", "nvcc --version", "cudnn_version.h", "python -c"):
        assert text.index(check) < first_pip, check


# ---- the compiler cache ----------------------------------------------------------------

def fake_cache_tool(tools: str, name: str) -> Path:
    tool = Path(tools) / name
    tool.write_text("#!/bin/sh\necho 'ccache version 4.10.2'\n")
    tool.chmod(0o755)
    return tool


@needs_bash
@pytest.mark.parametrize("name, folder", [("ccache", "CCACHE_DIR"), ("sccache", "SCCACHE_DIR")])
def test_a_compiler_cache_on_path_launches_every_compiler_and_lives_beside_the_checkout(run, tmp_path, name, folder):
    checkout, path = fake_checkout(tmp_path, "12.8")
    tool = fake_cache_tool(path, name)
    done = run_bash(env_script(run, RTX_5070), checkout, path)
    assert done.returncode == 0, done.stderr
    env = built_environment(checkout)
    assert {env[launcher] for launcher in buildenv.LAUNCHERS} == {str(tool)}
    cache = tmp_path / buildenv.CACHE_FOLDER / name  # beside the checkout, not in build/
    assert env[folder] == str(cache) and f"compiler cache: {name} ({tool}), in {cache}" in done.stdout
    if name == "ccache":
        assert env["CCACHE_BASEDIR"] == str(checkout)


@needs_bash
def test_a_compiler_cache_folder_set_by_hand_is_kept(run, tmp_path):
    checkout, path = fake_checkout(tmp_path, "12.8")
    fake_cache_tool(path, "ccache")
    done = run_bash(env_script(run, RTX_5070), checkout, path, CCACHE_DIR=str(tmp_path / "mine"))
    assert done.returncode == 0 and built_environment(checkout)["CCACHE_DIR"] == str(tmp_path / "mine")


@needs_bash
def test_without_a_compiler_cache_the_script_says_how_to_get_one_and_builds_anyway(run, tmp_path):
    checkout, path = fake_checkout(tmp_path, "12.8")
    done = run_bash(env_script(run, RTX_5070), checkout, path)
    assert done.returncode == 0, done.stderr
    assert "no compiler cache: every run compiles everything again. Install ccache" in done.stdout
    env = built_environment(checkout)
    assert all(env[launcher] == "" for launcher in buildenv.LAUNCHERS)


@needs_bash
def test_a_new_compiler_cache_configures_cmake_again_and_leaves_the_cache_folder_alone(run, tmp_path):
    checkout, path = fake_checkout(tmp_path, "12.8")
    script = env_script(run, RTX_5070)
    assert run_bash(script, checkout, path).returncode == 0  # no launcher
    cache = checkout / "build" / "CMakeCache.txt"
    cache.write_text("CMAKE_CUDA_ARCHITECTURES:STRING=120\n")
    fake_cache_tool(path, "ccache")
    kept = tmp_path / buildenv.CACHE_FOLDER / "ccache" / "kept"
    kept.parent.mkdir(parents=True)
    kept.write_text("an object")
    done = run_bash(script, checkout, path)
    assert done.returncode == 0 and not cache.exists() and "removing build/CMakeCache.txt" in done.stderr
    assert kept.read_text() == "an object"
    cache.write_text("CMAKE_CUDA_ARCHITECTURES:STRING=120\n")
    again = run_bash(script, checkout, path)  # same launcher: the CMake cache stays
    assert again.returncode == 0 and cache.exists()


# ---- -o FILE: the bytes each shell reads ------------------------------------------------------

@pytest.mark.parametrize("shell", buildenv.SHELLS)
def test_output_writes_the_bytes_each_shell_reads(run, tmp_path, shell):
    target = tmp_path / f"build.{SUFFIX[shell]}"
    result = run("env", "--matrix", MATRIX, *KEPLER, "--shell", shell, "-o", str(target))
    assert result.exit_code == 0 and result.stdout == "", result.output
    data = target.read_bytes()
    text = axes_script(run, *KEPLER, shell=shell)
    assert b"\0" not in data  # no UTF-16, which is what Windows PowerShell 5.1's > writes
    if shell == "cmd":  # ASCII, every line ended by CRLF
        assert data.decode("ascii").split("\r\n") == text.split("\n") and b"\n" not in data.replace(b"\r\n", b"")
    elif shell == "powershell":  # UTF-8 with a byte order mark: 5.1 and 7 read it the same
        assert data.startswith(b"\xef\xbb\xbf") and data[3:].decode("utf-8").split("\r\n") == text.split("\n")
    else:
        assert data.decode("utf-8") == text and b"\r" not in data and os.access(target, os.X_OK)


def test_the_powershell_file_keeps_text_beyond_ascii_behind_its_byte_order_mark(run, tmp_path):
    from test_escaping import HOSTILE_NAME, hostile_project

    root = hostile_project(tmp_path / "project")
    text = (root / "matrix.yaml").read_text(encoding="utf-8").replace("family: ", "family: Kepler Ü ", 1)
    (root / "matrix.yaml").write_text(text, encoding="utf-8")
    target = tmp_path / "build.ps1"
    assert run("env", "--root", root, HOSTILE_NAME, "--shell", "powershell", "-o", target).exit_code == 0
    data = target.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and "smx (Kepler Ü " in data[3:].decode("utf-8")


def test_a_cmd_script_that_would_hold_text_beyond_ascii_is_refused_and_nothing_written(run, tmp_path):
    from test_escaping import HOSTILE_NAME, hostile_project

    root = hostile_project(tmp_path / "project")
    text = (root / "matrix.yaml").read_text(encoding="utf-8").replace("family: ", "family: Kepler Ü ", 1)
    (root / "matrix.yaml").write_text(text, encoding="utf-8")
    line = text[:text.index("Kepler Ü")].count("\n") + 1
    for output in (("-o", str(tmp_path / "build.cmd")), ()):
        result = run("env", "--root", root, HOSTILE_NAME, "--shell", "cmd", *output)
        assert result.exit_code == 2 and result.stdout == "" and "Traceback" not in result.output
        # where the text is written in the matrix, not only the script's line
        assert result.stderr.startswith(f"error: {root / 'matrix.yaml'}:{line}:")
        assert ": the cmd script would hold 'Ü' (U+00DC) on its line " in result.stderr
        assert "use --shell powershell" in result.stderr
    assert not (tmp_path / "build.cmd").exists()


def test_output_into_a_missing_folder_is_a_located_error(run, tmp_path):
    result = run("env", "--matrix", MATRIX, *KEPLER, "-o", str(tmp_path / "missing" / "build.sh"))
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.stderr.startswith(f"error: --output: cannot write {tmp_path / 'missing' / 'build.sh'}: ")


def _env_to(run, target, *more: str, shell: str = "bash"):
    return run("env", "--matrix", MATRIX, *KEPLER, "--shell", shell, "-o", str(target), *more)


@needs_posix("symbolic links and FIFOs")
def test_output_never_writes_through_a_link_whether_it_points_somewhere_or_nowhere(run, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "kept").write_text("the user's\n")
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "to-file.sh").symlink_to(outside / "kept")
    (folder / "dangling.sh").symlink_to(outside / "created")
    for name in ("to-file.sh", "dangling.sh"):
        result = _env_to(run, folder / name)
        assert result.exit_code == 2 and "Traceback" not in result.output, result.output
        assert result.stderr.startswith(f"error: --output: a symbolic link is at {folder / name}, "), result.stderr
        result = _env_to(run, folder / name, "--force")  # --force replaces files, never links
        assert result.exit_code == 2, result.output
    assert (outside / "kept").read_text() == "the user's\n" and not (outside / "created").exists()
    assert sorted(os.listdir(folder)) == ["dangling.sh", "to-file.sh"]  # no temporary file left


@needs_posix("FIFOs")
def test_output_onto_a_fifo_is_refused_at_once_instead_of_waiting_for_a_reader(run, tmp_path):
    fifo = tmp_path / "build.sh"
    os.mkfifo(fifo)
    for more in ((), ("--force",)):
        result = _env_to(run, fifo, *more)  # the old open() waited for a reader forever
        assert result.exit_code == 2 and "a FIFO is at" in result.stderr, result.output
    assert os.listdir(tmp_path) == ["build.sh"]


@pytest.mark.parametrize("shell", buildenv.SHELLS)
def test_output_replaces_a_file_only_when_env_wrote_it_or_with_force(run, tmp_path, shell):
    target = tmp_path / f"build.{SUFFIX[shell]}"
    target.write_text("the user's own script\n")
    result = _env_to(run, target, shell=shell)
    assert result.exit_code == 2 and target.read_text() == "the user's own script\n", result.output
    assert result.stderr == (f"error: --output: {target} is already a file, and not one this command wrote\n"
                             "  hint: give --force to replace it, or another path\n")
    assert _env_to(run, target, "--force", shell=shell).exit_code == 0
    first = target.read_bytes()
    assert buildenv.written_by_env(first[:512])
    other = run("env", "--matrix", MATRIX, *KEPLER[:4], "--pytorch", "1.13.1", "--python", "3.9", "--shell", shell,
                "-o", str(target))  # its own file: replaced without --force
    assert other.exit_code == 0, other.output
    assert target.read_bytes() != first and b"1.13.1" in target.read_bytes()
    assert os.listdir(tmp_path) == [target.name]


def test_a_replaced_script_is_swapped_in_whole_by_a_rename(run, tmp_path):
    target = tmp_path / "build.sh"
    assert _env_to(run, target).exit_code == 0
    before = os.stat(target).st_ino
    assert _env_to(run, target).exit_code == 0
    assert os.stat(target).st_ino != before  # a new file renamed over the old, not the old rewritten in place


# ---- hints quote for the shell they are typed in ----------------------------------------------

@pytest.mark.parametrize("shell, quoted", [("bash", "'Tesla K40c'"), ("cmd", '"Tesla K40c"'),
                                           ("powershell", '"Tesla K40c"')])
def test_the_nearest_combination_quotes_a_gpu_name_for_the_scripts_shell(run, shell, quoted):
    result = run("env", "--matrix", MATRIX, "--gpu", "Tesla K40c", "--cuda", "12.4", "--shell", shell)
    assert result.exit_code == 2
    assert f"the nearest combination that works: gen-matrix env --gpu {quoted} --cuda 11.8 " in result.stderr


def test_a_workaround_for_gpu_builds_of_an_old_release_on_windows_is_in_the_gpu_script_alone(run, tmp_path):
    (tmp_path / "matrix.yaml").write_text(
        'pytorch: {version: "1.13.1"}\nnixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}\n'
        'gpu: {python: ["3.11"], cuda: ["12.6"], sm: [sm86], isa: [avx2]}\ncpu: {python: ["3.11"], isa: [avx2]}\n')
    gpu = run("env", "--root", tmp_path, "pytorch-python311-cuda12_6-sm86-avx2", "--shell", "cmd")
    cpu = run("env", "--root", tmp_path, "pytorch-python311-cpu-avx2", "--shell", "cmd")
    assert gpu.exit_code == cpu.exit_code == 0, gpu.output + cpu.output
    assert "rem Workaround no-kineto:" in gpu.stdout and "rem Workaround no-kineto:" not in cpu.stdout
    assert "rem Workaround setuptools-msvccompiler:" in cpu.stdout


# ---- the script's text, part by part ----------------------------------------------------------

def test_a_cmd_script_beyond_ascii_is_refused_naming_the_line_and_why():
    with pytest.raises(GenMatrixError) as raised:
        buildenv.readable("@echo off\nrem for the Kepler \u00dc card\n", "cmd")
    (problem,) = raised.value.problems
    assert (str(problem.where), problem.message) == (
        "--shell", "the cmd script would hold '\u00dc' (U+00DC) on its line 2: rem for the Kepler \u00dc card; cmd reads "
                   "a batch file in the console's code page, which differs between machines")
    assert buildenv.readable("Kepler \u00dc\n", "powershell") == "Kepler \u00dc\n"


def test_a_cmd_script_beyond_ascii_is_refused_at_the_first_text_of_the_matrix_that_holds_the_character():
    texts = [(Location("m.yaml", 3, 5), "Kepler"), (Location("m.yaml", 7, 9), "\u00e9t\u00e9"),
             (Location("m.yaml", 8, 9), "Kepler \u00dc"), (Location("m.yaml", 9, 9), "\u00dc again")]
    for script, where in (("rem \u00dc\n", "m.yaml:8:9"), ("rem \u00e9 \u00dc\n", "m.yaml:7:9"),
                          ("rem ok\nrem \u00dc \u00e9\n", "m.yaml:8:9"), ("rem \u00e0\n", "--shell")):
        with pytest.raises(GenMatrixError) as raised:
            buildenv.readable(script, "cmd", iter(texts))
        (problem,) = raised.value.problems
        assert str(problem.where) == where and "the cmd script would hold" in problem.message
    assert buildenv.readable("rem ok\n", "cmd", iter(texts)) == "rem ok\n"


def test_a_script_that_cannot_be_written_says_what_to_give(tmp_path):
    with pytest.raises(GenMatrixError) as raised:
        buildenv.write_script(tmp_path / "missing" / "build.sh", "echo\n", "bash")
    (problem,) = raised.value.problems
    assert problem.hint == "give a file in a folder that exists and that you may write"


def test_a_variable_name_no_shell_can_set_is_a_bug_named_with_the_name():
    target = buildenv.Target(name="x", kind="cpu", pytorch="2.8.0", python="3.13", release=None, job_memory_gb=4,
                             workarounds=(knowledge.Workaround(name="w", why="", source="", when={}, env={"BAD NAME": "1"}),))
    with pytest.raises(ValueError, match=r"^not an environment variable name: 'BAD NAME'$"):
        buildenv.variables(target, "bash")


def test_an_isa_without_an_msvc_flag_is_said_in_a_windows_script_and_not_in_a_bash_one():
    import dataclasses

    k = knowledge.build(knowledge.builtin())
    no_flag = dataclasses.replace(k.isa["avx2"], msvc="")
    target = buildenv.Target(name="x", kind="cpu", pytorch="2.8.0", python="3.13", release=None, job_memory_gb=4,
                             isa=no_flag)
    said = "avx2 has no MSVC /arch: equivalent; the compiler's defaults apply."
    assert said in buildenv.script(target, "powershell") and said in buildenv.script(target, "cmd")
    armv9 = dataclasses.replace(target, isa=k.isa["armv9"])
    assert not armv9.isa.msvc and "MSVC" not in buildenv.script(armv9, "bash")


@pytest.mark.parametrize("gpu", ["RTX 5070", "RTX 4090"])
def test_a_gpu_alone_takes_the_newest_python_with_stable_wheels_not_an_announced_one(run, gpu):
    # RELEASE.md names Python 3.15 for 2.13 and 2.14, whose wheels stop at 3.14 (knowledge.yaml,
    # default_python): asked for 2.14 and nothing else, the script is for 3.14
    table = knowledge.build(knowledge.builtin())
    release = table.release("2.14")
    assert release.python[1] == "3.15" and release.preferred_python == "3.14"
    script = axes_script(run, "--gpu", gpu, "--pytorch", "2.14")
    assert "for Python 3.14." in script and "python314" in script
    assert "3.15" not in script.replace("Python 3.10 to 3.15", "")
    # asked for, 3.15 is still taken: it is within the release's range
    assert "for Python 3.15." in axes_script(run, "--gpu", gpu, "--pytorch", "2.14", "--python", "3.15")
    # 2.15.0 ships cp315 wheels (PyPI): its newest Python is the one a GPU alone takes
    newest = table.release("2.15")
    assert newest.preferred_python == newest.python[1] == "3.15"
    assert "for Python 3.15." in axes_script(run, "--gpu", gpu)


@pytest.mark.parametrize("shell", ["cmd", "powershell"])  # the Windows scripts
def test_a_driver_nvidia_gives_no_windows_number_for_is_named_by_its_branch_once(run, shell):
    # CUDA 13.1's Windows driver has no number in NVIDIA's table (knowledge.yaml): its branch
    script = axes_script(run, "--gpu", "RTX 5070", "--cuda", "13.1", "--pytorch", "2.12", shell=shell)
    assert "NVIDIA driver R590 or newer on Windows." in script
    assert "or newer or newer" not in script and "(Windows) or newer on" not in script
