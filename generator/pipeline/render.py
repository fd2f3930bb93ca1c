"""Plan every variant's recipe from the expansion, and render the Nix files.

A recipe is a short call into the Nix library (nix/lib): Python decides the values, the
templates hold the shape of the call, and every value that reaches a Nix file passes
through `nixvalue.nix`, the one function that writes Nix literals. Each recipe carries its
state entry: its build identities (identity.py) and its metadata revision. The library
itself is copied from gen-matrix's own nix/ folder.
"""

from __future__ import annotations

from pathlib import Path

from . import identity, state
from .. import layout
from ..layout import FLAKE_FILE, PINS_FILE, PKGS_DIR, RELEASE_FILE
from ..model import Expansion, Matrix, Variant
from ..records import dataclass
from ..templating import environment
from .nixvalue import NIX_HEADER, Verbatim


# --- what a recipe is given -------------------------------------------------------------

def _describe(matrix: Matrix, variant: Variant, **companion_fields: str) -> str:
    # A field the variant has no value for (a CPU variant's {gpus}) is empty.
    fields = dict.fromkeys(("cuda", "sm", "isa", "accelerator", "rocm", "gfx", "family", "gpus", "capability",
                            "cpus"), "")
    fields.update(package=variant.package, pytorch=matrix.pytorch_version, **companion_fields)
    fields.update(variant.combination)
    if variant.sm:
        fields.update(family=variant.sm.family, gpus=", ".join(variant.sm.gpus), capability=variant.sm.capability)
    if variant.gfx:
        fields.update(family=variant.gfx.family, gpus=", ".join(variant.gfx.gpus))
    if variant.isa:
        fields.update(cpus=", ".join(variant.isa.cpus))
    return matrix.description["companion" if variant.is_companion else variant.kind].format(**fields)


def describe(expansion: Expansion, variant: Variant) -> str:
    """The meta.description of `variant`'s recipe."""
    if variant.is_companion:
        return _describe_companion(expansion.matrix, variant, describe(expansion, expansion.by_name[variant.torch]))
    return _describe(expansion.matrix, variant)


def _describe_companion(matrix: Matrix, variant: Variant, torch_description: str) -> str:
    return _describe(matrix, variant, torch=variant.torch, torch_description=torch_description)


def _long_description(matrix: Matrix, variant: Variant) -> str:
    lines = [f"PyTorch {matrix.pytorch_version} built from source for Python {variant.python.name}."]
    if variant.is_companion:
        lines = [f"{variant.package} built from source for Python {variant.python.name} against "
                 f"{variant.torch} (PyTorch {matrix.pytorch_version}), for the same GPU and CPU."]
    if variant.sm:
        gpus = ", ".join(variant.sm.gpus) or variant.sm.family
        lines.append(f"GPUs: {gpus} (NVIDIA {variant.sm.family}, compute capability "
                     f"{variant.sm.capability}, {variant.sm.name}).")
        lines.append(f"CUDA {variant.cuda.name}; needs a JetPack whose CUDA is {variant.cuda.name} (a Jetson runs no "
                     "desktop driver)." if variant.sm.jetson else
                     f"CUDA {variant.cuda.name}; needs NVIDIA driver {variant.cuda.driver} or newer.")
        if not variant.sm.cudnn and not variant.is_companion:
            lines.append("Built without cuDNN, which no longer supports this GPU.")
    if variant.gfx:
        gpus = ", ".join(variant.gfx.gpus) or variant.gfx.family
        lines.append(f"GPUs: {gpus} (AMD {variant.gfx.family}, {variant.gfx.name}).")
        lines.append(f"ROCm {variant.rocm.name}; needs the amdgpu kernel driver of a Linux that runs ROCm "
                     f"{variant.rocm.name}.")
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
    if variant.gfx:
        summary += f", ROCm {variant.rocm.name}, AMD {variant.gfx.name} ({variant.gfx.family})"
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
    if variant.rocm is not None:
        return f"rocm{variant.rocm.name}-{variant.gfx.name}-{variant.isa.name}"
    if variant.cuda is None:
        return f"cpu-{variant.isa.name}"
    return f"cuda{variant.cuda.name}-{variant.sm.name}-{variant.isa.name}"


