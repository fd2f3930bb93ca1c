"""Render every output file from the expansion.

A recipe is a short call into the Nix library (nix/lib): Python decides the values, the
templates hold the shape of the call, and every value that reaches a Nix file passes
through `nix`, the one function that writes Nix literals. The library itself is copied
from gen-matrix's own nix/ folder.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

import jinja2

from . import load, nixtext, state
from ..errors import GenMatrixError, Location
from ..layout import HEADER, LIBRARY, PINS_FILE, PKGS_DIR, TEMPLATES
from .load import UNWRITABLE, unwritable
from ..knowledge import JOB_MEMORY_GB
from ..model import Expansion, Matrix, Variant


class Verbatim(str):
    """Text written into a Nix file as is: only comments, the header and checked names."""


NIX_HEADER = Verbatim(f"# {HEADER}")

# Backslash first, so that the backslashes the others add are not escaped again.
_NIX_ESCAPES = (("\\", "\\\\"), ('"', '\\"'), ("$", "\\$"), ("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t"))
# What a string must escape or refuse: most strings hold none of it, and are only quoted.
_SPECIAL = re.compile("[" + re.escape("".join(char for char, _ in _NIX_ESCAPES)) + UNWRITABLE + "]")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_'-]*$")
# Words Nix reads as syntax where an attribute name would stand.
NIX_KEYWORDS = frozenset({"assert", "else", "if", "in", "inherit", "let", "or", "rec", "then", "with"})


def attr(name: str) -> Verbatim:
    """An attribute name: as is where Nix reads it as a plain name, else a quoted string."""
    if _IDENTIFIER.match(name) and name not in NIX_KEYWORDS:
        return Verbatim(name)
    return Verbatim(_string(name))


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
        return _string(value)
    if isinstance(value, (list, tuple)):
        return "[ " + "".join(nix(v) + " " for v in value) + "]" if value else "[ ]"
    if isinstance(value, dict):
        body = "".join(f"{attr(str(k))} = {nix(v)}; " for k, v in sorted(value.items()))
        return "{ " + body + "}" if value else "{ }"
    raise TypeError(f"no Nix literal for {type(value).__name__}")


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


def new_environment(filters: dict, finalize=None) -> jinja2.Environment:
    """A Jinja environment over templates/, strict about undefined values, with `filters`."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
        finalize=finalize,
    )
    env.filters.update(filters)
    return env


def environment(nix_output: bool) -> jinja2.Environment:
    """The environment of the generated files; for Nix, every `{{ }}` goes through `nix`."""
    return new_environment({"comment": comment, "cell": cell, "attr": attr},
                           finalize=nix if nix_output else None)


# --- what a recipe is given -------------------------------------------------------------

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


def describe(expansion: Expansion, variant: Variant) -> str:
    """The meta.description of `variant`'s recipe."""
    if variant.is_companion:
        torch = expansion.by_name[variant.torch]
        return _describe(expansion.matrix, variant, torch=torch.name,
                         torch_description=_describe(expansion.matrix, torch))
    return _describe(expansion.matrix, variant)


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


def _summary(matrix: Matrix, variant: Variant) -> str:
    if variant.is_companion:
        return f"{variant.package} for Python {variant.python.name}, built against {variant.torch}."
    summary = f"PyTorch {matrix.pytorch_version} for Python {variant.python.name}"
    if variant.sm:
        summary += f", CUDA {variant.cuda.name}, NVIDIA {variant.sm.name} ({variant.sm.family})"
    if variant.isa:
        summary += f", CPU {variant.isa.name}"
    if variant.accelerator:
        summary += f", Apple GPU ({variant.accelerator.name})"
    return summary + "."


def store_label(variant: Variant) -> str:
    """The variant's axes beside Python, which end its heavy builds' store names: nixpkgs
    names every torch python3.13-torch-2.10.0, whatever it was built for."""
    if variant.kind == "darwin":
        return variant.accelerator.name
    if variant.cuda is None:
        return f"cpu-{variant.isa.name}"
    return f"cuda{variant.cuda.name}-{variant.sm.name}-{variant.isa.name}"


