"""A hand build named by its axes (`gen-matrix env --gpu ... --cuda ... --pytorch ...`), without a matrix.

Pure: the knowledge table and what was asked in, a buildenv.Target out, or a located error
that says why the combination cannot work and the nearest one that can. Axes left out are
chosen: the newest PyTorch release, CUDA release and Python that work with the rest.
"""

from __future__ import annotations

import itertools
import re

from ..errors import GenMatrixError, Location
from ..escape import argument
from ..knowledge import CANNOT, SOURCE, Finding, Isa, Knowledge, Release, Sm, findings, version_key
from . import buildenv
from ..records import dataclass
from .listing import axis_value

_VERSION = re.compile(r"^[0-9]+\.[0-9]+(\.[0-9]+)?$")


@dataclass(frozen=True)
class Asked:
    """What `gen-matrix env` was given instead of a NAME, as typed (None: not given)."""

    gpu: str | None = None  # a card's name, an SM or a capability
    cuda: str | None = None
    pytorch: str | None = None  # a release line (1.12) or a version (1.12.1)
    python: str | None = None
    isa: str | None = None
    shell: str = "bash"
    wheel: bool = False
    output: str | None = None  # -o FILE, carried into the commands suggested


@dataclass(frozen=True)
class Choice:
    """A PyTorch release, CUDA release and Python to build by hand."""

    release: Release
    cuda: str | None
    python: str


def cuda_releases(knowledge: Knowledge) -> list[str]:
    return sorted(set(knowledge.cuda) | set(knowledge.toolkit), key=version_key)


def _blocking(knowledge: Knowledge, sm: Sm | None, isa: Isa | None, choice: Choice) -> list[Finding]:
    return [f for f in findings(knowledge, sm=sm, cuda=choice.cuda, pytorch=choice.release.name,
                                python=choice.python, isa=isa) if f.level in (CANNOT, SOURCE)]


def _distance(a: str, b: str) -> int:
    (a1, a2), (b1, b2) = version_key(a)[:2], version_key(b)[:2]
    return abs((a1 * 100 + a2) - (b1 * 100 + b2))


def _candidates(knowledge: Knowledge, sm: Sm | None, asked_python: str | None, release: Release) -> list[Choice]:
    """The CUDA releases PyTorch's own builds of `release` use, each with a Python it takes."""
    python = asked_python if asked_python and not release.python_support(asked_python) else release.preferred_python
    if sm is None:
        return [Choice(release, None, python)]
    # stable ones first, the newest first
    cudas = (sorted(release.cuda, key=version_key, reverse=True)
             + sorted(set(release.experimental_cuda) - set(release.cuda), key=version_key, reverse=True))
    return [Choice(release, cuda, python) for cuda in cudas if knowledge.cuda_release(cuda)]


def nearest(knowledge: Knowledge, sm: Sm | None, isa: Isa | None, asked: Choice, given: set[str]) -> Choice | None:
    """The working combination closest to `asked`: fewest given axes changed, then the nearest
    CUDA release, then the newest PyTorch."""
    best = None
    for release in knowledge.pytorch.values():
        for choice in _candidates(knowledge, sm, asked.python, release):
            if _blocking(knowledge, sm, isa, choice):
                continue
            changed = sum(("pytorch" in given and choice.release.name != asked.release.name,
                           "cuda" in given and choice.cuda != asked.cuda,
                           "python" in given and choice.python != asked.python))
            key = (changed, _distance(choice.cuda, asked.cuda) if choice.cuda and asked.cuda else 0,
                   _distance(choice.release.name, asked.release.name) if "pytorch" in given else 0,
                   tuple(-n for n in version_key(choice.release.name)))
            if best is None or key < best[0]:
                best = (key, choice)
    return best[1] if best else None


def pytorch_release(knowledge: Knowledge, text: str) -> tuple[Release, str]:
    """The release row and the version to check out for `--pytorch TEXT`."""
    value = text.strip()
    release = knowledge.release(value) if _VERSION.match(value) else None
    if release is None:
        known = ", ".join(sorted(knowledge.pytorch, key=version_key))
        raise GenMatrixError.at(Location("--pytorch"), f"unknown PyTorch release '{text}'",
                                f"give a release line or version the knowledge table has: {known}")
    return release, value if value.count(".") == 2 else release.newest


