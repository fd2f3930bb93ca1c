"""GPUs that are not NVIDIA's: AMD's (ROCm, a gfx target), Intel's (XPU) and Apple's (MPS).

gen-matrix builds CUDA, CPU and Apple variants; for an AMD or Intel GPU it names the target
and PyTorch's own wheels that carry code for it. Pure: the knowledge table's `other_gpus` and
`other_wheels` rows in, text out.
"""

from __future__ import annotations

import re

from ..knowledge import Knowledge, OtherGpu, OtherWheels, version_key

VENDOR = {"rocm": "AMD", "xpu": "Intel", "mps": "Apple"}
BACKEND = {"rocm": "ROCm", "xpu": "XPU", "mps": "MPS (Metal)"}
# Why a matrix builds no variant for a kind of GPU: the recipes build nixpkgs' torch, whose
# switches are these.
NOT_BUILT = {"xpu": "nixpkgs' torch has no XPU switch to build one with (its switches are cudaSupport, "
                    "rocmSupport, vulkanSupport, and MPS on Darwin: NixOS/nixpkgs "
                    "pkgs/development/python-modules/torch/source/default.nix at 00d0ced332d7)"}
# words the vendors' tools print that do not tell chips apart: rocminfo's "AMD Instinct
# MI300X", sycl-ls's "Intel(R) Arc(TM) A770 Graphics"
_NOISE = frozenset({"amd", "intel", "r", "tm", "graphics", "gpu", "accelerator"})


def _tokens(name: str) -> tuple[str, ...]:
    return tuple(t for t in re.split(r"[^a-z0-9]+", name.lower()) if t and t not in _NOISE)


def _within(words: tuple[str, ...], part: tuple[str, ...]) -> bool:
    return bool(part) and any(words[i:i + len(part)] == part for i in range(len(words) - len(part) + 1))


def match(knowledge: Knowledge, name: str) -> OtherGpu | None:
    """The target of a GPU name ("AMD Instinct MI300X", "Arc A770", "Apple M3 Max") or of a
    target itself ("gfx942"); None where the table knows neither. A known name found whole in
    `name` beats `name` found in a known one; the longest known name wins."""
    value = name.strip().lower()
    if value in knowledge.other_gpus:
        return knowledge.other_gpus[value]
    words = _tokens(name)
    scored = []
    for gpu in knowledge.other_gpus.values():
        for known in gpu.gpus:
            known_words = _tokens(known)
            if _within(words, known_words):
                scored.append(((1, len(known_words)), gpu.name))
            elif _within(known_words, words):
                scored.append(((0, len(words)), gpu.name))
    if not scored:
        return None
    best = max(score for score, _ in scored)
    targets = sorted({target for score, target in scored if score == best})
    # "Radeon RX 7900" is in the XT and the XTX, both gfx1100: one target is an answer; two are not
    return knowledge.other_gpus[targets[0]] if len(targets) == 1 else None


def describe(gpu: OtherGpu) -> str:
    return f"{gpu.name} ({VENDOR[gpu.kind]} {gpu.family}, {BACKEND[gpu.kind]})"


def _index(kind: str, wheels: OtherWheels) -> str:
    return f"rocm{wheels.rocm}" if kind == "rocm" else "xpu"


def _releases(knowledge: Knowledge, gpu: OtherGpu, python: str | None) -> list[OtherWheels]:
    """The release lines with wheels for the GPU's kind, newest first (for `python` where given)."""
    rows = [row for row in knowledge.other_wheels.values()
            if (row.rocm if gpu.kind == "rocm" else row.xpu is not None if gpu.kind == "xpu" else True)]
    if python is not None:
        rows = [row for row in rows if row.name in knowledge.pytorch
                and not knowledge.pytorch[row.name].python_support(python)]
    return sorted(rows, key=lambda row: version_key(row.name), reverse=True)


def _newest(knowledge: Knowledge, line: str) -> str:
    release = knowledge.pytorch.get(line)
    return release.newest if release else f"{line}.0"


