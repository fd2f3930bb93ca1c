"""`gen-matrix init`: a new matrix repository that `check` finds current, from an example or
for a captured host."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import REPO
from generator.cli import main
from generator.commands import init
from generator.layout import MANIFEST_FILE, WORKFLOW_FILE

HOSTS = REPO / "tests" / "fixtures" / "hosts"


def invoke(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def host_options(name: str) -> list[str]:
    folder = HOSTS / name
    options = ["--uname", (folder / "uname").read_text().strip()]
    if (folder / "cpuinfo").exists():
        options += ["--cpuinfo", str(folder / "cpuinfo")]
    if (folder / "nvidia-smi.csv").exists():
        options += ["--nvidia-smi-output", str(folder / "nvidia-smi.csv")]
    return options


def test_init_then_check_passes_and_a_second_init_refuses(tmp_path):
    root = tmp_path / "builds"
    made = invoke("init", str(root), "--example", "pytorch-2.8")
    assert made.exit_code == 0, made.output
    for path in ("matrix.yaml", "README.md", MANIFEST_FILE, WORKFLOW_FILE, ".flox/env.json"):
        assert b"\r" not in (root / path).read_bytes(), f"{path}: LF line endings on every system"
    if shutil.which("git"):
        assert (root / ".git").exists()
    readme = (root / "README.md").read_text()
    assert "<!-- gen-matrix:begin variants -->\n| kind |" in readme
    assert "$schema=" not in (root / "matrix.yaml").read_text()
    lines = made.output.splitlines()
    steps = lines[lines.index("next:") + 1:]
    assert steps[0].startswith("  flox build pytorch-python") and "manifest.lock" in steps[1]
    assert "FLOX_FLOXHUB_TOKEN" in steps[2] and "FLOX_ORG" in steps[2]
    assert invoke("check", "--root", str(root)).exit_code == 0
    matrix = (root / "matrix.yaml").read_bytes()
    again = invoke("init", str(root), "--example", "pytorch-2.9")
    assert again.exit_code == 2 and "already holds a matrix" in again.output
    assert (root / "matrix.yaml").read_bytes() == matrix


def test_the_default_example_is_the_newest():
    assert init.examples()[-1] == "pytorch-2.10"


def test_an_unknown_example_writes_nothing(tmp_path):
    result = invoke("init", str(tmp_path / "x"), "--example", "pytorch-1.0")
    assert result.exit_code == 2 and "pytorch-2.10" in result.output
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("host", ["xeon8480-h100", "i7-2600k-gtx1070", "epyc9654-nogpu", "macbook-m3",
                                  "dgx-spark-gb10"])
def test_detect_gives_a_matrix_holding_the_recommended_variant(tmp_path, host):
    root = tmp_path / host
    options = host_options(host)
    # what detect recommends against the example init starts from
    wanted = invoke("detect", "--matrix", str(init.EXAMPLES / init.examples()[-1] / "matrix.yaml"), *options)
    name = wanted.output.splitlines()[0]
    made = invoke("init", str(root), "--detect", *options)
    assert made.exit_code == 0, made.output
    assert f"flox build {name}" in made.output
    names = invoke("list", "--root", str(root)).output.split()
    assert name in names and len(names) <= 3
    assert invoke("detect", "--root", str(root), *options).output.splitlines()[0] == name
    assert invoke("check", "--root", str(root)).exit_code == 0
