"""Read a YAML file into plain values, remembering where each value was written.

PyYAML silently keeps the last of two equal keys and reads `3.10` as the float 3.1;
both would build the wrong thing for hours, so duplicate keys are errors and
non-integer numbers keep the text the user wrote.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .errors import GenMatrixError, Location, Problem

Path_ = tuple  # a path into the document: keys and list indexes


@dataclass(frozen=True)
class Document:
    """A parsed YAML file: `data` as plain Python values, `marks` from path to location."""

    file: str
    data: Any
    marks: dict = field(default_factory=dict, compare=False, hash=False)

    def where(self, path: Path_ = ()) -> Location:
        """The location of `path`, or of its nearest parent that has one."""
        path = tuple(path)
        while path and path not in self.marks:
            path = path[:-1]
        return self.marks.get(path, Location(self.file, 1, 1))

    def key_where(self, path: Path_) -> Location:
        """The location of the key that holds `path` (for unknown or misplaced keys)."""
        return self.marks.get(("key",) + tuple(path)) or self.where(path)


_SCALAR_LOADER = yaml.SafeLoader("")


def _scalar(node: yaml.ScalarNode) -> Any:
    value = _SCALAR_LOADER.construct_object(node)
    if isinstance(value, float):
        return node.value  # versions such as 3.10 or 12.8 stay as written
    return value


def _location(file: str, mark: yaml.Mark) -> Location:
    return Location(file, mark.line + 1, mark.column + 1)


def parse(text: str, file: str) -> Document:
    """Parse YAML text; raise GenMatrixError with every duplicate key or the syntax error."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = _location(file, mark) if mark else Location(file)
        raise GenMatrixError.at(
            where, f"YAML syntax error: {error.problem or error.context}",
            "fix the YAML syntax at this position (indentation, quotes, a missing ':')",
        ) from None
    except yaml.YAMLError as error:
        raise GenMatrixError.at(Location(file), f"YAML error: {error}") from None

    marks: dict = {}
    problems: list[Problem] = []

    def build(node: yaml.Node, path: tuple) -> Any:
        marks[path] = _location(file, node.start_mark)
        if isinstance(node, yaml.ScalarNode):
            return _scalar(node)
        if isinstance(node, yaml.SequenceNode):
            return [build(child, path + (i,)) for i, child in enumerate(node.value)]
        if isinstance(node, yaml.MappingNode):
            result: dict = {}
            first: dict = {}
            for key_node, value_node in node.value:
                if not isinstance(key_node, yaml.ScalarNode):
                    problems.append(Problem(_location(file, key_node.start_mark),
                                            "a key must be a plain value, not a list or mapping"))
                    continue
                key = _scalar(key_node)
                key = key if isinstance(key, str) else str(key)
                if key in first:
                    problems.append(Problem(
                        _location(file, key_node.start_mark),
                        f"duplicate key '{key}' (first written at line {first[key].line})",
                        "keep one of them: YAML would silently use only the last",
                    ))
                    continue
                first[key] = _location(file, key_node.start_mark)
                marks[("key",) + path + (key,)] = first[key]
                result[key] = build(value_node, path + (key,))
            return result
        raise AssertionError(f"unknown YAML node {node!r}")  # pragma: no cover

    data = None if root is None else build(root, ())
    if problems:
        raise GenMatrixError(problems)
    return Document(file, data, marks)


def read(path: Path, display: str | None = None) -> Document:
    """Read and parse a YAML file; `display` is the name used in messages."""
    name = display or str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise GenMatrixError.at(Location(name), "file not found",
                                "pass the matrix with --matrix PATH or run from its folder") from None
    except (OSError, UnicodeDecodeError) as error:
        raise GenMatrixError.at(Location(name), f"cannot read the file: {error}") from None
    return parse(text, name)
