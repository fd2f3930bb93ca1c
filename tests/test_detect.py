"""detect: the right variant of the shipped matrix for each captured host, and why."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from generator.commands import detect, host
from generator.commands.host import Gpu

from conftest import REPO, expansion_of, needs_posix

HOSTS = Path(__file__).parent / "fixtures" / "hosts"
MATRIX = REPO / "matrix.yaml"


def unwrapped(result) -> list[str]:
    """detect's lines, stripped, each wrapped line joined again with its continuations."""
    lines: list[str] = []
    for line in result.stdout.splitlines():
        depth = len(line) - len(line.lstrip())
        if lines and depth > 2 and depth > lines[-1][0]:
            lines[-1] = (lines[-1][0], lines[-1][1] + " " + line.strip())
        else:
            lines.append((depth, line.strip()))
    return [text for _, text in lines]


def flat(result) -> str:
    """detect's output on one line: what it says, however wrapped."""
    return " ".join(result.stdout.split())


def variant_of(result) -> str:
    """The variant detect recommends (its `variant:` line), or that none fits."""
    for line in unwrapped(result):
        if line.startswith("variant: ") or line == "no variant of the matrix fits this host":
            return line.removeprefix("variant: ")
    raise AssertionError(result.stdout)


def host_args(name: str) -> list[str]:
    folder = HOSTS / name
    args = ["--uname", (folder / "uname").read_text().strip()]
    if (folder / "cpuinfo").exists():
        args += ["--cpuinfo", folder / "cpuinfo"]
    if (folder / "cpu-flags").exists():  # a Windows host: no /proc/cpuinfo
        args += ["--cpu-flags", (folder / "cpu-flags").read_text().strip()]
    if (folder / "nvidia-smi.csv").exists():
        args += ["--nvidia-smi-output", folder / "nvidia-smi.csv"]
    else:
        args += ["--no-gpu"]
    return args


# host -> (variant, lines the reasons must hold, warnings)
EXPECTED = {
    "xeon8380-a100": ("pytorch-python313-cuda12_8-sm80-avx512vnni",
                      ["GPU 0: NVIDIA A100-SXM4-80GB: sm80 (Ampere datacenter) by compute capability 8.0",
                       "avx512vnni is the best instruction set", "driver 570.133.20 >= 570.26"], []),
    "xeon8480-h100": ("pytorch-python313-cuda12_8-sm90-avx512bf16",
                      ["NVIDIA H100 80GB HBM3: sm90 (Hopper)", "avx512bf16 is the best"], []),
    "ryzen5950x-rtx3090": ("pytorch-python313-cuda12_8-sm86-avx2",
                           ["NVIDIA GeForce RTX 3090: sm86", "avx2 is the best"], []),
    "i7-2600k-gtx1070": ("pytorch-python313-cuda12_8-sm61-avx",
                         ["NVIDIA GeForce GTX 1070: sm61 (Pascal)", "avx is the best instruction set"], []),
    "i7-4790k-gtx1080-driver470": ("pytorch-python313-cuda12_8-sm61-avx2",
                                   ["sm61 (Pascal) by the GPU name table ('GeForce GTX 1080' is 6.1)"],
                                   ["driver 470.256.02 is below 570.26, the minimum for CUDA 12.8"]),
    "ryzen7800x3d-rtx5070-driver550": ("pytorch-python313-cuda12_8-sm120-avx512bf16",
                                       ["NVIDIA GeForce RTX 5070: sm120 (Blackwell consumer)"],
                                       ["driver 550.144.03 is below 570.26, the minimum for CUDA 12.8: "
                                        "update the NVIDIA driver to 570.26 or newer"]),
    "threadripper5975wx-two-gpus": ("pytorch-python313-cuda12_8-sm89-avx2",
                                    ["2 GPUs: a variant targets one SM; the recommendation serves GPU 0",
                                     "GPU 1 (NVIDIA GeForce RTX 3090) is served by "
                                     "pytorch-python313-cuda12_8-sm86-avx2"], []),
    "grace-gh200": ("pytorch-python313-cuda12_8-sm90-armv9",
                    ["host: Linux aarch64", "NVIDIA GH200 480GB: sm90", "armv9 is the best"], []),
    "graviton4-nogpu": ("pytorch-python313-cpu-armv9", ["armv9 is the best", "--no-gpu"], []),
    "graviton2-nogpu": ("pytorch-python313-cpu-armv8_2", ["armv8_2 is the best"], []),
    "epyc9654-nogpu": ("pytorch-python313-cpu-avx512bf16", ["AMD EPYC 9654 96-Core Processor: avx512bf16"], []),
    "dgx-spark-gb10": ("pytorch-python313-cpu-armv9",
                       ["NVIDIA GB10: sm121 (Blackwell GB10)", "CPU-only until the matrix has a variant for the GPU"],
                       ["the matrix has no variant for sm121 (Blackwell GB10): add sm121 to gpu.sm in matrix.yaml, "
                        "and a CUDA release it supports (>= 12.9) to gpu.cuda"]),
    "macbook-m3": ("pytorch-python313-darwin-mps", ["host: Darwin aarch64", "Apple Silicon"], []),
    # captured on the machine (fixtures/hosts/README.md), where detect gave the same answer
    "xeon-vm-h200": ("pytorch-python313-cuda12_8-sm90-avx512bf16",
                     ["GPU 0: NVIDIA H200: sm90 (Hopper) by compute capability 9.0, driver 580.159.04",
                      "prebuilt: PyTorch 2.15.0's own CUDA 13.2 wheels run on sm90 (9.0 SASS), no build needed: "
                      "`pip install torch==2.15.0 --index-url https://download.pytorch.org/whl/cu132`; NVIDIA driver "
                      "580.65.06 (Linux) or newer; this host's driver 580.159.04 runs them",
                      "CPU: Intel(R) Xeon(R) Processor: avx512bf16 is the best instruction set of these variants it "
                      "runs (it shows avx512f avx512dq avx512vl avx512bw avx512_bf16)",
                      "CUDA 12.8: driver 580.159.04 >= 570.26, its minimum"], []),
    "win11-i9-14900f-rtx5070": ("pytorch-python313-cuda12_8-sm120-avx2",
                                ["host: Windows x86_64", "NVIDIA GeForce RTX 5070: sm120 (Blackwell consumer)",
                                 "avx2 is the best instruction set", "driver 576.88 >= 570.65"], []),
}


