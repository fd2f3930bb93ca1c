"""The committed state file: per variant, what its builds and its metadata were made from.

Each variant is two derivations: the heavy build (torch, or a companion) and the published
wrapper over it (nix/lib/wrapper.nix). `build` identifies the heavy one: the values that go
into it, its pin and fixes, and the Nix library and template it is made with, read as Nix
reads them (a comment changes nothing). `metadata` hashes the descriptions and platforms,
`wrapper` the library code of the wrapper.

The catalog indexes a store path once, so a change to a description or platform alone
would never reach it. When only a variant's metadata changed since the state was written,
its revision goes up by one; the wrapper writes the revision into `$out/.metadata-rev`,
which gives it a new store path, and the heavy build stays as it is. Revisions never go down.

`files` is gen-matrix's record of what it wrote: every file it owns whole, with the SHA-256 of
its text. gen-matrix overwrites only the files in this record that still carry its header, and
removes only those whose text still has the recorded SHA-256; a file it never wrote is the
user's, whatever it says. The record holds only paths gen-matrix writes (RECORDABLE): a record
naming any other file (matrix.yaml, a file under .git/) is refused, whatever its digest.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..errors import GenMatrixError, Location
from ..layout import (BUILD_MATRIX_FILE, FLAKE_FILE, PINS_FILE, RELEASE_FILE, PKGS_DIR, REFERENCE_FILE, STATE_FILE, WORKFLOW_BUILD_FILE,
                      WORKFLOW_FILE)
from ..records import dataclass
from .digest import sha256
from .load import MAX_DEPTH, read_text

# Nix's integers are 64-bit: a revision goes up by one at most per run.
MAX_REVISION = 2**63 - 1


@dataclass(frozen=True)
class Entry:
    """A variant's record in the state file: its build identities and its metadata revision."""

    build: str  # identity of the heavy derivation: everything that goes into it
    metadata: str  # hash of the metadata (descriptions, platforms)
    wrapper: str  # identity of the wrapper's own code
    revision: int


def hasher(*parts: str, start=None):
    """A SHA-256 fed with `parts`, each ended by a NUL, after what `start` (a hasher) was fed."""
    result = start.copy() if start is not None else sha256()
    for part in parts:
        result.update(part.encode("utf-8"))
        result.update(b"\0")
    return result


def digest(*parts: str, start=None) -> str:
    return hasher(*parts, start=start).hexdigest()


def next_entry(previous: Entry | None, build: str, metadata: str, wrapper: str) -> Entry:
    if previous is None:
        return Entry(build, metadata, wrapper, 0)
    metadata_only = previous.build == build and previous.metadata != metadata
    return Entry(build, metadata, wrapper, previous.revision + 1 if metadata_only else previous.revision)


def _restore() -> str:
    return f"restore {STATE_FILE} from git (`git checkout -- {STATE_FILE}`)"


def _json(text: str, file: str):
    """The state file's JSON, or a located error."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise GenMatrixError.at(Location(file, error.lineno, error.colno), f"not valid JSON: {error.msg}",
                                _restore()) from None
    except ValueError:  # Python refuses to read an integer of more than 4,300 digits, which holds this run
        found = re.search(r"[0-9]{1000}", text)
        raise GenMatrixError.at(Location.of_offset(file, text, found.start()),
                                "a number here is thousands of digits long", _restore()) from None
    except RecursionError:  # json nests by recursion: a few thousand brackets exhaust it
        raise _nested_too_deep(text, file) from None
    # How deep json reads before its recursion gives out depends on the Python (3.11: not 1,000
    # levels; 3.13: more than 5,000): the limit is the same whichever Python reads the file.
    if _nests_deeper_than_the_limit(data):
        raise _nested_too_deep(text, file)
    return data


def _nested_too_deep(text: str, file: str) -> GenMatrixError:
    return GenMatrixError.at(Location.of_offset(file, text, _too_deep(text)),
                             f"values are nested more than {MAX_DEPTH} levels deep here", _restore())


def _nests_deeper_than_the_limit(data) -> bool:
    """Whether the JSON value `data` holds a list or mapping MAX_DEPTH + 1 levels down (the
    outermost is level 1); level by level, without recursion."""
    level = [data] if isinstance(data, (dict, list)) else []
    for _ in range(MAX_DEPTH):
        level = [child for value in level for child in (value.values() if isinstance(value, dict) else value)
                 if isinstance(child, (dict, list))]
        if not level:
            return False
    return True


def parse(text: str, file: str) -> dict[str, Entry]:
    """The identities of a state file's text, by variant."""
    return _entries(_json(text, file), text, file)


