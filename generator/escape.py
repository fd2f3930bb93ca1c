"""One escaping function for each language a generated file is written in.

Every text that reaches a generated file from a matrix, a knowledge row, an option or a file
passes the function of its file's language, which templates call as a Jinja filter of the same
name (`{{ value | bash }}`). Each says what it returns and where that may stand; text that the
language cannot hold there is refused with ValueError (the loader and the schema refuse such
text earlier, where its location is known: see load.unwritable and the schema's patterns).

Nix's function is `pipeline.nixvalue.nix`, which writes any value, not only text; it is
registered here beside the others.
"""

from __future__ import annotations

import functools
import re

import yaml as yaml_

from .pipeline.nixvalue import nix

__all__ = ["FILTERS", "SHELLS", "argument", "bash", "cmd", "markdown", "nix", "powershell", "yaml"]

# The shells gen-matrix writes for (`gen-matrix env --shell`, `argument`), each with its function
# here: the command line lists them whatever command runs, and commands/buildenv.py, with what it
# imports, is for env, explain and detect alone.
SHELLS = ("bash", "cmd", "powershell")


def bash(text) -> str:
    """Text that bash reads as exactly `text` inside double quotes: "...{{ x | bash }}...".
    There only \\, $, ` and " are special, and a backslash makes each of them text (history
    expansion's ! is off in a script). A NUL no bash string can hold."""
    text = str(text)
    if "\0" in text:
        raise ValueError(f"bash cannot hold a NUL character: {text!r}")
    return _BASH_SPECIAL.sub(r"\\\1", text)


_BASH_SPECIAL = re.compile(r'([\\$`"])')


# Characters cmd's parser acts on outside double quotes; a ^ before one makes it text.
_CMD_SPECIAL = '&|<>()"'
_CMD_UNWRITABLE = re.compile("[\0-\x08\x0a-\x1f\x7f]")


def cmd(text, *, beside_bang: bool = False) -> str:
    """Text that cmd reads as exactly `text`, outside double quotes, on a line of a batch file
    run with delayed expansion on (`setlocal EnableDelayedExpansion`), in a command whose
    arguments hold no other `!`:
    a `set NAME=...` value, an `echo` argument, a program's argument, a `rem` comment.
    Text that is one of several pieces of a command's arguments is escaped joined with the
    others, as one text: `{{ (name ~ "=" ~ value) | cmd }}`, so that a `!` in one piece counts
    for the carets of all. With `beside_bang=True`, the text stands beside a `!` of cmd's own
    (`echo X=!X!: {{ why | cmd(beside_bang=True) }}`): delayed expansion reads that command
    whatever the text holds, and it is written as for text with a `!`.

    cmd reads such a line twice. First every % starts a variable (%~ aborts the whole script),
    so % is doubled; then ^ makes the character after it text, so each of & | < > ( ) " and ^
    gets one. Where a command's argument holds a !, delayed expansion reads it once more and
    takes one more ^ before each character: there ! is written ^^! and ^ is written ^^^^.
    A line break ends the line, and no cmd line can hold it; nor a NUL or another control
    character, which cmd reads as it pleases (the loader refuses them in matrix text)."""
    text = str(text)
    if _CMD_UNWRITABLE.search(text):
        raise ValueError(f"a cmd line cannot hold a line break or a control character: {text!r}")
    caret = "^^^^" if beside_bang or "!" in text else "^^"
    escaped = []
    for char in text:
        if char == "%":
            escaped.append("%%")
        elif char == "^":
            escaped.append(caret)
        elif char == "!":
            escaped.append("^^!")
        elif char in _CMD_SPECIAL:
            escaped.append("^" + char)
        else:
            escaped.append(char)
    return "".join(escaped)


