"""Check that the torch an interpreter imports is the build it should be, on this host.

`smoke_probe.py` runs in the interpreter under test and reports facts as JSON; `checks`
compares them with the variant and the host, one verdict per point: PASS, FAIL, or SKIP
where this machine cannot tell (no GPU to compute on, a CPU that cannot show kernels beyond
the variant's ISA).

Two CPUs can be in play. The host the variant is checked against is this machine, or the
one a captured --cpuinfo/--cpu-flags describes; torch always dispatches on this machine's.
The `cpu` check is about the first, the `kernels` check about the second, and `notes` says
so where the two differ.

What is checked is a Promise (promise.py): a matrix variant's axes, or a hand build's.
cuobjdump.py adds the `code` check: the GPU code torch's libraries really hold.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import tempfile
from pathlib import Path

from ..errors import GenMatrixError, Location
from ..knowledge import Knowledge
from ..pipeline import load
from . import sandbox
from ..records import dataclass
from .host import Host
from .promise import Promise
from ..model import Variant

PROBE = Path(__file__).with_name("smoke_probe.py")
PROBE_TIMEOUT_S = 600
# The probe prints one line of facts (a few KiB), after whatever torch and its imports warn:
# an interpreter that writes more than this is stopped, not read to its end.
PROBE_OUTPUT_BYTES = 4 * 2**20


PASS, FAIL, SKIP = "PASS", "FAIL", "SKIP"


@dataclass(frozen=True)
class Check:
    """One check of a built torch: its name, whether it passed, and what it saw."""

    name: str
    state: str  # PASS, FAIL or SKIP (this machine cannot tell)
    detail: str

    @property
    def failed(self) -> bool:
        return self.state == FAIL


def _verdict(name: str, ok: bool, detail: str) -> Check:
    return Check(name, PASS if ok else FAIL, detail)


def same_version(found: str, promised: str) -> bool:
    """Whether torch.__version__ is the release promised: the same numbers (a build from a
    checkout says 2.8.0a0+git1234567 for v2.8.0), or the same line where a line is promised."""
    numbers = re.match(r"[0-9]+(\.[0-9]+)*", found)
    found = numbers.group(0) if numbers else found
    return found == promised or found.startswith(promised + ".")


def default_python(root: Path, variant: Variant) -> Path:
    return root / f"python-{variant.name}" / "bin" / "python"


def default_result(root: Path, variant: Variant) -> Path | None:
    """The link `flox build NAME` leaves in the repository, where there is one."""
    link = root / f"result-{variant.name}"
    return link if link.exists() else None


def companion_modules(variant: Variant) -> tuple[str, ...]:
    """The modules to import beside torch: a companion's own (torchvision, torchaudio)."""
    return (variant.package,) if variant.is_companion else ()


def interpreter(python: str) -> Path:
    """The interpreter `--python` names, as a path that still holds from another working
    folder: relative paths are made absolute (symbolic links kept: a virtual environment's
    python is a link whose place decides its site-packages), a bare name is looked up on PATH."""
    if os.sep not in python and "/" not in python and shutil.which(python):
        return Path(shutil.which(python))
    return Path(python).absolute()


def build_hint(name: str) -> str:
    """How to get the interpreter of variant `name` that smoke tests by default."""
    return (f"build the variant and a Python with it first (flox build {name}; nix-build .flox/pkgs/{name}.nix "
            f"-A pythonEnv -o python-{name}), or give --python PATH: an interpreter in which `import torch` "
            "loads the build")


