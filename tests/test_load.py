"""Reading YAML directly: values as written, where each was written, and every refusal located.

The CLI tests show these errors through a whole run; these pin down the line and column of
each, what is collected as a problem (so that one run shows them all) and what stops the read.
"""

from __future__ import annotations

import os

import pytest

from generator.errors import GenMatrixError, Location, Problem
from generator import knowledge
from generator.pipeline import load

from conftest import needs_posix


def problem(error: pytest.ExceptionInfo) -> tuple[Location, str, str]:
    (only,) = error.value.problems
    return only.where, only.message, only.hint


def test_values_and_their_locations():
    document = load.parse("a:\n  b: [1, x]\n  c: 3.10\n", "m.yaml")
    assert document.data == {"a": {"b": [1, "x"], "c": "3.10"}}
    assert document.problems == ()
    assert document.where(()) == Location("m.yaml", 1, 1)
    assert document.where(("a",)) == Location("m.yaml", 2, 3)
    assert document.where(("a", "b", 1)) == Location("m.yaml", 2, 10)
    assert document.where(("a", "c")) == Location("m.yaml", 3, 6)
    # a path that is not in the document: its nearest parent
    assert document.where(("a", "b", 5, "z")) == Location("m.yaml", 2, 6)
    assert document.where(("a", "b", 1, "z")) == Location("m.yaml", 2, 10)
    assert document.where(("nothing",)) == Location("m.yaml", 1, 1)
    assert document.key_where(("a", "c")) == Location("m.yaml", 3, 3)
    assert document.key_where(("a", "b", 0)) == Location("m.yaml", 2, 7)  # no key: the value


def test_every_text_key_and_value_with_its_location_in_the_files_order():
    doc = load.parse("gpu:\n  sm: [sm90, sm120]\n  cuda: 12.8\nname: x\n2: [a]\n", "m.yaml")
    assert [(str(where), text) for where, text in doc.texts()] == [
        ("m.yaml:1:1", "gpu"), ("m.yaml:2:3", "sm"), ("m.yaml:2:8", "sm90"), ("m.yaml:2:14", "sm120"),
        ("m.yaml:3:3", "cuda"), ("m.yaml:3:9", "12.8"), ("m.yaml:4:1", "name"), ("m.yaml:4:7", "x"),
        ("m.yaml:5:1", "2"), ("m.yaml:5:5", "a")]


def test_where_of_an_empty_document_is_its_first_line():
    document = load.parse("", "m.yaml")
    assert document.data is None
    assert document.where(("a",)) == Location("m.yaml", 1, 1)


@pytest.mark.parametrize("text, value", [
    ("v: 3.10", "3.10"), ("v: 12.8", "12.8"), ("v: 1e3", "1e3"), ("v: .inf", ".inf"),
    ("v: 3", 3), ("v: true", True), ("v: null", None), ("v: '3.10'", "3.10"),
])
def test_numbers_that_are_not_whole_keep_their_text(text, value):
    assert load.parse(text, "m.yaml").data == {"v": value}


def test_a_key_that_is_not_text_is_read_as_its_text():
    assert load.parse("3.10: a\n12: b\ntrue: c\n", "m.yaml").data == {"3.10": "a", "12": "b", "True": "c"}


def test_duplicate_keys_are_problems_and_the_first_is_kept():
    document = load.parse("a: 1\nb: 2\na: 3\n", "m.yaml")
    assert document.data == {"a": 1, "b": 2}
    assert document.problems == (Problem(Location("m.yaml", 3, 1), "duplicate key 'a' (first written at line 1)",
                                          "keep one of them: YAML would silently use only the last"),)


def test_the_keys_after_a_duplicate_are_read():
    document = load.parse("a: 1\na: 2\nc: 3\n", "m.yaml")
    assert document.data == {"a": 1, "c": 3}
    assert len(document.problems) == 1


