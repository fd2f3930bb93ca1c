"""Reading a host: the text nvidia-smi, /proc/cpuinfo and uname print, live or captured."""

from __future__ import annotations

import platform
import sys
from pathlib import Path

import pytest

from generator.commands import host
from generator.errors import GenMatrixError

HOSTS = Path(__file__).parent / "fixtures" / "hosts"


def cpuinfo(name: str) -> host.Cpu:
    return host.parse_cpuinfo((HOSTS / name / "cpuinfo").read_text(), name)


def test_x86_cpuinfo_gives_model_and_flags():
    cpu = cpuinfo("xeon8480-h100")
    assert cpu.arch == "x86_64"
    assert cpu.model == "Intel(R) Xeon(R) Platinum 8480+"
    assert {"avx512f", "avx512_bf16", "avx512_vnni", "amx_tile"} <= cpu.flags


def test_sandy_bridge_has_avx_but_not_avx2_fma_or_f16c():
    flags = cpuinfo("i7-2600k-gtx1070").flags
    assert "avx" in flags and not {"avx2", "fma", "f16c"} & flags


def test_aarch64_cpuinfo_gives_features_and_part():
    cpu = cpuinfo("grace-gh200")
    assert cpu.arch == "aarch64"
    assert {"sve", "sve2", "asimddp"} <= cpu.flags
    assert cpu.model == "CPU implementer 0x41, CPU part 0xd4f"


def test_only_flags_every_processor_shows_count():
    text = "processor\t: 0\nflags\t\t: fpu avx avx2\n\nprocessor\t: 1\nflags\t\t: fpu avx\n"
    assert host.parse_cpuinfo(text).flags == {"fpu", "avx"}


def test_a_file_that_is_not_a_cpuinfo_is_a_located_error():
    with pytest.raises(GenMatrixError) as error:
        host.parse_cpuinfo("NVIDIA H100, 9.0, 570.1\n", "h100.txt")
    (problem,) = error.value.problems
    assert str(problem.where) == "h100.txt" and "not a /proc/cpuinfo" in problem.message


def test_nvidia_smi_rows_with_and_without_compute_cap():
    two = (HOSTS / "threadripper5975wx-two-gpus" / "nvidia-smi.csv").read_text()
    assert host.parse_nvidia_smi(two) == (
        host.Gpu("NVIDIA GeForce RTX 4090", "8.9", "575.64.03"),
        host.Gpu("NVIDIA GeForce RTX 3090", "8.6", "575.64.03"),
    )
    old = (HOSTS / "i7-4790k-gtx1080-driver470" / "nvidia-smi.csv").read_text()
    assert host.parse_nvidia_smi(old) == (host.Gpu("NVIDIA GeForce GTX 1080", None, "470.256.02"),)
    assert host.parse_nvidia_smi("NVIDIA A100-PCIE-40GB, [N/A], 535.54.03\n")[0].capability is None
    assert host.parse_nvidia_smi("No devices were found\n") == ()


def test_the_compute_cap_error_in_a_file_says_which_query_to_capture_instead():
    text = (HOSTS / "i7-4790k-gtx1080-driver470" / "nvidia-smi-compute-cap.txt").read_text()
    with pytest.raises(GenMatrixError) as error:
        host.parse_nvidia_smi(text, "smi.txt")
    (problem,) = error.value.problems
    assert "too old to report compute_cap" in problem.message
    assert "--query-gpu=name,driver_version" in problem.hint


def test_a_row_of_another_query_is_a_located_error():
    with pytest.raises(GenMatrixError) as error:
        host.parse_nvidia_smi("NVIDIA H100, 9.0, 570.1, 80GB\n", "smi.txt")
    assert str(error.value.problems[0].where) == "smi.txt:1"


def test_live_reader_falls_back_to_the_name_query_on_old_drivers():
    folder = HOSTS / "i7-4790k-gtx1080-driver470"
    asked = []

    def run(argv):
        asked.append(argv)
        if argv == host.GPU_QUERY:
            return 6, (folder / "nvidia-smi-compute-cap.txt").read_text()
        return 0, (folder / "nvidia-smi.csv").read_text()

    gpus, source, error = host.read_gpus(run)
    assert error is None
    assert asked == [host.GPU_QUERY, host.GPU_QUERY_OLD]
    assert gpus == (host.Gpu("NVIDIA GeForce GTX 1080", None, "470.256.02"),)
    assert "without compute_cap" in source


def test_live_reader_without_nvidia_smi_finds_no_gpu():
    assert host.read_gpus(lambda argv: (127, "nvidia-smi not found")) == \
        ((), "no NVIDIA GPU: nvidia-smi not found", None)


def test_a_failing_nvidia_smi_is_an_error_quoted_not_an_absent_gpu():
    failed = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"
    gpus, source, error = host.read_gpus(lambda argv: (9, failed))
    assert gpus == () and not source.startswith("no NVIDIA GPU")
    assert "failed with exit status 9: NVIDIA-SMI has failed because it couldn't communicate" in error


def test_cpu_flags_stand_in_for_a_cpuinfo_where_there_is_none():
    machine = host.gather(uname="Windows AMD64", cpu_flags="avx, AVX2 fma f16c", gpus=(), gpu_source="")
    assert (machine.system, machine.machine) == ("Windows", "x86_64")
    assert machine.cpu.flags == {"avx", "avx2", "fma", "f16c"}


