"""load -> validate -> expand -> render: everything up to the files, in memory."""

from __future__ import annotations

from pathlib import Path

from . import docs, expand, load, manifest, render, state, validate, write
from .errors import GenMatrixError, Location
from .layout import BUILD_MATRIX_FILE, FLOX_GITIGNORE_FILE, MANIFEST_FILE, POINTER_FILE, README_FILE, Project
from .layout import locate  # noqa: F401  (the tests locate projects through the pipeline)
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


def recipes(project: Project, result: Expansion) -> tuple[render.Recipe, ...]:
    """Every recipe, with revisions from the committed state file."""
    return render.recipes(result, state.read(project.root), project.root)


def outputs(project: Project, result: Expansion) -> dict[str, str]:
    planned = recipes(project, result)
    files = render.files(result, planned)
    context = docs.facts(result, planned)
    files[BUILD_MATRIX_FILE] = docs.build_matrix(context)
    readme = _current(project.root / README_FILE)
    if readme is not None:
        files[README_FILE] = write.Merged(docs.readme(readme, context))
    files[MANIFEST_FILE] = write.Merged(manifest.update(_current(project.root / MANIFEST_FILE), result))
    files[POINTER_FILE] = write.Merged(manifest.pointer(_current(project.root / POINTER_FILE)))
    files[FLOX_GITIGNORE_FILE] = write.Merged(manifest.gitignore(_current(project.root / FLOX_GITIGNORE_FILE)))
    return dict(sorted(files.items()))
