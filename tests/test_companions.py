"""Companions: torchvision and torchaudio built against the torch of selected variants."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from generator.pipeline import expand, load, render, validate
from generator.errors import GenMatrixError

from conftest import FAKES, REPO, expansion_of, fake_for, needs_nix, nix_eval, nix_string

BASE = """\
pytorch: {version: "2.8.0"}
nixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}
gpu: {python: ["3.13"], cuda: ["12.8"], sm: [sm61, sm90], isa: [avx, avx2, armv9]}
cpu: {python: ["3.13"], isa: [avx2, armv9]}
darwin: {python: ["3.13"], accelerator: [mps]}
"""


def expand_text(text: str):
    doc = load.parse(BASE + textwrap.dedent(text), "matrix.yaml")
    return expand.expand(validate.validate(doc))


def companions(text: str) -> dict[str, str]:
    return {v.name: v.torch for v in expand_text(text).variants if v.is_companion}


def test_rule_selects_by_any_axis():
    assert companions("""
        companions:
          - packages: [torchvision]
            when: {sm: sm61, isa: [avx, avx2]}
    """) == {
        "torchvision-python313-cuda12_8-sm61-avx": "pytorch-python313-cuda12_8-sm61-avx",
        "torchvision-python313-cuda12_8-sm61-avx2": "pytorch-python313-cuda12_8-sm61-avx2",
    }


def test_rule_selects_by_kind_and_axes_of_other_kinds():
    assert sorted(companions("""
        companions:
          - packages: [torchaudio]
            when: {kind: [cpu, darwin]}
          - packages: [torchvision]
            when: {isa: armv9}
    """)) == [
        "torchaudio-python313-cpu-armv9", "torchaudio-python313-cpu-avx2", "torchaudio-python313-darwin-mps",
        "torchvision-python313-cpu-armv9", "torchvision-python313-cuda12_8-sm61-armv9",
        "torchvision-python313-cuda12_8-sm90-armv9",
    ]


def test_all_selects_every_torch_variant_once_per_package():
    result = expand_text("""
        companions:
          - packages: [torchvision, torchaudio]
            when: all
          - packages: [torchvision]
            when: {sm: sm90}
    """)
    torches = [v for v in result.variants if not v.is_companion]
    made = [v for v in result.variants if v.is_companion]
    assert len(made) == 2 * len(torches)
    assert len({v.name for v in made}) == len(made)
    for companion in made:
        torch = next(t for t in torches if t.name == companion.torch)
        assert companion.combination == torch.combination and companion.kind == torch.kind


def test_rule_that_selects_nothing_warns_with_its_line():
    result = expand_text("""
        companions:
          - packages: [torchvision]
            when: {sm: sm61, accelerator: mps}
    """)
    (warning,) = result.warnings
    assert "companions[0] selects no variant" in warning.message
    assert warning.where.line == 8  # the rule's line in BASE + the text above


def test_unknown_value_in_a_rule_is_a_located_error():
    with pytest.raises(GenMatrixError) as error:
        expand_text("""
            companions:
              - packages: [torchvision]
                when: {sm: sm6l}
        """)
    (problem,) = error.value.problems
    assert problem.message == "unknown sm 'sm6l'" and "did you mean" in problem.hint
    assert (problem.where.line, problem.where.column) == (9, 16)


def test_unknown_package_is_a_located_error(project, run):
    text = (project / "matrix.yaml").read_text().replace("packages: [torchvision, torchaudio]",
                                                         "packages: [torchvision, torchtext]")
    (project / "matrix.yaml").write_text(text)
    result = run("--root", project)
    assert result.exit_code == 2
    line = next(i for i, l in enumerate(text.splitlines(), 1) if "torchtext" in l)
    assert f"matrix.yaml:{line}:" in result.stderr and "'torchtext' is not allowed here" in result.stderr
    assert not (project / ".flox").exists()


def test_companion_recipe_imports_its_torch_recipe():
    text = (REPO / ".flox/pkgs/torchvision-python313-cuda12_8-sm75-avx.nix").read_text()
    assert "(import ../../nix/lib { nixpkgs = genMatrixNixpkgs; }).companion {" in text
    assert 'package = "torchvision";' in text
    assert "torch = import ./pytorch-python313-cuda12_8-sm75-avx.nix { inherit genMatrixNixpkgs; };" in text
    assert "cudaSupport" not in text  # torchvision takes no cudaSupport argument: it follows its torch


def evaluate(root: Path, name: str, fields: str = "") -> dict:
    """The companion recipe `name` of the repository at `root` and the torch recipe it names,
    evaluated against the test package set of their pin: `c` is the companion's published
    wrapper and `v` its heavy build, `w` the torch recipe's wrapper and `t` its heavy torch."""
    expansion = expansion_of(root)
    variant = expansion.by_name[name]
    fake = fake_for(variant, expansion.matrix)
    pkgs = root / ".flox" / "pkgs"
    return nix_eval(f"""
      let
        c = import {nix_string(pkgs / (name + ".nix"))} {{ genMatrixNixpkgs = {fake}; }};
        w = import {nix_string(pkgs / (variant.torch + ".nix"))} {{ genMatrixNixpkgs = {fake}; }};
        v = c.unwrapped;
        t = w.unwrapped;
        dependencies = map (d: d.drvPath) v.dependencies;
      in {{
        pname = c.pname; buildName = v.pname; torchName = w.pname;
        againstTorchBuild = builtins.elem t.drvPath dependencies;
        againstTorchWrapper = builtins.elem w.drvPath dependencies;
        arch = v.TORCH_CUDA_ARCH_LIST or null; torchCapabilities = t.passthru.cudaCapabilities;
        torchCuda = t.passthru.cudaSupport;
        flags = v.preConfigure; torchFlags = t.preConfigure; buildCommand = c.buildCommand;
        platforms = c.meta.platforms; {fields}
      }}
    """)


