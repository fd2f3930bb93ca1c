"""Text from matrix.yaml reaches every generated file unchanged and can never break out of its
string: each language's function of escape.py (nixvalue.nix for Nix) on hostile text, read
back by the real thing where this machine has it (bash, nix-instantiate, Wine's cmd, PyYAML,
markdown-it) and by a tree-sitter grammar where it has not (PowerShell); and the attacks that
were found, each through the CLI."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st

from generator import escape
from generator.cli import main
from generator.pipeline.load import unwritable
from generator.pipeline.nixvalue import Verbatim, nix

# Unicode's bidirectional controls (load.BIDI), written out: a test of its own list.
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"

from conftest import FAKE_FOR_SYSTEM, markdown_cells, needs_nix, nix_eval
from test_env import (BASH, CUDNN_BUILDS, built_environment, cudnn_workaround_script, fake_checkout, needs_bash,
                      run_bash)

# Pieces that mean something to Nix, to a shell or to Python's str.format.
NASTY = ['"', "\\", "$", "${", "''", "''$", "''${", "''\\", "'''", "\\${", "$${", "${x}", "\n",
         "\t", "{", "}", "{}", "{isa}", "#", "/*", "*/", "`", "$(id)", ";",
         "\u2028", "\ufeff", "\u00e9", "\u4e2d", "\U0001f680", " ", ""]
# Every character but lone surrogates, control characters and bidirectional controls, which the
# loader refuses (see test_validation and below); a newline or a tab, and `${{`, the schema
# refuses (see test_input_bounds). nixvalue.nix writes them too
# (test_the_classic_breakouts_evaluate_back_to_themselves).
CHARACTERS = st.characters(exclude_categories=("Cs", "Cc"), exclude_characters=BIDI_CONTROLS)
ONE_LINE = [piece for piece in NASTY if piece not in ("\n", "\t")]
TEXTS = st.one_of(
    st.lists(st.one_of(st.sampled_from(ONE_LINE), CHARACTERS), max_size=12).map("".join),
    st.text(CHARACTERS, max_size=30),
).filter(lambda text: "${{" not in text)

SYSTEMS = {"gpu": "x86_64-linux", "cpu": "x86_64-linux", "darwin": "aarch64-darwin"}


def matrix_carrying(texts: list[str]) -> dict:
    """A matrix whose every variant carries some of `texts` into its recipe: as the family
    and GPUs of an SM, the CPUs of an ISA and the literal text of a description pattern.
    (The PyTorch version is no free text: the library checks it against the pin's torch.)"""
    literal = pattern_text(texts).replace("{", "{{").replace("}", "}}")  # a pattern's braces are fields
    return {
        "pytorch": {"version": "2.8.0"},
        "nixpkgs": {"rev": "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3"},
        "description": {"gpu": "{family}", "cpu": literal + "|{cpus}", "darwin": literal + "|{accelerator}"},
        "gpu": {"python": ["3.13"], "cuda": ["12.8"], "sm": [f"smt{i}" for i in range(len(texts))], "isa": ["avx2"]},
        "cpu": {"python": ["3.13"], "isa": [f"t{i}" for i in range(len(texts))]},
        "darwin": {"python": ["3.13"], "accelerator": ["mps"]},
        "knowledge": {
            "sm": {f"smt{i}": {"capability": "9.0", "family": text, "min_cuda": "11.8", "hosts": ["x86_64"],
                               "gpus": [text]} for i, text in enumerate(texts)},
            "isa": {f"t{i}": {"arch": "x86_64", "flags": ["-mavx2"], "cpuinfo": ["avx2"], "cpus": [text]}
                    for i, text in enumerate(texts)},
        },
    }


def pattern_text(texts: list[str]) -> str:
    """The literal text of the description patterns: a `{` after `$` doubled, as a pattern
    writes a literal brace, would be `${{`, which the schema refuses."""
    return texts[0].replace("${", "$ {")


def expected(texts: list[str]) -> dict[str, str]:
    literal = pattern_text(texts)
    descriptions = {"pytorch-python313-darwin-mps": f"{literal}|mps"}
    for i, text in enumerate(texts):
        descriptions[f"pytorch-python313-cuda12_8-smt{i}-avx2"] = text
        descriptions[f"pytorch-python313-cpu-t{i}"] = f"{literal}|{text}"
    return descriptions


def evaluate(root: Path, names) -> dict:
    """meta of every named recipe, all in one nix-instantiate call."""
    def system(name):
        return SYSTEMS["gpu" if "-cuda" in name else "darwin" if "-darwin-" in name else "cpu"]
    body = " ".join(f"{nix(name)} = (import {root / '.flox/pkgs' / (name + '.nix')} "
                    f"{{ genMatrixNixpkgs = {FAKE_FOR_SYSTEM[system(name)]}; }}).meta;" for name in names)
    return nix_eval("{ " + body + " }")


# Each example runs nix-instantiate: shrinking a failure would take minutes, and the failing
# example, with Nix's own error, already shows which text broke out.
@needs_nix
@settings(max_examples=40, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(TEXTS, min_size=20, max_size=60))
def test_any_text_in_the_matrix_evaluates_back_to_itself(texts):
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        document = matrix_carrying(texts)
        text = yaml.safe_dump(document, allow_unicode=True)
        if yaml.safe_load(text) != document:  # PyYAML writes U+0085 raw, and reads it back as a line break
            text = yaml.safe_dump(document, allow_unicode=False)
        (root / "matrix.yaml").write_text(text, encoding="utf-8")
        result = CliRunner().invoke(main, ["--root", str(root)], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        want = expected(texts)
        meta = evaluate(root, want)
        assert {name: m["description"] for name, m in meta.items()} == want
        for i, text in enumerate(texts):
            long_description = meta[f"pytorch-python313-cuda12_8-smt{i}-avx2"]["longDescription"]
            assert f"GPUs: {text} (NVIDIA {text}, compute capability 9.0, smt{i})." in long_description
            cpus = text or "x86_64"  # an ISA without CPU names is described by its architecture
            assert f"CPUs: {cpus}; needs the t{i} instruction set" in meta[f"pytorch-python313-cpu-t{i}"]["longDescription"]


@needs_nix
def test_the_classic_breakouts_evaluate_back_to_themselves():
    texts = ['"; builtins.abort "x', "${builtins.abort \"x\"}", "''${x}", "\\${x}", "a\\", "''\n'' + x", "a\tb\n"]
    assert nix_eval("[ " + " ".join(nix(t) for t in texts) + " ]") == texts


def test_nix_refuses_text_no_nix_string_can_hold():
    with pytest.raises(ValueError, match="NUL"):
        nix("a\0b")
    with pytest.raises(ValueError, match="surrogate"):
        nix("a\ud800b")
    with pytest.raises(ValueError, match="Nix integer"):
        nix(2**63)
    assert nix(2**63 - 1) == "9223372036854775807"
    with pytest.raises(ValueError, match="Nix integer"):
        nix(-(2**63))


def test_nix_writes_a_subclass_as_the_kind_it_is():
    """nix() looks a value up by its type; a value of a subclass (text or a mapping of another
    module's) is written as the kind it is, never refused nor quoted as another kind, and a
    value of no kind Nix has is refused."""
    class Text(str):
        pass

    class Name(Verbatim):
        pass

    class Attrs(dict):
        pass

    assert nix(Text('a"$b')) == nix('a"$b') == '"a\\"\\$b"'
    assert nix(Name("pkgs.hello")) == "pkgs.hello"
    assert nix(Attrs(b=(1, Text("x")), a=Attrs(c=None))) == '{ a = { c = null; }; b = [ 1 "x" ]; }'
    with pytest.raises(TypeError, match="no Nix literal for set"):
        nix({"a"})


@pytest.mark.parametrize("order", [1, -1])
def test_lists_python_finds_equal_are_each_written_as_they_are(order):
    """nix() keeps what it wrote of a tuple of plain strings, which recipes share: a list that
    equals one written before, of other kinds (True == 1, a name beside a string), is written
    as its own kind, in whichever order they come."""
    from generator.pipeline.load import FloatText

    lists = [("1",), (1,), (True,), ["1"], (FloatText("1", 1.0),), ("x", "y"), (Verbatim("x"), "y"), ("x", Verbatim("y")),
             ((1,),), ((True,),), (("1",),), ("x", "y")]
    written = ['[ "1" ]', "[ 1 ]", "[ true ]", '[ "1" ]', "[ 1.0 ]", '[ "x" "y" ]', '[ x "y" ]', '[ "x" y ]',
               "[ [ 1 ] ]", "[ [ true ] ]", '[ [ "1" ] ]', '[ "x" "y" ]']
    for value, text in list(zip(lists, written))[::order]:
        assert nix(value) == text, value


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from("_a_Z9é_ü-. _\t*\u0663"), max_size=12) | st.text())
def test_markdown_escapes_the_underscores_between_no_two_letters_or_digits(text):
    """The pattern that finds the underscores escape.markdown escapes starts with the _, and
    finds those the plain reading of the rule does: each with no letter or digit on one side."""
    import re

    assert escape._MARKDOWN_UNDERSCORE.sub(r"\\_", text) == re.sub(r"(?<![^\W_])_|_(?![^\W_])", r"\\_", text)
    for plain, escaped in [("snake_case é_ü 9_1", "snake_case é_ü 9_1"), ("_x x_ a__b _", r"\_x x\_ a\_\_b \_")]:
        assert escape.markdown(plain) == escaped


