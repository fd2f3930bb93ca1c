"""`gen-matrix adopt`: the matrix.yaml that generates a folder of hand-written recipes.

Each recipe is evaluated by nix-instantiate against a package set that records what it asks
of nixpkgs (adopt.nix beside this file). From those records come the axes, the companions,
the nixpkgs pins and the rules that choose them, the PyTorch version and source, the build
fixes mapped to the built-in ones, and the fewest restrict and exclude rules that give
exactly the recipes' names. The matrix is then run through the pipeline, and what it
generates is compared with every recipe: the names it reproduces, what it cannot carry over
and what `generate` would change.
"""

from __future__ import annotations

import itertools
import json
import re
import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..errors import GenMatrixError, Location, Problem
from ..knowledge import Knowledge, build, builtin, version_key
from ..layout import LIBRARY, PKGS_DIR
from ..model import KIND_AXES, SCOPE_TEXT
from ..pipeline import expand, load, render, validate
from . import sandbox

EVALUATOR = Path(__file__).with_name("adopt.nix")
MATRIX_FILE = "matrix.yaml"
COMPANIONS = ("torchvision", "torchaudio")
_REV = re.compile(r"/archive/([0-9a-f]{40})\.tar\.gz$")
_EXPORT = re.compile(r"^\s*export\s+([A-Za-z_][A-Za-z0-9_]*)=(\"[^\"]*\"|'[^']*'|\S*)", re.MULTILINE)
_JOBS = re.compile(r"^-j(\d+)$")
# How many of a group's differing subjects (pnames, flags) the report names before it counts them.
SUBJECTS_SHOWN = 4
# The mark adopt.nix puts where a recipe reads what it does not write (an environment
# variable, a file, the clock): `what` is the builtin and its argument.
_IMPURE = {"open": "\u00abgen-matrix-adopt unread: ", "close": "\u00bb"}
_IMPURE_MARK = re.compile(re.escape(_IMPURE["open"]) + "(.*?)" + re.escape(_IMPURE["close"]), re.DOTALL)
# Characters that would change what the matrix's header says (a newline starts YAML).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")

# The config keys gen-matrix sets itself, and the overlay attributes adopt reads.
_OWN_CONFIG = {"allowUnfree", "cudaSupport", "cudaCapabilities"}
_READ_OVERLAYS = {"cudaPackages", "magma", "python3Packages"}
# Variables a recipe exports that gen-matrix sets its own way: the ISA's flags, the job
# count from the machine, and a companion's SM.
_OWN_EXPORTS = {"CXXFLAGS", "CFLAGS", "MAX_JOBS", "TORCH_CUDA_ARCH_LIST", "FORCE_CUDA"}
# What a hand-written build fix leaves in a recipe, by the built-in fix that replaces it.
_FIX_SIGNS = {
    "torch-source-version": ("PYTORCH_BUILD_VERSION", "-DTORCH_BUILD_VERSION=", "version.txt"),
    "findcudatoolkit-stub": ("FindCUDAToolkit.cmake",),
    "cccl-include": ("cccl-compat",),
    "avx-only-kernels": ("AVX2_FOUND=FALSE", "AVX512_FOUND=FALSE", "SUPPORTS_AVX512_EXTENSIONS=OFF"),
}
# Attributes of a torch recipe's overrideAttrs that adopt reads, and what carries each.
_READ_ATTRS = {"pname", "passthru", "meta", "ninjaFlags", "requiredSystemFeatures", "preConfigure",
               "postPatch", "cmakeFlags", "patches", "buildInputs", "nativeBuildInputs", "version", "src"}


@dataclass(frozen=True)
class Recipe:
    """What one hand-written recipe builds, as its evaluation tells."""

    name: str
    package: str  # pytorch, torchvision or torchaudio
    kind: str
    combination: tuple  # (axis, value) pairs, the axes of its kind
    rev: str | None
    tarball_sha256: str | None
    torch: str | None  # a companion's torch recipe
    source: tuple | None  # (version, owner, repo, rev, hash) of a PyTorch source override
    flags: tuple[str, ...]
    exports: tuple  # (name, value) pairs, in order
    cmake_flags: tuple[str, ...]
    fixes: frozenset
    jobs: int | None
    system_features: tuple[str, ...] | None
    config: tuple  # (key, value) pairs of nixpkgs config gen-matrix does not set itself
    lost: tuple[str, ...]  # facts no matrix can carry, with the reason
    # what the recipe sets torch.cudaCapabilities to (passthru, else config); None: the pin's default
    capabilities: tuple[str, ...] | None = None
    platforms: tuple[str, ...] = ()  # meta.platforms as the recipe sets it; (): not set
    # config.cudaCapabilities of the recipe's nixpkgs; None: the pin's defaults
    config_capabilities: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Adoption:
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

    @property
    def reproduced_names(self) -> tuple[str, ...]:
        return tuple(sorted(set(self.names) & set(self.generated)))

    @property
    def reproduced(self) -> int:
        return len(self.reproduced_names)