def test_every_captured_host_is_tested():
    assert sorted(EXPECTED) == sorted(p.name for p in HOSTS.iterdir() if p.is_dir())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_host_gets_its_variant_with_the_reasons(run, name):
    variant, reasons, warnings = EXPECTED[name]
    result = run("detect", "--matrix", MATRIX, *host_args(name))
    assert result.exit_code == 0, result.output
    lines = unwrapped(result)
    assert variant_of(result) == variant
    assert run("detect", "--matrix", MATRIX, "--name", *host_args(name)).stdout == f"{variant}\n"
    if name.startswith("win"):  # no Nix on Windows: the build script
        assert lines[-1] == (f"build: `gen-matrix env {variant} --shell powershell -o build.ps1`, then run it in a "
                             "PyTorch checkout (or --shell cmd -o build.cmd)")
    else:
        assert lines[-1] == f"build: `flox build {variant}`"
    # the first line is the command to run: a wheel that runs on the GPU, with its uv twin, else the build
    if "nvidia-smi.csv" in {p.name for p in (HOSTS / name).iterdir()}:
        data = json.loads(run("detect", "--matrix", MATRIX, "--json", *host_args(name)).stdout)
        wheel = data["gpus"][0]["wheel"]
        assert lines[:2] == [wheel["command"], wheel["uv_command"]]
        assert lines[1].startswith("uv pip install torch==") and "--torch-backend=cu" in lines[1]
    elif name.startswith("macbook"):  # Apple Silicon runs PyTorch's own wheel, which carries MPS
        pip, uv = lines[:2]
        assert pip.startswith("pip install torch==") and "--index-url" not in pip and uv == f"uv {pip}"
    else:
        assert lines[0] == lines[-1].removeprefix("build: `").split("`")[0]
    for reason in reasons:
        assert reason in flat(result)
    printed = [line for line in result.stderr.splitlines() if line.startswith("warning: ")]
    assert len(printed) == len(warnings)
    for line, warning in zip(printed, warnings):
        assert warning in line


def test_json_names_the_variant_the_gpus_and_the_warnings(run):
    result = run("detect", "--matrix", MATRIX, "--json", *host_args("ryzen7800x3d-rtx5070-driver550"))
    data = json.loads(result.stdout)
    assert data["variant"] == "pytorch-python313-cuda12_8-sm120-avx512bf16"
    assert data["build"] == "flox build pytorch-python313-cuda12_8-sm120-avx512bf16"
    assert data["host"]["machine"] == "x86_64" and "avx512_bf16" in data["host"]["cpu_flags"]
    (gpu,) = data["gpus"]
    assert (gpu["name"], gpu["compute_cap"], gpu["driver"], gpu["sm"]) == \
        ("NVIDIA GeForce RTX 5070", "12.0", "550.144.03", "sm120")
    assert any("below 570.26" in w for w in data["warnings"])


