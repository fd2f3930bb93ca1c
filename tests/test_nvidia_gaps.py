"""NVIDIA facts read from PyTorch's CMake and from a capture of a real wheel: the CUDA floor of a
source build, +PTX only where it was seen, a library of a wheel that lacks an SM its arch list
names, and no desktop driver figure for a Jetson.

The capture (tests/fixtures/cuobjdump-torch-2.11.0-cu130) is cuobjdump's output on a real
torch 2.11.0+cu130; what no capture covers (2.12, 2.13) is held to the same rule: no +PTX
without a measurement or the release's own script.
"""

from __future__ import annotations

import gzip

import pytest

from generator import knowledge as K
from generator.commands import cuobjdump

from conftest import REPO

KNOWLEDGE = K.build(K.builtin())
CAPTURE = REPO / "tests" / "fixtures" / "cuobjdump-torch-2.11.0-cu130"


def _held(library: str) -> tuple[frozenset[str], frozenset[str]]:
    return cuobjdump.parse(gzip.decompress((CAPTURE / f"{library}.list-elf.gz").read_bytes()).decode())


def _row(release: str, cuda: str, system: str) -> K.Wheel:
    return next(w for w in KNOWLEDGE.pytorch[release].wheels if w.cuda == cuda and w.system == system and w.index == "pip")


def _sm(capability: str) -> str:
    return "sm_" + capability.replace(".", "")


@pytest.mark.parametrize("cuda", ["10.2"])  # the one CUDA below 11 the table knows
@pytest.mark.parametrize("pytorch", ["2.0.1", "2.4.1", "2.8.0"])
def test_a_cuda_below_11_is_refused_for_pytorch_2_0_to_2_8_and_explain_agrees(run, tmp_path, pytorch, cuda):
    out = tmp_path / "build.sh"
    result = run("env", "--gpu", "Tesla T4", "--cuda", cuda, "--pytorch", pytorch, "-o", out)
    line = pytorch.rsplit(".", 1)[0]
    assert result.exit_code == 2
    assert f"PyTorch {line}'s source does not build with CUDA {cuda} (it takes CUDA >=11.0,<13.0)" in result.stderr
    assert not out.exists()
    explained = run("explain", "--sm", "Tesla T4", "--cuda", cuda, "--pytorch", pytorch)
    assert f"PyTorch {line}'s source does not build with CUDA {cuda}" in explained.stdout
    assert "can be built by hand" not in explained.stdout


@pytest.mark.parametrize("pytorch, cuda", [("2.0.1", "11.0"), ("2.8.0", "11.8"), ("2.6.0", "12.4")])
def test_a_cuda_at_or_above_the_floor_still_writes_a_script(run, tmp_path, pytorch, cuda):
    out = tmp_path / "build.sh"
    result = run("env", "--gpu", "Tesla T4", "--cuda", cuda, "--pytorch", pytorch, "-o", out)
    assert result.exit_code == 0, result.output
    assert out.read_text().startswith("#!/usr/bin/env bash")


def test_the_measured_cu130_row_matches_its_capture():
    row = _row("2.11", "13.0", "x86_64-linux")
    sass, ptx = _held("libtorch_cuda.so")
    entries = row.arch.split(";")
    assert not ptx and not any(entry.endswith("+PTX") for entry in entries)  # --list-ptx found none
    assert {_sm(entry) for entry in entries} <= sass  # every entry has SASS in the main library


@pytest.mark.parametrize("release", ["2.11", "2.12", "2.13"])
@pytest.mark.parametrize("cuda", ["13.0", "13.2"])
def test_no_unmeasured_ptx_on_the_linux_cuda_13_rows(release, cuda):
    rows = [w for w in KNOWLEDGE.pytorch[release].wheels if w.cuda == cuda and w.system == "x86_64-linux"]
    for row in rows:
        assert "+PTX" not in row.arch, (release, cuda)


def test_a_library_gap_is_exactly_what_its_capture_lacks():
    row = _row("2.11", "13.0", "x86_64-linux")
    for gap in row.gaps:
        sass, ptx = _held(gap.library)
        missing = {entry for entry in row.arch.split(";") if _sm(entry) not in sass and _sm(entry) not in ptx}
        assert set(gap.lacks.split(";")) == missing
    assert [gap.library for gap in row.gaps] == ["libtorch_cuda_linalg.so"]


