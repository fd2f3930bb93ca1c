"""Turn a parsed matrix.yaml into a Matrix, reporting every problem at once."""

from __future__ import annotations

import math
import string
from dataclasses import replace
from types import MappingProxyType

from .. import knowledge as knowledge_
from ..errors import GenMatrixError, Problem
from .load import Document, FloatText
from ..model import (CI, KIND_AXES, Builder, Cache, Companions, GpuRunner, Match, Matrix, Patch, Pin, Restriction,
                     Section, TorchSource, check_name, MAX_NAME)
from .schema import check_schema, suggest

DEFAULT_NAMING = {
    "gpu": "{package}-python{python}-cuda{cuda}-{sm}-{isa}",
    "cpu": "{package}-python{python}-cpu-{isa}",
    "darwin": "{package}-python{python}-darwin-{accelerator}",
    "rocm": "{package}-python{python}-rocm{rocm}-{gfx}-{isa}",
}
DEFAULT_DESCRIPTION = {
    "gpu": "PyTorch {pytorch} for NVIDIA {family} GPUs ({sm}) and {isa} CPUs, CUDA {cuda}",
    "cpu": "PyTorch {pytorch}, CPU only, for {isa} CPUs",
    "darwin": "PyTorch {pytorch} for Apple Silicon with {accelerator}",
    "rocm": "PyTorch {pytorch} for AMD {family} GPUs ({gfx}) and {isa} CPUs, ROCm {rocm}",
    "companion": "{package} built against {torch}: {torch_description}",
}
NAME_FIELDS = {"package", "python", "cuda", "sm", "isa", "accelerator", "rocm", "gfx"}
DESCRIPTION_FIELDS = NAME_FIELDS | {"pytorch", "family", "gpus", "cpus", "capability"}
# nixpkgs config that gen-matrix sets itself, per recipe.
OWNED_CONFIG = ("allowUnfree", "cudaSupport", "cudaCapabilities", "rocmSupport")
MATCH_AXES = ("kind", "python", "cuda", "sm", "isa", "accelerator", "rocm", "gfx")
# where a new value of an axis is a row of the knowledge table
TABLE_OF = {"gfx": "other_gpus (kind: rocm)"}


def _parts(pattern: str) -> list[tuple] | None:
    """(literal text, field, format spec, conversion) of each piece of `pattern`; None if unbalanced."""
    try:
        return list(string.Formatter().parse(pattern))
    except ValueError:
        return None


