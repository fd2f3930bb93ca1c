"""BUILD_MATRIX.md and the README's generated tables.

Both are rendered from the same expansion as the recipes, so a count in the docs can never
disagree with the files in .flox/pkgs/. The README belongs to the user: gen-matrix rewrites
only what lies between its marker lines and keeps every other line byte for byte.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import replace
from types import MappingProxyType
from typing import Callable, Iterable, Mapping, NamedTuple

from ..errors import Location
from ..knowledge import upstream_for, version_key
from ..layout import HEADER, README_FILE, TEMPLATES
from ..model import KIND_AXES, Expansion, Variant
from ..pipeline.expand import fix_facts
from ..pipeline.load import FloatText
from ..pipeline.render import Recipe
from ..templating import environment
from . import splice as splice_

KIND_TITLES = {"gpu": "NVIDIA GPU (CUDA)", "cpu": "CPU only", "darwin": "Apple Silicon", "rocm": "AMD GPU (ROCm)"}
# As Markdown reads them: a line indented by four spaces or a tab is code, not a marker.
MARKERS = splice_.Markers(re.compile(r"^ {0,3}<!-- gen-matrix:(?:(?P<begin>begin)|(?P<end>end)) (?P<name>[A-Za-z0-9_-]+) -->\s*$"),
                          re.compile(r"^ {0,3}<!-- gen-matrix:"),
                          "<!-- gen-matrix:begin {name} -->", "<!-- gen-matrix:end {name} -->")
_README_BLOCK = re.compile(r"^readme-([A-Za-z0-9_-]+)\.md\.j2$")


def readme_blocks() -> tuple[str, ...]:
    """The names of the README blocks gen-matrix can fill: one template each."""
    return tuple(sorted(m[1] for m in (_README_BLOCK.match(p.name) for p in TEMPLATES.iterdir()) if m))


def _order(variant: Variant) -> tuple:
    """Variants as people scan them: by Python, CUDA release, capability, then ISA."""
    return (version_key(variant.python.name), version_key(variant.cuda.name) if variant.cuda else (),
            version_key(variant.sm.capability) if variant.sm else (),
            version_key(variant.rocm.name) if variant.rocm else (), variant.gfx.name if variant.gfx else "",
            variant.isa.name if variant.isa else "",
            variant.accelerator.name if variant.accelerator else "", variant.name)


def _grouped(variants: Iterable[Variant], key: Callable[[Variant], str | None]) -> dict[str, list[Variant]]:
    """`variants` by `key`, in order; those whose key is None are left out."""
    groups: dict[str, list[Variant]] = {}
    for variant in variants:
        name = key(variant)
        if name is not None:
            groups.setdefault(name, []).append(variant)
    return groups


class Row(NamedTuple):
    """One recipe as the docs list it."""

    name: str
    combination: Mapping[str, str]  # axis -> value
    description: str
    revision: int
    companions: list[str]  # the names of the companions built against it
    package: str
    torch: str | None
    upstream: str | None  # PyTorch's own wheel that already serves it ("cu126 (pip)"); None: only this matrix
    measured: str | None = None  # its last full build as a build job measured it ("2.4 h on 32 cores")


def _measured(found) -> str | None:
    """A full build's measured cost as BUILD_MATRIX.md shows it; None where no full build was
    measured (a wrapper-only build says nothing of the heavy build's)."""
    if found is None:
        return None
    return f"{found.wall_seconds / 3600:.1f} h on {found.cores} cores"


def _json(value) -> str:
    """A config value as JSON: a YAML float is a number there too, as in the recipe's Nix."""
    return json.dumps(value.value if isinstance(value, FloatText) else value)


def _upstream_key(variant: Variant) -> tuple[str, tuple[str, ...], str | None, str | None]:
    return variant.python.name, variant.platforms, variant.sm.name if variant.sm else None, \
        variant.gfx.name if variant.gfx else None


def _upstream(matrix, variant: Variant) -> str | None:
    return upstream_for(matrix.knowledge, matrix.pytorch_version, variant.python.name, variant.platforms, variant.sm,
                        variant.gfx)


def facts(expansion: Expansion, recipes: Iterable[Recipe], measured: Mapping = MappingProxyType({})) -> dict:
    """Everything the docs templates show, computed once from the expansion and its recipes
    (their descriptions, and their metadata revisions as the state file records them), and
    the build costs the repository keeps (`measured`: (variant, what it built) -> the build job's
    Measurement)."""
    matrix = expansion.matrix
    recipe_of = {recipe.variant.name: recipe for recipe in recipes}
    torches = [v for v in expansion.variants if not v.is_companion]
    companions = [v for v in expansion.variants if v.is_companion]
    companions_of = _grouped(companions, lambda v: v.torch)
    by_kind = _grouped(sorted(torches, key=_order), lambda v: v.kind)
    gpu = [v for v in torches if v.kind == "gpu"]

    sms = []
    for group in sorted(_grouped(gpu, lambda v: v.sm.name).values(), key=lambda g: version_key(g[0].sm.capability)):
        sm = group[0].sm
        cudas = sorted({v.cuda.name: v.cuda for v in group}.values(), key=lambda c: version_key(c.name))
        sms.append({
            "name": sm.name, "capability": sm.capability, "family": sm.family, "gpus": list(sm.gpus),
            "min_cuda": sm.min_cuda, "max_cuda": sm.max_cuda, "cudas": [c.name for c in cudas],
            "driver": cudas[0].driver, "windows_driver": cudas[0].driver_for("Windows"), "jetson": sm.jetson, "cudnn": sm.cudnn,
            "variants": len(group),
        })
    gfxs = []
    rocm = [v for v in torches if v.kind == "rocm"]
    for group in sorted(_grouped(rocm, lambda v: v.gfx.name).values(), key=lambda g: g[0].gfx.name):
        gfx = group[0].gfx
        gfxs.append({"name": gfx.name, "family": gfx.family, "gpus": list(gfx.gpus),
                     "rocms": sorted({v.rocm.name for v in group}, key=version_key), "variants": len(group)})
    isas = []
    by_isa = _grouped(torches, lambda v: v.isa.name if v.isa else None)
    for group in sorted(by_isa.values(), key=lambda g: (g[0].isa.arch, g[0].isa.name)):
        isa = group[0].isa
        isas.append({
            "name": isa.name, "arch": isa.arch, "cpus": list(isa.cpus), "flags": list(isa.flags),
            "cpuinfo": list(isa.cpuinfo), "disable": list(isa.disable), "variants": len(group),
            "choose_when": isa.choose_when, "rank": isa.rank,
        })

    # PyTorch's own wheel depends only on the Python, the systems and the SM: each is asked once,
    # not once for each of the many variants that share them
    upstream = {key: _upstream(matrix, v) for key, v in {_upstream_key(v): v for v in torches}.items()}

    def row(variant: Variant) -> Row:
        recipe = recipe_of[variant.name]
        return Row(variant.name, variant.combination, recipe.description, recipe.entry.revision,
                   [c.name for c in companions_of.get(variant.name, ())], variant.package, variant.torch,
                   upstream[_upstream_key(variant)], _measured(measured.get((variant.name, "full"))))

    kinds = [{"kind": s.kind, "title": KIND_TITLES[s.kind], "axes": [{"axis": a, "values": list(v)} for a, v in s.axes],
              "variants": [row(v) for v in by_kind.get(s.kind, ())]}
             for s in matrix.sections]
    per_cuda_sm = Counter((v.cuda.name, v.sm.name) for v in gpu)
    used = Counter(name for v in torches for name in v.fixes)
    # a fix the matrix turned off shows, as off, with the variants it would apply to
    off = [replace(fix, enabled=True) for fix in matrix.knowledge.fixes.values() if not fix.enabled]
    if off:
        for v in torches:
            facts_of_v = fix_facts(matrix, v, v.pin)
            used.update(fix.name for fix in off if fix.applies(facts_of_v))
    capability = {v.sm.name: v.sm.capability for v in gpu}
    summary = [{"kind": KIND_TITLES["gpu"], "cuda": cuda, "sm": sm, "count": count}
               for (cuda, sm), count in sorted(per_cuda_sm.items(), key=lambda item: (
                   version_key(item[0][0]), version_key(capability[item[0][1]])))]
    per_rocm_gfx = Counter((v.rocm.name, v.gfx.name) for v in rocm)
    summary += [{"kind": KIND_TITLES["rocm"], "cuda": f"ROCm {release}", "sm": gfx, "count": count}
                for (release, gfx), count in sorted(per_rocm_gfx.items(), key=lambda item: (version_key(item[0][0]), item[0][1]))]
    for kind in ("cpu", "darwin"):
        if by_kind.get(kind):
            summary.append({"kind": KIND_TITLES[kind], "cuda": None, "sm": None, "count": len(by_kind[kind])})
    return {
        "header": HEADER,
        "pytorch": matrix.pytorch_version,
        "capability_scope": matrix.capability_scope,
        "torch_source": matrix.torch_source,
        "pins": [{
            "name": pin.name, "rev": pin.rev, "sha256": pin.sha256,
            "when": str(pin.when) if pin.when else "every variant no pin above takes",
            "config": ", ".join(f"{key} = {_json(value)}" for key, value in pin.config.items()) or "-",
            "patches": ", ".join(f"{attr}: {', '.join(p.url for p in patches)}" for attr, patches in pin.patches) or "-",
            "variants": sum(1 for v in torches if v.pin == pin.name),
        } for pin in matrix.pins],
        "fixes": [{
            "name": name, "why": fix.why, "variants": used[name], "enabled": fix.enabled,
            "when": ", ".join(f"{key} {'/'.join(value) if isinstance(value, tuple) else json.dumps(value)}"
                              for key, value in fix.when.items()),
        } for name, fix in sorted(matrix.knowledge.fixes.items()) if used[name]],
        "total": len(expansion.variants),
        "torch_count": len(torches),
        "kinds": kinds,
        "measured": any(row.measured for kind in kinds for row in kind["variants"]),
        "kind_axes": dict(KIND_AXES),
        "sms": sms,
        "gfxs": gfxs,
        "isas": isas,
        "summary": summary,
        "companions": [row(v) for v in companions],
        "guide": _guide(by_kind, isas, matrix.knowledge.job_memory_gb(cuda=True)),
    }


def _guide(by_kind: Mapping[str, list[Variant]], isas: list[dict], job_memory_gb: int) -> dict:
    """What the chooser's guide shows beyond the SM and ISA rows: the commands that tell, and
    what a build takes."""
    from ..knowledge import CPU_FLAGS_COMMAND, GPU_QUERY

    return {
        "darwin": [v.name for v in by_kind.get("darwin", ())],
        "cpu": bool(by_kind.get("cpu")),
        "gpu_query": " ".join(GPU_QUERY),
        "cpu_flags_command": CPU_FLAGS_COMMAND,
        # highest rank first: the first ISA whose flags a CPU shows is the one to take
        "isas": sorted(isas, key=lambda isa: (isa["arch"], -isa["rank"])),
        "cpu_flags": sorted({flag for isa in isas for flag in isa["cpuinfo"]}),
        # from builds of the reference collection: hours on a many-core machine, per variant
        "hours": "1 to 3", "disk_gb": 20, "ram_gb": 8, "job_memory_gb": job_memory_gb,
    }


def build_matrix(context: Mapping) -> str:
    """BUILD_MATRIX.md from `facts`."""
    return environment(False).get_template("BUILD_MATRIX.md.j2").render(context)


def render_readme_blocks(context: Mapping) -> dict[str, str]:
    """Each README block's text from `facts`, by name."""
    return {name: environment(False).get_template(f"readme-{name}.md.j2").render(context) for name in readme_blocks()}


def splice(text: str, file: str, blocks: Mapping[str, str]) -> str:
    """Markdown `text` with the lines between each pair of markers replaced by that block's
    text. A marker in a code block is an example of one, the user's like any other line."""
    code = splice_.code_lines(text) if "gen-matrix:" in text else frozenset()
    return splice_.splice(text, MARKERS, blocks, lambda number: Location(file, number), code)[0]


def readme(text: str, context: Mapping) -> str:
    """The README `text` with its blocks filled from `facts`."""
    return splice(text, README_FILE, render_readme_blocks(context))
