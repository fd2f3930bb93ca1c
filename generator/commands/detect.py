"""Which variant of the matrix suits a host, and why.

Pure: a Host and an Expansion in, a Recommendation out. GPUs are matched to an SM by the
compute capability nvidia-smi reports, else by the GPU names of the knowledge table; the
CPU by the `cpuinfo` flags and `rank` of each instruction set.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from ..errors import GenMatrixError, Location
from . import sandbox
from ..records import dataclass
from .host import Gpu, Host
from ..knowledge import (CPU_FLAGS_COMMAND, Isa, Knowledge, OtherGpu, Sm, WheelFit, best_wheel, gpu_name_matches,
                         incompatibility, version_key, wheels_for)
from . import othergpus
from .listing import axis_value
from ..model import Expansion, Variant


@dataclass(frozen=True)
class GpuFinding:
    """One GPU of the machine: its SM, the variant of it, or why there is none."""

    index: int
    gpu: Gpu
    sm: Sm | None
    how: str  # how the SM was found
    variant: Variant | None
    problem: str | None  # why there is no variant for it
    wheel: WheelFit | None = None  # PyTorch's own wheel that runs on it here, where one does
    other: OtherGpu | None = None  # a GPU that is not NVIDIA's: its target
    other_wheel: tuple[str, ...] = ()  # for such a GPU, pip's command of PyTorch's own wheel and uv's twin
    hand: object | None = None  # buildenv.Target of the newest hand build, where the matrix has no variant for it


@dataclass(frozen=True)
class Recommendation:
    """The variant detect recommends for the machine, and why."""

    host: Host
    variant: Variant | None
    gpus: tuple[GpuFinding, ...]
    reasons: tuple[str, ...]
    warnings: tuple[str, ...]
    prebuilt: tuple[str, ...] = ()  # on Apple Silicon: pip's command of PyTorch's own wheel, with MPS, and uv's twin


# ---- GPU name -> SM ---------------------------------------------------------------------

def _resolve(knowledge: Knowledge, gpu: Gpu) -> tuple[Sm | None, str, str | None]:
    """(SM, how it was found, why none was)."""
    if gpu.capability:
        sm = knowledge.sm_for_capability(gpu.capability)
        if sm:
            return sm, f"compute capability {gpu.capability}", None
        return None, "", (f"compute capability {gpu.capability} is not in the knowledge table: add a row "
                          f"with capability: \"{gpu.capability}\" under knowledge.sm in matrix.yaml, "
                          "then name it in gpu.sm")
    matches = gpu_name_matches(knowledge, gpu.name)
    sms = sorted({sm.name for sm, _ in matches}, key=lambda n: version_key(knowledge.sm[n].capability))
    if len(sms) == 1:
        sm, known = matches[0]
        return sm, f"the GPU name table ('{known}' is {sm.capability})", None
    if sms:
        return None, "", (f"'{gpu.name}' could be {' or '.join(sms)}; give its compute capability "
                          f"(e.g. --gpu {knowledge.sm[sms[-1]].capability})")
    return None, "", (f"'{gpu.name}' is not in the GPU name table: add it to sm.<smXX>.gpus under "
                      "knowledge: in matrix.yaml, or give its compute capability")


# "sm_120", "sm120", "120" or "12.0": what names an SM rather than a card
_SM_FORM = re.compile(r"(sm[_ ]?)?[0-9]+(\.[0-9]+)?", re.IGNORECASE)


def gpu_from_query(knowledge: Knowledge, text: str) -> Gpu:
    """The GPU `--gpu TEXT` asks about: a name ("RTX 5070"), an SM ("sm_120", "sm120", "120") or a capability ("12.0")."""
    value = text.strip()
    if not value:
        raise GenMatrixError.at(Location("--gpu"), "the value is empty",
                                "give the name nvidia-smi prints, an SM such as sm120 or a capability such as 12.0; "
                                "--no-gpu leaves any GPU aside")
    name = knowledge.lookup("sm", value)
    if name:
        return Gpu(value, knowledge.sm[name].capability, None)
    gpu = Gpu(value, None, None)
    _, _, problem = _resolve(knowledge, gpu)
    other = othergpus.match(knowledge, value) if problem else None
    if other is not None:  # an AMD, Intel or Apple GPU: no SM to find; recommend matches its name again
        return gpu
    # a bare number may still be a card ("5070"); sm62 or 6.2 can only mean an SM
    if _SM_FORM.fullmatch(value) and (problem or not value.isdigit()):
        axis_value(knowledge, "sm", value, "--gpu")  # refuses it as an unknown SM, as list and explain do
    if problem:
        raise GenMatrixError.at(Location("--gpu"), problem,
                                "give the name nvidia-smi prints, an SM such as sm120 or a capability such as 12.0")
    return gpu




# ---- choosing among variants ------------------------------------------------------------

def _runs(isa: Isa, host: Host) -> bool:
    return host.cpu is not None and isa.arch == host.cpu.arch and set(isa.cpuinfo) <= host.cpu.flags


def _min_driver(variant: Variant, system: str) -> str:
    return variant.cuda.driver_for(system)


def _driver_ok(variant: Variant, driver: str | None, system: str = "Linux") -> bool:
    needed = _min_driver(variant, system)
    # a Windows minimum NVIDIA does not number (CUDA 13) cannot be compared
    return driver is None or not needed[0].isdigit() or version_key(driver) >= version_key(needed)


def _best(candidates: list[Variant], driver: str | None = None, system: str = "Linux") -> Variant:
    def key(v: Variant):
        cuda = ()
        if v.cuda is not None:
            ok = _driver_ok(v, driver, system)
            # with a driver too old for all of them, the CUDA that needs the least is closest
            cuda = (ok, version_key(v.cuda.name) if ok else tuple(-n for n in version_key(v.cuda.driver)))
        return ((v.isa.rank if v.isa else 0), cuda, version_key(v.python.name), v.name)
    return max(candidates, key=key)


def best_host_isa(knowledge: Knowledge, host: Host) -> Isa | None:
    runnable = [isa for isa in knowledge.isa.values() if _runs(isa, host)]
    return max(runnable, key=lambda isa: (isa.rank, isa.name)) if runnable else None


def _axis(expansion: Expansion, kind: str, axis: str) -> tuple[str, ...]:
    for section in expansion.matrix.sections:
        if section.kind == kind:
            return dict(section.axes).get(axis, ())
    return ()


def _for_cpu(expansion: Expansion, host: Host, kind: str, variants: list[Variant]) -> tuple[list[Variant], str | None]:
    """The variants whose ISA this host runs, or what to add to the matrix."""
    k = expansion.matrix.knowledge
    if host.cpu is None:
        source = "--cpuinfo FILE (a Linux /proc/cpuinfo) or " if host.system == "Linux" else ""
        return [], (f"the CPU's flags are unknown on {host.system}: give {source}--cpu-flags \"FLAGS\", "
                    f"e.g. what `{CPU_FLAGS_COMMAND}` prints there")
    here = [v for v in variants if v.isa.arch == host.cpu.arch]
    runnable = [v for v in here if _runs(v.isa, host)]
    if runnable:
        return runnable, None
    best = best_host_isa(k, host)
    if best is None:
        return [], f"this {host.cpu.arch} CPU runs none of the instruction sets gen-matrix knows"
    if not here:
        return [], (f"the matrix has no {kind} variant for {host.cpu.arch}: add {best.name} to {kind}.isa "
                    "in matrix.yaml")
    isas = sorted({v.isa.name for v in here}, key=lambda n: k.isa[n].rank)
    return [], (f"this CPU runs none of {', '.join(isas)} (it lacks "
                f"{' '.join(sorted(set(k.isa[isas[0]].cpuinfo) - host.cpu.flags))} for {isas[0]}): "
                f"add {best.name} to {kind}.isa in matrix.yaml")


def _missing_sm(expansion: Expansion, sm: Sm) -> str:
    """What to add to matrix.yaml so that `sm` gets a variant."""
    k = expansion.matrix.knowledge
    if sm.name in _axis(expansion, "gpu", "sm"):
        dropped = next((d for d in expansion.dropped if d.kind == "gpu" and dict(d.combination).get("sm") == sm.name), None)
        why = f": {dropped.reason}" if dropped else ""
        return f"{sm.name} is in gpu.sm, but no combination with it is kept{why}"
    text = f"the matrix has no variant for {sm.label}: add {sm.name} to gpu.sm in matrix.yaml"
    cudas = [c for c in _axis(expansion, "gpu", "cuda") if c in k.cuda]
    if not any(incompatibility(sm=sm, cuda=k.cuda[c]) is None for c in cudas):
        newest = f", <= {sm.max_cuda}" if sm.max_cuda else ""
        text += f", and a CUDA release it supports (>= {sm.min_cuda}{newest}) to gpu.cuda"
    return text


def _foreign_cpu(sm: Sm, host: Host) -> str:
    """Why no matrix can serve `sm` on this host: the GPU is built only beside other CPUs."""
    part = "a Jetson part, found only on" if sm.jetson else "found only on"
    return (f"{sm.label} is {part} {' or '.join(sm.hosts)} hosts: it cannot sit beside this {host.machine} CPU, "
            "so no gpu.sm entry can serve it here; use a CPU-only variant on this host")


def _other_finding(knowledge: Knowledge, host: Host, index: int, gpu: Gpu) -> GpuFinding | None:
    """The finding of a GPU that is not NVIDIA's; None where the GPU is, or is unknown."""
    other = (knowledge.other_gpus.get(gpu.target) if gpu.target else
             othergpus.match(knowledge, gpu.name) if gpu.capability is None and _resolve(knowledge, gpu)[2] else None)
    if other is None:
        return None
    how = "its target as the vendor's tool reports it" if gpu.target else "the GPU name table"
    if other.kind == "mps":
        problem = (None if host.system == "Darwin" else
                   f"{gpu.name} is an Apple GPU, which runs MPS under macOS only: give --uname \"Darwin arm64\"")
    elif other.kind == "rocm":
        problem = (f"{gpu.name} is {othergpus.describe(other)}: the matrix has no variant for it that runs here; "
                   "PyTorch's own ROCm wheels serve it (see the prebuilt line)")
    else:
        problem = (f"{gpu.name} is {othergpus.describe(other)}: gen-matrix builds CUDA, CPU, ROCm and Apple variants, "
                   f"not {othergpus.BACKEND[other.kind]} ones; PyTorch's own {othergpus.BACKEND[other.kind]} wheels "
                   "serve it (see the prebuilt line)")
    return GpuFinding(index, gpu, None, how, None, problem, other=other)


