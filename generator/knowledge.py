"""The knowledge table: what GPUs, CUDA toolkits, Pythons and CPUs can work together.

The facts are data (knowledge.yaml beside this file, plus rows a matrix adds under
`knowledge:`). `incompatibility` applies them to a matrix's combinations; `findings`, which
builds on it, to a hand build's (a CUDA release nixpkgs does not package, a PyTorch release
other than the matrix's).
"""

from __future__ import annotations

import functools
import re
from dataclasses import field, fields
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

from .pipeline import load
from .errors import GenMatrixError, Problem
from .records import dataclass

KNOWLEDGE_FILE = Path(__file__).with_name("knowledge.yaml")

# How a host tells what it has, for `detect` and the docs' chooser's guide.
GPU_QUERY = ("nvidia-smi", "--query-gpu=name,compute_cap,driver_version", "--format=csv,noheader")
# what prints a CPU's flags on any system, named as /proc/cpuinfo names them
CPU_FLAGS_COMMAND = "python -c \"import archspec.cpu; print(*sorted(archspec.cpu.host().features))\""


@functools.lru_cache(maxsize=4096)  # a run asks about the same few versions thousands of times
def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


@dataclass(frozen=True)
class OlderCudnn:
    """A cuDNN release older than the current one that still supports an SM, and the CUDA
    releases it is built for."""

    version: str
    cuda: str  # a range, "<=11.7"
    source: str


@dataclass(frozen=True)
class Sm:
    """An NVIDIA GPU architecture (compute capability), the CUDA releases that build for it, and its GPUs."""

    name: str
    capability: str
    family: str
    min_cuda: str
    hosts: tuple[str, ...]
    max_cuda: str | None = None
    jetson: bool = False
    cudnn: bool = True
    gpus: tuple[str, ...] = ()  # the cards people know it by
    names: tuple[str, ...] = ()  # more cards, as nvidia-smi names them
    pytorch: str | None = None  # the PyTorch releases whose source builds for it (">=2.7"); None: any
    upstream_wheels: bool = True  # False: PyTorch's own wheels do not run on it (a Jetson before Thor)
    older_cudnn: OlderCudnn | None = None  # where cudnn is False: an older cuDNN that still supports it
    driver_branch: int | None = None  # the last NVIDIA driver branch that runs it (470: Kepler)

    @property
    def label(self) -> str:
        return f"{self.name} ({self.family})"

    def pytorch_problem(self, version: str) -> str | None:
        """Why PyTorch `version` ("2.6", "2.6.0") cannot be built for this SM; None when it can."""
        if self.pytorch is None or in_range(version, self.pytorch):
            return None
        return f"{self.label} needs PyTorch {self.pytorch}; PyTorch {version}'s source does not build for it"

    @property
    def first_pytorch(self) -> str | None:
        """The first PyTorch release line that builds for it, where the table narrows it."""
        if self.pytorch is None:
            return None
        return next((clause.strip()[2:] for clause in self.pytorch.split(",") if clause.strip().startswith(">=")), None)


@dataclass(frozen=True)
class Cuda:
    """A CUDA release: the drivers it needs, the architectures it builds for, the compilers nvcc takes."""

    name: str
    driver: str  # minimum Linux driver
    capabilities: tuple[str, ...]
    windows_driver: str = ""  # minimum Windows driver; empty where NVIDIA's table gives none
    gcc: int | None = None  # the newest GCC major nvcc accepts; None where unknown
    msvc: tuple[int, ...] = ()  # (oldest, first refused) _MSC_VER nvcc accepts; () where unknown

    def driver_for(self, system: str) -> str:
        """The minimum driver on `system` (Linux or Windows), in NVIDIA's numbering for it."""
        if system == "Windows":
            # CUDA 13 no longer ships a Windows driver, and NVIDIA's table gives no number
            return self.windows_driver or f"R{self.driver.split('.')[0]}"  # the driver branch
        return self.driver

    @property
    def token(self) -> str:
        return self.name.replace(".", "_")

    @property
    def attr(self) -> str:
        return f"cudaPackages_{self.token}"


@dataclass(frozen=True)
class Toolkit:
    """A CUDA release nixpkgs no longer packages: a hand build may still use it."""

    name: str
    driver: str  # minimum Linux driver
    windows_driver: str
    gcc: int | None = None
    msvc: tuple[int, ...] = ()

    def driver_for(self, system: str) -> str:
        return self.windows_driver if system == "Windows" else self.driver


@dataclass(frozen=True)
class MinorCompat:
    """CUDA minor-version compatibility of a CUDA major release ("12"): the oldest driver that
    runs a binary of any of its minor releases, for SASS only (no PTX JIT in this mode)."""

    name: str
    driver: str
    windows_driver: str
    source: str

    def driver_for(self, system: str) -> str:
        return self.windows_driver if system == "Windows" else self.driver


@dataclass(frozen=True)
class Rocm:
    """A ROCm release nixpkgs packages as rocmPackages: what a rocm variant builds with."""

    name: str  # "6.4": the major.minor of rocmPackages.clr.version
    targets: tuple[str, ...]  # the gfx targets nixpkgs' clr lists (passthru.gpuTargets)
    hosts: tuple[str, ...]  # CPU architectures nixpkgs builds it for
    source: str

    @property
    def token(self) -> str:
        return self.name.replace(".", "_")


@dataclass(frozen=True)
class Python:
    """A Python release of the knowledge table."""

    name: str

    @property
    def token(self) -> str:
        return self.name.replace(".", "")

    @property
    def attr(self) -> str:
        return f"python{self.token}Packages"


@dataclass(frozen=True)
class Isa:
    """A CPU instruction set: its architecture, compiler flags, the cpuinfo flags that show it."""

    name: str
    arch: str
    flags: tuple[str, ...]
    cpuinfo: tuple[str, ...]
    msvc: str = ""
    disable: tuple[str, ...] = ()
    cpus: tuple[str, ...] = ()
    rank: int = 0  # among the ISAs of one arch, higher uses more of the CPU
    # what torch.backends.cpu.get_cpu_capability() may report in a build for it
    capabilities: tuple[str, ...] = ("DEFAULT",)
    choose_when: str = ""  # when a person should pick it


