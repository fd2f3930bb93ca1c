"""What a machine has: its NVIDIA GPUs, CPU flags, architecture and operating system.

The parsers take the text that `nvidia-smi`, `/proc/cpuinfo` and `uname -sm` print, so the
same code reads the live machine and outputs captured on others; `read` gathers the live
facts through functions a caller may replace.
"""

from __future__ import annotations

import csv
import platform
import re
from pathlib import Path
from typing import Callable

from ..errors import GenMatrixError, Location
from ..knowledge import GPU_QUERY
from . import sandbox
from ..records import dataclass

# nvidia-smi's answer is a line per GPU, uname's one line.
_OUTPUT_BYTES = 2**20

# Drivers before compute_cap became a query field (R510) answer the query above with an error.
GPU_QUERY_OLD = ("nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader")
NO_COMPUTE_CAP = 'Field "compute_cap" is not a valid field to query'

_MACHINES = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}


@dataclass(frozen=True)
class Gpu:
    """A GPU of the machine, as its vendor's tool reports it."""

    name: str
    capability: str | None  # "9.0"; None where nvidia-smi does not report it
    driver: str | None
    target: str | None = None  # a GPU that is not NVIDIA's: its target as rocminfo prints it (gfx942)


@dataclass(frozen=True)
class Cpu:
    """The machine's CPU: its architecture, model and flags."""

    arch: str  # x86_64 or aarch64
    model: str
    flags: frozenset[str]


@dataclass(frozen=True)
class Host:
    """What detect reads of the machine: its system, CPU and GPUs."""

    system: str  # Linux, Darwin, Windows
    machine: str  # x86_64 or aarch64
    cpu: Cpu | None  # None where there is no /proc/cpuinfo (Darwin)
    gpus: tuple[Gpu, ...]
    gpu_source: str  # where the GPU list came from, or why it is empty
    gpu_error: str | None = None  # what a failing nvidia-smi said: the GPUs are unknown, not absent

    @property
    def apple_silicon(self) -> bool:
        return self.system == "Darwin" and self.machine == "aarch64"


Runner = Callable[[tuple[str, ...]], tuple[int, str]]  # argv -> (exit status, stdout and stderr)


def machine_name(raw: str) -> str:
    return _MACHINES.get(raw.strip().lower(), raw.strip())


def parse_uname(text: str, where: str = "--uname") -> tuple[str, str]:
    """(system, machine) from what `uname -sm` prints, e.g. `Darwin arm64`."""
    parts = text.split()
    if len(parts) != 2:
        raise GenMatrixError.at(Location(where), f"'{text.strip()}' is not what `uname -sm` prints",
                                "give the system and the machine, e.g. \"Linux x86_64\" or \"Darwin arm64\"")
    return parts[0], machine_name(parts[1])


def parse_cpuinfo(text: str, where: str = "/proc/cpuinfo") -> Cpu:
    """The CPU of a /proc/cpuinfo text, x86_64 (`flags`) or aarch64 (`Features`).

    Only flags every processor shows count: code that needs one would crash on the cores
    that lack it.
    """
    flag_sets: list[frozenset[str]] = []
    arch = ""
    facts: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if not sep:
            continue
        key = key.strip()
        if key in ("flags", "Features"):
            arch = "x86_64" if key == "flags" else "aarch64"
            flag_sets.append(frozenset(value.split()))
        elif key in ("model name", "CPU implementer", "CPU part"):
            facts.setdefault(key, value.strip())
    if not flag_sets:
        raise GenMatrixError.at(Location(where), "no 'flags' or 'Features' line: this is not a /proc/cpuinfo",
                                "give the output of `cat /proc/cpuinfo` from a Linux machine")
    # aarch64 kernels print no model name, only the vendor and part numbers
    model = facts.get("model name") or ", ".join(
        f"{key} {facts[key]}" for key in ("CPU implementer", "CPU part") if key in facts)
    return Cpu(arch, model, frozenset.intersection(*flag_sets))


_DRIVER = re.compile(r"[0-9]+(\.[0-9]+)*")  # 570.133.20
_CAPABILITY = re.compile(r"[0-9]+\.[0-9]+")  # 9.0