def torch_arch(script: str) -> str | None:
    """TORCH_CUDA_ARCH_LIST as nixpkgs' torch exports it in preConfigure (from gpuTargets)."""
    found = re.findall(r'^export TORCH_CUDA_ARCH_LIST="([^"]*)"$', script, re.MULTILINE)
    return found[0] if found else None


def check_built_against_its_torch(result: dict, name: str, torch_name: str) -> None:
    assert result["pname"] == name and result["torchName"] == torch_name
    assert result["buildName"] == name.split("-")[0]  # nixpkgs' torchvision or torchaudio
    # built against the heavy torch, so each torch is built once, and a new description
    # of the torch (its wrapper) rebuilds no companion
    assert result["againstTorchBuild"] and not result["againstTorchWrapper"]


@needs_nix
@pytest.mark.parametrize("recipe", sorted((REPO / ".flox/pkgs").glob("torch[va]*.nix")), ids=lambda p: p.stem)
def test_every_shipped_companion_compiles_for_its_torchs_sm(recipe):
    torch_name = recipe.stem.replace("torchvision-", "pytorch-").replace("torchaudio-", "pytorch-")
    result = evaluate(REPO, recipe.stem)
    check_built_against_its_torch(result, recipe.stem, torch_name)
    capability = {"sm61": "6.1", "sm75": "7.5"}[recipe.stem.split("-")[3]]
    assert result["arch"] == torch_arch(result["torchFlags"]) == capability
    assert result["torchCapabilities"] == [capability]
    cpu_flags = "-mavx -mno-fma -mno-bmi -mno-bmi2 -mno-avx2"
    assert cpu_flags in result["flags"] and cpu_flags in result["torchFlags"]
    assert "$out/.metadata-rev" in result["buildCommand"]
    assert result["platforms"] == ["x86_64-linux"]