@dataclass(frozen=True)
class Accelerator:
    """An Apple Silicon GPU target: its architecture, its BLAS, what its build exports."""

    name: str
    arch: str
    blas: str
    description: str = ""
    environment: Mapping[str, str] = field(default_factory=dict)  # variables for PyTorch's setup.py


@dataclass(frozen=True)
class Wheel:
    """A set of PyTorch's own binaries of a release: one CUDA release, system and index."""

    cuda: str
    system: str  # x86_64-linux, aarch64-linux or x86_64-windows
    index: str  # pip or conda
    arch: str  # as TORCH_CUDA_ARCH_LIST writes it: "5.0;8.6;9.0+PTX"
    source: str
    inferred: str = ""  # where the list was not read from the release's own build script: from what
    gaps: tuple["LibraryGap", ...] = ()  # libraries of the wheel that lack code for entries of `arch`


@dataclass(frozen=True)
class LibraryGap:
    """A library of a wheel that carries no code for some entries of the wheel's arch list,
    as a capture of its binaries shows: those GPUs run the wheel, but not that library's kernels."""

    library: str  # libtorch_cuda_linalg.so
    lacks: str  # the arch list entries it has no code for, as TORCH_CUDA_ARCH_LIST writes them: "7.5"
    holds: str  # what the library runs, in a user's words
    source: str

    def lacks_capability(self, capability: str) -> bool:
        return capability in (entry.strip() for entry in self.lacks.split(";"))


@dataclass(frozen=True)
class Release:
    """A PyTorch release line ("2.10"), as RELEASE.md's compatibility matrix gives it."""

    name: str
    python: tuple[str, ...]  # (oldest, newest) Python it supports
    cuda: tuple[str, ...]  # CUDA releases it is built and tested with
    experimental_cuda: tuple[str, ...] = ()
    wheels: tuple[Wheel, ...] = ()  # PyTorch's own binaries
    latest: str = ""  # the newest patch release, "2.7.1"
    source_cuda: str | None = None  # the CUDA releases its source builds with (a range); None: any
    default_python: str = ""  # the Python a hand build takes unasked, where not the newest

    @property
    def preferred_python(self) -> str:
        """The Python a build takes when none is asked: the newest with stable wheels."""
        return self.default_python or self.python[1]

    @property
    def newest(self) -> str:
        """The version a hand build checks out: the newest patch, else the .0 release."""
        return self.latest or f"{self.name}.0"

    def cuda_support(self, cuda: str) -> str | None:
        """A note where PyTorch's own wheels of this release are not built for `cuda`; None where
        they are. A source build with it may still work: see cuda_source_problem."""
        if cuda in self.cuda or cuda in self.experimental_cuda:
            return None
        listed = ", ".join(self.cuda) + (f" (experimental: {', '.join(self.experimental_cuda)})"
                                         if self.experimental_cuda else "")
        return (f"PyTorch {self.name}'s own wheels are built for CUDA {listed}, not {cuda}: "
                "a build from source with it is untested upstream")

    def cuda_source_problem(self, cuda: str) -> str | None:
        """Why PyTorch of this release cannot be built from source with `cuda`; None where it can."""
        if self.source_cuda is None or in_range(cuda, self.source_cuda):
            return None
        return f"PyTorch {self.name}'s source does not build with CUDA {cuda} (it takes CUDA {self.source_cuda})"

    def python_support(self, python: str) -> str | None:
        oldest, newest = self.python
        if version_key(oldest) <= version_key(python) <= version_key(newest):
            return None
        return f"PyTorch {self.name} supports Python {oldest} to {newest}; {python} is outside"


@dataclass(frozen=True)
class Fix:
    """A build fix: a Nix file under nix/fixes/ and the variants it applies to.

    `when` maps a condition to what a variant must have: pytorch and cuda take a version
    range (">=13.0,<13.1"), source true or false (whether pytorch.source is set), and isa,
    system, kind, pin and compiler_cache (build.compiler_cache) a list of values. A variant
    without CUDA fails any cuda range."""

    name: str
    why: str
    when: Mapping[str, object]
    file: str = ""  # the file's name without .nix; the row's name where empty
    enabled: bool = True
    # "derivation": it changes a package's build; "evaluation": only which packages nixpkgs
    # lets evaluate (config.allowBroken), which no derivation reads
    changes: str = "derivation"

    @property
    def stem(self) -> str:
        return self.file or self.name

    def applies(self, facts: Mapping[str, object]) -> bool:
        """Whether the fix applies to a variant with these facts: pytorch, cuda (or None),
        source (bool), isa (or None), system, kind, pin and compiler_cache (or None)."""
        if not self.enabled:
            return False
        for condition, wanted in self.when.items():
            have = facts.get(condition)
            if condition in ("pytorch", "cuda"):
                if have is None or not in_range(str(have), str(wanted)):
                    return False
            elif condition == "source":
                if bool(have) != wanted:
                    return False
            elif have not in tuple(wanted):
                return False
        return True


@dataclass(frozen=True)
class Workaround:
    """What a hand build (`gen-matrix env`) of an old PyTorch source needs on today's tools.

    `when` holds version ranges (pytorch, cuda) and lists (system: where the script runs, kind);
    `pip` pins requirements, `env` sets variables, and `cmake` (a range) makes the script apply
    `env` only where the CMake it finds is in that range."""

    name: str
    why: str
    source: str
    when: Mapping[str, object]
    pip: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cmake: str | None = None  # ">=4": the CMake major versions it is for

    @property
    def cmake_major(self) -> int | None:
        return int(self.cmake.strip()[2:]) if self.cmake else None

    def applies(self, facts: Mapping[str, object]) -> bool:
        """Whether it applies to a build with these facts: pytorch, cuda (or None), system, kind."""
        for condition, wanted in self.when.items():
            have = facts.get(condition)
            if condition in ("pytorch", "cuda"):
                if have is None or not in_range(str(have), str(wanted)):
                    return False
            elif have not in tuple(wanted):
                return False
        return True


@dataclass(frozen=True)
class CompileJob:
    """The memory one compile job of a build may take: `cuda` (it compiles CUDA) or `cpu`."""

    name: str
    memory_gb: int
    source: str