def test_gpu_option_asks_about_a_card_without_having_it(run):
    cpu = HOSTS / "ryzen5950x-rtx3090" / "cpuinfo"
    result = run("detect", "--matrix", MATRIX, "--cpuinfo", cpu, "--gpu", "RTX 5070")
    assert result.exit_code == 0
    assert variant_of(result) == "pytorch-python313-cuda12_8-sm120-avx2"
    assert "sm120 (Blackwell consumer) by the GPU name table ('GeForce RTX 5070' is 12.0)" in flat(result)
    assert "needs NVIDIA driver 570.26 or newer (driver not checked)" in flat(result)
    for query in ("sm90", "9.0", "NVIDIA H100 80GB HBM3"):
        again = run("detect", "--matrix", MATRIX, "--cpuinfo", cpu, "--gpu", query)
        assert variant_of(again) == "pytorch-python313-cuda12_8-sm90-avx2", query


@pytest.mark.parametrize("query, message", [
    ("RTX 9999", "'RTX 9999' is not in the GPU name table"),
    ("Jetson Thor", "'Jetson Thor' could be sm101 or sm110; give its compute capability (e.g. --gpu 11.0)"),
])
def test_gpu_option_that_names_no_known_card_is_invalid_input(run, query, message):
    result = run("detect", "--matrix", MATRIX, "--cpuinfo", HOSTS / "epyc9654-nogpu" / "cpuinfo", "--gpu", query)
    assert result.exit_code == 2
    assert f"error: --gpu: {message}" in result.stderr


