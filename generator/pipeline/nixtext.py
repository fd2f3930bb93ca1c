"""Nix source as Nix reads it: without its comments and layout.

A derivation is made from what an expression evaluates to, so a comment, a blank line or
an indent outside a string changes no store path. `significant` keeps what can: strings
exactly (a shell script's text is part of the derivation), and every other token in order.
Build identities hash this form of the Nix library and the recipe templates, so that a
comment or a reformat selects no rebuild. Strings end and interpolate where Nix's lexer says:
a backslash and the character after it in a double-quoted string; three quotes, two quotes
and a dollar, and two quotes, a backslash and the character after it in an indented one; and
two dollars in either are text, never an end or the start of an interpolation.
"""

from __future__ import annotations


def significant(source: str) -> str:
    """`source` with comments removed and each run of whitespace outside strings made one
    space; strings, including indented strings and their ${...}, are kept as written."""
    out: list[str] = []
    _scan(source, 0, out, stop=None)
    return "".join(out).strip()


def code(source: str) -> str:
    """`significant` with the text of every string left out (its quotes and its ${...} stay):
    what is left is what Nix reads as code, such as the paths a file imports."""
    out: list[str] = []
    _scan(source, 0, out, stop=None, strings=False)
    return "".join(out).strip()


def _scan(text: str, i: int, out: list[str], stop: str | None, strings: bool = True) -> int:
    """Copy code from `i` to `out` until `stop` closes at depth 0 (the `}` of a ${...});
    return the index after it."""
    depth = 0
    pending_space = False
    while i < len(text):
        char = text[i]
        if char.isspace():
            pending_space = True
            i += 1
            continue
        if char == "#":
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            pending_space = True
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = len(text) if end < 0 else end + 2
            pending_space = True
            continue
        if pending_space and out:
            out.append(" ")
        pending_space = False
        if char == '"':
            i = _string(text, i + 1, out, quote='"', strings=strings)
        elif text.startswith("''", i):
            i = _string(text, i + 2, out, quote="''", strings=strings)
        elif char == "{":
            out.append(char)
            depth += 1
            i += 1
        elif char == "}":
            if depth == 0 and stop == "}":
                out.append(char)
                return i + 1
            depth -= 1
            out.append(char)
            i += 1
        else:
            out.append(char)
            i += 1
    return i


def _string(text: str, i: int, out: list[str], quote: str, strings: bool = True) -> int:
    """Copy a string whose opening `quote` ends before `i`, with its ${...} as code; its text
    only when `strings`."""
    out.append(quote)
    kept = out if strings else []
    while i < len(text):
        if quote == '"' and text[i] == "\\":
            kept.append(text[i:i + 2])
            i += 2
        elif quote == "''" and text.startswith("'''", i):
            kept.append("'''")
            i += 3
        elif quote == "''" and text.startswith("''$", i):
            kept.append("''$")
            i += 3
        elif quote == "''" and text.startswith("''\\", i):  # escapes the character after it, a ' too
            kept.append(text[i:i + 4])
            i += 4
        elif text.startswith(quote, i):
            out.append(quote)
            return i + len(quote)
        elif text.startswith("$$", i):  # two dollars, as Nix's lexer reads them: `$${` starts no ${...}
            kept.append("$$")
            i += 2
        elif text.startswith("${", i):
            out.append("${")
            i = _scan(text, i + 2, out, stop="}", strings=strings)
        else:
            kept.append(text[i])
            i += 1
    return i