@dataclass(frozen=True)
class NixpkgsOff:
    """A PyTorch feature nixpkgs itself turns off in a torch build (USE_<name>=0), and when."""

    name: str
    when: str  # one of NIXPKGS_OFF_WHEN
    switches: tuple[str, ...]  # the variables nixpkgs' torch then sets to 0
    why: str
    source: str


# jetson_build: config.cudaCapabilities holds a Jetson part (nixpkgs' cudaFlags.isJetsonBuild)
NIXPKGS_OFF_WHEN = ("jetson_build",)


@dataclass(frozen=True)
class BuildCost:
    """What one build of a kind (gpu, cpu, darwin, companion, wrapper) takes on its runner."""

    name: str
    minutes: int  # one build on a runner of these cores, nothing cached
    cores: int
    memory_gb: int
    disk_gb: int
    source: str
    # the percentage of the minutes that build.compiler_cache holds for a later build of the same
    # compiler cache group (another GPU), where one of the group built before on the same cache
    cached_percent: int = 0
    cached_source: str = ""


@dataclass(frozen=True)
class PinFacts:
    """What a nixpkgs revision (`name`, its 40-hex commit) holds, each fact with its source."""

    name: str
    torch: str  # python3Packages.torch.version
    sources: Mapping[str, str]  # fact -> where it was read, or what it was inferred from
    torchvision: str = ""
    torchaudio: str = ""
    cuda: Mapping[str, str] = field(default_factory=dict)  # "12.8" (cudaPackages_12_8) -> "12.8.1"
    cuda_aliases: Mapping[str, str] = field(default_factory=dict)  # cudaPackages_13 -> "13.0"
    capabilities: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # as read at the pin, per set
    python: tuple[str, ...] = ()
    python_default: str = ""
    rocm: str = ""  # rocmPackages' version at the pin ("6.4.3"); "" where not known
    # built-in fixes whose change the pin's nixpkgs already holds: not applied on this pin,
    # where they would change nothing
    carries: tuple[str, ...] = ()
    inferred: tuple[str, ...] = ()

    @property
    def short(self) -> str:
        return self.name[:7]

    def cuda_sets(self) -> str:
        return ", ".join(sorted(self.cuda, key=version_key)) or "none"

    def default_capabilities(self, cuda: str, table: Mapping[str, Cuda]) -> tuple[str, ...]:
        """The default config.cudaCapabilities of the pin's set for CUDA release `cuda`: as read
        at the pin, else the `cuda:` table's for that release; () where neither knows."""
        if cuda in self.capabilities:
            return self.capabilities[cuda]
        return table[cuda].capabilities if cuda in table else ()


@dataclass(frozen=True)
class OtherGpu:
    """A GPU target that is not NVIDIA's: an AMD gfx target (ROCm), an Intel one (XPU), Apple's MPS."""

    name: str  # gfx942, dg2, mps
    kind: str  # rocm, xpu or mps
    family: str
    gpus: tuple[str, ...]
    source: str
    rocm: str = ""  # the first ROCm release that supports it on Linux, where read

    @property
    def label(self) -> str:
        return f"{self.name} ({self.family})"

    @property
    def first_rocm(self) -> str:
        """Its first ROCm release as a matrix names releases (major.minor); "" where not read."""
        return ".".join(self.rocm.split(".")[:2])


@dataclass(frozen=True)
class OtherWheels:
    """PyTorch's own wheels of a release line for GPUs that are not NVIDIA's."""

    name: str  # the release line
    rocm: str = ""  # the ROCm release of its ROCm wheels
    gfx: str = ""  # their PYTORCH_ROCM_ARCH; empty where not read
    xpu: str | None = None  # their TORCH_XPU_ARCH_LIST ("" where not read); None: no XPU wheels
    macos: str = ""  # the oldest macOS their MPS runs on, where read
    source: str = "pytorch/pytorch RELEASE.md, 'Stable ROCm' (index file id 66643764700)"  # of `rocm`
    gfx_source: str = ""
    xpu_source: str = ""
    macos_source: str = ""

    def serves(self, gpu: OtherGpu) -> bool | None:
        """Whether its wheels for the GPU's kind hold code for it; None where the list was not read."""
        targets = {"rocm": self.gfx.split(";"), "xpu": (self.xpu or "").split(",")}.get(gpu.kind)
        if targets is None or not any(targets):
            return None
        return gpu.name in targets


TABLES = {"sm": Sm, "cuda": Cuda, "toolkit": Toolkit, "minor_compat": MinorCompat, "python": Python, "isa": Isa, "accelerator": Accelerator,
          "pytorch": Release, "fixes": Fix, "workarounds": Workaround, "compile_jobs": CompileJob,
          "nixpkgs_off": NixpkgsOff, "build_costs": BuildCost, "pins": PinFacts,
          "other_gpus": OtherGpu, "other_wheels": OtherWheels, "rocm": Rocm}


def in_range(version: str, spec: str) -> bool:
    """Whether `version` meets every clause of `spec`, e.g. ">=13.0,<13.1"; a clause
    compares as many parts as it writes (">=2.10" holds for 2.10.0, "==13.0" for 13.0.2)."""
    for clause in spec.split(","):
        clause = clause.strip()
        operator = clause[:2] if clause[:2] in (">=", "<=", "==", "!=") else clause[:1]
        bound = version_key(clause[len(operator):].strip())
        have = version_key(version)[:len(bound)]
        have = have + (0,) * (len(bound) - len(have))
        if not {"<": have < bound, ">": have > bound, "<=": have <= bound, ">=": have >= bound,
                "==": have == bound, "!=": have != bound}[operator]:
            return False
    return True