def probe(python: Path, hint: str, companions: tuple[str, ...] = ()) -> dict:
    """The facts smoke_probe.py prints in `python`, which also imports the modules
    `companions`; {"failed": why} when it prints none. `hint` says how to get an
    interpreter, where there is none at `python`."""
    python = Path(python).absolute()  # the probe runs in another folder
    try:
        there = python.exists()
    except OSError as error:  # a name longer than the system takes
        raise GenMatrixError.at(Location(str(python)), f"cannot look for the interpreter: {error.strerror or error}",
                                "give --python the path of a Python interpreter") from None
    if not there:
        raise GenMatrixError.at(Location(str(python)), "no such interpreter", hint)
    # An empty working folder: run from a PyTorch checkout, `import torch` would find the sources.
    with tempfile.TemporaryDirectory(prefix="gen-matrix-smoke-") as folder:
        try:
            result = sandbox.capture([str(python), "-c", PROBE.read_text(encoding="utf-8"), *companions],
                                     PROBE_TIMEOUT_S, PROBE_OUTPUT_BYTES, cwd=folder)
        except OSError as error:
            raise GenMatrixError.at(Location(str(python)), f"cannot run it: {error.strerror or error}",
                                    "give --python the path of a Python interpreter") from None
    if result.dropped:
        return {"failed": result.overflow("the interpreter", PROBE_OUTPUT_BYTES)}
    if result.timed_out:
        return {"failed": f"the probe ran past {PROBE_TIMEOUT_S} s"}
    facts: dict = {}
    for line in reversed(result.stdout.splitlines()):
        try:
            found = json.loads(line)
        except ValueError:
            continue
        if isinstance(found, dict):
            facts = found
            break
    unreadable = _unreadable(facts)
    if unreadable:
        return {"failed": f"the interpreter printed facts that are not smoke_probe.py's: {unreadable}"}
    if "torch" in facts or "import_error" in facts:
        return facts
    return dict(facts, failed=_exit_text(result))


_TEXT, _MAYBE_TEXT = (str,), (str, type(None))
# The type of each fact smoke_probe.py prints: what comes back is checked against it before
# anything reads it, since any program can stand where the interpreter should.
_FACTS = {
    "python": _TEXT, "executable": _TEXT, "machine": _TEXT, "aten_cpu_capability": _MAYBE_TEXT,
    "files": (dict,), "import_error": _TEXT, "torch": _TEXT, "torch_file": _TEXT, "cuda": _MAYBE_TEXT,
    "cuda_available": (bool,), "arch_list": (list,), "arch_source": _TEXT, "cpu_capability": _MAYBE_TEXT,
    "cpu_ceiling": _MAYBE_TEXT, "cpu_ceiling_source": _MAYBE_TEXT, "devices": (list,), "companions": (dict,),
    "compute": (dict,),
}


def _unreadable(facts: dict) -> str | None:
    """What in the probe's facts is not of the shape smoke_probe.py prints; None when all is."""
    for key, types in _FACTS.items():
        if key in facts and not isinstance(facts[key], types):
            return f"'{key}' is {type(facts[key]).__name__}"
    if not all(isinstance(arch, str) for arch in facts.get("arch_list") or ()):
        return "'arch_list' holds more than names"
    if not all(isinstance(device, dict) and isinstance(device.get("name"), str)
               and isinstance(device.get("capability"), str) for device in facts.get("devices") or ()):
        return "'devices' holds more than GPUs with a name and a capability"
    if not all(isinstance(found, (dict, type(None))) for found in (facts.get("files") or {}).values()):
        return "'files' holds more than packages"
    if not all(isinstance(found, dict) for found in (facts.get("companions") or {}).values()):
        return "'companions' holds more than modules"
    for device, result in (facts.get("compute") or {}).items():
        if not isinstance(result, dict) or not isinstance(result.get("device"), str) or not (
                isinstance(result.get("error"), str) or (isinstance(result.get("ok"), bool)
                                                         and type(result.get("size")) is int
                                                         and type(result.get("wrong")) is int)):
            return f"'compute' of {device} is not a computation's result"
    return None


def _exit_text(result: sandbox.Finished) -> str:
    """How the interpreter ended, for a probe that printed no verdict on torch."""
    last = (result.stderr.strip().splitlines() or [""])[-1]
    if result.returncode < 0:
        try:
            name = signal.Signals(-result.returncode).name
        except ValueError:
            name = f"signal {-result.returncode}"
        why = " (an instruction this CPU does not have)" if name == "SIGILL" else ""
        return f"the interpreter was killed by {name}{why}" + (f": {last}" if last else "")
    return f"the interpreter exited with status {result.returncode}: {last or 'no message'}"