def _gpu_finding(expansion: Expansion, host: Host, index: int, gpu: Gpu) -> GpuFinding:
    other = _other_finding(expansion.matrix.knowledge, host, index, gpu)
    if other is not None and other.other.kind == "rocm":  # the matrix's rocm variants of its gfx target
        served = _rocm_served(expansion, other.other.name)
        runnable, _ = _for_cpu(expansion, host, "rocm", served) if served and host.system == "Linux" else ([], None)
        return replace(other, variant=_best(runnable), problem=None) if runnable else other
    if other is not None:
        return other
    sm, how, problem = _resolve(expansion.matrix.knowledge, gpu)
    if sm is None:
        return GpuFinding(index, gpu, None, how, None, problem)
    if host is not None and host.machine not in sm.hosts:
        return GpuFinding(index, gpu, sm, how, None, _foreign_cpu(sm, host))
    served = [v for v in expansion.variants
              if v.package == "pytorch" and v.kind == "gpu" and v.sm.name == sm.name]
    if not served:
        return GpuFinding(index, gpu, sm, how, None, _missing_sm(expansion, sm))
    runnable, problem = _for_cpu(expansion, host, "gpu", served)
    if not runnable:
        return GpuFinding(index, gpu, sm, how, None, problem)
    return GpuFinding(index, gpu, sm, how, _best(runnable, gpu.driver, host.system), None)