@dataclass(frozen=True)
class Knowledge:
    """The knowledge table: what can work, each table by its rows' names."""

    sm: Mapping[str, Sm]
    cuda: Mapping[str, Cuda]
    toolkit: Mapping[str, Toolkit]
    minor_compat: Mapping[str, MinorCompat]
    python: Mapping[str, Python]
    isa: Mapping[str, Isa]
    accelerator: Mapping[str, Accelerator]
    pytorch: Mapping[str, Release]
    fixes: Mapping[str, Fix]
    workarounds: Mapping[str, Workaround]
    compile_jobs: Mapping[str, CompileJob]
    nixpkgs_off: Mapping[str, NixpkgsOff]
    build_costs: Mapping[str, BuildCost]
    pins: Mapping[str, PinFacts]
    other_gpus: Mapping[str, OtherGpu] = field(default_factory=dict)
    other_wheels: Mapping[str, OtherWheels] = field(default_factory=dict)
    rocm: Mapping[str, Rocm] = field(default_factory=dict)

    @property
    def gfx(self) -> Mapping[str, OtherGpu]:
        """The AMD gfx targets a rocm variant may build for: the other_gpus rows of kind rocm."""
        return MappingProxyType({name: row for name, row in self.other_gpus.items() if row.kind == "rocm"})

    def job_memory_gb(self, cuda: bool) -> int:
        """GiB one compile job may take, in a build that compiles CUDA or not."""
        return self.compile_jobs["cuda" if cuda else "cpu"].memory_gb

    def release(self, version: str) -> Release | None:
        """The release line of a PyTorch version ("2.10.0" -> row "2.10"), if the table has it."""
        return self.pytorch.get(".".join(version.split(".")[:2]))

    def table(self, axis: str) -> Mapping:
        return getattr(self, axis)

    def rows(self, combination: Mapping[str, str]) -> dict:
        """The table rows of a combination of axis values (names, as in matrix.yaml), by axis."""
        return {axis: getattr(self, axis)[value] for axis, value in combination.items()}

    def why_not(self, combination: Mapping[str, str]) -> str | None:
        """Why a combination of axis values cannot work; None when it can."""
        return why_not_rows(self.rows(combination))

    def cuda_release(self, version: str) -> Cuda | Toolkit | None:
        """A CUDA release ("11.4", "12.8"), packaged by nixpkgs or not: its drivers and host compilers."""
        return self.cuda.get(version) or self.toolkit.get(version)

    def sm_for_capability(self, capability: str) -> Sm | None:
        return next((sm for sm in self.sm.values() if sm.capability == capability), None)

    def lookup(self, axis: str, text: str) -> str | None:
        """The table's name for a value typed on the command line, or None.

        An SM may be typed as its name (sm61, SM61), its number (61) or its compute capability
        (6.1); a CUDA or Python version also as its token (12_8, 313), the way variant names
        spell it.
        """
        table = self.table(axis)
        value = text.strip()
        if axis == "sm":
            # nvcc and PyTorch write sm_120; people also write sm120, SM 120, 120 or 12.0
            value = re.sub(r"^sm[_ ]?", "sm", value.lower())
            for name, row in table.items():
                if value in (name, name.removeprefix("sm"), row.capability):
                    return name
            return None
        if value in table:
            return value
        return next((name for name, row in table.items() if value == getattr(row, "token", None)), None)


# ---- GPU name -> SM ---------------------------------------------------------------------

# Words that do not tell chips apart: nvidia-smi says "NVIDIA A100-SXM4-80GB" where people say
# "A100", and "NVIDIA GeForce RTX 5070 Laptop GPU" or "GeForce GTX 1080 with Max-Q Design" for
# a laptop part of the desktop card's SM.
_NOISE = frozenset({"nvidia", "geforce", "laptop", "gpu", "mobile", "with", "max", "q", "design"})


def _tokens(name: str) -> tuple[str, ...]:
    return tuple(t for t in re.split(r"[^a-z0-9]+", name.lower()) if t and t not in _NOISE)


def _contains(words: tuple[str, ...], part: tuple[str, ...]) -> bool:
    return bool(part) and any(words[i:i + len(part)] == part for i in range(len(words) - len(part) + 1))


def gpu_name_matches(knowledge: Knowledge, name: str) -> tuple[tuple[Sm, str], ...]:
    """The SMs (with the known name) that best match a GPU name.

    A known name found whole inside `name` beats `name` found inside a known name
    ("NVIDIA GeForce RTX 5070 Ti" is the 5070 Ti, "RTX 5070" is the 5070 or the 5070 Ti);
    among those, the longest known name wins.
    """
    words = _tokens(name)
    scored = []
    for sm in knowledge.sm.values():
        for known in sm.gpus + sm.names:
            known_words = _tokens(known)
            if _contains(words, known_words):
                scored.append(((1, len(known_words)), sm, known))
            elif _contains(known_words, words):
                scored.append(((0, len(words)), sm, known))
    if not scored:
        return ()
    best = max(score for score, _, _ in scored)
    return tuple(sorted(((sm, known) for score, sm, known in scored if score == best),
                        key=lambda pair: (version_key(pair[0].capability), pair[1])))


def _required(cls) -> list[str]:
    from dataclasses import MISSING
    return [f.name for f in fields(cls) if f.name != "name" and f.default is MISSING and f.default_factory is MISSING]


def _row(cls, name: str, values: dict):
    converted = {key: tuple(value) if isinstance(value, list) else value for key, value in values.items()}
    if cls in (Fix, Workaround):
        converted["when"] = MappingProxyType({key: tuple(v) if isinstance(v, list) else v
                                              for key, v in sorted((values.get("when") or {}).items())})
    if cls is Workaround:
        converted["env"] = MappingProxyType({str(k): str(v) for k, v in sorted((values.get("env") or {}).items())})
    if cls is Release:
        converted["wheels"] = tuple(
            Wheel(**{key: str(value) for key, value in row.items() if key != "gaps"},
                  gaps=tuple(LibraryGap(**{k: str(v) for k, v in gap.items()}) for gap in row.get("gaps") or ()))
            for row in values.get("wheels") or ())
    if cls is Accelerator:
        converted["environment"] = MappingProxyType(dict(sorted((values.get("environment") or {}).items())))
    if cls is Cuda:
        converted["capabilities"] = tuple(str(c) for c in converted.get("capabilities", ()))
    if cls in (Cuda, Toolkit) and "msvc" in converted:
        converted["msvc"] = tuple(int(v) for v in converted["msvc"])
    if cls is Release:
        for key in ("latest", "source_cuda", "default_python"):
            if converted.get(key) is not None:
                converted[key] = str(converted[key])
    if cls is Rocm:
        converted["targets"] = tuple(str(v) for v in values.get("targets") or ())
    if cls is PinFacts:
        if converted.get("rocm") is not None:
            converted["rocm"] = str(converted["rocm"])
        for key in ("cuda", "cuda_aliases", "sources"):
            converted[key] = MappingProxyType({str(k): str(v) for k, v in sorted((values.get(key) or {}).items())})
        converted["capabilities"] = MappingProxyType({str(k): tuple(str(c) for c in v)
                                                      for k, v in sorted((values.get("capabilities") or {}).items())})
        converted["python"] = tuple(str(v) for v in values.get("python") or ())
        converted["carries"] = tuple(str(v) for v in values.get("carries") or ())
    if cls is OtherWheels and converted.get("xpu") is not None:
        converted["xpu"] = str(converted["xpu"])
    if cls is Sm:  # the schema lets editors write 13 for "13.0"; version_key needs text
        for bound in ("min_cuda", "max_cuda"):
            if converted.get(bound) is not None:
                converted[bound] = str(converted[bound])
        if converted.get("older_cudnn") is not None:
            converted["older_cudnn"] = OlderCudnn(**{key: str(value) for key, value in converted["older_cudnn"].items()})
    return cls(name=name, **converted)