def _compute(facts: dict, device: str, label: str, name: str = "compute") -> Check:
    result = facts.get("compute", {}).get(device)
    if result is None:
        return Check(name, FAIL, f"no {label}: nothing computed")
    if result.get("error"):
        return Check(name, FAIL, f"matmul on {result['device']} failed: {result['error']}")
    if not result.get("ok"):
        return Check(name, FAIL, f"{result['size']}x{result['size']} matmul on {result['device']}: "
                                 f"{result['wrong']} wrong values")
    return Check(name, PASS, f"{result['size']}x{result['size']} matmul on {result['device']}"
                             f"{_device_label(facts, device)} gives the exact product")


def _device_label(facts: dict, device: str) -> str:
    if device == "cuda" and facts.get("devices"):
        first = facts["devices"][0]
        return f" ({first['name']}, compute capability {first['capability']})"
    return ""


def dispatch_levels(knowledge: Knowledge, arch: str) -> tuple[str, ...]:
    """ATen's CPU kernel levels on `arch`, lowest first: those the arch's widest ISA may
    report (knowledge.yaml's `capabilities`, whose order is the dispatch order)."""
    rows = [isa for isa in knowledge.isa.values() if isa.arch == arch]
    return max(rows, key=lambda isa: isa.rank).capabilities if rows else ("DEFAULT",)


def _arch(machine: str) -> str:
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(machine.lower(), machine.lower())


def _kernels(promise: Promise, facts: dict) -> Check:
    """Whether the CPU kernels torch dispatches to are ones a build for the variant's ISA may
    hold. torch reports the best kernels it holds that this CPU runs (and ATEN_CPU_CAPABILITY
    allows), so kernels beyond the ISA can only show on a CPU that runs them."""
    isa, reported = promise.isa, facts["cpu_capability"]
    allowed = isa.capabilities
    said = f"torch.backends.cpu.get_cpu_capability() is {reported}"
    if reported not in allowed:
        return Check("kernels", FAIL, f"{said}; a build for {isa.name} may only report {' or '.join(allowed)}: this "
                                      f"torch holds kernels beyond {isa.name}, which crash a CPU without them")
    levels = dispatch_levels(promise.knowledge, _arch(facts.get("machine") or isa.arch))
    ceiling = facts.get("cpu_ceiling")
    if ceiling not in levels:
        return Check("kernels", SKIP, f"{said}, which {isa.name} allows; which kernels this CPU runs cannot be "
                                      f"told ({facts.get('cpu_ceiling_source') or 'not reported'}), so kernels "
                                      f"beyond {isa.name} may be there unseen")
    cap = (facts.get("aten_cpu_capability") or "").upper()
    held = cap in levels and levels.index(cap) < levels.index(ceiling)
    top = cap if held else ceiling
    if top in allowed:
        beyond = next((level for level in levels if level not in allowed), None)
        if held:
            return Check("kernels", SKIP, f"{said}, which {isa.name} allows; ATEN_CPU_CAPABILITY="
                                          f"{facts['aten_cpu_capability']} holds the dispatch at {cap}, so kernels "
                                          f"beyond {isa.name} cannot show: unset it to check them")
        if beyond is None:
            return Check("kernels", PASS, f"{said}, which {isa.name} allows; {isa.name} allows every CPU kernel "
                                          f"torch has for {isa.arch} ({', '.join(allowed)})")
        return Check("kernels", SKIP, f"{said}, which {isa.name} allows; this CPU tops out at {ceiling}, so kernels "
                                      f"beyond {isa.name} cannot show here: run smoke on a CPU with {beyond}")
    return Check("kernels", PASS, f"{said} on a CPU that runs {top} kernels: this torch holds none beyond "
                                  f"{isa.name} ({', '.join(allowed)})")


