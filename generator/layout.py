"""Where gen-matrix's files are: in the repository it writes, and in its own package."""

from __future__ import annotations

import os
from pathlib import Path

from .records import dataclass

PACKAGE = Path(__file__).resolve().parent
TEMPLATES = PACKAGE / "templates"
if not TEMPLATES.is_dir():  # a source checkout: templates/ beside generator/
    TEMPLATES = PACKAGE.parent / "templates"
# The Nix library (lib/ and fixes/) gen-matrix writes into nix/ of a matrix's repository.
LIBRARY = PACKAGE / "nix"
if not LIBRARY.is_dir():  # a source checkout: nix/ beside generator/
    LIBRARY = PACKAGE.parent / "nix"

# The first line of every file gen-matrix owns: generated from the matrix, or its Nix library.
MARKER = "Generated from matrix.yaml by gen-matrix"
LIBRARY_MARKER = "gen-matrix's Nix library"
HEADER = f"{MARKER}; do not edit by hand: change matrix.yaml and run `gen-matrix`."

# Relative to the repository root.
PKGS_DIR = ".flox/pkgs"
PINS_FILE = "nix/pins.nix"
# Every variant as a job for a Nix CI (Hydra's classic jobsets, nix-build): at the root, beside
# the recipes it imports, and outside nix/, whose files `ci --by derivations` compares.
RELEASE_FILE = "release.nix"
# The same jobs as a flake, with the pins as inputs, for a Nix CI that reads flakes. Not in
# gen-matrix's own checkout, whose flake.nix packages gen-matrix.
FLAKE_FILE = "flake.nix"
STATE_FILE = "matrix.state.json"
BUILD_MATRIX_FILE = "BUILD_MATRIX.md"
README_FILE = "README.md"
# The matrix.yaml reference, from the schema: an output of gen-matrix's own checkout only.
REFERENCE_FILE = "docs/reference.md"
MANIFEST_FILE = ".flox/env/manifest.toml"
POINTER_FILE = ".flox/env.json"
FLOX_LOCK_FILE = ".flox/env/manifest.lock"  # Flox writes it; the workflow checks it is committed and current
FLOX_GITIGNORE_FILE = ".flox/.gitignore"
WORKFLOW_FILE = ".github/workflows/flox-variants.yml"
# The build job of that workflow, a reusable workflow it calls once per shard: GitHub runs at
# most 256 jobs of one matrix, and a matrix of calls to a matrix reaches 256 x 256.
WORKFLOW_BUILD_FILE = ".github/workflows/flox-variants-build.yml"
ATTRIBUTES_FILE = ".gitattributes"
# Where the plan job looks for the build costs earlier runs measured (`gen-matrix ci --measured`):
# their gen-matrix-measured-* artifacts, downloaded and committed by the repository's owner.
MEASURED_DIR = "measured"
# Held by a run that writes, so that two never interleave.
RUN_LOCK_FILE = ".gen-matrix.lock"
# Beside it, where Python has no lock on open files: the process that holds the run lock.
RUN_MARKER_FILE = ".gen-matrix.lock.marker"

# The files of the tree a run reads besides the matrix: their text goes into what it writes.
TREE_INPUTS = (STATE_FILE, README_FILE, MANIFEST_FILE, POINTER_FILE, FLOX_GITIGNORE_FILE, ATTRIBUTES_FILE)


@dataclass(frozen=True)
class Project:
    """The repository a run works in, and its matrix file."""

    root: Path
    matrix_path: Path
    matrix_given: bool = False  # named by --matrix, so it must exist; else the default in the root

    @property
    def display(self) -> str:
        """The matrix file as messages name it: relative to the working folder when inside it."""
        try:
            relative = os.path.relpath(self.matrix_path)
        except ValueError:  # another drive
            relative = ".."
        return str(self.matrix_path.resolve()) if relative.startswith("..") else relative


def locate(matrix: str | None, root: str | None) -> Project:
    root_path = Path(root) if root else (Path(matrix).parent if matrix else Path.cwd())
    matrix_path = Path(matrix) if matrix else root_path / "matrix.yaml"
    return Project(root_path, matrix_path, matrix is not None)