def test_a_live_machine_without_proc_cpuinfo_asks_archspec(tmp_path):
    asked = []
    machine = host.gather(gpus=(), gpu_source="", proc_cpuinfo=tmp_path / "none",
                          live_uname=lambda: ("Windows", "AMD64"),
                          live_cpu=lambda arch: asked.append(arch) or host.Cpu(arch, "GenuineIntel raptorlake",
                                                                              frozenset({"avx2"})))
    assert asked == ["x86_64"] and machine.cpu.flags == {"avx2"}


def test_archspec_reads_this_machine():
    machine = host.machine_name(platform.machine())
    cpu = host.read_cpu(machine)
    assert cpu is not None and cpu.arch == machine and cpu.flags


def test_gather_uses_the_captured_parts_and_asks_the_machine_for_the_rest(tmp_path):
    folder = HOSTS / "grace-gh200"
    machine = host.gather(cpuinfo=folder / "cpuinfo", nvidia_smi_output=folder / "nvidia-smi.csv",
                          run=lambda argv: pytest.fail("nvidia-smi must not run"))
    assert (machine.system, machine.machine) == ("Linux", "aarch64")
    assert machine.gpus[0].name == "NVIDIA GH200 480GB"

    darwin = host.gather(uname="Darwin arm64", proc_cpuinfo=tmp_path / "none",
                         run=lambda argv: pytest.fail("Darwin has no nvidia-smi"))
    assert darwin.apple_silicon and darwin.cpu is None and darwin.gpus == ()


def test_cpuinfo_and_uname_of_different_machines_are_an_error():
    with pytest.raises(GenMatrixError) as error:
        host.gather(uname="Linux x86_64", cpuinfo=HOSTS / "grace-gh200" / "cpuinfo", gpus=())
    assert "aarch64 CPU, but the machine is Linux x86_64" in error.value.problems[0].message


@pytest.mark.parametrize("line, words", [
    ("NVIDIA H100, 9.0, 570.abc", "driver_version '570.abc' is not a driver version"),
    ("NVIDIA H100, 9.x, 570.133.20", "compute_cap '9.x' is not a compute capability"),
    ("NVIDIA H100, 570.133.20, 9.0", "compute_cap '570.133.20' is not a compute capability"),
    ("NVIDIA H100, abc", "'abc' is neither a driver version (570.86.15) nor a compute capability (9.0)"),
])
def test_a_malformed_driver_or_capability_is_a_located_error(line, words):
    with pytest.raises(GenMatrixError) as error:
        host.parse_nvidia_smi(f"NVIDIA A10G, 8.6, 570.133.20\n{line}\n", "smi.txt")
    (problem,) = error.value.problems
    assert str(problem.where) == "smi.txt:2"
    assert words in problem.message
    assert "--query-gpu=name,compute_cap,driver_version" in problem.hint


def test_a_two_column_line_is_name_and_driver_or_name_and_capability():
    assert host.parse_nvidia_smi("NVIDIA H100, 9.0\n") == (host.Gpu("NVIDIA H100", "9.0", None),)
    assert host.parse_nvidia_smi("NVIDIA GeForce RTX 5070, 12.0\n") == \
        (host.Gpu("NVIDIA GeForce RTX 5070", "12.0", None),)
    assert host.parse_nvidia_smi("NVIDIA GeForce GTX 1080, 470.256.02\n") == \
        (host.Gpu("NVIDIA GeForce GTX 1080", None, "470.256.02"),)
    assert host.parse_nvidia_smi("NVIDIA GeForce GTX 1080, [N/A]\n") == \
        (host.Gpu("NVIDIA GeForce GTX 1080", None, None),)


def test_nvml_where_installed_lists_the_gpus_before_nvidia_smi(monkeypatch):
    import types

    class NVMLError(Exception):
        pass

    fake = types.SimpleNamespace(
        NVMLError=NVMLError, nvmlInit=lambda: None, nvmlShutdown=lambda: None,
        nvmlSystemGetDriverVersion=lambda: b"576.88", nvmlDeviceGetCount=lambda: 1,
        nvmlDeviceGetHandleByIndex=lambda i: i, nvmlDeviceGetName=lambda h: "NVIDIA GeForce RTX 5070",
        nvmlDeviceGetCudaComputeCapability=lambda h: (12, 0))
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    assert host.read_nvml() == (host.Gpu("NVIDIA GeForce RTX 5070", "12.0", "576.88"),)
    machine = host.gather(uname="Windows AMD64", cpu_flags="avx2",
                          run=lambda argv: pytest.fail("nvidia-smi asked although NVML answered"))
    assert machine.gpu_source == "NVML (nvidia-ml-py)" and machine.gpus[0].capability == "12.0"

    def broken():
        raise NVMLError("Driver Not Loaded")
    monkeypatch.setattr(fake, "nvmlInit", broken)
    assert host.read_nvml() is None  # nvidia-smi is asked, and says why


def test_without_nvidia_ml_py_nvml_gives_way_to_nvidia_smi(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)
    assert host.read_nvml() is None


def test_a_command_that_prints_bytes_that_are_not_utf8_is_read_not_a_traceback():
    # nvidia-smi on a Windows host in another code page, say: what is not UTF-8 is replaced
    printer = "import sys; sys.stdout.buffer.write(b'NVIDIA \\xff\\xfe, 8.6\\n'); sys.stderr.buffer.write(b'\\x81')"
    status, output = host.run_command((sys.executable, "-c", printer))
    assert status == 0 and output == "NVIDIA \ufffd\ufffd, 8.6\n\ufffd"