@pytest.mark.parametrize("gpu, cuda, named", [
    ("Tesla T4", "13.0", True),  # sm75: listed by the wheel, absent from libtorch_cuda_linalg.so
    ("Tesla T4", "12.8", False),  # the cu128 wheel is another build, not captured
    ("A100", "13.0", False),  # sm80 is in the library
    ("RTX 4090", "13.0", False),  # sm89 runs sm86's SASS, which the library has
])
def test_explain_names_the_linalg_caveat_only_where_the_capture_shows_it(run, gpu, cuda, named):
    result = run("explain", "--sm", gpu, "--cuda", cuda, "--pytorch", "2.11")
    assert result.exit_code == 0, result.output
    caveat = "libtorch_cuda_linalg.so holds no code for it"
    assert (caveat in result.stdout) is named


def test_the_windows_cu130_wheel_carries_no_linux_capture():
    fits = [f for f in K.wheels_for(KNOWLEDGE, KNOWLEDGE.sm["sm75"]) if f.release.name == "2.11" and f.cuda == "13.0"]
    assert {(f.systems, bool(f.gaps)) for f in fits} == {(("x86_64-linux",), True), (("x86_64-windows",), False)}


def test_a_wheel_whose_library_lacks_the_gpu_is_not_the_one_suggested():
    gapped = K.Wheel("13.0", "x86_64-linux", "pip", "7.5;8.0", "test",
                     gaps=(K.LibraryGap("libx.so", "7.5", "its kernels", "test"),))
    whole = K.Wheel("13.0", "x86_64-linux", "conda", "7.5;8.0", "test")
    release = K.Release("2.11", ("3.10", "3.14"), ("13.0",), wheels=(gapped, whole))
    table = K.Knowledge(**{**{f: getattr(KNOWLEDGE, f) for f in KNOWLEDGE.__dataclass_fields__},
                           "pytorch": {"2.11": release}})
    best = K.best_wheel(K.wheels_for(table, table.sm["sm75"]))
    assert best.index == "conda" and not best.gaps


@pytest.mark.parametrize("gpu, cuda, pytorch", [("Jetson AGX Orin", "12.6", "2.8.0"),
                                                ("Jetson Xavier NX", "11.8", "2.4.1")])
def test_a_jetson_build_names_no_desktop_driver(run, gpu, cuda, pytorch):
    script = run("env", "--gpu", gpu, "--cuda", cuda, "--pytorch", pytorch)
    assert script.exit_code == 0, script.output
    desktop = KNOWLEDGE.cuda_release(cuda).driver
    assert desktop not in script.stdout and "NVIDIA driver" not in script.stdout
    assert f"a JetPack whose CUDA is {cuda}" in script.stdout
    explained = run("explain", "--sm", gpu, "--cuda", cuda, "--pytorch", pytorch)
    assert desktop not in explained.stdout.split("wheels:")[0]


def test_a_desktop_gpu_still_names_its_driver(run):
    script = run("env", "--gpu", "Tesla T4", "--cuda", "12.6", "--pytorch", "2.8.0")
    assert f"NVIDIA driver {KNOWLEDGE.cuda_release('12.6').driver} or newer on Linux" in script.stdout


JETSON_MATRIX = """pytorch: {version: "2.8.0"}
nixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}
gpu: {python: ["3.13"], cuda: ["12.8"], sm: [sm87, sm90], isa: [armv8_2]}
"""


def test_a_jetson_variant_shows_and_documents_no_desktop_driver(run, tmp_path):
    (tmp_path / "matrix.yaml").write_text(JETSON_MATRIX)
    desktop = KNOWLEDGE.cuda["12.8"].driver
    jetson, hopper = "pytorch-python313-cuda12_8-sm87-armv8_2", "pytorch-python313-cuda12_8-sm90-armv8_2"
    shown = run("show", "--root", tmp_path, jetson)
    assert "needs a JetPack whose CUDA is 12.8" in shown.stdout and desktop not in shown.stdout
    assert f"needs NVIDIA driver {desktop} or newer" in run("show", "--root", tmp_path, hopper).stdout
    assert run("--root", tmp_path).exit_code == 0
    rows = {line.split("|")[2].strip(): line for line in (tmp_path / "BUILD_MATRIX.md").read_text().splitlines()
            if line.startswith("| sm")}
    assert desktop not in rows["8.7"] and "JetPack's" in rows["8.7"] and desktop in rows["9.0"]
    recipe = (tmp_path / ".flox" / "pkgs" / f"{jetson}.nix").read_text()
    assert desktop not in recipe and "a JetPack whose CUDA is 12.8" in recipe
