"""`gen-matrix adopt`: the matrix.yaml that generates a folder of hand-written recipes.

Each recipe is evaluated by nix-instantiate against a package set that records what it asks
of nixpkgs (adopt.nix, in this package). From those records come the axes, the companions,
the nixpkgs pins and the rules that choose them, the PyTorch version and source, the build
fixes mapped to the built-in ones, and the fewest restrict and exclude rules that give
exactly the recipes' names. The matrix is then run through the pipeline, and what it
generates is compared with every recipe: the names it reproduces, what it cannot carry over
and what `generate` would change.
"""

from __future__ import annotations

import re
from pathlib import Path

from ...errors import GenMatrixError, Location
from ...knowledge import build, builtin
from .inferring import infer
from .reading import Recipe, committed_files, evaluate, read, recipes_folder, repository_root, repository_of
from .reporting import MATRIX_FILE, Adoption, check, render_matrix, report

__all__ = ["Adoption", "Location", "MATRIX_FILE", "Recipe", "adopt", "committed_files", "report", "repository_root"]

# Characters that would change what the matrix's header says (a newline starts YAML).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def adopt(path: Path, pytorch_version: str | None = None, nixpkgs_rev: str | None = None) -> Adoption:
    """The matrix of the recipes under `path`, and how far it reproduces them."""
    if _CONTROL.search(str(path)):
        raise GenMatrixError.at(Location(f"adopt {str(path)!r}"),
                                "the folder's name holds a control character (a newline, an escape)",
                                "the matrix names its folder; rename the folder, or give it through a link "
                                "whose name has none")
    folder = recipes_folder(path)
    knowledge = build(builtin())
    files = sorted(p.name for p in folder.iterdir() if p.suffix == ".nix" and p.is_file())
    evaluated = evaluate(folder, files, knowledge)
    recipes = [read(name, evaluated[name], knowledge, str(folder / name)) for name in files]
    matrix, warnings = infer(recipes, knowledge, pytorch_version, str(folder), nixpkgs_rev)
    text = render_matrix(matrix, len(recipes), str(path))
    result = check(matrix, text, recipes, str(folder), repository_of(folder))
    return Adoption(**{**result.__dict__, "warnings": tuple(warnings) + result.warnings})