def test_every_problem_is_collected_in_one_read():
    text = "? [a]\n: 1\nb: !!bool maybe\nc: \"\\e[31m\"\nb: 2\n"
    document = load.parse(text, "m.yaml")
    assert [(p.where, p.message) for p in document.problems] == [
        (Location("m.yaml", 1, 3), "a key must be a plain value, not a list or mapping"),
        (Location("m.yaml", 3, 4), "YAML cannot read 'maybe' with the tag !!bool"),
        (Location("m.yaml", 4, 4),
         "this text holds the control character U+001B, which a terminal would obey instead of showing"),
        (Location("m.yaml", 5, 1), "duplicate key 'b' (first written at line 3)"),
    ]
    assert document.problems[1].hint == "remove the tag (the word starting with !) before the value"
    assert document.problems[2].hint == "remove the character or the escape that writes it"
    assert document.data == {"b": "maybe", "c": "\x1b[31m"}


@pytest.mark.parametrize("value, reason", [
    ("a\0b", "holds a NUL character (\\0), which no Nix string can hold"),
    ("\ud800", "holds U+D800, half of a UTF-16 surrogate pair, which a UTF-8 file cannot hold"),
    ("x\udfff", "holds U+DFFF, half of a UTF-16 surrogate pair, which a UTF-8 file cannot hold"),
    ("\x01", "holds the control character U+0001, which a terminal would obey instead of showing"),
    ("\x1f", "holds the control character U+001F, which a terminal would obey instead of showing"),
    ("\x7f", "holds the control character U+007F, which a terminal would obey instead of showing"),
    ("\x9f", "holds the control character U+009F, which a terminal would obey instead of showing"),
])
def test_unwritable_text_says_why(value, reason):
    assert load.unwritable(value) == reason


@pytest.mark.parametrize("value", ["", "a\tb\nc", "é ü 日本", "\xa0", "\ue000", "\U0001f600", " ~"])
def test_writable_text_passes(value):
    assert load.unwritable(value) is None


def test_a_syntax_error_is_located():
    with pytest.raises(GenMatrixError) as error:
        load.parse("a: 1\nb: [1, 2\nc: 3\n", "m.yaml")
    where, message, hint = problem(error)
    assert where == Location("m.yaml", 3, 2)
    assert message == "YAML syntax error: did not find expected ',' or ']'"
    assert hint == "fix the YAML syntax at this position (indentation, quotes, a missing ':')"


def test_a_character_yaml_refuses_is_located_at_its_line_and_column():
    with pytest.raises(GenMatrixError) as error:
        load.parse("a: 1\nb: x\x07y\n", "m.yaml")
    assert problem(error) == (Location("m.yaml", 2, 5), "the file holds the character U+0007, which YAML does not allow",
                              "remove it; inside double quotes, an escape such as \\t writes a special character")


def test_nesting_deeper_than_the_limit_is_located():
    assert load.parse("[" * load.MAX_DEPTH + "]" * load.MAX_DEPTH, "m.yaml").data is not None
    text = "a:\n  " + "[" * (load.MAX_DEPTH + 1) + "]" * (load.MAX_DEPTH + 1)
    with pytest.raises(GenMatrixError) as error:
        load.parse(text, "m.yaml")
    assert problem(error) == (Location("m.yaml", 2, 3 + load.MAX_DEPTH - 1),
                              f"values are nested more than {load.MAX_DEPTH} levels deep here",
                              "a matrix needs a few levels; check the brackets and indentation")


def test_gen_matrix_s_own_table_is_read_without_the_nesting_check(monkeypatch):
    """The shipped knowledge table is gen-matrix's own, checked by its tests (test_validation.py
    reads it as a matrix is read): a run does not walk its events a second time for it."""
    deep = "a:\n  " + "[" * (load.MAX_DEPTH + 1) + "]" * (load.MAX_DEPTH + 1)
    nested = "[" * (load.MAX_DEPTH + 1) + "]" * (load.MAX_DEPTH + 1)
    assert str(load.parse(deep, "m.yaml", own=True).data["a"]) == nested
    with pytest.raises(GenMatrixError, match="nested more than"):
        load.parse(deep, "m.yaml")

    def walked(text, file):
        raise AssertionError("the shipped table's nesting was checked in a run")

    monkeypatch.setattr(load, "_check_depth", walked)
    assert knowledge.build(knowledge.builtin()).sm  # read whole, and the table built from it


