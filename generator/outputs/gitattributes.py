"""The block of .gitattributes that keeps gen-matrix's files LF on every checkout.

With core.autocrlf=true, git checks text files out with CRLF; generated files would then
differ from what gen-matrix writes, and `check` would fail on a tree that is current. An
`eol=lf` attribute keeps them LF in the working tree whatever the setting. The file is the
user's: gen-matrix owns only the lines between its two markers, appended at the end the
first time (so that they win over a broader rule above them), and keeps every other line,
and the file's line endings, as they are. A marker without its pair, or out of order, is an
error that names its line: nothing is written until the user says where the block ends.
"""

from __future__ import annotations

from ..errors import GenMatrixError, Location, Problem
from ..layout import ATTRIBUTES_FILE, BUILD_MATRIX_FILE, PINS_FILE, PKGS_DIR, STATE_FILE, WORKFLOW_FILE

BEGIN = "# >>> gen-matrix: the files it generates keep LF line endings (lines up to <<< are rewritten)"
END = "# <<< gen-matrix"
# Patterns, not one line a file: git matches every path against every line.
PATTERNS = (f"/{PKGS_DIR}/*.nix", "/nix/lib/*.nix", "/nix/fixes/*.nix", f"/{PINS_FILE}",
            f"/{STATE_FILE}", f"/{BUILD_MATRIX_FILE}", f"/{WORKFLOW_FILE}")


def block() -> str:
    return "".join(f"{line}\n" for line in (BEGIN, *(f"{p} text eol=lf" for p in PATTERNS), END))


def _markers(lines: list[str]) -> tuple[int, int] | None:
    """The indexes of the BEGIN and END lines; None when there are none. A marker alone, out
    of order, twice, or edited is a located error: guessing where the block ends could take
    the user's lines with it."""
    problems, found = [], []
    for index, line in enumerate(lines):
        bare = line.rstrip()
        if bare in (BEGIN, END):
            found.append((index, bare))
        elif bare.startswith(("# >>> gen-matrix", "# <<< gen-matrix")):
            problems.append(Problem(Location(ATTRIBUTES_FILE, index + 1), "an edited gen-matrix marker line",
                                    f"write it as gen-matrix does: {BEGIN if '>>>' in bare else END}"))
    kinds = [bare for _, bare in found]
    if not problems and kinds in ([], [BEGIN, END]):
        return (found[0][0], found[1][0]) if found else None
    if not problems:
        for position, (index, bare) in enumerate(found):
            if position == 2:
                problems.append(Problem(Location(ATTRIBUTES_FILE, index + 1),
                                        f"a second block of gen-matrix's (the first begins at line {found[0][0] + 1})",
                                        "remove one of the two blocks"))
                break
            if bare != (BEGIN if position == 0 else END):
                what = ("a second begin marker; the first has no end marker" if bare == BEGIN
                        else "an end marker without a begin marker above it")
                problems.append(Problem(Location(ATTRIBUTES_FILE, index + 1), what,
                                        f"keep one '{BEGIN}' line, then one '{END}' line below it, "
                                        "around gen-matrix's lines"))
                break
        else:  # a begin marker alone
            problems.append(Problem(Location(ATTRIBUTES_FILE, found[0][0] + 1), "the begin marker has no end marker",
                                    f"add '{END}' after gen-matrix's lines (the `text eol=lf` lines), "
                                    "or remove the marker line"))
    raise GenMatrixError(problems)


def update(text: str | None) -> str:
    """`text` (LF line endings) with gen-matrix's block replaced, or appended when it has none."""
    if not text:
        return block()
    lines = text.splitlines(keepends=True)
    markers = _markers(lines)
    if markers is not None:
        start, end = markers
        return "".join(lines[:start]) + block() + "".join(lines[end + 1:])
    return text + ("" if text.endswith("\n") else "\n") + block()