# ---- reading -----------------------------------------------------------------------------

def recipes_folder(path: Path) -> Path:
    """PATH itself where it holds recipes, else its .flox/pkgs."""
    if not path.is_dir():
        raise GenMatrixError.at(Location(str(path)), "no such folder",
                                "give a repository, or its .flox/pkgs folder of recipes")
    for folder in (path, path / PKGS_DIR):
        if folder.is_dir() and any(p.suffix == ".nix" for p in folder.iterdir()):
            return folder
    raise GenMatrixError.at(Location(str(path)), f"neither this folder nor its {PKGS_DIR} holds a .nix recipe",
                            "give a repository, or its .flox/pkgs folder of recipes")


def repository_root(path: Path) -> Path:
    """Where matrix.yaml goes: the repository whose .flox/pkgs holds the recipes."""
    folder = recipes_folder(path)
    return _repository_of(folder)


def _repository_of(folder: Path) -> Path:
    return folder.parent.parent if folder.parts[-2:] == tuple(Path(PKGS_DIR).parts) else folder


def evaluate(folder: Path, names: list[str], knowledge: Knowledge) -> dict:
    """What each recipe asks of nixpkgs, by file name: one nix-instantiate for them all, and
    one per recipe to say which fail where any does. Nix reads the recipes' repository and
    nothing else, and fetches nothing (sandbox.py)."""
    if shutil.which("nix-instantiate") is None:
        raise GenMatrixError.at(Location(str(folder)), "adopt evaluates the recipes, and nix-instantiate is not installed",
                                "install Nix (Debian: apt-get install nix-bin)")
    request = {"dir": str(folder.resolve()), "cuda": sorted(knowledge.cuda, key=version_key),
               "python": sorted(knowledge.python, key=version_key), "impure": _IMPURE}
    readable = [_repository_of(folder).resolve(), EVALUATOR.resolve().parent]

    def run(files) -> sandbox.Finished:
        command = ["nix-instantiate", "--eval", "--strict", "--json", "--readonly-mode", str(EVALUATOR),
                   "--argstr", "request", json.dumps(dict(request, recipes=files)), *sandbox.options(readable)]
        try:
            return sandbox.run(command, sandbox.TIMEOUT_S)
        except OSError as error:
            raise GenMatrixError.at(Location(str(folder)), f"cannot run nix-instantiate: {error.strerror or error}",
                                    "install Nix (Debian: apt-get install nix-bin)") from None

    def failure(done: sandbox.Finished) -> str | None:
        if done.timed_out:
            return f"its evaluation ran for more than {sandbox.TIMEOUT_S:.0f} s and was stopped (does it loop?)"
        if done.returncode == 0:
            return None
        message = [line for line in done.stderr.splitlines() if line.strip().startswith("error:")]
        text = (message or done.stderr.splitlines() or ["?"])[-1].strip()
        if text == "error: out of memory":
            text += f" (evaluation may take {sandbox.MEMORY_BYTES // 2**30} GiB)"
        return text

    done = run(names)
    if failure(done) is None:
        return json.loads(done.stdout)
    problems = []
    for name in names:
        why = failure(run([name]))
        if why is not None:
            problems.append(Problem(Location(str(folder / name)), f"cannot be read by evaluation: {why}",
                                    "adopt reads recipes that import nixpkgs with fetchTarball and override its "
                                    "torch, torchvision or torchaudio, reading nothing outside their repository; "
                                    "move this one aside, or write its variant by hand"))
    raise GenMatrixError(problems or [Problem(Location(str(folder)), failure(done) or "")])


def unread(value, where: str = "") -> tuple[object, list[str]]:
    """`value` without what a recipe did not write (the marks of adopt.nix), and a line for
    each thing left out: where it was in the recipe's facts, and what it came from."""
    if isinstance(value, str):
        found = _IMPURE_MARK.findall(value)
        if found:
            return None, [f"{where or 'a value'}: from {', '.join(dict.fromkeys(found))}, not written in the recipe; "
                          "left out of the matrix"]
        return value, []
    lost: list[str] = []
    if isinstance(value, dict):
        kept = {}
        for key, item in value.items():
            item, gone = unread(item, f"{where}.{key}" if where else key)
            lost += gone
            if not gone or item is not None:
                kept[key] = item
        return kept, lost
    if isinstance(value, list):
        kept_items = []
        for index, item in enumerate(value):
            item, gone = unread(item, f"{where}[{index}]")
            lost += gone
            if not gone or item is not None:
                kept_items.append(item)
        return kept_items, lost
    return value, []