def _wheel_hint(knowledge: Knowledge, sm: Sm, shell: str, python: str | None, release: str | None,
                cuda: str | None) -> str:
    """PyTorch's own wheel that runs on `sm` where the script would run, so that no build is
    needed: of the `release` and `cuda` asked for where one is, else the newest."""
    from ..knowledge import best_wheel, wheels_for
    from .wheels import driver_text, how_text

    if shell in buildenv.WINDOWS_SHELLS:
        system = "x86_64-windows"
    else:
        system = "x86_64-linux" if "x86_64" in sm.hosts else "aarch64-linux"
    fits = wheels_for(knowledge, sm, system, python)
    for wanted in (lambda f: f.release.name == release, lambda f: f.cuda == cuda):
        fits = tuple(f for f in fits if wanted(f)) or fits
    fit = best_wheel(fits)
    if fit is None:
        return ""
    return (f"no build is needed: PyTorch {fit.release.newest}'s own CUDA {fit.cuda} wheels for {system} run on "
            f"{sm.name} ({how_text(fit)}): `{fit.command}`, with {driver_text(fit, [buildenv.SYSTEM[shell]])}; or ")


def _command(asked: Asked, sm: Sm | None, choice: Choice) -> str:
    """The command of `choice`, quoted for the shell its script is for: there it is typed."""
    parts = ["gen-matrix env"]
    if asked.gpu:
        try:
            parts.append(f"--gpu {argument(asked.gpu.strip(), asked.shell)}")
        except ValueError:  # a name that shell cannot quote: the SM it matched says the same
            parts.append(f"--gpu {sm.name}")
    if choice.cuda:
        parts.append(f"--cuda {choice.cuda}")
    parts += [f"--pytorch {choice.release.newest}", f"--python {choice.python}"]
    if asked.isa:
        parts.append(f"--isa {asked.isa}")
    parts.append(f"--shell {asked.shell}")
    if asked.output:
        try:
            parts.append(f"-o {argument(asked.output, asked.shell)}")
        except ValueError:  # a path that shell cannot quote: the user has it at hand
            parts.append("-o FILE")
    return " ".join(parts)


def name_of(version: str, python: str, cuda: str | None, sm: Sm | None, isa: Isa | None) -> str:
    parts = ["pytorch", version, f"python{python.replace('.', '')}"]
    parts += [f"cuda{cuda.replace('.', '_')}", sm.name] if sm and cuda else ["cpu"]
    if isa:
        parts.append(isa.name)
    return "-".join(parts)


@dataclass(frozen=True)
class Named:
    """The axes of a hand build, read back from the name `name_of` gave it."""

    pytorch: str
    python: str
    cuda: str | None
    sm: Sm | None
    isa: Isa | None


def _pythons(knowledge: Knowledge) -> list[str]:
    """Every Python a release of the knowledge table supports."""
    found = set()
    for release in knowledge.pytorch.values():
        (major, oldest), (_, newest) = (version_key(end)[:2] for end in release.python)
        found.update(f"{major}.{minor}" for minor in range(oldest, newest + 1))
    return sorted(found, key=version_key)


def axes_of_name(knowledge: Knowledge, name: str) -> Named | None:
    """The axes of `name` where `name_of` gives it for a PyTorch release and axis values the
    knowledge table knows; None where it does not. Each candidate is put through name_of
    itself, so the name has one spelling, which a reader cannot get out of step with."""
    version = name.split("-")[1] if name.count("-") >= 2 else ""
    if not _VERSION.match(version) or knowledge.release(version) is None:
        return None
    for python, cuda, sm, isa in itertools.product(_pythons(knowledge), (None, *cuda_releases(knowledge)),
                                                   (None, *knowledge.sm.values()), (None, *knowledge.isa.values())):
        if name_of(version, python, cuda, sm, isa) == name:
            return Named(version, python, cuda, sm, isa)
    return None


def _fixes(knowledge: Knowledge, version: str, cuda: str | None, isa: Isa | None, kind: str) -> tuple[str, ...]:
    """The matrix build fixes a hand build carries out too (the avx-only kernel presets)."""
    facts = {"pytorch": version, "cuda": cuda, "source": False, "isa": isa.name if isa else None,
             "system": f"{isa.arch}-linux" if isa else None, "kind": kind, "pin": None, "compiler_cache": None}
    return tuple(name for name, fix in knowledge.fixes.items() if name == buildenv.AVX_ONLY_FIX and fix.applies(facts))