@needs_nix
def test_the_largest_integers_nix_reads_evaluate_back_to_themselves():
    assert nix_eval(nix([2**63 - 1, -(2**63 - 1)])) == [2**63 - 1, -(2**63 - 1)]


@needs_nix
def test_every_kind_of_value_evaluates_back_to_itself():
    """Attribute names Nix reads as syntax, or that are no plain name, are quoted; booleans,
    null, numbers, lists and sets are written as Nix's own."""
    value = {"plain": True, "no": False, "if": None, "a b": [1, -2, [], {}], "x-y'": {"in": "z", "9": ["$"]}, "": 0}
    assert nix_eval(nix(value)) == value


# ---- each language's function, on hostile text ----------------------------------------------

# Pieces that mean something to a shell, to cmd, to PowerShell, to YAML or to Markdown.
HOSTILE = ['"', "'", "`", "$", "$(touch pwned)", "`touch pwned`", "${x}", "\\", "%", "%~", "%~dp0", "%PATH%",
           "^", "!", "!PATH!", "&", "|", "<", ">", "(", ")", ";", "&& touch pwned", "| touch pwned", "*", "_", "[",
           "](x)", "<b>", "&amp;", "~~", "#", "\u2018", "\u2019", "\u201c", "\u201d", "$x$", " ", "\t", "\n", "\0",
           "\u2028", "\x85", "\u00e9", "\U0001f680"] + list(BIDI_CONTROLS)
HOSTILE_TEXTS = st.lists(st.one_of(st.sampled_from(HOSTILE), st.characters(exclude_categories=("Cs",))),
                         max_size=12).map("".join)


def without(*characters: str):
    return HOSTILE_TEXTS.map(lambda text: "".join(c for c in text if c not in characters))


@needs_bash
@settings(max_examples=150, deadline=None)
@given(without("\0"))
def test_bash_reads_its_text_back_and_runs_nothing(tmp_path_factory, text):
    folder = tmp_path_factory.mktemp("bash")
    out = subprocess.run([BASH, "--norc", "--noprofile", "-c", f'printf %s "{escape.bash(text)}"'], cwd=folder,
                         capture_output=True, check=True).stdout
    assert out.decode("utf-8", "surrogateescape") == text
    assert list(folder.iterdir()) == []


def test_what_no_script_line_can_hold_is_refused():
    for function in (escape.bash, escape.powershell, escape.cmd, escape.markdown):
        with pytest.raises(ValueError, match="NUL|control character"):
            function("a\0b")
    with pytest.raises(ValueError, match="line break"):
        escape.cmd("a\nb")
    with pytest.raises(ValueError, match="line break"):
        escape.cmd("a\rb")
    with pytest.raises(ValueError, match="control character"):
        escape.cmd("a\x0cb")


def tree_sitter_parse(grammar: str, text: str):
    tree_sitter = pytest.importorskip("tree_sitter")
    language = pytest.importorskip(grammar)
    return tree_sitter.Parser(tree_sitter.Language(language.language())).parse(text.encode()).root_node


def nodes(node, kind: str) -> list:
    found = [node] if node.type == kind else []
    for child in node.children:
        found += nodes(child, kind)
    return found


@settings(max_examples=150, deadline=None)
@given(without("\0"))
def test_powershell_reads_one_verbatim_string_of_exactly_the_text(text):
    root = tree_sitter_parse("tree_sitter_powershell", f"$x = '{escape.powershell(text)}'\nWrite-Output $x\n")
    assert not root.has_error
    [literal] = nodes(root, "string_literal")
    [characters] = literal.children
    assert characters.type == "verbatim_string_characters"
    # PowerShell's own reading of a verbatim string: each doubled single quote is one
    assert re.sub("(['\u2018\u2019\u201a\u201b])\\1", r"\1", characters.text.decode()[1:-1]) == text
    assert len(nodes(root, "command")) == 1  # Write-Output: nothing else runs
    assert nodes(root, "sub_expression") == [] and nodes(root, "expandable_string_literal") == []