@pytest.mark.parametrize("name, sm", [
    ("NVIDIA GeForce RTX 5070", "sm120"), ("NVIDIA GeForce RTX 5070 Ti", "sm120"),
    ("NVIDIA H100 80GB HBM3", "sm90"), ("NVIDIA A100-SXM4-80GB", "sm80"), ("NVIDIA A10G", "sm86"),
    ("NVIDIA A10", "sm86"), ("Tesla V100-SXM2-16GB", "sm70"), ("NVIDIA L40S", "sm89"), ("NVIDIA L4", "sm89"),
    ("NVIDIA GH200 480GB", "sm90"), ("NVIDIA GeForce GTX 1080 Ti", "sm61"), ("Tesla T4", "sm75"),
    ("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "sm120"),
])
def test_gpu_names_as_nvidia_smi_prints_them_map_to_their_sm(name, sm):
    matches = detect.gpu_name_matches(expansion_of(REPO).matrix.knowledge, name)
    assert {found.name for found, _ in matches} == {sm}


def test_the_longest_known_name_wins():
    ((sm, known),) = detect.gpu_name_matches(expansion_of(REPO).matrix.knowledge, "NVIDIA GeForce RTX 5070 Ti")
    assert known == "GeForce RTX 5070 Ti"


def test_avx_only_host_without_gpu_gets_no_variant_and_what_to_add(run):
    result = run("detect", "--matrix", MATRIX, "--no-gpu", "--cpuinfo", HOSTS / "i7-2600k-gtx1070" / "cpuinfo")
    assert result.exit_code == 1
    assert variant_of(result) == "no variant of the matrix fits this host"
    assert ("warning: no CPU-only variant fits: this CPU runs none of avx2, avx512, avx512vnni, avx512bf16 "
            "(it lacks avx2 f16c fma for avx2): add avx to cpu.isa in matrix.yaml") in result.stderr


def write_matrix(root: Path, body: str) -> Path:
    (root / "matrix.yaml").write_text(textwrap.dedent("""\
        pytorch: {version: "2.8.0"}
        nixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}
    """) + textwrap.dedent(body))
    return root / "matrix.yaml"


def test_sm_in_the_matrix_but_dropped_says_why(run, tmp_path):
    matrix = write_matrix(tmp_path, """
        gpu: {python: ["3.13"], cuda: ["12.8"], sm: [sm90, sm121], isa: [armv9]}
    """)
    result = run("detect", "--matrix", matrix, *host_args("dgx-spark-gb10"))
    assert result.exit_code == 1
    assert "sm121 is in gpu.sm, but no combination with it is kept: sm121 (Blackwell GB10) needs CUDA >= 12.9" \
        in result.stderr


def test_newest_cuda_the_driver_runs_and_newest_python_are_chosen(run, tmp_path):
    matrix = write_matrix(tmp_path, """
        gpu: {python: ["3.12", "3.13"], cuda: ["12.6", "12.8", "12.9"], sm: [sm90], isa: [avx2, avx512]}
    """)
    cpu = HOSTS / "xeon8480-h100" / "cpuinfo"
    smi = tmp_path / "smi.csv"
    smi.write_text("NVIDIA H100 80GB HBM3, 9.0, 570.124.06\n")  # runs 12.8, not 12.9
    result = run("detect", "--matrix", matrix, "--cpuinfo", cpu, "--nvidia-smi-output", smi)
    assert variant_of(result) == "pytorch-python313-cuda12_8-sm90-avx512"
    smi.write_text("NVIDIA H100 80GB HBM3, 9.0, 535.54.03\n")  # runs none: the one needing the least
    result = run("detect", "--matrix", matrix, "--cpuinfo", cpu, "--nvidia-smi-output", smi)
    assert variant_of(result) == "pytorch-python313-cuda12_6-sm90-avx512"
    assert "driver 535.54.03 is below 560.28.03, the minimum for CUDA 12.6" in result.stderr


def test_isa_order_comes_from_the_knowledge_rank(run, tmp_path):
    matrix = write_matrix(tmp_path, """
        knowledge:
          isa:
            avx512vnni: {rank: 9}
        cpu: {python: ["3.13"], isa: [avx512, avx512bf16, avx512vnni]}
    """)
    result = run("detect", "--matrix", matrix, *host_args("epyc9654-nogpu"))
    assert variant_of(result) == "pytorch-python313-cpu-avx512vnni"


def test_capability_missing_from_the_knowledge_table_says_to_add_a_row():
    expansion = expansion_of(REPO)
    finding = detect._gpu_finding(expansion, None, 0, Gpu("NVIDIA R200", "13.0", "600.1"))
    assert finding.variant is None
    assert 'add a row with capability: "13.0" under knowledge.sm in matrix.yaml' in finding.problem


def test_intel_mac_gets_no_variant(run, tmp_path):
    result = run("detect", "--matrix", MATRIX, "--uname", "Darwin x86_64")
    assert result.exit_code == 1
    assert "no Darwin variant for x86_64: its Darwin variants need Apple Silicon" in result.stderr
    no_darwin = tmp_path / "matrix.yaml"
    no_darwin.write_text('pytorch: {version: "2.8.0"}\nnixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}\n'
                         'cpu: {python: ["3.13"], isa: [avx2]}\n')
    result = run("detect", "--matrix", no_darwin, "--uname", "Darwin arm64")
    assert result.exit_code == 1
    assert "no Darwin variant for aarch64: its Darwin variants need a darwin: section" in result.stderr


def test_one_gpu_is_not_counted_as_several(run):
    result = run("detect", "--matrix", MATRIX, *host_args("ryzen5950x-rtx3090"))
    assert result.exit_code == 0
    assert not [line for line in result.stdout.splitlines() if "GPUs: a variant targets one SM" in line]


def test_a_capture_file_that_is_missing_or_wrong_is_invalid_input(run, tmp_path):
    result = run("detect", "--matrix", MATRIX, "--cpuinfo", tmp_path / "cpuinfo")
    assert result.exit_code == 2 and f"error: {tmp_path / 'cpuinfo'}: cannot read" in result.stderr
    smi = HOSTS / "i7-4790k-gtx1080-driver470" / "nvidia-smi-compute-cap.txt"
    result = run("detect", "--matrix", MATRIX, "--cpuinfo", HOSTS / "i7-4790k-gtx1080-driver470" / "cpuinfo",
                 "--nvidia-smi-output", smi)
    assert result.exit_code == 2
    assert f"error: {smi}: this nvidia-smi is too old to report compute_cap" in result.stderr
    assert "--query-gpu=name,driver_version" in result.stderr


def test_a_malformed_driver_in_captured_output_is_invalid_input(run, tmp_path):
    smi = tmp_path / "nvidia-smi.csv"
    smi.write_text("NVIDIA H100 80GB HBM3, 9.0, 570.abc\n")
    result = run("detect", "--matrix", MATRIX, "--cpuinfo", HOSTS / "xeon8480-h100" / "cpuinfo",
                 "--nvidia-smi-output", smi)
    assert result.exit_code == 2
    assert f"error: {smi}:1: driver_version '570.abc' is not a driver version such as 570.86.15" in result.stderr
    assert "Traceback" not in result.output


@pytest.mark.parametrize("cpu", ["epyc9654-nogpu", "ryzen5950x-rtx3090"])
def test_a_gpu_built_only_beside_arm_cpus_is_not_advised_on_an_x86_host(run, cpu):
    for query in ("12.1", "sm121", "NVIDIA GB10"):
        result = run("detect", "--matrix", MATRIX, "--cpuinfo", HOSTS / cpu / "cpuinfo", "--gpu", query)
        assert result.exit_code == 0, query
        assert variant_of(result).startswith("pytorch-python313-cpu-"), query
        assert ("sm121 (Blackwell GB10) is found only on aarch64 hosts: it cannot sit beside this x86_64 CPU"
                in result.stderr), query
        assert "use a CPU-only variant" in result.stderr
        assert "add sm121 to gpu.sm" not in result.output
        assert "CPU-only: no variant for the GPU can run beside this x86_64 CPU" in flat(result)


def test_the_same_gpu_on_its_own_arm_host_still_says_what_to_add(run):
    result = run("detect", "--matrix", MATRIX, *host_args("graviton4-nogpu")[:4], "--gpu", "12.1")
    assert "add sm121 to gpu.sm in matrix.yaml" in result.stderr


def test_an_empty_gpu_option_is_refused_not_taken_as_absent(run):
    result = run("detect", "--matrix", MATRIX, "--cpuinfo", HOSTS / "epyc9654-nogpu" / "cpuinfo", "--gpu", "")
    assert result.exit_code == 2
    assert "error: --gpu: the value is empty" in result.stderr
    assert "--no-gpu" in result.stderr
    result = run("detect", "--matrix", MATRIX, "--cpuinfo", HOSTS / "epyc9654-nogpu" / "cpuinfo", "--gpu", "  ")
    assert result.exit_code == 2 and "error: --gpu: the value is empty" in result.stderr


def test_an_sm_or_capability_the_knowledge_table_lacks_is_an_unknown_sm(run):
    for query in ("6.4", "sm64", "64"):
        result = run("detect", "--matrix", MATRIX, "--cpuinfo", HOSTS / "epyc9654-nogpu" / "cpuinfo", "--gpu", query)
        assert result.exit_code == 2
        assert f"error: --gpu: unknown sm '{query}'" in result.stderr


def test_a_bare_number_that_names_a_card_is_still_the_card(run):
    result = run("detect", "--matrix", MATRIX, "--cpuinfo", HOSTS / "ryzen5950x-rtx3090" / "cpuinfo", "--gpu", "5070")
    assert result.exit_code == 0
    assert variant_of(result) == "pytorch-python313-cuda12_8-sm120-avx2"


def test_the_help_names_the_query_detect_runs(run):
    """The help of --nvidia-smi-output spells out the command whose output it takes."""
    unwrapped = "".join(run("detect", "--help").stdout.split())  # click wraps inside the command
    assert "".join(host.GPU_QUERY) in unwrapped


def test_a_windows_host_without_cpuinfo_is_served_from_its_cpu_flags(run):
    # before --cpu-flags, a Windows host got no variant and was asked for a /proc/cpuinfo
    result = run("detect", "--matrix", MATRIX, "--uname", "Windows AMD64", "--gpu", "sm_120",
                 "--cpu-flags", (HOSTS / "win11-i9-14900f-rtx5070" / "cpu-flags").read_text())
    assert result.exit_code == 0, result.output
    assert variant_of(result) == "pytorch-python313-cuda12_8-sm120-avx2"
    assert "needs NVIDIA driver 570.65 or newer on Windows (driver not checked)" in flat(result)


def test_a_windows_host_without_cpu_flags_is_told_how_to_get_them(run):
    result = run("detect", "--matrix", MATRIX, "--uname", "Windows AMD64", "--gpu", "RTX 5070")
    assert result.exit_code == 1
    assert "give --cpu-flags" in result.stderr and "archspec.cpu.host().features" in result.stderr
    assert "--cpuinfo" not in result.stderr


@pytest.mark.parametrize("query", ["sm_120", "SM_120", "sm120", "120", "12.0", "RTX 5070"])
def test_every_spelling_of_an_sm_works_in_detect_list_and_explain(run, query):
    cpu = HOSTS / "ryzen5950x-rtx3090" / "cpuinfo"
    found = run("detect", "--matrix", MATRIX, "--cpuinfo", cpu, "--gpu", query)
    assert variant_of(found) == "pytorch-python313-cuda12_8-sm120-avx2", found.output
    listed = run("list", "--matrix", MATRIX, "--sm", query, "--isa", "avx2")
    assert listed.stdout.splitlines() == ["pytorch-python313-cuda12_8-sm120-avx2"], listed.output
    explained = run("explain", "--matrix", MATRIX, "--sm", query, "--isa", "avx2", "--cuda", "12.8")
    assert explained.stdout.startswith("pytorch-python313-cuda12_8-sm120-avx2: in the matrix"), explained.output


# names as nvidia-smi prints them, from bug reports and cloud instance listings
REAL_NAMES = {
    "NVIDIA GeForce RTX 3050": "sm86", "NVIDIA GeForce GTX 1060 6GB": "sm61", "NVIDIA RTX A4000": "sm86",
    "NVIDIA H800": "sm90", "Tesla K40c": "sm35", "NVIDIA GeForce RTX 3060 Laptop GPU": "sm86",
    "NVIDIA GeForce GTX 1650": "sm75", "NVIDIA GeForce RTX 2080 Ti": "sm75", "NVIDIA RTX A6000": "sm86",
    "NVIDIA RTX 6000 Ada Generation": "sm89", "NVIDIA GeForce RTX 4070 Ti SUPER": "sm89",
    "NVIDIA GeForce RTX 4090": "sm89", "NVIDIA GeForce RTX 5090": "sm120", "NVIDIA GeForce RTX 5060 Ti": "sm120",
    "NVIDIA RTX PRO 6000 Blackwell Server Edition": "sm120", "NVIDIA A100 80GB PCIe": "sm80",
    "NVIDIA H100 PCIe": "sm90", "NVIDIA B200": "sm100", "Tesla P100-PCIE-16GB": "sm60", "Tesla P40": "sm61",
    "Tesla V100S-PCIE-32GB": "sm70", "Quadro RTX 5000": "sm75", "NVIDIA T1000 8GB": "sm75",
    "NVIDIA RTX 4000 SFF Ada Generation": "sm89", "NVIDIA L40S": "sm89", "NVIDIA A10G": "sm86",
    "NVIDIA GeForce GTX 1050 Ti": "sm61", "Quadro P4000": "sm61", "NVIDIA A800 80GB PCIe": "sm80",
    "NVIDIA GeForce RTX 3080 Ti": "sm86", "NVIDIA TITAN Xp": "sm61", "NVIDIA GeForce MX450": "sm75",
}


@pytest.mark.parametrize("name", sorted(REAL_NAMES))
def test_real_nvidia_smi_names_are_known(name):
    matches = detect.gpu_name_matches(expansion_of(REPO).matrix.knowledge, name)
    assert {found.name for found, _ in matches} == {REAL_NAMES[name]}


@needs_posix("a stand-in nvidia-smi written as a #!/bin/sh script")
def test_a_failing_nvidia_smi_warns_with_its_error_and_recommends_nothing(run, monkeypatch, tmp_path):
    said = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."
    fake = tmp_path / "nvidia-smi"
    fake.write_text(f"#!/bin/sh\necho \"{said}\"\nexit 9\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    monkeypatch.setitem(sys.modules, "pynvml", None)  # NVML, where installed, would answer before nvidia-smi
    result = run("detect", "--matrix", MATRIX, "--cpuinfo", HOSTS / "epyc9654-nogpu" / "cpuinfo")
    assert result.exit_code == 1
    assert variant_of(result) == "no variant of the matrix fits this host"
    assert said in result.stderr and ("the GPUs of this host are unknown, so no variant is recommended: repair the "
                                      "NVIDIA driver, or give --gpu NAME, or --no-gpu for a CPU-only variant"
                                      ) in result.stderr


@pytest.mark.parametrize("name, sm", [
    ("NVIDIA GeForce RTX 5070 Laptop GPU", "sm120"), ("GeForce GTX 1080 with Max-Q Design", "sm61"),
    ("NVIDIA GeForce RTX 4090 Laptop GPU", "sm89"), ("Tesla K80", "sm37"), ("Tesla K40c", "sm35"),
])
def test_laptop_max_q_and_kepler_names_resolve_to_their_chips(name, sm):
    matches = detect.gpu_name_matches(expansion_of(REPO).matrix.knowledge, name)
    assert {found.name for found, _ in matches} == {sm}


def test_the_windows_rtx_5070_host_is_told_of_the_prebuilt_wheel(run):
    host = HOSTS / "win11-i9-14900f-rtx5070"
    result = run("detect", "--matrix", MATRIX, "--uname", (host / "uname").read_text().strip(),
                 "--nvidia-smi-output", host / "nvidia-smi.csv", "--cpu-flags", (host / "cpu-flags").read_text())
    assert result.exit_code == 0, result.output
    prebuilt = next(line for line in unwrapped(result) if "prebuilt:" in line)
    assert "wheels run on sm120 (12.0 SASS)" in prebuilt and "--index-url https://download.pytorch.org/whl/cu" in prebuilt
    # the driver nvidia-smi showed is weighed against the one the wheel needs
    assert "this host's driver" in prebuilt
    assert "a smaller binary for one SM" in prebuilt


def test_a_windows_host_without_cpu_flags_still_gets_the_gpu_half(run):
    result = run("detect", "--matrix", MATRIX, "--uname", "Windows AMD64", "--gpu", "RTX 5070")
    assert result.exit_code == 1
    assert "the matrix's variants for sm120: pytorch-python313-cuda12_8-sm120-avx" in flat(result)
    assert "the CPU's flags decide among them" in flat(result) and "give --cpu-flags" in result.stderr


def test_the_kepler_owner_is_told_what_still_builds_for_the_card(run):
    result = run("detect", "--matrix", MATRIX, "--cpuinfo", HOSTS / "ryzen5950x-rtx3090" / "cpuinfo",
                 "--gpu", "Tesla K40c")
    lines = unwrapped(result)
    assert any(line.startswith("prebuilt: none of PyTorch's own wheels") for line in lines)
    # Kepler's last driver branch is R470: CUDA 11.8 runs there by minor-version compatibility alone
    assert ("newest that builds for sm35: PyTorch 2.7.1 with CUDA 11.8 and Python 3.13 (NVIDIA driver R470, sm35's "
            "last driver branch: 450.80.02 on Linux, 452.39 on Windows, or newer within R470, by CUDA 11.x "
            "minor-version compatibility (CUDA 11.8's own 520.61.05 is past R470; that mode runs SASS only)): "
            "`gen-matrix env --sm sm35 --cuda 11.8 --pytorch 2.7.1 --python 3.13` writes the script") in lines
    # no variant for the GPU: the first line is its hand build, not the CPU-only variant
    assert lines[0] == "gen-matrix env --sm sm35 --cuda 11.8 --pytorch 2.7.1 --python 3.13 -o build.sh"
    assert lines[1].startswith("then run it in a PyTorch checkout") and "R470" in lines[1]


def test_the_python_given_is_preferred_or_the_warning_says_why_not(run, tmp_path):
    here = f"{sys.version_info.major}.{sys.version_info.minor}"
    other = "3.13" if here != "3.13" else "3.12"
    cpuinfo = HOSTS / "ryzen5950x-rtx3090" / "cpuinfo"

    def matrix(*pythons: str) -> Path:
        (tmp_path / "matrix.yaml").write_text(textwrap.dedent(f"""\
            pytorch: {{version: "2.8.0"}}
            nixpkgs: {{rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}}
            knowledge:
              python:
                "{here}": {{}}
            cpu: {{python: [{", ".join(f'"{p}"' for p in pythons)}], isa: [avx2]}}
        """))
        return tmp_path / "matrix.yaml"

    result = run("detect", "--matrix", matrix(here, other), "--no-gpu", "--cpuinfo", cpuinfo,
                 "--python", sys.executable)
    assert result.exit_code == 0, result.output
    assert unwrapped(result)[1:3] == [f"variant: pytorch-python{here.replace('.', '')}-cpu-avx2",
                                      f"Python {here}, that of {sys.executable}"]
    result = run("detect", "--matrix", matrix(other), "--no-gpu", "--cpuinfo", cpuinfo, "--python", sys.executable)
    assert result.exit_code == 0
    assert variant_of(result) == f"pytorch-python{other.replace('.', '')}-cpu-avx2"
    assert f"is Python {here}, and the matrix has no variant for it (it has {other})" in result.stderr
    result = run("detect", "--matrix", matrix(other), "--no-gpu", "--python", tmp_path / "no-python")
    assert result.exit_code == 2 and "cannot run it" in result.stderr


def test_json_says_the_hosts_system_and_where_its_gpus_were_read(run):
    data = json.loads(run("detect", "--matrix", MATRIX, "--json", *host_args("ryzen7800x3d-rtx5070-driver550")).stdout)
    assert data["host"]["system"] == "Linux"
    assert data["host"]["gpu_source"]


def test_a_gpu_name_the_table_lacks_says_where_to_add_it(run):
    result = run("detect", "--matrix", MATRIX, "--cpuinfo", HOSTS / "ryzen5950x-rtx3090" / "cpuinfo",
                 "--gpu", "Foo 9000")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[:2] == [
        "error: --gpu: 'Foo 9000' is not in the GPU name table: add it to sm.<smXX>.gpus under knowledge: in "
        "matrix.yaml, or give its compute capability",
        "  hint: give the name nvidia-smi prints, an SM such as sm120 or a capability such as 12.0"]


def stand_in_python(tmp_path: Path, script: str) -> Path:
    python = tmp_path / "python"
    python.write_text(f"#!/bin/sh\n{script}\n")
    python.chmod(0o755)
    return python


def detect_for(run, python: Path):
    return run("detect", "--matrix", MATRIX, "--cpuinfo", HOSTS / "ryzen5950x-rtx3090" / "cpuinfo", "--no-gpu",
               "--python", python)


@needs_posix("a stand-in Python written as a #!/bin/sh script")
def test_a_python_that_cannot_run_or_says_nothing_is_a_located_error(run, tmp_path):
    for python, message in ((stand_in_python(tmp_path, "exit 0"), "it did not say its version"),
                            (tmp_path / "nowhere", "cannot run it: No such file or directory")):
        result = detect_for(run, python)
        assert result.exit_code == 2
        assert result.stderr.splitlines()[:2] == [f"error: {python}: {message}",
                                                  "  hint: give --python the path of a Python interpreter"]


@needs_posix("a stand-in Python written as a #!/bin/sh script")
def test_a_python_that_answers_bytes_no_text_has_is_said_not_a_crash(run, tmp_path):
    python = stand_in_python(tmp_path, 'printf "\\377\\n"')
    result = detect_for(run, python)
    assert result.exit_code == 0
    assert f"{python} is Python \ufffd, and the matrix has no variant for it" in result.output


# ---- what detect says where it cannot recommend, whole ------------------------------------

def test_what_to_add_or_give_where_no_variant_fits_whole():
    expansion = expansion_of(REPO)
    k = expansion.matrix.knowledge
    unknown_cpu = host.Host("Linux", "x86_64", None, (), "")
    assert detect._for_cpu(expansion, unknown_cpu, "cpu", []) == (
        [], "the CPU's flags are unknown on Linux: give --cpuinfo FILE (a Linux /proc/cpuinfo) or --cpu-flags "
            f"\"FLAGS\", e.g. what `{detect.CPU_FLAGS_COMMAND}` prints there")
    graviton = host.gather(cpuinfo=HOSTS / "graviton4-nogpu" / "cpuinfo", gpus=(), gpu_source="")
    x86 = [v for v in expansion.variants if v.kind == "cpu" and v.isa.arch == "x86_64"]
    assert detect._for_cpu(expansion, graviton, "cpu", x86) == (
        [], "the matrix has no cpu variant for aarch64: add armv9 to cpu.isa in matrix.yaml")
    # sm70 builds with the matrix's CUDA 12.8: only the SM is missing
    assert detect._missing_sm(expansion, k.sm["sm70"]) == ("the matrix has no variant for sm70 (Volta): add sm70 "
                                                           "to gpu.sm in matrix.yaml")
    assert detect._foreign_cpu(k.sm["sm87"], unknown_cpu) == (
        "sm87 (Ampere Orin) is a Jetson part, found only on aarch64 hosts: it cannot sit beside this x86_64 CPU, so "
        "no gpu.sm entry can serve it here; use a CPU-only variant on this host")


def test_the_json_of_a_captured_h200_host_names_the_wheel_that_runs_there(run):
    result = run("detect", "--matrix", MATRIX, "--json", *host_args("xeon-vm-h200"))
    (gpu,) = json.loads(result.stdout)["gpus"]
    wheel = gpu["wheel"]
    assert (gpu["sm"], wheel["pytorch"], wheel["cuda"], wheel["how"], wheel["driver"]) == (
        "sm90", "2.15.0", "13.2", "SASS", {"Linux": "580.65.06"})
    assert wheel["command"] == "pip install torch==2.15.0 --index-url https://download.pytorch.org/whl/cu132"
    # the CPU is known, so the matrix's variants for the GPU are not listed for the reader to choose
    assert "the CPU's flags decide among them" not in run("detect", "--matrix", MATRIX, *host_args("xeon-vm-h200")).stdout


def test_how_a_gpu_was_found_or_why_not_whole():
    expansion = expansion_of(REPO)
    k = expansion.matrix.knowledge
    assert detect._resolve(k, Gpu("Quantum 9000", None, None)) == (
        None, "", "'Quantum 9000' is not in the GPU name table: add it to sm.<smXX>.gpus under knowledge: in "
                  "matrix.yaml, or give its compute capability")
    # several SMs for one name: in capability order, the newest's capability as the example
    assert detect._resolve(k, Gpu("GeForce RTX", None, None)) == (
        None, "", "'GeForce RTX' could be sm75 or sm86 or sm89 or sm120; give its compute capability (e.g. --gpu 12.0)")
    # a Jetson's GPU beside an x86 CPU: how it was found is kept beside why no variant serves it
    x86 = host.Host("Linux", "x86_64", None, (), "")
    finding = detect._gpu_finding(expansion, x86, 0, Gpu("Jetson AGX Orin", None, None))
    assert (finding.sm.name, finding.how) == ("sm87", "the GPU name table ('Jetson AGX Orin' is 8.7)")


def test_an_empty_gpu_query_says_what_to_give():
    from generator.errors import GenMatrixError

    with pytest.raises(GenMatrixError) as raised:
        detect.gpu_from_query(expansion_of(REPO).matrix.knowledge, "  ")
    (problem,) = raised.value.problems
    assert (str(problem.where), problem.message) == ("--gpu", "the value is empty")
    assert problem.hint.endswith("; --no-gpu leaves any GPU aside")


def test_the_json_of_a_host_no_variant_fits_holds_no_gpu_and_no_wheel(run):
    intel_mac = json.loads(run("detect", "--matrix", MATRIX, "--json", "--uname", "Darwin x86_64").stdout)
    assert (intel_mac["variant"], intel_mac["gpus"]) == (None, [])
    assert intel_mac["warnings"] == ["the matrix has no Darwin variant for x86_64: its Darwin variants need Apple "
                                     "Silicon"]
    # PyTorch publishes no wheel for Windows on Arm: none is named, though its GPU has wheels elsewhere
    windows_arm = json.loads(run("detect", "--matrix", MATRIX, "--json", "--uname", "Windows ARM64", "--gpu", "sm_120",
                                 "--cpu-flags", "asimd").stdout)
    assert [(gpu["sm"], gpu["wheel"]) for gpu in windows_arm["gpus"]] == [("sm120", None)]
