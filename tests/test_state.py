"""The state file read and written directly: revisions, located errors, the record of files.

The CLI tests (test_revisions, test_input_bounds, test_ownership) go through a whole run;
these pin down what each answer of `state` is, so that a wrong revision or a message that
points at the wrong line cannot pass unnoticed.
"""

from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.errors import GenMatrixError, Location
from generator.pipeline import state
from generator.pipeline.state import Entry

DIGEST = "a" * 64
RESTORE = "restore matrix.state.json from git (`git checkout -- matrix.state.json`)"


def problem(error: pytest.ExceptionInfo) -> tuple[Location, str, str]:
    (only,) = error.value.problems
    return only.where, only.message, only.hint


def state_text(variants: dict, files: dict | None = None) -> str:
    data = {"generated": "x", "variants": variants}
    if files is not None:
        data["files"] = files
    return json.dumps(data, indent=2) + "\n"


# --- revisions -------------------------------------------------------------------------------

def test_a_new_variant_starts_at_revision_0():
    assert state.next_entry(None, "b", "m", "w") == Entry("b", "m", "w", 0)


def test_a_metadata_only_change_bumps_the_revision_by_one():
    previous = Entry("b", "m1", "w", 7)
    assert state.next_entry(previous, "b", "m2", "w") == Entry("b", "m2", "w", 8)


@pytest.mark.parametrize("build, metadata, wrapper", [
    ("b", "m1", "w"),  # nothing changed
    ("b2", "m1", "w"),  # the build changed: a new store path anyway
    ("b2", "m2", "w"),  # both: the build's change gives the new path
    ("b", "m1", "w2"),  # only the wrapper's code: its store path changes by itself
])
def test_anything_else_keeps_the_revision(build, metadata, wrapper):
    previous = Entry("b", "m1", "w", 7)
    assert state.next_entry(previous, build, metadata, wrapper) == Entry(build, metadata, wrapper, 7)


# --- identities ------------------------------------------------------------------------------

def test_digest_is_sha256_of_the_parts_each_ended_by_nul():
    assert state.digest("a", "bc") == hashlib.sha256(b"a\0bc\0").hexdigest()
    assert state.digest() == hashlib.sha256(b"").hexdigest()
    # the separator keeps ("ab", "c") and ("a", "bc") apart
    assert state.digest("ab", "c") != state.digest("a", "bc")
    assert state.digest("é") == hashlib.sha256("é\0".encode("utf-8")).hexdigest()


def test_digest_continues_from_a_hasher_without_changing_it():
    start = state.hasher("common")
    assert state.digest("x", start=start) == state.digest("common", "x")
    assert state.digest("y", start=start) == state.digest("common", "y")
    assert start.hexdigest() == state.digest("common")


def test_file_digest_is_the_sha256_of_the_utf8_text():
    assert state.file_digest("é\n") == hashlib.sha256("é\n".encode("utf-8")).hexdigest()


# --- reading and writing the state ----------------------------------------------------------

def test_dump_without_files_records_none():
    assert json.loads(state.dump({}, "h"))["files"] == {}
    assert list(json.loads(state.dump({}, "h", {"b.nix": "", "a.nix": ""}))["files"]) == ["a.nix", "b.nix"]


_TEXT = st.text(st.characters(codec="utf-8"), max_size=8)  # quotes, backslashes, control characters, beyond ASCII


@settings(max_examples=150, deadline=None)
@given(entries=st.dictionaries(_TEXT, st.builds(Entry, _TEXT, _TEXT, _TEXT, st.integers(0, state.MAX_REVISION)),
                               max_size=4),
       header=_TEXT, files=st.none() | st.dictionaries(_TEXT, _TEXT, max_size=4))
def test_the_state_file_is_json_dumps_own_text_of_its_record(entries, header, files):
    """dump writes the text json.dumps(indent=2) writes of the record, byte for byte: for none,
    one and several variants and files, and names json must escape."""
    record = {"generated": header,
              "variants": {name: {"build": e.build, "metadata": e.metadata, "wrapper": e.wrapper, "revision": e.revision}
                           for name, e in sorted(entries.items())},
              "files": {path: state.file_digest(text) for path, text in sorted((files or {}).items())}}
    assert state.dump(entries, header, files) == json.dumps(record, indent=2) + "\n"


