"""PyTorch's release notes as data: a CUDA or Python a release does not support is warned
about where the matrix asks for it, and `explain` says why."""

from __future__ import annotations

from conftest import expansion_of


def with_cuda_131(project):
    path = project / "matrix.yaml"
    path.write_text(path.read_text().replace('cuda: ["12.8"]', 'cuda: ["12.8", "13.1"]', 1))
    return project


def test_pytorch_28_with_cuda_131_is_warned_about_at_the_value(project, run):
    result = run("--root", with_cuda_131(project))
    assert result.exit_code == 0
    assert ("warning: matrix.yaml:32:18: PyTorch 2.8 supports CUDA 12.6, 12.8 (experimental: 12.9); "
            "13.1 is not among them") in result.stderr.replace(str(project) + "/", "")


def test_explain_says_why(project, run):
    result = run("explain", "--root", with_cuda_131(project), "pytorch-python313-cuda13_1-sm90-avx2")
    assert result.exit_code == 0, result.output
    assert "PyTorch 2.8 supports CUDA 12.6, 12.8 (experimental: 12.9); 13.1 is not among them" in result.stdout
    assert "nixpkgs pin" in result.stdout


def test_explain_notes_an_sm_pytorchs_own_wheels_leave_out(project, run):
    result = run("explain", "--root", project, "pytorch-python313-cuda12_8-sm61-avx")
    assert "PyTorch 2.8's own CUDA 12.8 wheels leave out sm61 (6.1)" in result.stdout
    supported = run("explain", "--root", project, "pytorch-python313-cuda12_8-sm90-avx2").stdout
    assert "PyTorch" not in "".join(line for line in supported.splitlines() if line.lstrip().startswith("PyTorch "))


def test_a_supported_matrix_has_no_release_warning(project):
    assert not [w for w in expansion_of(project).warnings if "PyTorch" in w.message]