def torch_build(matrix: Matrix, variant: Variant) -> dict:
    """What goes into a torch variant's heavy derivation, as nix/lib/torch.nix takes it: the
    variant's build identity. Nothing here may be metadata. A ROCm variant's release and gfx
    target are keys of their own, which the other kinds' builds (and identities) lack. A list
    is a tuple here, which nix() and JSON write as a list: the matrix's and the knowledge's own
    tuples, shared by the variants, not a copy for each."""
    isa, sm, source = variant.isa, variant.sm, matrix.torch_source
    rocm = {} if variant.rocm is None else {"rocm": variant.rocm.name, "gpuTargets": [variant.gfx.name]}
    return {
        "python": variant.python.name,
        "version": matrix.pytorch_version,
        "label": store_label(variant),
        "source": None if source is None else {"owner": source.owner, "repo": source.repo,
                                               "rev": source.rev, "hash": source.hash},
        "cuda": variant.cuda.name if variant.cuda else None,
        "capabilities": (sm.capability,) if sm else (),
        "capabilityScope": matrix.capability_scope_of(variant) if sm else "torch",
        **rocm,
        "cpuFlags": isa.flags if isa else (),
        "disabledFeatures": variant.disabled_features,
        "environment": variant.environment,
        "blas": "openblas" if variant.kind == "cpu" else None,
        "systemFeatures": matrix.system_features,
        "jobMemoryGib": matrix.knowledge.job_memory_gb(cuda=variant.compiles_gpu_code),
        "fixes": tuple(sorted(matrix.knowledge.fixes[name].stem for name in variant.fixes)),
        "passthru": {
            # Consumers (a vLLM build, say) read the capability in its dotted form.
            "gpuArch": sm.capability if sm else (variant.gfx.name if variant.gfx
                                                 else variant.accelerator.name if variant.accelerator else None),
            "cpuISA": isa.name if isa else None,
            "blasProvider": variant.blas,
            "cudaVersion": variant.cuda.name if variant.cuda else None,
            # build.compiler_cache: the torch's folder under the cache
            # (nix/fixes/compiler-cache-ccache.nix); absent without it, so that a matrix without
            # the option keeps its store paths
            **({"compilerCacheGroup": variant.compiler_cache_group} if matrix.compiler_cache else {}),
        } | ({"rocmVersion": variant.rocm.name} if variant.rocm else {}),
    }


def _meta(matrix: Matrix, variant: Variant, description: str) -> dict:
    """What only the published wrapper carries; the revision is added from the state."""
    return {"pname": variant.name, "description": description,
            "longDescription": _long_description(matrix, variant), "platforms": variant.platforms}


def pin_data(matrix: Matrix, name: str) -> dict:
    """A pin as nix/pins.nix holds it."""
    pin = next(p for p in matrix.pins if p.name == name)
    return {"rev": pin.rev, "sha256": pin.sha256,
            "config": dict(pin.config),  # a list is a tuple here, which nix() and JSON write as a list
            "patches": {attr_: [{"url": p.url, "hash": p.hash} for p in patches] for attr_, patches in pin.patches}}


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
    identity.check_fixes(matrix, root, fix_stems)
    sources = identity.Sources.read(root, fix_stems)
    wrapper = identity.wrapper(sources)
    pins = {pin.name: pin_data(matrix, pin.name) for pin in matrix.pins}  # a few pins, thousands of variants
    made: dict[str, Recipe] = {}
    # Torch recipes first: a companion's build identity includes its torch's.
    for variant in sorted(expansion.variants, key=lambda v: v.is_companion):
        context = {"header": NIX_HEADER, "name": variant.name, "summary": _summary(matrix, variant)}
        if variant.is_companion:
            torch = made[variant.torch]
            meta = _meta(matrix, variant, _describe_companion(matrix, variant, torch.description))
            template = "companion.nix.j2"
            build = {"systemFeatures": matrix.system_features}
            context.update(package=variant.package, torch_file=Verbatim(f"./{variant.torch}.nix"), build=build)
            build_identity = identity.companion(sources, variant.package, build, torch.entry.build)
        else:
            meta = _meta(matrix, variant, _describe(matrix, variant))
            template = "torch.nix.j2"
            build = torch_build(matrix, variant)
            context.update(pin=variant.pin, build=build)
            fixes = tuple(matrix.knowledge.fixes[name].stem for name in variant.fixes)
            build_identity = identity.torch(sources, fixes, pins[variant.pin], build)
        entry = state.next_entry(previous.get(variant.name), build_identity, identity.metadata(meta), wrapper)
        meta["revision"] = entry.revision  # after its digest: the revision is the state's, not metadata
        context["meta"] = meta
        made[variant.name] = Recipe(variant, template, context, entry)
    return tuple(made.values())


