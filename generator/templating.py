"""The Jinja environment every generated file, script and message is rendered in.

Templates (templates/) hold the shape of the output; Python hands them prepared values.
Undefined values are errors, and in the environment of Nix files every `{{ }}` passes
through `nixvalue.nix`, so that nothing reaches a recipe unescaped. Every environment has
the escaping function of each output language as a filter of its name (escape.py).

Templates are compiled once and kept compiled beside them, in templates/__pycache__/, as
Python keeps its own bytecode: by the template's text (an edited template compiles again),
the environment's kind and Jinja's version. Where that folder cannot be written (a read-only
installation, such as the Nix store) or Python is told to write no bytecode
(PYTHONDONTWRITEBYTECODE), each run compiles them.
"""

from __future__ import annotations

import os
import sys

import jinja2
import jinja2.bccache

from . import layout
from .escape import FILTERS
from .pipeline.nixvalue import attr, comment, nix


class _Compiled(jinja2.FileSystemBytecodeCache):
    """Compiled templates in templates/__pycache__/; a file that cannot be read or written is
    compiled again, never an error."""

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


def _compiled(kind: str) -> _Compiled:
    version = getattr(jinja2, "__version__", "unknown")
    return _Compiled(str(layout.TEMPLATES / "__pycache__"), f"%s.{kind}.jinja2-{version}.cache")


def new_environment(filters: dict, finalize=None) -> jinja2.Environment:
    """A Jinja environment over templates/, strict about undefined values, with `filters`."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(layout.TEMPLATES)),
        # the code a template compiles to differs with and without `finalize`
        bytecode_cache=_compiled(getattr(finalize, "__name__", "plain")),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
        finalize=finalize,
    )
    env.filters.update(FILTERS)
    env.filters.update(filters)
    return env


def environment(nix_output: bool) -> jinja2.Environment:
    """The environment of the generated files; for Nix, every `{{ }}` goes through `nix`."""
    return new_environment({"comment": comment, "attr": attr},
                           finalize=nix if nix_output else None)