def _serving(knowledge: Knowledge, gpu: OtherGpu, python: str | None) -> tuple[OtherWheels, bool | None] | None:
    """The newest release line whose wheels for the GPU's kind may run on it, and whether their
    target list is known to name it (None: not read); None where no release line's may."""
    for row in _releases(knowledge, gpu, python):
        serves = row.serves(gpu)
        if serves is not False:
            return row, serves
    return None


def wheel_commands(knowledge: Knowledge, gpu: OtherGpu, python: str | None = None) -> tuple[str, str] | None:
    """pip's command for PyTorch's own wheel that runs on the GPU, and uv's twin; None where the
    knowledge table lists none. Apple's GPUs run the macOS arm64 wheels on PyPI, which carry MPS."""
    if gpu.kind == "mps":
        return mps_commands(knowledge, python)
    serving = _serving(knowledge, gpu, python)
    if serving is None:
        return None
    row = serving[0]
    version, index = _newest(knowledge, row.name), _index(gpu.kind, row)
    return (f"pip install torch=={version} --index-url https://download.pytorch.org/whl/{index}",
            f"uv pip install torch=={version} --torch-backend={index}")


def built_text(gpu: OtherGpu, built: tuple[str, ...] = ()) -> str:
    """What the matrix builds for the GPU: its rocm variants of the target (`built`), or none."""
    if gpu.kind == "rocm":
        return (f"the matrix builds {gpu.name}: {', '.join(built)}" if built else
                f"the matrix has no variant for {gpu.name} (a rocm: section with gfx: [{gpu.name}] builds one)")
    return f"gen-matrix builds no {BACKEND[gpu.kind]} variant"


def wheel_line(knowledge: Knowledge, gpu: OtherGpu, python: str | None = None, built: tuple[str, ...] = ()) -> str:
    """PyTorch's own wheel for the GPU, with its pip command and uv's twin, or why none is known;
    then what the matrix builds for it (`built`: the names of its variants for the target)."""
    if gpu.kind == "mps":
        return mps_line(knowledge)
    serving = _serving(knowledge, gpu, python)
    if serving is None:
        return (f"prebuilt: the knowledge table lists no PyTorch wheels for {BACKEND[gpu.kind]} that run on {gpu.name}; "
                + built_text(gpu, built))
    row, serves = serving
    pip, uv = wheel_commands(knowledge, gpu, python)
    version = _newest(knowledge, row.name)
    what = f"ROCm {row.rocm}" if gpu.kind == "rocm" else "XPU"
    listed = "PYTORCH_ROCM_ARCH" if gpu.kind == "rocm" else "TORCH_XPU_ARCH_LIST"
    read = row.gfx_source if gpu.kind == "rocm" else row.xpu_source
    known = (f"their {listed} lists {gpu.name}: {read}" if serves else
             f"whether their {listed} lists {gpu.name} was not read")
    floor = f"; it needs ROCm {gpu.rocm} or newer on the host" if gpu.rocm else ""
    return (f"prebuilt: PyTorch {version}'s own {what} wheels ({known}): `{pip}` (uv: `{uv}`){floor}; "
            + built_text(gpu, built))


def mps_commands(knowledge: Knowledge, python: str | None = None) -> tuple[str, str] | None:
    """pip's command for the newest PyTorch (for `python`, where given) and uv's twin: its macOS
    arm64 wheels on PyPI carry MPS."""
    lines = [r for r in knowledge.pytorch.values() if python is None or not r.python_support(python)]
    if not lines:
        return None
    version = max(lines, key=lambda release: version_key(release.newest)).newest
    return f"pip install torch=={version}", f"uv pip install torch=={version}"


def mps_line(knowledge: Knowledge) -> str:
    """What MPS needs: the macOS floor of the newest release whose floor was read."""
    floors = sorted((row for row in knowledge.other_wheels.values() if row.macos),
                    key=lambda row: version_key(row.name), reverse=True)
    floor = (f"; PyTorch {floors[0].name}'s MPS needs macOS {floors[0].macos} or later ({floors[0].macos_source})"
             if floors else "")
    return (f"MPS: PyTorch's own macOS arm64 wheels carry it (`pip install torch`); gen-matrix's darwin "
            f"variants build it{floor}")
