"""Where gen-matrix's files are: in the repository it writes, and in its own package."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
TEMPLATES = PACKAGE / "templates"
if not TEMPLATES.is_dir():  # a source checkout: templates/ beside generator/
    TEMPLATES = PACKAGE.parent / "templates"

# The first line of every file gen-matrix owns.
MARKER = "Generated from matrix.yaml by gen-matrix"
HEADER = f"{MARKER}; do not edit by hand: change matrix.yaml and run `gen-matrix`."

# Relative to the repository root.
PKGS_DIR = ".flox/pkgs"
NIXPKGS_FILE = "nix/nixpkgs.nix"
STATE_FILE = "matrix.state.json"
BUILD_MATRIX_FILE = "BUILD_MATRIX.md"
README_FILE = "README.md"
MANIFEST_FILE = ".flox/env/manifest.toml"
POINTER_FILE = ".flox/env.json"
WORKFLOW_FILE = ".github/workflows/flox-variants.yml"
CACHE_DIR = ".gen-matrix-cache"

# The files of the tree a run reads besides the matrix: their text goes into what it writes.
TREE_INPUTS = (STATE_FILE, README_FILE, MANIFEST_FILE, POINTER_FILE)
