"""adopt, reporting: the matrix run through the pipeline, what it generates compared with
every recipe, and the report: the names it reproduces, what the takeover costs, what it
cannot carry over and what `generate` would change."""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import field
from pathlib import Path

import yaml

from ...errors import shortened
from ...knowledge import Knowledge
from ...layout import MANIFEST_FILE as MANIFEST_FILE_FLOX, PKGS_DIR
from ...outputs.workflow import LOCK_COMMAND
from ...model import SCOPE_TEXT
from ...pipeline import expand, load, render, validate
from ...records import dataclass
from .reading import FIX_SIGNS, Recipe

MATRIX_FILE = "matrix.yaml"
# How many of a group's differing subjects (pnames, flags) the report names before it counts them.
SUBJECTS_SHOWN = 4
# The most characters of a recipe's own value (a pname, a flag) the report shows; a longer one is
# shown shortened, with its length.
VALUE_CHARS = 200
# Variables a recipe exports that gen-matrix sets its own way: the ISA's flags, the job
# count from the machine, and a companion's SM.
# The facts a companion's published package gives from its torch (nix/lib/default.nix).
COMPANION_PASSTHRU = ("gpuArch", "cpuISA", "cudaVersion")
_OWN_EXPORTS = {"CXXFLAGS", "CFLAGS", "MAX_JOBS", "TORCH_CUDA_ARCH_LIST", "FORCE_CUDA"}


@dataclass(frozen=True)
class Adoption:
    """The matrix adopt wrote for a folder of recipes, and what it says of each recipe."""

    matrix: dict
    text: str
    names: tuple[str, ...]  # the recipes'
    generated: tuple[str, ...]  # what the matrix generates
    pins_differ: tuple[str, ...]  # recipes whose generated pin is another revision
    lost: dict = field(default_factory=dict)  # recipe -> facts not carried, with reasons
    changes: dict = field(default_factory=dict)  # recipe -> what generate changes, and why
    warnings: tuple[str, ...] = ()
    builds: dict = field(default_factory=dict)  # kind (gpu, cpu, darwin, companion) -> builds of the takeover
    minutes: int = 0  # their build time, by the knowledge table's build_costs
    replaced: tuple[str, ...] = ()  # files of the repository that generate writes over, beside the recipes
    updated: tuple[str, ...] = ()  # files of the repository of which generate rewrites its own parts
    cuda_rebuilds: int = 0  # GPU variants whose SM nixpkgs' CUDA libraries (magma, NCCL) are rebuilt for
    rebuilt_off: dict = field(default_factory=dict)  # library (NCCL) -> how many of those nixpkgs builds without it
    lock: tuple[str, ...] = ()  # what generate changes of what the committed Flox lock holds (run.lock_staled)

    @property
    def reproduced_names(self) -> tuple[str, ...]:
        return tuple(sorted(set(self.names) & set(self.generated)))

    @property
    def reproduced(self) -> int:
        return len(self.reproduced_names)




def render_matrix(matrix: dict, recipes: int, folder: str) -> str:
    # no $schema line: the schema is gen-matrix's, not in the adopted repository
    header = f"# Adopted by `gen-matrix adopt` from the {recipes} recipes of {folder}.\n"
    return header + "\n" + yaml.safe_dump(matrix, sort_keys=False, default_flow_style=None, width=100)


def _why_export(variant, var: str) -> str:
    feature = var.removeprefix("USE_")
    if variant.isa is not None and feature in variant.isa.disable:
        return f"the knowledge table switches {feature} off for {variant.isa.name}"
    if feature == "CUDNN" and variant.sm is not None and not variant.sm.cudnn:
        return f"current cuDNN no longer supports {variant.sm.name}"
    if variant.accelerator is not None and var in variant.accelerator.environment:
        return f"what {variant.accelerator.name} needs of setup.py"
    return f"the {variant.kind} build's setting"


def _pin_capabilities(knowledge: Knowledge, recipe: Recipe) -> tuple[str, ...] | None:
    """The default config.cudaCapabilities of the CUDA set a recipe's pin builds it with, by
    the knowledge table (the pin's row, else the CUDA release's); None where unknown."""
    cuda = dict(recipe.combination).get("cuda")
    row = knowledge.pins.get(recipe.rev or "")
    if cuda is None:
        return None
    if row is not None:
        return row.default_capabilities(cuda, knowledge.cuda) or None
    return knowledge.cuda[cuda].capabilities if cuda in knowledge.cuda else None


