"""Render every output file from the expansion through the Jinja templates.

Python decides what goes in; the templates hold the shape. Every value that reaches a
Nix file passes through `nix`, the one function that writes Nix literals.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

import jinja2

from . import state
from .load import unwritable
from .model import Expansion, Matrix, Variant

TEMPLATES = Path(__file__).resolve().parent / "templates"
if not TEMPLATES.is_dir():  # a source checkout: templates/ beside generator/
    TEMPLATES = Path(__file__).resolve().parent.parent / "templates"

MARKER = "Generated from matrix.yaml by gen-matrix"
HEADER = f"{MARKER}; do not edit by hand: change matrix.yaml and run `gen-matrix`."

PKGS_DIR = ".flox/pkgs"
NIXPKGS_FILE = "nix/nixpkgs.nix"


class Verbatim(str):
    """Text written into a Nix file as is: only comments and the header."""


class Ident(Verbatim):
    """A Nix identifier or attribute path, written as is once checked."""

    PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_'-]*(\.[A-Za-z_][A-Za-z0-9_'-]*)*$")

    def __new__(cls, value: str):
        if not cls.PATTERN.match(value):
            raise ValueError(f"not a Nix identifier: {value!r}")
        return super().__new__(cls, value)


NIX_HEADER = Verbatim(f"# {HEADER}")

_NIX_ESCAPES = {"\\": "\\\\", '"': '\\"', "$": "\\$", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def nix(value) -> str:
    """`value` as a Nix literal: strings quoted and escaped, lists, attrsets, numbers, null."""
    if isinstance(value, Verbatim):
        return str(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if not -(2**63) <= value < 2**63:  # Nix integers are 64-bit; a larger one does not parse
            raise ValueError(f"{value} does not fit a Nix integer")
        return str(value)
    if isinstance(value, str):
        reason = unwritable(value)
        if reason:  # the loader refuses such text where it is written; this guards the rest
            raise ValueError(f"{value!r} {reason}")
        return '"' + "".join(_NIX_ESCAPES.get(c, c) for c in value) + '"'
    if isinstance(value, (list, tuple)):
        return "[ " + "".join(nix(v) + " " for v in value) + "]" if value else "[ ]"
    if isinstance(value, dict):
        body = "".join(f"{nix(str(k))} = {nix(v)}; " for k, v in sorted(value.items()))
        return "{ " + body + "}" if value else "{ }"
    raise TypeError(f"no Nix literal for {type(value).__name__}")


def comment(text: str) -> Verbatim:
    """Text safe on one comment line."""
    return Verbatim(" ".join(str(text).split()))


@lru_cache(maxsize=None)
def environment(nix_output: bool) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
        finalize=nix if nix_output else None,
    )
    env.filters["comment"] = comment
    return env


def _describe(matrix: Matrix, variant: Variant) -> str:
    fields = {"package": variant.package, "pytorch": matrix.pytorch_version}
    fields.update(variant.combination)
    if variant.sm:
        fields.update(family=variant.sm.family, gpus=", ".join(variant.sm.gpus), capability=variant.sm.capability)
    if variant.isa:
        fields.update(cpus=", ".join(variant.isa.cpus))
    fields.setdefault("family", "")
    fields.setdefault("gpus", "")
    fields.setdefault("capability", "")
    fields.setdefault("cpus", "")
    for axis in ("cuda", "sm", "isa", "accelerator"):
        fields.setdefault(axis, "")
    return matrix.description[variant.kind].format(**fields)


def _long_description(matrix: Matrix, variant: Variant) -> str:
    lines = [f"PyTorch {matrix.pytorch_version} built from source for Python {variant.python.name}."]
    if variant.sm:
        gpus = ", ".join(variant.sm.gpus) or variant.sm.family
        lines.append(f"GPUs: {gpus} (NVIDIA {variant.sm.family}, compute capability "
                     f"{variant.sm.capability}, {variant.sm.name}).")
        lines.append(f"CUDA {variant.cuda.name}; needs NVIDIA driver {variant.cuda.driver} or newer.")
        if not variant.sm.cudnn:
            lines.append("Built without cuDNN, which no longer supports this GPU.")
    if variant.isa:
        cpus = ", ".join(variant.isa.cpus) or variant.isa.arch
        lines.append(f"CPUs: {cpus}; needs the {variant.isa.name} instruction set "
                     f"({' '.join(variant.isa.cpuinfo)} in /proc/cpuinfo).")
        if variant.isa.disable:
            lines.append(f"Built without {', '.join(variant.isa.disable)}, which need a newer instruction set.")
    if variant.accelerator:
        lines.append(f"Apple Silicon with {variant.accelerator.description or variant.accelerator.name}, "
                     f"BLAS from {variant.accelerator.blas}.")
    return "\n".join(lines) + "\n"


# Context keys that are metadata: a change to them alone bumps the metadata revision.
META_KEYS = ("description", "long_description", "platforms")


@lru_cache(maxsize=None)
def templates_digest() -> str:
    """Any change to a recipe template changes every build fingerprint."""
    return state.digest(*(path.read_text(encoding="utf-8") for path in sorted(TEMPLATES.glob("*.nix.j2"))))


def fingerprints(context: dict, shared: str) -> tuple[str, str]:
    """(build, metadata) hashes of a recipe's context; `shared` is the Nix every recipe imports."""
    build = {k: v for k, v in context.items() if k not in META_KEYS and k != "revision"}
    meta = {k: context[k] for k in META_KEYS}
    encode = lambda value: json.dumps(value, sort_keys=True, default=str)  # noqa: E731
    return state.digest(templates_digest(), shared, encode(build)), state.digest(encode(meta))


