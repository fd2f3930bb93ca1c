"""Text from matrix.yaml reaches Nix unchanged and can never break out of its string: every
value goes through nixvalue.nix(). Checked with the real nix-instantiate on arbitrary text."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from generator.cli import main
from generator.pipeline.nixvalue import nix

from conftest import FAKE_FOR_SYSTEM, needs_nix, nix_eval

# Pieces that mean something to Nix, to a shell or to Python's str.format.
NASTY = ['"', "\\", "$", "${", "''", "''$", "''${", "''\\", "'''", "\\${", "$${", "${x}", "\n",
         "\t", "{", "}", "{}", "{isa}", "#", "/*", "*/", "`", "$(id)", ";",
         "\u2028", "\ufeff", "\u00e9", "\u4e2d", "\U0001f680", " ", ""]
# Every character but lone surrogates and control characters, which the loader refuses (see
# test_validation); a newline or a tab, and `${{`, the schema refuses (see test_input_bounds).
# nixvalue.nix writes them too (test_the_classic_breakouts_evaluate_back_to_themselves).
CHARACTERS = st.characters(exclude_categories=("Cs", "Cc"))
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


@needs_nix
def test_the_largest_integers_nix_reads_evaluate_back_to_themselves():
    assert nix_eval(nix([2**63 - 1, -(2**63 - 1)])) == [2**63 - 1, -(2**63 - 1)]


@needs_nix
def test_every_kind_of_value_evaluates_back_to_itself():
    """Attribute names Nix reads as syntax, or that are no plain name, are quoted; booleans,
    null, numbers, lists and sets are written as Nix's own."""
    value = {"plain": True, "no": False, "if": None, "a b": [1, -2, [], {}], "x-y'": {"in": "z", "9": ["$"]}, "": 0}
    assert nix_eval(nix(value)) == value
