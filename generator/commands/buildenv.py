"""A script that builds PyTorch from a source checkout, without Nix.

One Target (a matrix variant, or a combination `gen-matrix env --gpu ... --cuda ...` names)
becomes a script for bash, cmd or PowerShell through `templates/env.<shell>.j2`. The script
checks where it builds before it changes anything there: the Python, the checkout and its
version, MSVC on Windows, the CUDA toolkit (too old for the SM, too new for the PyTorch
release), the host compiler that toolkit accepts, cuDNN; then it installs the requirements
and checks ninja. It says why it turns each feature off that the knowledge table turns off;
launches the compilers through ccache or sccache where one is on PATH; removes a CMake cache
configured with other switches (or another launcher); caps MAX_JOBS by memory. `write` puts
it in a file in the bytes its shell reads. Each shell's quoting lives in one function of
escape.py, the template's filter of the shell's name; what a shell's comment line may hold,
in COMMENT.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from ..errors import GenMatrixError, Location
from ..escape import SHELLS, cmd
from ..knowledge import (CUDNN_RULE, Accelerator, Cuda, Isa, Knowledge, Release, Sm, Toolkit, Workaround,
                         switches, version_key)
from ..model import Matrix, Variant
from ..pipeline import write
from ..pipeline.nixvalue import comment
from ..records import dataclass

if TYPE_CHECKING:
    import jinja2

WINDOWS_SHELLS = ("cmd", "powershell")
_NAME = re.compile(r"^[A-Z_][A-Z0-9_]*$")

# Where each shell's script runs, and the CPU architecture its compiler targets: cmd and
# PowerShell mean MSVC for x64 (the scripts check VSCMD_ARG_TGT_ARCH); bash means Linux or macOS.
SYSTEM = {"bash": "Linux", "cmd": "Windows", "powershell": "Windows"}

# PyTorch's setup.py hands every CMAKE_* variable to CMake as -D. Long object and include
# lists overflow Windows' 8191-character command line; response files carry them instead.
RESPONSE_FILES = {
    "CMAKE_CUDA_USE_RESPONSE_FILE_FOR_INCLUDES": "ON",
    "CMAKE_CUDA_USE_RESPONSE_FILE_FOR_LIBRARIES": "ON",
    "CMAKE_CUDA_USE_RESPONSE_FILE_FOR_OBJECTS": "ON",
    "CMAKE_CXX_USE_RESPONSE_FILE_FOR_INCLUDES": "ON",
    "CMAKE_CXX_USE_RESPONSE_FILE_FOR_LIBRARIES": "ON",
    "CMAKE_CXX_USE_RESPONSE_FILE_FOR_OBJECTS": "ON",
    "CMAKE_NINJA_FORCE_RESPONSE_FILE": "ON",
}

# What nix/fixes/avx-only-kernels.nix does for an `avx` variant, for a hand build: a CMake file
# read before project() presets FindAVX's results, so no AVX2 or AVX-512 kernel copies are
# built (setup.py forwards CMAKE_PROJECT_INCLUDE_BEFORE to CMake, not CXX_AVX2_FOUND).
AVX_ONLY_FIX = "avx-only-kernels"
AVX_ONLY_FILE = "gen-matrix-avx-only.cmake"
AVX_ONLY_PRESETS = tuple(f'set({name} {value} CACHE BOOL "AVX-only build")' for name, value in (
    ("CXX_AVX2_FOUND", "FALSE"), ("C_AVX2_FOUND", "FALSE"), ("CXX_AVX512_FOUND", "FALSE"),
    ("C_AVX512_FOUND", "FALSE"), ("CAFFE2_COMPILER_SUPPORTS_AVX512_EXTENSIONS", "OFF")))

BUILD_COMMAND = "python -m pip install --no-build-isolation -v -e ."
# A wheel to install elsewhere, rather than an editable install tied to the checkout.
WHEEL_COMMAND = "python -m build --wheel --no-isolation"
# What the script writes into build/ after it configured: every switch it set. A CMake cache
# beside a stamp that differs (or none) was configured with other switches, and PyTorch's
# setup.py does not reconfigure while build/CMakeCache.txt exists.
STAMP = "gen-matrix-switches.txt"
# Windows prerequisites of PyTorch's own from-source instructions (README, "Install
# Dependencies"): MKL as pip packages.
WINDOWS_PIP = ("mkl-static", "mkl-include")

# A compiler cache, where one is on PATH: CMake (3.17 and newer) and PyTorch's setup.py, which
# hands every CMAKE_* variable to CMake, take these as the command that runs each compiler
# (PyTorch's CONTRIBUTING.md, "Use CCache"). The stamp records them: a CMake cache configured
# with another launcher, or none, is configured again.
LAUNCHERS = ("CMAKE_C_COMPILER_LAUNCHER", "CMAKE_CXX_COMPILER_LAUNCHER", "CMAKE_CUDA_COMPILER_LAUNCHER")
# Beside the checkout, not in build/ (which a changed switch or `python setup.py clean` empties)
# nor in the checkout (`git clean -xdf`): another checkout in the same folder shares it.
CACHE_FOLDER = "compiler-cache"
# What PyTorch's CONTRIBUTING.md sets for a build's objects (`ccache -M 25Gi`), where ccache's
# default is 5 GB; only where the person has set no size of their own.
CACHE_SIZE = "25G"
# The first ccache that caches MSVC's cl.exe: ccache 4.6 release notes, "Added support for
# caching calls to Microsoft Visual C++ (MSVC) and clang-cl". sccache has for longer, and is
# what PyTorch's own Windows builds use.
CCACHE_MSVC = (4, 6)


def _cmd_comment(text) -> str:
    """Text on a `rem` line: one line, and cmd reads its % even there (%~ aborts the script)."""
    return cmd(comment(text))


# What a comment line of each shell may hold: bash's and PowerShell's # comments end at the
# line's end and nothing in them is read.
COMMENT = {"bash": comment, "cmd": _cmd_comment, "powershell": comment}
COMMENT_MARK = {"bash": "#", "cmd": "rem", "powershell": "#"}


@dataclass(frozen=True)
class Target:
    """One PyTorch build the script makes: a matrix variant's, or a combination of axes."""

    name: str
    kind: str  # gpu, cpu or darwin
    pytorch: str  # the version checked out, "2.8.0"
    python: str  # "3.13"
    release: Release | None  # the knowledge table's row of its release line
    job_memory_gb: int  # GiB one compile job may take: the knowledge's, for a build with CUDA or not
    cuda: str | None = None
    toolkit: Cuda | Toolkit | None = None  # the CUDA release's drivers and host compilers
    sm: Sm | None = None
    isa: Isa | None = None
    accelerator: Accelerator | None = None
    fixes: tuple[str, ...] = ()  # build fixes of the matrix that apply (avx-only-kernels)
    workarounds: tuple[Workaround, ...] = ()
    wheel: bool = False  # build a wheel rather than an editable install
    driver: str | None = None  # the NVIDIA driver running it needs on the script's system, in words

    def switches(self) -> dict[str, str]:
        """The build switches (USE_<X>), as the recipes set them."""
        return switches(self.sm, self.isa, self.accelerator)