def resolve(knowledge: Knowledge, asked: Asked) -> buildenv.Target:
    """The build `asked` names, checked against the knowledge table; a located error with the
    reason and the nearest working combination where it cannot work."""
    system = buildenv.SYSTEM[asked.shell]
    sm = knowledge.sm[axis_value(knowledge, "sm", asked.gpu, "--gpu")] if asked.gpu else None
    isa = knowledge.isa[axis_value(knowledge, "isa", asked.isa, "--isa")] if asked.isa else None
    if isa is not None and asked.shell in buildenv.WINDOWS_SHELLS and isa.arch != "x86_64":
        raise GenMatrixError.at(Location("--isa"), f"{isa.name} is an {isa.arch} instruction set; the {asked.shell} "
                                                   "script builds with MSVC for x64 Windows",
                                "give an x86_64 --isa, or --shell bash on the ARM Linux machine")
    if sm is not None and asked.shell in buildenv.WINDOWS_SHELLS and "x86_64" not in sm.hosts:
        raise GenMatrixError.at(Location("--gpu"), f"{sm.label} is found only on {' or '.join(sm.hosts)} hosts; the "
                                                   f"{asked.shell} script builds for x64 Windows",
                                "use --shell bash on the machine the GPU is in")
    if asked.python is not None and not re.fullmatch(r"[0-9]+\.[0-9]+", asked.python.strip()):
        raise GenMatrixError.at(Location("--python"), f"'{asked.python}' is not a Python version",
                                "give major.minor, such as 3.9 (quote it in YAML: 3.10 reads as 3.1)")
    python = asked.python.strip() if asked.python else None
    cuda = asked.cuda.strip() if asked.cuda else None
    if cuda is not None:
        if sm is None:
            raise GenMatrixError.at(Location("--cuda"), "--cuda needs a GPU to build for",
                                    "give --gpu NAME or --sm SM (a CPU-only build takes no CUDA)")
        if knowledge.cuda_release(cuda) is None:
            raise GenMatrixError.at(Location("--cuda"), f"unknown CUDA release '{asked.cuda}'",
                                    f"the knowledge table knows CUDA {', '.join(cuda_releases(knowledge))}")
    version = None
    if asked.pytorch is not None:
        release, version = pytorch_release(knowledge, asked.pytorch)
        releases = [release]
    elif cuda is not None:
        # PyTorch's own builds tell which releases go with a CUDA release; what its source takes
        # beyond them is mostly undocumented: the releases whose builds use it, else the nearest
        releases = sorted(knowledge.pytorch.values(), key=lambda r: (
            0 if cuda in r.cuda + r.experimental_cuda else 1,
            min(_distance(cuda, c) for c in r.cuda + r.experimental_cuda),
            tuple(-n for n in version_key(r.name))))
    else:
        releases = sorted(knowledge.pytorch.values(), key=lambda r: version_key(r.name), reverse=True)
    given = {axis for axis, value in (("pytorch", asked.pytorch), ("cuda", cuda), ("python", python)) if value}

    tried: list[tuple[Choice, list[str]]] = []
    chosen = None
    for release in releases:
        options = ([Choice(release, cuda, python or release.preferred_python)] if cuda or sm is None
                   else [Choice(c.release, c.cuda, python or c.python) for c in _candidates(knowledge, sm, python, release)])
        for choice in options:
            problems = _blocking(knowledge, sm, isa, choice)
            if not problems:
                chosen = choice
                break
            tried.append((choice, problems))
        if chosen:
            break
    if chosen is None:
        first, problems = tried[0] if tried else (Choice(releases[0], cuda, python or releases[0].preferred_python), [])
        close = nearest(knowledge, sm, isa, first, given)
        axes = [f.axis for f in problems]
        option = next((f"--{axis}" for axis in ("cuda", "pytorch", "python", "isa")
                       if axis in axes and (axis in given or axis == "isa")), "--gpu")
        texts = [f.text for f in problems]
        if cuda is None and sm is not None and all(f.axis == "cuda" for f in problems):
            listed = ", ".join(c.cuda for c, _ in tried if c.release.name == first.release.name)
            texts = [f"{sm.label} builds with CUDA {sm.min_cuda} to {sm.max_cuda or 'the newest'}; PyTorch "
                     f"{first.release.name}'s own builds use CUDA {listed}, none of which does",
                     "give --cuda to try another"] if asked.pytorch else texts
        elif sm is not None and sm.first_pytorch and any(sm.name in f.text for f in problems):
            asked_for = ", ".join(part for part in (f"CUDA {first.cuda}" if first.cuda else "",
                                                    f"PyTorch {first.release.name}" if asked.pytorch else "") if part)
            texts = [f"{sm.label} needs CUDA >= {sm.min_cuda} and PyTorch >= {sm.first_pytorch}; this asks for "
                     f"{asked_for}"] + [f.text for f in problems if sm.name not in f.text]
        reason = "; ".join(texts) or "no PyTorch release of the knowledge table builds this"
        if problems and all(f.axis == "isa" for f in problems) and sm is not None:
            fitting = sorted(name for name, row in knowledge.isa.items() if row.arch in sm.hosts)
            hint = f"give an --isa of the CPUs {sm.name} sits beside ({', '.join(fitting)}), or none"
        else:
            hint = (f"the nearest combination that works: {_command(asked, sm, close)}" if close
                    else "no combination of the knowledge table works for this GPU")
        if sm is not None:
            hint = _wheel_hint(knowledge, sm, asked.shell, python, releases[0].name if asked.pytorch else None,
                               cuda) + hint
        raise GenMatrixError.at(Location(option), reason, hint)

    release = chosen.release
    version = version if version and release.name == chosen.release.name else release.newest
    toolkit = knowledge.cuda_release(chosen.cuda) if chosen.cuda else None
    kind = "gpu" if sm else "cpu"
    return buildenv.Target(
        name=name_of(version, chosen.python, chosen.cuda, sm, isa), kind=kind, pytorch=version,
        python=chosen.python, release=release, job_memory_gb=knowledge.job_memory_gb(cuda=sm is not None),
        cuda=chosen.cuda, toolkit=toolkit, sm=sm, isa=isa,
        fixes=_fixes(knowledge, version, chosen.cuda, isa, kind),
        workarounds=buildenv.workarounds(knowledge, version, chosen.cuda, system, kind),
        wheel=asked.wheel, driver=buildenv.driver_words(knowledge, sm, chosen.cuda, asked.shell),
    )


