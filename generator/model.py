"""The plain, immutable values that flow through the pipeline."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import field
from functools import cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING, Mapping

from .errors import Location
from .records import dataclass

if TYPE_CHECKING:
    from .knowledge import Accelerator, Cuda, Isa, Knowledge, OtherGpu, Python, Rocm, Sm

# The axes each kind of variant is the product of, in name order.
KIND_AXES: Mapping[str, tuple[str, ...]] = {
    "gpu": ("python", "cuda", "sm", "isa"),
    "cpu": ("python", "isa"),
    "darwin": ("python", "accelerator"),
    "rocm": ("python", "rocm", "gfx", "isa"),
}
KINDS = tuple(KIND_AXES)
# torchvision and torchaudio: the kind `list --kind` gives them, beside the kinds of torch
COMPANION = "companion"
KIND_CHOICES = KINDS + (COMPANION,)

Combination = Mapping[str, str]  # axis -> value, e.g. {"sm": "sm90", "isa": "avx512"}


@dataclass(frozen=True)
class Match:
    """A partial combination: each named axis must take one of the listed values."""

    values: tuple[tuple[str, tuple[str, ...]], ...]
    where: Location
    label: str  # e.g. "gpu.exclude[2]"

    def matches(self, combination: Combination) -> bool:
        return all(combination.get(axis) in allowed for axis, allowed in self.values)

    def __str__(self) -> str:
        return ", ".join(f"{axis} {'/'.join(allowed)}" for axis, allowed in self.values)


@dataclass(frozen=True)
class Restriction:
    """Where `when` matches, only the values in `only` are kept."""

    when: Match
    only: Match

    def forbids(self, combination: Combination) -> bool:
        return self.when.matches(combination) and not self.only.matches(combination)


@dataclass(frozen=True)
class Section:
    """One kind's section of the matrix (gpu, cpu, darwin, rocm): its axes and its rules."""

    kind: str
    axes: tuple[tuple[str, tuple[str, ...]], ...]
    restrict: tuple[Restriction, ...] = ()
    include: tuple[Match, ...] = ()  # every axis given, one value each
    exclude: tuple[Match, ...] = ()
    where: Location = Location("matrix.yaml")
    value_where: tuple[tuple[tuple[str, str], Location], ...] = ()  # ((axis, value), where written)

    def where_value(self, axis: str, value: str) -> Location:
        return next((where for key, where in self.value_where if key == (axis, value)), self.where)


@dataclass(frozen=True)
class GpuRunner:
    """A runner with a GPU: variants of `system` for one of `sms` (NVIDIA) or `gfx` (AMD)
    build there and are smoke-tested."""

    labels: tuple[str, ...]
    system: str
    sms: tuple[str, ...]
    gfx: tuple[str, ...] = ()


# GitHub-hosted labels; a PyTorch build needs far more disk and time than these give,
# so real matrices name larger or self-hosted runners in matrix.yaml.
DEFAULT_RUNNERS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "x86_64-linux": ("ubuntu-latest",),
    "aarch64-linux": ("ubuntu-24.04-arm",),
    "x86_64-darwin": ("macos-13",),
    "aarch64-darwin": ("macos-latest",),
})


# Where a variant of a kind builds when matrix.yaml names no runner for it. A CUDA PyTorch
# needs the cores, RAM and disk of knowledge.build_costs.gpu (32 cores, 128 GB, 100 GB):
# no GitHub-hosted standard runner has them, so GPU variants go to self-hosted runners.
DEFAULT_KIND_RUNNERS: Mapping[str, Mapping[str, tuple[str, ...]]] = MappingProxyType({
    "gpu": MappingProxyType({
        "x86_64-linux": ("self-hosted", "linux", "x64", "pytorch-builder"),
        "aarch64-linux": ("self-hosted", "linux", "arm64", "pytorch-builder"),
    }),
    # a ROCm PyTorch needs what a CUDA one does (knowledge.build_costs.rocm)
    "rocm": MappingProxyType({
        "x86_64-linux": ("self-hosted", "linux", "x64", "pytorch-builder"),
    }),
})
CACHE_TYPES = ("cachix", "attic", "s3", "flox")


