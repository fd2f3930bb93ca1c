"""scripts/pytorch_release_rows.py against stored copies of PyTorch's own build-matrix sources
(tests/fixtures/pytorch-release, README.md there says where each was read) and the real
knowledge table."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "tests" / "fixtures" / "pytorch-release"
KNOWLEDGE = REPO / "generator" / "knowledge.yaml"
spec = importlib.util.spec_from_file_location("pytorch_release_rows", REPO / "scripts" / "pytorch_release_rows.py")
rows = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = rows  # dataclasses look their module up there
spec.loader.exec_module(rows)

TABLE = yaml.safe_load(KNOWLEDGE.read_text())["pytorch"]
# the one list the table takes from elsewhere on purpose: PyTorch's Windows CUDA 12.6 script
# adds 6.1 to RELEASE.md's list (knowledge.yaml says where it was read)
FROM_ELSEWHERE = {("12.6", "x86_64-windows")}
# rows the table gives without RELEASE.md's +PTX: the cuobjdump capture of 2.11.0+cu130 holds no
# PTX where RELEASE.md listed 12.0+PTX, so 2.12's and 2.13's like rows are taken as 2.11's, inferred
WITHOUT_PTX = {"2.13": {("13.0", "x86_64-linux"), ("13.2", "x86_64-linux")},
               "2.12": {("13.0", "x86_64-linux"), ("13.2", "x86_64-linux")}}


def _without(tmp_path: Path, *names: str) -> Path:
    data = yaml.safe_load(KNOWLEDGE.read_text())
    for name in names:
        del data["pytorch"][name]
    path = tmp_path / "knowledge.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.parametrize("release", ["2.14", "2.13", "2.12"])
def test_a_missing_line_is_proposed_as_the_table_has_it(tmp_path, capsys, release):
    assert rows.main([str(FIXTURE), "--knowledge", str(_without(tmp_path, release, "2.11"))]) == 0
    proposed = yaml.safe_load("pytorch:\n" + capsys.readouterr().out)["pytorch"]
    assert set(proposed) == {release, "2.11"}  # exactly the lines the table lacks
    row, have = proposed[release], TABLE[release]
    for key in ("python", "cuda", "experimental_cuda"):
        assert row.get(key, []) == have.get(key, [])
    wheels = {(w["cuda"], w["system"]): w["arch"] for w in row["wheels"]}
    table = {(w["cuda"], w["system"]): w["arch"] for w in have["wheels"]}
    for key in WITHOUT_PTX.get(release, ()):
        assert wheels[key] == table[key] + "+PTX"
    apart = FROM_ELSEWHERE | WITHOUT_PTX.get(release, set())
    assert {k: v for k, v in wheels.items() if k not in apart} == {k: v for k, v in table.items() if k not in apart}
    assert all("'For Release 2.12, 2.13 and 2.14'" in w["source"] for w in row["wheels"])
    # a release the support matrix is not for gets no wheel rows, not another release's
    assert "wheels" not in proposed["2.11"] and proposed["2.11"]["cuda"] == ["12.6", "12.8", "13.0"]


def test_the_table_agrees_with_the_sources_but_where_it_says_it_read_elsewhere(capsys):
    assert rows.main([str(FIXTURE), "--build-matrix-release", "2.7"]) == 0
    out = capsys.readouterr().out.splitlines()
    expected = []
    for r in ("2.14", "2.13", "2.12"):
        expected.append(f"# {r}: CUDA 12.6 on x86_64-windows is 5.0;6.0;6.1;7.0;7.5;8.0;8.6;9.0 in the table, "
                        "5.0;6.0;7.0;7.5;8.0;8.6;9.0 in RELEASE.md (the table's row is inferred from elsewhere)")
        expected += [f"# {r}: CUDA {cuda} on {system} is 7.5;8.0;8.6;9.0;10.0;12.0 in the table, "
                     "7.5;8.0;8.6;9.0;10.0;12.0+PTX in RELEASE.md (the table's row is inferred from elsewhere)"
                     for cuda, system in sorted(WITHOUT_PTX.get(r, ()))]
    assert out == expected


def test_differences_are_named(tmp_path, capsys):
    data = yaml.safe_load(KNOWLEDGE.read_text())
    data["pytorch"]["2.14"]["cuda"] = ["12.6", "13.0"]
    data["pytorch"]["2.14"]["wheels"] = [w for w in data["pytorch"]["2.14"]["wheels"]
                                         if (w["cuda"], w["system"]) != ("13.2", "aarch64-linux")]
    data["pytorch"]["2.7"]["python"] = ["3.9", "3.12"]
    (tmp_path / "k.yaml").write_text(yaml.safe_dump(data))
    assert rows.main([str(FIXTURE), "--knowledge", str(tmp_path / "k.yaml"), "--build-matrix-release", "2.7"]) == 0
    out = capsys.readouterr().out
    assert "2.14: cuda is ['12.6', '13.0'] in the table, ['12.6', '13.0', '13.2'] in RELEASE.md" in out
    assert "2.14: no wheel row for CUDA 13.2 on aarch64-linux; RELEASE.md lists 8.0;9.0;10.0;11.0;12.0+PTX" in out
    assert "2.7: python ['3.9', '3.12'] in the table, FULL_PYTHON_VERSIONS 3.9 to 3.13" in out
    assert "2.7: python is ['3.9', '3.12'] in the table, ['3.9', '3.13'] in RELEASE.md" in out


def test_the_build_matrix_is_read_not_run(tmp_path, capsys):
    tree = tmp_path / "pytorch"
    shutil.copytree(FIXTURE, tree)
    script = tree / ".github" / "scripts" / "generate_binary_build_matrix.py"
    script.write_text(script.read_text().replace('CUDA_ARCHES = ["11.8", "12.6", "12.8"]',
                                                 'import os\nos.exit(3)\nCUDA_ARCHES = ["11.8", "12.6"]'))
    assert rows.main([str(tree), "--build-matrix-release", "2.7"]) == 0
    assert "2.7: CUDA ['11.8', '12.6', '12.8'] in the table, CUDA_ARCHES ['11.8', '12.6'] in" in capsys.readouterr().out


@pytest.mark.parametrize("damage, message", [
    (lambda tree: (tree / "RELEASE.md").unlink(), "RELEASE.md: cannot be read"),
    (lambda tree: (tree / "RELEASE.md").write_text("# Releasing PyTorch\n"), "no section 'Release Compatibility Matrix'"),
    (lambda tree: (tree / ".github/scripts/generate_binary_build_matrix.py").write_text("X = 1\n"),
     "no CUDA_ARCHES or FULL_PYTHON_VERSIONS literal"),
])
def test_a_source_that_cannot_be_read_is_exit_2(tmp_path, capsys, damage, message):
    tree = tmp_path / "pytorch"
    shutil.copytree(FIXTURE, tree)
    damage(tree)
    assert rows.main([str(tree), "--build-matrix-release", "2.7"]) == 2
    assert message in capsys.readouterr().err
