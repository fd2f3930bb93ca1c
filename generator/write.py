"""Bring the tree in line with the rendered outputs, or report how it differs.

gen-matrix owns exactly the files that start with its header: those it rewrites when they
changed and deletes when the matrix no longer has them. A file without the header is the
user's, and is never overwritten or deleted, except where gen-matrix owns parts of it (the
README's tables, the Flox manifest): their new text is a `Merged` output, made from the
file as it stands with only those parts changed.
"""

from __future__ import annotations

import os
import posixpath
import shutil
from dataclasses import dataclass
from typing import Iterator
from pathlib import Path

from .errors import GenMatrixError, Location, Problem
from .layout import LIBRARY_MARKER, MARKER, PKGS_DIR

# Where generated files may be found, so that stale ones are removed.
OWNED_DIRS = (PKGS_DIR, "nix", "nix/lib", "nix/fixes")
_HEAD_BYTES = 512
# O_EXCL: never through a link someone left at the temporary name; O_BINARY: no newline
# translation on Windows.
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)


class Merged(str):
    """The new text of a file gen-matrix owns only parts of, made from its current text."""


@dataclass(frozen=True)
class Plan:
    root: Path
    outputs: dict  # path -> new text, for every output
    write: tuple[str, ...]  # created or changed
    unchanged: tuple[str, ...]
    remove: tuple[str, ...]  # generated files no longer in the matrix

    @property
    def current(self) -> bool:
        return not self.write and not self.remove


def is_generated(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            head = handle.read(_HEAD_BYTES)
    except OSError:
        return False
    first_lines = head.split(b"\n", 2)[:2]
    return any(marker.encode() in line for line in first_lines for marker in (MARKER, LIBRARY_MARKER))


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError):
        return ""


def read_bytes(path) -> bytes | None:
    """A file's bytes; None when it does not exist, empty when it cannot be read."""
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        return None
    except OSError:
        return b""


def _entries(directory: str, prefix: str, recursive: bool) -> Iterator[tuple[str, bool]]:
    """Everything below `directory` (not through links) as (`prefix`-relative path, whether it
    is a regular file)."""
    try:
        entries = list(os.scandir(directory))
    except (FileNotFoundError, NotADirectoryError):
        return
    for entry in entries:
        if recursive and entry.is_dir(follow_symlinks=False):
            yield from _entries(entry.path, f"{prefix}{entry.name}/", recursive)
        else:
            yield prefix + entry.name, entry.is_file(follow_symlinks=False)


def _scan(root: Path, outputs: dict) -> dict[str, bool]:
    """What lies in the folders gen-matrix writes into: {relative path: is a regular file}."""
    folders = set(OWNED_DIRS) | {posixpath.dirname(p) for p in outputs}
    found = {}
    for folder in folders:
        prefix = f"{folder}/" if folder else ""
        found.update(_entries(os.path.join(root, folder), prefix, recursive=folder == PKGS_DIR))
    return found


def stale(root: Path, outputs: dict, present: dict[str, bool] | None = None) -> list[str]:
    """The files in gen-matrix's folders that are not outputs: generated ones among them are
    left from variants the matrix no longer has."""
    present = _scan(root, outputs) if present is None else present
    return [p for p, regular in present.items() if regular and p not in outputs]


def _folders(outputs: dict) -> list[str]:
    """Every folder the outputs go into, with the folders above them."""
    folders = set()
    for folder in {posixpath.dirname(p) for p in outputs}:
        while folder and folder not in folders:
            folders.add(folder)
            folder = posixpath.dirname(folder)
    return sorted(folders)


def plan(root: Path, outputs: dict[str, str]) -> Plan:
    """Compare the outputs with the tree; raise if a file of the user's stands in the way."""
    blocked = [folder for folder in _folders(outputs)
               if os.path.lexists(os.path.join(root, folder)) and not os.path.isdir(os.path.join(root, folder))]
    if blocked:
        raise GenMatrixError([Problem(Location(folder), "this is a file, but gen-matrix writes into it as a folder",
                                      "move the file away, then run gen-matrix again") for folder in blocked])
    present = _scan(root, outputs)
    write, unchanged, problems = [], [], []
    for relative, text in outputs.items():
        old = read_bytes(os.path.join(root, relative)) if relative in present else None
        if old is not None and old == text.encode("utf-8"):
            unchanged.append(relative)
            continue
        if old is not None and not is_generated(root / relative) and not isinstance(text, Merged):
            problems.append(Problem(
                Location(relative), "this file was not generated by gen-matrix, but the matrix generates it",
                "move it away (or rename the variant in matrix.yaml); gen-matrix never overwrites a file it did not write",
            ))
        write.append(relative)
    if problems:
        raise GenMatrixError(problems)
    remove = sorted(p for p in stale(root, outputs, present) if is_generated(root / p))
    return Plan(root, outputs, tuple(write), tuple(unchanged), tuple(remove))