def _entries(data, text: str, file: str) -> dict[str, Entry]:
    def fail(message: str, name: str | None = None):
        offset = text.find(json.dumps(name)) if name is not None else -1
        where = Location(file, text.count("\n", 0, offset) + 1) if offset >= 0 else Location(file)
        raise GenMatrixError.at(where, message,
                                f"{_restore()}; deleting it restarts every revision at 0")
    variants = data.get("variants") if isinstance(data, dict) else None
    if not isinstance(variants, dict):
        fail("has no 'variants' mapping")
    entries = {}
    for name, entry in variants.items():
        if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) for k in ("build", "metadata")):
            fail(f"the entry for '{name}' lacks its build or metadata hash", name)
        revision = entry.get("revision")
        # bool is an int to Python; a revision is a whole number Nix can hold once it went up by
        # one more, and never negative
        if type(revision) is not int or not 0 <= revision < MAX_REVISION:
            shown = json.dumps(revision) if len(str(revision)) <= 40 else "of more than 40 digits"
            fail(f"the entry for '{name}' has revision {shown}: not a whole number from 0 to {MAX_REVISION - 1}", name)
        wrapper = entry.get("wrapper", "")
        if not isinstance(wrapper, str):
            fail(f"the entry for '{name}' has a wrapper identity that is not text", name)
        entries[name] = Entry(entry["build"], entry["metadata"], wrapper, revision)
    return entries


def _too_deep(text: str) -> int:
    """Where the JSON `text` nests more than MAX_DEPTH levels: the bracket that opens one more.
    A closing bracket ends a level, and a bracket inside a string is text."""
    depth, in_string, escaped = 0, False, False
    for offset, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return offset
        elif char in "]}":
            depth -= 1
    return len(text)


def _text(root: Path) -> str | None:
    return read_text(root / STATE_FILE, STATE_FILE, MAX_BYTES, _restore())


# Every path gen-matrix writes whole: the recipes, its Nix library and fixes, the pins, the
# docs (the matrix.yaml reference in its own checkout), the workflow and the entry points of
# other Nix CIs. A file name is at most 200 characters, as a variant's name is.
RECORDABLE = re.compile("|".join(
    [f"{re.escape(folder)}/[A-Za-z0-9_+-][A-Za-z0-9_.+-]{{0,195}}\\.nix" for folder in (PKGS_DIR, "nix/lib", "nix/fixes")]
    + [re.escape(path) for path in (PINS_FILE, RELEASE_FILE, FLAKE_FILE, BUILD_MATRIX_FILE, WORKFLOW_FILE,
                                    WORKFLOW_BUILD_FILE, REFERENCE_FILE)]))
_DIGEST = re.compile("[0-9a-f]{64}")
# Ten times what 50,000 variants take.
MAX_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True)
class State:
    """The state file as committed: what a run reads of it, once."""

    entries: dict  # variant name -> Entry: the identities and revisions recorded last
    files: dict | None  # path -> SHA-256 of the files gen-matrix wrote; None before the first record

    @classmethod
    def parse(cls, text: str, file: str) -> "State":
        data = _json(text, file)
        return cls(_entries(data, text, file), _files(data, text, file))


def read(root: Path) -> State:
    """The repository's state file; an empty State when there is none."""
    text = _text(root)
    return State({}, None) if text is None else State.parse(text, STATE_FILE)


def _files(data, text: str, file: str) -> dict[str, str] | None:
    """The record of written files; None when the state predates it."""
    files = data.get("files") if isinstance(data, dict) else None
    if files is None:
        return None
    if not isinstance(files, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
        raise GenMatrixError.at(Location(file), "the 'files' record is not a mapping of paths to digests", _restore())
    # A path of the record is one gen-matrix may remove: only one of the files it writes.
    for path, recorded in files.items():
        if not RECORDABLE.fullmatch(path) or not _DIGEST.fullmatch(recorded):
            offset = text.find(json.dumps(path))
            shown = json.dumps(path if len(path) <= 120 else path[:120] + "...")
            what = ("not a path inside the repository" if path.startswith("/") or ".." in path.split("/")
                    else "not a file gen-matrix writes" if not RECORDABLE.fullmatch(path)
                    else "recorded without a SHA-256 digest")
            raise GenMatrixError.at(
                Location.of_offset(file, text, offset) if offset >= 0 else Location(file),
                f"the 'files' record holds {shown}, which is {what}", _restore())
    return files


def file_digest(text: str) -> str:
    return sha256(text).hexdigest()


def dump(entries: dict[str, Entry], header: str, files: dict[str, str] | None = None) -> str:
    """The state file's text: `json.dumps(..., indent=2)` of its record, keys sorted, written
    line by line here, since Python's encoder is pure Python where it indents (a fifth of the
    time of writing thousands of recipes)."""
    quote = json.encoder.encode_basestring_ascii  # json.dumps' own, for its default ensure_ascii

    def mapping(rows: list[str]) -> str:  # a value of the top level: its rows, then its brace indented once
        return "{\n" + ",\n".join(rows) + "\n  }" if rows else "{}"

    variants = [f'    {quote(name)}: {{\n      "build": {quote(e.build)},\n      "metadata": {quote(e.metadata)},\n'
                f'      "wrapper": {quote(e.wrapper)},\n      "revision": {int.__repr__(e.revision)}\n    }}'
                for name, e in sorted(entries.items())]
    record = [f"    {quote(path)}: {quote(file_digest(text))}" for path, text in sorted((files or {}).items())]
    return (f'{{\n  "generated": {quote(header)},\n  "variants": {mapping(variants)},\n'
            f'  "files": {mapping(record)}\n}}\n')
