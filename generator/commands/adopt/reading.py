"""adopt, reading: each hand-written recipe evaluated against a package set that records
what it asks of nixpkgs (adopt.nix beside this file), and read into a Recipe."""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

from ...errors import GenMatrixError, Location, Problem, shortened
from ...knowledge import Knowledge, version_key
from ...layout import LIBRARY, PKGS_DIR
from ...model import KIND_AXES
from ...pipeline import validate
from .. import sandbox
from ...records import dataclass

EVALUATOR = Path(__file__).with_name("adopt.nix")
COMPANIONS = ("torchvision", "torchaudio")
_REV = re.compile(r"/archive/([0-9a-f]{40})\.tar\.gz$")
_EXPORT = re.compile(r"^\s*export\s+([A-Za-z_][A-Za-z0-9_]*)=(\"[^\"]*\"|'[^']*'|\S*)", re.MULTILINE)
_JOBS = re.compile(r"^-j(\d+)$")
# The mark adopt.nix puts where a recipe reads what it does not write (an environment
# variable, a file, the clock): `what` is the builtin and its argument.
_IMPURE = {"open": "\u00abgen-matrix-adopt unread: ", "close": "\u00bb"}
_IMPURE_MARK = re.compile(re.escape(_IMPURE["open"]) + "(.*?)" + re.escape(_IMPURE["close"]), re.DOTALL)

