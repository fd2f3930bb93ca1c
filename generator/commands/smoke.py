"""Check that the torch an interpreter imports is the variant it should be, on this host.

`smoke_probe.py` runs in the interpreter under test and reports facts as JSON; `checks`
compares them with the variant and the host, one pass or fail per point.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..errors import GenMatrixError, Location
from .host import Host
from ..model import Matrix, Variant

PROBE = Path(__file__).with_name("smoke_probe.py")
PROBE_TIMEOUT_S = 600


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


def default_python(root: Path, variant: Variant) -> Path:
    return root / f"python-{variant.name}" / "bin" / "python"


def interpreter(python: str) -> Path:
    """The interpreter `--python` names, as a path that still holds from another working
    folder: relative paths are made absolute (symbolic links kept: a virtual environment's
    python is a link whose place decides its site-packages), a bare name is looked up on PATH."""
    if os.sep not in python and "/" not in python and shutil.which(python):
        return Path(shutil.which(python))
    return Path(python).absolute()


def probe(python: Path, name: str) -> dict:
    """The facts smoke_probe.py prints in `python`; {"failed": why} when it prints none."""
    python = Path(python).absolute()  # the probe runs in another folder
    if not Path(python).exists():
        raise GenMatrixError.at(
            Location(str(python)), "no such interpreter",
            f"build the variant and a Python with it first (flox build {name}; nix-build "
            f".flox/pkgs/{name}.nix -A pythonEnv -o python-{name}), or give --python PATH: an "
            "interpreter in which `import torch` loads the build")
    # An empty working folder: run from a PyTorch checkout, `import torch` would find the sources.
    with tempfile.TemporaryDirectory(prefix="gen-matrix-smoke-") as folder:
        try:
            result = subprocess.run([str(python), "-c", PROBE.read_text(encoding="utf-8")], cwd=folder,
                                    capture_output=True, text=True, timeout=PROBE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return {"failed": f"the probe ran past {PROBE_TIMEOUT_S} s"}
        except OSError as error:
            raise GenMatrixError.at(Location(str(python)), f"cannot run it: {error.strerror or error}",
                                    "give --python the path of a Python interpreter") from None
    for line in reversed(result.stdout.splitlines()):
        try:
            facts = json.loads(line)
        except ValueError:
            continue
        if isinstance(facts, dict):
            return facts
    last = (result.stderr.strip().splitlines() or [f"exit status {result.returncode}"])[-1]
    return {"failed": f"the interpreter exited with status {result.returncode}: {last}"}


def _compute(facts: dict, device: str, label: str) -> Check:
    result = facts.get("compute", {}).get(device)
    if result is None:
        return Check("compute", False, f"no {label}: nothing computed")
    if result.get("error"):
        return Check("compute", False, f"matmul on {result['device']} failed: {result['error']}")
    if not result.get("ok"):
        return Check("compute", False, f"{result['size']}x{result['size']} matmul on {result['device']}: "
                                       f"{result['wrong']} wrong values")
    return Check("compute", True, f"{result['size']}x{result['size']} matmul on {result['device']}{_device_label(facts, device)} "
                                  "gives the exact product")


def _device_label(facts: dict, device: str) -> str:
    if device == "cuda" and facts.get("devices"):
        first = facts["devices"][0]
        return f" ({first['name']}, compute capability {first['capability']})"
    return ""


def _capability(variant: Variant, capability: str) -> Check:
    """Whether the CPU kernels torch dispatches to are ones a build for the variant's ISA may hold."""
    isa = variant.isa
    allowed = isa.capabilities
    if capability in allowed:
        return Check("kernels", True, f"torch.backends.cpu.get_cpu_capability() is {capability}, "
                                      f"which {isa.name} allows ({', '.join(allowed)})")
    return Check("kernels", False, f"torch.backends.cpu.get_cpu_capability() is {capability}; a {isa.name} build "
                                   f"may only report {' or '.join(allowed)}: this torch holds kernels beyond "
                                   f"{isa.name}, which crash a CPU without them")