def torch_build(matrix: Matrix, variant: Variant) -> dict:
    """What goes into a torch variant's heavy derivation, as nix/lib/torch.nix takes it: the
    variant's build identity. Nothing here may be metadata."""
    isa, sm, source = variant.isa, variant.sm, matrix.torch_source
    environment_ = dict(variant.accelerator.environment) if variant.accelerator else {}
    if variant.kind == "cpu":
        environment_["BLAS"] = "OpenBLAS"
    return {
        "python": variant.python.name,
        "version": matrix.pytorch_version,
        "label": store_label(variant),
        "source": None if source is None else {"owner": source.owner, "repo": source.repo,
                                               "rev": source.rev, "hash": source.hash},
        "cuda": variant.cuda.name if variant.cuda else None,
        "capabilities": [sm.capability] if sm else [],
        "capabilityScope": matrix.capability_scope_of(variant) if sm else "torch",
        "cpuFlags": list(isa.flags) if isa else [],
        "disabledFeatures": list(variant.disabled_features),
        "environment": environment_,
        "blas": "openblas" if variant.kind == "cpu" else None,
        "systemFeatures": list(matrix.system_features),
        "jobMemoryGib": JOB_MEMORY_GB["cuda" if variant.cuda else "cpu"],
        "fixes": sorted(matrix.knowledge.fixes[name].stem for name in variant.fixes),
        "passthru": {
            # Consumers (a vLLM build, say) read the capability in its dotted form.
            "gpuArch": sm.capability if sm else (variant.accelerator.name if variant.accelerator else None),
            "cpuISA": isa.name if isa else None,
            "blasProvider": variant.blas,
            "cudaVersion": variant.cuda.name if variant.cuda else None,
        },
    }


def _meta(matrix: Matrix, variant: Variant, description: str) -> dict:
    """What only the published wrapper carries; the revision is added from the state."""
    return {"pname": variant.name, "description": description,
            "longDescription": _long_description(matrix, variant), "platforms": list(variant.platforms)}


def pin_data(matrix: Matrix, name: str) -> dict:
    """A pin as nix/pins.nix holds it."""
    pin = next(p for p in matrix.pins if p.name == name)
    return {"rev": pin.rev, "sha256": pin.sha256,
            "config": {key: list(value) if isinstance(value, tuple) else value for key, value in pin.config.items()},
            "patches": {attr_: [{"url": p.url, "hash": p.hash} for p in patches] for attr_, patches in pin.patches}}


def pin_identity(matrix: Matrix, name: str) -> dict:
    """A pin as it goes into build identities. Its sha256 is left out: fetchTarball names
    what it unpacks by its content, so a hash filled in for the same rev fetches the same
    store path, and no derivation built on it changes. (A wrong hash fails the fetch, which
    `gen-matrix eval` reports.) It stays null, as it was before one was filled in, so that
    identities recorded then still hold."""
    return dict(pin_data(matrix, name), sha256=None)


# --- build identities --------------------------------------------------------------------

_JINJA_COMMENT = re.compile(r"\{#.*?#\}", re.DOTALL)


