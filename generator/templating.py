"""The Jinja environment every generated file, script and message is rendered in.

Templates (templates/) hold the shape of the output; Python hands them prepared values, and
they have no others: no Jinja globals. Undefined values are errors, and in the environment
of Nix files every `{{ }}` passes through `nixvalue.nix`, so that nothing reaches a recipe
unescaped. Every environment has the escaping function of each output language as a filter
of its name (escape.py).

Templates are compiled once and kept compiled beside them, in templates/__pycache__/, as
Python keeps its own bytecode. Jinja works out a filter of a constant, and the finalize of
constant text, while it compiles, so compiled code holds results of gen-matrix's functions:
it is read back only by an environment of the same finalize and filters, while the
template's text, gen-matrix's own code (its files' sizes and times, as Python's bytecode
checks its sources) and Jinja's version are the same; otherwise it is compiled again, in the
same file, so that the folder holds one file per template and environment. Where that folder
cannot be written (a read-only installation, such as the Nix store) or Python is told to
write no bytecode (PYTHONDONTWRITEBYTECODE), each run compiles them.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from pathlib import Path

import jinja2
import jinja2.bccache

from . import layout
from .escape import FILTERS
from .pipeline.nixvalue import attr, comment, nix


def stamp_of(package: Path) -> str:
    """The Python files of `package` by name, size and modification time, and Jinja's version."""
    stamp = hashlib.sha256(f"jinja2 {getattr(jinja2, '__version__', 'unknown')}\n".encode())
    for path in sorted(package.rglob("*.py")):
        found = path.stat()
        stamp.update(f"{path.relative_to(package).as_posix()}\0{found.st_size}\0{found.st_mtime_ns}\n".encode())
    return stamp.hexdigest()


@functools.cache
def _code_stamp() -> str:
    """gen-matrix's code as installed: what compiled code depends on besides the template's text."""
    return stamp_of(Path(__file__).resolve().parent)


def _named(function) -> str:
    return f"{getattr(function, '__module__', '')}.{getattr(function, '__qualname__', type(function).__name__)}"


class _Compiled(jinja2.FileSystemBytecodeCache):
    """Compiled templates in templates/__pycache__/, one file per template and kind of
    environment; a file that cannot be read or written is compiled again, never an error."""

    def __init__(self, env: jinja2.Environment):
        functions = [f"finalize {_named(env.finalize)}", *(f"{name} {_named(f)}" for name, f in sorted(env.filters.items()))]
        kind = hashlib.sha256("\n".join(functions).encode()).hexdigest()[:16]
        super().__init__(str(layout.TEMPLATES / "__pycache__"), f"%s.{kind}.cache")

    def get_source_checksum(self, source: str) -> str:
        return hashlib.sha256(f"{_code_stamp()}\0{source}".encode()).hexdigest()

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # a cache file cut short or not Jinja's: compile again
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if sys.dont_write_bytecode:
            return
        try:
            os.makedirs(self.directory, exist_ok=True)
            super().dump_bytecode(bucket)
        except OSError:
            pass


def new_environment(filters: dict, finalize=None) -> jinja2.Environment:
    """A Jinja environment over templates/, strict about undefined values, with `filters`."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(layout.TEMPLATES)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
        finalize=finalize,
    )
    env.filters.update(FILTERS)
    env.filters.update(filters)
    # Templates are given what Python prepared, and nothing else: none of Jinja's globals
    # (range, dict, lipsum, cycler, joiner, namespace), which every render would otherwise
    # copy into its context (thousands of recipes a run).
    env.globals.clear()
    env.bytecode_cache = _Compiled(env)
    return env


def environment(nix_output: bool) -> jinja2.Environment:
    """The environment of the generated files; for Nix, every `{{ }}` goes through `nix`."""
    return new_environment({"comment": comment, "attr": attr},
                           finalize=nix if nix_output else None)