def target_of(matrix: Matrix, variant: Variant, shell: str, wheel: bool = False, where: str = "NAME") -> Target:
    """The Target of a matrix variant, or a located error where `shell` cannot build it."""
    refuse = refusal(variant, shell)
    if refuse:
        raise GenMatrixError.at(Location(where), *refuse)
    k = matrix.knowledge
    release = k.release(matrix.pytorch_version)
    return Target(
        name=variant.name, kind=variant.kind, pytorch=matrix.pytorch_version, python=variant.python.name,
        release=release, job_memory_gb=k.job_memory_gb(cuda=variant.cuda is not None),
        cuda=variant.cuda.name if variant.cuda else None, toolkit=variant.cuda,
        sm=variant.sm, isa=variant.isa, accelerator=variant.accelerator, fixes=variant.fixes,
        workarounds=workarounds(k, matrix.pytorch_version, variant.cuda.name if variant.cuda else None,
                                SYSTEM[shell], variant.kind),
        wheel=wheel, driver=driver_words(k, variant.sm, variant.cuda.name if variant.cuda else None, shell),
    )


def driver_words(knowledge: Knowledge, sm: Sm | None, cuda: str | None, shell: str) -> str | None:
    """The NVIDIA driver a build of CUDA `cuda` for `sm` needs where the script of `shell` runs."""
    from .wheels import build_driver_text

    return build_driver_text(knowledge, sm, cuda, (SYSTEM[shell],)) if cuda else None


# What PyTorch's setup.py reads as a switch turned on (tools/setup_helpers/env.py, check_env_flag),
# in any case; CMake, which setup.py hands each USE_* to, reads them as true too.
ON = ("ON", "1", "YES", "TRUE", "Y")


def cudnn_workaround(target: Target) -> Workaround | None:
    """The workaround that sets USE_CUDNN whatever the CMake (the last, as variables() applies
    them in order), or None: its value is the build's, as every workaround value is."""
    return next((w for w in reversed(target.workarounds) if w.cmake is None and "USE_CUDNN" in w.env), None)


