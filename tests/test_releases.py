"""PyTorch's release notes as data. A CUDA a release's source cannot build with, or a Python
outside its range, is warned about where the matrix asks for it; a CUDA only PyTorch's own
wheels leave out is a note (a build from source works, untested upstream); `explain` says why.
The release rows reach back to 1.12, the toolkit rows to CUDA 10.2, the SM rows to Kepler."""

from __future__ import annotations

import os

import pytest

from generator import knowledge

from conftest import expansion_of


def with_cuda(project, cudas: str, pytorch: str = "2.8.0"):
    path = project / "matrix.yaml"
    text = path.read_text().replace('cuda: ["12.8"]', f"cuda: {cudas}", 1)
    path.write_text(text.replace('version: "2.8.0"', f'version: "{pytorch}"', 1))
    return project


def test_pytorch_28_with_cuda_131_is_a_warning_its_source_cannot_build_it(project, run):
    result = run("--root", with_cuda(project, '["12.8", "13.1"]'))
    assert result.exit_code == 0
    assert ("warning: matrix.yaml:32:18: PyTorch 2.8's source does not build with CUDA 13.1 (it takes CUDA >=11.0,<13.0)"
            in result.stderr.replace(str(project) + os.sep, ""))


def test_a_cuda_only_the_wheels_leave_out_is_a_note_not_a_warning(project, run):
    # PyTorch 2.9's wheels are built for CUDA 12.6 and 12.8 (13.0 experimental), not 12.9; its source builds with it.
    # On a pin whose torch is 2.9.1: fe5e41d's 2.8.0 would be a warning of its own.
    with_cuda(project, '["12.8", "12.9"]', "2.9.1")
    path = project / "matrix.yaml"
    path.write_text(path.read_text().replace("fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3",
                                             "0182a361324364ae3f436a63005877674cf45efb"))
    result = run("--root", project)
    assert result.exit_code == 0, result.output
    stderr = result.stderr.replace(str(project) + os.sep, "")
    assert ("note: matrix.yaml:32:18: PyTorch 2.9's own wheels are built for CUDA 12.6, 12.8 (experimental: 13.0), "
            "not 12.9: a build from source with it is untested upstream") in stderr
    assert "warning" not in stderr
    expansion = expansion_of(project)
    assert [n.message[:20] for n in expansion.notes] == ["PyTorch 2.9's own wh"] and not expansion.warnings


def test_explain_says_why(project, run):
    result = run("explain", "--root", with_cuda(project, '["12.8", "13.1"]'), "pytorch-python313-cuda13_1-sm90-avx2")
    assert result.exit_code == 0, result.output
    assert "PyTorch 2.8's source does not build with CUDA 13.1 (it takes CUDA >=11.0,<13.0)" in result.stdout
    assert "nixpkgs pin" in result.stdout


def test_explain_notes_an_sm_pytorchs_own_wheels_leave_out(project, run):
    result = run("explain", "--root", project, "pytorch-python313-cuda12_8-sm61-avx")
    assert "PyTorch 2.8's own CUDA 12.8 wheels leave out sm61 (6.1)" in result.stdout
    supported = run("explain", "--root", project, "pytorch-python313-cuda12_8-sm90-avx2").stdout
    assert "PyTorch" not in "".join(line for line in supported.splitlines() if line.lstrip().startswith("PyTorch "))


def test_a_supported_matrix_has_no_release_warning(project):
    expansion = expansion_of(project)
    assert not [w for w in expansion.warnings if "PyTorch" in w.message] and not expansion.notes


# ---- the table, Kepler to Blackwell -------------------------------------------------------------

@pytest.fixture(scope="module")
def table() -> knowledge.Knowledge:
    return knowledge.build(knowledge.builtin())


def test_release_rows_reach_back_to_112_with_python_and_cuda(table):
    lines = sorted(table.pytorch, key=knowledge.version_key)
    assert lines[:6] == ["1.12", "1.13", "2.0", "2.1", "2.2", "2.3"]
    # RELEASE.md's compatibility matrix
    assert table.pytorch["1.12"].python == ("3.7", "3.10") and table.pytorch["1.12"].cuda == ("11.3",)
    assert table.pytorch["1.12"].experimental_cuda == ("11.6",)
    assert table.pytorch["2.0"].cuda == ("11.7",) and table.pytorch["2.0"].experimental_cuda == ("11.8",)
    assert table.release("1.12.1").newest == "1.12.1"


@pytest.mark.parametrize("line, builds", [("2.4", False), ("2.5", False), ("2.6", False), ("2.7", True), ("2.8", True)])
def test_blackwell_needs_27_whatever_the_release_row_says_else(table, line, builds):
    problems = [f for f in knowledge.findings(table, sm=table.sm["sm120"], cuda="12.8", pytorch=line)
                if f.level == knowledge.CANNOT]
    assert (not problems) == builds


def test_the_k80_is_37_and_kepler_ends_with_cuda_118(table):
    assert [sm.name for sm, _ in knowledge.gpu_name_matches(table, "Tesla K80")] == ["sm37"]
    assert [sm.name for sm, _ in knowledge.gpu_name_matches(table, "Tesla K40c")] == ["sm35"]
    for name in ("sm35", "sm37"):
        assert table.sm[name].max_cuda == "11.8"
        assert knowledge.sm_cuda_problem(table.sm[name], "12.0")
    assert table.lookup("sm", "sm_37") == "sm37" and table.lookup("sm", "5.3") == "sm53"
    assert table.lookup("sm", "6.2") == "sm62"


@pytest.mark.parametrize("cuda, linux, windows", [
    ("10.2", "440.33", "441.22"), ("11.0", "450.51.05", "451.48"), ("11.4", "470.42.01", "471.11"),
    ("11.7", "515.43.04", "516.01"),
])
def test_toolkit_rows_from_cuda_102_carry_their_drivers(table, cuda, linux, windows):
    row = table.cuda_release(cuda)
    assert (row.driver, row.driver_for("Windows")) == (linux, windows)


def test_cuda_114_takes_vs_2017_or_2019_and_gcc_up_to_11(table):
    row = table.cuda_release("11.4")
    assert row.msvc == (1910, 1930) and row.gcc == 11


def test_workarounds_hold_for_the_releases_they_name(table):
    def names(pytorch, system, kind="gpu"):
        facts = {"pytorch": pytorch, "cuda": "11.4", "system": system, "kind": kind}
        return sorted(w.name for w in table.workarounds.values() if w.applies(facts))

    assert names("1.12.1", "Windows") == ["cmake4-policy-minimum", "no-kineto", "numpy-1", "setuptools-msvccompiler"]
    assert names("1.12.1", "Linux") == ["cmake4-policy-minimum", "numpy-1"]
    assert names("2.6.0", "Windows") == ["cmake4-policy-minimum", "setuptools-get-vc-env"]
    assert names("2.8.0", "Windows") == []
    assert all(w.why and w.source for w in table.workarounds.values())


def test_a_mistyped_row_name_under_knowledge_gets_the_built_in_name_it_is_close_to(project, run):
    path = project / "matrix.yaml"
    path.write_text(path.read_text() + "knowledge:\n  fixes:\n    avx-only-kernel: {enabled: false}\n")
    result = run("check", "--root", project)
    assert result.exit_code == 2
    assert "new fixes row 'avx-only-kernel' lacks why, when" in result.stderr
    assert "did you mean 'avx-only-kernels'?" in result.stderr
