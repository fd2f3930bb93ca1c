"""A script that builds a variant from a PyTorch source checkout, without Nix.

The same switches as the variant's recipe, for bash, cmd or PowerShell through
`templates/env.<shell>.j2`, with the checks a hand build needs first: an nvcc new enough for
the SM, on Windows the MSVC x64 environment, no CMake cache left from another architecture,
and as many compile jobs as the machine's cores and memory allow. Each shell's quoting lives
in one function, the template's filter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..knowledge import JOB_MEMORY_GB, version_key
from ..model import Matrix, Variant

if TYPE_CHECKING:
    import jinja2

SHELLS = ("bash", "cmd", "powershell")
WINDOWS_SHELLS = ("cmd", "powershell")
_NAME = re.compile(r"^[A-Z_][A-Z0-9_]*$")


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


def bash_quote(value: str) -> str:
    """A bash word that is exactly `value`: single quotes, each ' written as '\\''."""
    return "'" + str(value).replace("'", "'\\''") + "'"


def cmd_quote(value: str) -> str:
    """The value part of `set "NAME=value"` in a .cmd file: % doubled, the rest literal in the quotes."""
    text = str(value)
    if any(c in text for c in '"\r\n'):
        raise ValueError(f"cmd cannot set a value holding quotes or line breaks: {text!r}")
    return text.replace("%", "%%")


def powershell_quote(value: str) -> str:
    """A PowerShell verbatim string: single quotes, each ' (and its typographic forms) doubled."""
    return "'" + re.sub(r"(['\u2018\u2019\u201a\u201b])", r"\1\1", str(value)) + "'"


QUOTE = {"bash": bash_quote, "cmd": cmd_quote, "powershell": powershell_quote}
COMMENT_MARK = {"bash": "#", "cmd": "rem", "powershell": "#"}


@dataclass(frozen=True)
class Nvcc:
    """The nvcc releases that compile for the variant's SM, as major * 100 + minor for the shells."""

    sm: str  # "sm120 (Blackwell consumer)"
    sm_name: str  # "sm120": cmd ends a parenthesised block at the first ")"
    cuda: str  # the variant's CUDA release
    lowest: str
    lowest_number: int
    highest: str | None
    highest_number: int | None


def _number(version: str) -> int:
    major, minor = version_key(version)[:2]
    return major * 100 + minor


def nvcc(variant: Variant) -> Nvcc | None:
    sm = variant.sm
    if sm is None:
        return None
    return Nvcc(sm.label, sm.name, variant.cuda.name, sm.min_cuda, _number(sm.min_cuda), sm.max_cuda,
                _number(sm.max_cuda) if sm.max_cuda else None)


def _environment() -> jinja2.Environment:
    from ..pipeline import render  # jinja2, only when a script is written: `gen-matrix --help` lists SHELLS

    return render.new_environment({**QUOTE, "comment": render.comment})


def variables(matrix: Matrix, variant: Variant, shell: str) -> dict[str, str]:
    """Name -> value, in the order they are set. cmd and PowerShell mean MSVC; bash means GCC or Clang."""
    from .listing import switches

    values: dict[str, str] = {}
    if variant.sm:
        values["TORCH_CUDA_ARCH_LIST"] = variant.sm.capability
        values["CMAKE_CUDA_ARCHITECTURES"] = cuda_architecture(variant)
    values.update(switches(variant))
    if shell in WINDOWS_SHELLS:
        values["USE_DISTRIBUTED"] = "0"
        values.update(RESPONSE_FILES)
    isa = variant.isa
    flags = (isa.msvc if shell != "bash" else " ".join(isa.flags)) if isa else ""
    if flags:
        values["CFLAGS"] = flags
        values["CXXFLAGS"] = flags
    if variant.kind == "cpu":
        values["BLAS"] = "OpenBLAS"  # as the recipe: the CPU-only variants use OpenBLAS
    for name in values:
        if not _NAME.match(name):
            raise ValueError(f"not an environment variable name: {name!r}")
    return values


def cuda_architecture(variant: Variant) -> str:
    """CMake's spelling of the SM: 12.0 -> 120."""
    return variant.sm.capability.replace(".", "")


def script(matrix: Matrix, variant: Variant, shell: str) -> str:
    isa = variant.isa
    system = "Windows" if shell in WINDOWS_SHELLS else "Linux"
    return _environment().get_template(f"env.{shell}.j2").render(
        mark=COMMENT_MARK[shell],
        name=variant.name,
        pytorch=matrix.pytorch_version,
        python=variant.python.name,
        cuda=variant.cuda.name if variant.cuda else None,
        system=system,
        driver=variant.cuda.driver_for(system) if variant.cuda else None,
        capability=variant.sm.capability if variant.sm else None,
        architecture=cuda_architecture(variant) if variant.sm else None,
        nvcc=nvcc(variant),
        isa=isa.name if isa else None,
        no_msvc_flag=bool(isa and shell != "bash" and not isa.msvc),
        variables=list(variables(matrix, variant, shell).items()),
        job_memory=JOB_MEMORY_GB["cuda" if variant.sm else "cpu"],
        avx_only=AVX_ONLY_PRESETS if AVX_ONLY_FIX in variant.fixes else (),
        avx_only_file=AVX_ONLY_FILE,
        build=BUILD_COMMAND,
    )