@needs_nix
def test_overriding_gpu_targets_alone_would_leave_torchvision_on_the_defaults():
    """The counter-check: without passthru.cudaCapabilities the companion drifts off sm61."""
    arch = nix_eval(f"""
      let pkgs = import (import {FAKES})."fe5e41d"."x86_64-linux" {{ config = {{ allowUnfree = true; cudaSupport = true; }}; }};
          torch = pkgs.python313Packages.torch.override {{ cudaSupport = true; gpuTargets = [ "6.1" ]; }};
      in [ torch.preConfigure (pkgs.python313Packages.torchvision.override {{ inherit torch; }}).TORCH_CUDA_ARCH_LIST ]
    """)
    assert torch_arch(arch[0]) == "6.1" and arch[1] != "6.1" and "12.0" in arch[1]


@needs_nix
def test_companions_of_every_kind_evaluate(project, run):
    matrix = project / "matrix.yaml"
    matrix.write_text(BASE + "companions:\n  - packages: [torchvision, torchaudio]\n    when: all\n")
    assert run("--root", project).exit_code == 0
    systems = {"cuda12_8-sm90-armv9": "aarch64-linux", "cpu-avx2": "x86_64-linux",
               "cpu-armv9": "aarch64-linux", "darwin-mps": "aarch64-darwin", "cuda12_8-sm61-avx2": "x86_64-linux"}
    for suffix, system in systems.items():
        for package in ("torchvision", "torchaudio"):
            name = f"{package}-python313-{suffix}"
            result = evaluate(project, name, "forceCuda = v.FORCE_CUDA or null;")
            check_built_against_its_torch(result, name, f"pytorch-python313-{suffix}")
            assert result["platforms"] == [system]
            gpu = suffix.startswith("cuda")
            assert result["torchCuda"] is gpu
            if package == "torchvision":
                assert (result["forceCuda"] in (1, "1")) is gpu
            if gpu:
                capability = {"sm90": "9.0", "sm61": "6.1"}[suffix.split("-")[1]]
                assert result["arch"] == torch_arch(result["torchFlags"]) == capability
                assert result["torchCapabilities"] == [capability]
            else:
                assert result["arch"] in (None, "") and torch_arch(result["torchFlags"]) is None
                assert not result["torchCapabilities"]


def test_companion_description_pattern_takes_every_field(project, run):
    path = project / "matrix.yaml"
    path.write_text(path.read_text().replace(
        "naming:", 'description:\n  companion: "{package} for {gpus} ({sm}, CUDA {cuda}, {isa}); torch: {torch}"\nnaming:'))
    assert run("--root", project).exit_code == 0
    text = (project / ".flox/pkgs/torchaudio-python313-cuda12_8-sm75-avx.nix").read_text()
    assert ('description = "torchaudio for GeForce RTX 2060, GeForce RTX 2070, GeForce RTX 2080, GeForce RTX 2080 Ti, '
            'GeForce GTX 1650, GeForce GTX 1660, Tesla T4, Quadro RTX 8000, TITAN RTX (sm75, CUDA 12.8, avx); '
            'torch: pytorch-python313-cuda12_8-sm75-avx";') in text
    assert "torchaudio for GeForce RTX 2060" in (project / "BUILD_MATRIX.md").read_text()


@needs_nix
def test_companions_follow_a_nixpkgs_wide_capability(project, run):
    path = project / "matrix.yaml"
    path.write_text(path.read_text().replace("capability_scope: auto", "capability_scope: nixpkgs"))
    assert run("--root", project).exit_code == 0
    fields = "caps = w.genMatrix.pkgs.config.cudaCapabilities; cudaFlags = t.passthru.cudaPackages.flags.cudaCapabilities;"
    for package in ("torchvision", "torchaudio"):
        for sm, capability in (("sm61", "6.1"), ("sm75", "7.5")):
            result = evaluate(project, f"{package}-python313-cuda12_8-{sm}-avx", fields=fields)
            assert result["arch"] == torch_arch(result["torchFlags"]) == capability
            assert result["caps"] == result["cudaFlags"] == [capability]


