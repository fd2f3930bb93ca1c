"""The example matrices: each generates its reference branch's names, and every recipe
evaluates against the test package set of its pin, with the pins and fixes the reference
branch's builds needed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import REPO, NixError, drv_paths, expansion_of, fake_for, needs_nix, nix_eval

EXAMPLES = {
    "pytorch-2.8": "pytorch-2.8-python311",
    "pytorch-2.9": "pytorch-2.9-python313",
    "pytorch-2.10": "pytorch-2.10-python313",
}


def generated(example: str, tmp_path: Path, run) -> Path:
    root = tmp_path / example
    root.mkdir()
    shutil.copy(REPO / "examples" / example / "matrix.yaml", root / "matrix.yaml")
    result = run("--root", root)
    assert result.exit_code == 0, result.output
    assert run("check", "--root", root).exit_code == 0
    return root


@pytest.mark.parametrize("example", list(EXAMPLES))
def test_an_example_generates_exactly_its_reference_branchs_names(example, tmp_path, run):
    root = generated(example, tmp_path, run)
    reference = (REPO / "tests/fixtures/reference" / f"names-{EXAMPLES[example]}.txt").read_text().split()
    assert sorted(p.stem for p in (root / ".flox/pkgs").glob("*.nix")) == sorted(reference)


@needs_nix
@pytest.mark.parametrize("example", list(EXAMPLES))
def test_every_recipe_of_an_example_evaluates(example, tmp_path, run):
    root = generated(example, tmp_path, run)
    paths = drv_paths(root)
    assert len(paths) == len(list((root / ".flox/pkgs").glob("*.nix")))
    assert all(p["wrapper"].endswith(".drv") and p["build"].endswith(".drv") for p in paths.values())
    # Each torch is built once: variants share no heavy build, and a wrapper is never one.
    builds = [p["build"] for name, p in paths.items() if name.startswith("pytorch-")]
    assert len(set(builds)) == len(builds)


def facts_of(root: Path, name: str) -> dict:
    """What the recipe `name` builds, read from the derivations it evaluates to."""
    expansion = expansion_of(root)
    variant = expansion.by_name[name]
    recipe = root / ".flox/pkgs" / f"{name}.nix"
    return nix_eval(f"""
      let r = import {recipe} {{ genMatrixNixpkgs = {fake_for(variant, expansion.matrix)}; }};
          t = r.unwrapped;
          magma = r.genMatrix.pkgs.magma;
      in {{
        pname = r.pname; gpuArch = r.gpuArch; cpuISA = r.cpuISA; version = t.version;
        src = t.src.rev or null; patches = map (p: p.name or (baseNameOf p)) (t.patches or [ ]);
        postPatch = t.postPatch or ""; preConfigure = t.preConfigure or "";
        buildVersion = t.PYTORCH_BUILD_VERSION or t.env.PYTORCH_BUILD_VERSION or null;
        magmaPatches = map (p: p.name or (baseNameOf p)) (magma.patches or [ ]);
        allowBroken = r.genMatrix.pkgs.config.allowBroken;
        metadataRev = r.buildCommand;
        outputs = map (o: r.${{o}}.drvPath == t.${{o}}.drvPath) (builtins.filter (o: o != "out") t.outputs);
      }}""")


@needs_nix
def test_the_210_example_has_the_reference_branchs_build_facts(tmp_path, run):
    root = generated("pytorch-2.10", tmp_path, run)
    cuda12 = facts_of(root, "pytorch-python313-cuda12_8-sm90-avx512")
    cuda13_0 = facts_of(root, "pytorch-python313-cuda13_0-sm120-avx")
    cuda13_1 = facts_of(root, "pytorch-python313-cuda13_1-sm121-armv9")
    cpu = facts_of(root, "pytorch-python313-cpu-avx2")
    for facts in (cuda12, cuda13_0, cuda13_1, cpu):
        # PyTorch 2.10.0 from its source, without the pin's patches, reporting its version.
        assert facts["version"] == "2.10.0" and facts["src"] == "v2.10.0"
        assert facts["patches"] == [] and facts["buildVersion"] == "2.10.0"
        assert "echo 2.10.0 > version.txt" in facts["postPatch"]
    assert cuda12["pname"] == "pytorch-python313-cuda12_8-sm90-avx512" and cuda12["gpuArch"] == "9.0"
    # The wrapper hands on the heavy build's dev, lib and cxxdev outputs.
    assert cuda12["outputs"] and all(cuda12["outputs"])
    assert cuda13_1["gpuArch"] == "12.1" and cpu["gpuArch"] is None and cpu["cpuISA"] == "avx2"
    # CUDA 13 only: the CCCL layout and allowBroken; the MAGMA patch on 13.0 alone, where
    # the 13.1 pin's MAGMA carries its own fix.
    assert "cccl-compat" in cuda13_0["preConfigure"] and "cccl-compat" in cuda13_1["preConfigure"]
    assert "cccl-compat" not in cuda12["preConfigure"]
    assert cuda13_0["allowBroken"] and cuda13_1["allowBroken"] and not cuda12["allowBroken"]
    assert "cuda-13.0-clockrate-fix.patch" in cuda13_0["magmaPatches"]
    assert "cuda-13.0-clockrate-fix.patch" not in cuda13_1["magmaPatches"]
    # The FindCUDAToolkit.cmake stub with CUDA, after nixpkgs' postPatch deletes the file.
    for facts in (cuda12, cuda13_0, cuda13_1):
        assert facts["postPatch"].index("rm cmake/Modules/FindCUDAToolkit.cmake") < facts["postPatch"].index(
            "include(FindCUDAToolkit)")
    assert "FindCUDAToolkit" not in cpu["postPatch"]
    # AVX only: no AVX2 or AVX-512 kernels, through the one CMake variable setup.py forwards.
    assert "CMAKE_PROJECT_INCLUDE_BEFORE=" in cuda13_0["preConfigure"]
    assert "USE_FBGEMM=0" in cuda13_0["preConfigure"] and "CMAKE_PROJECT_INCLUDE_BEFORE" not in cuda12["preConfigure"]


@needs_nix
def test_without_allow_broken_a_cuda13_pin_refuses_torch(tmp_path, run):
    root = tmp_path / "x"
    root.mkdir()
    text = (REPO / "examples/pytorch-2.10/matrix.yaml").read_text()
    (root / "matrix.yaml").write_text(text + "\nknowledge:\n  fixes:\n    allow-broken-cuda13:\n      enabled: false\n")
    assert run("--root", root).exit_code == 0
    with pytest.raises(NixError, match="marked as broken"):
        drv_paths(root, {"pytorch-python313-cuda13_0-sm90-avx2"})
