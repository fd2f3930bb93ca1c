"""Files gen-matrix keeps beside its own code in `__pycache__/`, as Python keeps bytecode:
the shipped knowledge table parsed (pipeline/load.py) and the code of the methods dataclasses
writes (records.py). Each holds one marshal value, read back whole or not at all. It is
written under a temporary name, then renamed over the old one, so that a run reading it at
the same time sees one or the other whole; never where Python is told to write no bytecode
(PYTHONDONTWRITEBYTECODE), and silently not where the folder cannot be written (a read-only
installation, such as the Nix store)."""

from __future__ import annotations

import marshal
import os
import sys
from pathlib import Path


def read(path: Path):
    """The value kept in `path`; None where there is none, or it is cut short or not marshal's."""
    try:
        return marshal.loads(path.read_bytes())
    except Exception:
        return None


def write(path: Path, value) -> None:
    """Keep `value` in `path`, where bytecode is to be written and the folder can be; nothing
    for a value marshal cannot write as the type it is (a str of a type of its own)."""
    if sys.dont_write_bytecode:
        return
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(exist_ok=True)
        temporary.write_bytes(marshal.dumps(value))
        os.replace(temporary, path)
    except (OSError, ValueError):
        try:
            temporary.unlink()
        except OSError:
            pass