def test_nesting_that_closes_again_is_not_deep():
    text = "\n".join(f"k{i}: " + "[" * 40 + "]" * 40 for i in range(5))
    assert len(load.parse(text, "m.yaml").data) == 5


def test_aliases_that_expand_past_the_limit_are_refused():
    text = "a: &a [" + ", ".join(["x"] * 999) + "]\nb: &b [" + ", ".join(["*a"] * 200) + "]\n"
    with pytest.raises(GenMatrixError) as error:
        load.parse(text, "m.yaml")
    where, message, hint = problem(error)
    assert where.path == "m.yaml" and where.line == 1  # a copy of a value of line 1 passes it
    assert message == f"the document holds more than {load.MAX_NODES} values once its aliases are expanded"
    assert hint == "write the values out instead of nesting aliases (*name)"


def test_exactly_the_limit_of_values_is_read():
    """The mapping, a list of 999 and that list, 98 times again: 99,002 values; 998 more reach the limit."""
    def text(extra: int) -> str:
        return ("a: &a [" + "0," * 999 + "]\nb: [" + "*a," * 98 + "1," * extra + "]\n")

    assert len(load.parse(text(998), "m.yaml").data["b"]) == 98 + 998
    with pytest.raises(GenMatrixError, match=f"more than {load.MAX_NODES} values"):
        load.parse(text(999), "m.yaml")


def test_a_level_closed_deep_inside_is_one_level_less():
    """60 levels, one more opened and closed, then 5 more: 65 levels, one too many."""
    text = "[" * 60 + "[]," + "[" * 5 + "]" * 65
    with pytest.raises(GenMatrixError, match="nested more than 64 levels"):
        load.parse(text, "m.yaml")
    assert load.parse("[" * 60 + "[]," + "[" * 4 + "]" * 64, "m.yaml").data is not None


def test_aliases_within_the_limit_are_expanded():
    text = "a: &a [x, y]\nb: *a\nc: *a\n"
    assert load.parse(text, "m.yaml").data == {"a": ["x", "y"], "b": ["x", "y"], "c": ["x", "y"]}


def test_an_alias_that_contains_itself_is_refused():
    with pytest.raises(GenMatrixError) as error:
        load.parse("a: &a [x, *a]\n", "m.yaml")
    assert problem(error) == (Location("m.yaml", 1, 4), "this alias refers to a value that contains it",
                              "a value cannot contain itself: copy the part you need")


# --- reading files ------------------------------------------------------------------------------

def test_read_text_of_a_missing_file_is_none(tmp_path):
    assert load.read_text(tmp_path / "none", "none") is None
    assert load.read_bytes(tmp_path / "none", "none") is None


def test_read_text_keeps_line_endings(tmp_path):
    (tmp_path / "f").write_bytes("a\r\nb\né".encode())
    assert load.read_text(tmp_path / "f", "f") == "a\r\nb\né"


def test_a_file_of_exactly_the_limit_is_read_and_one_byte_more_is_refused(tmp_path):
    (tmp_path / "f").write_bytes(b"x" * 2 * 1024 * 1024)
    assert load.read_bytes(tmp_path / "f", "f", limit=2 * 1024 * 1024) == b"x" * 2 * 1024 * 1024
    (tmp_path / "f").write_bytes(b"x" * (2 * 1024 * 1024 + 1))
    with pytest.raises(GenMatrixError) as error:
        load.read_bytes(tmp_path / "f", "f", limit=2 * 1024 * 1024)
    assert problem(error) == (Location("f"), "the file is larger than 2 MiB", "is this the right file?")
    with pytest.raises(GenMatrixError) as error:
        load.read_bytes(tmp_path / "f", "f", limit=2 * 1024 * 1024, hint="move it")
    assert problem(error)[2] == "move it"