class _Checker:
    def __init__(self, doc: Document, knowledge: knowledge_.Knowledge):
        self.doc = doc
        self.knowledge = knowledge
        self.problems: list[Problem] = []

    def value(self, axis: str, value, path: tuple) -> str:
        value = str(value)
        table = self.knowledge.table(axis)
        if axis == "cuda" and value not in table and value in self.knowledge.toolkit:
            # a release the table knows for hand builds only (its drivers and compilers)
            self.problems.append(Problem(
                self.doc.where(path), f"CUDA {value} is one nixpkgs no longer packages, and a matrix builds with "
                                      "nixpkgs' CUDA packages: it is known for builds by hand only",
                f"use one of {', '.join(table)}; or build it without Nix: `gen-matrix env --cuda {value} --gpu GPU` "
                "writes the script (`gen-matrix explain --cuda " + value + "` says what it runs on)",
            ))
            return value
        if value not in table:
            hint = suggest(value, table) or f"known {axis} values: {', '.join(table)}"
            self.problems.append(Problem(
                self.doc.where(path), f"unknown {axis} '{value}'",
                f"{hint} (a new one is a row under knowledge.{TABLE_OF.get(axis, axis)} in matrix.yaml)",
            ))
        return value

    def match(self, kind: str | None, raw: dict, path: tuple, label: str) -> Match:
        """A match on the axes of `kind`, or (kind None) on every axis and the kind itself."""
        values = []
        for axis in KIND_AXES[kind] if kind else MATCH_AXES:
            if axis in raw:
                listed = isinstance(raw[axis], list)
                given = raw[axis] if listed else [raw[axis]]
                where = path + (axis,)
                items = [str(v) if axis == "kind" else self.value(axis, v, where + ((i,) if listed else ()))
                         for i, v in enumerate(given)]
                values.append((axis, tuple(items)))
        return Match(tuple(values), self.doc.where(path), label)

    def companions(self) -> tuple[Companions, ...]:
        result = []
        for i, raw in enumerate(self.doc.data.get("companions", [])):
            path, label = ("companions", i), f"companions[{i}]"
            when = None if raw["when"] == "all" else self.match(None, raw["when"], path + ("when",), label)
            result.append(Companions(tuple(raw["packages"]), when, self.doc.where(path), label))
        return tuple(result)

    def pins(self) -> tuple[Pin, ...]:
        """nixpkgs: one pin (rev at the top), or several under pins:, each with its rule."""
        nixpkgs = self.doc.data["nixpkgs"]
        if "pins" not in nixpkgs:
            return (self.pin(dict(nixpkgs, name="default"), ("nixpkgs",), rule=False),)
        pins, seen = [], {}
        for i, raw in enumerate(nixpkgs["pins"]):
            path = ("nixpkgs", "pins", i)
            if raw["name"] in seen:
                self.problems.append(Problem(self.doc.where(path + ("name",)),
                                             f"two pins are named '{raw['name']}' (the other is pins[{seen[raw['name']]}])",
                                             "give each pin its own name"))
            seen.setdefault(raw["name"], i)
            pins.append(self.pin(raw, path))
        for i, pin in enumerate(pins[:-1]):
            if pin.when is None:
                self.problems.append(Problem(pin.where, f"nixpkgs.pins[{i}] has no `when`, so the pins after it are never used",
                                             "give it a `when` rule, or move it to the end of the list"))
        return tuple(pins)

    def fix_rules(self, pins) -> None:
        """The values a matrix's own fix rows name must exist: a typo would leave the fix out silently."""
        known = {"pin": {pin.name for pin in pins}, "isa": set(self.knowledge.isa),
                 "system": {f"{arch}-linux" for arch in ("x86_64", "aarch64")} | {"aarch64-darwin", "x86_64-darwin"}}
        rows = (self.doc.data.get("knowledge") or {}).get("fixes") or {}
        for name, row in rows.items():
            for condition, allowed in known.items():
                for i, value in enumerate(((row or {}).get("when") or {}).get(condition, [])):
                    if value not in allowed:
                        self.problems.append(Problem(
                            self.doc.where(("knowledge", "fixes", name, "when", condition, i)),
                            f"knowledge.fixes.{name}: unknown {condition} '{value}'",
                            suggest(value, allowed) or f"known: {', '.join(sorted(allowed))}"))

    def pin(self, raw: dict, path: tuple, rule: bool = True) -> Pin:
        label = "nixpkgs" if not rule else f"nixpkgs.pins[{path[-1]}]"
        for key in raw.get("config", {}):
            if key in OWNED_CONFIG:
                self.problems.append(Problem(
                    self.doc.key_where(path + ("config", key)),
                    f"{label}.config.{key} is set by gen-matrix for each recipe",
                    "remove it: CUDA recipes get allowUnfree and cudaSupport, ROCm recipes rocmSupport; "
                    "nixpkgs.capability_scope decides cudaCapabilities"))
        for key, value in raw.get("config", {}).items():
            if isinstance(value, FloatText) and not math.isfinite(value.value):
                self.problems.append(Problem(
                    self.doc.where(path + ("config", key)), f"{label}.config.{key}: Nix has no number {value}",
                    "give a finite number, or quote it to pass the text"))
        config = {key: tuple(value) if isinstance(value, list) else value
                  for key, value in sorted(raw.get("config", {}).items())}
        patches = tuple((attr, tuple(Patch(p["url"], p["hash"]) for p in given))
                        for attr, given in sorted(raw.get("patches", {}).items()))
        when = self.match(None, raw["when"], path + ("when",), label) if "when" in raw else None
        return Pin(raw["name"], raw["rev"], raw.get("sha256"), MappingProxyType(config), patches, when,
                   self.doc.where(path))

    def section(self, kind: str) -> Section | None:
        raw = self.doc.data.get(kind)
        if raw is None:
            return None
        path = (kind,)
        axes = []
        for axis in KIND_AXES[kind]:
            given = raw.get(axis, [])
            if not given:
                self.problems.append(Problem(
                    self.doc.key_where(path + (axis,)) if axis in raw else self.doc.where(path),
                    f"{kind}.{axis} lists no values",
                    f"a {kind} variant is the product of {', '.join(KIND_AXES[kind])}: give each at least one value",
                ))
            axes.append((axis, tuple(self.value(axis, v, path + (axis, i)) for i, v in enumerate(given))))
        restrict = tuple(
            Restriction(self.match(kind, rule["when"], path + ("restrict", i, "when"), f"{kind}.restrict[{i}]"),
                        self.match(kind, rule["only"], path + ("restrict", i, "only"), f"{kind}.restrict[{i}]"))
            for i, rule in enumerate(raw.get("restrict", []))
        )
        include = tuple(self.match(kind, item, path + ("include", i), f"{kind}.include[{i}]")
                        for i, item in enumerate(raw.get("include", [])))
        exclude = tuple(self.match(kind, item, path + ("exclude", i), f"{kind}.exclude[{i}]")
                        for i, item in enumerate(raw.get("exclude", [])))
        value_where = tuple(((axis, str(value)), self.doc.where(path + (axis, i)))
                            for axis in KIND_AXES[kind] for i, value in enumerate(raw.get(axis, [])))
        return Section(kind, tuple(axes), restrict, include, exclude, self.doc.key_where(path), value_where)

    def ci(self) -> CI:
        given = self.doc.data.get("ci", {})
        gpu_runners, first = [], {}
        for i, raw in enumerate(given.get("gpu_runners", [])):
            path = ("ci", "gpu_runners", i)
            targets = {axis: tuple(self.value(axis, value, path + (axis, j)) for j, value in enumerate(raw.get(axis, [])))
                       for axis in ("sm", "gfx")}
            for axis, values in targets.items():
                for j, value in enumerate(values):
                    earlier = first.setdefault((raw["system"], value), i)
                    if earlier != i:
                        self.problems.append(Problem(
                            self.doc.where(path + (axis, j)),
                            f"{value} on {raw['system']} already has a GPU runner, ci.gpu_runners[{earlier}]",
                            f"name each {'SM' if axis == 'sm' else 'gfx target'} of a system under one GPU runner only",
                        ))
            gpu_runners.append(GpuRunner(tuple(raw["labels"]), raw["system"], targets["sm"], targets["gfx"]))
        scalars = {key: given[key] for key in
                   ("organisation_variable", "organisation", "main_branch", "timeout_minutes", "shard_size",
                    "gen_matrix")
                   if key in given}
        runners = {system: tuple(labels) for system, labels in given.get("runners", {}).items()}
        defaults = CI()
        kind_runners = {kind: dict(systems) for kind, systems in defaults.kind_runners.items()}
        for kind, systems in given.get("kind_runners", {}).items():
            kind_runners.setdefault(kind, {}).update({system: tuple(labels) for system, labels in systems.items()})
        cache = given.get("cache")
        return replace(
            defaults, **scalars,
            plan_runner=tuple(given.get("plan_runner", defaults.plan_runner)),
            runners=MappingProxyType(dict(defaults.runners, **runners)),
            gpu_runners=tuple(gpu_runners),
            kind_runners=MappingProxyType({kind: MappingProxyType(systems) for kind, systems in sorted(kind_runners.items())}),
            cache=None if cache is None else self.cache(cache),
            substituters=tuple((entry["url"], entry["key"]) for entry in given.get("substituters", ())),
            builders=self.builders(given.get("builders", ()), cache),
        )

    def builders(self, raw: list, cache: dict | None) -> tuple[Builder, ...]:
        """ci.builders, each with a URL of its own and secrets that are its own: a secret the
        workflow hands another step would reach the builders' step too."""
        taken = {"FLOX_FLOXHUB_TOKEN": "the FloxHub token's"}
        if cache and cache.get("secret"):
            taken[cache["secret"]] = "ci.cache's"
        urls: dict[str, int] = {}
        made = []
        for i, entry in enumerate(raw):
            path = ("ci", "builders", i)
            earlier = urls.setdefault(entry["url"], i)
            if earlier != i:
                self.problems.append(Problem(self.doc.where(path + ("url",)),
                                             f"{entry['url']} is already ci.builders[{earlier}]",
                                             "list each builder once, with all its systems"))
            if entry["ssh_key_secret"] == entry["known_hosts_secret"]:
                self.problems.append(Problem(self.doc.where(path + ("known_hosts_secret",)),
                                             f"the secret {entry['ssh_key_secret']} cannot hold both the ssh key and "
                                             "the known-hosts line", "name a secret of its own for each"))
            for key in ("ssh_key_secret", "known_hosts_secret"):
                if entry[key] in taken:
                    self.problems.append(Problem(self.doc.where(path + (key,)),
                                                 f"{entry[key]} is {taken[entry[key]]} secret",
                                                 "name a secret that holds this builder's value alone"))
            made.append(Builder(entry["url"], tuple(entry["systems"]), tuple(entry.get("features", ())),
                                entry.get("max_jobs", 1), entry["ssh_key_secret"], entry["known_hosts_secret"]))
        return tuple(made)

    def cache(self, raw: dict) -> Cache:
        where = self.doc.where(("ci", "cache"))
        kind = raw["type"]
        needs = {"cachix": ("name", "secret"), "attic": ("name", "secret", "substituter"), "s3": ("name", "secret"),
                 "flox": ()}[kind]
        for key in needs:
            if not raw.get(key):
                self.problems.append(Problem(
                    where, f"ci.cache of type {kind} needs '{key}'",
                    {"name": "name the cache to push to (cachix, attic: its name; s3: its s3:// URL)",
                     "secret": "name the repository secret that holds the token (s3: the Nix signing key)",
                     "substituter": "give the cache's URL, https://SERVER/CACHE: attic logs in to its server"}[key]))
        return Cache(kind, raw.get("substituter"), raw.get("public_key"), raw.get("name"), raw.get("secret"))

    def patterns(self, key: str, defaults: dict, allowed: set, required: bool, extra: dict | None = None) -> dict:
        given = self.doc.data.get(key, {})
        result = dict(defaults, **given)
        for kind, pattern in given.items():
            allowed_here = allowed | (extra or {}).get(kind, set())
            parts = _parts(pattern)
            where = self.doc.where((key, kind))
            if parts is None:
                self.problems.append(Problem(where, f"{key}.{kind}: unbalanced braces in '{pattern}'",
                                             "write fields as {python}; double a literal brace"))
                continue
            names = [name for _, name, _, _ in parts if name is not None]
            for name in names:
                if name not in allowed_here:
                    self.problems.append(Problem(where, f"{key}.{kind}: unknown field '{{{name}}}'",
                                                 suggest(name, allowed_here) or f"fields: {', '.join(sorted(allowed_here))}"))
            for _, name, spec, conversion in parts:
                if spec or conversion:
                    written = "{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
                    self.problems.append(Problem(where, f"{key}.{kind}: '{written}' formats its field",
                                                 f"write the field plainly, as {{{name}}}"))
            if required:
                # Fields become safe tokens; only the text around them can make a bad file name.
                sample = "".join(literal + ("a" if name is not None else "") for literal, name, _, _ in parts)
                if len(sample) > MAX_NAME and not check_name(sample[:MAX_NAME]):
                    self.problems.append(Problem(
                        where, f"naming.{kind} makes names of more than {MAX_NAME} characters ({len(sample)} "
                               "with one character per field)",
                        "shorten the text between the fields: a file name must stay under 255 bytes"))
                elif check_name(sample):
                    self.problems.append(Problem(
                        where, f"naming.{kind}: '{pattern}' does not make a safe file name",
                        "between the fields use only lower-case letters, digits, _ and -, "
                        "and start with a field, a letter or a digit",
                    ))
                for axis in ("package",) + KIND_AXES[kind]:
                    if axis not in names:
                        self.problems.append(Problem(
                            where, f"naming.{kind} lacks {{{axis}}}, so two variants would get the same name",
                            f"add {{{axis}}} to the pattern",
                        ))
        return result