def test_a_state_without_a_wrapper_identity_reads_as_empty():
    text = state_text({"v": {"build": "b", "metadata": "m", "revision": 2}})
    assert state.parse(text, "matrix.state.json") == {"v": Entry("b", "m", "", 2)}


@pytest.mark.parametrize("revision", [0, 1, state.MAX_REVISION - 1])
def test_every_revision_nix_can_hold_after_one_more_is_read(revision):
    text = state_text({"v": {"build": "b", "metadata": "m", "revision": revision}})
    assert state.parse(text, "s.json")["v"].revision == revision


# --- errors, located ----------------------------------------------------------------------------

def test_invalid_json_is_located_at_its_line_and_column():
    with pytest.raises(GenMatrixError) as error:
        state.parse('{\n  "variants": {,\n}', "matrix.state.json")
    where, message, hint = problem(error)
    assert where == Location("matrix.state.json", 2, 16)
    assert message.startswith("not valid JSON: ")
    assert hint == RESTORE


def test_a_number_of_thousands_of_digits_is_located():
    text = '{\n  "variants": {\n    "v": ' + "9" * 5000 + "}}"
    with pytest.raises(GenMatrixError) as error:
        state.parse(text, "matrix.state.json")
    assert problem(error) == (Location("matrix.state.json", 3, 10), "a number here is thousands of digits long",
                              RESTORE)


def test_nesting_too_deep_is_located_where_it_passes_the_limit():
    text = '{"variants":\n' + "[" * 100_000 + "]" * 100_000 + "}"
    with pytest.raises(GenMatrixError) as error:
        state.parse(text, "matrix.state.json")
    where, message, hint = problem(error)
    # the outer mapping is level 1: the 64th bracket of line 2 passes the limit of 64
    assert where == Location("matrix.state.json", 2, state.MAX_DEPTH)
    assert message == f"values are nested more than {state.MAX_DEPTH} levels deep here"
    assert hint == RESTORE


def test_nesting_past_the_limit_but_short_of_any_recursion_limit_is_refused_all_the_same():
    text = '{"variants": {"v": {"build": ' + "[" * 100 + "]" * 100 + ', "metadata": "m", "revision": 0}}}'
    with pytest.raises(GenMatrixError) as error:
        state.parse(text, "matrix.state.json")
    # three mappings deep, the 62nd bracket opens level 65 (columns count from 1)
    assert problem(error)[:2] == (Location("matrix.state.json", 1, len('{"variants": {"v": {"build": ') + 62),
                                  f"values are nested more than {state.MAX_DEPTH} levels deep here")


def test_nesting_too_deep_after_many_entries_is_located_where_it_is():
    """Each entry opens and closes a level: the error points at the deep value, not the 64th entry."""
    variants = {f"v{i}": {"build": "b[{", "metadata": "m\\\"{", "revision": 0} for i in range(100)}
    # inside the variants mapping, after its entries: two levels deep before the brackets
    text = json.dumps({"variants": variants}, indent=2)[:-4] + ',\n  "deep":\n' + "[" * 5000 + "]" * 5000 + "}}"
    with pytest.raises(GenMatrixError) as error:
        state.parse(text, "matrix.state.json")
    line = text.count("\n") + 1
    assert problem(error)[:2] == (Location("matrix.state.json", line, state.MAX_DEPTH - 1),
                                  f"values are nested more than {state.MAX_DEPTH} levels deep here")


def test_an_error_is_located_by_the_entrys_name_not_a_value_that_quotes_it():
    text = state_text({"bad": {"build": "b", "metadata": "m", "revision": -1},
                       "ok": {"build": "bad", "metadata": "m", "revision": 0}})
    with pytest.raises(GenMatrixError) as error:
        state.parse(text, "matrix.state.json")
    assert problem(error)[0] == Location("matrix.state.json", 4)


def test_lines_are_counted_from_the_first_one_even_when_it_is_blank():
    text = "\n" + state_text({"v": {"build": "b", "metadata": "m", "revision": -1}})
    with pytest.raises(GenMatrixError) as error:
        state.parse(text, "matrix.state.json")
    assert problem(error)[0] == Location("matrix.state.json", 5)


@pytest.mark.parametrize("text", ["[]", '{"variants": []}', '{"other": {}}', "null"])
def test_a_state_without_a_variants_mapping_is_refused(text):
    with pytest.raises(GenMatrixError) as error:
        state.parse(text, "matrix.state.json")
    assert problem(error) == (Location("matrix.state.json"), "has no 'variants' mapping",
                              RESTORE + "; deleting it restarts every revision at 0")