def _field(value: str) -> str | None:
    value = value.strip()
    return None if not value or value.startswith("[") else value  # "[N/A]", "[Not Supported]"


def _is_driver(value: str) -> bool:
    # every driver since compute_cap was queryable is R100 or later; a capability major is far below it
    return bool(_DRIVER.fullmatch(value)) and "." in value and int(value.split(".")[0]) >= 100


def _is_capability(value: str) -> bool:
    return bool(_CAPABILITY.fullmatch(value)) and int(value.split(".")[0]) < 100


def _gpu_row(row: list[str], where: Location) -> Gpu:
    """One line of GPU_QUERY (name, compute_cap, driver) or of GPU_QUERY_OLD (name, driver).

    A two-column line is told apart by its second value: a driver (570.86.15) or a compute
    capability (9.0), so output captured with another field order is caught, not misread.
    """
    name, values = row[0].strip(), [_field(value) for value in row[1:]]
    if len(values) == 2:
        capability, driver = values
    elif values[0] is None or _is_driver(values[0]):
        capability, driver = None, values[0]
    elif _is_capability(values[0]):
        capability, driver = values[0], None
    else:
        raise GenMatrixError.at(
            where, f"'{values[0]}' is neither a driver version (570.86.15) nor a compute capability (9.0)",
            f"give the output of `{' '.join(GPU_QUERY)}` as it printed it")
    if capability is not None and not _is_capability(capability):
        raise GenMatrixError.at(where, f"compute_cap '{capability}' is not a compute capability such as 9.0",
                                f"give the output of `{' '.join(GPU_QUERY)}` as it printed it: name, compute_cap, "
                                "driver_version")
    if driver is not None and not _DRIVER.fullmatch(driver):
        raise GenMatrixError.at(where, f"driver_version '{driver}' is not a driver version such as 570.86.15",
                                f"give the output of `{' '.join(GPU_QUERY)}` as it printed it: name, compute_cap, "
                                "driver_version")
    return Gpu(name, capability, driver)


def parse_nvidia_smi(text: str, where: str = "nvidia-smi") -> tuple[Gpu, ...]:
    """The GPUs in the output of GPU_QUERY (name, compute_cap, driver) or GPU_QUERY_OLD."""
    if NO_COMPUTE_CAP in text:
        raise GenMatrixError.at(
            Location(where), "this nvidia-smi is too old to report compute_cap",
            f"give the output of `{' '.join(GPU_QUERY_OLD)}` instead; the GPU name table supplies the capability")
    if "No devices were found" in text:
        return ()
    gpus = []
    for number, row in enumerate(csv.reader(text.splitlines(), skipinitialspace=True), start=1):
        if not row or not "".join(row).strip():
            continue
        if len(row) not in (2, 3):
            raise GenMatrixError.at(
                Location(where, number), f"'{','.join(row)}' is not a line of `{' '.join(GPU_QUERY)}`",
                "give that command's output as it printed it: name, compute_cap, driver_version")
        gpus.append(_gpu_row(row, Location(where, number)))
    return tuple(gpus)


def run_command(argv: tuple[str, ...]) -> tuple[int, str]:
    """Run a command; (127, message) when it is not installed."""
    try:
        result = sandbox.capture(list(argv), 60, _OUTPUT_BYTES)
    except FileNotFoundError:
        return 127, f"{argv[0]} not found"
    except OSError as error:
        return 126, f"{argv[0]}: {error}"
    if result.dropped or result.timed_out:
        return 126, result.overflow(argv[0], _OUTPUT_BYTES) or f"{argv[0]}: ran past 60 s and was stopped"
    return result.returncode, result.stdout + result.stderr


def read_gpus(run: Runner = run_command) -> tuple[tuple[Gpu, ...], str, str | None]:
    """The GPUs nvidia-smi lists, where they came from (or why there are none), and the
    error of an nvidia-smi that is installed but fails: then the GPUs are unknown."""
    status, output = run(GPU_QUERY)
    if status != 0 and NO_COMPUTE_CAP in output:
        status, output = run(GPU_QUERY_OLD)
        source = "nvidia-smi (a driver without compute_cap: capability from the GPU name table)"
    else:
        source = "nvidia-smi"
    if status == 127:  # not installed: no NVIDIA driver, hence no NVIDIA GPU to use
        others, tool = read_other_gpus(run)
        if others:
            return others, f"{tool} (nvidia-smi: {output.strip()})", None
        return (), f"no NVIDIA GPU: {output.strip()}", None
    if status != 0:
        said = " ".join(output.split()) or "nothing"
        return (), "nvidia-smi failed", f"`{' '.join(GPU_QUERY)}` failed with exit status {status}: {said}"
    gpus = parse_nvidia_smi(output)
    return gpus, (source if gpus else "no NVIDIA GPU: nvidia-smi lists none"), None