def _arch_check(promise: Promise, facts: dict) -> Check:
    """The CUDA architectures compiled into torch are exactly the promised SM: real code for
    it (sm_XY), PTX (compute_XY) for it at most."""
    sm = promise.sm
    capability = sm.capability.replace(".", "")
    wanted = f"sm_{capability}"
    archs = facts.get("arch_list") or []
    source = facts.get("arch_source") or "torch.cuda.get_arch_list()"
    if not archs:
        if facts.get("cuda") is None:
            return Check("arch", FAIL, f"{wanted} ({sm.name}) is not in {source}: empty, no CUDA kernels at all")
        return Check("arch", SKIP, f"this torch does not say which CUDA architectures it holds without a GPU "
                                   f"({source} is empty); {wanted} cannot be checked here")
    others = sorted({arch for arch in archs if arch not in (wanted, f"compute_{capability}")})
    listed = " ".join(archs)
    if wanted not in archs:
        return Check("arch", FAIL, f"{wanted} ({sm.name}) is not in {source}: {listed}")
    if others:
        return Check("arch", FAIL, f"{source} is {listed}: beyond {wanted} ({sm.name}) this torch holds "
                                   f"{' '.join(others)}, which the {promise.what} does not promise")
    return Check("arch", PASS, f"{source} is {listed}: exactly {wanted} ({sm.name})")


def _hip(promise: Promise, hip: str | None, said: str = "torch.version.hip is") -> Check:
    """A ROCm build reports its HIP ("6.4.43484-..."), of the promised ROCm release: on import as
    torch.version.hip, or in torch/version.py (`said` names which)."""
    if hip is None:
        return Check("rocm", FAIL, f"this torch has no ROCm ({said} None); {promise.name} is built "
                                   f"with ROCm {promise.rocm}")
    release = ".".join(str(hip).split(".")[:2])
    return _verdict("rocm", release == promise.rocm, f"{said} {hip}; the {promise.what} is ROCm {promise.rocm}")


def _gfx_check(promise: Promise, facts: dict) -> Check:
    """The gfx targets compiled into torch are exactly the promised one (a target's features,
    gfx90a:xnack-, are the same target)."""
    wanted = promise.gfx.name
    archs = facts.get("arch_list") or []
    source = facts.get("arch_source") or "torch.cuda.get_arch_list()"
    if not archs:
        return Check("arch", SKIP, f"this torch does not say which gfx targets it holds without a GPU ({source} is "
                                   f"empty); {wanted} cannot be checked here")
    targets = sorted({arch.split(":")[0] for arch in archs})
    listed = " ".join(archs)
    if targets != [wanted]:
        return Check("arch", FAIL, f"{source} is {listed}; the {promise.what} promises {wanted} "
                                   f"({promise.gfx.family}) alone")
    return Check("arch", PASS, f"{source} is {listed}: exactly {wanted} ({promise.gfx.family})")


def _rocm_gpu(facts: dict) -> Check:
    """The small computation on the AMD GPU (PyTorch's ROCm build names it a cuda device)."""
    if not facts.get("cuda_available"):
        return Check("gpu", SKIP, "no usable AMD GPU or ROCm driver here (torch.cuda.is_available() is False): "
                                  "the GPU computation cannot run; run smoke on a machine with the GPU")
    return _compute(facts, "cuda", "ROCm device", "gpu")


def _gpu(facts: dict, cuda: str | None) -> Check:
    """The small computation on the GPU, where this machine has one."""
    if cuda is None:
        return Check("gpu", SKIP, "this torch has no CUDA: nothing can run on a GPU")
    if not facts.get("cuda_available"):
        return Check("gpu", SKIP, "no usable NVIDIA GPU or driver here (torch.cuda.is_available() is False): "
                                  "the GPU computation cannot run; run smoke on a machine with the GPU")
    return _compute(facts, "cuda", "CUDA device", "gpu")


def _companions(facts: dict, modules: tuple[str, ...]) -> list[Check]:
    found = []
    for module in modules:
        result = (facts.get("companions") or {}).get(module) or {"error": "not imported"}
        if result.get("error"):
            found.append(Check(module, FAIL, f"import {module} with this torch failed: {result['error']}"))
        else:
            found.append(Check(module, PASS, f"{module} {result.get('version')} imports with this torch"
                                             + (" and runs torchvision.ops.nms" if module == "torchvision" else "")))
    return found


# .metadata-rev holds one whole number; anything longer is not wrapper.nix's.
METADATA_BYTES = 64


