"""The .gitattributes block directly: its lines, where it goes, what it keeps of the user's,
and each marker error located at its line."""

from __future__ import annotations

import pytest

from generator.errors import GenMatrixError, Location
from generator.outputs import gitattributes
from generator.outputs.gitattributes import BEGIN, END

BLOCK = (f"{BEGIN}\n"
         "/.flox/pkgs/*.nix text eol=lf\n"
         "/nix/lib/*.nix text eol=lf\n"
         "/nix/fixes/*.nix text eol=lf\n"
         "/nix/pins.nix text eol=lf\n"
         "/release.nix text eol=lf\n"
         "/matrix.state.json text eol=lf\n"
         "/BUILD_MATRIX.md text eol=lf\n"
         "/.github/workflows/flox-variants.yml text eol=lf\n"
         "/.github/workflows/flox-variants-build.yml text eol=lf\n"
         "/flake.nix text eol=lf\n"
         f"{END}\n")


def problems(text: str) -> list[tuple[Location, str, str]]:
    with pytest.raises(GenMatrixError) as error:
        gitattributes.update(text)
    return [(p.where, p.message, p.hint) for p in error.value.problems]


def test_the_block_keeps_every_generated_file_lf():
    assert gitattributes.block() == BLOCK


@pytest.mark.parametrize("text", [None, ""])
def test_a_missing_or_empty_file_gets_the_block_alone(text):
    assert gitattributes.update(text) == BLOCK


@pytest.mark.parametrize("text, expected", [
    ("*.png binary\n", "*.png binary\n" + BLOCK),
    ("*.png binary", "*.png binary\n" + BLOCK),  # no newline at the end: one is added
    ("\n", "\n" + BLOCK),
])
def test_the_block_is_appended_after_the_users_lines(text, expected):
    assert gitattributes.update(text) == expected


def test_the_block_is_replaced_where_it_stands_and_the_rest_kept():
    text = f"* text=auto\n{BEGIN}\nold line\n{END}\n*.png binary\n"
    assert gitattributes.update(text) == "* text=auto\n" + BLOCK + "*.png binary\n"


def test_every_line_around_the_block_is_kept():
    text = f"a\nb\n{BEGIN}\nold\n{END}\nc\nd\n"
    assert gitattributes.update(text) == "a\nb\n" + BLOCK + "c\nd\n"


def test_an_updated_file_is_updated_to_itself():
    once = gitattributes.update("* text=auto\n")
    assert gitattributes.update(once) == once


HINT = f"keep one '{BEGIN}' line, then one '{END}' line below it, around gen-matrix's lines"




def test_a_marker_problem_names_the_gitattributes_line():
    with pytest.raises(GenMatrixError) as error:
        gitattributes.update(f"*.png binary\n{gitattributes.BEGIN}\n/x text\n")
    assert str(error.value) == (".gitattributes:2: block 'line endings' has no end marker\n"
                                f"  hint: add {gitattributes.END} on a line of its own after the block")