def _exports(text: str) -> tuple:
    found = []
    for name, value in _EXPORT.findall(text or ""):
        found.append((name, value.strip("\"'")))
    return tuple(found)


def _axes_from_name(name: str, knowledge: Knowledge):
    """(package, kind, combination) the name gives under the default naming, or None."""
    for kind, pattern in validate.DEFAULT_NAMING.items():
        fields = re.findall(r"{(\w+)}", pattern)
        regex = re.escape(pattern)
        for field_ in fields:
            regex = regex.replace(re.escape("{" + field_ + "}"), r"([A-Za-z0-9_]+?)" if field_ == "package" else r"([A-Za-z0-9_]+)")
        found = re.fullmatch(regex, name)
        if not found:
            continue
        values = dict(zip(fields, found.groups()))
        combination = {}
        for axis in KIND_AXES[kind]:
            value = knowledge.lookup(axis, values[axis])
            if value is None:
                break
            combination[axis] = value
        else:
            return values["package"], kind, combination
    return None


def read(name: str, facts: dict, knowledge: Knowledge, where: str) -> Recipe:
    """The Recipe of one evaluation, and what of it no matrix can carry."""
    stem = name.removesuffix(".nix")
    facts, lost = unread(facts)
    if "error" in facts:
        raise GenMatrixError.at(Location(where), facts["error"],
                                "adopt reads recipes that override nixpkgs' torch, torchvision or torchaudio")
    attrs = facts["attrs"]
    package = {"torch": "pytorch"}.get(facts["package"], facts["package"])
    if package not in ("pytorch",) + COMPANIONS:
        raise GenMatrixError.at(Location(where), f"builds {facts['package']}, not torch or a companion",
                                "move it out of the recipes folder, or keep it beside the matrix by hand")
    overrides = {}
    for step in facts["steps"]:
        overrides.update(step.get("override", {}))
    passthru = attrs.get("passthru") or {}
    nixpkgs = facts["nixpkgs"]
    from_name = _axes_from_name(stem, knowledge)
    named = from_name[2] if from_name else {}

    # The kind: CUDA asked of torch, or an Apple accelerator, else CPU only.
    gpu_arch = passthru.get("gpuArch")
    cuda_asked = bool(overrides.get("cudaSupport") or overrides.get("gpuTargets"))
    if package != "pytorch":
        cuda_asked = gpu_arch not in (None, "mps") and nixpkgs["config"].get("cudaSupport", False)
    platforms = (attrs.get("meta") or {}).get("platforms") or []
    darwin = gpu_arch == "mps" or platforms and all(str(p).endswith("-darwin") for p in platforms)
    kind = "darwin" if darwin else "gpu" if cuda_asked else "cpu"

    combination: dict[str, str] = {}
    python_set = facts.get("set") or ""
    found = re.fullmatch(r"python(\d)(\d+)Packages", python_set)
    if found:
        combination["python"] = f"{found.group(1)}.{found.group(2)}"
    elif "python" in named:  # python3Packages: the pin's default Python, which only its name tells here
        combination["python"] = named["python"]
    if kind == "gpu":
        cuda_attr = nixpkgs.get("cudaPackages") or ""
        found = re.fullmatch(r"cudaPackages_(\d+)(?:_(\d+))?", cuda_attr)
        if found and found.group(2) is not None:
            combination["cuda"] = f"{found.group(1)}.{found.group(2)}"
        elif found and named.get("cuda", "").startswith(found.group(1) + "."):
            combination["cuda"] = named["cuda"]  # cudaPackages_13: the release its name says
        elif "cuda" in named:
            combination["cuda"] = named["cuda"]
            lost.append(f"the CUDA release: the recipe keeps nixpkgs' default cudaPackages; taken from its name ({named['cuda']})")
        targets = overrides.get("gpuTargets") or ([gpu_arch] if gpu_arch else [])
        sms = [knowledge.sm_for_capability(str(t)) for t in targets]
        if len(sms) == 1 and sms[0] is not None:
            combination["sm"] = sms[0].name
        elif "sm" in named:
            combination["sm"] = named["sm"]
            lost.append(f"gpuTargets {targets}: gen-matrix builds one SM per variant; taken from its name ({named['sm']})")
    if kind == "darwin":
        combination["accelerator"] = "mps"
    else:
        isa = passthru.get("cpuISA")
        if isa in knowledge.isa:
            combination["isa"] = isa
        elif "isa" in named:
            combination["isa"] = named["isa"]
    missing = [axis for axis in KIND_AXES[kind] if axis not in combination]
    if missing:
        raise GenMatrixError.at(Location(where), f"the {kind} recipe does not tell its {', '.join(missing)}",
                                "adopt reads them from torch's override and passthru, or from a name such as "
                                + validate.DEFAULT_NAMING[kind])

    tarball = nixpkgs.get("tarball") or {}
    rev_found = _REV.search(tarball.get("url", ""))
    if not rev_found:
        lost.append(f"nixpkgs from {tarball.get('url') or '<' + str(tarball.get('channel')) + '>'}: "
                    "not a github.com/NixOS/nixpkgs/archive/REV.tar.gz pin")

    torch_file = overrides.get("torch")
    torch = None
    if package != "pytorch":
        if isinstance(torch_file, dict) and torch_file.get("file"):
            torch = torch_file["file"].removesuffix(".nix")
        else:
            torch = "pytorch" + stem[len(package):]
            lost.append(f"its torch: not a recipe of the folder; taken as {torch} from its name")

    source = None
    src = attrs.get("src")
    if isinstance(src, dict) and src.get("fetcher") == "fetchFromGitHub" and attrs.get("version"):
        source = (attrs["version"], src.get("owner", "pytorch"), src.get("repo", "pytorch"), src.get("rev"), src.get("hash"))
    elif src is not None:
        lost.append(f"torch's src {src}: adopt carries a fetchFromGitHub source only")

    exports = _exports(attrs.get("preConfigure", ""))
    flags = tuple(flag for var, value in exports if var == "CXXFLAGS"
                  for flag in value.split() if not flag.startswith(("$", "-I")))
    cmake_flags = tuple(attrs.get("cmakeFlags") or ())
    text = "\n".join([attrs.get("preConfigure", ""), attrs.get("postPatch", "")] + list(cmake_flags))
    fixes = {fix for fix, signs in _FIX_SIGNS.items() if any(sign in text for sign in signs)}
    if source is not None and attrs.get("patches") == []:
        fixes.add("torch-source-patches")
    if nixpkgs["config"].get("allowBroken"):
        fixes.add("allow-broken-cuda13")
    magma = nixpkgs.get("magma") or {}
    fix_texts = {path.stem: path.read_text(encoding="utf-8") for path in (LIBRARY / "fixes").glob("*.nix")}
    for patch in (magma.get("attrs") or {}).get("patches") or []:
        known = [stem_ for stem_, body in fix_texts.items()
                 if patch.get("hash") and patch["hash"] in body or patch.get("url") and patch["url"] in body]
        if known:
            fixes.update(known)
        else:
            lost.append(f"magma patch {patch.get('name') or patch.get('url')}: unknown to the built-in fixes "
                        "(nixpkgs.patches in matrix.yaml can carry it)")
    config = []
    for key, value in sorted(nixpkgs["config"].items()):
        if key in _OWN_CONFIG or key == "allowBroken":
            continue
        if isinstance(value, (bool, int, str)) or isinstance(value, list) and all(isinstance(v, str) for v in value):
            config.append((key, tuple(value) if isinstance(value, list) else value))
        else:
            lost.append(f"nixpkgs config {key} = {json.dumps(value)}: not a value matrix.yaml can hold")
    for attr in sorted(set(nixpkgs.get("overlayAttrs") or ()) - _READ_OVERLAYS):
        lost.append(f"an overlay sets {attr}: not read by adopt")
    for step in facts["steps"]:
        for attr in step.get("overrideAttrs", ()):
            if attr not in _READ_ATTRS:
                lost.append(f"overrideAttrs sets {attr} by hand: gen-matrix does not carry it")
    for key in sorted(set(overrides) - {"cudaSupport", "gpuTargets", "torch"}):
        lost.append(f"override {key} = {json.dumps(overrides[key])}: set by hand, not carried")
    added = [dep.get("package") for dep in attrs.get("buildInputs") or [] if isinstance(dep, dict)]
    for dep in added:
        if not (dep == "openblas" and kind == "cpu"):
            lost.append(f"buildInputs adds {dep}: not carried")
    if attrs.get("pname") not in (None, facts["package"], stem):
        lost.append(f"pname {attrs['pname']}: the package takes the recipe's name")
    meta = attrs.get("meta") or {}
    if meta.get("description") or meta.get("longDescription"):
        lost.append("meta.description and longDescription: generate writes them from the knowledge table")
    jobs = [int(m.group(1)) for flag in attrs.get("ninjaFlags") or () for m in [_JOBS.match(flag)] if m]
    return Recipe(
        name=stem, package=package, kind=kind,
        combination=tuple((axis, combination[axis]) for axis in KIND_AXES[kind]),
        rev=rev_found.group(1) if rev_found else None, tarball_sha256=tarball.get("sha256"),
        torch=torch, source=source, flags=flags, exports=exports, cmake_flags=cmake_flags,
        fixes=frozenset(fixes), jobs=jobs[0] if jobs else None,
        system_features=tuple(attrs["requiredSystemFeatures"]) if "requiredSystemFeatures" in attrs else None,
        config=tuple(config), lost=tuple(lost),
        capabilities=_capabilities(passthru.get("cudaCapabilities", nixpkgs["config"].get("cudaCapabilities"))),
        platforms=tuple(str(p) for p in platforms),
        config_capabilities=_capabilities(nixpkgs["config"].get("cudaCapabilities")))


