"""gen-matrix's marked blocks in files of the user's: the README's tables, the
.gitattributes block and the block of the Flox manifest's hook.

The file is the user's; gen-matrix owns only the lines between a begin marker and its end
marker, and keeps every other line byte for byte. One function splices all three, so a
marker means the same everywhere: a marker line alone, out of order, twice, or edited is
an error that names its line, and nothing is written until the user says where the block
ends (guessing could take the user's lines with it). Lines inside code (the README's fenced
and indented blocks, as CommonMark reads them) are examples, never markers.
"""

from __future__ import annotations

import re
from typing import Callable, Mapping

from ..errors import GenMatrixError, Location, Problem
from ..records import dataclass

# Lines end at \n only: str.splitlines would also break at \f or U+2028 inside a user's line.
LINES = re.compile(r"[^\n]*\n|[^\n]+")


@dataclass(frozen=True)
class Markers:
    """How one kind of file marks gen-matrix's blocks."""

    # A marker line: its group "begin" or its group "end" matched, and "name" is the block's,
    # where the marker carries one (else the block is `name`).
    line: re.Pattern
    # A line meant as a marker, but not written as one.
    suspect: re.Pattern
    begin: str  # the begin marker of block {name}, as gen-matrix writes it
    end: str
    name: str = ""

    def parse(self, line: str) -> tuple[bool, str] | None:
        """(whether it begins a block, the block's name) of a marker line; None for another line."""
        found = self.line.match(line)
        if found is None:
            return None
        return found["begin"] is not None, found.groupdict().get("name") or self.name


def code_lines(text: str) -> frozenset[int]:
    """The numbers (from 1) of the lines of Markdown `text` that are code, as CommonMark reads
    them: a fenced block (closed only by a fence of its own character, at least as long, and
    running to the end when it is never closed) or an indented block, in a list or a quote too."""
    from markdown_it import MarkdownIt  # here: only a README with text needs it

    # A lone CR ends a line for CommonMark, not for LINES; as a space it keeps the line numbers
    # the same for both, and a fence line with a CRLF ending stays a fence line.
    tokens = MarkdownIt("commonmark").parse(text.replace("\r", " "))
    return frozenset(number + 1 for token in tokens if token.type in ("fence", "code_block") and token.map
                     for number in range(*token.map))


def splice(text: str, markers: Markers, blocks: Mapping[str, str], where: Callable[[int], Location],
           code: frozenset[int] = frozenset()) -> tuple[str, frozenset[str]]:
    """`text` with the lines between each pair of markers replaced by that block's text, and
    the names of the blocks found. `where` locates line `number` of `text` in its file;
    `code` holds the numbers of the lines that are code."""
    problems: list[Problem] = []
    out: list[str] = []
    opened: tuple[str, int] | None = None  # name, line
    found: dict[str, int] = {}  # name -> the line its block begins at
    known = ", ".join(sorted(blocks))
    for number, line in enumerate(LINES.findall(text), 1):
        marker = None if number in code else markers.parse(line)
        if number not in code and marker is None and markers.suspect.match(line):
            problems.append(Problem(where(number), "malformed gen-matrix marker",
                                    "write it on a line of its own, as gen-matrix does: "
                                    f"{markers.begin.format(name='NAME')} or {markers.end.format(name='NAME')}"
                                    if not markers.name else
                                    f"write it as gen-matrix does: {markers.begin.format(name=markers.name)} "
                                    f"or {markers.end.format(name=markers.name)}"))
        if marker is None:
            if opened is None:
                out.append(line)
            continue
        begins, name = marker
        if begins:
            if opened is not None:
                problems.append(Problem(where(number),
                                        f"begin marker '{name}' inside block '{opened[0]}' opened at line "
                                        f"{where(opened[1]).line}",
                                        f"close it first with {markers.end.format(name=opened[0])}"))
                continue
            if name not in blocks:
                problems.append(Problem(where(number), f"unknown gen-matrix block '{name}'",
                                        f"blocks gen-matrix fills: {known}"))
            elif name in found:
                problems.append(Problem(where(number),
                                        f"a second block '{name}' (the first begins at line {where(found[name]).line})",
                                        "remove one of the two blocks"))
            found.setdefault(name, number)
            out.append(line)
            opened = (name, number)
            continue
        if opened is None:
            problems.append(Problem(where(number), f"end marker '{name}' without a begin marker",
                                    f"add {markers.begin.format(name=name)} above it, or remove it"))
            out.append(line)
            continue
        if name != opened[0]:
            problems.append(Problem(where(number),
                                    f"end marker '{name}' closes block '{opened[0]}' opened at line "
                                    f"{where(opened[1]).line}",
                                    f"write {markers.end.format(name=opened[0])}"))
        out.append(blocks.get(opened[0], ""))
        out.append(line)
        opened = None
    if opened is not None:
        problems.append(Problem(where(opened[1]), f"block '{opened[0]}' has no end marker",
                                f"add {markers.end.format(name=opened[0])} on a line of its own after the block"))
    if problems:
        raise GenMatrixError(problems)
    return "".join(out), frozenset(found)


def appended(text: str, markers: Markers, block: str, where: Callable[[int], Location]) -> str:
    """`text` with its one block (`markers.name`) replaced by `block`, which holds its own
    markers; appended at the end when `text` has none."""
    inner = "".join(LINES.findall(block)[1:-1])
    spliced, found = splice(text, markers, {markers.name: inner}, where)
    if found:
        return spliced
    return text + ("" if not text or text.endswith("\n") else "\n") + block