def powershell(text) -> str:
    """Text that PowerShell reads as exactly `text` inside single quotes: '...{{ x | powershell }}...'.
    There only ' is special, and doubled it is text; PowerShell reads the typographic single
    quotes (U+2018 to U+201B) as ' too, so they are doubled as well. No $ or ` is read there.
    Where a double-quoted string needs it, concatenate: ("$a " + '{{ x | powershell }}')."""
    text = str(text)
    if "\0" in text:
        raise ValueError(f"a PowerShell script cannot hold a NUL character: {text!r}")
    return re.sub(r"(['\u2018\u2019\u201a\u201b])", r"\1\1", text)


# What every shell reads as one plain word: no quotes needed anywhere (PowerShell reads a
# leading - as a parameter name, a leading @ as splatting and a comma as an array).
_PLAIN_WORD = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/:=+-]*$")
# What a double-quoted argument typed at a cmd prompt or in PowerShell reads as text: cmd ends
# it at ", and expands %NAME%; PowerShell expands $ and ` in it.
_NOT_IN_DOUBLE_QUOTES = re.compile('["%$`\u201c\u201d\u201e]')


def argument(text, shell: str) -> str:
    """`text` as one argument of a command a person types in `shell` (bash, cmd, powershell),
    for hints such as `gen-matrix env --gpu "Tesla K40c"`: plain words as they are, the rest
    in the quotes that shell reads. cmd has no way to quote a " or a %: ValueError there."""
    text = str(text)
    if _CMD_UNWRITABLE.search(text):
        raise ValueError(f"a command line cannot hold a line break or a control character: {text!r}")
    if _PLAIN_WORD.match(text):
        return text
    if shell == "bash":
        return "'" + text.replace("'", "'\\''") + "'"
    if not _NOT_IN_DOUBLE_QUOTES.search(text):
        return f'"{text}"'
    if shell == "powershell":
        return f"'{powershell(text)}'"
    raise ValueError(f"a cmd prompt cannot quote this argument: {text!r}")


def yaml(text) -> str:
    """A YAML double-quoted scalar that reads back as exactly `text`: what YAML must escape
    (quotes, backslashes, line breaks, U+0085, U+2028, non-printable characters) is escaped, so
    that the scalar stays on one line wherever it stands."""
    dumped = yaml_.dump(str(text), Dumper=yaml_.SafeDumper, default_style='"', allow_unicode=True,
                        width=float("inf"))
    return dumped.rstrip("\n")


# What Markdown (CommonMark and GitHub's extensions: tables, strikethrough, math) reads as
# markup inside a line: a backslash before any ASCII punctuation makes it text.
_MARKDOWN_INLINE = re.compile(r"([\\`*\[\]<>&|!~$])")
# _ opens or closes emphasis except between two letters or digits (snake_case is text). The
# pattern starts with the _ itself, which the regular expression engine then finds at once,
# rather than trying each character of a line: (?<![^\W_]_) after it asks what stands before it.
_MARKDOWN_UNDERSCORE = re.compile(r"_(?:(?<![^\W_]_)|(?![^\W_]))")


def markdown(text) -> str:
    """Markdown that renders as exactly `text` with its whitespace made single spaces, after
    other text on its line or in a table cell: no emphasis, link, image, HTML, entity, math,
    code span or table column comes out of it. (Not at a line's start, where `# ` or `- `
    would start a block; nor inside a `code span`, where a backslash is text: only checked
    names stand there.)"""
    return _markdown(str(text))


@functools.lru_cache(maxsize=4096)  # a document writes the same few names in many cells
def _markdown(text: str) -> str:
    if "\0" in text:
        raise ValueError(f"Markdown reads a NUL character as U+FFFD: {text!r}")
    line = " ".join(text.split())
    # Most text holds neither: sub() hands its replacement to Python code of the re module on
    # each call, which costs more than a search that finds nothing.
    if _MARKDOWN_INLINE.search(line):
        line = _MARKDOWN_INLINE.sub(r"\\\1", line)
    if "_" in line:
        line = _MARKDOWN_UNDERSCORE.sub(r"\\_", line)
    return line


FILTERS = {"bash": bash, "cmd": cmd, "powershell": powershell, "yaml": yaml, "markdown": markdown, "nix": nix}