def _capabilities(value) -> tuple[str, ...] | None:
    return tuple(str(c) for c in value) if isinstance(value, list) else None


# ---- inferring ---------------------------------------------------------------------------

def _sort_key(knowledge: Knowledge, axis: str):
    if axis in ("python", "cuda"):
        return version_key
    if axis == "sm":
        return lambda name: version_key(knowledge.sm[name].capability)
    if axis == "isa":
        return lambda name: (knowledge.isa[name].arch != "x86_64", name)
    return lambda name: name


def _matches(rule: dict, combination: dict) -> bool:
    return all(combination.get(axis) in values for axis, values in rule.items())


def _value(values, knowledge, axis):
    values = sorted(values, key=_sort_key(knowledge, axis))
    return values[0] if len(values) == 1 else values


def _rules(knowledge: Knowledge, kind: str, axes: dict, wanted: set) -> tuple[list, list, set]:
    """The fewest restrict and exclude rules (greedy) that keep exactly `wanted` of the
    product the knowledge table allows; and what of `wanted` no rule can give."""
    names = KIND_AXES[kind]
    product = [dict(zip(names, values)) for values in itertools.product(*(axes[a] for a in names))]
    possible = {tuple(c.items()) for c in product if knowledge.why_not(c) is None}
    extras = possible - wanted
    candidates = []  # (kind of rule, rule, covered extras)
    for a, b in itertools.permutations(names, 2):
        for value in axes[a]:
            allowed = {dict(w)[b] for w in wanted if dict(w)[a] == value}
            removed = {e for e in extras if dict(e)[a] == value and dict(e)[b] not in allowed}
            if removed and allowed:
                candidates.append(("restrict", (a, value, b, frozenset(allowed)), removed))
    wanted_dicts = [dict(w) for w in wanted]
    seen = set()
    for extra in sorted(extras):
        e = dict(extra)
        for size in range(1, len(names) + 1):
            for subset in itertools.combinations(names, size):
                pattern = tuple((axis, e[axis]) for axis in subset)
                if pattern in seen:
                    continue
                seen.add(pattern)
                if any(all(w[axis] == v for axis, v in pattern) for w in wanted_dicts):
                    continue
                covered = {x for x in extras if all(dict(x)[axis] == v for axis, v in pattern)}
                candidates.append(("exclude", pattern, covered))
    uncovered, chosen = set(extras), []
    while uncovered:
        # the most extras removed, then the fewest values written
        best = max(candidates, key=lambda c: (len(c[2] & uncovered),
                                              -(len(c[1]) if c[0] == "exclude" else 1 + len(c[1][3]))), default=None)
        if best is None or not best[2] & uncovered:
            break
        chosen.append(best)
        uncovered -= best[2]
    restricts: dict = {}
    for _, (a, value, b, allowed), _ in (c for c in chosen if c[0] == "restrict"):
        restricts.setdefault((a, b, allowed), []).append(value)
    restrict = [{"when": {a: _value(values, knowledge, a)}, "only": {b: _value(allowed, knowledge, b)}}
                for (a, b, allowed), values in restricts.items()]
    # Excludes that differ in one axis's value become one rule with a list.
    patterns = [dict(pattern) for _, pattern, _ in (c for c in chosen if c[0] == "exclude")]
    merged: dict = {}
    for pattern in patterns:
        axes_ = tuple(sorted(pattern))
        for axis in axes_:
            rest = tuple((k, pattern[k]) for k in axes_ if k != axis)
            merged.setdefault((axes_, axis, rest), set()).add(pattern[axis])
    exclude, used = [], set()
    for (axes_, axis, rest), values in sorted(merged.items(), key=lambda item: -len(item[1])):
        members = {tuple(sorted(dict(rest, **{axis: v}).items())) for v in values}
        members -= used
        if not members:
            continue
        used |= members
        rule = dict(rest)
        rule[axis] = _value({dict(m)[axis] for m in members}, knowledge, axis)
        exclude.append({k: rule[k] for k in names if k in rule})
    return restrict, exclude, wanted - possible