def validate(doc: Document, builtin: Document | None = None) -> Matrix:
    """Check `doc` against the schema and the knowledge table; return the Matrix it describes."""
    check_schema(doc)
    knowledge = knowledge_.build(builtin or knowledge_.builtin(), doc, ("knowledge",))
    checker = _Checker(doc, knowledge)
    data = doc.data
    sections = tuple(s for s in (checker.section(kind) for kind in KIND_AXES) if s is not None)
    if not sections:
        checker.problems.append(Problem(doc.where(), "the matrix has no gpu:, cpu:, darwin: or rocm: section",
                                        "add at least one section of variants"))
    naming = checker.patterns("naming", DEFAULT_NAMING, NAME_FIELDS, required=True)
    ci = checker.ci()
    description = checker.patterns("description", DEFAULT_DESCRIPTION, DESCRIPTION_FIELDS, required=False,
                                   extra={"companion": {"torch", "torch_description"}})
    companions = checker.companions()
    pins = checker.pins()
    checker.fix_rules(pins)
    if checker.problems:
        raise GenMatrixError(checker.problems)
    nixpkgs = data["nixpkgs"]
    build = data.get("build", {})
    source = data["pytorch"].get("source")
    return Matrix(
        file=doc.file,
        pytorch_version=str(data["pytorch"]["version"]),
        pins=pins,
        capability_scope=nixpkgs.get("capability_scope", "auto"),
        capability_scope_where=doc.where(("nixpkgs", "capability_scope")) if "capability_scope" in nixpkgs
        else doc.key_where(("nixpkgs",)),
        pytorch_where=doc.where(("pytorch", "version")),
        jobs=build.get("jobs", 16),
        system_features=tuple(build.get("system_features", ["big-parallel"])),
        compiler_cache=None if build.get("compiler_cache", "none") == "none" else build["compiler_cache"],
        compiler_cache_where=doc.where(("build", "compiler_cache")) if "compiler_cache" in build else None,
        compiler_cache_runners=build.get("compiler_cache_runners"),
        naming=MappingProxyType(naming),
        description=MappingProxyType(description),
        sections=sections,
        knowledge=knowledge,
        ci=ci,
        companions=companions,
        torch_source=TorchSource(str(data["pytorch"]["version"]), source["rev"], source["hash"],
                                 source.get("owner", "pytorch"), source.get("repo", "pytorch")) if source else None,
    )
