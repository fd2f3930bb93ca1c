"""Read a YAML file into plain values, remembering where each value was written.

PyYAML silently keeps the last of two equal keys and reads `3.10` as the float 3.1;
both would build the wrong thing for hours, so duplicate keys are errors and
non-integer numbers keep the text the user wrote. Text that no generated file could
hold (a NUL, half a surrogate pair) is refused here, where its location is known.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from dataclasses import field
from pathlib import Path
from typing import Any

import yaml

# libyaml's parser where PyYAML was built with it: ten times faster, same nodes and marks.
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

from .. import kept
from ..errors import GenMatrixError, Location, Problem
from ..records import dataclass

Path_ = tuple  # a path into the document: keys and list indexes


@dataclass(frozen=True)
class Document:
    """A parsed YAML file: `data` as plain Python values, `marks` from path to location.

    `problems` are the duplicate keys and unwritable text found while parsing; the schema
    check reports them together with its own, so that one run shows every problem.
    """

    file: str
    data: Any
    # path -> PyYAML's mark of where it starts; made a Location only when one is asked for
    marks: dict = field(default_factory=dict, compare=False, hash=False)
    problems: tuple[Problem, ...] = ()

    def where(self, path: Path_ = ()) -> Location:
        """The location of `path`, or of its nearest parent that has one."""
        path = tuple(path)
        while path and path not in self.marks:
            path = path[:-1]
        mark = self.marks.get(path)
        return Location(self.file, 1, 1) if mark is None else _location(self.file, mark)

    def key_where(self, path: Path_) -> Location:
        """The location of the key that holds `path` (for unknown or misplaced keys)."""
        mark = self.marks.get(("key",) + tuple(path))
        return self.where(path) if mark is None else _location(self.file, mark)

    def texts(self):
        """Every text of the document, key or value, with its location, in the file's order."""
        def walk(value, path: Path_):
            if isinstance(value, dict):
                for key, item in value.items():
                    if isinstance(key, str):
                        yield self.key_where(path + (key,)), key
                    yield from walk(item, path + (key,))
            elif isinstance(value, list):
                for index, item in enumerate(value):
                    yield from walk(item, path + (index,))
            elif isinstance(value, str):
                yield self.where(path), value
        return walk(self.data, ())


class FloatText(str):
    """A number YAML reads as a float, kept as written (a version such as 3.10 or 12.8 stays
    "3.10"); `value` is the float, for where a number is meant (a nixpkgs config option)."""

    value: float

    def __new__(cls, text: str, value: float):
        self = super().__new__(cls, text)
        self.value = value
        return self

    def __getnewargs__(self):  # copy and pickle call __new__ with these
        return str(self), self.value