@dataclass(frozen=True)
class Cache:
    """A binary cache the build jobs fetch from (`substituter`) and push what they built to."""

    type: str  # one of CACHE_TYPES: how the build jobs push
    substituter: str | None  # URL Nix fetches from; None: nothing beyond Nix's own settings
    public_key: str | None  # the key Nix trusts the substituter's signatures with
    name: str | None  # the cache's name (cachix, attic; attic's server is the substituter's); s3: the URL pushed to
    secret: str | None  # the repository secret with the token (cachix, attic) or signing key (s3)


@dataclass(frozen=True)
class Builder:
    """A Nix remote builder of ci.builders: the build jobs' Nix sends it the builds of its
    systems whose required system features it offers."""

    url: str  # ssh-ng://USER@HOST or ssh://USER@HOST
    systems: tuple[str, ...]
    features: tuple[str, ...]
    max_jobs: int
    ssh_key_secret: str  # the repository secret with the private key
    known_hosts_secret: str  # the repository secret with the builder's known_hosts line

    def serves(self, system: str, features: tuple[str, ...]) -> bool:
        """Whether Nix may send it a build of `system` that requires `features`."""
        return system in self.systems and set(features) <= set(self.features)


@dataclass(frozen=True)
class CI:
    """The `ci:` section: how the generated GitHub Actions workflow builds and publishes."""

    organisation_variable: str = "FLOX_ORG"  # the repository variable naming the Flox organisation
    organisation: str | None = None  # used where that variable is unset
    main_branch: str = "main"
    timeout_minutes: int = 360
    shard_size: int = 256  # GitHub runs at most 256 jobs of one matrix
    plan_runner: tuple[str, ...] = ("ubuntu-latest",)
    runners: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: DEFAULT_RUNNERS)  # system -> labels
    gpu_runners: tuple[GpuRunner, ...] = ()
    # kind -> system -> labels, before `runners`
    kind_runners: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=lambda: DEFAULT_KIND_RUNNERS)
    cache: Cache | None = None
    # public binary caches the build jobs fetch from: (url, public key), as ci.substituters lists them
    substituters: tuple[tuple[str, str], ...] = ()
    builders: tuple[Builder, ...] = ()  # Nix remote builders, as ci.builders lists them
    # the pip requirement the workflow installs gen-matrix with; None: this release's
    gen_matrix: str | None = None

    def placement(self, variant: "Variant") -> tuple[tuple[str, ...], bool]:
        """(runner labels, GPU runner?) of a torch variant: on a GPU runner for its SM it is built
        and smoke-tested there, on the device; else on the runner for its kind and system, or for its system."""
        if variant.sm is not None or variant.gfx is not None:
            for gpu in self.gpu_runners:
                held = gpu.sms if variant.sm is not None else gpu.gfx
                target = variant.sm if variant.sm is not None else variant.gfx
                if gpu.system == variant.system and target.name in held:
                    return gpu.labels, True
        by_kind = self.kind_runners.get(variant.kind, {})
        return by_kind.get(variant.system, self.runners[variant.system]), False

    def builder(self, system: str, features: tuple[str, ...]) -> Builder | None:
        """The first remote builder Nix may send a heavy build of `system` requiring `features` to."""
        return next((builder for builder in self.builders if builder.serves(system, features)), None)


@dataclass(frozen=True)
class Companions:
    """Packages built against the torch of every variant `when` selects (None: all of them)."""

    packages: tuple[str, ...]
    when: Match | None
    where: Location
    label: str  # e.g. "companions[0]"

    def selects(self, variant: "Variant") -> bool:
        return self.when is None or self.when.matches(dict(variant.combination, kind=variant.kind))


