"""SHA-256 as gen-matrix takes it of text and bytes."""

from __future__ import annotations

import hashlib


def sha256(*chunks: str | bytes):
    """A SHA-256 hasher fed with `chunks` in order, text as UTF-8."""
    hasher = hashlib.sha256()
    for chunk in chunks:
        hasher.update(chunk.encode("utf-8") if isinstance(chunk, str) else chunk)
    return hasher