def _scalar(constructor: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
    value = constructor.construct_object(node)
    if isinstance(value, float):
        return FloatText(node.value, value)
    return value


# Aliases let a small file expand into a huge one ("billion laughs"), and PyYAML builds
# nested values by recursion; no matrix comes near either limit.
MAX_NODES = 100_000
MAX_DEPTH = 64


def _location(file: str, mark) -> Location:
    """Where a PyYAML mark points, or a (line, column) pair (as a parsed file is kept), from 1."""
    line, column = mark if isinstance(mark, tuple) else (mark.line, mark.column)
    return Location(file, line + 1, column + 1)


_STR = "tag:yaml.org,2002:str"


# Unicode's bidirectional controls: they reorder the text around them on screen, so that a
# script, a workflow or a table shows one thing and holds another ("Trojan Source",
# CVE-2021-42574). No name or description needs one.
BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
# What no generated file can hold (NUL, half a surrogate pair), the control characters that a
# terminal would obey instead of showing (ESC starts a colour, a cursor move, a title) and the
# bidirectional controls, as a regex character class's body. Tab and newline are text.
UNWRITABLE = "\0\ud800-\udfff\x01-\x08\x0b-\x1f\x7f-\x9f" + BIDI
_UNWRITABLE = re.compile(f"[{UNWRITABLE}]")
_BIDI = re.compile(f"[{BIDI}]")


def unwritable(value: str) -> str | None:
    """Why `value` cannot reach a generated file or a terminal; None when it can."""
    found = _UNWRITABLE.search(value)
    if found is None:
        return None
    if found.group() == "\0":
        return "holds a NUL character (\\0), which no Nix string can hold"
    if "\ud800" <= found.group() <= "\udfff":
        return (f"holds U+{ord(found.group()):04X}, half of a UTF-16 surrogate pair, "
                "which a UTF-8 file cannot hold")
    if _BIDI.match(found.group()):
        return (f"holds U+{ord(found.group()):04X}, a bidirectional control, which makes a generated "
                "file show other text than it holds")
    return (f"holds the control character U+{ord(found.group()):04X}, which a terminal would obey "
            "instead of showing")


def _check_depth(text: str, file: str) -> None:
    depth = 0
    for event in yaml.parse(text, Loader=LOADER):  # events come without recursion
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise GenMatrixError.at(_location(file, event.start_mark),
                                        f"values are nested more than {MAX_DEPTH} levels deep here",
                                        "a matrix needs a few levels; check the brackets and indentation")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def parse(text: str, file: str, own: bool = False) -> Document:
    """Parse YAML text; raise GenMatrixError for a syntax error.

    Duplicate keys and unwritable text are collected in the document's `problems`. `own`:
    gen-matrix's own file (the shipped knowledge table), whose nesting its tests check, as
    they check it against the schema: a run does not again."""
    try:
        if not own:
            _check_depth(text, file)
        root = yaml.compose(text, Loader=LOADER)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = _location(file, mark) if mark else Location(file)
        raise GenMatrixError.at(
            where, f"YAML syntax error: {error.problem or error.context}",
            "fix the YAML syntax at this position (indentation, quotes, a missing ':')",
        ) from None
    except yaml.reader.ReaderError as error:
        raise GenMatrixError.at(
            Location.of_offset(file, text, error.position),
            f"the file holds the character U+{error.character:04X}, which YAML does not allow",
            "remove it; inside double quotes, an escape such as \\t writes a special character",
        ) from None
    except yaml.YAMLError as error:  # pragma: no cover - every PyYAML error above is one of those
        raise GenMatrixError.at(Location(file), f"YAML error: {error}") from None

    marks: dict = {}
    problems: list[Problem] = []
    count = 0
    built: set[int] = set()  # the nodes met so far: one met again is an alias's
    constructor = yaml.SafeLoader("")

    def scalar(node: yaml.ScalarNode) -> Any:
        try:
            # most values are text, which constructing would give back as written
            value = node.value if node.tag == _STR else _scalar(constructor, node)
        except Exception:  # PyYAML raises anything from KeyError to ValueError for `!!bool maybe`
            tag = node.tag.replace("tag:yaml.org,2002:", "!!")
            problems.append(Problem(_location(file, node.start_mark),
                                    f"YAML cannot read '{node.value}' with the tag {tag}",
                                    "remove the tag (the word starting with !) before the value"))
            return node.value
        if isinstance(value, str):
            reason = unwritable(value)
            if reason:
                problems.append(Problem(_location(file, node.start_mark), f"this text {reason}",
                                        "remove the character or the escape that writes it"))
        return value

    def build(node: yaml.Node, path: tuple, parents: frozenset) -> Any:
        nonlocal count
        count += 1
        built.add(id(node))
        if count > MAX_NODES:
            if len(built) < count:  # a node was met twice: through an alias
                raise GenMatrixError.at(_location(file, node.start_mark),
                                        f"the document holds more than {MAX_NODES} values once its aliases are expanded",
                                        "write the values out instead of nesting aliases (*name)")
            raise GenMatrixError.at(_location(file, node.start_mark), f"the document holds more than {MAX_NODES} values",
                                    "a matrix holds a few hundred: is this the right file, or a list written out "
                                    "that its section's axes would make?")
        if id(node) in parents:
            raise GenMatrixError.at(_location(file, node.start_mark),
                                    "this alias refers to a value that contains it",
                                    "a value cannot contain itself: copy the part you need")
        marks[path] = node.start_mark
        if isinstance(node, yaml.ScalarNode):
            return scalar(node)
        parents = parents | {id(node)}  # a list or mapping: what an alias within it may not refer to
        if isinstance(node, yaml.SequenceNode):
            return [build(child, path + (i,), parents) for i, child in enumerate(node.value)]
        if isinstance(node, yaml.MappingNode):
            result: dict = {}
            first: dict = {}
            for key_node, value_node in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    problems.append(Problem(_location(file, key_node.start_mark),
                                            "'<<' merges another mapping into this one, which gen-matrix does not do "
                                            "(YAML 1.2 has no merge keys)",
                                            "write the keys out here; an alias (*name) can stand for a whole value"))
                    continue
                if not isinstance(key_node, yaml.ScalarNode):
                    problems.append(Problem(_location(file, key_node.start_mark),
                                            "a key must be a plain value, not a list or mapping"))
                    continue
                key = scalar(key_node)
                key = key if isinstance(key, str) else str(key)
                if key in first:
                    problems.append(Problem(
                        _location(file, key_node.start_mark),
                        f"duplicate key '{key}' (first written at line {first[key].line + 1})",
                        "keep one of them: YAML would silently use only the last",
                    ))
                    continue
                first[key] = marks[("key",) + path + (key,)] = key_node.start_mark
                result[key] = build(value_node, path + (key,), parents)
            return result
        raise AssertionError(f"unknown YAML node {node!r}")  # pragma: no cover

    data = None if root is None else build(root, (), frozenset())
    return Document(file, data, marks, tuple(problems))


# Far more than any matrix, README or manifest; what stops a run reading /dev/zero without end.
MAX_BYTES = 16 * 1024 * 1024
# Opening a FIFO for reading waits for a writer; O_NONBLOCK returns at once, and fstat tells.
_OPEN = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


def read_bytes(path: Path, name: str, limit: int = MAX_BYTES, hint: str = "") -> bytes | None:
    """The bytes of the regular file at `path`, at most `limit` of them; None when there is no
    file. Anything else (a folder, a FIFO, a device, a file too big) is a located error."""
    def not_regular() -> GenMatrixError:
        return GenMatrixError.at(Location(name), "not a regular file (a folder, a FIFO or a device)",
                                 hint or "gen-matrix reads only regular files here")

    try:
        descriptor = os.open(path, _OPEN)
    except FileNotFoundError:
        return None
    except OSError as error:
        if os.path.isdir(path):  # Windows opens no folder: "permission denied", where POSIX gives a descriptor
            raise not_regular() from None
        raise GenMatrixError.at(Location(name), f"cannot read the file: {error.strerror or error}", hint) from None
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise not_regular()
        with os.fdopen(descriptor, "rb", closefd=False) as handle:
            data = handle.read(limit + 1)
    except OSError as error:
        raise GenMatrixError.at(Location(name), f"cannot read the file: {error.strerror or error}", hint) from None
    finally:
        os.close(descriptor)
    if len(data) > limit:
        size = f"{limit // 1024 // 1024} MiB" if limit >= 1024 * 1024 else f"{limit} bytes"
        raise GenMatrixError.at(Location(name), f"the file is larger than {size}", hint or "is this the right file?")
    return data


def read_text(path: Path, name: str, limit: int = MAX_BYTES, hint: str = "") -> str | None:
    """The UTF-8 text of the regular file at `path`, line endings as they are; None when there is none."""
    raw = read_bytes(path, name, limit, hint)
    if raw is None:
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise GenMatrixError.at(Location.of_offset(name, raw, error.start),
                                f"the byte 0x{raw[error.start]:02x} is not UTF-8 text",
                                hint or "save the file as UTF-8") from None


def read(path: Path, display: str | None = None, own: bool = False) -> Document:
    """Read and parse a YAML file; `display` is the name used in messages, `own` as parse's
    (and kept parsed: `parsed_own`)."""
    name = display or str(path)
    text = read_text(path, name)
    if text is None:
        raise GenMatrixError.at(Location(name), "file not found",
                                "pass the matrix with --matrix PATH or run from its folder")
    return parsed_own(path, text, name) if own else parse(text, name)


def _key(text: str) -> str:
    """What a kept parse is made from: the file's text, this module's code, and PyYAML's
    version and parser."""
    code = Path(__file__).read_bytes()
    return hashlib.sha256(b"\0".join([text.encode("utf-8"), code, f"{yaml.__version__} {LOADER.__name__}".encode()])
                          ).hexdigest()


def parsed_own(path: Path, text: str, name: str) -> Document:
    """gen-matrix's own YAML file (the shipped knowledge table), parsed, as parse(own=True)
    gives it: kept parsed as Python keeps bytecode, in one file beside it in __pycache__/ that
    holds the digest of what it was made from (_key), its values and the (line, column) of each
    path, written by marshal, which reads it back in a twentieth of the time of parsing. A file
    made from something else, or that cannot be read back, is parsed again and written over;
    where the folder cannot be written, or Python is told to write no bytecode
    (PYTHONDONTWRITEBYTECODE), each run parses."""
    file, key = path.parent / "__pycache__" / f"{path.name}.marshal", _key(text)
    found = kept.read(file)
    if type(found) is tuple and len(found) == 3 and found[0] == key:
        return Document(name, found[1], found[2])
    doc = parse(text, name, own=True)
    if not doc.problems:  # nothing is kept of a value marshal cannot write as it is (a decimal's FloatText)
        kept.write(file, (key, doc.data, {p: (m.line, m.column) for p, m in doc.marks.items()}))
    return doc