@pytest.mark.parametrize("make", [
    pytest.param(os.mkdir, id="folder"),
    pytest.param(lambda path: os.mkfifo(path), id="fifo", marks=needs_posix("FIFOs (os.mkfifo)")),
])
def test_something_other_than_a_regular_file_is_refused(tmp_path, make):
    make(tmp_path / "f")
    with pytest.raises(GenMatrixError) as error:
        load.read_text(tmp_path / "f", "shown")
    assert problem(error) == (Location("shown"), "not a regular file (a folder, a FIFO or a device)",
                              "gen-matrix reads only regular files here")
    with pytest.raises(GenMatrixError) as error:
        load.read_text(tmp_path / "f", "shown", hint="do this")
    assert problem(error)[2] == "do this"


@needs_posix("ENOTDIR for a path through a file (Windows says the path is not found)")
def test_a_file_inside_a_file_cannot_be_read_and_says_why(tmp_path):
    (tmp_path / "f").write_text("")
    with pytest.raises(GenMatrixError) as error:
        load.read_text(tmp_path / "f" / "g", "shown", hint="h")
    assert problem(error) == (Location("shown"), f"cannot read the file: {os.strerror(20)}", "h")


def test_bytes_that_are_not_utf8_are_located(tmp_path):
    (tmp_path / "f").write_bytes(b"a: 1\nb: x\xffy\n")
    with pytest.raises(GenMatrixError) as error:
        load.read_text(tmp_path / "f", "m.yaml")
    assert problem(error) == (Location("m.yaml", 2, 5), "the byte 0xff is not UTF-8 text", "save the file as UTF-8")
    with pytest.raises(GenMatrixError) as error:
        load.read_text(tmp_path / "f", "m.yaml", hint="other")
    assert problem(error)[2] == "other"


@pytest.mark.parametrize("text, where", [
    (b"a\nb\nc\nd: x\xff", Location("m.yaml", 4, 5)),
    (b"\nd: x\xff\n\n\n", Location("m.yaml", 2, 5)),
    (b"\xff", Location("m.yaml", 1, 1)),
])
def test_a_byte_that_is_not_utf8_is_located_on_any_line(tmp_path, text, where):
    (tmp_path / "f").write_bytes(text)
    with pytest.raises(GenMatrixError) as error:
        load.read_text(tmp_path / "f", "m.yaml")
    assert problem(error)[0] == where


def test_a_failure_while_reading_is_named_with_the_hint(tmp_path, monkeypatch):
    import errno

    (tmp_path / "f").write_text("a")

    def broken(*args, **kwargs):
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(load.os, "fdopen", broken)
    with pytest.raises(GenMatrixError) as error:
        load.read_text(tmp_path / "f", "shown", hint="h")
    assert problem(error) == (Location("shown"), f"cannot read the file: {os.strerror(errno.EIO)}", "h")


def test_read_names_a_file_that_is_not_utf8_as_shown(tmp_path):
    (tmp_path / "m.yaml").write_bytes(b"a: \xff\n")
    with pytest.raises(GenMatrixError) as error:
        load.read(tmp_path / "m.yaml", "shown.yaml")
    assert problem(error)[0] == Location("shown.yaml", 1, 4)


def test_read_parses_the_file_and_names_it_as_shown(tmp_path):
    (tmp_path / "m.yaml").write_text("a: 1\na: 2\n")
    document = load.read(tmp_path / "m.yaml", "shown.yaml")
    assert document.file == "shown.yaml" and document.data == {"a": 1}
    assert document.problems[0].where == Location("shown.yaml", 2, 1)
    assert load.read(tmp_path / "m.yaml").file == str(tmp_path / "m.yaml")


def test_read_of_a_missing_matrix_says_how_to_name_one(tmp_path):
    with pytest.raises(GenMatrixError) as error:
        load.read(tmp_path / "matrix.yaml", "matrix.yaml")
    assert problem(error) == (Location("matrix.yaml"), "file not found",
                              "pass the matrix with --matrix PATH or run from its folder")


# --- gen-matrix's own table, kept parsed ----------------------------------------------------

OWN_TEXTS = [
    knowledge.KNOWLEDGE_FILE.read_text(encoding="utf-8"),
    "a:\n  - {b: true, c: 7, 'd e': [1, '2.50', null]}\n  - x\nf: é\n",
]


