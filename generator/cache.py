"""The record of the last run that found a tree current, kept in the user's cache folder.

What gen-matrix writes is a function of what it reads: the matrix, the files of the tree
listed in layout.TREE_INPUTS, and gen-matrix itself (its code, knowledge table, templates,
the Python and libraries it runs on). A run that finds every output current records a
digest of those inputs and the digest of every output. A later run whose inputs have the
same digest then knows every output without parsing, validating or rendering anything: it
reads each file and compares its digest with the recorded one. A file that differs, a
generated file the record does not know, or a record that is missing, unreadable or made
from other inputs sends the run through the whole pipeline, which also reports the details.

Nothing in the cache is trusted beyond that: a recipe is "current" only if its bytes on disk
hash to what a full run produced from byte-identical inputs. The records live outside the
tree, in $GEN_MATRIX_CACHE_DIR, else $XDG_CACHE_HOME/gen-matrix, else ~/.cache/gen-matrix: one
file per repository, named after its path; deleting them costs one full run each.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from . import write
from .layout import PACKAGE, TEMPLATES, TREE_INPUTS, Project

FORMAT = 1
# Libraries whose code shapes the output: the YAML parser, the template engine, the TOML writer.
LIBRARIES = ("jinja2", "markupsafe", "tomlkit", "yaml")
_CACHEDIR_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# The cache of gen-matrix.\n"


@dataclass(frozen=True)
class Record:
    inputs: str  # digest of everything read
    outputs: dict  # path -> digest of its bytes
    variants: int
    warnings: tuple[str, ...]


def folder() -> Path:
    """The cache folder: records of current trees, and compiled templates (see render.py)."""
    if os.environ.get("GEN_MATRIX_CACHE_DIR"):
        return Path(os.environ["GEN_MATRIX_CACHE_DIR"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gen-matrix"


def record_file(project: Project) -> Path:
    """The record of `project`'s repository."""
    return folder() / f"{_digest(os.path.abspath(project.root).encode())}.json"


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=20).hexdigest()


def _files_below(directory: Path):
    for entry in sorted(os.scandir(directory), key=lambda e: e.name):
        if entry.is_dir(follow_symlinks=False):
            if entry.name != "__pycache__":
                yield from _files_below(Path(entry.path))
        elif entry.name.endswith((".py", ".yaml", ".json", ".j2")):
            yield Path(entry.path)


@lru_cache(maxsize=1)
def tool_digest() -> str:
    """gen-matrix itself: its sources, data and templates, the Python, and the files of the
    libraries that shape its output (by size and modification time)."""
    hasher = hashlib.blake2b(digest_size=20)
    hasher.update(f"{FORMAT}\0{sys.version}\0{sys.implementation.cache_tag}\0".encode())
    # templates/ is inside the package when installed, beside it in a source checkout
    for folder in [PACKAGE] if PACKAGE in TEMPLATES.parents else [PACKAGE, TEMPLATES]:
        for path in _files_below(folder):
            hasher.update(f"{path.relative_to(folder)}\0".encode())
            hasher.update(path.read_bytes())
    for name in LIBRARIES:
        spec = importlib.util.find_spec(name)
        origin = spec.origin if spec and spec.origin else ""
        stat = os.stat(origin) if origin else None
        hasher.update(f"{name}\0{origin}\0{stat.st_size if stat else -1}\0{stat.st_mtime_ns if stat else -1}\0".encode())
    return hasher.hexdigest()


def inputs_digest(project: Project) -> str:
    """The digest of everything a run reads, as the files are now."""
    hasher = hashlib.blake2b(digest_size=20)
    hasher.update(f"{tool_digest()}\0{os.path.abspath(project.matrix_path)}\0{project.display}\0".encode())
    for path in (project.matrix_path, *(project.root / relative for relative in TREE_INPUTS)):
        data = write.read_bytes(path)
        hasher.update(b"-" if data is None else b"+" + _digest(data).encode())
    return hasher.hexdigest()


def _load(project: Project) -> Record | None:
    try:
        data = json.loads(write.read_bytes(record_file(project)) or b"null")
        record = Record(data["inputs"], dict(data["outputs"]), int(data["variants"]), tuple(data["warnings"]))
    except (OSError, RuntimeError, ValueError, KeyError, TypeError):
        return None
    if not all(isinstance(v, str) for v in (record.inputs, *record.outputs, *record.outputs.values(), *record.warnings)):
        return None
    return record


def lookup(project: Project, inputs: str) -> Record | None:
    """The record of a run from these inputs, if the tree still holds exactly its outputs."""
    root = project.root
    record = _load(project)
    if record is None or record.inputs != inputs:
        return None
    for relative, digest in record.outputs.items():
        data = write.read_bytes(os.path.join(root, relative))
        if data is None or _digest(data) != digest:
            return None
    for relative in write.stale(root, record.outputs):
        if write.is_generated(root / relative):
            return None
    return record


def store(project: Project, inputs: str, outputs: dict[str, str], variants: int, warnings) -> None:
    """Record a run from `inputs` that found the tree current. Nothing is recorded if the
    inputs changed while it ran; a cache folder that cannot be written is left alone."""
    if inputs_digest(project) != inputs:
        return
    record = {
        "format": FORMAT,
        "root": os.path.abspath(project.root),
        "inputs": inputs,
        "variants": variants,
        "warnings": [str(w) for w in warnings],
        "outputs": {relative: _digest(text.encode("utf-8")) for relative, text in sorted(outputs.items())},
    }
    try:
        records = folder()
        records.mkdir(parents=True, exist_ok=True)
        if not (records / "CACHEDIR.TAG").exists():
            write.atomic_write(str(records / "CACHEDIR.TAG"), _CACHEDIR_TAG)
        write.atomic_write(str(record_file(project)), json.dumps(record, indent=1) + "\n")
    except (OSError, RuntimeError):  # RuntimeError: no home folder to find the cache in
        pass