def _changes(matrix, variant, recipe: Recipe) -> tuple[list[str], list[str]]:
    """What generate changes in `recipe` (as `variant`), and what of it is lost."""
    changes, lost = [], []
    knowledge = matrix.knowledge
    dropped = [system for system in recipe.platforms if system not in variant.platforms]
    if dropped:
        changes.append(f"meta.platforms {', '.join(dropped)} dropped: a variant builds for one system, "
                       f"that of its instruction set")
    features = list(matrix.system_features)
    if recipe.system_features is None and features:
        changes.append(f"requiredSystemFeatures {' '.join(features)} added: the matrix's build.system_features, "
                       "which every build of it asks its builder for")
    elif recipe.system_features is not None and list(recipe.system_features) != features:
        lost.append(f"requiredSystemFeatures {list(recipe.system_features)}: the matrix's are {features}")
    changes.append("store name: python<version>-<package>-<version>-<the variant's axes>, named after its variant, "
                   "which tells the variants' builds apart in the store and in build logs")
    torch = recipe.package == "pytorch"  # a companion's fixes, capabilities and CUDA libraries are its torch's
    # A fix is named only where it changes the build: one that changes only which packages may
    # evaluate (allowBroken) is needed where its rule holds, and changes nothing elsewhere.
    for fix in sorted(set(variant.fixes) - recipe.fixes) if torch else ():
        row = knowledge.fixes[fix]
        unless = "; without it the recipe's torch refuses to evaluate" if row.changes == "evaluation" else ""
        changes.append(f"adds the {fix} fix: {row.why}{unless}")
    facts = expand.fix_facts(matrix, variant, variant.pin) if torch else {}
    for fix in sorted(recipe.fixes - set(variant.fixes)) if torch else ():
        row = knowledge.fixes.get(fix)
        if row is None or row.changes == "evaluation":
            continue
        if row.applies(facts):  # left out only because the pin's nixpkgs holds its change (carries)
            changes.append(f"its hand-written {fix} fix dropped: the pin's nixpkgs already holds that change")
        else:
            lost.append(f"its hand-written {fix} fix: the built-in one does not apply to this variant "
                        f"(when {dict(row.when)})")
    build = render.torch_build(matrix, variant)  # a companion takes its torch's CPU flags
    for flag in recipe.flags:
        if flag not in build["cpuFlags"]:
            lost.append(f"hand-written flag {flag}: not among the knowledge table's flags of "
                        f"{variant.isa.name if variant.isa else 'a build without an ISA'}")
    if set(recipe.flags) != set(build["cpuFlags"]):
        changes.append(f"CPU flags {' '.join(build['cpuFlags']) or '(none)'} where the recipe has "
                       f"{' '.join(recipe.flags) or '(none)'} (the knowledge table's flags of {recipe.combination[-1][1]})")
    wanted = variant.exports if torch else {}
    have = dict(recipe.exports)
    for var, value in sorted(wanted.items()):
        if have.get(var) != value:
            changes.append(f"exports {var}={value}: {_why_export(variant, var)}"
                           + (f" (the recipe: {have[var]})" if var in have else ""))
    for var, value in recipe.exports:
        if var in _OWN_EXPORTS or wanted.get(var) == value:
            continue
        if var == "PYTORCH_BUILD_VERSION" and "torch-source-version" in variant.fixes:
            continue
        if var == "CUDAFLAGS" and "cccl-include" in variant.fixes:
            continue
        if var.startswith("USE_") and value == "0" and recipe.kind in ("cpu", "darwin") and var[4:] in ("CUDA", "CUDNN", "CUBLAS"):
            changes.append(f"export {var}=0: dropped; the build has no CUDA (cudaSupport false), so setup.py "
                           "finds none to use")
            continue
        lost.append(f"export {var}={value}: set by hand, gen-matrix sets no such variable")
    for flag in recipe.cmake_flags:
        switch = re.fullmatch(r"-DUSE_([A-Z0-9_]+)=(OFF|0|FALSE)", flag)
        if switch and (wanted.get(f"USE_{switch.group(1)}") == "0"
                       or switch.group(1) == "CUDA" and recipe.kind != "gpu"):
            changes.append(f"cmakeFlags {flag}: never reached CMake (nixpkgs builds torch through setup.py); "
                           f"generate switches USE_{switch.group(1)} off where setup.py reads it")
            continue
        carried = any(sign in flag for fix in variant.fixes for sign in FIX_SIGNS.get(fix, ()))
        if carried or "cccl-include" in variant.fixes and flag.startswith("-DCUDA_VERSION="):
            changes.append(f"cmakeFlags {flag}: nixpkgs builds torch through setup.py, so it never reached CMake; "
                           "the built-in fix does its work in the build")
        else:
            lost.append(f"cmakeFlags {flag}: never reached CMake (nixpkgs builds torch through setup.py), dropped")
    pinned_jobs = [f"export MAX_JOBS={value}" for var, value in recipe.exports if var == "MAX_JOBS"]
    pinned_jobs += [f"ninjaFlags -j{recipe.jobs}"] if recipe.jobs is not None else []
    if pinned_jobs:
        changes.append(f"{' and '.join(pinned_jobs)}: dropped; the build takes the builder's cores, as many as its "
                       f"free memory allows ({knowledge.job_memory_gb(cuda=True)} GB a CUDA compile job, "
                       f"{knowledge.job_memory_gb(cuda=False)} GB "
                       "another: nix/lib/compile.nix), and the workflow's builds at most build.jobs")
    # a companion's wrapper gives its torch's facts (nix/lib/default.nix)
    passthru = build["passthru"] if torch else {key: build["passthru"][key] for key in COMPANION_PASSTHRU}
    passthru_changes, passthru_lost = _passthru_changes(passthru, recipe)
    changes += passthru_changes
    lost += passthru_lost
    if not torch:
        return changes, lost
    if variant.sm is not None:
        pin_default = _pin_capabilities(knowledge, recipe)
        before = recipe.capabilities or pin_default
        if before is not None and list(before) != [variant.sm.capability]:
            changes.append(f"passthru.cudaCapabilities {' '.join(before)} -> {variant.sm.capability}: "
                           + ("the recipe's own list gives" if recipe.capabilities else "its pin's CUDA set's defaults give")
                           + " way to the variant's SM alone, which torchvision and torchaudio built against it "
                             "compile for")
    if variant.sm is not None:
        changes += _cuda_library_changes(matrix, variant, recipe)
    if recipe.jobs is not None and recipe.jobs != matrix.jobs:
        lost.append(f"ninjaFlags -j{recipe.jobs}: the matrix's build.jobs is {matrix.jobs}")
    for dep in recipe.build_inputs:
        if dep == "openblas" and build["blas"] == "openblas":
            changes.append("buildInputs openblas: dropped; a second copy of the BLAS nixpkgs' torch already links, "
                           "which generate makes OpenBLAS (blas.override { blasProvider = openblas; })")
    return changes, lost