def _canonical(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class Sources:
    """The Nix and template text build identities are made from, read once per run, in the
    form Nix reads it (nixtext.significant): a comment or reformat changes no identity."""

    files: dict  # name -> significant text: "lib/torch.nix", "fixes/x.nix", "templates/torch.nix.j2"

    @classmethod
    def read(cls, root: Path, fixes: set[str]) -> "Sources":
        files = {}
        for path in sorted((LIBRARY / "lib").glob("*.nix")):
            files[f"lib/{path.name}"] = nixtext.significant(path.read_text(encoding="utf-8"))
        for stem in sorted(fixes):
            # the repository's own fix files are the user's: read as any input, bounded, UTF-8 checked
            name = f"nix/fixes/{stem}.nix"
            text = load.read_text(_fix_file(root, stem), name, hint=f"write {name} as UTF-8 Nix, or remove its fix")
            files[f"fixes/{stem}.nix"] = nixtext.significant(text or "")
        for name in ("torch.nix.j2", "companion.nix.j2", "pins.nix.j2"):
            text = _JINJA_COMMENT.sub("", (TEMPLATES / name).read_text(encoding="utf-8"))
            files[f"templates/{name}"] = nixtext.significant(text)
        return cls(files)

    def digest(self, *names: str, data=None, more: tuple[str, ...] = ()) -> str:
        hasher = hashlib.sha256()
        for name in names:
            hasher.update(f"{name}\0{self.files[name]}\0".encode("utf-8"))
        hasher.update(_canonical(data).encode("utf-8"))
        for part in more:
            hasher.update(f"\0{part}".encode("utf-8"))
        return hasher.hexdigest()


def shipped_fixes() -> set[str]:
    """The fixes gen-matrix ships in its library (and writes into nix/fixes/)."""
    return {path.stem for path in (LIBRARY / "fixes").glob("*.nix")}


def _fix_file(root: Path, stem: str) -> Path:
    """A fix's Nix file: gen-matrix's own, or one the matrix's repository keeps in nix/fixes/."""
    return LIBRARY / "fixes" / f"{stem}.nix" if stem in shipped_fixes() else root / "nix" / "fixes" / f"{stem}.nix"


def check_fixes(matrix: Matrix, root: Path, stems: set[str]) -> None:
    """Every fix a variant uses has its file: gen-matrix's own, or the repository's."""
    absent = sorted(stem for stem in stems if not _fix_file(root, stem).is_file())
    if absent:
        raise GenMatrixError.at(Location(matrix.file), f"no file for the fix '{absent[0]}': nix/fixes/{absent[0]}.nix",
                                "write the fix there (a set with config, overlay or torch, as gen-matrix's own "
                                "fixes are), or remove its row under knowledge.fixes")


TORCH_SOURCES = ("lib/default.nix", "lib/nixpkgs.nix", "lib/torch.nix", "lib/compile.nix", "templates/torch.nix.j2",
                 "templates/pins.nix.j2")
COMPANION_SOURCES = ("lib/default.nix", "lib/companion.nix", "lib/compile.nix", "templates/companion.nix.j2")
WRAPPER_SOURCES = ("lib/default.nix", "lib/wrapper.nix")


@dataclass(frozen=True, eq=False)
class Recipe:
    """A variant's recipe before it is written: its template, what the template is given,
    and its state entry (build identities and metadata revision)."""

    variant: Variant
    template: str
    context: dict
    entry: state.Entry

    @property
    def description(self) -> str:
        return self.context["meta"]["description"]


def recipes(expansion: Expansion, previous: dict[str, state.Entry], root: Path) -> tuple[Recipe, ...]:
    """Every variant's recipe, unrendered. `previous` is the state file as committed: it
    decides each variant's metadata revision."""
    matrix = expansion.matrix
    fix_stems = {matrix.knowledge.fixes[name].stem for v in expansion.variants for name in v.fixes}
    check_fixes(matrix, root, fix_stems)
    sources = Sources.read(root, fix_stems)
    wrapper = sources.digest(*WRAPPER_SOURCES)
    made: dict[str, Recipe] = {}
    # Torch recipes first: a companion's build identity includes its torch's.
    for variant in sorted(expansion.variants, key=lambda v: v.is_companion):
        description = describe(expansion, variant)
        meta = _meta(matrix, variant, description)
        context = {"header": NIX_HEADER, "name": variant.name, "summary": _summary(matrix, variant)}
        if variant.is_companion:
            torch = made[variant.torch]
            template = "companion.nix.j2"
            build = {"systemFeatures": list(matrix.system_features)}
            context.update(package=variant.package, torch_file=Verbatim(f"./{variant.torch}.nix"), build=build)
            identity = sources.digest(*COMPANION_SOURCES, data={"package": variant.package, "build": build},
                                      more=(torch.entry.build,))
        else:
            template = "torch.nix.j2"
            build = torch_build(matrix, variant)
            context.update(pin=variant.pin, build=build)
            fixes = tuple(f"fixes/{matrix.knowledge.fixes[name].stem}.nix" for name in variant.fixes)
            identity = sources.digest(*TORCH_SOURCES, *fixes, data={"pin": pin_identity(matrix, variant.pin), "build": build})
        entry = state.next_entry(previous.get(variant.name), identity, state.digest(_canonical(meta)), wrapper)
        context["meta"] = dict(meta, revision=entry.revision)
        made[variant.name] = Recipe(variant, template, context, entry)
    return tuple(made.values())


def library_files() -> dict[str, str]:
    """gen-matrix's Nix library, as it is written into nix/ of the repository."""
    files = {f"nix/lib/{path.name}": path.read_text(encoding="utf-8") for path in (LIBRARY / "lib").glob("*.nix")}
    files.update({f"nix/fixes/{path.name}": path.read_text(encoding="utf-8")
                  for path in (LIBRARY / "fixes").glob("*.nix")})
    return files


def files(expansion: Expansion, planned: tuple[Recipe, ...]) -> dict[str, str]:
    """The library, nix/pins.nix and the recipes, by path."""
    matrix = expansion.matrix
    nix_env = environment(True)
    outputs = library_files()
    outputs[PINS_FILE] = nix_env.get_template("pins.nix.j2").render(
        header=NIX_HEADER, pins=[(pin, pin_data(matrix, pin.name)) for pin in matrix.pins])
    for recipe in planned:
        outputs[f"{PKGS_DIR}/{recipe.variant.name}.nix"] = nix_env.get_template(recipe.template).render(recipe.context)
    return dict(sorted(outputs.items()))
