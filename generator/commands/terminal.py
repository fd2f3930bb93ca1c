"""Text that fits a terminal: what `detect` and `explain` print, wrapped at 100 columns or
the terminal's width where it is narrower. A command in backticks is never broken, so that
it can still be copied whole."""

from __future__ import annotations

import os
import re
import shutil
import sys
import textwrap

WIDTH = 100
MINIMUM = 40  # narrower, a wrapped line says less than it takes
_HARD_SPACE = "\u00a0"  # holds a command in backticks together while the line is wrapped
_QUOTED = re.compile(r"`[^`]*`")


def width() -> int:
    """The width asked for with COLUMNS, as other programs take it; else 100 columns, or the
    terminal's width where there is a narrower one."""
    asked = os.environ.get("COLUMNS", "")
    if asked.isdigit() and int(asked) > 0:
        return max(MINIMUM, int(asked))
    if not sys.stdout.isatty():
        return WIDTH
    return max(MINIMUM, min(WIDTH, shutil.get_terminal_size((WIDTH, 24)).columns))


def wrap(text: str, columns: int = WIDTH) -> str:
    """`text` with each line longer than `columns` wrapped, its continuations indented two
    spaces deeper than the line; a `command` stays whole on one line."""
    out = []
    for line in text.split("\n"):
        if len(line) <= columns:
            out.append(line)
            continue
        indent = line[:len(line) - len(line.lstrip(" "))]
        held = _QUOTED.sub(lambda m: m.group(0).replace(" ", _HARD_SPACE), line.strip())
        lines = textwrap.wrap(held, columns, initial_indent=indent, subsequent_indent=indent + "  ",
                              break_long_words=False, break_on_hyphens=False)
        out += [part.replace(_HARD_SPACE, " ") for part in lines]
    return "\n".join(out)
