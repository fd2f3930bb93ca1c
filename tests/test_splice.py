"""One splicer for every block gen-matrix marks in a file of the user's: the README's tables,
the .gitattributes block and the Flox manifest hook's block. A marker alone, out of order,
twice or edited is the same located error in each, and every line outside a block is kept."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from generator.errors import GenMatrixError, Location
from generator import pin
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
    return tomlkit.parse(manifest.update(f"version = 1\n[hook]\non-activate = {quoted}\n", EXPANSION, pin.of(REPO, None)))["hook"][
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


README_BLOCKS = {"one": "new\n", "two": "x\n"}


def problems(text: str, markers=docs.MARKERS, blocks=README_BLOCKS) -> str:
    """What the user reads when `text` cannot be spliced."""
    with pytest.raises(GenMatrixError) as error:
        splice.splice(text, markers, blocks, lambda number: Location("F", number))
    return str(error.value)


@pytest.mark.parametrize("text, shown", [
    ("<!-- gen-matrix:begin one->\n",
     "F:1: malformed gen-matrix marker\n  hint: write it on a line of its own, as gen-matrix does: "
     "<!-- gen-matrix:begin NAME --> or <!-- gen-matrix:end NAME -->"),
    ("<!-- gen-matrix:begin three -->\n<!-- gen-matrix:end three -->\n",
     "F:1: unknown gen-matrix block 'three'\n  hint: blocks gen-matrix fills: one, two"),
    ("<!-- gen-matrix:begin one -->\n<!-- gen-matrix:begin two -->\n<!-- gen-matrix:end one -->\n",
     "F:2: begin marker 'two' inside block 'one' opened at line 1\n  hint: close it first with <!-- gen-matrix:end one -->"),
    ("<!-- gen-matrix:begin one -->\n<!-- gen-matrix:end two -->\n",
     "F:2: end marker 'two' closes block 'one' opened at line 1\n  hint: write <!-- gen-matrix:end one -->"),
    ("mine\n<!-- gen-matrix:end two -->\n",
     "F:2: end marker 'two' without a begin marker\n  hint: add <!-- gen-matrix:begin two --> above it, or remove it"),
    ("<!-- gen-matrix:begin one -->\n<!-- gen-matrix:end one -->\n<!-- gen-matrix:begin one -->\n<!-- gen-matrix:end one -->\n",
     "F:3: a second block 'one' (the first begins at line 1)\n  hint: remove one of the two blocks"),
    ("mine\n<!-- gen-matrix:begin two -->\nold\n",
     "F:2: block 'two' has no end marker\n  hint: add <!-- gen-matrix:end two --> on a line of its own after the block"),
    # every problem at once, not only the first
    ("<!-- gen-matrix:end one -->\n<!-- gen-matrix:begin three -->\n<!-- gen-matrix:end three -->\n",
     "F:1: end marker 'one' without a begin marker\n  hint: add <!-- gen-matrix:begin one --> above it, or remove it\n"
     "F:2: unknown gen-matrix block 'three'\n  hint: blocks gen-matrix fills: one, two"),
])
def test_each_marker_problem_says_what_to_write(text, shown):
    assert problems(text) == shown


def test_a_malformed_marker_of_a_file_with_one_block_is_shown_as_it_should_be():
    assert problems("# gen-matrix:begin  builds\n", manifest.MARKERS, {"builds": ""}) == (
        "F:1: malformed gen-matrix marker\n"
        "  hint: write it as gen-matrix does: # gen-matrix:begin builds or # gen-matrix:end builds")


@pytest.mark.parametrize("text, old", [
    # the line after a fence is no longer code
    ("```\nexample\n```\n<!-- gen-matrix:begin one -->\nold\n<!-- gen-matrix:end one -->\n", "old\n"),
    # Windows line endings: the closing fence still closes
    ("```\r\n<!-- gen-matrix:begin one -->\r\n```\r\n<!-- gen-matrix:begin one -->\r\nold\r\n<!-- gen-matrix:end one -->\r\n",
     "old\r\n"),
    # an old Mac line ending (a lone CR) inside a line moves no line of the fence
    ("mine\rstill mine\n```\n<!-- gen-matrix:begin one -->\n```\n<!-- gen-matrix:begin one -->\nold\n"
     "<!-- gen-matrix:end one -->\n", "old\n"),
])
def test_a_block_after_a_fenced_example_is_filled_and_the_example_kept(text, old):
    assert readme(text) == text.replace(old, "new\n")