def build(doc: load.Document, extra: load.Document | None = None, extra_path: tuple = ()) -> Knowledge:
    """Knowledge from the built-in table, with the rows of `extra` (a matrix) added or overriding."""
    problems: list[Problem] = []
    merged: dict[str, dict[str, dict]] = {table: {} for table in TABLES}
    origin: dict[tuple[str, str], load.Document] = {}
    sources = [(doc, ())] + ([(extra, extra_path)] if extra is not None else [])
    for source, prefix in sources:
        data = source.data
        for key in prefix:
            data = data.get(key) if isinstance(data, dict) else None
        for table, rows in (data or {}).items():
            for name, row in (rows or {}).items():
                merged[table].setdefault(str(name), {}).update(row or {})
                origin[(table, str(name))] = (source, prefix + (table, name))
    tables: dict[str, dict] = {}
    for table, cls in TABLES.items():
        built = {}
        required = _required(cls)
        for name, values in sorted(merged[table].items(), key=lambda item: item[0]):
            missing = [f for f in required if f not in values]
            if missing:
                from .pipeline.schema import suggest

                source, path = origin[(table, name)]
                known = [row for row in merged[table] if row != name and not any(f not in merged[table][row]
                                                                                 for f in required)]
                close = suggest(name, known)
                problems.append(Problem(
                    source.where(path), f"new {table} row '{name}' lacks {', '.join(missing)}",
                    (f"{close} A row with a built-in row's name changes only the fields it gives; " if close else "")
                    + f"a new {table} row needs {', '.join(required)}; see {KNOWLEDGE_FILE.name}",
                ))
                continue
            built[name] = _row(cls, name, values)
        tables[table] = MappingProxyType(built)
    for name, row in tables["pins"].items():  # a typo in carries would leave a fix out silently
        for i, fix in enumerate(row.carries):
            if fix not in tables["fixes"]:
                from .pipeline.schema import suggest

                source, path = origin[("pins", name)]
                problems.append(Problem(source.where(path + ("carries", i)),
                                        f"pins row '{name[:7]}' carries '{fix}', which is no fix",
                                        suggest(fix, list(tables["fixes"])) or
                                        f"known fixes: {', '.join(sorted(tables['fixes']))}"))
    for name, row in tables["workarounds"].items():
        if row.cmake is not None and "USE_CUDNN" in row.env:
            # the script settles USE_CUDNN and looks for cuDNN before it reads CMake's version
            source, path = origin[("workarounds", name)]
            problems.append(Problem(source.key_where(path + ("env", "USE_CUDNN")),
                                    f"workarounds row '{name}' sets USE_CUDNN only where CMake is {row.cmake}, but "
                                    "the env script settles USE_CUDNN, and checks for cuDNN, before it reads CMake's "
                                    "version",
                                    "set USE_CUDNN in a workaround without cmake:, or leave it out"))
    if problems:
        raise GenMatrixError(problems)
    return Knowledge(**tables)


def builtin() -> load.Document:
    """The shipped table. It is gen-matrix's own, like its code: its tests check it against
    the schema (test_validation.py), and a run does not again; a matrix's knowledge: rows
    are checked with the matrix."""
    return load.read(KNOWLEDGE_FILE, display=f"generator/{KNOWLEDGE_FILE.name}", own=True)


# The axes whose rows `incompatibility` weighs: a combination's other values (its Python) never
# rule it out, so a reason found for these values holds for every combination that has them.
RULED_AXES = ("sm", "cuda", "isa", "accelerator", "rocm", "gfx")


def why_not_rows(rows: Mapping) -> str | None:
    """Why a combination of table rows, by axis, cannot work; None when it can."""
    return incompatibility(**{axis: rows.get(axis) for axis in RULED_AXES})


# Which cuDNN an SM row's `cudnn: false` means: the recipes and `env` build with a current
# cuDNN, and cuDNN 9.11 dropped compute capabilities below 7.5 (cuDNN 9.11.0 release notes).
CUDNN_RULE = "cuDNN 9.11 and newer support compute capability 7.5 and up only"


def disabled_features(sm: Sm | None, isa: Isa | None) -> tuple[str, ...]:
    """PyTorch features a build switches off (USE_<X>=0): what the ISA cannot run, and cuDNN
    where current cuDNN no longer supports the SM."""
    disabled = set(isa.disable if isa else ())
    if sm is not None and not sm.cudnn:
        disabled.add("CUDNN")
    return tuple(sorted(disabled))


def switches(sm: Sm | None, isa: Isa | None, accelerator: Accelerator | None) -> dict[str, str]:
    """The PyTorch build switches (USE_<X>) of a build, as the recipes and `env` set them."""
    values = {"USE_CUDA": "1" if sm else "0"}
    if sm:
        values["USE_CUDNN"] = "1"
    values.update({f"USE_{feature}": "0" for feature in disabled_features(sm, isa)})
    if accelerator:
        values[f"USE_{accelerator.name.upper()}"] = "1"
    return dict(sorted(values.items()))


