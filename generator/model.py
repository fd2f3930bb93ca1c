"""The plain, immutable values that flow through the pipeline."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from .errors import Location
from .knowledge import Accelerator, Cuda, Isa, Knowledge, Python, Sm

# The axes each kind of variant is the product of, in name order.
KIND_AXES: Mapping[str, tuple[str, ...]] = {
    "gpu": ("python", "cuda", "sm", "isa"),
    "cpu": ("python", "isa"),
    "darwin": ("python", "accelerator"),
}
KINDS = tuple(KIND_AXES)

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
class Matrix:
    file: str
    pytorch_version: str
    nixpkgs_rev: str
    nixpkgs_sha256: str | None
    capability_scope: str  # "torch" or "nixpkgs"
    jobs: int
    system_features: tuple[str, ...]
    naming: Mapping[str, str]
    description: Mapping[str, str]
    sections: tuple[Section, ...]
    knowledge: Knowledge


@dataclass(frozen=True)
class Variant:
    name: str
    kind: str
    python: Python
    origin: str  # the rule that put it in the matrix
    cuda: Cuda | None = None
    sm: Sm | None = None
    isa: Isa | None = None
    accelerator: Accelerator | None = None
    package: str = "pytorch"

    @property
    def combination(self) -> dict[str, str]:
        values = {"python": self.python, "cuda": self.cuda, "sm": self.sm, "isa": self.isa,
                  "accelerator": self.accelerator}
        return {axis: values[axis].name for axis in KIND_AXES[self.kind]}

    @property
    def system(self) -> str:
        if self.kind == "darwin":
            return f"{self.accelerator.arch}-darwin"
        return f"{self.isa.arch}-linux"

    @property
    def platforms(self) -> tuple[str, ...]:
        return (self.system,)


@dataclass(frozen=True)
class Dropped:
    """A combination of the product that is not in the matrix, and why."""

    kind: str
    combination: tuple[tuple[str, str], ...]
    reason: str
    rule: str  # "knowledge", or the label of the matrix rule


@dataclass(frozen=True)
class Expansion:
    matrix: Matrix
    variants: tuple[Variant, ...]
    dropped: tuple[Dropped, ...]
    warnings: tuple = ()
