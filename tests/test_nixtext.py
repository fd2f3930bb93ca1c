"""nixtext.significant: what decides whether an edit of the Nix library rebuilds torch.

Two sources with the same significant text must be the same to Nix (else an edit that
changes a build would be taken for a comment, and publish a stale build), and a comment or a
change of layout must leave it as it is (else a reformat costs hours of builds). The
escapes of Nix strings are where a scanner goes wrong; the property test checks the first
half against the real nix-instantiate.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.pipeline.nixtext import significant

from conftest import needs_nix, nix_eval


@pytest.mark.parametrize("source, expected", [
    ("a  =\n\t1; # a comment\n", "a = 1;"),
    ("/* first */ a /* between */ b # last", "a b"),
    ("{ x = 1; }  \n\n", "{ x = 1; }"),
])
def test_comments_and_layout_go(source, expected):
    assert significant(source) == expected


@pytest.mark.parametrize("source", ["a b", "a/* c */b", "a#c\nb", "a\n\nb", "a\tb"])
def test_two_tokens_are_never_run_together(source):
    """`a b` is two names, `ab` one: whatever stood between them, a space stays."""
    assert significant(source) == "a b"
    assert significant("ab") == "ab"


@pytest.mark.parametrize("source", [
    '"a\\" # not a comment"',  # an escaped quote does not end the string
    '"a\\\\" + "  # b  "',  # an escaped backslash does, and the next string keeps its spaces
    '"\\${ a  /* not a comment */ b }"',  # an escaped ${ is text, not code
    '"$${ a  # not a comment\n b }"',  # $$ is two dollars, then text: no ${ in it
])
def test_a_double_quoted_string_is_kept_as_written_with_its_escapes(source):
    assert significant(source) == source


@pytest.mark.parametrize("source", [
    "''\n  ''${ a  # not a comment\n }\n''",  # ''$ is a dollar: no ${ follows it
    "''\n  ''\\n  # not a comment\n''",  # ''\ escapes the character after it
    "''a''\\'' # not a comment\n  b''",  # ... a quote too: '' after ''\' closes nothing
    "''a'''  # not a comment\n''",  # ''' is two quotes, not the end
    "''$${ a  # not a comment\n }''",  # $$ is two dollars
])
def test_an_indented_string_is_kept_as_written_with_its_escapes(source):
    assert significant(source) == source


def test_an_empty_block_comment_ends_where_it_closes():
    """`/**/` is a whole comment: the code after it stays."""
    assert significant("a /**/ b") == "a b"
    assert significant("a/**/b /***/ c") == "a b c"


@pytest.mark.parametrize("source, expected", [
    ("a /* never closed\n b = 1;", "a"),  # the rest is inside the comment
    ('a "never closed \\', 'a "never closed \\'),
    ("a ''never closed ${ b", "a ''never closed ${ b"),
    ("a ''never closed ''", "a ''never closed ''"),
    ("a # to the end", "a"),
])
def test_text_cut_off_part_way_reads_to_its_end_without_error(source, expected):
    """A fix file of the user's may be cut off part way: its significant text is what there is."""
    assert significant(source) == expected


def test_an_interpolation_keeps_its_code_as_written_when_it_has_no_layout():
    assert significant('"${a}"') == '"${a}"'
    assert significant("''${a}''") == "''${a}''"


@pytest.mark.parametrize("quote", ['"', "''"])
def test_an_interpolation_ends_at_its_own_brace_past_nested_sets(quote):
    """Braces of sets inside ${...} nest: the string goes on after the interpolation's own `}`."""
    source = quote + "${ { b = { c = 1; };  }.b.c  }  # not a comment" + quote
    assert significant(source) == quote + "${ { b = { c = 1; }; }.b.c }  # not a comment" + quote


def test_interpolated_code_loses_its_comments_and_layout():
    assert significant('"x${ a  /* c */ +\n b }y"') == '"x${ a + b }y"'
    assert significant("''x${ { a = 1; }.a  # c\n }y''") == "''x${ { a = 1; }.a }y''"


def test_a_change_inside_a_string_is_significant():
    assert significant('"a  b"') != significant('"a b"')
    assert significant("''\n  a\n''") != significant("''\n    a\n''")
    assert significant('"# x"') != significant('""')


# ---- against the real Nix ---------------------------------------------------------------

# Pieces of string text where escapes meet: each reads differently in a double-quoted and an
# indented string, and some begin an interpolation.
_PIECES = ["a", " ", "  ", "\n", "\t", "#", "/*", "*/", "'", "''", "'''", "''$", "''\\", "''\\'", "''\\n",
           "$", "$$", "\\", "\\\\", '\\"', "\\$", "\\n", "{", "}", "${x}", "$${x}", "${ x  /* c */ }",
           "${ \"  i  \" }", "${ ''  j  '' }", "$${ x  /* c */ }", "''\\''  # c\n", "''${ y  # c\n}"]
_GAPS = [" ", "\n", "  # a comment\n", " /* a comment */ ", "\n\n\t"]


@st.composite
def _expressions(draw):
    """A Nix list of strings, double-quoted and indented, with comments and layout between."""
    items = []
    for _ in range(draw(st.integers(1, 6))):
        text = "".join(draw(st.lists(st.sampled_from(_PIECES), max_size=8)))
        items.append(f"''{text}''" if draw(st.booleans()) else f'"{text}"')
    gaps = draw(st.lists(st.sampled_from(_GAPS), min_size=len(items) + 1, max_size=len(items) + 1))
    return "let x = \"X\"; in [" + "".join(gap + item for gap, item in zip(gaps, items)) + gaps[-1] + "]"


def _value(source: str):
    try:
        return nix_eval(source)
    except Exception as error:  # noqa: BLE001 - the source itself may not parse: say so
        return ("error", type(error).__name__)


@needs_nix
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_expressions())
def test_the_significant_text_means_to_nix_what_the_source_means(source):
    """Equal significant texts are equal to Nix: significant(s) evaluates as s does."""
    original = _value(source)
    if isinstance(original, tuple):  # not a valid expression: nothing to compare
        return
    assert _value(significant(source)) == original, significant(source)