def sm_cuda_problem(sm: Sm, cuda: str) -> str | None:
    """Why CUDA release `cuda` ("12.4", in the table or not) cannot compile for `sm`; None when it can."""
    if version_key(cuda) < version_key(sm.min_cuda):
        return f"{sm.label} needs CUDA >= {sm.min_cuda}; this asks for {cuda}, which is too old"
    if sm.max_cuda and version_key(cuda) > version_key(sm.max_cuda):
        return f"{sm.label} was dropped after CUDA {sm.max_cuda}; this asks for {cuda}, which is too new"
    return None


def incompatibility(*, sm: Sm | None = None, cuda: Cuda | None = None,
                    isa: Isa | None = None, accelerator: Accelerator | None = None,
                    rocm: Rocm | None = None, gfx: OtherGpu | None = None) -> str | None:
    """Why this combination cannot work, in the user's terms; None when it can."""
    if rocm is not None and gfx is not None:
        if gfx.first_rocm and version_key(rocm.name) < version_key(gfx.first_rocm):
            return f"{gfx.label} needs ROCm >= {gfx.rocm}; this asks for {rocm.name}, which is too old"
        if gfx.name not in rocm.targets:
            return (f"nixpkgs' ROCm {rocm.name} builds for {', '.join(rocm.targets)} (clr's gpuTargets), "
                    f"not for {gfx.label}")
    if rocm is not None and isa is not None and isa.arch not in rocm.hosts:
        return f"nixpkgs builds ROCm {rocm.name} for {' and '.join(rocm.hosts)} hosts only; {isa.name} is {isa.arch}"
    if sm is not None and cuda is not None:
        problem = sm_cuda_problem(sm, cuda.name)
        if problem:
            return problem
    if sm is not None and isa is not None and isa.arch not in sm.hosts:
        where = " or ".join(sm.hosts)
        only = "a Jetson part, found only on" if sm.jetson else "found only on"
        return f"{sm.label} is {only} {where} hosts; {isa.name} is an {isa.arch} instruction set"
    if accelerator is not None and isa is not None and isa.arch != accelerator.arch:
        return f"{accelerator.name} runs on {accelerator.arch}; {isa.name} is {isa.arch}"
    return None


@dataclass(frozen=True)
class Finding:
    """What the knowledge table says against a combination, and how much it weighs."""

    level: str  # CANNOT, SOURCE or NOTE
    text: str
    axis: str = ""  # the axis it is about: cuda, pytorch, python or isa


CANNOT = "cannot"  # nvcc or the GPU rule it out: no build of it can work
SOURCE = "source"  # the PyTorch release's source cannot be built with it
NOTE = "note"  # PyTorch's own wheels leave it out; a build from source works, untested upstream


def findings(knowledge: Knowledge, *, sm: Sm | None = None, cuda: str | None = None, pytorch: str | None = None,
             python: str | None = None, isa: Isa | None = None) -> tuple[Finding, ...]:
    """Everything the knowledge table says against a hand build of PyTorch `pytorch` (a release
    line or a version) with CUDA release `cuda` (packaged by nixpkgs or not) for `sm`, `python`
    and `isa`, the weightiest first. Every command that judges such a combination asks this."""
    found = []
    if sm is not None and cuda is not None:
        problem = sm_cuda_problem(sm, cuda)
        if problem:
            found.append(Finding(CANNOT, problem, "cuda"))
    if sm is not None and isa is not None:
        problem = incompatibility(sm=sm, isa=isa)
        if problem:
            found.append(Finding(CANNOT, problem, "isa"))
    if sm is not None and pytorch is not None:
        problem = sm.pytorch_problem(pytorch)
        if problem:
            found.append(Finding(CANNOT, problem, "pytorch"))
    release = knowledge.release(pytorch) if pytorch else None
    if release is not None:
        if cuda is not None:
            problem = release.cuda_source_problem(cuda)
            if problem:
                found.append(Finding(SOURCE, problem, "cuda"))
            elif release.cuda_support(cuda):
                found.append(Finding(NOTE, release.cuda_support(cuda), "cuda"))
        if python is not None and release.python_support(python):
            found.append(Finding(SOURCE, release.python_support(python), "python"))
        built = any(wheel.cuda == cuda for wheel in release.wheels)
        if sm is not None and built and not any(fit.release.name == release.name and fit.cuda == cuda
                                                for fit in wheels_for(knowledge, sm)):
            found.append(Finding(NOTE, f"PyTorch {release.name}'s own CUDA {cuda} wheels leave out {sm.name} "
                                       f"({sm.capability}): a build for it from source works, untested upstream", "cuda"))
        if sm is not None:
            for fit in wheels_for(knowledge, sm):
                if fit.release.name == release.name and fit.cuda == cuda:
                    found += [Finding(NOTE, gap_text(gap, sm, fit), "cuda") for gap in fit.gaps]
    order = (CANNOT, SOURCE, NOTE)
    return tuple(sorted(found, key=lambda f: order.index(f.level)))


# ---- binary compatibility: which of PyTorch's own wheels run on a GPU ---------------------

SASS = "SASS"  # machine code, run as it is
PTX = "PTX"  # compiled for the GPU by the driver's JIT when first loaded


@dataclass(frozen=True)
class Runs:
    """How binaries compiled for an arch list run on a GPU: the entry that serves it, and how."""

    target: str  # the arch list's entry that serves it: "8.6" for SASS, "9.0+PTX" for PTX
    how: str  # SASS or PTX


def _target(entry: str) -> tuple[tuple[int, ...], str, bool]:
    """An arch list entry ("9.0a+PTX") as (capability, suffix: "", "a" or "f", whether it has PTX)."""
    base = entry.removesuffix("+PTX")
    suffix = base[-1] if base[-1] in "af" else ""
    return version_key(base.removesuffix(suffix)), suffix, entry.endswith("+PTX")