@pytest.mark.parametrize("entry", [
    "x",
    {"metadata": "m", "revision": 0},
    {"build": "b", "revision": 0},
    {"build": 1, "metadata": "m", "revision": 0},
    {"build": "b", "metadata": None, "revision": 0},
])
def test_an_entry_without_its_hashes_is_refused_at_its_line(entry):
    text = state_text({"ok": {"build": "b", "metadata": "m", "revision": 0}, "bad": entry})
    with pytest.raises(GenMatrixError) as error:
        state.parse(text, "matrix.state.json")
    where, message, _ = problem(error)
    line = next(n for n, t in enumerate(text.splitlines(), 1) if t.startswith('    "bad": '))
    assert where == Location("matrix.state.json", line)
    assert message == "the entry for 'bad' lacks its build or metadata hash"


@pytest.mark.parametrize("revision, shown", [
    (-1, "-1"), (True, "true"), (1.0, "1.0"), ("1", '"1"'), (None, "null"),
    (state.MAX_REVISION, str(state.MAX_REVISION)), (10**50, "of more than 40 digits"),
    (-10**38, str(-10**38)), (10**39, str(10**39)), (10**40, "of more than 40 digits"),
])
def test_a_revision_nix_cannot_hold_is_refused(revision, shown):
    text = state_text({"v": {"build": "b", "metadata": "m", "revision": revision}})
    with pytest.raises(GenMatrixError) as error:
        state.parse(text, "matrix.state.json")
    where, message, _ = problem(error)
    assert where == Location("matrix.state.json", 4)
    assert message == (f"the entry for 'v' has revision {shown}: not a whole number from 0 to "
                       f"{state.MAX_REVISION - 1}")


def test_a_wrapper_identity_that_is_not_text_is_refused():
    text = state_text({"v": {"build": "b", "metadata": "m", "wrapper": 3, "revision": 0}})
    with pytest.raises(GenMatrixError) as error:
        state.parse(text, "matrix.state.json")
    assert problem(error)[:2] == (Location("matrix.state.json", 4),
                                  "the entry for 'v' has a wrapper identity that is not text")


# --- the record of written files ------------------------------------------------------------

@pytest.mark.parametrize("path, what", [
    ("/etc/passwd", "not a path inside the repository"),
    ("../x/.flox/pkgs/a.nix", "not a path inside the repository"),
    (".flox/pkgs/../../matrix.yaml", "not a path inside the repository"),
    ("matrix.yaml", "not a file gen-matrix writes"),
    (".git/config", "not a file gen-matrix writes"),
    ("README.md", "not a file gen-matrix writes"),
    (".flox/pkgs/a.nix.orig", "not a file gen-matrix writes"),
    (".flox/pkgs/.a.nix", "not a file gen-matrix writes"),
    (".flox/pkgs/sub/a.nix", "not a file gen-matrix writes"),
    ("x/nix/pins.nix", "not a file gen-matrix writes"),
    (".flox/pkgs/" + "a" * 90 + ".nix.orig", "not a file gen-matrix writes"),
    ("nix/pinsXnix", "not a file gen-matrix writes"),
])
def test_a_record_naming_another_file_is_refused_at_its_line(path, what):
    text = json.dumps({"variants": {}, "files": {"nix/pins.nix": DIGEST, path: DIGEST}}, indent=2)
    with pytest.raises(GenMatrixError) as error:
        state.State.parse(text, "matrix.state.json")
    where, message, hint = problem(error)
    assert where == Location("matrix.state.json", 5, 5)
    assert message == f"the 'files' record holds {json.dumps(path)}, which is {what}"
    assert hint == RESTORE


def test_a_path_written_without_escapes_is_located_at_the_file():
    """json.dumps escapes é: a record that writes it raw is not found by its text, and the
    error names the file without a line rather than a wrong one."""
    text = json.dumps({"variants": {}, "files": {"\n\nnix/é.nix": DIGEST}}, ensure_ascii=False)
    with pytest.raises(GenMatrixError) as error:
        state.State.parse(text, "matrix.state.json")
    assert problem(error)[:2] == (Location("matrix.state.json"),
                                  'the \'files\' record holds "\\n\\nnix/\\u00e9.nix", which is not a file gen-matrix writes')