@dataclass(frozen=True)
class TorchSource:
    """A PyTorch source to build instead of the pin's own release."""

    version: str
    rev: str
    hash: str
    owner: str = "pytorch"
    repo: str = "pytorch"


@dataclass(frozen=True)
class Patch:
    """A patch a pin applies to a nixpkgs attribute: its URL and its hash."""

    url: str
    hash: str


@dataclass(frozen=True)
class Pin:
    """A nixpkgs revision, with its config and patches, and the variants it builds."""

    name: str
    rev: str
    sha256: str | None
    config: Mapping[str, object]
    # nixpkgs attribute -> patches applied to it, sorted by attribute
    patches: tuple[tuple[str, tuple[Patch, ...]], ...]
    when: Match | None  # None: every variant no earlier pin takes
    where: Location

    @property
    def url(self) -> str:
        return f"https://github.com/NixOS/nixpkgs/archive/{self.rev}.tar.gz"


@dataclass(frozen=True)
class Matrix:
    """matrix.yaml, validated, with the knowledge table it is checked against."""

    file: str
    pytorch_version: str
    pins: tuple[Pin, ...]
    capability_scope: str  # "auto", "torch" or "nixpkgs"
    jobs: int
    system_features: tuple[str, ...]
    naming: Mapping[str, str]
    description: Mapping[str, str]
    sections: tuple[Section, ...]
    knowledge: Knowledge
    ci: CI = CI()
    companions: tuple[Companions, ...] = ()
    torch_source: TorchSource | None = None
    capability_scope_where: Location | None = None
    pytorch_where: Location | None = None  # pytorch.version's line
    compiler_cache: str | None = None  # build.compiler_cache: "ccache", or None (off)
    compiler_cache_where: Location | None = None  # build.compiler_cache's line
    # build.compiler_cache_runners: "dedicated" where the matrix states that its self-hosted
    # runners build nothing but what its owner trusts; None where it states nothing
    compiler_cache_runners: str | None = None

    def pin_of(self, kind: str, combination: Combination) -> Pin | None:
        """The first pin whose rule takes a torch variant of `kind` and `combination`."""
        facts = dict(combination, kind=kind)
        return next((pin for pin in self.pins if pin.when is None or pin.when.matches(facts)), None)

    def capability_scope_of(self, variant: "Variant") -> str:
        """Where `variant`'s SM is set: "torch" (torch and its companions) or "nixpkgs"
        (config.cudaCapabilities, every CUDA dependency). "auto" takes "torch" wherever the
        binary cache serves the SM, and "nixpkgs" where `nixpkgs_scope_needed` says why not."""
        if self.capability_scope == "auto":
            return "nixpkgs" if nixpkgs_scope_needed(variant) else "torch"
        return self.capability_scope

    def nixpkgs_off(self, variant: "Variant") -> tuple:
        """The knowledge's nixpkgs_off rows that hold for `variant`: PyTorch features nixpkgs
        itself turns off in its build (NCCL in a Jetson build)."""
        jetson_build = bool(variant.sm and variant.sm.jetson and self.capability_scope_of(variant) == "nixpkgs")
        holds = {"jetson_build": jetson_build}
        return tuple(row for _, row in sorted(self.knowledge.nixpkgs_off.items()) if holds[row.when])

    def switches(self, variant: "Variant") -> dict[str, str]:
        """The variables torch's derivation of `variant` sets that its pin's own torch (with or
        without CUDA, as the variant) does not: the features switched off, by the matrix
        (USE_<X>=0) or by nixpkgs, and the variables the recipe exports for setup.py."""
        values = {switch: "0" for row in self.nixpkgs_off(variant) for switch in row.switches}
        values.update(variant.exports)
        return dict(sorted(values.items()))

    def switch_reasons(self, variant: "Variant") -> tuple[tuple[tuple[str, ...], str], ...]:
        """Why each of `switches` is set: (the variables, the reason), a reason once, in the
        order of the first variable it explains."""
        from .knowledge import CUDNN_RULE

        why: dict[str, str] = {}
        for row in self.nixpkgs_off(variant):
            why.update({switch: f"nixpkgs: {row.why}" for switch in row.switches})
        for feature in variant.disabled_features:
            if feature == "CUDNN" and variant.sm is not None and not variant.sm.cudnn:
                why[f"USE_{feature}"] = f"{CUDNN_RULE}, and {variant.sm.name} is {variant.sm.capability}"
            else:
                why[f"USE_{feature}"] = (f"what it builds needs more than an {variant.isa.name} CPU has "
                                           f"(the knowledge table's isa.{variant.isa.name}.disable)")
        for var in variant.environment:
            why[var] = (f"what {variant.accelerator.name} needs of setup.py"
                        if variant.accelerator and var in variant.accelerator.environment else "a CPU build's BLAS")
        grouped: dict[str, list[str]] = {}
        for var in self.switches(variant):
            grouped.setdefault(why[var], []).append(var)
        return tuple((tuple(variables), reason) for reason, variables in grouped.items())


