"""load -> validate -> expand -> render: everything up to the files, in memory."""

from __future__ import annotations

from pathlib import Path

from . import docs, expand, load, manifest, render, state, validate, write
from .errors import GenMatrixError, Location
from .layout import Project, locate  # noqa: F401  (the commands locate projects here)
from .model import Expansion


def expansion(project: Project, allow_empty: bool = False) -> Expansion:
    doc = load.read(project.matrix_path, project.display)
    return expand.expand(validate.validate(doc), allow_empty)


def _current(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise GenMatrixError.at(Location(path.name), f"cannot read: {error}") from None


def recipes(project: Project, result: Expansion) -> tuple[str, tuple[render.Recipe, ...]]:
    """nix/nixpkgs.nix's text and every recipe, with revisions from the committed state file."""
    shared = render.shared_nix(result.matrix)
    return shared, render.recipes(result, state.read(project.root), shared)


def outputs(project: Project, result: Expansion) -> dict[str, str]:
    shared, planned = recipes(project, result)
    files = render.files(result, shared, planned)
    context = docs.facts(result, planned)
    files[docs.BUILD_MATRIX_FILE] = docs.build_matrix(context)
    readme = _current(project.root / docs.README_FILE)
    if readme is not None:
        files[docs.README_FILE] = write.Merged(docs.readme(readme, context))
    files[manifest.MANIFEST_FILE] = write.Merged(
        manifest.update(_current(project.root / manifest.MANIFEST_FILE), result))
    files[manifest.POINTER_FILE] = write.Merged(manifest.pointer(_current(project.root / manifest.POINTER_FILE)))
    return dict(sorted(files.items()))
