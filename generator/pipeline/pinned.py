"""What the matrix asks of its nixpkgs pins, against what the knowledge table says each holds.

A variant without pytorch.source builds its pin's own torch, with one of the pin's CUDA
package sets and Python package sets. Where the table's row for the pin (knowledge `pins:`)
says the pin holds another torch, or lacks the CUDA or Python set, the recipe fails when Nix
evaluates it (nix/lib/torch.nix asserts the torch version) or takes a set that is not there.
These are warnings, not errors: some of a row's facts are inferred, and `gen-matrix eval`,
which asks the pin itself, is the check. A pin the table does not know gets one note saying so.
"""

from __future__ import annotations

from ..errors import Location, Problem
from ..knowledge import PinFacts, version_key
from ..model import Matrix, Pin, Variant

EVAL_HINT = "`gen-matrix eval` asks the pin itself"


def _label(matrix: Matrix, pin: Pin) -> str:
    return f"nixpkgs {pin.rev[:7]}" if len(matrix.pins) == 1 else f"the nixpkgs pin '{pin.name}' ({pin.rev[:7]})"


def _inferred(facts: PinFacts, fact: str) -> str:
    """What a message adds to a fact of the row that was not read at the pin itself."""
    return "; inferred, see its row under knowledge pins" if fact in facts.inferred else ""


def _recipes(count: int) -> str:
    return "its recipe builds" if count == 1 else f"its {count} recipes build"


def _where(matrix: Matrix, kinds: set[str], axis: str, value: str) -> Location:
    section = next((s for s in matrix.sections if s.kind in kinds and value in dict(s.axes).get(axis, ())), None)
    return section.where_value(axis, value) if section else Location(matrix.file)


def _torch(matrix: Matrix, pin: Pin, facts: PinFacts, variants: list[Variant]) -> list[Problem]:
    if matrix.torch_source is not None or facts.torch == matrix.pytorch_version:
        return []
    others = sorted(row.short for row in matrix.knowledge.pins.values() if row.torch == matrix.pytorch_version)
    choices = [f"set pytorch.version to {facts.torch}",
               f"give pytorch.source to build {matrix.pytorch_version} from source"]
    if others:
        choices.append(f"pin a nixpkgs whose torch is {matrix.pytorch_version} ({', '.join(others)})")
    return [Problem(
        matrix.pytorch_where or Location(matrix.file),
        f"pytorch.version is {matrix.pytorch_version}, but {_label(matrix, pin)} holds torch {facts.torch}"
        f"{_inferred(facts, 'torch')}: {_recipes(len(variants))} that torch, which Nix refuses: "
        f"\"matrix.yaml promises PyTorch {matrix.pytorch_version}, but this nixpkgs builds {facts.torch}\"",
        "; or ".join(choices) + f"; {EVAL_HINT}")]


def _cuda(matrix: Matrix, pin: Pin, facts: PinFacts, variants: list[Variant]) -> list[Problem]:
    if not facts.cuda:
        return []
    problems = []
    for cuda in sorted({v.cuda.name for v in variants if v.cuda is not None} - set(facts.cuda), key=version_key):
        count = sum(1 for v in variants if v.cuda is not None and v.cuda.name == cuda)
        others = sorted(row.short for row in matrix.knowledge.pins.values() if cuda in row.cuda)
        hint = (f"pin a nixpkgs that has it for these variants, with a `when` rule ({', '.join(others)})"
                if others else "pin a nixpkgs that has it for these variants, with a `when` rule")
        problems.append(Problem(
            _where(matrix, {"gpu"}, "cuda", cuda),
            f"CUDA {cuda}: {_label(matrix, pin)} has no cudaPackages_{cuda.replace('.', '_')} (its CUDA sets: "
            f"{facts.cuda_sets()}{_inferred(facts, 'cuda')}), and {count} variant{'s' if count > 1 else ''} "
            f"with it {'build' if count > 1 else 'builds'} there",
            f"{hint}, or take {cuda} out; {EVAL_HINT}"))
    return problems


def _rocm(matrix: Matrix, pin: Pin, facts: PinFacts, variants: list[Variant]) -> list[Problem]:
    """A pin has one ROCm release (rocmPackages): a rocm variant of another one fails to evaluate."""
    if not facts.rocm:
        return []
    held = ".".join(facts.rocm.split(".")[:2])
    problems = []
    for rocm in sorted({v.rocm.name for v in variants if v.rocm is not None} - {held}, key=version_key):
        problems.append(Problem(
            _where(matrix, {"rocm"}, "rocm", rocm),
            f"ROCm {rocm}: {_label(matrix, pin)} has ROCm {facts.rocm}{_inferred(facts, 'rocm')} (one rocmPackages "
            f"set), so its recipes with ROCm {rocm} fail: \"matrix.yaml asks for ROCm {rocm}, but this nixpkgs has "
            f"ROCm {facts.rocm}\"",
            f"use rocm: [\"{held}\"], or pin a nixpkgs with ROCm {rocm} for these variants; {EVAL_HINT}"))
    return problems


def _python(matrix: Matrix, pin: Pin, facts: PinFacts, variants: list[Variant]) -> list[Problem]:
    if not facts.python:
        return []
    problems = []
    for python in sorted({v.python.name for v in variants} - set(facts.python), key=version_key):
        kinds = {v.kind for v in variants if v.python.name == python}
        problems.append(Problem(
            _where(matrix, kinds, "python", python),
            f"Python {python}: {_label(matrix, pin)} has no python{python.replace('.', '')}Packages (its Pythons: "
            f"{', '.join(facts.python)}{_inferred(facts, 'python')})",
            f"pin a nixpkgs that has it for these variants, or take {python} out; {EVAL_HINT}"))
    return problems


def check(matrix: Matrix, variants: list[Variant]) -> tuple[list[Problem], list[Problem]]:
    """(warnings, notes): where a known pin lacks what its variants ask of it, and, once, which
    pins the knowledge table does not know."""
    by_pin: dict[str, list[Variant]] = {}
    for variant in variants:
        by_pin.setdefault(variant.pin, []).append(variant)
    warnings, unknown = [], []
    for pin in matrix.pins:
        mine = by_pin.get(pin.name)
        if not mine:
            continue
        facts = matrix.knowledge.pins.get(pin.rev)
        if facts is None:
            unknown.append(pin)
            continue
        torches = [v for v in mine if not v.is_companion]
        warnings += _torch(matrix, pin, facts, torches) + _cuda(matrix, pin, facts, torches)
        warnings += _python(matrix, pin, facts, torches) + _rocm(matrix, pin, facts, torches)
    notes = []
    if unknown:
        named = ", ".join(_label(matrix, pin) for pin in unknown)
        notes.append(Problem(
            unknown[0].where,
            f"the knowledge table does not know what {named} holds: gen-matrix cannot tell whether its torch is "
            f"PyTorch {matrix.pytorch_version} or whether it has the CUDA and Python sets the matrix asks of it",
            f"{EVAL_HINT} (the recipes, against the pin); a row under knowledge.pins in matrix.yaml, keyed by the "
            "full commit, lets generate say it"))
    return warnings, notes