def _selector(group: set, among: list, keys: tuple) -> dict | None:
    """The smallest rule over `keys` that picks exactly `group` out of `among` (dicts)."""
    members = [c for c in among if c["name"] in group]
    for size in range(1, len(keys) + 1):
        for subset in itertools.combinations(keys, size):
            rule = {}
            for axis in subset:
                values = {c.get(axis) for c in members}
                if None in values:
                    break
                rule[axis] = values
            else:
                if {c["name"] for c in among if _matches(rule, c)} == group:
                    return rule
    return None


def _plain_rule(rule: dict, knowledge: Knowledge) -> dict:
    return {axis: _value(values, knowledge, axis) for axis, values in rule.items()}


def _pin_torch(revs: Counter, knowledge: Knowledge, where: str) -> str:
    """The PyTorch version of recipes that build their pin's own torch: the torch the knowledge
    table says their pins hold, that of the pin most recipes use where the pins differ (the
    matrix then warns at pytorch.version of the others)."""
    held = Counter()
    for rev, count in revs.items():
        if rev in knowledge.pins:
            held[knowledge.pins[rev].torch] += count
    if not held:
        unknown = ", ".join(sorted(rev[:7] for rev in revs))
        raise GenMatrixError.at(
            Location(where), f"the recipes build their pin's own PyTorch, and the knowledge table does not know which "
                             f"torch nixpkgs {unknown} holds",
            "give it with --pytorch-version, e.g. what `nix-instantiate --eval -A python3Packages.torch.version "
            "<the pin>` prints; or add the pin's row under knowledge.pins (generator/knowledge.yaml)")
    return max(sorted(held.items()), key=lambda item: item[1])[0]