def uses_cudnn(target: Target) -> bool:
    """Whether the build needs cuDNN, which the script then requires found: as a workaround sets
    USE_CUDNN, else where current cuDNN supports the GPU (a cudnn_default decides at run time)."""
    workaround = cudnn_workaround(target)
    if workaround is not None:
        return workaround.env["USE_CUDNN"].upper() in ON
    return bool(target.sm and target.sm.cudnn)


def cudnn_default(target: Target) -> str | None:
    """For an SM current cuDNN no longer supports: what USE_CUDNN is unless the user sets it
    ("1" where an older cuDNN built for this CUDA release supports the SM, else "0"); None where
    the build's cuDNN is not in question (on for the SM, set by a workaround, or no GPU)."""
    from ..knowledge import in_range

    sm = target.sm
    if sm is None or sm.cudnn or cudnn_workaround(target) is not None:
        return None
    older = sm.older_cudnn
    return "1" if older and target.cuda and in_range(target.cuda, older.cuda) else "0"


def refusal(variant: Variant, shell: str) -> tuple[str, str] | None:
    """(why, what to do) where no script of `shell` can build `variant`; None where one can."""
    if variant.is_companion:
        return (f"{variant.name} is a {variant.package} build on top of {variant.torch}; `gen-matrix env` "
                "scripts PyTorch itself",
                f"run `gen-matrix env {variant.torch} --shell {shell}`, then build {variant.package} at its "
                "matching tag with `python -m pip install --no-build-isolation -v .` in its checkout")
    if variant.kind == "darwin" and shell != "bash":
        return (f"{variant.name} builds for macOS ({variant.accelerator.description or variant.accelerator.name}); "
                f"a {shell} script is for Windows with MSVC",
                f"run `gen-matrix env {variant.name} --shell bash` on the Mac")
    if variant.kind != "darwin" and shell in WINDOWS_SHELLS and variant.isa.arch != "x86_64":
        return (f"{variant.name} builds for {variant.isa.arch} Linux; the {shell} script builds with MSVC for "
                "x64 Windows",
                f"run `gen-matrix env {variant.name} --shell bash` on the {variant.isa.arch} Linux machine")
    return None


def workarounds(knowledge: Knowledge, pytorch: str, cuda: str | None, system: str, kind: str) -> tuple[Workaround, ...]:
    facts = {"pytorch": pytorch, "cuda": cuda, "system": system, "kind": kind}
    return tuple(w for w in knowledge.workarounds.values() if w.applies(facts))


# ---- what the script checks ---------------------------------------------------------------

def _number(version: str) -> int:
    major, minor = (version_key(version) + (0,))[:2]
    return major * 100 + minor


@dataclass(frozen=True)
class Check:
    """One comparison of a number the script reads (nvcc's release, MSVC's _MSC_VER) that
    stops the build: `op` is lt, gt or ge, as the shells spell it (-lt, LSS, ...)."""

    op: str
    number: int
    text: str  # why, with the SM's family in parentheses
    short: str  # the same without parentheses, for cmd's parenthesised blocks

    @property
    def cmd(self) -> str:
        """The operator as cmd's `if` spells it."""
        return {"lt": "LSS", "gt": "GTR", "ge": "GEQ"}[self.op]


def nvcc_checks(target: Target) -> tuple[Check, ...]:
    """What nvcc's release must meet: the SM's CUDA range, the release's source CUDA range."""
    checks = []
    sm = target.sm
    if sm is None:
        return ()
    checks.append(Check("lt", _number(sm.min_cuda), f"{sm.label} needs CUDA >= {sm.min_cuda}",
                        f"{sm.name} needs CUDA {sm.min_cuda} or newer"))
    if sm.max_cuda:
        checks.append(Check("gt", _number(sm.max_cuda), f"{sm.label} was dropped after CUDA {sm.max_cuda}",
                            f"{sm.name} was dropped after CUDA {sm.max_cuda}"))
    release = target.release
    if release is not None and release.source_cuda:
        for clause in release.source_cuda.split(","):
            clause = clause.strip()
            if clause.startswith("<") and not clause.startswith("<="):
                bound = clause[1:].strip()
                text = f"PyTorch {release.name}'s source does not build with CUDA {bound} or newer"
                checks.append(Check("ge", _number(bound), text, text))
    return tuple(checks)


