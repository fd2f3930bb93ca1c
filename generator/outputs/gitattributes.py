"""The block of .gitattributes that keeps gen-matrix's files LF on every checkout.

With core.autocrlf=true, git checks text files out with CRLF; generated files would then
differ from what gen-matrix writes, and `check` would fail on a tree that is current. An
`eol=lf` attribute keeps them LF in the working tree whatever the setting. The file is the
user's: gen-matrix owns only the lines between its two markers, appended at the end the
first time (so that they win over a broader rule above them), and keeps every other line,
and the file's line endings, as they are. A marker without its pair, or out of order, is an
error that names its line (splice.py): nothing is written until the user says where the block ends.
"""

from __future__ import annotations

import re

from ..errors import Location
from ..layout import (ATTRIBUTES_FILE, BUILD_MATRIX_FILE, FLAKE_FILE, PINS_FILE, PKGS_DIR, RELEASE_FILE, REFERENCE_FILE, STATE_FILE,
                      WORKFLOW_BUILD_FILE, WORKFLOW_FILE)
from . import splice

BEGIN = "# >>> gen-matrix: the files it generates keep LF line endings (lines up to <<< are rewritten)"
END = "# <<< gen-matrix"
MARKERS = splice.Markers(
    re.compile(rf"^(?:(?P<begin>{re.escape(BEGIN)})|(?P<end>{re.escape(END)}))\s*$"),
    re.compile(r"^# (?:>>>|<<<) gen-matrix"), BEGIN, END, name="line endings")
# Patterns, not one line a file: git matches every path against every line.
PATTERNS = (f"/{PKGS_DIR}/*.nix", "/nix/lib/*.nix", "/nix/fixes/*.nix", f"/{PINS_FILE}", f"/{RELEASE_FILE}",
            f"/{STATE_FILE}", f"/{BUILD_MATRIX_FILE}", f"/{WORKFLOW_FILE}", f"/{WORKFLOW_BUILD_FILE}")


# What gen-matrix's own checkout generates besides: the matrix.yaml reference.
CHECKOUT_PATTERNS = (f"/{REFERENCE_FILE}",)
# What any other repository generates besides: flake.nix (the checkout's packages gen-matrix).
MATRIX_PATTERNS = (f"/{FLAKE_FILE}",)


def block(checkout: bool = False) -> str:
    patterns = PATTERNS + (CHECKOUT_PATTERNS if checkout else MATRIX_PATTERNS)
    return "".join(f"{line}\n" for line in (BEGIN, *(f"{p} text eol=lf" for p in patterns), END))


def update(text: str | None, checkout: bool = False) -> str:
    """`text` (LF line endings) with gen-matrix's block replaced, or appended when it has none;
    `checkout`: the block of gen-matrix's own checkout."""
    return splice.appended(text or "", MARKERS, block(checkout), lambda number: Location(ATTRIBUTES_FILE, number))
