"""The Jinja environment every generated file, script and message is rendered in.

Templates (templates/) hold the shape of the output; Python hands them prepared values.
Undefined values are errors, and in the environment of Nix files every `{{ }}` passes
through `nixvalue.nix`, so that nothing reaches a recipe unescaped. Every environment has
the escaping function of each output language as a filter of its name (escape.py).
"""

from __future__ import annotations

import jinja2

from . import layout
from .escape import FILTERS
from .pipeline.nixvalue import attr, comment, nix


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
    return env


def environment(nix_output: bool) -> jinja2.Environment:
    """The environment of the generated files; for Nix, every `{{ }}` goes through `nix`."""
    return new_environment({"comment": comment, "attr": attr},
                           finalize=nix if nix_output else None)