def infer(recipes: list[Recipe], knowledge: Knowledge, pytorch_version: str | None, where: str,
          nixpkgs_rev: str | None = None) -> tuple[dict, list[str]]:
    """The matrix of the recipes, and warnings about what it cannot say."""
    warnings: list[str] = []
    torches = [r for r in recipes if r.package == "pytorch"]
    if not torches:
        raise GenMatrixError.at(Location(where), "no torch recipe among the recipes", "adopt starts from torch recipes")
    matrix: dict = {}

    revs = Counter(r.rev for r in torches if r.rev)
    if not revs:
        if not nixpkgs_rev:
            raise GenMatrixError.at(Location(where), "no recipe pins nixpkgs: they build against the environment's",
                                    "give the nixpkgs revision they should build against with --nixpkgs-rev REV")
        revs = Counter({nixpkgs_rev: len(torches)})

    sources = Counter(r.source for r in torches)
    source = sources.most_common(1)[0][0]
    if len(sources) > 1:
        warnings.append(f"the recipes build {len(sources)} different PyTorch sources; the matrix takes the most common")
    if source is not None:
        version, owner, repo, rev, hash_ = source
        matrix["pytorch"] = {"version": version, "source": {"rev": rev, "hash": hash_}}
        if (owner, repo) != ("pytorch", "pytorch"):
            matrix["pytorch"]["source"].update(owner=owner, repo=repo)
    else:
        matrix["pytorch"] = {"version": pytorch_version or _pin_torch(revs, knowledge, where)}

    facts = [dict(r.combination, kind=r.kind, name=r.name) for r in torches]
    nixpkgs: dict = {}
    if len(revs) == 1:
        nixpkgs["rev"] = next(iter(revs))
        shas = {r.tarball_sha256 for r in torches}
        nixpkgs["sha256"] = shas.pop() if len(shas) == 1 else None
        config = _shared_config(torches)
        if config:
            nixpkgs["config"] = config
    elif revs:
        nixpkgs["pins"] = _pins(torches, facts, revs, knowledge, warnings)
    nixpkgs["capability_scope"] = "auto"
    matrix["nixpkgs"] = nixpkgs

    jobs = Counter(r.jobs for r in torches if r.jobs)
    features = Counter(r.system_features for r in torches if r.system_features is not None)
    matrix["build"] = {"jobs": jobs.most_common(1)[0][0] if jobs else 16,
                       "system_features": list(features.most_common(1)[0][0]) if features else []}

    for kind in ("gpu", "cpu", "darwin"):
        mine = [r for r in torches if r.kind == kind]
        if not mine:
            continue
        axes = {axis: sorted({dict(r.combination)[axis] for r in mine}, key=_sort_key(knowledge, axis))
                for axis in KIND_AXES[kind]}
        section: dict = dict(axes)
        restrict, exclude, impossible = _rules(knowledge, kind, axes, {r.combination for r in mine})
        for combination in sorted(impossible):
            warnings.append(f"{kind} {expand.combination_text(combination)}: the knowledge table rules it out "
                            f"({knowledge.why_not(dict(combination))}); `gen-matrix explain` says more")
        if restrict:
            section["restrict"] = restrict
        if exclude:
            section["exclude"] = exclude
        matrix[kind] = section

    companions = [r for r in recipes if r.package in COMPANIONS]
    if companions:
        matrix["companions"] = _companions(companions, facts, knowledge, warnings)
    return matrix, warnings