def _passthru_changes(wanted: dict, recipe: Recipe) -> tuple[list[str], list[str]]:
    """What generate changes in the facts a torch recipe's passthru gives consumers, and
    which of the recipe's own it does not carry."""
    changes, lost = [], []
    have = dict(recipe.passthru)
    shown = lambda value: "null" if value is None else value  # noqa: E731
    for key, value in sorted(wanted.items()):
        if key not in have:
            changes.append(f"passthru.{key} = {shown(value)} added: a fact for consumers (a vLLM build, say) that "
                           "every variant gives")
        elif have[key] != value:
            changes.append(f"passthru.{key} {shown(have[key])} -> {shown(value)}: the variant's own value")
    for key in sorted(set(have) - set(wanted)):
        lost.append(f"passthru.{key} = {shown(have[key])}: set by hand, gen-matrix does not carry it")
    return changes, lost


def _cuda_library_changes(matrix, variant, recipe: Recipe) -> list[str]:
    """What generate changes in the CUDA libraries a GPU recipe's torch links: the capabilities
    nixpkgs builds them for (config.cudaCapabilities, by the variant's capability scope), and
    what nixpkgs then turns off (NCCL in a Jetson build)."""
    changes = []
    had = list(recipe.config_capabilities) if recipe.config_capabilities else None
    scope = matrix.capability_scope_of(variant)
    wanted = [variant.sm.capability] if scope == "nixpkgs" else None
    if had != wanted:
        before = " ".join(had) if had else "the pin's defaults"
        after = " ".join(wanted) if wanted else "the pin's defaults"
        changes.append(f"config.cudaCapabilities {before} -> {after}: capability scope {scope}, "
                       f"{SCOPE_TEXT[scope]}")
    jetson = {sm.capability for sm in matrix.knowledge.sm.values() if sm.jetson}
    recipe_jetson_build = bool(had) and any(capability in jetson for capability in had)
    for row in matrix.nixpkgs_off(variant):
        if not recipe_jetson_build:
            changes.append(f"{row.name} off ({' '.join(f'{switch}=0' for switch in row.switches)}) where the "
                           f"recipe's build has it: {row.why}")
    return changes