def _temporary(path: str) -> str:
    """The name beside `path` that this process writes it under before renaming it into place."""
    folder, name = os.path.split(path)
    return os.path.join(folder, f".{name}.{os.getpid()}.tmp")


def _discard(path: str) -> None:
    """Remove the file at `path` if there is one; a failure to is no error of its own."""
    try:
        os.unlink(path)
    except OSError:
        pass


def _create(path: str, text: str) -> None:
    """Write `text` to a new file at `path`; if that fails part way, no file is left there."""
    descriptor = os.open(path, _NEW_FILE, 0o666)
    try:
        try:
            data = memoryview(text.encode("utf-8"))
            while data:
                data = data[os.write(descriptor, data):]
        finally:
            os.close(descriptor)
    except BaseException:
        _discard(path)
        raise


def atomic_write(path: str, text: str) -> None:
    """Write a temporary file beside `path`, then rename it over `path`: a reader, or a run
    cut short, sees the old file or the new one, never a part. There is no fsync per file: it
    would cost more than all the rest of a run, and ext4 and btrfs write a file's data before
    they commit a rename over another file."""
    temporary = _temporary(path)
    try:
        _create(temporary, text)
    except FileExistsError:  # left by a run of an earlier process with this number
        os.unlink(temporary)
        _create(temporary, text)
    try:
        os.replace(temporary, path)
    except BaseException:
        _discard(temporary)
        raise


def _staging(root: Path, folders: list[str]) -> dict[str, str]:
    """The outermost of `folders` that do not exist yet, each with the temporary name beside
    it that it is written under, whole, before it is renamed into place."""
    missing = {folder for folder in folders if not os.path.isdir(os.path.join(root, folder))}
    return {folder: _temporary(folder) for folder in sorted(missing) if posixpath.dirname(folder) not in missing}


def apply(plan: Plan) -> None:
    """Write what changed, then remove what is stale.

    A file in a folder that exists is written beside its old version and renamed over it. A
    folder that does not exist yet (a first run, a new kind of output) is written whole under
    a temporary name, then renamed into place: one rename instead of one per file. A failure
    part way (a full disk, a read-only folder) leaves every file whole, in its old or its new
    version, no new folder in part and no temporary file behind; running again finishes the job.
    """
    staged = _staging(plan.root, _folders(plan.write))

    def located(relative: str) -> tuple[str, bool]:
        """Where `relative` is written, and whether that is inside a folder being staged."""
        for folder, temporary in staged.items():
            if relative == folder or relative.startswith(folder + "/"):
                return os.path.join(plan.root, temporary + relative[len(folder):]), True
        return os.path.join(plan.root, relative), False

    def discard_staged() -> None:
        for temporary in staged.values():
            shutil.rmtree(os.path.join(plan.root, temporary), ignore_errors=True)

    written = 0
    action, relative = "write this file", ""
    try:
        try:
            discard_staged()  # what a run of an earlier process with this number left
            for folder in _folders(plan.write):
                os.makedirs(located(folder)[0], exist_ok=True)
            for relative in plan.write:
                path, new = located(relative)
                if new:
                    _create(path, plan.outputs[relative])
                else:
                    atomic_write(path, plan.outputs[relative])
                    written += 1
            action = "move this new folder into place"
            for relative, temporary in staged.items():
                os.rename(os.path.join(plan.root, temporary), os.path.join(plan.root, relative))
                written += sum(1 for path in plan.write if path.startswith(relative + "/"))
            action = "remove this file"
            for relative in plan.remove:
                (plan.root / relative).unlink()
        except BaseException:
            discard_staged()
            raise
    except OSError as error:
        raise GenMatrixError.at(
            Location(relative), f"cannot {action}: {error.strerror or error}",
            f"{written} of {len(plan.write)} changed files were written, each whole; the rest keep their "
            "old version, or are not there yet. Fix the cause (disk space, permissions) and run gen-matrix again",
        ) from None


def report(plan: Plan) -> str:
    """A unified diff of every difference, as `check` prints it."""
    import difflib  # here: only a tree that differs needs it

    chunks = []
    for relative in plan.write:
        old = _read(plan.root / relative)
        if old is None:
            chunks.append(f"missing: {relative}\n")
            continue
        chunks.extend(difflib.unified_diff(
            old.splitlines(keepends=True), plan.outputs[relative].splitlines(keepends=True),
            fromfile=f"a/{relative}", tofile=f"b/{relative}"))
    chunks.extend(f"extra (no longer in the matrix): {relative}\n" for relative in plan.remove)
    return "".join(chunks)