def library_files() -> dict[str, str]:
    """gen-matrix's Nix library, as it is written into nix/ of the repository."""
    library = layout.LIBRARY
    files = {f"nix/lib/{path.name}": path.read_text(encoding="utf-8") for path in (library / "lib").glob("*.nix")}
    files.update({f"nix/fixes/{path.name}": path.read_text(encoding="utf-8")
                  for path in (library / "fixes").glob("*.nix")})
    return files


def jobs(expansion: Expansion) -> dict[str, list[tuple[str, str]]]:
    """release.nix's jobs: by system, each variant's name and the pin it evaluates with (a
    companion's torch's), in name order."""
    by_system: dict[str, list[tuple[str, str]]] = {}
    for variant in sorted(expansion.variants, key=lambda v: v.name):
        pin = expansion.by_name[variant.torch].pin if variant.is_companion else variant.pin
        by_system.setdefault(variant.system, []).append((variant.name, pin))
    return dict(sorted(by_system.items()))


def flake(expansion: Expansion, gen_matrix: str | None) -> dict[str, str]:
    """flake.nix: release.nix's jobs on each system of the matrix, the pins as inputs (named
    nixpkgs-PIN), and the smoke checks where `gen_matrix`, the flake reference of the gen-matrix
    that runs them, is known."""
    pins = [pin.name for pin in expansion.matrix.pins]
    text = environment(True).get_template("flake.nix.j2").render(
        header=NIX_HEADER, description="PyTorch builds of a gen-matrix matrix",
        inputs=[(f"nixpkgs-{pin.name}", f"github:NixOS/nixpkgs/{pin.rev}") for pin in expansion.matrix.pins],
        pins=[(pin, f"nixpkgs-{pin}") for pin in pins], shell_pin=pins[0], gen_matrix=gen_matrix,
        systems=sorted({variant.system for variant in expansion.variants}))  # release.nix's jobs' systems
    return {FLAKE_FILE: text}


def files(expansion: Expansion, planned: tuple[Recipe, ...]) -> dict[str, str]:
    """The library, nix/pins.nix, the recipes and release.nix, by path."""
    matrix = expansion.matrix
    nix_env = environment(True)
    outputs = library_files()
    outputs[PINS_FILE] = nix_env.get_template("pins.nix.j2").render(
        header=NIX_HEADER, pins=[(pin, pin_data(matrix, pin.name)) for pin in matrix.pins])
    outputs[RELEASE_FILE] = nix_env.get_template("release.nix.j2").render(header=NIX_HEADER, systems=jobs(expansion))
    # each template looked up once: a lookup checks the template file for changes
    templates = {name: nix_env.get_template(name) for name in sorted({recipe.template for recipe in planned})}
    for recipe in planned:
        outputs[f"{PKGS_DIR}/{recipe.variant.name}.nix"] = templates[recipe.template].render(recipe.context)
    return dict(sorted(outputs.items()))