def _rocm_served(expansion: Expansion, gfx: str) -> list[Variant]:
    return [v for v in expansion.variants if v.package == "pytorch" and v.kind == "rocm" and v.gfx.name == gfx]


def _gpu_advice(expansion: Expansion, host: Host, finding: GpuFinding, python: str | None) -> list[str]:
    """For a GPU whose SM is known: the matrix's variants for it where the CPU is unknown,
    PyTorch's own wheel that already runs on it, and where the matrix has none for it, the
    newest PyTorch and CUDA a hand build can still take."""
    from .handbuild import newest_line
    from .wheels import prebuilt_line, wheel_system

    sm = finding.sm
    if finding.other is not None:
        built = tuple(sorted(v.name for v in _rocm_served(expansion, finding.other.name)))
        return [f"GPU {finding.index}: " + othergpus.wheel_line(expansion.matrix.knowledge, finding.other, python, built)]
    if sm is None or host.machine not in sm.hosts:
        return []
    k = expansion.matrix.knowledge
    advice = []
    served = sorted(v.name for v in expansion.variants
                    if v.package == "pytorch" and v.kind == "gpu" and v.sm.name == sm.name and v.isa.arch == host.machine)
    if host.cpu is None and served:
        advice.append(f"GPU {finding.index}: the matrix's variants for {sm.name}: {', '.join(served)}; the CPU's "
                      "flags decide among them")
    system = wheel_system(host.system, host.machine)
    if system is not None:
        advice.insert(0, prebuilt_line(k, sm, system, python, finding.gpu.driver))
    if not served:
        line = newest_line(k, sm, python, shell=_shell(host))
        if line:
            advice.append(line)
    return advice


