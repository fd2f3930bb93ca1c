"""The environment for building a variant from a PyTorch source checkout, without Nix.

The same switches as the variant's recipe, set for bash, cmd or PowerShell through
`templates/env.<shell>.j2`; each shell's quoting lives in one function, the template's filter.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .model import Matrix, Variant

if TYPE_CHECKING:
    import jinja2

SHELLS = ("bash", "cmd", "powershell")
_NAME = re.compile(r"^[A-Z_][A-Z0-9_]*$")


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


def _environment() -> jinja2.Environment:
    from . import render  # jinja2, only when a script is written: `gen-matrix --help` lists SHELLS

    return render.new_environment({**QUOTE, "comment": render.comment})


def variables(matrix: Matrix, variant: Variant, shell: str) -> dict[str, str]:
    """Name -> value, in the order they are set. cmd and PowerShell mean MSVC; bash means GCC or Clang."""
    from .listing import switches

    values: dict[str, str] = {}
    if variant.sm:
        values["TORCH_CUDA_ARCH_LIST"] = variant.sm.capability
    values.update(switches(variant))
    isa = variant.isa
    flags = (isa.msvc if shell != "bash" else " ".join(isa.flags)) if isa else ""
    if flags:
        values["CFLAGS"] = flags
        values["CXXFLAGS"] = flags
    if variant.kind == "cpu":
        values["BLAS"] = "OpenBLAS"  # as the recipe: the CPU-only variants use OpenBLAS
    values["MAX_JOBS"] = str(matrix.jobs)
    for name in values:
        if not _NAME.match(name):
            raise ValueError(f"not an environment variable name: {name!r}")
    return values


def script(matrix: Matrix, variant: Variant, shell: str) -> str:
    isa = variant.isa
    return _environment().get_template(f"env.{shell}.j2").render(
        mark=COMMENT_MARK[shell],
        name=variant.name,
        pytorch=matrix.pytorch_version,
        python=variant.python.name,
        cuda=variant.cuda.name if variant.cuda else None,
        driver=variant.cuda.driver if variant.cuda else None,
        capability=variant.sm.capability if variant.sm else None,
        isa=isa.name if isa else None,
        no_msvc_flag=bool(isa and shell != "bash" and not isa.msvc),
        variables=list(variables(matrix, variant, shell).items()),
    )