def visual_studio(msvc: tuple[int, ...]) -> str:
    """The Visual Studio releases whose MSVC falls in [oldest, first refused) _MSC_VER."""
    lowest, refused = msvc
    names = [name for name, start, end in (("2017", 1910, 1920), ("2019", 1920, 1930), ("2022", 1930, 1950),
                                           ("2026", 1950, 1960)) if lowest < end and refused > start]
    years = ", ".join(names[:-1]) + (" or " if len(names) > 1 else "") + names[-1]
    return f"Visual Studio {years}" + (" (2022 up to 17.9)" if refused == 1940 else "")


def msvc_check(target: Target) -> Check | None:
    toolkit = target.toolkit
    if target.sm is None or toolkit is None or not toolkit.msvc:
        return None
    lowest, refused = toolkit.msvc
    vs = visual_studio(toolkit.msvc)
    text = f"CUDA {target.cuda}'s nvcc accepts MSVC _MSC_VER {lowest} to {refused - 1}, {vs}"
    return Check("ge", refused, text, text)


def variables(target: Target, shell: str) -> dict[str, str]:
    """Name -> value, in the order they are set. cmd and PowerShell mean MSVC; bash means GCC or Clang."""
    values: dict[str, str] = {}
    if target.sm:
        values["TORCH_CUDA_ARCH_LIST"] = target.sm.capability
        values["CMAKE_CUDA_ARCHITECTURES"] = cuda_architecture(target.sm)
    values.update(target.switches())
    default = cudnn_default(target)
    if default is not None:
        values["USE_CUDNN"] = default
    if shell in WINDOWS_SHELLS:
        values["USE_DISTRIBUTED"] = "0"
        values["DISTUTILS_USE_SDK"] = "1"
        values.update(RESPONSE_FILES)
    isa = target.isa
    flags = (isa.msvc if shell != "bash" else " ".join(isa.flags)) if isa else ""
    if flags:
        values["CFLAGS"] = flags
        values["CXXFLAGS"] = flags
    if target.kind == "cpu":
        values["BLAS"] = "OpenBLAS"  # as the recipe: the CPU-only variants use OpenBLAS
    for workaround in target.workarounds:
        if workaround.cmake is None:
            values.update(workaround.env)
    for name in values:
        if not _NAME.match(name):
            raise ValueError(f"not an environment variable name: {name!r}")
    return values


def reasons(target: Target) -> dict[str, str]:
    """Why the script sets each variable that the knowledge table turns a feature off with,
    by name: the script prints it before the setting."""
    why: dict[str, str] = {}
    sm, isa = target.sm, target.isa
    default = cudnn_default(target)
    if default is not None:
        older = sm.older_cudnn
        if default == "1":
            why["USE_CUDNN"] = (f"{CUDNN_RULE}, but cuDNN {older.version} for CUDA {older.cuda} still supports "
                                f"{sm.name} (compute capability {sm.capability}): build with that cuDNN, or set "
                                "USE_CUDNN=0 before running this script to build without it")
        else:
            with_older = (f"; cuDNN {older.version} does, for CUDA {older.cuda}" if older else "")
            why["USE_CUDNN"] = (f"{CUDNN_RULE} ({sm.name} is compute capability {sm.capability}){with_older}: "
                                "set USE_CUDNN=1 before running this script only with an older cuDNN that still "
                                f"supports {sm.name}")
    for feature in (isa.disable if isa else ()):
        why[f"USE_{feature}"] = (f"the knowledge table's {isa.name} row disables {feature}, which needs a newer "
                                 f"instruction set than {isa.name}")
    for workaround in target.workarounds:
        for name in workaround.env:
            why[name] = f"workaround {workaround.name}: {workaround.why}"
    return why


def cuda_architecture(sm: Sm) -> str:
    """CMake's spelling of the SM: 12.0 -> 120."""
    return sm.capability.replace(".", "")


def _environment(shell: str) -> jinja2.Environment:
    from ..templating import new_environment  # jinja2, only when a script is written: explain and detect read the rest

    return new_environment({"comment": COMMENT[shell]})