@needs_nix
@pytest.mark.parametrize("features", [["big-parallel", "kvm"], []], ids=["two", "none"])
def test_a_companion_takes_its_torchs_system_features_and_passthru(project, run, features):
    """A companion needs the builders its torch needs (build.system_features), and its published
    wrapper answers gpuArch, cpuISA and cudaVersion as its torch's does."""
    path = project / "matrix.yaml"
    path.write_text(path.read_text().replace("system_features: [big-parallel]",
                                             f"system_features: [{', '.join(features)}]"))
    assert run("--root", project).exit_code == 0
    fields = ("features = v.requiredSystemFeatures or null; torchFeatures = t.requiredSystemFeatures or null; "
              "passthru = { inherit (c) gpuArch cpuISA cudaVersion; }; "
              "torchPassthru = { inherit (w) gpuArch cpuISA cudaVersion; };")
    seen = set()
    for package in ("torchvision", "torchaudio"):
        for sm in ("sm61", "sm75"):
            result = evaluate(project, f"{package}-python313-cuda12_8-{sm}-avx", fields=fields)
            assert result["features"] == result["torchFeatures"] == features
            assert result["passthru"] == result["torchPassthru"]
            assert result["passthru"]["cudaVersion"] == "12.8" and result["passthru"]["cpuISA"] == "avx"
            seen.add(result["passthru"]["gpuArch"])
    assert seen == {"6.1", "7.5"}


@needs_nix
def test_each_companion_carries_its_torchs_build_features_and_passthru(tmp_path, run):
    """Two CUDA releases, one whose fixes change the package set's config (CUDA 13's
    allowBroken), two SMs and two system features: each companion's heavy build asks for the
    matrix's features, its wrapper tells the torch's GPU, ISA and CUDA, and each torch's
    package set has its own fixes' config. Both wrappers carry their recipe's description, and
    the torch's wrapper the heavy build's other outputs."""
    (tmp_path / "matrix.yaml").write_text("""\
pytorch: {version: "2.9.1"}
nixpkgs: {rev: 0182a361324364ae3f436a63005877674cf45efb}
build: {system_features: [big-parallel, cuda]}
gpu: {python: ["3.13"], cuda: ["12.8", "13.0"], sm: [sm75, sm90], isa: [avx2]}
companions:
  - packages: [torchvision, torchaudio]
    when: {sm: [sm75, sm90]}
""")
    assert run("--root", tmp_path).exit_code == 0
    expansion = expansion_of(tmp_path)
    companions = [v for v in expansion.variants if v.is_companion]
    assert len(companions) == 8
    description = {recipe.variant.name: recipe.description
                   for recipe in render.recipes(expansion, {}, tmp_path / "recipes")}
    assert len(set(description.values())) == len(expansion.variants)
    for variant in companions:
        torch = expansion.by_name[variant.torch]
        result = evaluate(tmp_path, variant.name, """
            features = v.requiredSystemFeatures or [ ];
            passthru = { inherit (c) gpuArch cpuISA cudaVersion; };
            torchPassthru = { inherit (w) gpuArch cpuISA cudaVersion; };
            broken = w.genMatrix.pkgs.config.allowBroken or false;
            descriptions = [ c.meta.description w.meta.description ];
            torchOutputs = builtins.filter (o: o != "out") t.outputs;
            wrapperOutputs = map (o: (w.${o}.outPath or null) == t.${o}.outPath) (builtins.filter (o: o != "out") t.outputs);""")
        assert result["features"] == ["big-parallel", "cuda"], variant.name
        assert result["passthru"] == result["torchPassthru"], variant.name
        assert result["passthru"]["cudaVersion"] == torch.cuda.name, variant.name
        assert result["broken"] is (torch.cuda.name == "13.0"), variant.name
        # the wrappers carry their recipes' descriptions and the heavy torch's other outputs
        assert result["descriptions"] == [description[variant.name], description[torch.name]]
        assert {"dev", "lib", "cxxdev"} <= set(result["torchOutputs"]) and all(result["wrapperOutputs"]), variant.name
