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

import re

# A path literal (./x.nix, ../pins.nix) and a name, in the text `code` returns.
PATH = re.compile(r"(?<![\w./'+-])\.\.?/[\w.+/-]*")
NAME = re.compile(r"[A-Za-z_][\w'-]*")
# What the scanners copy a run at a time: whitespace, code that starts no comment, string or
# brace, and a string's text without an escape, quote or dollar in it.
_SPACE = re.compile(r"\s*")
_CODE = re.compile(r"[^\s#/\"'{}]*")
_TEXT = re.compile(r"[^\\'\"$]*")


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
            i = _SPACE.match(text, i + 1).end()
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
            end = _CODE.match(text, i + 1).end()
            out.append(text[i:end])
            i = end
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
            end = _TEXT.match(text, i + 1).end()
            kept.append(text[i:end])
            i = end
    return i


# --- the shape of nix/lib/default.nix, for build identities ------------------------------
# Enough of Nix's grammar for the library's own entry point, `{ args }: let BINDINGS in {
# FUNCTIONS }`, read from `code`'s output: gen-matrix writes that file and reads no other
# with it. tests/test_identity.py holds the paths read against nix-instantiate --parse, and
# each function's sources against the files it reaches.

def _split(text: str, separator: str) -> list[str]:
    """`text` cut at each `separator` outside brackets and let ... in."""
    parts, depth, start = [], 0, 0
    for found in re.finditer(r"[{(\[]|[})\]]|\blet\b|\bin\b|" + re.escape(separator), text):
        token = found.group()
        if token in ("{", "(", "[", "let"):
            depth += 1
        elif token in ("}", ")", "]", "in"):
            depth -= 1
        elif depth == 0:
            parts.append(text[start:found.start()])
            start = found.end()
    parts.append(text[start:])
    return [part.strip() for part in parts if part.strip()]


def outer_let(text: str) -> tuple[str, str]:
    """The bindings and the body of `text`'s outermost `let BINDINGS in BODY`."""
    depth, start = 0, None
    for found in re.finditer(r"[{(\[]|[})\]]|\blet\b|\bin\b", text):
        token = found.group()
        if token == "let" and depth == 0 and start is None:
            start = found.end()
        elif token == "in" and depth == 1 and start is not None:
            return text[start:found.start()], text[found.end():]
        depth += 1 if token in ("{", "(", "[", "let") else -1
    raise ValueError("the library's entry point is not `{ ... }: let ... in { ... }`")


def bindings(text: str) -> dict[str, str]:
    """`name = value` pairs of a let or attribute set body, by name."""
    return {part.split("=", 1)[0].strip(): part.split("=", 1)[1] for part in _split(text, ";") if "=" in part}