# The config keys gen-matrix sets itself, and the overlay attributes adopt reads.
_OWN_CONFIG = {"allowUnfree", "cudaSupport", "cudaCapabilities"}
_READ_OVERLAYS = {"cudaPackages", "magma", "python3Packages"}
# What a hand-written build fix leaves in a recipe, by the built-in fix that replaces it.
FIX_SIGNS = {
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
    passthru: tuple = ()  # (name, value) pairs of the facts passthru gives consumers, sorted
    build_inputs: tuple[str, ...] = ()  # packages the recipe adds to buildInputs



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
    return repository_of(folder)


def repository_of(folder: Path) -> Path:
    return folder.parent.parent if folder.parts[-2:] == tuple(Path(PKGS_DIR).parts) else folder


# All of adopt's evaluations together: the first, of every recipe, and where it fails, those
# that find which recipes fail. Evaluating every recipe of a large repository takes a minute
# or two; one that loops costs an evaluation's TIMEOUT_S for each halving that holds it.
BUDGET_S = 1800.0


def evaluate(folder: Path, names: list[str], knowledge: Knowledge) -> dict:
    """What each recipe asks of nixpkgs, by file name: one nix-instantiate for them all and,
    where it fails, the batch split in halves until each failing recipe stands alone. Every
    evaluation together has BUDGET_S; the recipes not reached by then are named. Nix reads
    the recipes' repository and nothing else, and fetches nothing (sandbox.py)."""
    if shutil.which("nix-instantiate") is None:
        raise GenMatrixError.at(Location(str(folder)), "adopt evaluates the recipes, and nix-instantiate is not installed",
                                "install Nix (Debian: apt-get install nix-bin)")
    request = {"dir": str(folder.resolve()), "cuda": sorted(knowledge.cuda, key=version_key),
               "python": sorted(knowledge.python, key=version_key), "impure": _IMPURE}
    readable = [repository_of(folder).resolve(), EVALUATOR.resolve().parent]
    deadline = time.monotonic() + BUDGET_S

    def run(files) -> sandbox.Finished | None:
        """The evaluation of `files`; None where the budget is spent."""
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        command = ["nix-instantiate", "--eval", "--strict", "--json", "--readonly-mode", str(EVALUATOR),
                   "--argstr", "request", json.dumps(dict(request, recipes=files)), *sandbox.options(readable)]
        try:
            done = sandbox.run(command, min(sandbox.TIMEOUT_S, left))
        except OSError as error:
            raise GenMatrixError.at(Location(str(folder)), f"cannot run nix-instantiate: {error.strerror or error}",
                                    "install Nix (Debian: apt-get install nix-bin)") from None
        return None if done.timed_out and time.monotonic() >= deadline else done

    def failure(done: sandbox.Finished) -> str | None:
        if done.dropped:
            return done.overflow("its evaluation", sandbox.OUTPUT_BYTES) + " (does it hold a huge value?)"
        if done.timed_out:
            return f"its evaluation ran for more than {sandbox.TIMEOUT_S:.0f} s and was stopped (does it loop?)"
        if done.returncode == 0:
            return None
        message = [line for line in done.stderr.splitlines() if line.strip().startswith("error:")]
        text = (message or done.stderr.splitlines() or ["?"])[-1].strip()
        if text == "error: out of memory":
            text += f" (evaluation may take {sandbox.MEMORY_BYTES // 2**30} GiB)"
        return text

    problems: list[Problem] = []
    unreached: list[str] = []

    def isolate(files: list[str], done: sandbox.Finished | None) -> None:
        """Name each recipe of `files` that fails, `done` being their evaluation together."""
        if done is None:
            unreached.extend(files)
            return
        why = failure(done)
        if why is None:
            return
        if len(files) == 1:
            problems.append(Problem(Location(str(folder / files[0])), f"cannot be read by evaluation: {why}",
                                    "adopt reads recipes that import nixpkgs with fetchTarball and override its "
                                    "torch, torchvision or torchaudio, reading nothing outside their repository; "
                                    "move this one aside, or write its variant by hand"))
            return
        half = len(files) // 2
        for part in (files[:half], files[half:]):
            isolate(part, run(part))

    done = run(names)
    if done is not None and failure(done) is None:
        return json.loads(done.stdout)
    isolate(names, done)
    if unreached:
        problems.append(Problem(
            Location(str(folder)),
            f"{len(unreached)} recipe(s) not evaluated within the {BUDGET_S:.0f} s adopt gives all its evaluations: "
            + ", ".join(unreached[:20]) + (f" and {len(unreached) - 20} more" if len(unreached) > 20 else ""),
            "move aside the recipes named as failing (a recipe that loops takes an evaluation's whole time), "
            "then run adopt again"))
    raise GenMatrixError(problems or [Problem(Location(str(folder)), failure(done) if done else "")])


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


# What adopt reads of one recipe's values: far past what a recipe of torch writes (a few dozen
# flags, a few KiB of shell), so that a recipe's list of millions of items, or a string of
# megabytes, is refused at once rather than worked through.
MAX_ITEMS = 10_000
MAX_CHARS = 1 << 20
_MAX_DEPTH = 64


def _too_large(value, where: str = "", depth: int = 0) -> str | None:
    """Why one of the recipe's values is more than adopt reads; None where none is."""
    if depth > _MAX_DEPTH:
        return f"{where or 'a value'} is nested more than {_MAX_DEPTH} deep"
    if isinstance(value, str):
        return f"{where or 'a value'} is {len(value):,} characters long, more than the {MAX_CHARS:,} adopt reads" \
            if len(value) > MAX_CHARS else None
    if isinstance(value, (list, dict)):
        if len(value) > MAX_ITEMS:
            return f"{where or 'a value'} holds {len(value):,} items, more than the {MAX_ITEMS:,} adopt reads"
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            if isinstance(key, str) and len(key) > MAX_CHARS:
                return f"a name in {where or 'a value'} is {len(key):,} characters long"
            why = _too_large(item, f"{where}.{key}" if isinstance(value, dict) and where else
                             str(key) if isinstance(value, dict) else f"{where}[{key}]", depth + 1)
            if why:
                return why
    return None


def read(name: str, facts: dict, knowledge: Knowledge, where: str) -> Recipe:
    """The Recipe of one evaluation, and what of it no matrix can carry."""
    stem = name.removesuffix(".nix")
    too_large = _too_large(facts)
    if too_large:
        raise GenMatrixError.at(Location(where), f"cannot be read: {shortened(too_large)}",
                                "adopt reads recipes of torch's size; move this one aside, or write its variant by hand")
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
    fixes = {fix for fix, signs in FIX_SIGNS.items() if any(sign in text for sign in signs)}
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
        config_capabilities=_capabilities(nixpkgs["config"].get("cudaCapabilities")),
        passthru=tuple(sorted((key, value) for key, value in passthru.items()
                              if key != "cudaCapabilities" and (value is None or isinstance(value, (str, int))))),
        build_inputs=tuple(dep for dep in added if dep))


def _capabilities(value) -> tuple[str, ...] | None:
    return tuple(str(c) for c in value) if isinstance(value, list) else None



def committed_files(root: Path) -> frozenset[str]:
    """The files of the repository that git holds exactly as they are in the working tree:
    those of them the matrix generates, `generate --adopt` may replace, since their text
    stays in git's history (hand-written recipes, a BUILD_MATRIX.md written by hand)."""
    def git(*args: str) -> bytes:
        try:
            done = sandbox.capture(["git", "-C", str(root), *args], text=False)
        except OSError as error:
            raise GenMatrixError.at(Location(str(root)), f"cannot run git: {error.strerror or error}",
                                    "--adopt replaces only recipes git holds; install git") from None
        if done.dropped:
            raise GenMatrixError.at(Location(str(root)), done.overflow(f"git {args[0]}", sandbox.OUTPUT_BYTES),
                                    "--adopt reads the list of files git holds; make it smaller")
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

