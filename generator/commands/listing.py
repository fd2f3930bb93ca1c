"""The variants of an expansion as people and scripts look for them: filtered, described, tabled."""

from __future__ import annotations


from ..errors import GenMatrixError, Location
from ..knowledge import Knowledge, gpu_name_matches, upstream_for, version_key
from ..model import COMPANION, SCOPE_TEXT, Expansion, Matrix, Variant, jobs_text
from ..layout import PKGS_DIR
from ..pipeline.schema import suggest
from ..records import dataclass

TABLE_COLUMNS = ("name", "kind", "python", "cuda", "sm", "isa", "accelerator", "platforms")


@dataclass(frozen=True)
class Filter:
    """Each axis keeps the variants with one of its values; an empty axis keeps all."""

    kinds: tuple[str, ...] = ()
    python: tuple[str, ...] = ()
    cuda: tuple[str, ...] = ()
    sm: tuple[str, ...] = ()  # SM names, e.g. sm90
    isa: tuple[str, ...] = ()
    accelerator: tuple[str, ...] = ()

    def keeps(self, variant: Variant) -> bool:
        if self.kinds and not any(_is_kind(variant, kind) for kind in self.kinds):
            return False
        values = {"python": variant.python, "cuda": variant.cuda, "sm": variant.sm, "isa": variant.isa,
                  "accelerator": variant.accelerator}
        for axis, value in values.items():
            wanted = getattr(self, axis)
            if wanted and (value is None or value.name not in wanted):
                return False
        return True


def _is_kind(variant: Variant, kind: str) -> bool:
    # companions (torchvision, torchaudio) keep the kind of the torch they build on
    if kind == COMPANION:
        return variant.package != "pytorch"
    return variant.kind == kind and variant.package == "pytorch"


def axis_value(knowledge: Knowledge, axis: str, text: str, where: str) -> str:
    """The knowledge name of an axis value typed on the command line (see Knowledge.lookup;
    an SM also by a GPU's name); a located error, with the closest name, when there is none.
    Every command reads its --sm and --gpu values through this one function."""
    name = knowledge.lookup(axis, text)
    if name is None and axis == "sm":  # a card's name stands for its SM, as in `detect --gpu`
        sms = sorted({sm.name for sm, _ in gpu_name_matches(knowledge, text)},
                     key=lambda n: version_key(knowledge.sm[n].capability))
        if len(sms) > 1:
            raise GenMatrixError.at(Location(where), f"'{text}' could be {' or '.join(sms)}",
                                    f"give the SM or the compute capability (e.g. {where} {knowledge.sm[sms[-1]].capability})")
        name = sms[0] if sms else None
    if name is None:
        table = knowledge.table(axis)
        if axis == "sm":  # in capability order, each with the capability people also type
            known = [f"{sm.name} ({sm.capability})"
                     for sm in sorted(table.values(), key=lambda sm: version_key(sm.capability))]
        else:
            known = list(table)
        raise GenMatrixError.at(Location(where), f"unknown {axis} '{text}'",
                                suggest(text, table) or f"known {axis} values: {', '.join(known)}")
    return name


def make_filter(knowledge: Knowledge, *, kinds=(), python=(), cuda=(), sm=(), isa=(), accelerator=()) -> Filter:
    """A Filter from command-line values (an SM as sm61, 61 or 6.1); unknown values are errors."""
    def known(axis: str, values) -> tuple[str, ...]:
        return tuple(axis_value(knowledge, axis, value, f"--{axis}") for value in values)

    return Filter(tuple(kinds), known("python", python), known("cuda", cuda), known("sm", sm), known("isa", isa),
                  known("accelerator", accelerator))


def select(expansion: Expansion, chosen: Filter) -> tuple[Variant, ...]:
    return tuple(v for v in expansion.variants if chosen.keeps(v))


def find(expansion: Expansion, name: str, where: str) -> Variant:
    """The variant called `name`; a located error, with the closest name, when there is none."""
    if name in expansion.by_name:
        return expansion.by_name[name]
    names = [v.name for v in expansion.variants]
    raise GenMatrixError.at(Location(where), f"no variant is called '{name}'",
                            suggest(name, names) or "`gen-matrix list` names every variant")


def facts(matrix: Matrix, variant: Variant) -> dict:
    """Everything about one variant, as plain values (the JSON of `list` and `show`)."""
    sm, isa, cuda, accelerator = variant.sm, variant.isa, variant.cuda, variant.accelerator
    return {
        "name": variant.name,
        "kind": variant.kind,
        "package": variant.package,
        "pytorch": matrix.pytorch_version,
        "python": variant.python.name,
        "cuda": cuda.name if cuda else None,
        # a Jetson runs the driver its JetPack brings: no desktop figure means anything there
        "driver": cuda.driver if cuda and not sm.jetson else None,
        "windows_driver": cuda.driver_for("Windows") if cuda and not sm.jetson else None,
        "sm": sm.name if sm else None,
        "capability": sm.capability if sm else None,
        "family": sm.family if sm else None,
        "gpus": list(sm.gpus) if sm else [],
        "isa": isa.name if isa else None,
        "cpus": list(isa.cpus) if isa else [],
        "cpuinfo": list(isa.cpuinfo) if isa else [],
        "flags": list(isa.flags) if isa else [],
        "msvc": (isa.msvc or None) if isa else None,
        "accelerator": accelerator.name if accelerator else None,
        "rocm": variant.rocm.name if variant.rocm else None,
        "gfx": variant.gfx.name if variant.gfx else None,
        "switches": matrix.switches(variant),
        "switch_reasons": [{"switches": list(names), "why": why} for names, why in matrix.switch_reasons(variant)],
        "nixpkgs_off": [{"feature": row.name, "why": row.why} for row in matrix.nixpkgs_off(variant)],
        "capability_scope": matrix.capability_scope_of(variant) if sm else None,
        "scope_text": SCOPE_TEXT[matrix.capability_scope_of(variant)] if sm else None,
        "jobs": matrix.jobs,
        "job_memory_gb": matrix.knowledge.job_memory_gb(cuda=variant.compiles_gpu_code),
        "jobs_text": jobs_text(matrix, variant),
        "platforms": list(variant.platforms),
        "file": f"{PKGS_DIR}/{variant.name}.nix",
        "build": f"flox build {variant.name}",
        "origin": variant.origin,
        "upstream_wheel": upstream_wheel(matrix, variant),
    }


def upstream_wheel(matrix: Matrix, variant: Variant) -> str | None:
    """PyTorch's own wheel of the matrix's release that already serves the variant (its Python,
    system and SM, by binary compatibility), as "cu126 (pip)" or "cpu"; None: only this matrix
    gives it."""
    return upstream_for(matrix.knowledge, matrix.pytorch_version, variant.python.name, variant.platforms, variant.sm,
                        variant.gfx)


def table(matrix: Matrix, variants: tuple[Variant, ...]) -> list[list[str]]:
    """Rows of TABLE_COLUMNS, the header first, every cell a string ('-' where an axis does not apply)."""
    rows = [[column.upper() for column in TABLE_COLUMNS]]
    for variant in variants:
        described = facts(matrix, variant)
        described["kind"] = COMPANION if variant.package != "pytorch" else variant.kind
        described["platforms"] = " ".join(described["platforms"])
        rows.append([described[column] or "-" for column in TABLE_COLUMNS])
    return rows


def aligned(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