def takeover(expansion, root: Path | None) -> dict:
    """What taking over costs: a build of every generated variant (a new recipe is a new
    derivation), its time by knowledge build_costs, and the files of the repository at `root`
    that generate writes over whole (`replaced`, beside the recipes) or in part (`updated`)."""
    costs = expansion.matrix.knowledge.build_costs
    builds = Counter("companion" if v.is_companion else v.kind for v in expansion.variants)
    minutes = sum(costs[kind].minutes * count for kind, count in builds.items())
    replaced, updated, lock = [], [], []
    if root is not None:
        from ... import run
        from ...layout import Project
        from ...pipeline import state, write

        outputs = run.outputs(Project(root, root / MATRIX_FILE), expansion, state.read(root))
        for path, text in outputs.items():
            if path.startswith(PKGS_DIR + "/") or not (root / path).is_file():
                continue
            (updated if isinstance(text, write.Merged) else replaced).append(path)
        lock = run.lock_staled(root, outputs)
    rebuilt = [v for v in expansion.variants if v.sm is not None and not v.is_companion
               and expansion.matrix.capability_scope_of(v) == "nixpkgs"]
    off = {name: 0 for name in expansion.matrix.knowledge.nixpkgs_off}
    off.update(Counter(row.name for v in rebuilt for row in expansion.matrix.nixpkgs_off(v)))
    return {"builds": dict(sorted(builds.items())), "minutes": minutes, "replaced": tuple(replaced),
            "updated": tuple(updated), "cuda_rebuilds": len(rebuilt), "rebuilt_off": dict(sorted(off.items())),
            "lock": tuple(lock)}


def check(matrix: dict, text: str, recipes: list[Recipe], folder: str, root: Path | None = None) -> Adoption:
    """Run the matrix through the pipeline and compare what it generates with the recipes."""
    expansion = expand.expand(validate.validate(load.parse(text, MATRIX_FILE)))
    generated = {v.name: v for v in expansion.variants}
    pins = {pin.name: pin.rev for pin in expansion.matrix.pins}
    lost: dict[str, list] = {}
    changes: dict[str, list] = {}
    pins_differ = []
    for recipe in recipes:
        facts = list(recipe.lost)
        variant = generated.get(recipe.name)
        if variant is None:
            facts.append("its name: the matrix does not generate it")
        else:
            if recipe.rev and pins.get(variant.pin) != recipe.rev:
                pins_differ.append(recipe.name)
                facts.append(f"nixpkgs {recipe.rev[:7]}: the matrix builds it against {pins.get(variant.pin, '?')[:7]}")
            pin = next(p for p in expansion.matrix.pins if p.name == variant.pin)
            carried = {key: tuple(value) if isinstance(value, (list, tuple)) else value for key, value in pin.config.items()}
            for key, value in recipe.config:
                if carried.get(key) != value:
                    facts.append(f"nixpkgs config {key} = {json.dumps(value)}: set by hand here, not by every recipe "
                                 "of its pin (a pin's config is all its variants')")
            change, gone = _changes(expansion.matrix, variant, recipe)
            facts += gone
            if change:
                changes[recipe.name] = change
        if facts:
            lost[recipe.name] = facts
    return Adoption(matrix=matrix, text=text, names=tuple(sorted(r.name for r in recipes)),
                    generated=tuple(sorted(generated)), pins_differ=tuple(pins_differ),
                    lost=lost, changes=changes, warnings=tuple(str(w) for w in expansion.warnings),
                    **takeover(expansion, root))



