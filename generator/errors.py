"""The one error type: every problem says where it is and what to do about it."""

from __future__ import annotations

import re

from .records import dataclass

# Control characters, shown escaped: a message quotes what the user wrote, and a terminal
# would obey an escape sequence in it instead of showing it.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """`text` with its control characters (but tab and newline) written as \\xNN escapes."""
    return _CONTROL.sub(lambda found: f"\\x{ord(found.group()):02x}", text)


def one_line(text: str) -> str:
    """`text` as `printable` writes it, on one line: its line breaks written as \\n. Text from
    outside (a file's name, a measured variant, what a child printed) shown in a line of ours
    cannot start a line of its own, which a terminal or a CI log (`::error::...`) would read
    as ours."""
    return printable(text).replace("\n", "\\n")


def shortened(text: str, limit: int = 200) -> str:
    """`text`, or where it is longer than `limit` characters its start and its length: a value
    from outside (a recipe's pname of megabytes) is shown, never printed whole."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"


@dataclass(frozen=True, order=True)
class Location:
    """Where in a file something is: a path, and a line and column where known (0: none)."""

    path: str
    line: int = 0
    column: int = 0

    def __str__(self) -> str:
        path = one_line(self.path)
        if not self.line:
            return path
        return f"{path}:{self.line}:{self.column}" if self.column else f"{path}:{self.line}"

    @classmethod
    def of_offset(cls, path: str, text, offset: int) -> "Location":
        """The location of character (or byte) `offset` of `text`, the contents of `path`."""
        newline = "\n" if isinstance(text, str) else b"\n"
        line_start = text.rfind(newline, 0, offset) + 1
        return cls(path, text.count(newline, 0, offset) + 1, offset - line_start + 1)


@dataclass(frozen=True, order=True)
class Problem:
    """Something wrong or worth saying: where it is, what it is, and what to do about it."""

    where: Location
    message: str
    hint: str = ""

    def __str__(self) -> str:
        """One line, and one for the hint: what a message quotes cannot add a line."""
        text = f"{self.where}: {one_line(self.message)}"
        return f"{text}\n  hint: {one_line(self.hint)}" if self.hint else text


class GenMatrixError(Exception):
    """Invalid input: one or more located problems. The CLI prints them and exits 2."""

    def __init__(self, problems: list[Problem] | tuple[Problem, ...]):
        self.problems = tuple(sorted(set(problems)))
        super().__init__("\n".join(str(p) for p in self.problems))

    @classmethod
    def at(cls, where: Location, message: str, hint: str = "") -> "GenMatrixError":
        return cls([Problem(where, message, hint)])