def test_a_bad_record_read_from_a_repository_names_the_state_file(tmp_path):
    (tmp_path / "matrix.state.json").write_text(json.dumps({"variants": {}, "files": {"matrix.yaml": DIGEST}}))
    with pytest.raises(GenMatrixError) as error:
        state.read(tmp_path)
    assert problem(error)[:2] == (Location("matrix.state.json", 1, 28),
                                  "the 'files' record holds \"matrix.yaml\", which is not a file gen-matrix writes")


@pytest.mark.parametrize("files", [[".flox/pkgs/a.nix"], {"nix/pins.nix": 3}, {"nix/pins.nix": None}, "x"])
def test_a_record_that_is_not_paths_to_digests_is_refused(files):
    with pytest.raises(GenMatrixError) as error:
        state.State.parse(json.dumps({"variants": {}, "files": files}), "matrix.state.json")
    assert problem(error) == (Location("matrix.state.json"), "the 'files' record is not a mapping of paths to digests",
                              RESTORE)


def test_a_recorded_file_without_its_digest_is_refused_at_its_line():
    text = json.dumps({"variants": {}, "files": {"nix/pins.nix": DIGEST, ".flox/pkgs/a.nix": "abc"}}, indent=2)
    with pytest.raises(GenMatrixError) as error:
        state.State.parse(text, "matrix.state.json")
    assert problem(error) == (Location("matrix.state.json", 5, 5),
                              "the 'files' record holds \".flox/pkgs/a.nix\", which is recorded without a SHA-256 digest",
                              RESTORE)


@pytest.mark.parametrize("length, shown", [(120, "x" * 120), (121, "x" * 120 + "...")])
def test_a_long_path_in_the_record_is_shown_cut_at_120_characters(length, shown):
    text = json.dumps({"variants": {}, "files": {"x" * length: DIGEST}})
    with pytest.raises(GenMatrixError) as error:
        state.State.parse(text, "matrix.state.json")
    assert problem(error)[1] == f"the 'files' record holds \"{shown}\", which is not a file gen-matrix writes"


def test_a_state_file_that_is_not_json_is_named_when_read_from_a_repository(tmp_path):
    (tmp_path / "matrix.state.json").write_text("{\n  nope")
    with pytest.raises(GenMatrixError) as error:
        state.read(tmp_path)
    assert problem(error)[0] == Location("matrix.state.json", 2, 3)


def test_brackets_inside_strings_do_not_count_as_nesting():
    text = '{"": "' + "[" * 70 + '", "variants":\n' + "[" * 5000 + "]" * 5000 + "}"
    with pytest.raises(GenMatrixError) as error:
        state.parse(text, "matrix.state.json")
    assert problem(error)[0] == Location("matrix.state.json", 2, state.MAX_DEPTH)


def test_a_state_file_that_is_not_utf8_says_how_to_restore_it(tmp_path):
    (tmp_path / "matrix.state.json").write_bytes(b'{"variants": {"\xff": 1}}\n')
    with pytest.raises(GenMatrixError) as error:
        state.read(tmp_path)
    where, message, hint = problem(error)
    assert where.path == "matrix.state.json" and "UTF-8" in message and hint == RESTORE


def test_an_entry_error_read_with_the_record_is_located_at_the_entry():
    text = json.dumps({"variants": {"v": {"build": "b", "metadata": "m", "wrapper": 3, "revision": 0}}}, indent=2)
    with pytest.raises(GenMatrixError) as error:
        state.State.parse(text, "matrix.state.json")
    assert problem(error)[:2] == (Location("matrix.state.json", 3),
                                  "the entry for 'v' has a wrapper identity that is not text")


def test_each_entry_has_lines_of_its_own_so_a_change_to_one_is_a_change_to_its_lines():
    entries = {name: state.Entry("b" * 64, "m" * 64, "w" * 64, 1) for name in ("a", "b", "c")}
    before = state.dump(entries, "header", {}).splitlines()
    after = state.dump(dict(entries, b=state.Entry("b" * 64, "m" * 64, "w" * 64, 2)), "header", {}).splitlines()
    assert len(before) == len(after) > 15
    assert [(old, new) for old, new in zip(before, after) if old != new] == [('      "revision": 1', '      "revision": 2')]
