"""What each known nixpkgs pin holds (knowledge `pins:`), and what generate says where a
matrix asks a pin for what it does not hold.

The rows are claims about real nixpkgs revisions that none of these tests can read; what they
can hold the rows to is the test package set (tests/nix), which models the same revisions
from the same sources, and what its recipes do when Nix evaluates them against it."""

from __future__ import annotations

import json
import subprocess

import pytest

from conftest import NIX_INSTANTIATE, REPO, needs_nix, wrapped_package_set
from generator import knowledge as knowledge_
from generator.pipeline import expand, load, pinned, validate

FACTS = ("torch", "torchvision", "torchaudio", "cuda", "cuda_aliases", "capabilities", "python", "python_default",
         "carries", "rocm")
FE5E41D = "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3"
R0182A36 = "0182a361324364ae3f436a63005877674cf45efb"
UNKNOWN = "a" * 40
GEN_MATRIX = "ci:\n  gen_matrix: github:o/gen-matrix/" + "0" * 40 + "\n"


@pytest.fixture(scope="module")
def known() -> knowledge_.Knowledge:
    return knowledge_.build(knowledge_.builtin())


@needs_nix
def test_the_table_holds_what_the_test_package_set_evaluates_for_each_pin(known):
    done = subprocess.run([NIX_INSTANTIATE, "--eval", "--strict", "--json", str(REPO / "tests/nix/pin-facts.nix")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    evaluated = json.loads(done.stdout)
    assert len(evaluated) == 4
    for short, facts in evaluated.items():
        row = known.pins.get(facts["rev"])
        assert row is not None, f"tests/nix models {short}, which knowledge pins lacks"
        assert (row.torch, row.torchvision, row.torchaudio) == (facts["torch"], facts["torchvision"], facts["torchaudio"])
        assert dict(row.cuda) == facts["cuda"]
        assert dict(row.cuda_aliases) == facts["cuda_aliases"]
        assert {cuda: list(row.default_capabilities(cuda, known.cuda)) for cuda in row.cuda} == facts["capabilities"]
        assert (sorted(row.python), row.python_default) == (sorted(facts["python"]), facts["python_default"])
        # a row that names its ROCm (rocmPackages) names the package set's
        assert row.rocm in ("", facts["rocm"])


def test_every_fact_of_a_known_pin_names_its_source(known):
    assert known.pins
    for rev, row in known.pins.items():
        assert len(rev) == 40
        # python_default is read where the Pythons are: `python`'s source says where
        given = {"python" if fact == "python_default" else fact for fact in FACTS if getattr(row, fact)}
        assert given - set(row.sources) == set(), rev
        assert set(row.inferred) <= given, rev
        for fact in row.inferred:
            assert "inferred" in row.sources[fact], (rev, fact)


def expansion(text: str):
    return expand.expand(validate.validate(load.parse(text, "matrix.yaml")))


TWO_PINS = f"""\
pytorch:
  version: "2.8.0"
nixpkgs:
  pins:
    - name: cuda12_9
      rev: {R0182A36}
      when: {{cuda: "12.9"}}
    - name: main
      rev: {FE5E41D}
gpu:
  python: ["3.13"]
  cuda: ["12.8", "12.9"]
  sm: [sm90]
  isa: [avx2]
""" + GEN_MATRIX


def test_a_pin_whose_torch_is_not_pytorch_version_is_a_warning_at_the_version_line(tmp_path, run):
    (tmp_path / "matrix.yaml").write_text(TWO_PINS)
    result = run("--root", tmp_path)
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == [f"warning: {tmp_path / 'matrix.yaml'}:2:12: pytorch.version is 2.8.0, but the nixpkgs pin 'cuda12_9' (0182a36) "
                        "holds torch 2.9.1: its recipe builds that torch, which Nix refuses: \"matrix.yaml promises "
                        "PyTorch 2.8.0, but this nixpkgs builds 2.9.1\""]
    assert "pin a nixpkgs whose torch is 2.8.0 (fe5e41d)" in result.stderr
    assert (tmp_path / ".flox/pkgs/pytorch-python313-cuda12_9-sm90-avx2.nix").is_file()


@needs_nix
def test_the_recipes_warned_of_are_those_nix_refuses(tmp_path, run):
    (tmp_path / "matrix.yaml").write_text(TWO_PINS)
    assert run("--root", tmp_path).exit_code == 0
    # each pin's stand-in in a folder of its own: evaluation reads a package set's own folder only
    stand_ins = []
    for pin, rev in (("cuda12_9", "0182a36"), ("main", "fe5e41d")):
        body = 'fake (args // { revision = "%s"; })' % rev
        stand_ins.append(f"{pin}={wrapped_package_set(tmp_path / pin, body)}")
    result = run("eval", "--root", tmp_path, "--json", *(arg for pin in stand_ins for arg in ("--nixpkgs", pin)))
    errors = {entry["name"]: entry["error"] for entry in json.loads(result.stdout)}
    assert errors["pytorch-python313-cuda12_8-sm90-avx2"] is None
    assert "matrix.yaml promises PyTorch 2.8.0, but this nixpkgs builds 2.9.1" in errors["pytorch-python313-cuda12_9-sm90-avx2"]


def test_a_source_override_builds_its_own_version_whatever_the_pin_holds():
    text = TWO_PINS.replace('  version: "2.8.0"\n', '  version: "2.8.0"\n  source: {rev: v2.8.0, hash: '
                            '"sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}\n')
    assert pinned.check(expansion(text).matrix, list(expansion(text).variants)) == ([], [])


def test_a_cuda_release_or_python_the_pin_lacks_is_a_warning_at_its_value():
    text = TWO_PINS.replace('cuda: ["12.8", "12.9"]', 'cuda: ["12.8", "12.9", "13.1"]').replace(
        'python: ["3.13"]', 'python: ["3.13", "3.10"]')
    text = text.replace("pytorch:\n  version: \"2.8.0\"", "knowledge:\n  python:\n    \"3.10\": {}\npytorch:\n  version: \"2.8.0\"")
    warnings = [str(w) for w in expansion(text).warnings]
    cuda = next(w for w in warnings if "cudaPackages_13_1" in w)
    assert cuda.startswith("matrix.yaml:15:26: CUDA 13.1: the nixpkgs pin 'main' (fe5e41d) has no cudaPackages_13_1 "
                           "(its CUDA sets: 12.6, 12.8, 12.9, 13.0; inferred")
    assert "with a `when` rule (2017d6d)" in cuda
    python = [w for w in warnings if "python310Packages" in w]
    assert len(python) == 2 and all(w.startswith("matrix.yaml:14:20: Python 3.10: ") for w in python)


def test_a_matrix_adds_a_row_for_its_own_pin():
    text = TWO_PINS.replace(R0182A36, UNKNOWN).replace("pytorch:", f"""knowledge:
  pins:
    {UNKNOWN}:
      torch: "2.7.1"
      sources: {{torch: "our own build log"}}
pytorch:""")
    result = expansion(text)
    assert result.matrix.knowledge.pins[UNKNOWN].torch == "2.7.1"
    assert [w.message for w in result.warnings if "holds torch" in w.message] == [
        "pytorch.version is 2.8.0, but the nixpkgs pin 'cuda12_9' (aaaaaaa) holds torch 2.7.1: its recipe builds "
        "that torch, which Nix refuses: \"matrix.yaml promises PyTorch 2.8.0, but this nixpkgs builds 2.7.1\""]
    assert result.notes == ()


def test_a_new_pin_row_without_its_source_is_a_located_error(run, tmp_path):
    (tmp_path / "matrix.yaml").write_text(TWO_PINS.replace("pytorch:", f"knowledge:\n  pins:\n    {UNKNOWN}:\n"
                                                                        "      torch: \"2.7.1\"\npytorch:"))
    result = run("--root", tmp_path)
    assert result.exit_code == 2
    assert f"{tmp_path / 'matrix.yaml'}:4:7: new pins row '{UNKNOWN}' lacks sources" in result.output
    assert "a new pins row needs torch, sources" in result.output
    assert "Traceback" not in result.output and not (tmp_path / ".flox").exists()


def test_pins_the_table_does_not_know_get_one_note_naming_eval():
    text = TWO_PINS.replace(R0182A36, UNKNOWN).replace(FE5E41D, "b" * 40)
    result = expansion(text)
    assert not [w for w in result.warnings if "nixpkgs" in w.message]
    assert len(result.notes) == 1
    note = str(result.notes[0])
    assert note.startswith("matrix.yaml:5:7: the knowledge table does not know what the nixpkgs pin 'cuda12_9' "
                           "(aaaaaaa), the nixpkgs pin 'main' (bbbbbbb) holds")
    assert "`gen-matrix eval`" in note


@pytest.mark.parametrize("matrix", ["matrix.yaml", "examples/pytorch-2.8/matrix.yaml",
                                    "examples/pytorch-2.9/matrix.yaml", "examples/pytorch-2.10/matrix.yaml",
                                    "tests/fixtures/matrix.yaml"])
def test_the_shipped_matrices_ask_their_pins_only_for_what_they_hold(matrix):
    result = expand.expand(validate.validate(load.read(REPO / matrix, matrix)))
    assert pinned.check(result.matrix, list(result.variants)) == ([], [])


def test_a_pin_row_that_carries_no_fix_is_a_located_error(run, tmp_path):
    (tmp_path / "matrix.yaml").write_text(TWO_PINS.replace("pytorch:", f"knowledge:\n  pins:\n    {UNKNOWN}:\n"
                                                                        "      torch: \"2.7.1\"\n"
                                                                        "      sources: {torch: log, carries: log}\n"
                                                                        "      carries: [allow-broken-cuda13, "
                                                                        "magma-cuda13-clockrat]\npytorch:"))
    result = run("--root", tmp_path)
    assert result.exit_code == 2, result.output
    assert (f"{tmp_path / 'matrix.yaml'}:6:38: pins row 'aaaaaaa' carries 'magma-cuda13-clockrat', which is no fix"
            in result.output)
    assert "did you mean 'magma-cuda13-clockrate'?" in result.output
    assert "allow-broken-cuda13'" not in result.output
    assert "Traceback" not in result.output and not (tmp_path / ".flox").exists()