def script(target: Target, shell: str) -> str:
    system = SYSTEM[shell]
    release = target.release
    values = variables(target, shell)
    # the switches the stamp records: what the script sets, and the toolkit it found
    stamped = (list(values) + [name for w in target.workarounds if w.cmake for name in w.env]
               + (["CUDA_HOME"] if target.sm and shell == "bash" else ["CUDA_PATH"] if target.sm else [])
               + list(LAUNCHERS))
    pip = tuple(dict.fromkeys(p for w in target.workarounds for p in w.pip))
    return _environment(shell).get_template(f"env.{shell}.j2").render(
        mark=COMMENT_MARK[shell],
        name=target.name,
        pytorch=target.pytorch,
        pytorch_line=".".join(target.pytorch.split(".")[:2]),
        release=release.name if release else None,
        python=target.python,
        python_range=f"{release.python[0]} to {release.python[1]}" if release else None,
        cuda=target.cuda,
        system=system,
        driver=target.driver,
        sm=target.sm.label if target.sm else None,
        jetson=bool(target.sm and target.sm.jetson),
        nvcc_checks=nvcc_checks(target),
        msvc=msvc_check(target),
        gcc=target.toolkit.gcc if target.toolkit and target.sm else None,
        cudnn=uses_cudnn(target),
        cudnn_workaround=cudnn_workaround(target),
        cudnn_default=cudnn_default(target),
        isa=target.isa.name if target.isa else None,
        no_msvc_flag=bool(target.isa and shell != "bash" and not target.isa.msvc),
        variables=list(values.items()),
        reasons=reasons(target),
        launchers=LAUNCHERS,
        cache_folder=CACHE_FOLDER,
        cache_size=CACHE_SIZE,
        ccache_msvc=CCACHE_MSVC,
        stamped=stamped,
        stamp=STAMP,
        job_memory=target.job_memory_gb,
        avx_only=AVX_ONLY_PRESETS if AVX_ONLY_FIX in target.fixes else (),
        avx_only_file=AVX_ONLY_FILE,
        workarounds=target.workarounds,
        pip=pip + (WINDOWS_PIP if shell in WINDOWS_SHELLS else ()) + (("build",) if target.wheel else ()),
        cmake_workarounds=[w for w in target.workarounds if w.cmake],
        build=WHEEL_COMMAND if target.wheel else BUILD_COMMAND,
        wheel=target.wheel,
    )


# ---- the script as a file its shell reads ---------------------------------------------------

# Bytes each shell reads as the script's text. cmd reads a batch file in the console's code
# page, which differs from one Windows to the next, and cannot read UTF-16 (what Windows
# PowerShell 5.1's `>` writes): ASCII, with the CRLF line ends Windows' own batch files have.
# Windows PowerShell 5.1 reads a file without a byte order mark in the ANSI code page, and
# PowerShell 7 in UTF-8: UTF-8 with a byte order mark reads the same in both.
ENCODING = {"bash": ("utf-8", "\n", b""), "cmd": ("ascii", "\r\n", b""),
            "powershell": ("utf-8", "\r\n", b"\xef\xbb\xbf")}


def readable(text: str, shell: str, sources: Iterable[tuple[Location, str]] = ()) -> str:
    """`text`, or a located error where `shell` cannot read it the same on every machine:
    a cmd script holds ASCII only. The error is at the first of `sources` (the texts of the
    matrix the script was made from, with their locations) that holds the character, else at
    --shell."""
    if shell == "cmd":
        for number, line in enumerate(text.split("\n"), 1):
            other = next((char for char in line if not char.isascii()), None)
            if other is not None:
                raise GenMatrixError.at(
                    next((where for where, source in sources if other in source), Location("--shell")),
                    f"the cmd script would hold {other!r} (U+{ord(other):04X}) on its line {number}: {line.strip()[:120]}; "
                    "cmd reads a batch file in the console's code page, which differs between machines",
                    "write that text of the matrix (or its knowledge rows) in ASCII, or use --shell powershell, "
                    "whose script is UTF-8 with a byte order mark")
    return text


def file_bytes(text: str, shell: str) -> bytes:
    """The script as the bytes of a file of `shell`'s (ENCODING)."""
    encoding, newline, mark = ENCODING[shell]
    return mark + readable(text, shell).replace("\n", newline).encode(encoding)


# What the comments at the top of every script say (templates/env.comments.j2): a file that
# says it in its first lines is one env wrote, which -o replaces without --force.
ENV_MARKER = b"Generated by `gen-matrix env`."
_MARKER_LINES = 4


def written_by_env(head: bytes) -> bool:
    """Whether the first bytes of a file are those of a script env wrote."""
    return any(ENV_MARKER in line for line in head.split(b"\n", _MARKER_LINES)[:_MARKER_LINES])


def write_script(path: Path, text: str, shell: str, force: bool = False, option: str = "--output") -> None:
    """Write the script to `path` as `shell` reads it, as the other writers do (write.replace_own):
    over a file only one env wrote, or with `force`; a new bash script is executable."""
    write.replace_own(str(path), file_bytes(text, shell), written_by_env, force, option,
                       0o777 if shell == "bash" else 0o666)