def locations(doc: load.Document) -> dict:
    """Where each path of the document is, and where its key is."""
    found = {}

    def walk(value, path):
        found[path] = (doc.where(path), doc.key_where(path) if path else None)
        children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
        for key, item in children:
            walk(item, path + (key,))

    walk(doc.data, ())
    return found


@pytest.fixture
def writes_bytecode(monkeypatch):
    monkeypatch.setattr("sys.dont_write_bytecode", False)


@pytest.mark.parametrize("text", OWN_TEXTS, ids=["shipped", "small"])
def test_an_own_file_kept_parsed_reads_back_as_parsed(text, tmp_path, writes_bytecode):
    """Kept, then read back: the same values, each with its line and column and its key's."""
    path = tmp_path / "own.yaml"
    path.write_text(text, encoding="utf-8")
    parsed = load.parse(text, "shown.yaml", own=True)
    first = load.read(path, "shown.yaml", own=True)
    (kept,) = (tmp_path / "__pycache__").iterdir()
    second = load.read(path, "shown.yaml", own=True)
    assert first.data == second.data == parsed.data and second.file == "shown.yaml"
    assert type(second.data) is type(parsed.data) and second.problems == ()
    assert locations(first) == locations(second) == locations(parsed)
    assert sorted((tmp_path / "__pycache__").iterdir()) == [kept]


def test_an_own_file_changed_is_parsed_again_and_kept_in_the_same_file(tmp_path, writes_bytecode):
    path = tmp_path / "own.yaml"
    for text in OWN_TEXTS[::-1] + OWN_TEXTS:
        path.write_text(text, encoding="utf-8")
        load.read(path, "own.yaml", own=True)
        assert load.read(path, "own.yaml", own=True).data == load.parse(text, "own.yaml", own=True).data
        assert [p.name for p in (tmp_path / "__pycache__").iterdir()] == ["own.yaml.marshal"]  # one, written over


@pytest.mark.parametrize("kept", [b"", b"\x00garbage", None], ids=["empty", "not-marshal", "cut-short"])
def test_an_own_file_kept_unreadable_is_parsed_again(kept, tmp_path, writes_bytecode):
    path = tmp_path / "own.yaml"
    text = OWN_TEXTS[1]
    path.write_text(text, encoding="utf-8")
    load.read(path, "own.yaml", own=True)
    (cache,) = (tmp_path / "__pycache__").iterdir()
    cache.write_bytes(cache.read_bytes()[:-5] if kept is None else kept)
    assert locations(load.read(path, "own.yaml", own=True)) == locations(load.parse(text, "own.yaml", own=True))


def test_an_own_file_is_parsed_each_run_where_nothing_may_be_kept(tmp_path, monkeypatch):
    path = tmp_path / "own.yaml"
    path.write_text(OWN_TEXTS[1], encoding="utf-8")
    monkeypatch.setattr("sys.dont_write_bytecode", True)  # PYTHONDONTWRITEBYTECODE
    assert load.read(path, "own.yaml", own=True).data["f"] == "é"
    assert not (tmp_path / "__pycache__").exists()
    monkeypatch.setattr("sys.dont_write_bytecode", False)
    (tmp_path / "__pycache__").write_text("a file where the folder would be")  # as a read-only folder
    assert load.read(path, "own.yaml", own=True).data["f"] == "é"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["__pycache__", "own.yaml"]


def test_an_own_file_with_a_value_marshal_cannot_keep_as_it_is_is_parsed_each_run(tmp_path, writes_bytecode):
    """A decimal is the text written (FloatText, a str of its own type), which marshal would
    give back as a plain str: such a file is never kept."""
    path = tmp_path / "own.yaml"
    path.write_text("a: [2.50, '2.50']\nb: 3.10\n", encoding="utf-8")
    for _ in range(2):
        data = load.read(path, "own.yaml", own=True).data
        assert [type(v) for v in (*data["a"], data["b"])] == [load.FloatText, str, load.FloatText]
    assert list((tmp_path / "__pycache__").iterdir()) == []
