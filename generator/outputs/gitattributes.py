"""The block of .gitattributes that keeps gen-matrix's files LF on every checkout.

With core.autocrlf=true, git checks text files out with CRLF; generated files would then
differ from what gen-matrix writes, and `check` would fail on a tree that is current. An
`eol=lf` attribute keeps them LF in the working tree whatever the setting. The file is the
user's: gen-matrix owns only the lines between its two markers, appended at the end the
first time (so that they win over a broader rule above them), and keeps every other line,
and the file's line endings, as they are.
"""

from __future__ import annotations

from ..layout import BUILD_MATRIX_FILE, PINS_FILE, PKGS_DIR, STATE_FILE, WORKFLOW_FILE

BEGIN = "# >>> gen-matrix: the files it generates keep LF line endings (lines up to <<< are rewritten)"
END = "# <<< gen-matrix"
# Patterns, not one line a file: git matches every path against every line.
PATTERNS = (f"/{PKGS_DIR}/*.nix", "/nix/lib/*.nix", "/nix/fixes/*.nix", f"/{PINS_FILE}",
            f"/{STATE_FILE}", f"/{BUILD_MATRIX_FILE}", f"/{WORKFLOW_FILE}")


def block() -> str:
    return "".join(f"{line}\n" for line in (BEGIN, *(f"{p} text eol=lf" for p in PATTERNS), END))


def update(text: str | None) -> str:
    """`text` (LF line endings) with gen-matrix's block replaced, or appended when it has none."""
    if not text:
        return block()
    lines = text.splitlines(keepends=True)
    stripped = [line.rstrip("\n") for line in lines]
    if BEGIN in stripped and END in stripped[stripped.index(BEGIN):]:
        start = stripped.index(BEGIN)
        end = stripped.index(END, start)
        return "".join(lines[:start]) + block() + "".join(lines[end + 1:])
    return text + ("" if text.endswith("\n") else "\n") + block()