def _pins(torches, facts, revs, knowledge, warnings) -> list[dict]:
    """Pins in order, each but the last with the `when` rule that picks its recipes."""
    by_rev = {rev: {r.name for r in torches if r.rev == rev} for rev in revs}
    keys = ("cuda", "kind", "python", "sm", "isa", "accelerator")
    for default, _ in sorted(revs.items(), key=lambda item: (-item[1], item[0])):
        rules = {}
        for rev in sorted(by_rev, key=lambda rev: (-revs[rev], rev)):
            if rev != default:
                rules[rev] = _selector(by_rev[rev], facts, keys)
        if all(rules.values()):
            break
    else:
        default = max(revs, key=lambda rev: (revs[rev], rev))
    pins = []
    for rev, rule in rules.items():
        if rule is None:
            warnings.append(f"no rule over the axes picks exactly the recipes of nixpkgs {rev[:7]}; they take the default pin")
            continue
        pins.append({"name": f"nixpkgs_{rev[:7]}", "rev": rev, "when": _plain_rule(rule, knowledge)})
    pins.append({"name": f"nixpkgs_{default[:7]}", "rev": default})
    shas = {rev: {r.tarball_sha256 for r in torches if r.rev == rev} for rev in revs}
    for pin in pins:
        if len(shas[pin["rev"]]) == 1 and None not in shas[pin["rev"]]:
            pin["sha256"] = next(iter(shas[pin["rev"]]))
        config = _shared_config([r for r in torches if r.rev == pin["rev"]])
        if config:
            pin["config"] = config
    return pins


def _shared_config(recipes) -> dict:
    """The nixpkgs config every one of the recipes sets alike: a pin's config is all its variants'."""
    shared = set.intersection(*(set(r.config) for r in recipes)) if recipes else set()
    return {key: list(value) if isinstance(value, tuple) else value for key, value in sorted(shared)}


def _companions(companions, facts, knowledge, warnings) -> list[dict]:
    packages: dict[str, set] = {}
    for c in companions:
        packages.setdefault(c.torch, set()).add(c.package)
    groups: dict[tuple, set] = {}
    for torch, made in packages.items():
        groups.setdefault(tuple(p for p in COMPANIONS if p in made), set()).add(torch)
    keys = ("kind", "python", "cuda", "sm", "isa", "accelerator")
    rules = []
    for made, torches in sorted(groups.items()):
        if torches == {f["name"] for f in facts}:
            rules.append({"packages": list(made), "when": "all"})
            continue
        rule = _selector(torches, facts, keys)
        if rule is not None:
            rules.append({"packages": list(made), "when": _plain_rule(rule, knowledge)})
            continue
        for torch in sorted(torches):  # one rule per torch variant: always exact
            fact = next((f for f in facts if f["name"] == torch), None)
            if fact is None:
                warnings.append(f"{', '.join(made)} of {torch}: no such torch recipe")
                continue
            rules.append({"packages": list(made),
                          "when": {k: fact[k] for k in keys if k in fact and k != "kind"}})
    return rules


# ---- checking ----------------------------------------------------------------------------

def render_matrix(matrix: dict, recipes: int, folder: str) -> str:
    header = (f"# yaml-language-server: $schema=generator/matrix.schema.json\n#\n"
              f"# Adopted by `gen-matrix adopt` from the {recipes} recipes of {folder}.\n")
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
    if recipe.package != "pytorch":
        return changes, lost  # a companion's fixes are its torch's
    for fix in sorted(set(variant.fixes) - recipe.fixes):
        changes.append(f"adds the {fix} fix: {knowledge.fixes[fix].why}")
    for fix in sorted(recipe.fixes - set(variant.fixes)):
        if fix not in knowledge.fixes:
            continue
        lost.append(f"its hand-written {fix} fix: the built-in one does not apply to this variant "
                    f"(when {dict(knowledge.fixes[fix].when)})")
    build = render.torch_build(matrix, variant)
    for flag in recipe.flags:
        if flag not in build["cpuFlags"]:
            lost.append(f"hand-written flag {flag}: not among the knowledge table's flags of "
                        f"{variant.isa.name if variant.isa else 'a build without an ISA'}")
    if set(recipe.flags) != set(build["cpuFlags"]):
        changes.append(f"CPU flags {' '.join(build['cpuFlags']) or '(none)'} where the recipe has "
                       f"{' '.join(recipe.flags) or '(none)'} (the knowledge table's flags of {recipe.combination[-1][1]})")
    wanted = {f"USE_{feature}": "0" for feature in build["disabledFeatures"]} | dict(build["environment"])
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
        carried = any(sign in flag for fix in variant.fixes for sign in _FIX_SIGNS.get(fix, ()))
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
    if recipe.system_features is not None and list(recipe.system_features) != build["systemFeatures"]:
        lost.append(f"requiredSystemFeatures {list(recipe.system_features)}: the matrix's are {build['systemFeatures']}")
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
    replaced, updated = [], []
    if root is not None:
        from .. import run
        from ..layout import Project
        from ..pipeline import state, write

        outputs = run.outputs(Project(root, root / MATRIX_FILE), expansion, state.read(root))
        for path, text in outputs.items():
            if path.startswith(PKGS_DIR + "/") or not (root / path).is_file():
                continue
            (updated if isinstance(text, write.Merged) else replaced).append(path)
    rebuilds = sum(1 for v in expansion.variants if v.sm is not None and not v.is_companion
                   and expansion.matrix.capability_scope_of(v) == "nixpkgs")
    return {"builds": dict(sorted(builds.items())), "minutes": minutes, "replaced": tuple(replaced),
            "updated": tuple(updated), "cuda_rebuilds": rebuilds}


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