# What each capability scope compiles for the variant's SM, as show and explain say it.
SCOPE_TEXT = {
    "torch": "torch and its companions only; the CUDA libraries are nixpkgs' own, built for its default capabilities",
    "nixpkgs": "torch and every CUDA library it links (config.cudaCapabilities): they are built for it too",
}


def jobs_text(matrix: "Matrix", variant: "Variant") -> str:
    """What the matrix's build.jobs and the knowledge's compile_jobs make of a build's jobs."""
    memory = matrix.knowledge.job_memory_gb(cuda=variant.compiles_gpu_code)
    return (f"at most {matrix.jobs} at once on the generated workflow's builders (Nix's cores); "
            f"each build runs one per {memory} GiB of free memory")


def nixpkgs_scope_needed(variant: "Variant") -> str | None:
    """Why only config.cudaCapabilities (every CUDA library built for the SM) serves a GPU
    variant; None where torch alone may target it."""
    sm, cuda = variant.sm, variant.cuda
    if sm.jetson:
        return f"{sm.name} is a Jetson part, and nixpkgs picks the Jetson CUDA libraries from config.cudaCapabilities"
    if sm.capability not in cuda.capabilities:
        return (f"nixpkgs' binary cache builds CUDA {cuda.name}'s libraries for {', '.join(cuda.capabilities)} only: "
                f"magma and NCCL from it hold no kernels for {sm.name} ({sm.capability})")
    return None


def system_of(kind: str, isa: "Isa | None", accelerator: "Accelerator | None") -> str:
    """The Nix system a variant of `kind` with `isa` (or, on a Mac, `accelerator`) builds for."""
    if kind == "darwin":
        return f"{accelerator.arch}-darwin"
    return f"{isa.arch}-linux"


