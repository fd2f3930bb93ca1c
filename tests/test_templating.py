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


@pytest.mark.parametrize("nix_output", [True, False])
def test_a_template_has_only_what_python_gives_it(nix_output):
    """No Jinja global (range, namespace, ...) is there for a template to compute with: a
    template that reaches for one is an error, as an undefined value is."""
    env = templating.environment(nix_output)
    for name in ("range", "dict", "lipsum", "cycler", "joiner", "namespace"):
        with pytest.raises(jinja2.UndefinedError, match=f"'{name}' is undefined"):
            env.from_string(f"{{{{ {name}(1) }}}}").render()
    assert env.from_string("{{ a }}").render(a="given") == ('"given"' if nix_output else "given")


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


def shout(text: str) -> str:
    return str(text).upper()


def whisper(text: str) -> str:
    return str(text).lower()


LOUDNESS = {"level": "loud"}


def by_level(text: str) -> str:
    return str(text).upper() if LOUDNESS["level"] == "loud" else str(text).lower()


@pytest.mark.parametrize("order", [(shout, whisper), (whisper, shout)])
def test_a_filter_of_a_constant_is_never_read_back_from_an_environment_with_another_filter_of_that_name(
        folder, order):
    """Jinja works out `"Mixed Case" | voice` while it compiles: the code holds the result."""
    (folder / "voice.txt.j2").write_text('{{ "Mixed Case" | voice }} {{ a | voice }}\n', encoding="utf-8")
    for _ in range(2):  # the second time, each from the cache
        for voice in order:
            text = templating.new_environment({"voice": voice}).get_template("voice.txt.j2").render(a="Aa")
            assert text == f"{voice('Mixed Case')} {voice('Aa')}\n"
    assert len(cached(folder)) == 2


def test_a_change_of_gen_matrix_s_code_compiles_again_in_the_same_files(folder, monkeypatch):
    """A new release's filter may work out a constant otherwise: its compiled code is not the
    old one's, and the folder does not grow with releases."""
    (folder / "level.txt.j2").write_text('{{ "Mixed Case" | level }}\n', encoding="utf-8")

    def render() -> str:
        return templating.new_environment({"level": by_level}).get_template("level.txt.j2").render()

    monkeypatch.setattr(templating, "_code_stamp", lambda: "one")
    assert render() == "MIXED CASE\n"
    files = cached(folder)
    monkeypatch.setitem(LOUDNESS, "level", "quiet")
    assert render() == "MIXED CASE\n", "the same code of gen-matrix: the compiled template is read back"
    monkeypatch.setattr(templating, "_code_stamp", lambda: "two")
    assert render() == "mixed case\n"
    monkeypatch.setattr(templating, "_code_stamp", lambda: "three")
    monkeypatch.setitem(LOUDNESS, "level", "loud")
    assert render() == "MIXED CASE\n"
    assert cached(folder) == files


def test_the_stamp_of_the_code_changes_with_a_file_s_size_time_or_name_and_only_then(tmp_path):
    package = tmp_path / "package"
    (package / "inner").mkdir(parents=True)
    (package / "one.py").write_text("A = 1\n", encoding="utf-8")
    (package / "inner" / "two.py").write_text("B = 2\n", encoding="utf-8")
    (package / "notes.txt").write_text("not code\n", encoding="utf-8")
    first = templating.stamp_of(package)
    assert templating.stamp_of(package) == first
    (package / "notes.txt").write_text("still not code\n", encoding="utf-8")
    assert templating.stamp_of(package) == first
    seen = {first}
    found = (package / "one.py").stat()
    os.utime(package / "one.py", ns=(found.st_atime_ns, found.st_mtime_ns + 10**9))  # touched
    seen.add(templating.stamp_of(package))
    (package / "inner" / "two.py").write_text("B = 22\n", encoding="utf-8")  # edited
    seen.add(templating.stamp_of(package))
    (package / "inner" / "three.py").write_text("", encoding="utf-8")  # added
    seen.add(templating.stamp_of(package))
    (package / "inner" / "three.py").rename(package / "inner" / "four.py")  # renamed
    seen.add(templating.stamp_of(package))
    assert len(seen) == 5


def test_the_stamp_of_the_code_changes_with_jinja_s_version_and_holds_without_one(tmp_path, monkeypatch):
    package = tmp_path / "package"
    package.mkdir()
    (package / "one.py").write_text("A = 1\n", encoding="utf-8")
    monkeypatch.setattr(jinja2, "__version__", "3.1.6", raising=False)
    first = templating.stamp_of(package)
    monkeypatch.setattr(jinja2, "__version__", "3.2.0")
    second = templating.stamp_of(package)
    monkeypatch.delattr(jinja2, "__version__")  # a Jinja that gives none: a stamp all the same
    third = templating.stamp_of(package)
    assert len({first, second, third}) == 3


def module_function(module: str):
    """A filter named `twice` in `module`: the same qualified name in two modules."""
    namespace: dict = {"__name__": module}
    exec("def twice(text):\n    return str(text) * 2 if __name__.endswith('a') else str(text) * 3\n", namespace)
    return namespace["twice"]


class Double:
    def __call__(self, text):
        return str(text) * 2


class Triple:
    def __call__(self, text):
        return str(text) * 3


@pytest.mark.parametrize("first, second", [
    (module_function("filters_a"), module_function("filters_b")),  # one name, two modules
    (Double(), Triple()),  # callable objects, which have no qualified name of their own
])
def test_filters_of_one_name_in_two_modules_or_two_classes_keep_their_own_code(folder, first, second):
    (folder / "twice.txt.j2").write_text('{{ "ab" | twice }}\n', encoding="utf-8")
    for _ in range(2):
        for function in (first, second):
            text = templating.new_environment({"twice": function}).get_template("twice.txt.j2").render()
            assert text == function("ab") + "\n"
    assert len(cached(folder)) == 2


@pytest.mark.parametrize("nix_output", [True, False])
def test_a_block_tag_on_a_line_of_its_own_leaves_no_line_and_no_indentation(folder, nix_output):
    """trim_blocks and lstrip_blocks: a template may indent its tags to show their nesting."""
    (folder / "nested.txt.j2").write_text(
        "begin\n"
        "  {% for item in items %}\n"
        "    {% if item %}\n"
        "item\n"
        "    {% endif %}\n"
        "  {% endfor %}\n"
        "end\n", encoding="utf-8")
    env = templating.environment(nix_output)
    assert env.get_template("nested.txt.j2").render(items=[1, 0, 2]) == "begin\nitem\nitem\nend\n"