def adopt(path: Path, pytorch_version: str | None = None, nixpkgs_rev: str | None = None) -> Adoption:
    """The matrix of the recipes under `path`, and how far it reproduces them."""
    if _CONTROL.search(str(path)):
        raise GenMatrixError.at(Location(f"adopt {str(path)!r}"),
                                "the folder's name holds a control character (a newline, an escape)",
                                "the matrix names its folder; rename the folder, or give it through a link "
                                "whose name has none")
    folder = recipes_folder(path)
    knowledge = build(builtin())
    files = sorted(p.name for p in folder.iterdir() if p.suffix == ".nix" and p.is_file())
    evaluated = evaluate(folder, files, knowledge)
    recipes = [read(name, evaluated[name], knowledge, str(folder / name)) for name in files]
    matrix, warnings = infer(recipes, knowledge, pytorch_version, str(folder), nixpkgs_rev)
    text = render_matrix(matrix, len(recipes), str(path))
    result = check(matrix, text, recipes, str(folder), _repository_of(folder))
    return Adoption(**{**result.__dict__, "warnings": tuple(warnings) + result.warnings})


def _grouped(facts: dict) -> list[str]:
    """Lines of a report section: facts that differ only in a recipe's own values (a pname, a
    flag) share their reason, the text after the first ': ', and are said once, with how many
    recipes they concern and an example."""
    by_reason: dict[str, dict[str, list[str]]] = {}
    for name in sorted(facts):
        for fact in facts[name]:
            subject, colon, reason = fact.partition(": ")
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
                     + (f"; for {result.cuda_rebuilds} of them, whose SM the binary cache does not serve, magma, NCCL "
                        "and the other CUDA libraries are built too" if result.cuda_rebuilds else ""))
    replaced = [f"{len(result.reproduced_names)} recipes under {PKGS_DIR}"] + list(result.replaced)
    lines.append(f"`gen-matrix generate --adopt` replaces {', '.join(replaced)}"
                 + (f"; it rewrites its own parts of {', '.join(result.updated)}" if result.updated else ""))
    lines += [f"warning: {warning}" for warning in dict.fromkeys(result.warnings)]
    if result.lost:
        lines += ["", f"Not carried over ({sum(map(len, result.lost.values()))} facts of {len(result.lost)} recipes):"]
        lines += _grouped(result.lost)
    if result.changes:
        lines += ["", f"What `gen-matrix generate` would change ({len(result.changes)} recipes):"]
        lines += _grouped(result.changes)
    return "\n".join(lines) + "\n"


def committed_files(root: Path) -> frozenset[str]:
    """The files of the repository that git holds exactly as they are in the working tree:
    those of them the matrix generates, `generate --adopt` may replace, since their text
    stays in git's history (hand-written recipes, a BUILD_MATRIX.md written by hand)."""
    def git(*args: str) -> bytes:
        try:
            done = subprocess.run(["git", "-C", str(root), *args], capture_output=True)
        except OSError as error:
            raise GenMatrixError.at(Location(str(root)), f"cannot run git: {error.strerror or error}",
                                    "--adopt replaces only recipes git holds; install git") from None
        if done.returncode != 0:
            raise GenMatrixError.at(Location(str(root)), "not a git repository (or git cannot read it)",
                                    "commit the hand-written recipes to git first: --adopt replaces only "
                                    "recipes whose text git keeps") from None
        return done.stdout

    def names(output: bytes) -> set[str]:
        return {name for name in output.decode("utf-8", "replace").split("\0") if name}

    committed = names(git("ls-tree", "-r", "-z", "--name-only", "HEAD"))
    changed = names(git("diff", "--name-only", "-z", "--relative", "HEAD"))
    return frozenset(committed - changed)