@dataclass(frozen=True)
class Variant:
    """One build of the matrix: a torch variant, or a companion built against one."""

    name: str
    kind: str
    python: Python
    origin: str  # the rule that put it in the matrix
    cuda: Cuda | None = None
    sm: Sm | None = None
    isa: Isa | None = None
    accelerator: Accelerator | None = None
    rocm: Rocm | None = None
    gfx: OtherGpu | None = None
    package: str = "pytorch"
    torch: str | None = None  # a companion's: the name of the torch variant it is built against
    pin: str = ""  # the name of the nixpkgs pin it builds against
    fixes: tuple[str, ...] = ()  # the build fixes that apply to it (its torch's, for a companion)

    @property
    def is_companion(self) -> bool:
        return self.torch is not None

    @cached_property
    def combination(self) -> Mapping[str, str]:
        values = {"python": self.python, "cuda": self.cuda, "sm": self.sm, "isa": self.isa,
                  "accelerator": self.accelerator, "rocm": self.rocm, "gfx": self.gfx}
        return MappingProxyType({axis: values[axis].name for axis in KIND_AXES[self.kind]})

    @property
    def disabled_features(self) -> tuple[str, ...]:
        """PyTorch features the build switches off (USE_<X>=0): what the ISA cannot run, and
        cuDNN where it no longer supports the SM."""
        from .knowledge import disabled_features
        return disabled_features(self.sm, self.isa)

    @property
    def environment(self) -> dict[str, str]:
        """Variables the recipe exports for PyTorch's setup.py besides the switches: the
        accelerator's, and OpenBLAS as the BLAS of a CPU build."""
        values = dict(self.accelerator.environment) if self.accelerator else {}
        if self.kind == "cpu":
            values["BLAS"] = "OpenBLAS"
        return values

    @property
    def exports(self) -> dict[str, str]:
        """What the recipe exports for setup.py, as nix/lib/torch.nix makes it of
        disabledFeatures and environment: USE_<X>=0 for each feature switched off, then the
        environment."""
        return {f"USE_{feature}": "0" for feature in self.disabled_features} | self.environment

    @property
    def compiles_gpu_code(self) -> bool:
        """Whether its build compiles kernels for a GPU (CUDA or HIP), which takes more memory a job."""
        return self.cuda is not None or self.rocm is not None

    @property
    def blas(self) -> str | None:
        """The BLAS torch uses: cuBLAS with CUDA, hipBLAS with ROCm, OpenBLAS on CPUs, the
        accelerator's on a Mac."""
        if self.accelerator is not None:
            return self.accelerator.blas
        return {"gpu": "cublas", "cpu": "openblas", "rocm": "hipblas"}.get(self.kind)

    @property
    def system(self) -> str:
        return system_of(self.kind, self.isa, self.accelerator)

    @property
    def platforms(self) -> tuple[str, ...]:
        return (self.system,)

    @property
    def cpu_side(self) -> tuple[str, ...]:
        """What a torch build's CPU-side objects are compiled from, beside the source: its
        kind, nixpkgs pin, Python, CUDA or ROCm release (whose headers they include) and CPU
        flags. Torch variants equal in it differ only in their GPU, and share those objects through
        a compiler cache: they are one compiler cache group."""
        return (self.kind, self.pin, self.python.name,
                self.cuda.name if self.cuda else self.rocm.name if self.rocm else "",
                " ".join(self.isa.flags) if self.isa else "")

    @property
    def compiler_cache_group(self) -> str:
        """The name of the torch's folder under build.compiler_cache's cache: a short, stable key
        of `cpu_side`, so that a build reads and writes the entries of its own group alone."""
        return hashlib.sha256(json.dumps(self.cpu_side).encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class Dropped:
    """A combination of the product that is not in the matrix, and why."""

    kind: str
    combination: tuple[tuple[str, str], ...]
    reason: str
    rule: str  # "knowledge", or the label of the matrix rule


@dataclass(frozen=True)
class Expansion:
    """The matrix expanded: its variants, the combinations left out and why, its warnings and notes."""

    matrix: Matrix
    variants: tuple[Variant, ...]
    dropped: tuple[Dropped, ...]
    warnings: tuple = ()
    notes: tuple = ()  # facts worth knowing that are no fault: a CUDA PyTorch's own wheels leave out

    @cached_property
    def by_name(self) -> Mapping[str, Variant]:
        return MappingProxyType({variant.name: variant for variant in self.variants})


# Flox reads dots in a package name as folders (lib.x is .flox/pkgs/lib/x.nix): none here.
SAFE_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
MAX_NAME = 200


def check_name(name: str) -> str | None:
    """Why `name` cannot be a package and file name; None when it can."""
    if not SAFE_NAME.match(name):
        return (f"'{name}' is not a safe package name: use lower-case letters, digits, _ and -, "
                "starting with a letter or digit")
    if len(name) > MAX_NAME:
        return (f"'{name[:40]}...' is {len(name)} characters long; a package name may have at most {MAX_NAME} "
                "(a file name, with .nix and the prefixes Flox and Nix add, must stay under 255 bytes)")
    return None
