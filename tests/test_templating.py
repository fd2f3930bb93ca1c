"""Templates compiled once and kept in templates/__pycache__/: what is read back from there is
always what the template's text compiles to, in the environment that asks for it, and a
folder that cannot be written, or a Python told to write no bytecode, only costs a compile."""

from __future__ import annotations

import errno
import os
import sys

import jinja2
import jinja2.bccache
import pytest

from generator import layout, templating

TEMPLATES = {
    "one.nix.j2": "{ a = {{ a }}; b = {{ b }}; }\n",
    "two.txt.j2": "{{ a }} and {{ b }}\n",
}
VALUES = {"a": 'x "y" ${z}', "b": "plain"}


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """Two templates of their own, in a templates/ folder that the environments read."""
    templates = tmp_path / "templates"
    templates.mkdir()
    for name, text in TEMPLATES.items():
        (templates / name).write_text(text, encoding="utf-8")
    monkeypatch.setattr(layout, "TEMPLATES", templates)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    return templates


def compiles(monkeypatch) -> list[str]:
    """The names of the templates that are compiled from their text from now on."""
    names: list[str] = []
    original = jinja2.Environment.compile

    def counted(self, source, name=None, filename=None, raw=False, defer_init=False):
        names.append(name)
        return original(self, source, name, filename, raw, defer_init)

    monkeypatch.setattr(jinja2.Environment, "compile", counted)
    return names


def rendered(nix_output: bool) -> dict[str, str]:
    env = templating.environment(nix_output)
    return {name: env.get_template(name).render(**VALUES) for name in sorted(TEMPLATES)}


def cached(folder) -> list[str]:
    cache = folder / "__pycache__"
    return sorted(os.listdir(cache)) if cache.is_dir() else []


EXPECTED = {
    True: {"one.nix.j2": '{ a = "x \\"y\\" \\${z}"; b = "plain"; }\n', "two.txt.j2": '"x \\"y\\" \\${z}" and "plain"\n'},
    False: {"one.nix.j2": '{ a = x "y" ${z}; b = plain; }\n', "two.txt.j2": 'x "y" ${z} and plain\n'},
}


def test_a_second_environment_reads_every_template_compiled_and_renders_the_same(folder, monkeypatch):
    names = compiles(monkeypatch)
    first = {kind: rendered(kind) for kind in (True, False)}
    assert sorted(names) == sorted([*TEMPLATES, *TEMPLATES])
    assert len(cached(folder)) == 4, cached(folder)  # each template, for each kind of environment
    names.clear()
    again = {kind: rendered(kind) for kind in (False, True)}  # the other order: each kind its own code
    assert names == [], "read back compiled, not compiled again"
    assert first == again == EXPECTED


@pytest.mark.parametrize("warm", [True, False])
def test_the_kind_that_compiled_first_never_lends_its_code_to_the_other(folder, warm):
    """A Nix environment passes every value through nix(); a plain one does not. The code of
    one read by the other would write unescaped Nix, or fail."""
    first, second = (True, False) if warm else (False, True)
    assert rendered(first) == EXPECTED[first]
    assert rendered(second) == EXPECTED[second]
    assert rendered(first) == EXPECTED[first]


def test_an_edited_template_renders_its_new_text_and_the_others_stay_compiled(folder, monkeypatch):
    rendered(True)
    names = compiles(monkeypatch)
    (folder / "one.nix.j2").write_text("{ c = {{ b }}; a = {{ a }}; }\n", encoding="utf-8")
    (folder / "two.txt.j2").write_text("{{ b }} then {{ a }}\n", encoding="utf-8")
    assert rendered(True) == {"one.nix.j2": '{ c = "plain"; a = "x \\"y\\" \\${z}"; }\n',
                              "two.txt.j2": '"plain" then "x \\"y\\" \\${z}"\n'}
    assert sorted(names) == sorted(TEMPLATES)
    names.clear()
    (folder / "two.txt.j2").write_text(TEMPLATES["two.txt.j2"], encoding="utf-8")  # back as it was
    assert rendered(True)["two.txt.j2"] == EXPECTED[True]["two.txt.j2"]
    assert names == ["two.txt.j2"], "the edited one's code is what was kept; the other stays compiled"


def test_a_cache_file_cut_short_or_foreign_is_compiled_again(folder, monkeypatch):
    rendered(True)
    files = [folder / "__pycache__" / name for name in cached(folder)]
    files[0].write_bytes(files[0].read_bytes()[:20])
    files[1].write_bytes(b"not a compiled template")
    names = compiles(monkeypatch)
    assert rendered(True) == EXPECTED[True]
    assert sorted(names) == sorted(TEMPLATES)


def test_no_bytecode_asked_for_writes_nothing_and_reads_what_is_there(folder, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    assert rendered(True) == EXPECTED[True] and rendered(False) == EXPECTED[False]
    assert not (folder / "__pycache__").exists()
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    rendered(True)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    names = compiles(monkeypatch)
    assert rendered(True) == EXPECTED[True]
    assert names == [], "a compiled template is read, as Python reads its bytecode"


def test_a_read_only_installation_renders_and_writes_nothing(folder, monkeypatch):
    """As in the Nix store: every file made there fails (as root too, where a mode would not)."""
    (folder / "__pycache__").mkdir()

    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    # Jinja's own writing of a cache file (how it writes differs from release to release)
    monkeypatch.setattr(jinja2.FileSystemBytecodeCache, "dump_bytecode", read_only)
    assert rendered(True) == EXPECTED[True] and rendered(False) == EXPECTED[False]
    assert cached(folder) == []


def test_a_cache_folder_that_cannot_be_made_only_costs_a_compile(folder):
    (folder / "__pycache__").write_text("a file where the folder would be", encoding="utf-8")
    assert rendered(True) == EXPECTED[True] and rendered(False) == EXPECTED[False]
    assert (folder / "__pycache__").read_text(encoding="utf-8") == "a file where the folder would be"
