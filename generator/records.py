"""`dataclass`: the standard library's, with the code of the methods it writes kept compiled.

dataclasses writes the methods of each class (`__init__`, `__repr__`, `__eq__`, `__hash__`,
and a frozen class's `__setattr__` and `__delattr__`) as Python source, and compiles that
source as the class is made: some 340 compilations for the classes a run of `generate`
imports, a third of its import time. The same source always compiles to the same code, so
the code is kept, by its source, in one file in `__pycache__/` beside this package, as Python
keeps a module's bytecode, and only source not seen before is compiled. Nothing else
changes: the classes are dataclasses' own, made by dataclasses from the same source.

The file is named for the interpreter (its bytecode differs from version to version) and
written once, as the process ends, and only where something was compiled: with the source
this run used, and what earlier runs kept while it stays under `LIMIT` entries (a run of
another command, which imports other classes). Where `__pycache__/` cannot be written (a
read-only installation, such as the Nix store) or Python is told to write no bytecode
(PYTHONDONTWRITEBYTECODE), each run compiles. A file that cannot be read back, or holds
something else, is compiled past and written over.

dataclasses calls the built-in `exec` for this and nothing else; while `dataclass` makes a
class, the name `exec` in dataclasses' module is this module's `_exec`, and only then (one
class at a time, whatever thread makes it).
"""

from __future__ import annotations

import atexit
import dataclasses
import sys
import threading
import types
from pathlib import Path

from . import kept

KEPT = Path(__file__).with_name("__pycache__") / f"dataclasses.{sys.implementation.cache_tag}.marshal"
LIMIT = 2048  # entries: all of gen-matrix's classes have some 550 methods

_kept: dict[str, types.CodeType] | None = None  # by source: the file's, and what this run compiled
_used: set[str] = set()
_compiled: list[str] = []
_making = threading.RLock()


def _read(path: Path) -> dict[str, types.CodeType]:
    """The code kept in `path` by source; none where it cannot be read or holds something else."""
    found = kept.read(path)
    if not isinstance(found, dict) or not all(type(k) is str and type(v) is types.CodeType for k, v in found.items()):
        return {}
    return found


def _exec(source: str, globals: dict, locals: dict) -> None:  # noqa: A002 (exec's own names)
    """exec as dataclasses calls it, with the code of `source` compiled once and kept."""
    code = _kept.get(source)
    if code is None:
        code = _kept[source] = compile(source, "<string>", "exec")  # the name exec gives it
        _compiled.append(source)
    _used.add(source)
    exec(code, globals, locals)


def dataclass(cls=None, /, **options):
    """dataclasses.dataclass, with the same options, its methods' code compiled once and kept."""
    if cls is None:
        return lambda cls: dataclass(cls, **options)
    global _kept
    with _making:
        if _kept is None:
            _kept = _read(KEPT)
        inner = "exec" in vars(dataclasses)  # a class made while another is (its default's, say)
        dataclasses.exec = _exec
        try:
            return dataclasses.dataclass(cls, **options)
        finally:
            if not inner:
                del dataclasses.exec


@atexit.register
def _at_exit() -> None:
    write(KEPT)


def write(path: Path) -> None:
    """Keep the code this run used in `path`, with what the file held while they are fewer than
    LIMIT; nothing where nothing was compiled, or no bytecode is to be written."""
    if not _compiled or sys.dont_write_bytecode:
        return
    used = {source: _kept[source] for source in sorted(_used)}
    earlier = {source: code for source, code in _read(path).items() if source not in used}
    if len(used) + len(earlier) <= LIMIT:
        used.update(earlier)
    kept.write(path, used)
