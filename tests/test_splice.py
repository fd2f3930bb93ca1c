"""One splicer for every block gen-matrix marks in a file of the user's: the README's tables,
the .gitattributes block and the Flox manifest hook's block. A marker alone, out of order,
twice or edited is the same located error in each, and every line outside a block is kept."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from generator.errors import GenMatrixError, Location
from generator.outputs import docs, gitattributes, manifest, splice

from conftest import REPO, expansion_of

EXPANSION = expansion_of(REPO)


def readme(text: str) -> str:
    return docs.splice(text, "README.md", {"one": "new\n"})


def attributes(text: str) -> str:
    return gitattributes.update(text)


def hook(text: str) -> str:
    """`text` as the hook of a manifest; the hook of the result."""
    import tomlkit

    quoted = "'''\n" + text + "'''"
    return tomlkit.parse(manifest.update(f"version = 1\n[hook]\non-activate = {quoted}\n", EXPANSION))["hook"][
        "on-activate"].value


# (update, begin, end, name, line of the hook's first line in its file)
KINDS = {
    "README": (readme, "<!-- gen-matrix:begin one -->", "<!-- gen-matrix:end one -->", "one", 0),
    ".gitattributes": (attributes, gitattributes.BEGIN, gitattributes.END, "line endings", 0),
    "manifest hook": (hook, manifest.BEGIN, manifest.END, "builds", 3),
}
CASES = [
    (["mine", "{begin}", "old"], 2, "block '{name}' has no end marker"),
    (["mine", "{end}", "{begin}", "{end}"], 2, "end marker '{name}' without a begin marker"),
    (["{begin}", "{begin}", "{end}"], 2, "begin marker '{name}' inside block '{name}' opened at line {first}"),
    (["{begin}", "{end}", "mine", "{begin}", "{end}"], 4, "a second block '{name}' (the first begins at line {first})"),
]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("lines, line, message", CASES)
def test_a_marker_alone_out_of_order_or_twice_is_the_same_located_error_everywhere(kind, lines, line, message):
    update, begin, end, name, offset = KINDS[kind]
    text = "".join(f"{entry}\n" for entry in lines).format(begin=begin, end=end)
    with pytest.raises(GenMatrixError) as error:
        update(text)
    expected = message.format(name=name, first=1 + offset)
    assert (error.value.problems[0].where.line, error.value.problems[0].message) == (line + offset, expected)


@pytest.mark.parametrize("kind", KINDS)
def test_an_edited_marker_is_a_located_error_everywhere(kind):
    update, begin, end, name, offset = KINDS[kind]
    edited = end.replace("end", "end:", 1) if "<<<" not in end else end + ": end"
    with pytest.raises(GenMatrixError) as error:
        update(f"mine\n{begin}\nold\n{edited}\n")
    assert any(p.where.line == 4 + offset and p.message == "malformed gen-matrix marker" for p in error.value.problems)


@pytest.mark.parametrize("kind", KINDS)
def test_only_the_lines_between_the_markers_change_and_a_second_run_changes_nothing(kind):
    update, begin, end, name, offset = KINDS[kind]
    text = f"mine  \t\n{begin}\nstale\n{end}\nmine too\n"
    once = update(text)
    assert once.startswith(f"mine  \t\n{begin}\n") and once.endswith(f"{end}\nmine too\n")
    assert "stale" not in once and update(once) == once


@pytest.mark.parametrize("kind", [".gitattributes", "manifest hook"])
def test_a_file_without_the_block_gets_it_at_the_end(kind):
    update, begin, end, name, offset = KINDS[kind]
    done = update("mine")
    assert done.startswith(f"mine\n{begin}\n") and done.endswith(f"{end}\n")


def test_markers_in_markdown_code_are_examples_elsewhere_they_are_markers():
    fenced = "```\n<!-- gen-matrix:begin one -->\n```\n"
    assert readme(fenced) == fenced
    with pytest.raises(GenMatrixError):
        splice.splice(fenced, docs.MARKERS, {"one": ""}, lambda n: Location("x", n))


MARKERS = {"README": (docs.MARKERS, "one"), ".gitattributes": (gitattributes.MARKERS, "line endings"),
           "manifest hook": (manifest.MARKERS, "builds")}
# A user's line: any text without a line break that does not start like a marker of any kind.
USER_LINE = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"), max_size=30).filter(
    lambda line: not any(m.suspect.match(line) for m, _ in MARKERS.values())).map(lambda line: line + "\n")


@pytest.mark.parametrize("kind", MARKERS)
@settings(max_examples=60, deadline=None)
@given(before=st.lists(USER_LINE, max_size=5), inside=st.lists(USER_LINE, max_size=5),
       after=st.lists(USER_LINE, max_size=5))
def test_every_line_outside_the_block_is_kept_and_the_block_replaced(kind, before, inside, after):
    markers, name = MARKERS[kind]
    begin, end = markers.begin.format(name=name) + "\n", markers.end.format(name=name) + "\n"
    text = "".join(before) + begin + "".join(inside) + end + "".join(after)
    spliced, found = splice.splice(text, markers, {name: "new\n"}, lambda n: Location("f", n))
    assert spliced == "".join(before) + begin + "new\n" + end + "".join(after)
    assert found == {name}