def checks(matrix: Matrix, variant: Variant, facts: dict, host: Host) -> tuple[Check, ...]:
    """Pass or fail, point by point: the torch in `facts` against `variant`, on `host`."""
    if "failed" in facts or "import_error" in facts:
        return (Check("torch", False, facts.get("failed") or f"import torch failed: {facts['import_error']}"),)
    found: list[Check] = [Check("torch", True, f"torch {facts['torch']} from {facts['torch_file']}")]

    python = ".".join(str(facts.get("python", "")).split(".")[:2])
    found.append(Check("python", python == variant.python.name,
                       f"Python {facts.get('python')}; the variant is for Python {variant.python.name}"))

    version = str(facts["torch"]).split("+")[0]
    found.append(Check("version", version == matrix.pytorch_version,
                       f"torch {facts['torch']}; the variant is PyTorch {matrix.pytorch_version}"))

    cuda = facts.get("cuda")
    if variant.cuda is None:
        found.append(Check("cuda", cuda is None, "no CUDA, as for a variant without CUDA" if cuda is None
                           else f"this torch has CUDA {cuda}; {variant.name} is built without CUDA"))
    elif cuda is None:
        found.append(Check("cuda", False, f"this torch has no CUDA (torch.version.cuda is None): a CPU-only build; "
                                          f"{variant.name} is built with CUDA {variant.cuda.name}"))
    else:
        same = ".".join(str(cuda).split(".")[:2]) == variant.cuda.name
        found.append(Check("cuda", same, f"torch.version.cuda is {cuda}; the variant is CUDA {variant.cuda.name}"))

    if variant.sm:
        wanted = f"sm_{variant.sm.capability.replace('.', '')}"
        archs = facts.get("arch_list") or []
        found.append(Check("arch", wanted in archs,
                           f"{wanted} ({variant.sm.name}) is in torch.cuda.get_arch_list(): {' '.join(archs)}"
                           if wanted in archs else
                           f"{wanted} ({variant.sm.name}) is not in torch.cuda.get_arch_list(): "
                           f"{' '.join(archs) or 'empty, no CUDA kernels at all'}"))

    if variant.isa:
        isa = variant.isa
        if host.cpu is None:
            found.append(Check("cpu", False, f"the CPU's flags are unknown on {host.system}; {isa.name} "
                                             f"needs {' '.join(isa.cpuinfo)}"))
        else:
            lacking = [flag for flag in isa.cpuinfo if flag not in host.cpu.flags]
            uses = f"; torch uses its {facts['cpu_capability']} kernels" if facts.get("cpu_capability") else ""
            found.append(Check("cpu", isa.arch == host.cpu.arch and not lacking,
                               f"the host CPU shows {' '.join(isa.cpuinfo)} ({isa.name}){uses}"
                               if isa.arch == host.cpu.arch and not lacking else
                               f"{isa.name} needs an {isa.arch} CPU; this one is {host.cpu.arch}"
                               if isa.arch != host.cpu.arch else
                               f"{isa.name} needs {' '.join(isa.cpuinfo)}; the host CPU lacks {' '.join(lacking)}"))
    if variant.isa and facts.get("cpu_capability"):
        found.append(_capability(variant, facts["cpu_capability"]))
    if variant.accelerator:
        found.append(Check("host", host.apple_silicon, f"{host.system} {host.machine}"
                           + ("" if host.apple_silicon else f": {variant.name} needs Apple Silicon (Darwin arm64)")))

    if variant.cuda:
        if not facts.get("cuda_available"):
            why = "this torch has no CUDA" if cuda is None else "no usable NVIDIA GPU or driver"
            found.append(Check("compute", False, f"no CUDA device: torch.cuda.is_available() is False ({why})"))
        else:
            found.append(_compute(facts, "cuda", "CUDA device"))
    elif variant.accelerator:
        found.append(_compute(facts, variant.accelerator.name, f"{variant.accelerator.name} device"))
    else:
        found.append(_compute(facts, "cpu", "CPU"))
    return tuple(found)