def detected(knowledge: Knowledge, gpu: str | None, isa: str | None, python: str | None,
             machine=None) -> tuple[str | None, str | None, str | None]:
    """--detect: this machine's first GPU (its compute capability, else its name), the best
    instruction set its CPU runs and the Python running gen-matrix, where not given."""
    import sys

    from .detect import best_host_isa
    from .host import gather

    machine = machine or gather()
    if gpu is None and machine.gpus:
        first = machine.gpus[0]
        gpu = first.capability or first.name
    if isa is None and machine.cpu is not None:
        best = best_host_isa(knowledge, machine)
        isa = best.name if best else None
    if python is None:
        python = f"{sys.version_info[0]}.{sys.version_info[1]}"
    return gpu, isa, python


def newest(knowledge: Knowledge, sm: Sm, python: str | None = None, cuda: str | None = None,
           shell: str = "bash") -> buildenv.Target | None:
    """The newest PyTorch release and CUDA release that build for `sm`, keeping the user's own
    `python` and `cuda` where they fit (both, else Python, else CUDA, else neither)."""
    tries = dict.fromkeys(((python, cuda), (python, None), (None, cuda), (None, None)))
    for asked_python, asked_cuda in tries:
        try:
            return resolve(knowledge, Asked(gpu=sm.name, python=asked_python, cuda=asked_cuda, shell=shell))
        except GenMatrixError:
            continue
    return None


def newest_line(knowledge: Knowledge, sm: Sm, python: str | None = None, shell: str = "bash",
                cuda: str | None = None) -> str | None:
    """Which PyTorch and CUDA still build for `sm`, newest first, and the command that writes the script."""
    best = newest(knowledge, sm, python, cuda, shell)
    if best is None:
        return None
    return (f"newest that builds for {sm.name}: PyTorch {best.pytorch} with CUDA {best.cuda} and Python "
            f"{best.python} ({build_drivers(knowledge, sm, best.cuda)}): `{env_command(best, shell)}` writes the script")


def build_drivers(knowledge: Knowledge, sm: Sm, cuda: str) -> str:
    """The driver a hand build of CUDA `cuda` for `sm` needs, in words."""
    from .wheels import build_driver_text

    # A Jetson runs no desktop driver: JetPack brings its own, and its CUDA release decides what runs.
    if sm.jetson:
        return "a Jetson's driver comes with JetPack, whose CUDA release decides what runs on the board"
    return build_driver_text(knowledge, sm, cuda)


def env_command(target: buildenv.Target, shell: str = "bash", output: str | None = None) -> str:
    """The `gen-matrix env` command that writes the script of a hand build, runnable anywhere:
    the axes, not a name, so that it needs no matrix."""
    on = f" --shell {shell}" if shell != "bash" else ""
    to = f" -o {output}" if output else ""
    return (f"gen-matrix env --sm {target.sm.name} --cuda {target.cuda} --pytorch {target.pytorch} "
            f"--python {target.python}{on}{to}")
