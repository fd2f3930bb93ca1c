"""Render every output file from the expansion through the Jinja templates.

Python decides what goes in; the templates hold the shape. Every value that reaches a
Nix file passes through `nix`, the one function that writes Nix literals.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from functools import lru_cache

import jinja2

from . import cache, ci, state
from .layout import HEADER, NIXPKGS_FILE, PKGS_DIR, STATE_FILE, TEMPLATES, WORKFLOW_FILE
from .load import UNWRITABLE, unwritable
from .model import Expansion, Matrix, Variant


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

# Backslash first, so that the backslashes the others add are not escaped again.
_NIX_ESCAPES = (("\\", "\\\\"), ('"', '\\"'), ("$", "\\$"), ("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t"))


_STRINGS: dict[str, str] = {}  # str -> its literal: most values recur in every recipe


def nix(value) -> str:
    """`value` as a Nix literal: strings quoted and escaped, lists, attrsets, numbers, null."""
    if value.__class__ is str:
        literal = _STRINGS.get(value)
        if literal is None:
            literal = _STRINGS[value] = _string(value)
        return literal
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
        return _string(value)
    if isinstance(value, (list, tuple)):
        return "[ " + "".join(nix(v) + " " for v in value) + "]" if value else "[ ]"
    if isinstance(value, dict):
        body = "".join(f"{nix(str(k))} = {nix(v)}; " for k, v in sorted(value.items()))
        return "{ " + body + "}" if value else "{ }"
    raise TypeError(f"no Nix literal for {type(value).__name__}")


# What _string must escape or refuse: most strings hold none of it, and are only quoted.
_SPECIAL = re.compile("[" + re.escape("".join(char for char, _ in _NIX_ESCAPES)) + UNWRITABLE + "]")


def _string(value: str) -> str:
    if not _SPECIAL.search(value):
        return '"' + value + '"'
    reason = unwritable(value)
    if reason:  # the loader refuses such text where it is written; this guards the rest
        raise ValueError(f"{value!r} {reason}")
    for char, escaped in _NIX_ESCAPES:
        value = value.replace(char, escaped)
    return '"' + value + '"'


def comment(text: str) -> Verbatim:
    """Text safe on one comment line."""
    return Verbatim(" ".join(str(text).split()))


def cell(text) -> str:
    """Text safe in one Markdown table cell."""
    return " ".join(str(text).split()).replace("|", "\\|")


class _CompiledTemplates(jinja2.FileSystemBytecodeCache):
    """Templates compiled by earlier runs, kept in the cache folder as Python keeps bytecode:
    Jinja checks each one against its template's source; the folder is per version of
    gen-matrix (whose digest covers the environment's settings) and per environment."""

    def load_bytecode(self, bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except OSError:
            pass

    def dump_bytecode(self, bucket) -> None:
        try:
            os.makedirs(self.directory, exist_ok=True)
            super().dump_bytecode(bucket)
        except OSError:  # a cache that cannot be written is no error
            pass


def _compiled_templates(name: str) -> jinja2.BytecodeCache | None:
    try:
        return _CompiledTemplates(str(cache.folder() / "templates" / f"{cache.tool_digest()[:20]}-{name}"))
    except RuntimeError:  # no home folder to keep a cache in
        return None


def new_environment(name: str, filters: dict, finalize=None) -> jinja2.Environment:
    """A Jinja environment over templates/, strict about undefined values, with `filters`;
    `name` tells its compiled templates from other environments'."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        bytecode_cache=_compiled_templates(name),
        undefined=jinja2.StrictUndefined,
        auto_reload=False,  # templates are read once per run
        cache_size=-1,  # and kept in a plain dict, looked up on every render and extends
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
        finalize=finalize,
    )
    env.globals.clear()  # a template sees what it is given, nothing else: rendering skips copying them
    env.filters.update(filters)
    return env


@lru_cache(maxsize=None)
def environment(nix_output: bool) -> jinja2.Environment:
    """The environment of the generated files; for Nix, every `{{ }}` goes through `nix`."""
    return new_environment("nix" if nix_output else "text", {"comment": comment, "cell": cell},
                           finalize=nix if nix_output else None)


def _describe(matrix: Matrix, variant: Variant, **companion_fields: str) -> str:
    # A field the variant has no value for (a CPU variant's {gpus}) is empty.
    fields = dict.fromkeys(("cuda", "sm", "isa", "accelerator", "family", "gpus", "capability", "cpus"), "")
    fields.update(package=variant.package, pytorch=matrix.pytorch_version, **companion_fields)
    fields.update(variant.combination)
    if variant.sm:
        fields.update(family=variant.sm.family, gpus=", ".join(variant.sm.gpus), capability=variant.sm.capability)
    if variant.isa:
        fields.update(cpus=", ".join(variant.isa.cpus))
    return matrix.description["companion" if variant.is_companion else variant.kind].format(**fields)


def _long_description(matrix: Matrix, variant: Variant) -> str:
    lines = [f"PyTorch {matrix.pytorch_version} built from source for Python {variant.python.name}."]
    if variant.is_companion:
        lines = [f"{variant.package} built from source for Python {variant.python.name} against "
                 f"{variant.torch} (PyTorch {matrix.pytorch_version}), for the same GPU and CPU."]
    if variant.sm:
        gpus = ", ".join(variant.sm.gpus) or variant.sm.family
        lines.append(f"GPUs: {gpus} (NVIDIA {variant.sm.family}, compute capability "
                     f"{variant.sm.capability}, {variant.sm.name}).")
        lines.append(f"CUDA {variant.cuda.name}; needs NVIDIA driver {variant.cuda.driver} or newer.")
        if not variant.sm.cudnn and not variant.is_companion:
            lines.append("Built without cuDNN, which no longer supports this GPU.")
    if variant.isa:
        cpus = ", ".join(variant.isa.cpus) or variant.isa.arch
        lines.append(f"CPUs: {cpus}; needs the {variant.isa.name} instruction set "
                     f"({' '.join(variant.isa.cpuinfo)} in /proc/cpuinfo).")
        if variant.isa.disable and not variant.is_companion:
            lines.append(f"Built without {', '.join(variant.isa.disable)}, which need a newer instruction set.")
    if variant.accelerator:
        lines.append(f"Apple Silicon with {variant.accelerator.description or variant.accelerator.name}, "
                     f"BLAS from {variant.accelerator.blas}.")
    return "\n".join(lines) + "\n"


# Context keys that are metadata: a change to them alone bumps the metadata revision.
META_KEYS = ("summary", "description", "long_description", "platforms")


# The templates a template names with a literal: {% extends "x" %}, {% include "x" %}, ...
REFERENCE = re.compile(r"""\{%[-+]?\s*(?:extends|include|import|from)\s+(["'])(.+?)\1""")


def referenced_templates(source: str) -> list[str]:
    """The templates `source` extends, includes or imports, sorted."""
    return sorted({name for _, name in REFERENCE.findall(source)})


@lru_cache(maxsize=None)
def template_digest(name: str) -> str:
    """A template with the templates it extends or includes: a change to any of them changes
    the build fingerprint of the recipes rendered from it, and of no others."""
    source = (TEMPLATES / name).read_text(encoding="utf-8")
    return state.digest(source, *(template_digest(other) for other in referenced_templates(source)))


_canonical = json.JSONEncoder(sort_keys=True, default=str).encode  # one encoder for every fingerprint


@lru_cache(maxsize=None)
def _build_start(digest: str, shared: str):
    """What every build hash of a template's recipes starts with (the template's `digest` and
    nixpkgs.nix), hashed once."""
    return state.hasher(digest, shared)


def fingerprints(template: str, context: dict, shared: str, *depends: str) -> tuple[str, str]:
    """(build, metadata) hashes of a recipe rendered from `template` with `context`; `shared` is
    the Nix every recipe imports, `depends` the build hashes of the recipes it imports (a
    companion's torch)."""
    build = {k: v for k, v in context.items() if k not in META_KEYS}
    meta = {k: context[k] for k in META_KEYS}
    return (state.digest(_canonical(build), *depends, start=_build_start(template_digest(template), shared)),
            state.digest(_canonical(meta)))


def recipe_context(matrix: Matrix, variant: Variant) -> dict:
    """What a recipe template is given for `variant`."""
    isa, sm = variant.isa, variant.sm
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
        "pytorch_version": matrix.pytorch_version,
        "summary": summary + ".",
        "python_attr": Ident(variant.python.attr),
        "disabled": list(variant.disabled_features),
        "jobs": matrix.jobs,
        "system_features": list(matrix.system_features),
        "description": _describe(matrix, variant),
        "long_description": _long_description(matrix, variant),
        "platforms": list(variant.platforms),
        "isa": isa.name if isa else None,
        "cpu_flags": " ".join(isa.flags) if isa else None,
        "blas": variant.blas,
    }
    if sm:
        context.update(
            cuda_token=variant.cuda.token,
            cuda_version=variant.cuda.name,
            sm=sm.name,
            capabilities=[sm.capability],
            nixpkgs_capabilities=[sm.capability] if matrix.capability_scope_of(variant) == "nixpkgs" else None,
        )
    if variant.accelerator:
        context["accelerator"] = variant.accelerator.name
    return context


def companion_context(matrix: Matrix, variant: Variant, torch: Variant, torch_context: dict) -> dict:
    """What a torchvision or torchaudio template is given: the hardware of its torch's recipe,
    whose context is `torch_context`."""
    return {
        "header": NIX_HEADER,
        "name": variant.name,
        "summary": f"{variant.package} for Python {variant.python.name}, built against {torch.name}.",
        "package": Ident(variant.package),
        "python_attr": Ident(variant.python.attr),
        "torch_file": f"/{torch.name}.nix",
        "jobs": matrix.jobs,
        "system_features": list(matrix.system_features),
        "description": _describe(matrix, variant, torch=torch.name, torch_description=torch_context["description"]),
        "long_description": _long_description(matrix, variant),
        "platforms": list(variant.platforms),
        "cuda_support": variant.kind == "gpu",
        "cuda_token": torch_context.get("cuda_token"),
        "nixpkgs_capabilities": torch_context.get("nixpkgs_capabilities"),
        "cuda_version": torch_context.get("cuda_version"),
        "sm": torch_context.get("sm"),
        "isa": torch_context["isa"],
        "cpu_flags": torch_context["cpu_flags"],
        "accelerator": torch_context.get("accelerator"),
    }


def describe(expansion: Expansion, variant: Variant) -> str:
    """The meta.description of `variant`'s recipe."""
    if variant.is_companion:
        torch = expansion.by_name[variant.torch]
        return _describe(expansion.matrix, variant, torch=torch.name,
                         torch_description=_describe(expansion.matrix, torch))
    return _describe(expansion.matrix, variant)


def fold(env: jinja2.Environment, name: str) -> jinja2.nodes.Template:
    """The parsed template `name` with the templates it extends folded in: each block replaced
    by the body of its last override, as Jinja's inheritance would render it. Folded, a recipe
    renders in one function, where Jinja looks up and calls every block of every level on
    every render. Blocks must not call super() or self: the recipe templates need neither."""
    blocks: dict[str, list] = {}
    while True:
        tree = env.parse(*env.loader.get_source(env, name)[:2])
        if any(node.name in ("super", "self") for node in tree.find_all(jinja2.nodes.Name)):
            raise ValueError(f"{name}: a folded template cannot use super() or self")
        for block in tree.find_all(jinja2.nodes.Block):
            blocks.setdefault(block.name, block.body)  # the most derived template comes first
        extends = tree.find(jinja2.nodes.Extends)
        if extends is None:
            break
        if not isinstance(extends.template, jinja2.nodes.Const):
            raise ValueError(f"{name}: a folded template must extend a template named by a literal")
        name = extends.template.value

    def inline(body: list) -> list:
        folded = []
        for node in body:
            if isinstance(node, jinja2.nodes.Block):
                folded += inline(blocks[node.name])
                continue
            for field, value in node.iter_fields():
                if isinstance(value, list):
                    setattr(node, field, inline(value))
            folded.append(node)
        return folded

    tree.body = inline(tree.body)
    return tree


def template(name: str, nix_output: bool) -> jinja2.Template:
    """The template `name` of the generated files, folded (see fold) and compiled once."""
    return _folded(environment(nix_output), name)


@lru_cache(maxsize=None)
def _folded(env: jinja2.Environment, name: str) -> jinja2.Template:
    # Kept with the compiled templates, under the digest of its sources and those it extends.
    compiled = env.bytecode_cache
    bucket = compiled.get_bucket(env, f"{name} folded", None, template_digest(name)) if compiled else None
    if bucket is not None and bucket.code is not None:
        code = bucket.code
    else:
        code = env.compile(fold(env, name), name, str(TEMPLATES / name))
        if bucket is not None:
            bucket.code = code
            compiled.set_bucket(bucket)
    return env.template_class.from_code(env, code, {})  # no globals: see new_environment


def _render(name: str, nix_output: bool, context: dict | tuple = (), **more) -> str:
    """The template `name` rendered with `context` and `more`."""
    return template(name, nix_output).render(context, **more)


@dataclass(frozen=True, eq=False)
class Recipe:
    """A variant's recipe before it is written: its template, what the template is given, and
    its state entry (fingerprints and metadata revision)."""

    variant: Variant
    template: str
    context: dict
    entry: state.Entry


def shared_nix(matrix: Matrix) -> str:
    """nix/nixpkgs.nix: the pin, its config and the matrix's overlays."""
    url = f"https://github.com/NixOS/nixpkgs/archive/{matrix.nixpkgs_rev}.tar.gz"
    return _render(
        "nixpkgs.nix.j2", True, header=NIX_HEADER, url=url, sha256=matrix.nixpkgs_sha256,
        torch_source=matrix.torch_source, config=dict(matrix.nixpkgs_config),
        patches=[(Ident(attr), [{"url": p.url, "hash": p.hash} for p in patches]) for attr, patches in matrix.patches])


def recipes(expansion: Expansion, previous: dict[str, state.Entry], shared: str) -> tuple[Recipe, ...]:
    """Every variant's recipe, unrendered. `previous` is the state file as committed: it decides
    each variant's metadata revision; `shared` is the text of nix/nixpkgs.nix."""
    matrix = expansion.matrix
    made: dict[str, Recipe] = {}
    # Torch recipes first: a companion's build hash includes its torch's.
    for variant in sorted(expansion.variants, key=lambda v: v.is_companion):
        if variant.is_companion:
            template = f"{variant.package}.nix.j2"
            torch = made[variant.torch]
            context = companion_context(matrix, variant, torch.variant, torch.context)
            hashes = fingerprints(template, context, shared, torch.entry.build)
        else:
            template = f"{variant.kind}.nix.j2"
            context = recipe_context(matrix, variant)
            hashes = fingerprints(template, context, shared)
        made[variant.name] = Recipe(variant, template, context,
                                    state.next_entry(previous.get(variant.name), *hashes))
    return tuple(made.values())


def files(expansion: Expansion, shared: str, planned: tuple[Recipe, ...]) -> dict[str, str]:
    """nix/nixpkgs.nix, the recipes, the state file and the workflow, by path."""
    outputs = {NIXPKGS_FILE: shared}
    for recipe in planned:
        outputs[f"{PKGS_DIR}/{recipe.variant.name}.nix"] = _render(
            recipe.template, True, recipe.context, revision=recipe.entry.revision)
    outputs[STATE_FILE] = state.dump({r.variant.name: r.entry for r in planned}, HEADER)
    outputs[WORKFLOW_FILE] = _render("flox-variants.yml.j2", False, header=f"# {HEADER}",
                                        **ci.workflow_context(expansion))
    return dict(sorted(outputs.items()))