def _shell(host: Host) -> str:
    return "powershell" if host.system == "Windows" else "bash"


def _with_wheel(knowledge: Knowledge, host: Host, finding: GpuFinding, python: str | None) -> GpuFinding:
    """The finding with PyTorch's own wheel that runs on its GPU here, and where the matrix has
    no variant for it, the newest hand build."""
    from .handbuild import newest
    from .wheels import wheel_system

    if finding.other is not None:  # an Apple GPU off macOS (its problem) runs no wheel here
        if finding.other.kind == "mps" and finding.problem is not None:
            return finding
        return replace(finding, other_wheel=othergpus.wheel_commands(knowledge, finding.other, python) or ())
    if finding.sm is None or host.machine not in finding.sm.hosts:
        return finding
    if finding.variant is None:
        finding = replace(finding, hand=newest(knowledge, finding.sm, python, shell=_shell(host)))
    system = wheel_system(host.system, host.machine)
    if system is None:
        return finding
    fit = best_wheel(wheels_for(knowledge, finding.sm, system, python), finding.gpu.driver, host.system)
    return replace(finding, wheel=fit)


def _describe_gpu(finding: GpuFinding) -> str:
    gpu = finding.gpu
    text = f"GPU {finding.index}: {gpu.name}"
    if finding.other:
        text += f": {othergpus.describe(finding.other)} by {finding.how}"
    if finding.sm:
        text += f": {finding.sm.name} ({finding.sm.family}) by {finding.how}"
    return text + (f", driver {gpu.driver}" if gpu.driver else "")


def _describe_cpu(host: Host, variant: Variant) -> str:
    isa = variant.isa
    return (f"CPU: {host.cpu.model or host.cpu.arch}: {isa.name} is the best instruction set of these variants "
            f"it runs (it shows {' '.join(isa.cpuinfo)})")


