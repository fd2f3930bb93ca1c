"""detect and explain fit a terminal: lines wrapped at 100 columns, or COLUMNS, with a command
in backticks kept whole so that it can be copied."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from generator.cli import main
from generator.commands.terminal import WIDTH, wrap

ASKED = [
    ("explain", "--gpu", "RTX 4090"),
    ("explain", "--gpu", "K80"),
    ("explain", "--sm", "sm_120", "--cuda", "12.4"),
    ("detect", "--gpu", "RTX 4090", "--uname", "Windows AMD64", "--cpu-flags", "avx avx2 fma f16c"),
    ("detect", "--gpu", "Tesla K40c", "--uname", "Linux x86_64", "--cpu-flags", "avx avx2 fma f16c"),
]


def _run(args, folder, columns: str | None):
    """`args` run in an empty `folder` (the shipped example stands in), COLUMNS set or not."""
    import os

    here = os.getcwd()
    os.chdir(folder)
    try:
        return CliRunner(env={"COLUMNS": columns}).invoke(main, list(args), catch_exceptions=False)
    finally:
        os.chdir(here)


@pytest.mark.parametrize("args", ASKED, ids=[" ".join(a) for a in ASKED])
def test_every_line_fits_100_columns_and_each_quoted_command_stays_whole(args, tmp_path):
    wide = _run(args, tmp_path, "1000").stdout
    narrow = _run(args, tmp_path, None).stdout
    assert max(len(line) for line in wide.splitlines()) > WIDTH  # there is something to wrap
    assert max(len(line) for line in narrow.splitlines()) <= WIDTH
    # wrapped, it says the same words, and every command in backticks is on one line
    assert narrow.split() == wide.split()
    assert re.findall(r"`[^`]*`", wide) == re.findall(r"`[^`\n]*`", narrow)


@pytest.mark.parametrize("args", [a for a in ASKED if a[0] == "detect"], ids=lambda a: " ".join(a))
@pytest.mark.parametrize("columns", ["40", "60", "80"])
def test_detect_prints_its_answer_whole_at_any_width(args, columns, tmp_path):
    """The first lines of detect are the commands to run: narrowed, each is still one line,
    the same as at any width, and the rest still fits."""
    wide = _run(args, tmp_path, "1000").stdout.splitlines()
    narrow = _run(args, tmp_path, columns).stdout.splitlines()
    commands = [line for line in wide if not line.startswith(" ")]
    assert commands and len(commands[0]) > int(columns) - 20
    assert narrow[:len(commands)] == commands
    assert all(len(line) <= int(columns) for line in narrow[len(commands):] if "`" not in line)


def test_columns_narrows_the_lines(tmp_path):
    out = _run(("explain", "--gpu", "RTX 4090"), tmp_path, "60").stdout
    too_long = [line for line in out.splitlines() if len(line) > 60]
    # only a line that is one command in backticks, or a table row, may be longer
    assert all("`" in line or line.startswith("  ") for line in too_long), too_long
    assert len(too_long) < len(out.splitlines()) / 2


def test_wrap_indents_continuations_and_keeps_short_lines():
    text = "short line\n  " + " ".join(["word"] * 40) + " `gen-matrix env --sm sm35 --cuda 11.8`"
    lines = wrap(text, 50).split("\n")
    assert lines[0] == "short line"
    assert all(len(line) <= 50 for line in lines)
    assert lines[1].startswith("  word") and all(line.startswith("    ") for line in lines[2:])
    assert lines[-1].strip().endswith("`gen-matrix env --sm sm35 --cuda 11.8`")