def recipe_context(matrix: Matrix, variant: Variant) -> dict:
    """What a recipe template is given for `variant`."""
    isa, sm = variant.isa, variant.sm
    disabled = list(isa.disable) if isa else []
    if sm and not sm.cudnn:
        disabled.append("CUDNN")
    summary = f"PyTorch {matrix.pytorch_version} for Python {variant.python.name}"
    if sm:
        summary += f", CUDA {variant.cuda.name}, NVIDIA {sm.name} ({sm.family})"
    if isa:
        summary += f", CPU {isa.name}"
    if variant.accelerator:
        summary += f", Apple GPU ({variant.accelerator.name})"
    context = {
        "header": NIX_HEADER,
        "name": variant.name,
        "summary": summary + ".",
        "python_attr": Ident(variant.python.attr),
        "disabled": sorted(set(disabled)),
        "jobs": matrix.jobs,
        "system_features": list(matrix.system_features),
        "description": _describe(matrix, variant),
        "long_description": _long_description(matrix, variant),
        "platforms": list(variant.platforms),
        "isa": isa.name if isa else None,
        "cpu_flags": " ".join(isa.flags) if isa else None,
        "blas": {"gpu": "cublas", "cpu": "openblas"}.get(variant.kind)
        or (variant.accelerator.blas if variant.accelerator else None),
    }
    if sm:
        context.update(
            cuda_token=variant.cuda.token,
            cuda_version=variant.cuda.name,
            sm=sm.name,
            capabilities=[sm.capability],
            nixpkgs_capabilities=[sm.capability] if matrix.capability_scope == "nixpkgs" else None,
        )
    if variant.accelerator:
        context["accelerator"] = variant.accelerator.name
    return context


def _render(template: str, nix_output: bool, **context) -> str:
    return environment(nix_output).get_template(template).render(**context)


def render(expansion: Expansion, previous: dict[str, state.Entry]) -> dict[str, str]:
    """Every generated file, as {path relative to the root: text}.

    `previous` is the state file as committed: it decides each variant's metadata revision.
    """
    matrix = expansion.matrix
    outputs: dict[str, str] = {}
    url = f"https://github.com/NixOS/nixpkgs/archive/{matrix.nixpkgs_rev}.tar.gz"
    shared = _render("nixpkgs.nix.j2", True, header=NIX_HEADER, url=url, sha256=matrix.nixpkgs_sha256)
    outputs[NIXPKGS_FILE] = shared
    entries: dict[str, state.Entry] = {}
    for variant in expansion.variants:
        context = recipe_context(matrix, variant)
        entry = state.next_entry(previous.get(variant.name), *fingerprints(context, shared))
        entries[variant.name] = entry
        outputs[f"{PKGS_DIR}/{variant.name}.nix"] = _render(
            f"{variant.kind}.nix.j2", True, **context, revision=entry.revision)
    outputs[state.STATE_FILE] = state.dump(entries, HEADER)
    return dict(sorted(outputs.items()))