# The tools of the other vendors, asked where nvidia-smi is not installed.
ROCMINFO = ("rocminfo",)
SYCL_LS = ("sycl-ls",)
_ROCMINFO_FIELD = re.compile(r"^\s*(Name|Marketing Name|Device Type):\s*(.*?)\s*$")
# sycl-ls: "[level_zero:gpu][level_zero:0] Intel(R) Level-Zero, Intel(R) Arc(TM) A770 Graphics 12.55.8 [1.3.29735]"
_SYCL_GPU = re.compile(r"^\[level_zero:gpu\]\S*\s+[^,]*,\s*(.*?)\s+[0-9][0-9.]*\s+\[[^]]*\]\s*$")


def parse_rocminfo(text: str) -> tuple[Gpu, ...]:
    """The GPU agents `rocminfo` lists: each agent's Marketing Name, with its Name (gfx942) as
    the target; CPU agents are left out."""
    gpus, agent = [], {}
    for line in text.splitlines() + ["*******"]:
        if line.startswith("*******"):  # an agent's block ends where the next one's banner starts
            if agent.get("Device Type") == "GPU" and agent.get("Name", "").startswith("gfx"):
                gpus.append(Gpu(agent.get("Marketing Name") or agent["Name"], None, None, agent["Name"]))
            agent = {}
            continue
        field = _ROCMINFO_FIELD.match(line)
        if field:
            agent.setdefault(field.group(1), field.group(2))
    return tuple(gpus)


def parse_sycl_ls(text: str) -> tuple[Gpu, ...]:
    """The Level Zero GPUs `sycl-ls` lists, by name (the name table gives the target)."""
    return tuple(Gpu(found.group(1), None, None) for found in map(_SYCL_GPU.match, text.splitlines()) if found)


def read_other_gpus(run: Runner = run_command) -> tuple[tuple[Gpu, ...], str]:
    """GPUs of AMD (rocminfo) or Intel (sycl-ls), and the tool that listed them; () where neither does."""
    for argv, parse in ((ROCMINFO, parse_rocminfo), (SYCL_LS, parse_sycl_ls)):
        status, output = run(argv)
        gpus = parse(output) if status == 0 else ()
        if gpus:
            return gpus, argv[0]
    return (), ""


def parse_cpu_flags(text: str, machine: str, where: str = "--cpu-flags") -> Cpu:
    """The CPU of a flag list: names as /proc/cpuinfo spells them (avx2 fma f16c avx512_bf16),
    separated by spaces or commas, as archspec reports them on any system."""
    flags = frozenset(flag.lower() for flag in re.split(r"[\s,]+", text) if flag)
    if not flags:
        raise GenMatrixError.at(Location(where), "no CPU flags given",
                                "give the flags as /proc/cpuinfo or archspec names them, e.g. \"avx avx2 fma f16c\"")
    if machine not in ("x86_64", "aarch64"):
        raise GenMatrixError.at(Location(where), f"CPU flags of a {machine} machine mean nothing to gen-matrix",
                                "give --uname for an x86_64 or aarch64 machine")
    return Cpu(machine, "", flags)


def read_cpu(machine: str) -> Cpu | None:
    """This machine's CPU, from archspec: cpuid on Windows and x86 macOS, sysctl on Apple
    Silicon, /proc/cpuinfo on Linux; its feature names are those of /proc/cpuinfo."""
    try:
        import archspec.cpu
    except ImportError:
        return None
    uarch = archspec.cpu.host()
    return Cpu(machine, f"{uarch.vendor} {uarch.name}", frozenset(uarch.features))