def code_runs(have: tuple[int, ...], suffix: str, ptx: bool, want: tuple[int, ...]) -> bool:
    """Whether GPU code compiled for compute capability `have` runs on a GPU of capability
    `want`; `suffix` "a" (arch-specific), "f" (family-specific) or "", `ptx` whether the code is
    PTX rather than SASS. CUDA C Programming Guide, "Binary Compatibility": SASS for X.Y runs on
    X.Z for Z >= Y (one major, a lower or equal minor); an arch-specific target runs on X.Y
    alone, a family-specific one within its major, as SASS does, PTX or not; plain PTX for X.Y
    runs on any GPU of X.Y or newer, compiled by the driver when it loads. One rule for wheels'
    arch lists (serves) and for what cuobjdump finds in a build (smoke's `code` check)."""
    if suffix == "a":
        return have == want
    if suffix == "f" or not ptx:
        return have[0] == want[0] and have[1:] <= want[1:]
    return have <= want


def serves(arch: str, capability: str) -> Runs | None:
    """Whether binaries compiled for `arch` (a TORCH_CUDA_ARCH_LIST, "5.0;8.6;9.0+PTX") run on a
    GPU of compute capability `capability`, and how (code_runs); None where they do not. SASS
    wins over PTX, and the nearest SASS over a farther one."""
    want = version_key(capability)
    sass, ptx = [], []
    for entry in (part.strip() for part in arch.split(";") if part.strip()):
        have, suffix, has_ptx = _target(entry)
        if code_runs(have, suffix, False, want):
            sass.append((have, entry.removesuffix("+PTX")))
        if has_ptx and code_runs(have, suffix, True, want):
            ptx.append((have, entry))
    if sass:
        return Runs(max(sass)[1], SASS)
    return Runs(max(ptx)[1], PTX) if ptx else None


# The `system` of a wheels row, as `platform.system()` and the driver tables name its OS
WHEEL_OS = {"x86_64-linux": "Linux", "aarch64-linux": "Linux", "x86_64-windows": "Windows"}


@dataclass(frozen=True)
class WheelFit:
    """PyTorch's own binaries of one release, CUDA release and index that run on an SM."""

    release: Release
    cuda: str
    index: str  # pip or conda
    runs: Runs
    systems: tuple[str, ...]  # where they are built for, of those asked about
    toolkit: Cuda | Toolkit | None  # the CUDA release's own drivers; None where the table lacks it
    compat: MinorCompat | None  # where minor-version compatibility asks less of the driver (SASS only)
    sources: tuple[str, ...]
    # the drivers of the first CUDA release that knows the GPU: an older driver branch does not
    # run the GPU at all, whatever the binary; None where the table lacks that release
    first: Cuda | Toolkit | None = None
    gaps: tuple[LibraryGap, ...] = ()  # libraries of these wheels without code for the GPU

    def driver_for(self, system: str) -> str:
        """The oldest driver that runs them on `system` (Linux or Windows); empty where unknown."""
        own = self.compat.driver_for(system) if self.compat else ""
        if not own:  # no minor-version compatibility, or none known on this system
            own = self.toolkit.driver_for(system) if self.toolkit else ""
        if not own:  # what the CUDA release asks is unknown: the GPU's own floor would understate it
            return ""
        floor = self.first.driver_for(system) if self.first else ""
        numbered = [d for d in (own, floor) if d[:1].isdigit()]
        if own and not own[:1].isdigit():
            return own
        return max(numbered, key=version_key) if numbered else own

    @property
    def command(self) -> str:
        """How to install them."""
        version = self.release.newest
        if self.index == "conda":
            # pytorch.org/get-started/previous-versions: cudatoolkit=X up to 1.12, pytorch-cuda=X from 1.13
            if version_key(version) < (1, 13):
                return f"conda install pytorch=={version} cudatoolkit={self.cuda} -c pytorch"
            return f"conda install pytorch=={version} pytorch-cuda={self.cuda} -c pytorch -c nvidia"
        return f"pip install torch=={version} --index-url https://download.pytorch.org/whl/{self.backend}"

    @property
    def backend(self) -> str:
        """The name of its pip index and of uv's --torch-backend: cu128."""
        return f"cu{self.cuda.replace('.', '')}"

    @property
    def uv_command(self) -> str | None:
        """uv's twin of the pip command; None for conda's."""
        if self.index == "conda":
            return None
        return f"uv pip install torch=={self.release.newest} --torch-backend={self.backend}"


def _branch(driver: str) -> int | None:
    """The branch of a numbered driver ("520.61.05" -> 520); None for a text such as "R590 (Windows) or newer"."""
    head = driver.split(".")[0]
    return int(head) if head.isdigit() else None


@dataclass(frozen=True)
class DriverNeed:
    """The oldest NVIDIA driver on one system that runs a build of a CUDA release on a GPU."""

    cuda: str
    own: str  # the CUDA release's own minimum; empty where the table lacks the release
    driver: str  # what the GPU needs: `own`, or under its last branch by minor-version compatibility; empty: none
    branch: int | None = None  # the GPU's last driver branch, where it has one
    compat: MinorCompat | None = None  # where `own` is past that branch and minor-version compatibility runs it


def driver_need(knowledge: Knowledge, sm: Sm | None, cuda: str, system: str) -> DriverNeed:
    """The driver a build of CUDA release `cuda` needs on `sm` on `system` (Linux or Windows):
    the release's own, except where that is past the GPU's last driver branch (R470 for
    Kepler): then the driver minor-version compatibility asks, where it is within the branch."""
    release = knowledge.cuda_release(cuda)
    own = release.driver_for(system) if release else ""
    branch = sm.driver_branch if sm else None
    # A branch is named by its Linux drivers (R470: 470.x); Windows numbers the same branch
    # higher (471.11 to 474.x), so whether a release is past it is read from its Linux driver.
    past = _branch(release.driver) if release else None
    if branch is None or past is None or past <= branch:
        return DriverNeed(cuda, own, own, branch)
    compat = knowledge.minor_compat.get(cuda.split(".")[0])
    if compat is not None and _branch(compat.driver) is not None and _branch(compat.driver) <= branch:
        return DriverNeed(cuda, own, compat.driver_for(system), branch, compat)
    return DriverNeed(cuda, own, "", branch)


def gap_text(gap: LibraryGap, sm: Sm, fit: WheelFit) -> str:
    """What a library of a wheel that lacks code for `sm` means to its user."""
    return (f"PyTorch {fit.release.newest}'s own CUDA {fit.cuda} wheels ({', '.join(fit.systems)}) name {sm.name} in "
            f"their arch list, but their {gap.library} holds no code for it ({gap.source}): {gap.holds} cannot run "
            f"on {sm.name}; another CUDA release's wheel or a build for {sm.name} from source has them")