def recommend(host: Host, expansion: Expansion, python: str | None = None) -> Recommendation:
    """The best variant of the matrix for `host`, with the reasons and what to look out for;
    `python`, the user's Python version where known, narrows the wheels and builds suggested."""
    reasons = [f"host: {host.system} {host.machine}"]
    warnings: list[str] = []
    pytorch = [v for v in expansion.variants if v.package == "pytorch"]

    if host.system == "Darwin":
        darwin = [v for v in pytorch if v.kind == "darwin" and v.accelerator.arch == host.machine]
        if not darwin:
            need = "Apple Silicon" if host.machine != "aarch64" else "a darwin: section"
            warnings.append(f"the matrix has no Darwin variant for {host.machine}: its Darwin variants need {need}")
            return Recommendation(host, None, (), tuple(reasons), tuple(warnings))
        variant = _best(darwin)
        reasons.append(f"Apple Silicon: {variant.accelerator.description or variant.accelerator.name}")
        k = expansion.matrix.knowledge
        for index, gpu in enumerate(host.gpus):
            other = k.other_gpus.get(gpu.target) if gpu.target else othergpus.match(k, gpu.name)
            if other is not None and other.kind == "mps":
                reasons.append(f"GPU {index}: {gpu.name}: {othergpus.describe(other)}; {othergpus.mps_line(k)}")
        return Recommendation(host, variant, (), tuple(reasons), tuple(warnings),
                              othergpus.mps_commands(k, python) or ())

    if host.gpu_error:  # a broken driver is not the absence of a GPU
        warnings.append(f"{host.gpu_error}; the GPUs of this host are unknown, so no variant is recommended: "
                        "repair the NVIDIA driver, or give --gpu NAME, or --no-gpu for a CPU-only variant")
        return Recommendation(host, None, (), tuple(reasons), tuple(warnings))
    findings = tuple(_with_wheel(expansion.matrix.knowledge, host, _gpu_finding(expansion, host, i, gpu), python)
                     for i, gpu in enumerate(host.gpus))
    if findings:
        reasons.append(f"GPUs from {host.gpu_source}")
    for finding in findings:
        reasons.append(_describe_gpu(finding))
        if finding.problem:
            warnings.append(f"GPU {finding.index} ({finding.gpu.name}): {finding.problem}")
        reasons += _gpu_advice(expansion, host, finding, python)
    served = [f for f in findings if f.variant]
    if len(findings) > 1:
        reasons.append(f"{len(findings)} GPUs: a variant targets one SM; the recommendation serves "
                       f"GPU {served[0].index if served else 0}")
        for finding in served[1:]:
            if finding.variant != served[0].variant:
                reasons.append(f"GPU {finding.index} ({finding.gpu.name}) is served by {finding.variant.name}")
    if served:
        finding = served[0]
        variant = finding.variant
        reasons.append(_describe_cpu(host, variant))
        if variant.kind == "rocm":
            reasons.append(f"ROCm {variant.rocm.name}: the build brings its ROCm libraries; the host needs the amdgpu "
                           "kernel driver (/dev/kfd)")
            return Recommendation(host, variant, findings, tuple(reasons), tuple(warnings))
        driver, cuda = finding.gpu.driver, variant.cuda
        needed = _min_driver(variant, host.system)
        on = " on Windows" if host.system == "Windows" else ""
        if finding.sm.jetson:  # L4T has no desktop driver: JetPack brings the one its CUDA release needs
            reasons.append(f"CUDA {cuda.name}: needs a JetPack whose CUDA is {cuda.name} (a Jetson runs no desktop driver)")
        elif driver is None:
            reasons.append(f"CUDA {cuda.name}: needs NVIDIA driver {needed} or newer{on} (driver not checked)")
        elif _driver_ok(variant, driver, host.system):
            reasons.append(f"CUDA {cuda.name}: driver {driver} >= {needed}, its minimum{on}")
        else:
            warnings.append(f"driver {driver} is below {needed}, the minimum for CUDA {cuda.name}{on}: "
                            f"update the NVIDIA driver to {needed} or newer before running {variant.name}")
        return Recommendation(host, variant, findings, tuple(reasons), tuple(warnings))

    if not findings:
        reasons.append(host.gpu_source or "no NVIDIA GPU")
    cpu_only = [v for v in pytorch if v.kind == "cpu"]
    runnable, problem = _for_cpu(expansion, host, "cpu", cpu_only)
    if not runnable:
        warnings.append(f"no CPU-only variant fits: {problem}")
        return Recommendation(host, None, findings, tuple(reasons), tuple(warnings))
    variant = _best(runnable)
    reasons.append(_describe_cpu(host, variant))
    if findings and all(f.sm and host.machine not in f.sm.hosts for f in findings):
        reasons.append(f"CPU-only: no variant for the GPU can run beside this {host.machine} CPU")
    elif findings and all(f.other for f in findings):
        reasons.append("CPU-only: gen-matrix builds no variant for these GPUs; PyTorch's own wheels above serve them")
    elif findings:
        reasons.append("CPU-only until the matrix has a variant for the GPU")
    return Recommendation(host, variant, findings, tuple(reasons), tuple(warnings))


# -o, not >: Windows PowerShell 5.1's > writes UTF-16, which cmd cannot run
SCRIPT = {"powershell": "build.ps1", "bash": "build.sh"}


def build_command(recommendation: Recommendation, here: bool = True) -> str | None:
    """How to build the recommended variant on its host: in the matrix's repository (`here`),
    Flox; elsewhere (the shipped example read for want of a matrix) and on Windows, where there
    is no Nix, the build script `gen-matrix env` writes."""
    variant = recommendation.variant
    if variant is None:
        return None
    shell = _shell(recommendation.host)
    if here and shell == "bash":
        return f"flox build {variant.name}"
    return f"gen-matrix env {variant.name} --shell {shell} -o {SCRIPT[shell]}"


