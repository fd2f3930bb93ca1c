"""load -> validate -> expand -> render: everything up to the files, in memory."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from . import expand, load, render, state, validate
from .model import Expansion


@dataclass(frozen=True)
class Project:
    root: Path
    matrix_path: Path

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
    return Project(root_path, matrix_path)


def expansion(project: Project, allow_empty: bool = False) -> Expansion:
    doc = load.read(project.matrix_path, project.display)
    return expand.expand(validate.validate(doc), allow_empty)


def outputs(project: Project, result: Expansion) -> dict[str, str]:
    return render.render(result, state.read(project.root))