def metadata(result: Path, revision: int) -> Check:
    """The published wrapper carries the recipe's metadata revision (wrapper.nix writes it)."""
    path = result / ".metadata-rev"  # named as the system writes paths
    hint = "give --result the build of a gen-matrix recipe: the result-NAME link `flox build NAME` leaves"
    found = load.read_text(path, str(path), METADATA_BYTES, hint)
    if found is None:
        return Check("metadata", FAIL, f"{path} is not there: this is not a build of a gen-matrix recipe")
    found = found.strip()
    return _verdict("metadata", found == str(revision), f"{path} is {found}; the recipe's revision is {revision}")


def lacking(promise: Promise, host: Host) -> tuple[str, ...]:
    """The flags of the promised instruction set that the host's CPU does not show."""
    if promise.isa is None or host.cpu is None or host.cpu.arch != promise.isa.arch:
        return ()
    return tuple(flag for flag in promise.isa.cpuinfo if flag not in host.cpu.flags)


def _versions(promise: Promise, python: str, torch: str, cuda: str | None, from_files: bool) -> list[Check]:
    """The python, version and cuda checks, of what the import reports, or the files."""
    torch_said, cuda_said = ("torch/version.py says", "torch/version.py says CUDA") if from_files else (
        "torch", "torch.version.cuda is")
    found = []
    if promise.python:
        line = ".".join(str(python).split(".")[:2])
        found.append(_verdict("python", line == promise.python,
                              f"Python {python}; the {promise.what} is for Python {promise.python}"))
    if promise.pytorch:
        found.append(_verdict("version", same_version(str(torch), promise.pytorch),
                              f"{torch_said} {torch}; the {promise.what} is PyTorch {promise.pytorch}"))
    release = cuda and ".".join(str(cuda).split(".")[:2])
    if promise.with_cuda is False:
        found.append(_verdict("cuda", cuda is None, f"no CUDA, as for a {promise.what} without CUDA" if cuda is None
                              else f"this torch has CUDA {cuda}; {promise.name} is built without CUDA"))
    elif promise.with_cuda and cuda is None:
        built = f"with CUDA {promise.cuda}" if promise.cuda else "with CUDA"
        found.append(Check("cuda", FAIL, f"this torch has no CUDA ({cuda_said} None): a CPU-only build; "
                                         f"{promise.name} is built {built}"))
    elif promise.cuda:
        found.append(_verdict("cuda", release == promise.cuda,
                              f"{cuda_said} {cuda}; the {promise.what} is CUDA {promise.cuda}"))
    elif promise.with_cuda:
        found.append(Check("cuda", PASS, f"{cuda_said} {cuda}; no CUDA release was given to check it against"))
    return found


def _from_files(promise: Promise, facts: dict, missing: tuple[str, ...],
                companions: tuple[str, ...]) -> tuple[Check, ...]:
    """On a builder whose CPU cannot run the build: what its files say, and what cannot be
    checked here."""
    torch = (facts.get("files") or {}).get("torch")
    if torch is None:
        return (Check("torch", FAIL, facts["failed"]),)
    cannot = f"cannot run on this CPU, which lacks {' '.join(missing)}"
    found = [Check("torch", SKIP, f"import torch {cannot} ({facts['failed']}); checked from its files: {torch['file']}")]
    found += _versions(promise, facts.get("python", ""), torch.get("__version__"), torch.get("cuda"), True)
    if promise.rocm:
        found.append(_hip(promise, torch.get("hip"), "torch/version.py says HIP"))
    for name in ("arch",) * bool(promise.sm or promise.gfx) + ("kernels", "compute") + \
            ("gpu",) * bool(promise.with_cuda or promise.rocm):
        found.append(Check(name, SKIP, f"torch {cannot}: run smoke on a CPU with {promise.isa.name}"))
    for module in companions:
        there = (facts.get("files") or {}).get(module)
        found.append(Check(module, SKIP, f"{module} {there.get('__version__')} is there; its import {cannot}")
                     if there else Check(module, FAIL, f"no {module} in this Python"))
    return tuple(found)


