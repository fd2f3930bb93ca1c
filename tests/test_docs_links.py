"""Every relative link of the README and the guides in docs/ leads somewhere: the file exists
and, where the link names an anchor, the file has a heading of that anchor, as GitHub makes
them. A guide moved or a heading reworded without its links fails here."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from markdown_it import MarkdownIt

from conftest import REPO

DOCUMENTS = sorted([*REPO.glob("*.md"), *(REPO / "docs").glob("*.md")])


def _tokens(path: Path):
    return MarkdownIt("commonmark").enable("table").parse(path.read_text(encoding="utf-8"))


def _text(inline) -> str:
    return "".join(child.content for child in inline.children if child.type in ("text", "code_inline"))


def anchors(path: Path) -> set[str]:
    """The anchors GitHub gives the headings of `path`: lower case, punctuation but - and _
    dropped, spaces made -, and -1, -2 after a repeat."""
    found: set[str] = set()
    tokens = _tokens(path)
    for opening, inline in zip(tokens, tokens[1:]):
        if opening.type == "heading_open":
            slug = re.sub(r"[^\w\- ]", "", _text(inline).strip().lower()).replace(" ", "-")
            candidate, number = slug, 0
            while candidate in found:
                number += 1
                candidate = f"{slug}-{number}"
            found.add(candidate)
    return found


def links(path: Path) -> list[str]:
    """The targets of the links and images of `path` that lead into this repository."""
    found = []
    for token in _tokens(path):
        for child in token.children or ():
            target = child.attrGet("href") if child.type == "link_open" else (
                child.attrGet("src") if child.type == "image" else None)
            if target and not urlsplit(target).scheme and not target.startswith("//"):
                found.append(target)
    return found


CASES = [(path, target) for path in DOCUMENTS for target in links(path)]


def test_the_readme_and_every_guide_link_into_the_docs():
    sources = {path.relative_to(REPO).as_posix() for path, _ in CASES}
    assert {"README.md", "docs/matrix.md", "docs/building.md", "docs/ci.md", "docs/how-it-works.md",
            "docs/reference.md"} <= sources
    readme = {target for path, target in CASES if path.name == "README.md"}
    assert {"docs/matrix.md", "docs/reference.md", "docs/ci.md", "docs/building.md", "docs/how-it-works.md"} <= readme


@pytest.mark.parametrize("path, target", CASES, ids=[f"{p.relative_to(REPO)}:{t}" for p, t in CASES])
def test_a_relative_link_resolves(path, target):
    parts = urlsplit(target)
    file = (path.parent / unquote(parts.path)).resolve() if parts.path else path
    assert file.exists(), f"{path.relative_to(REPO)} links to {target}: there is no {parts.path}"
    assert file.is_relative_to(REPO), f"{path.relative_to(REPO)} links to {target}, outside the repository"
    if parts.fragment:
        assert file.suffix == ".md", f"{path.relative_to(REPO)} links to an anchor of {parts.path}, not Markdown"
        assert parts.fragment in anchors(file), (
            f"{path.relative_to(REPO)} links to {target}: {file.relative_to(REPO)} has no heading of that anchor")