def driver_meets(driver: str, needed: str) -> bool:
    """Whether NVIDIA driver `driver` is at least `needed`; True where `needed` has no number
    (CUDA 13's Windows minimum), which cannot be compared."""
    return not needed[:1].isdigit() or version_key(driver) >= version_key(needed)


def _compat(knowledge: Knowledge, cuda: str, runs: Runs, toolkit: Cuda | Toolkit | None,
            first: Cuda | Toolkit | None) -> MinorCompat | None:
    """The minor-version compatibility that lets an older driver run these binaries; None where
    it gains nothing (the GPU itself needs the CUDA release's own driver or newer) or cannot work."""
    compat = knowledge.minor_compat.get(cuda.split(".")[0])
    if compat is None or runs.how != SASS:  # PTX JIT does not work under minor-version compatibility
        return None
    needed = max((compat.driver,) + ((first.driver,) if first else ()), key=version_key)
    if toolkit is not None and version_key(needed) >= version_key(toolkit.driver):
        return None
    return compat


def wheels_for(knowledge: Knowledge, sm: Sm, system: str | None = None,
               python: str | None = None, release: Release | None = None) -> tuple[WheelFit, ...]:
    """Every (release, CUDA release, index) of PyTorch's own binaries that runs on `sm` (on
    `system`, x86_64-linux and so on, else any; for `python` where given; of `release` alone
    where given): the newest release first, then the oldest CUDA release (the one that asks
    least of the driver), pip before conda."""
    if not sm.upstream_wheels:
        return ()
    found: dict[tuple, list] = {}
    for release in (release,) if release is not None else knowledge.pytorch.values():
        if python is not None and release.python_support(python):
            continue
        for wheel in release.wheels:
            if (system is not None and wheel.system != system) or wheel.system.split("-")[0] not in sm.hosts:
                continue
            runs = serves(wheel.arch, sm.capability)
            if runs is None:
                continue
            # PTX JIT serves PyTorch's own kernels, but the CUDA libraries a wheel bundles (cuBLAS,
            # cuDNN) of a CUDA release older than the GPU carry no code for it: such a wheel does not
            # run there, as PyTorch's CUDA 12.4 wheels did not on sm120
            if runs.how == PTX and version_key(wheel.cuda) < version_key(sm.min_cuda):
                continue
            # a library without code for the GPU sets its wheels apart from the same release's others
            gaps = tuple(gap for gap in wheel.gaps if gap.lacks_capability(sm.capability))
            found.setdefault((release.name, wheel.cuda, wheel.index, runs, gaps), []).append(wheel)
    fits = []
    first = knowledge.cuda_release(sm.min_cuda)
    for (name, cuda, index, runs, gaps), wheels in found.items():
        toolkit = knowledge.cuda_release(cuda)
        fits.append(WheelFit(knowledge.pytorch[name], cuda, index, runs, tuple(sorted({w.system for w in wheels})),
                             toolkit, _compat(knowledge, cuda, runs, toolkit, first),
                             tuple(dict.fromkeys(w.source for w in wheels)), first, gaps))
    return tuple(sorted(fits, key=lambda f: (tuple(-n for n in version_key(f.release.name)), version_key(f.cuda),
                                             f.index != "pip", f.runs.how != SASS)))


def best_wheel(fits: tuple[WheelFit, ...], driver: str | None = None, system: str = "Linux") -> WheelFit | None:
    """The wheel to suggest: of the newest release, the newest CUDA release the driver runs
    (without a driver seen, the oldest, which asks least of it); SASS and pip first."""
    if not fits:
        return None
    runnable = tuple(f for f in fits if driver is not None and f.driver_for(system)
                     and driver_meets(driver, f.driver_for(system)))
    # with a driver too old for all of them, the one that asks least of it is nearest
    fits = runnable or fits
    newest = version_key(fits[0].release.name)
    same = [f for f in fits if version_key(f.release.name) == newest]
    return min(same, key=lambda f: (f.runs.how != SASS, bool(f.gaps), f.index != "pip",
                                    tuple(-n for n in version_key(f.cuda)) if runnable else version_key(f.cuda)))


def upstream_rocm_for(knowledge: Knowledge, pytorch: str, python: str, gfx: OtherGpu) -> str | None:
    """Which of PyTorch's own ROCm wheels of release `pytorch` serves a build for `python` and
    `gfx`, as "rocm6.4 (pip)"; "unknown" where the table has not read their gfx list; None where
    none does."""
    release, wheels = knowledge.release(pytorch), knowledge.other_wheels.get(".".join(pytorch.split(".")[:2]))
    if release is None or release.python_support(python) or wheels is None or not wheels.rocm:
        return None
    serves = wheels.serves(gfx)
    if serves is None:
        return "unknown"
    return f"rocm{wheels.rocm} (pip)" if serves else None


def upstream_for(knowledge: Knowledge, pytorch: str, python: str, systems: tuple[str, ...],
                 sm: Sm | None, gfx: OtherGpu | None = None) -> str | None:
    """Which of PyTorch's own wheels of release `pytorch` serves a build for `python`, one of
    `systems` and `sm` (None: CPU-only), as "cu126 (pip)" or "cpu"; "unknown" where the table
    has no wheel list of the release for those systems (a gap in what was read, not proof that
    none shipped); None where none does, so that only a build gives it. PyTorch ships CPU
    wheels for every Python of a release's range on each system (pytorch.org "Get started");
    CUDA ones as the release's `wheels` rows say; for an AMD gfx target, its ROCm wheels
    (upstream_rocm_for)."""
    if gfx is not None:
        return upstream_rocm_for(knowledge, pytorch, python, gfx)
    release = knowledge.release(pytorch)
    if release is None or release.python_support(python):
        return None
    if sm is None:
        return "cpu"
    fit = best_wheel(tuple(f for system in systems for f in wheels_for(knowledge, sm, system, release=release)))
    if fit is None and sm.upstream_wheels and not any(w.system in systems for w in release.wheels):
        return "unknown"
    return f"cu{fit.cuda.replace('.', '')} ({fit.index})" if fit else None