def read_nvml() -> tuple[Gpu, ...] | None:
    """The GPUs NVML (the nvidia-ml-py package) lists; None where it is not installed or the
    driver does not answer it, and nvidia-smi is asked instead, to say why."""
    try:
        import pynvml
    except ImportError:
        return None
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError:
        return None
    try:
        driver = _text(pynvml.nvmlSystemGetDriverVersion())
        gpus = []
        for index in range(pynvml.nvmlDeviceGetCount()):
            handle = pynvml.nvmlDeviceGetHandleByIndex(index)
            major, minor = pynvml.nvmlDeviceGetCudaComputeCapability(handle)
            gpus.append(Gpu(_text(pynvml.nvmlDeviceGetName(handle)), f"{major}.{minor}", driver))
        return tuple(gpus)
    except pynvml.NVMLError:
        return None
    finally:
        pynvml.nvmlShutdown()


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value  # bytes before nvidia-ml-py 11.515


def gather(*, uname: str | None = None, cpuinfo: Path | None = None, nvidia_smi_output: Path | None = None,
           cpu_flags: str | None = None, live_cpu: Callable[[str], Cpu | None] = read_cpu,
           gpus: tuple[Gpu, ...] | None = None, gpu_source: str = "",
           run: Runner = run_command, nvml: Callable[[], tuple[Gpu, ...] | None] = read_nvml,
           proc_cpuinfo: Path = Path("/proc/cpuinfo"),
           live_uname: Callable[[], tuple[str, str]] = lambda: (platform.system(), platform.machine())) -> Host:
    """The host, from the live machine except for the parts given.

    uname: what `uname -sm` prints; cpuinfo, nvidia_smi_output: captured outputs;
    cpu_flags: a captured flag list (where there is no /proc/cpuinfo: Windows, macOS);
    gpus: the GPUs to assume (with gpu_source saying why), instead of asking nvidia-smi.
    The CPU of a live machine without /proc/cpuinfo comes from `live_cpu`.
    """
    cpu = parse_cpuinfo(_read(cpuinfo), str(cpuinfo)) if cpuinfo else None
    if uname is not None:
        system, machine = parse_uname(uname)
    elif cpu is not None:
        system, machine = "Linux", cpu.arch  # a captured cpuinfo speaks for a Linux machine
    else:
        system, raw = live_uname()
        machine = machine_name(raw)
    if cpu is None and cpu_flags is not None:
        cpu = parse_cpu_flags(cpu_flags, machine)
    if cpu is None and system == "Linux" and proc_cpuinfo.exists():
        cpu = parse_cpuinfo(proc_cpuinfo.read_text(encoding="utf-8", errors="replace"), str(proc_cpuinfo))
    elif cpu is None and uname is None and machine in ("x86_64", "aarch64"):
        cpu = live_cpu(machine)  # this machine, without /proc/cpuinfo
    if cpu is not None and cpu.arch != machine:
        raise GenMatrixError.at(Location(str(cpuinfo or proc_cpuinfo)),
                                f"this is an {cpu.arch} CPU, but the machine is {system} {machine}",
                                "give the cpuinfo and the uname of the same machine")
    if gpus is not None:
        return Host(system, machine, cpu, gpus, gpu_source)
    if nvidia_smi_output is not None:
        found = parse_nvidia_smi(_read(nvidia_smi_output), str(nvidia_smi_output))
        return Host(system, machine, cpu, found,
                    f"{nvidia_smi_output}" if found else f"no NVIDIA GPU: {nvidia_smi_output} lists none")
    if system == "Darwin":
        return Host(system, machine, cpu, (), "no NVIDIA GPU: Darwin")
    found = nvml()
    if found:
        return Host(system, machine, cpu, found, "NVML (nvidia-ml-py)")
    found, source, error = read_gpus(run)
    return Host(system, machine, cpu, found, source, error)


def _read(path: Path) -> str:
    """A captured output, read as any input is: a regular file, at most 16 MiB (never a FIFO
    that waits for a writer, nor /dev/zero without end)."""
    from ..pipeline import load

    hint = "give the path of a file holding the captured output"
    data = load.read_bytes(Path(path), str(path), hint=hint)
    if data is None:
        raise GenMatrixError.at(Location(str(path)), "cannot read: there is no such file", hint)
    return data.decode("utf-8", errors="replace")
