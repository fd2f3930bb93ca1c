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
from .load import FloatText, unwritable


class Verbatim(str):
    """Text written into a Nix file as is: only comments, the header and checked names."""


NIX_HEADER = Verbatim(f"# {HEADER}")

# Backslash first, so that the backslashes the others add are not escaped again.
_NIX_ESCAPES = (("\\", "\\\\"), ('"', '\\"'), ("$", "\\$"), ("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t"))
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
    write = _WRITERS.get(type(value))  # the value's own type: a subclass is looked up by kind
    if write is None:
        write = next((write for kind, write in _KINDS if isinstance(value, kind)), None)
        if write is None:
            raise TypeError(f"no Nix literal for {type(value).__name__}")
    return write(value)


def _int(value: int) -> str:
    # Nix integers are 64-bit, and a negative one is a minus before a positive literal:
    # -2**63 does not parse, nor does anything past 2**63 - 1 either way.
    if not -(2**63) < value < 2**63:
        raise ValueError(f"{value} does not fit a Nix integer")
    return f"({value})" if value < 0 else str(value)  # in a list, `1 -2` is a subtraction


def _list(value) -> str:
    if type(value) is tuple and set(map(type, value)) == {str}:
        return _strings(value)
    return "[ " + "".join([nix(v) + " " for v in value]) + "]"


# Recipes share the knowledge's tuples of strings (CPU flags, features, systems). Only a tuple
# of plain strings is kept: two such tuples are equal only where their strings are, while (1,)
# equals (True,) and (1.0,), which Nix writes apart.
@functools.lru_cache(maxsize=4096)
def _strings(value: tuple[str, ...]) -> str:
    return "[ " + "".join([_string(v) + " " for v in value]) + "]"


def _attrset(value: dict) -> str:
    return "{ " + "".join([f"{attr(str(k))} = {nix(v)}; " for k, v in sorted(value.items())]) + "}"


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
    # Every character Nix escapes but \ " and $, and every unwritable one, is one Python does
    # not print (a line break, a control, a surrogate, a bidirectional control): most strings
    # are printable and only quoted, and one printable once escaped holds nothing unwritable.
    if value.isprintable() and "\\" not in value and '"' not in value and "$" not in value:
        return '"' + value + '"'
    escaped = value
    for char, replacement in _NIX_ESCAPES:
        escaped = escaped.replace(char, replacement)
    if not escaped.isprintable():
        reason = unwritable(value)
        if reason:  # the loader refuses such text where it is written; this guards the rest
            raise ValueError(f"{value!r} {reason}")
    return '"' + escaped + '"'


def comment(text: str) -> Verbatim:
    """Text safe on one comment line."""
    return Verbatim(" ".join(str(text).split()))


# How each kind of value is written, in the order a subclass is matched: Verbatim and FloatText
# before str, bool before int. A value of one of these types itself is looked up directly.
_KINDS = ((Verbatim, str), (type(None), lambda _: "null"), (bool, lambda value: "true" if value else "false"),
          (int, _int), (FloatText, lambda value: _float(value.value)), (str, _string),
          (list, _list), (tuple, _list), (dict, _attrset))
_WRITERS = dict(_KINDS)
