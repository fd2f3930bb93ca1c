"""Python values written as Nix literals: every value that reaches a Nix file passes `nix`.

Strings are quoted and escaped, or refused when they hold text no file should carry;
attribute names are written bare where Nix reads them as names. `Verbatim` text (comments,
the header, names already checked) is written as it is.
"""

from __future__ import annotations

import functools
import math
import re

from ..layout import HEADER
from .load import UNWRITABLE, FloatText, unwritable


class Verbatim(str):
    """Text written into a Nix file as is: only comments, the header and checked names."""


NIX_HEADER = Verbatim(f"# {HEADER}")

# Backslash first, so that the backslashes the others add are not escaped again.
_NIX_ESCAPES = (("\\", "\\\\"), ('"', '\\"'), ("$", "\\$"), ("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t"))
# What a string must escape or refuse: most strings hold none of it, and are only quoted.
_SPECIAL = re.compile("[" + re.escape("".join(char for char, _ in _NIX_ESCAPES)) + UNWRITABLE + "]")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_'-]*$")
# Words Nix reads as syntax where an attribute name would stand.
NIX_KEYWORDS = frozenset({"assert", "else", "if", "in", "inherit", "let", "or", "rec", "then", "with"})


@functools.lru_cache(maxsize=4096)  # recipes name the same few attributes thousands of times
def attr(name: str) -> Verbatim:
    """An attribute name: as is where Nix reads it as a plain name, else a quoted string."""
    if _IDENTIFIER.match(name) and name not in NIX_KEYWORDS:
        return Verbatim(name)
    return Verbatim(_string(name))


def nix(value) -> str:
    """`value` as a Nix literal: strings quoted and escaped, lists, attrsets, numbers, null."""
    if type(value) is str:  # most values; not Verbatim nor FloatText, which are kinds of str
        return _string(value)
    if isinstance(value, Verbatim):
        return str(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        # Nix integers are 64-bit, and a negative one is a minus before a positive literal:
        # -2**63 does not parse, nor does anything past 2**63 - 1 either way.
        if not -(2**63) < value < 2**63:
            raise ValueError(f"{value} does not fit a Nix integer")
        return f"({value})" if value < 0 else str(value)  # in a list, `1 -2` is a subtraction
    if isinstance(value, FloatText):
        return _float(value.value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, (list, tuple)):
        return "[ " + "".join(nix(v) + " " for v in value) + "]"
    if isinstance(value, dict):
        body = "".join(f"{attr(str(k))} = {nix(v)}; " for k, v in sorted(value.items()))
        return "{ " + body + "}"
    raise TypeError(f"no Nix literal for {type(value).__name__}")


def _float(value: float) -> str:
    """A Nix float: Nix's lexer wants a dot in it (`1e20` does not parse, `1.0e20` does)."""
    if not math.isfinite(value):
        raise ValueError(f"{value} has no Nix literal")
    text = repr(abs(value))
    mantissa, e, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    text = mantissa + e + exponent
    return f"(-{text})" if math.copysign(1, value) < 0 else text


@functools.lru_cache(maxsize=4096)  # and write the same few strings
def _string(value: str) -> str:
    if not _SPECIAL.search(value):
        return '"' + value + '"'
    reason = unwritable(value)
    if reason:  # the loader refuses such text where it is written; this guards the rest
        raise ValueError(f"{value!r} {reason}")
    for char, escaped in _NIX_ESCAPES:
        value = value.replace(char, escaped)
    return '"' + value + '"'


def comment(text: str) -> Verbatim:
    """Text safe on one comment line."""
    return Verbatim(" ".join(str(text).split()))