@settings(max_examples=150, deadline=None)
@given(without('"').map(lambda text: re.sub("[\0-\x08\x0a-\x1f\x7f]", "", text)))
def test_cmd_text_stays_one_argument_of_one_command(text):
    """What the batch grammar can show: the text starts no other command, redirection or block.
    It reads every " as a quote, a ^ before it too, so text with one is left to Wine's cmd (below)."""
    root = tree_sitter_parse("tree_sitter_batch", f"@echo off\necho E:{escape.cmd(text)}\nrem {escape.cmd(text)}\n")
    assert [child.type for child in root.children] == ["echo_off", "cmd", "comment"]
    assert [node.type for node in root.children[1].children] == ["command_name", "argument_list"]


WINE = shutil.which("wine")


@pytest.fixture(scope="module")
def wine_prefix(tmp_path_factory):
    if WINE is None:
        pytest.skip("wine not found: cmd's reading of the scripts is checked where it is installed")
    prefix = tmp_path_factory.mktemp("wine")
    env = {**os.environ, "WINEPREFIX": str(prefix), "WINEDEBUG": "-all"}
    subprocess.run([WINE, "wineboot", "-i"], env=env, capture_output=True, timeout=300)
    # wineboot returns before the prefix has settled; a cmd started then may run nothing
    server = shutil.which("wineserver") or shutil.which("wineserver64")
    if server:
        subprocess.run([server, "-w"], env=env, capture_output=True, timeout=300)
    return prefix


def run_cmd(prefix: Path, folder: Path, lines: list[str]) -> subprocess.CompletedProcess:
    """A batch file of `lines` run by Wine's cmd in `folder`; its output as text."""
    (folder / "t.cmd").write_bytes(("\r\n".join(lines) + "\r\n").encode("ascii"))
    result = subprocess.run([WINE, "cmd", "/c", "t.cmd"], cwd=folder, capture_output=True, timeout=120,
                            env={**os.environ, "WINEPREFIX": str(prefix), "WINEDEBUG": "-all"})
    return subprocess.CompletedProcess(result.args, result.returncode,
                                       result.stdout.decode("ascii", "replace").replace("\r", ""), "")


# Wine's cmd removes a ! that a ^ escapes, where Windows' cmd keeps it (its delayed expansion
# reads ^! as text): text with a ! is checked by the grammar only. A .cmd file is read in the
# console's code page, so only ASCII text reads back the same everywhere.
WINE_PIECES = [c for c in HOSTILE if c.isascii() and "!" not in c and c not in "\0\n\r"] + list("ab %^")
WINE_TEXTS = st.lists(st.lists(st.sampled_from(WINE_PIECES), max_size=8).map("".join), min_size=1, max_size=8)


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(WINE_TEXTS)
def test_cmd_sets_and_echoes_exactly_the_text(wine_prefix, tmp_path_factory, texts):
    folder = tmp_path_factory.mktemp("cmd")
    texts = [t for t in texts if t.strip() and t[-1] != " "] or ["%~dp0"]  # echo trims an empty line's space
    lines = ["@echo off", "setlocal EnableDelayedExpansion"]
    for i, text in enumerate(texts):
        lines += [f"rem {escape.cmd(text)}", f"set V{i}={escape.cmd(text)}", f">v{i}.txt echo !V{i}!",
                  f"echo E{i}:{escape.cmd(text)}"]
    lines.append("echo done")
    result = run_cmd(wine_prefix, folder, lines)
    out = result.stdout.splitlines()
    assert out[-1] == "done", result.stdout  # a %~ would have stopped the script
    for i, text in enumerate(texts):
        assert f"E{i}:{text}" in out
        assert (folder / f"v{i}.txt").read_bytes().decode("ascii").rstrip("\r\n") == text
    assert sorted(p.name for p in folder.iterdir()) == sorted(["t.cmd"] + [f"v{i}.txt" for i in range(len(texts))])


@settings(max_examples=300, deadline=None)
@given(HOSTILE_TEXTS)
def test_yaml_reads_its_scalar_back_on_one_line(text):
    scalar = escape.yaml(text)
    assert "\n" not in scalar
    assert yaml.safe_load(f"key: {scalar}") == {"key": text}
    assert yaml.safe_load(f"- [a, {scalar}]") == [["a", text]]


@settings(max_examples=300, deadline=None)
@given(without("\0"))
def test_markdown_renders_exactly_the_text_and_no_markup(text):
    words = " ".join(text.split())
    assume(words)
    cell = escape.markdown(text)
    assert markdown_cells(f"A {cell} b\n") == [f"A {words} b"]
    assert markdown_cells(f"| a | b |\n| --- | --- |\n| {cell} | x |\n") == ["a", "b", words, "x"]