def _grouped(facts: dict) -> list[str]:
    """Lines of a report section: facts that differ only in a recipe's own values (a pname, a
    flag) share their reason, the text after the first ': ', and are said once, with how many
    recipes they concern and an example."""
    by_reason: dict[str, dict[str, list[str]]] = {}
    for name in sorted(facts):
        for fact in facts[name]:
            subject, colon, reason = fact.partition(": ")
            # a recipe's own value (the subject) is shown shortened, with its length
            subject, reason = shortened(subject, VALUE_CHARS), shortened(reason, 4 * VALUE_CHARS)
            # a fact without a reason is its own group
            by_reason.setdefault(reason if colon else fact, {}).setdefault(subject if colon else "", []).append(name)
    lines = []
    for reason, subjects in by_reason.items():
        names = sorted({name for named in subjects.values() for name in named})
        listed = list(subjects)
        if len(listed) > SUBJECTS_SHOWN:
            listed = listed[:SUBJECTS_SHOWN - 1] + [f"{len(subjects) - SUBJECTS_SHOWN + 1} more like them"]
        where = names[0] if len(names) == 1 else f"{len(names)} recipes, e.g. {names[0]}"
        said = f"{'; '.join(listed)}: {reason}" if listed != [""] else reason
        lines.append(f"  - {said} ({where})")
    return lines


def _rebuilt_text(result: Adoption) -> str:
    """What the cost line says of the CUDA libraries built for the SMs the binary cache does
    not serve: each library nixpkgs may turn off (NCCL) only for the builds that have it."""
    count = result.cuda_rebuilds
    if not count:
        return ""
    libraries = ["magma"] + [name for name, off in result.rebuilt_off.items() if off < count]
    text = (f"; for {count} of them, whose SM the binary cache does not serve, {', '.join(libraries)} "
            "and the other CUDA libraries are built too")
    for name, off in result.rebuilt_off.items():
        if off == count:
            text += f" (no {name}: nixpkgs builds none for their SMs)"
        elif off:
            text += f" ({name} for {count - off} of them: nixpkgs builds none for the other {off})"
    return text


def report(result: Adoption) -> str:
    """What `adopt` prints: the matrix, the names it reproduces, what the takeover costs and
    which files it replaces, and each fact it cannot carry over or generate would change,
    once, with how many recipes it concerns."""
    lines = [result.text.rstrip("\n"), ""]
    lines.append(f"gen-matrix adopt: the matrix reproduces {result.reproduced} of {len(result.names)} names"
                 + (f"; {len(result.pins_differ)} recipes would change nixpkgs pin" if result.pins_differ else ""))
    extra = sorted(set(result.generated) - set(result.names))
    if extra:
        lines.append(f"  it also generates {len(extra)} names no recipe has: {', '.join(extra)}")
    if result.builds:
        torches = sum(count for kind, count in result.builds.items() if kind != "companion")
        kinds = ", ".join(f"{count} {kind}" for kind, count in result.builds.items() if kind != "companion")
        companions = result.builds.get("companion", 0)
        lines.append(f"The takeover builds every variant anew: {torches} torch builds ({kinds})"
                     + (f" and {companions} companion builds" if companions else "")
                     + f", about {result.minutes / 60:.0f} build-hours by the knowledge table's build_costs, "
                       "with nothing cached"
                     + _rebuilt_text(result))
    replaced = [f"{len(result.reproduced_names)} recipes under {PKGS_DIR}"] + list(result.replaced)
    lines.append(f"`gen-matrix generate --adopt` replaces {', '.join(replaced)}"
                 + (f"; it rewrites its own parts of {', '.join(result.updated)}" if result.updated else ""))
    if result.lock:
        lines.append(f"It changes what the committed Flox lock holds of {MANIFEST_FILE_FLOX} ({'; '.join(result.lock)}): "
                     f"after it, run `{LOCK_COMMAND}` and commit the lock, or `flox publish` refuses it and the "
                     "workflow's plan job fails")
    lines += [f"warning: {shortened(warning, 4 * VALUE_CHARS)}" for warning in dict.fromkeys(result.warnings)]
    if result.lost:
        lines += ["", f"Not carried over ({sum(map(len, result.lost.values()))} facts of {len(result.lost)} recipes):"]
        lines += _grouped(result.lost)
    if result.changes:
        lines += ["", f"What `gen-matrix generate` would change ({len(result.changes)} recipes):"]
        lines += _grouped(result.changes)
    return "\n".join(lines) + "\n"