def build_note(recommendation: Recommendation, command: str) -> str:
    """The build command, quoted, with what comes after it."""
    if command.startswith("gen-matrix env"):
        also = " (or --shell cmd -o build.cmd)" if recommendation.host.system == "Windows" else ""
        return f"`{command}`, then run it in a PyTorch checkout{also}"
    return f"`{command}`"


def _served_first(recommendation: Recommendation) -> list[GpuFinding]:
    """The GPUs, the one the recommendation serves first."""
    return sorted(recommendation.gpus, key=lambda f: f.variant != recommendation.variant)


def answer(recommendation: Recommendation, here: bool = True) -> tuple[str, ...]:
    """What detect says first, the command that gets this machine its PyTorch: PyTorch's own
    wheel where one runs on its GPU (pip, then uv's twin; NVIDIA's first, then AMD's and Intel's,
    then Apple Silicon's with MPS), else the matrix's build for the GPU, else the newest hand
    build for it, else the matrix's CPU-only build. Empty where nothing fits."""
    from .handbuild import env_command

    wheel = next((f.wheel for f in _served_first(recommendation) if f.wheel), None)
    if wheel is not None:
        return (wheel.command,) + ((wheel.uv_command,) if wheel.uv_command else ())
    other = next((f.other_wheel for f in recommendation.gpus if f.other_wheel), recommendation.prebuilt)
    if other:
        return other
    variant = recommendation.variant
    hand = next((f for f in _served_first(recommendation) if f.hand is not None), None)
    if (variant is None or variant.kind == "cpu") and hand is not None:
        shell = _shell(recommendation.host)
        target = hand.hand
        return (env_command(target, shell, SCRIPT[shell]),
                f"  then run it in a PyTorch checkout: PyTorch {target.pytorch} for {hand.sm.name} with CUDA "
                f"{target.cuda}; running it needs {target.driver}")
    command = build_command(recommendation, here)
    return (command,) if command else ()


def as_json(recommendation: Recommendation, here: bool = True) -> dict:
    from .wheels import as_json as wheel_json

    host = recommendation.host
    variant = recommendation.variant
    return {
        "answer": [line for line in answer(recommendation, here) if not line.startswith(" ")],
        "variant": variant.name if variant else None,
        "build": build_command(recommendation, here),
        "host": {
            "system": host.system,
            "machine": host.machine,
            "cpu": host.cpu.model if host.cpu else None,
            "cpu_flags": sorted(host.cpu.flags) if host.cpu else [],
            "gpu_source": host.gpu_source,
        },
        "gpus": [{
            "index": f.index, "name": f.gpu.name, "compute_cap": f.gpu.capability, "driver": f.gpu.driver,
            "sm": f.sm.name if f.sm else None, "found_by": f.how or None,
            "variant": f.variant.name if f.variant else None, "problem": f.problem,
            "wheel": wheel_json(f.wheel) if f.wheel else None,
            "target": f.other.name if f.other else None, "backend": f.other.kind if f.other else "cuda",
        } for f in recommendation.gpus],
        "reasons": list(recommendation.reasons),
        "warnings": list(recommendation.warnings),
    }


def for_python(expansion: Expansion, interpreter: Path) -> tuple[Expansion, str, str | None, str | None]:
    """The expansion narrowed to the variants for the Python `interpreter` runs, with its
    version and the reason to show; where the matrix has none for it, the expansion whole and why."""
    try:
        done = sandbox.capture([str(interpreter), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"], 60, 2**16)
    except OSError as error:
        raise GenMatrixError.at(Location(str(interpreter)), f"cannot run it: {error.strerror or error}",
                                "give --python the path of a Python interpreter") from None
    version = done.stdout.strip()
    if done.returncode != 0 or done.timed_out or done.dropped or not version:
        raise GenMatrixError.at(Location(str(interpreter)), "it did not say its version",
                                "give --python the path of a Python interpreter")
    kept = tuple(v for v in expansion.variants if v.python.name == version)
    if not kept:
        have = sorted({v.python.name for v in expansion.variants}, key=version_key)
        return expansion, version, None, (f"{interpreter} is Python {version}, and the matrix has no variant for it (it has "
                                 f"{', '.join(have)}): the recommendation is for another Python; add \"{version}\" to "
                                 "python in matrix.yaml for one of its own")
    return replace(expansion, variants=kept), version, f"Python {version}, that of {interpreter}", None