def checks(promise: Promise, facts: dict, host: Host, companions: tuple[str, ...] = (),
           builder: bool = False) -> tuple[Check, ...]:
    """PASS, FAIL or SKIP, point by point: the torch in `facts` (and the companion modules
    `companions`) against `promise`, on `host`. On a `builder`, which builds the variant
    without having to run it, a CPU that lacks the promised instruction set skips what
    needs one, instead of failing."""
    missing = lacking(promise, host) if builder else ()
    if "failed" in facts and missing:
        return _from_files(promise, facts, missing, companions)
    if "failed" in facts or "import_error" in facts:
        return (Check("torch", FAIL, facts.get("failed") or f"import torch failed: {facts['import_error']}"),)
    found: list[Check] = [Check("torch", PASS, f"torch {facts['torch']} from {facts['torch_file']}")]
    cuda = facts.get("cuda")
    found += _versions(promise, facts.get("python", ""), facts["torch"], cuda, False)
    if promise.sm:
        found.append(_arch_check(promise, facts))
    if promise.rocm:
        found.append(_hip(promise, facts.get("hip")))
    if promise.gfx:
        found.append(_gfx_check(promise, facts))

    if promise.isa:
        isa = promise.isa
        if host.cpu is None:
            found.append(Check("cpu", FAIL, f"the CPU's flags are unknown on {host.system}; {isa.name} "
                                            f"needs {' '.join(isa.cpuinfo)}"))
        elif missing:
            found.append(Check("cpu", SKIP, f"{isa.name} needs {' '.join(isa.cpuinfo)}; this builder's CPU lacks "
                                            f"{' '.join(missing)}, and need not run what it builds"))
        else:
            absent = [flag for flag in isa.cpuinfo if flag not in host.cpu.flags]
            found.append(_verdict("cpu", isa.arch == host.cpu.arch and not absent,
                                  f"the host CPU shows {' '.join(isa.cpuinfo)} ({isa.name})"
                                  if isa.arch == host.cpu.arch and not absent else
                                  f"{isa.name} needs an {isa.arch} CPU; this one is {host.cpu.arch}"
                                  if isa.arch != host.cpu.arch else
                                  f"{isa.name} needs {' '.join(isa.cpuinfo)}; the host CPU lacks {' '.join(absent)}"))
    if promise.isa and facts.get("cpu_capability"):
        found.append(_kernels(promise, facts))
    if promise.accelerator:
        found.append(_verdict("host", host.apple_silicon, f"{host.system} {host.machine}"
                              + ("" if host.apple_silicon else f": {promise.name} needs Apple Silicon (Darwin arm64)")))

    if promise.accelerator:
        found.append(_compute(facts, promise.accelerator.name, f"{promise.accelerator.name} device"))
    else:
        found.append(_compute(facts, "cpu", "CPU"))
    if promise.with_cuda:
        found.append(_gpu(facts, cuda))
    if promise.rocm:
        found.append(_rocm_gpu(facts))
    found.extend(_companions(facts, companions))
    return tuple(found)


def host_ceiling(knowledge: Knowledge, host: Host) -> str | None:
    """The best CPU kernels a host's CPU runs, by its flags: the top level of the best ISA it
    shows (the ISA `detect` would pick)."""
    from .detect import best_host_isa

    if host.cpu is None:
        return None
    best = best_host_isa(knowledge, host)
    return best.capabilities[-1] if best else "DEFAULT"


def notes(knowledge: Knowledge, facts: dict, host: Host, described_by: str | None) -> tuple[str, ...]:
    """What the reader must know to read the checks: where the CPU a captured description
    gives is not the CPU torch dispatches on."""
    if described_by is None or host.cpu is None or not facts.get("cpu_ceiling"):
        return ()
    described, real = host_ceiling(knowledge, host), facts["cpu_ceiling"]
    if host.cpu.arch == _arch(facts.get("machine") or host.cpu.arch) and described == real:
        return ()
    return (f"the cpu check is about the CPU {described_by} describes ({host.cpu.arch}, up to {described} "
            f"kernels); torch dispatches on this machine's ({_arch(facts.get('machine') or '?')}, up to {real} "
            "kernels), which the kernels check is about",)