@needs_nix
@settings(max_examples=20, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(st.lists(HOSTILE_TEXTS.map(lambda text: "".join(c for c in text if unwritable(c) is None)),
                min_size=20, max_size=40))
def test_nix_reads_hostile_text_back(texts):
    """All but what the loader refuses (test_nix_refuses_text_no_nix_string_can_hold)."""
    assert nix_eval(nix(texts)) == texts


# ---- the attacks that were found, through the CLI -------------------------------------------

# A knowledge row's text that runs a command where a script reads it unescaped, and aborts a
# cmd script (%~) where it reaches a rem line.
HOSTILE_FAMILY = "Evil $(touch pwned) `touch pwned` %~dp0 \"q\" it's ^ & | calc (x)"
HOSTILE_ENV = 'a"b %~dp0 ^ & calc.exe & ("'
HOSTILE_NAME = "pytorch-python313-cuda12_8-smx-avx2"


def hostile_project(root: Path, **extra) -> Path:
    """A matrix with one variant, whose SM's family and whose Windows workaround's variable
    hold HOSTILE_FAMILY and HOSTILE_ENV."""
    document = {
        "pytorch": {"version": "2.8.0"},
        "nixpkgs": {"rev": "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3"},
        "gpu": {"python": ["3.13"], "cuda": ["12.8"], "sm": ["smx"], "isa": ["avx2"]},
        "knowledge": {
            "sm": {"smx": {"capability": "9.0", "family": HOSTILE_FAMILY, "min_cuda": "12.8", "hosts": ["x86_64"],
                           "gpus": ["H100"]}},
            "workarounds": {"hostile": {"why": HOSTILE_FAMILY, "source": "%~", "when": {"system": ["Windows"]},
                                        "env": {"HOSTILE": HOSTILE_ENV}}},
        },
        **extra,
    }
    root.mkdir(exist_ok=True)
    (root / "matrix.yaml").write_text(yaml.safe_dump(document, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return root


def hostile_script(run, root: Path, shell: str) -> str:
    result = run("env", "--root", hostile_project(root), HOSTILE_NAME, "--shell", shell)
    assert result.exit_code == 0, result.output
    return result.stdout


@needs_bash
def test_a_hostile_family_in_the_bash_script_is_printed_and_never_run(run, tmp_path):
    """The script runs up to the nvcc check, which fails (CUDA 12.0 is older than the SM's
    12.8) with a message that holds the family."""
    script = hostile_script(run, tmp_path / "project", "bash")
    (tmp_path / "machine").mkdir()
    checkout, path = fake_checkout(tmp_path / "machine", "12.0")
    done = run_bash(script, checkout, path)
    assert done.returncode == 1
    assert f"smx ({HOSTILE_FAMILY}) needs CUDA >= 12.8" in done.stderr
    assert not list(tmp_path.rglob("pwned")) and "calls.txt" not in done.stderr


def test_a_hostile_family_in_the_powershell_script_stays_verbatim_text(run, tmp_path):
    root = tree_sitter_parse("tree_sitter_powershell", hostile_script(run, tmp_path, "powershell"))
    assert not root.has_error
    # nothing in an expandable ("...") string runs the family's $(...)
    assert all("touch" not in node.text.decode() for node in nodes(root, "sub_expression"))
    verbatim = [re.sub("(['\u2018\u2019\u201a\u201b])\\1", r"\1", node.text.decode()[1:-1])
                for node in nodes(root, "verbatim_string_characters")]
    assert f"smx ({HOSTILE_FAMILY}) needs CUDA >= 12.8: install CUDA 12.8" in verbatim
    assert HOSTILE_ENV in verbatim  # $env:HOSTILE = '...'


def test_a_workaround_variable_holding_a_quote_gives_a_cmd_script(run, tmp_path):
    root = tree_sitter_parse("tree_sitter_batch", hostile_script(run, tmp_path, "cmd"))
    assert [node.text.decode() for node in nodes(root, "variable_name")].count("HOSTILE") == 1


def test_the_hostile_cmd_script_runs_its_checks_and_sets_the_variable_as_written(run, tmp_path, wine_prefix):
    """Under Wine's cmd: the script's rem lines (the workaround's why, with %~) do not abort it:
    it runs to its first check, which fails for want of python.exe. The variable's `set` line
    gives the value back."""
    script = hostile_script(run, tmp_path, "cmd").splitlines()
    folder = tmp_path / "windows"
    folder.mkdir()
    result = run_cmd(wine_prefix, folder, [line for line in script])
    assert "error: python not found" in result.stdout, result.stdout
    [set_line] = [line for line in script if line.startswith("set HOSTILE=")]
    result = run_cmd(wine_prefix, folder, ["@echo off", "setlocal EnableDelayedExpansion", set_line,
                                           ">value.txt echo !HOSTILE!", "echo done"])
    assert result.stdout.splitlines()[-1] == "done"
    assert (folder / "value.txt").read_text().rstrip("\r\n") == HOSTILE_ENV
    assert sorted(p.name for p in folder.iterdir()) == ["t.cmd", "value.txt"]


@pytest.mark.parametrize("version", ['2.8.0) & calc.exe & ("', "2.8", "v2.8.0", "2.8.0; rm -rf /", "2.8.0 "])
def test_a_pytorch_version_that_is_no_version_is_a_located_error(run, tmp_path, version):
    root = hostile_project(tmp_path, pytorch={"version": version})
    result = run("--root", root)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "matrix.yaml:2:" in result.stderr and "pytorch.version" in result.stderr
    assert sorted(p.name for p in root.iterdir()) == ["matrix.yaml"]


@pytest.mark.parametrize("control", BIDI_CONTROLS)
def test_a_bidirectional_control_in_matrix_text_is_a_located_error(run, tmp_path, control):
    root = tmp_path
    (root / "matrix.yaml").write_text(
        'pytorch: {version: "2.8.0"}\nnixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}\n'
        f'description: {{cpu: "CPU {control}only"}}\ncpu: {{python: ["3.13"], isa: [avx2]}}\n', encoding="utf-8")
    result = run("--root", root)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"matrix.yaml:3:20: this text holds U+{ord(control):04X}, a bidirectional control" in result.stderr
    assert sorted(p.name for p in root.iterdir()) == ["matrix.yaml"]


@needs_nix
def test_a_number_in_nixpkgs_config_is_a_nix_number(run, tmp_path):
    root = tmp_path
    (root / "matrix.yaml").write_text(
        'pytorch: {version: "2.8.0"}\ncpu: {python: ["3.13"], isa: [avx2]}\n'
        "nixpkgs:\n  rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3\n"
        '  config: {half: 1.5, big: 1.0e+3, small: -2.5e-3, whole: 3, text: "1.5", version: 3.10}\n', encoding="utf-8")
    assert run("--root", root).exit_code == 0
    config = nix_eval(f"(import {root / 'nix' / 'pins.nix'}).default.config")
    assert config == {"half": 1.5, "big": 1000.0, "small": -0.0025, "whole": 3, "text": "1.5", "version": 3.1}
    assert nix_eval(f"builtins.typeOf (import {root / 'nix' / 'pins.nix'}).default.config.half") == "float"
    assert ("big = 1000.0, half = 1.5, small = -0.0025, text = \"1.5\", version = 3.1, whole = 3"
            in markdown_cells((root / "BUILD_MATRIX.md").read_text()))


@pytest.mark.parametrize("number", [".inf", "-.inf", ".nan"])
def test_a_number_nix_cannot_write_is_a_located_error(run, tmp_path, number):
    (tmp_path / "matrix.yaml").write_text(
        'pytorch: {version: "2.8.0"}\ncpu: {python: ["3.13"], isa: [avx2]}\n'
        f"nixpkgs:\n  rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3\n  config: {{x: {number}}}\n", encoding="utf-8")
    result = run("--root", tmp_path)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"matrix.yaml:5:15: nixpkgs.config.x: Nix has no number {number}" in result.stderr


def test_a_line_break_in_a_workaround_variable_is_a_located_error(run, tmp_path):
    """No cmd line can set it; a script that did would run the next line as a command."""
    root = hostile_project(tmp_path)
    text = (root / "matrix.yaml").read_text(encoding="utf-8")
    (root / "matrix.yaml").write_text(text.replace("HOSTILE: ", 'HOSTILE: "x\\ncalc.exe"\n        OTHER: '),
                                      encoding="utf-8")
    result = run("--root", root)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "knowledge.workarounds.hostile.env.HOSTILE" in result.stderr and "one line" in result.stderr
    assert sorted(p.name for p in root.iterdir()) == ["matrix.yaml"]


def test_an_empty_workaround_variable_is_a_located_error_in_each_workaround(run, tmp_path):
    """cmd's `set NAME=` and PowerShell's `$env:NAME = ''` remove a variable that bash's export
    sets empty: the same build would differ between shells. The other values stay allowed."""
    workarounds = {"one": {"why": "w", "source": "s", "when": {}, "env": {"USE_X": "", "USE_Y": "0"}},
                   "two": {"why": "w", "source": "s", "when": {}, "env": {"USE_Z": ""}}}
    document = {"pytorch": {"version": "2.8.0"}, "nixpkgs": {"rev": "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3"},
                "cpu": {"python": ["3.13"], "isa": ["avx2"]}, "knowledge": {"workarounds": workarounds}}
    text = yaml.safe_dump(document)
    (tmp_path / "matrix.yaml").write_text(text, encoding="utf-8")
    result = run("--root", tmp_path)
    assert result.exit_code == 2 and "Traceback" not in result.output
    lines = text.splitlines()
    for name in ("USE_X", "USE_Z"):
        line = next(number for number, line in enumerate(lines, 1) if line.strip().startswith(f"{name}:"))
        assert f"matrix.yaml:{line}:" in result.stderr and "knowledge.workarounds." in result.stderr
        assert f".env.{name} is empty" in result.stderr
    assert "USE_Y" not in result.stderr and result.stderr.count("write 0 to turn a switch off") == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["matrix.yaml"]


# A build variable's value, from a matrix, with what each shell reads: quotes, $, `, \, %, ^,
# !, &, |, <, >, parentheses and spaces. A workaround's env (knowledge.workarounds.<name>.env)
# is the one place a matrix writes free text into the scripts' `export`, `set` and `$env:`
# lines: an ISA's flags, an SM's capability and the switches match patterns that hold none.
# cmd's delayed expansion reads a line with a ! once more, so ! stands in a value of its own.
AWKWARD_ENV = {
    "awkward": {"AWKWARD_QUOTES": "say \"hi\" 'bye' it's ^ & (x)",
                "AWKWARD_DOLLAR": "$HOME ${PATH} $(touch pwned) `touch pwned` \\ a\\$b \\\\"},
    "spaced": {"AWKWARD_PERCENT": "100% %PATH% %~dp0 a^^b | < > ;", "AWKWARD_SPACES": "  two  spaces  ",
               "AWKWARD_BANG": "!PATH! a^b!"},
}
AWKWARD_VALUES = {name: value for env in AWKWARD_ENV.values() for name, value in env.items()}
AWKWARD_NAME = "pytorch-python313-cpu-avx2"


def awkward_script(run, root: Path, shell: str, **more: str) -> str:
    """The script of a CPU build whose two workarounds set AWKWARD_ENV's variables, and `more`."""
    workarounds = {name: {"why": f"workaround {name} of the tests", "source": "tests/test_escaping.py",
                          "when": {"kind": ["cpu"]}, "env": env} for name, env in AWKWARD_ENV.items()}
    if more:
        workarounds["more"] = {"why": "more", "source": "tests/test_escaping.py", "when": {}, "env": more}
    document = {"pytorch": {"version": "2.8.0"}, "nixpkgs": {"rev": "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3"},
                "cpu": {"python": ["3.13"], "isa": ["avx2"]}, "knowledge": {"workarounds": workarounds}}
    root.mkdir(exist_ok=True)
    (root / "matrix.yaml").write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    result = run("env", "--root", root, AWKWARD_NAME, "--shell", shell)
    assert result.exit_code == 0, result.output
    return result.stdout


@needs_bash
def test_bash_builds_with_each_workaround_variable_exactly_as_the_matrix_gives_it(run, tmp_path):
    """The whole script, run by bash with stand-in tools: the build's environment holds each value."""
    script = awkward_script(run, tmp_path / "project", "bash", AWKWARD_CURLY="it\u2019s \u2018x\u2019")
    (tmp_path / "machine").mkdir()
    checkout, path = fake_checkout(tmp_path / "machine", None)
    done = run_bash(script, checkout, path, HOME=str(tmp_path / "home"))
    assert done.returncode == 0, done.stderr
    env = built_environment(checkout)
    assert {name: env.get(name) for name in AWKWARD_VALUES} == AWKWARD_VALUES
    assert env["AWKWARD_CURLY"] == "it\u2019s \u2018x\u2019"
    assert not list(tmp_path.rglob("pwned"))


# PowerShell's single-quote characters: ' and the typographic ones (the PowerShell Language
# Specification, 2.3.5.2 String literals, single-quote-character).
SINGLE_QUOTES = "'\u2018\u2019\u201a\u201b"


def powershell_sets(line: str) -> tuple[str, str]:
    """The variable and the value a `$env:NAME = '...'` line sets, read by PowerShell's rules for
    a single-quoted string (about_Quoting_Rules, learn.microsoft.com/powershell/module/
    microsoft.powershell.core/about/about_quoting_rules: the text is taken exactly as typed, and
    "to include a single quotation mark in a single-quoted string, use a second consecutive
    single quote"): a quote followed by another is one quote, a lone one ends the string, and
    the line ends there."""
    found = re.fullmatch(r"\$env:([A-Z_][A-Z0-9_]*) = '(.*)", line)
    assert found, f"not a $env: line: {line!r}"
    name, rest = found.groups()
    value, i = [], 0
    while True:
        assert i < len(rest), f"the string is never closed: {line!r}"
        if rest[i] in SINGLE_QUOTES:
            if rest[i + 1:i + 2] and rest[i + 1] in SINGLE_QUOTES:
                value.append(rest[i + 1])
                i += 2
                continue
            assert rest[i + 1:] == "", f"{rest[i + 1:]!r} is outside the string: {line!r}"
            return name, "".join(value)
        value.append(rest[i])
        i += 1


def test_powershell_sets_each_workaround_variable_to_exactly_the_matrixs_text(run, tmp_path):
    curly = {"AWKWARD_CURLY": "it\u2019s \u2018x\u2019 \u201ay\u201b"}
    script = awkward_script(run, tmp_path, "powershell", **curly)
    sets = dict(powershell_sets(line) for line in script.splitlines() if line.startswith("$env:AWKWARD_"))
    assert sets == {**AWKWARD_VALUES, **curly}


def test_cmd_sets_each_workaround_variable_to_exactly_the_matrixs_text(run, tmp_path):
    """Each `set NAME=...` line read by cmd's rules (cmd_reads)."""
    script = awkward_script(run, tmp_path, "cmd")
    lines = [line for line in script.splitlines() if line.startswith("set AWKWARD_")]
    sets = dict(cmd_reads(line).removeprefix("set ").split("=", 1) for line in lines)
    assert sets == AWKWARD_VALUES


def test_a_workaround_variable_no_cmd_line_can_hold_is_refused_and_the_other_shells_take_it(run, tmp_path):
    """A cmd script is ASCII (its code page differs between machines); a line break the schema
    refuses for every shell (test_a_line_break_in_a_workaround_variable_is_a_located_error)."""
    awkward_script(run, tmp_path, "bash", AWKWARD_CURLY="it\u2019s")
    awkward_script(run, tmp_path, "powershell", AWKWARD_CURLY="it\u2019s")
    result = run("env", "--root", tmp_path, AWKWARD_NAME, "--shell", "cmd")
    assert result.exit_code == 2 and result.stdout == "" and "Traceback" not in result.output
    assert "the cmd script would hold '\u2019' (U+2019)" in result.stderr and "AWKWARD_CURLY=it\u2019s" in result.stderr
    text = (tmp_path / "matrix.yaml").read_text(encoding="utf-8")
    line = text[:text.index("it\u2019s")].count("\n") + 1
    assert result.stderr.startswith(f"error: {tmp_path / 'matrix.yaml'}:{line}:")  # the matrix's line, not --shell


def test_wines_cmd_sets_each_workaround_variable_to_exactly_the_matrixs_text(run, tmp_path, wine_prefix):
    """The `set` lines run by Wine's cmd, each variable written to a file by `set NAME`, which
    lists it as NAME=value (no name is the start of another's). Not AWKWARD_BANG: Wine's cmd
    drops a ! that a ^ escapes, where Windows' keeps it."""
    lines = [line for line in awkward_script(run, tmp_path / "project", "cmd").splitlines()
             if line.startswith("set AWKWARD_") and not line.startswith("set AWKWARD_BANG=")]
    names = [line[4:].split("=", 1)[0] for line in lines]
    assert sorted(names) == sorted(set(AWKWARD_VALUES) - {"AWKWARD_BANG"})
    folder = tmp_path / "windows"
    folder.mkdir()
    result = run_cmd(wine_prefix, folder, ["@echo off", "setlocal EnableDelayedExpansion", *lines,
                                           *[f">{name}.txt set {name}" for name in names], "echo done"])
    assert result.stdout.splitlines()[-1] == "done", result.stdout
    assert {name: (folder / f"{name}.txt").read_bytes().decode("ascii") for name in names} == {
        name: f"{name}={AWKWARD_VALUES[name]}\r\n" for name in names}
    assert sorted(p.name for p in folder.iterdir()) == sorted(["t.cmd"] + [f"{name}.txt" for name in names])


# Workarounds that the cmd script echoes as NAME=value: workaround NAME: why, with a ! in the
# value only, in the why only, in both and in neither, beside ^, %, &, " and parentheses; the
# last two only where CMake is 4 or newer, in the script's parenthesised block. cmd's delayed
# expansion reads the whole echo line once more where any of it holds a !.
ECHOED = {
    "bang-in-value": {"why": 'a ^ b & "c" 100%', "env": {"ECHO_VALUE_BANG": "hi! ^ & %x%", "ECHO_PLAIN": "x^y"}},
    "bang-in-why": {"why": 'careful! (x) & 10%', "env": {"ECHO_WHY_BANG": 'a^b "c" & %PATH%'}},
    "bang-in-both": {"why": "!why! ^^", "env": {"ECHO_BOTH_BANG": "!v! ^ |"}},
    "no-bang": {"why": 'a^b & "c" %~dp0', "env": {"ECHO_NO_BANG": 'x^y "z" & 1% <w>'}},
    "cmake-bang": {"why": "cm^ake (4)", "env": {"ECHO_CMAKE_BANG": "e!^", "ECHO_CMAKE_CARET": "f^g"},
                   "cmake": ">=4"},
    "cmake-no-bang": {"why": 'h^i "j"', "env": {"ECHO_CMAKE_PLAIN": "k^l & m"}, "cmake": ">=4"},
}


def echoed_script(run, root: Path) -> str:
    """The cmd script of a CPU build whose workarounds are ECHOED."""
    workarounds = {name: {"source": "tests/test_escaping.py", "when": {"kind": ["cpu"]}, **row}
                   for name, row in ECHOED.items()}
    document = {"pytorch": {"version": "2.8.0"}, "nixpkgs": {"rev": "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3"},
                "cpu": {"python": ["3.13"], "isa": ["avx2"]}, "knowledge": {"workarounds": workarounds}}
    root.mkdir(exist_ok=True)
    (root / "matrix.yaml").write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    result = run("env", "--root", root, AWKWARD_NAME, "--shell", "cmd")
    assert result.exit_code == 0, result.output
    return result.stdout


def test_cmd_echoes_each_workaround_variable_as_name_value_and_why(run, tmp_path):
    """Each `echo NAME=...` line read by cmd's rules (cmd_reads) shows exactly the matrix's
    value and why, whichever of them holds a !."""
    lines = [line.strip() for line in echoed_script(run, tmp_path).splitlines()
             if line.strip().startswith("echo ECHO_")]
    shown = [cmd_reads(line).removeprefix("echo ") for line in lines]
    assert sorted(shown) == sorted(f"{name}={value}: workaround {workaround}: {row['why']}"
                                   for workaround, row in ECHOED.items() for name, value in row["env"].items())


def test_wines_cmd_echoes_a_workaround_variable_without_a_bang_as_name_value_and_why(run, tmp_path, wine_prefix):
    """The echo lines of ECHOED's workarounds with no ! run by Wine's cmd (which drops a ! that
    a ^ escapes, and takes no ^ away where delayed expansion reads a line once more, where
    Windows' cmd does both), the CMake ones in a block as the script's."""
    script = echoed_script(run, tmp_path / "project").splitlines()
    plain = [line for line in script if line.startswith(("echo ECHO_NO_BANG=", "echo ECHO_PLAIN="))]
    block = [line for line in script if line.startswith("  echo ECHO_CMAKE_PLAIN=")]
    assert len(plain) == 2 and len(block) == 1
    folder = tmp_path / "windows"
    folder.mkdir()
    result = run_cmd(wine_prefix, folder, ["@echo off", "setlocal EnableDelayedExpansion", *plain,
                                           "if 1==1 (", *block, ")", "echo done"])
    assert result.stdout.splitlines() == [
        "ECHO_PLAIN=x^y: workaround bang-in-value: " + ECHOED["bang-in-value"]["why"],
        "ECHO_NO_BANG=" + ECHOED["no-bang"]["env"]["ECHO_NO_BANG"] + ": workaround no-bang: " + ECHOED["no-bang"]["why"],
        "ECHO_CMAKE_PLAIN=k^l & m: workaround cmake-no-bang: " + ECHOED["cmake-no-bang"]["why"],
        "done"], result.stdout
    assert sorted(p.name for p in folder.iterdir()) == ["t.cmd"]


# A workaround that sets USE_CUDNN, on a build whose GPU current cuDNN no longer supports: the
# cmd script echoes and sets the workaround's value, not the default's, with the workaround's
# why, whatever the why holds.
CUDNN_WHYS = ['keep a^b & 100% "q"', "^^ (^)", "a^b! <c>"]


@pytest.mark.parametrize("why", CUDNN_WHYS)
def test_cmd_echoes_and_sets_a_workarounds_use_cudnn_with_a_why_holding_a_caret(run, tmp_path, why):
    document = {"pytorch": {"version": "2.8.0"}, "nixpkgs": {"rev": "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3"},
                "cpu": {"python": ["3.13"], "isa": ["avx2"]},
                "knowledge": {"workarounds": {"cudnn": {"why": why, "source": "tests/test_escaping.py",
                                                        "when": {"kind": ["gpu"]}, "env": {"USE_CUDNN": "0"}}}}}
    (tmp_path / "matrix.yaml").write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    result = run("env", "--root", tmp_path, *KEPLER_AXES, "--shell", "cmd")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    [echo] = [line for line in lines if line.startswith("echo USE_CUDNN=")]
    assert cmd_reads(echo) == f"echo USE_CUDNN=0: workaround cudnn: {why}"
    [line] = [line for line in lines if "USE_CUDNN=" in line and not line.startswith(("echo ", "rem "))]
    assert line.startswith("set USE_CUDNN=") and cmd_reads(line) == "set USE_CUDNN=0"


@pytest.mark.parametrize("shell", ["cmd", "powershell"])
@pytest.mark.parametrize("build", sorted(CUDNN_BUILDS))
@pytest.mark.parametrize("value, on", [("0", False), ("1", True), ("OFF", False), ("on", True)])
def test_windows_scripts_set_a_workarounds_use_cudnn_and_check_cudnn_only_where_it_is_on(
        run, tmp_path, shell, build, value, on):
    """On the Kepler build (USE_CUDNN defaults to 1) and the sm86 one (current cuDNN): the one
    line that sets USE_CUDNN sets the workaround's value, read by cmd's rules (cmd_reads) or
    PowerShell's (powershell_sets), and the script looks for cuDNN, before pip installs
    anything, only where that value turns cuDNN on (as PyTorch's setup.py reads it: 1, ON, ...
    in any case)."""
    script = cudnn_workaround_script(run, tmp_path, build, value, shell=shell)
    lines = script.splitlines()
    if shell == "cmd":
        [line] = [line for line in lines if "USE_CUDNN=" in line and not line.startswith(("echo ", "rem "))]
        assert line.startswith("set USE_CUDNN=") and cmd_reads(line) == f"set USE_CUDNN={value}"
    else:
        [line] = [line for line in lines if "$env:USE_CUDNN = " in line]
        assert powershell_sets(line) == ("USE_CUDNN", value)
    looks = [i for i, line in enumerate(lines) if "cudnn_version.h" in line and not line.startswith(("rem ", "#"))]
    pip = next(i for i, line in enumerate(lines) if "pip install -r requirements.txt" in line)
    assert bool(looks) == on and all(i < pip for i in looks)


@given(st.text(alphabet=st.sampled_from(list("ab %^!&|<>()\"'=;,")), max_size=30))
@settings(max_examples=300)
def test_cmd_escaping_beside_a_bang_of_cmds_own_reads_back_as_the_text(text):
    """`echo X=!X!: ...`: delayed expansion reads the line whether or not the text holds a !."""
    line = f"echo X=!X!: {escape.cmd(text, beside_bang=True)}"
    assert cmd_reads(line, {"X": "1"}) == f"echo X=1: {text}"


# ---- hints: one argument of a command typed in each shell ------------------------------------

ARGUMENT_TEXTS = without("\0").map(lambda text: re.sub("[\0-\x08\x0a-\x1f\x7f]", "", text))


@needs_bash
@settings(max_examples=150, deadline=None)
@given(ARGUMENT_TEXTS)
def test_bash_reads_a_hint_argument_back_as_one_word(tmp_path_factory, text):
    folder = tmp_path_factory.mktemp("argument")
    out = subprocess.run([BASH, "--norc", "--noprofile", "-c", f"printf '%s|' {escape.argument(text, 'bash')}"],
                         cwd=folder, capture_output=True, check=True).stdout
    assert out.decode("utf-8", "surrogateescape") == text + "|"  # one word, the text
    assert list(folder.iterdir()) == []


@settings(max_examples=150, deadline=None)
@given(ARGUMENT_TEXTS)
def test_powershell_reads_a_hint_argument_as_one_string_that_expands_nothing(text):
    root = tree_sitter_parse("tree_sitter_powershell", f"Write-Output {escape.argument(text, 'powershell')}\n")
    assert not root.has_error
    assert len(nodes(root, "command")) == 1
    assert nodes(root, "sub_expression") == [] and nodes(root, "variable") == []


@pytest.mark.parametrize("text, shell, written", [
    ("sm_35", "cmd", "sm_35"), ("Tesla K40c", "cmd", '"Tesla K40c"'), ("Tesla K40c", "powershell", '"Tesla K40c"'),
    ("Tesla K40c", "bash", "'Tesla K40c'"), ("GeForce GTX 1080 (x)", "cmd", '"GeForce GTX 1080 (x)"'),
    ("a$b", "powershell", "'a$b'"), ("it's", "bash", "'it'\\''s'"), ("a,b", "powershell", '"a,b"'),
])
def test_a_hint_argument_is_plain_or_in_the_quotes_its_shell_reads(text, shell, written):
    assert escape.argument(text, shell) == written


@pytest.mark.parametrize("text", ['say "x"', "50%", "a\nb"])
def test_what_a_cmd_prompt_cannot_quote_is_refused(text):
    with pytest.raises(ValueError):
        escape.argument(text, "cmd")


# ---- the cmd build script under Wine's cmd ----------------------------------------------------

KEPLER_AXES = ("--gpu", "Tesla K40c", "--cuda", "11.4", "--pytorch", "1.12.1", "--python", "3.9")


def test_wines_cmd_runs_the_file_env_writes_up_to_its_first_check(run, tmp_path, wine_prefix):
    folder = tmp_path / "windows"
    folder.mkdir()
    result = run("env", "--root", tmp_path, *KEPLER_AXES, "--shell", "cmd", "-o", str(folder / "build.cmd"))
    assert result.exit_code == 0, result.output
    done = subprocess.run([WINE, "cmd", "/c", "build.cmd"], cwd=folder, capture_output=True, timeout=120,
                          env={**os.environ, "WINEPREFIX": str(wine_prefix), "WINEDEBUG": "-all"})
    assert "error: python not found" in done.stdout.decode("ascii", "replace"), done.stdout


def compiler_cache_lines(run, root: Path) -> list[str]:
    """The compiler cache block of the Kepler cmd script, as env writes it."""
    lines = run("env", "--root", root, *KEPLER_AXES, "--shell", "cmd").stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("rem A compiler cache"))
    end = next(i for i, line in enumerate(lines) if line.startswith("rem PyTorch's setup.py does not reconfigure"))
    return lines[start:end]


@pytest.mark.parametrize("tools, launcher, said", [
    ((), "", "no compiler cache: every run compiles everything again. Install sccache"),
    (("sccache.exe",), "sccache.exe", "compiler cache: sccache "),
])
def test_the_cmd_script_picks_a_compiler_cache_or_says_how_to_get_one(run, tmp_path, wine_prefix, tools, launcher, said):
    """The fake is an empty sccache.exe: the script only looks for the file (%~$PATH:). Not
    run here: the ccache branch, which runs `ccache --version` (Wine runs no fake .exe, and
    prefers a .exe anywhere on PATH to a .bat before it)."""
    checkout = tmp_path / "src" / "pytorch"
    (checkout / "tools").mkdir(parents=True)
    for name in tools:
        (checkout / "tools" / name).write_bytes(b"")
    lines = ["@echo off", "setlocal EnableDelayedExpansion", 'set "PATH=%CD%\\tools;%PATH%"',
             "set SCCACHE_DIR=", "set CCACHE_DIR=", *compiler_cache_lines(run, tmp_path),
             "echo L=!CMAKE_CXX_COMPILER_LAUNCHER!", "echo C=!CMAKE_CUDA_COMPILER_LAUNCHER!",
             "echo D=!SCCACHE_DIR!!CCACHE_DIR!", "echo done"]
    out = run_cmd(wine_prefix, checkout, lines).stdout.splitlines()
    assert out[-1] == "done", out
    assert any(line.startswith(said) for line in out), out
    found = next(line[2:] for line in out if line.startswith("L="))
    assert next(line[2:] for line in out if line.startswith("C=")) == found
    if launcher:
        assert found.endswith(f"/tools/{launcher}") and "\\" not in found  # CMake reads / on Windows
        kind = launcher.removesuffix(".exe")
        assert next(line[2:] for line in out if line.startswith("D=")).endswith(f"\\src\\compiler-cache\\{kind}")
    else:
        assert found == ""


def cmd_reads(line: str, variables: dict[str, str] | None = None) -> str:
    """What cmd makes of `line`, written outside double quotes in a batch file run with delayed
    expansion on, by the phases cmd reads a line in ("How does the Windows Command Interpreter
    (CMD.EXE) parse scripts?", Stack Overflow 4094699, phases 1, 2 and 5): every %% is a %, and
    a lone % starts a variable; then a ^ makes the character after it text, and & | < > ( ) "
    not so made end or redirect the command; then, only where the line still holds a !, delayed
    expansion reads it once more: a ^ makes the next character text, !NAME! is the value of
    NAME in `variables`, and another ! starts a variable. Microsoft documents the pieces: ^
    before < > | & ^ in `set`'s text
    (learn.microsoft.com/windows-server/administration/windows-commands/set_1) and ! as the
    delimiter of delayed expansion (.../windows-commands/cmd, /v:on). A model, for machines
    without cmd or Wine; test_cmd_sets_and_echoes_exactly_the_text runs the real cmd where Wine is."""
    def carets(text: str, stop: str, variables: dict[str, str] | None = None) -> str:
        out, i = [], 0
        while i < len(text):
            if text[i] == "^":
                assert i + 1 < len(text), f"a ^ ends the line: {line!r}"
                out.append(text[i + 1])
                i += 2
                continue
            if text[i] == "!" and variables:
                end = text.find("!", i + 1)
                assert end > i and text[i + 1:end] in variables, f"a ! starts no known variable in {line!r}"
                out.append(variables[text[i + 1:end]])
                i = end + 1
                continue
            assert text[i] not in stop, f"{text[i]!r} is not text in {line!r}"
            out.append(text[i])
            i += 1
        return "".join(out)

    assert not re.search(r"(?<!%)%(?!%)", line.replace("%%", "")), f"a lone % starts a variable: {line!r}"
    text = carets(line.replace("%%", "%"), '&|<>()"')
    return carets(text, "!", variables) if "!" in text else text


@given(st.text(alphabet=st.sampled_from(list("ab %^!&|<>()\"'=;,é")), max_size=30))
@settings(max_examples=300)
def test_cmd_escaping_reads_back_as_the_text_by_cmds_phases(text):
    assert cmd_reads(escape.cmd(text)) == text


@pytest.mark.parametrize("text", ["a!b^c", "100%", "^^", "!x!", "a^b", "<(!)>"])
def test_cmd_escaping_of_carets_beside_and_without_a_bang(text):
    assert cmd_reads(escape.cmd(text)) == text


@pytest.mark.parametrize("text", ["日本語", "é ü ß", "GeForce RTX 5090 — 32 GB"])
def test_yaml_escaping_keeps_text_beyond_ascii_as_written(text):
    # the workflow and the docs show names as they are, not as \u escapes
    assert escape.yaml(text) == f'"{text}"'
    assert yaml.safe_load(escape.yaml(text)) == text


def test_every_character_nix_refuses_is_one_python_does_not_print():
    """nixvalue.nix only quotes a printable string without \\ " or $, and scans a string for what
    it refuses only where the string, escaped, is not printable: that is right while no
    character the loader calls unwritable, nor any other it escapes, is printable."""
    from generator.pipeline.load import _UNWRITABLE
    from generator.pipeline.nixvalue import _NIX_ESCAPES

    every = "".join(map(chr, range(0x110000)))
    refused = _UNWRITABLE.findall(every)
    assert len(refused) > 2048 and not any(char.isprintable() for char in refused)
    # and only these three of the characters it escapes are printable: a string without them, printable, is only quoted
    assert {char for char, _ in _NIX_ESCAPES if char.isprintable()} == {"\\", '"', "$"}


@pytest.mark.parametrize("bad", ["\0", "\x01", "\x1b", "\x7f", "\x85", "\ud800", "\u202e", "\u2066"])
@pytest.mark.parametrize("around", ["a{}b", "line\n{}", '"{}"', "{}\t$x", "é\n{}"])
def test_nix_refuses_an_unwritable_character_beside_text_it_escapes(bad, around):
    with pytest.raises(ValueError, match="holds"):
        nix(around.format(bad))


@pytest.mark.parametrize("text, written", [
    ("two\nlines", '"two\\nlines"'), ('say "hi"\t$HOME', '"say \\"hi\\"\\t\\$HOME"'),
    ("Grace, é\r\n", '"Grace, é\\r\\n"'), ("plain", '"plain"'), ("back\\slash\n", '"back\\\\slash\\n"'),
    ("cost: $5", '"cost: \\$5"'), ('a "b"', '"a \\"b\\""'), ("back\\slash", '"back\\\\slash"'),
    ("no\u00a0break", '"no\u00a0break"'), ("é, ü", '"é, ü"'),
])
def test_nix_escapes_what_a_string_holds_of_its_syntax(text, written):
    assert nix(text) == written
