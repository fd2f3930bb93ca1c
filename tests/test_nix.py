"""Every generated Nix file parses, and every recipe evaluates, with the real nix-instantiate,
against the strict fake nixpkgs in tests/nix/."""

from __future__ import annotations

import subprocess

import pytest

from generator.render import nix

from conftest import FAKE_FOR_SYSTEM, FAKE_NIXPKGS, NIX_INSTANTIATE, REPO, NixError, expansion_of, needs_nix, nix_eval

pytestmark = needs_nix

EVALUATE = """
let
  evaluate = file: source:
    let r = import file { genMatrixNixpkgs = source; };
    in {
      inherit (r) pname preConfigure preBuild postInstall requiredSystemFeatures;
      archList = r.TORCH_CUDA_ARCH_LIST or null;
      cudaCapabilities = r.cudaCapabilities or null;
      nixpkgsCapabilities = if r.cudaSupport then r.cudaPackages.flags.cudaCapabilities else null;
      cudaVersion = if r.cudaSupport then r.cudaPackages.cudaMajorMinorVersion else null;
      passthru = builtins.removeAttrs r.passthru [ "cudaPackages" "cudaCapabilities" ];
      inherit (r.meta) description longDescription platforms;
      pythonEnv = map (p: p.pname) r.pythonEnv.packages;
    };
in
"""


def evaluate_recipes(root, variants) -> dict:
    body = " ".join(
        f"{nix(v.name)} = evaluate {root / '.flox/pkgs' / (v.name + '.nix')} {FAKE_FOR_SYSTEM[v.system]};"
        for v in variants
    )
    return nix_eval(EVALUATE + "{ " + body + " }")


@pytest.fixture(scope="module")
def shipped():
    variants = [v for v in expansion_of(REPO).variants if v.package == "pytorch"]  # companions: test_companions
    return variants, evaluate_recipes(REPO, variants)


def test_every_generated_nix_file_parses():
    files = sorted(REPO.glob(".flox/pkgs/**/*.nix")) + sorted(REPO.glob("nix/*.nix"))
    assert len(files) >= 59
    for file in files:
        result = subprocess.run([NIX_INSTANTIATE, "--parse", str(file)], capture_output=True, text=True)
        assert result.returncode == 0, f"{file}: {result.stderr}"


def test_every_recipe_evaluates_with_its_file_name_as_pname(shipped):
    variants, evaluated = shipped
    assert sorted(evaluated) == sorted(v.name for v in variants)
    for name, result in evaluated.items():
        assert result["pname"] == name


def test_gpu_recipes_target_exactly_their_sm(shipped):
    variants, evaluated = shipped
    for variant in (v for v in variants if v.kind == "gpu"):
        result = evaluated[variant.name]
        assert result["archList"] == variant.sm.capability, variant.name
        assert result["cudaCapabilities"] == [variant.sm.capability]
        assert result["cudaVersion"] == variant.cuda.name
        assert result["passthru"]["gpuArch"] == variant.sm.name
        assert result["passthru"]["cpuISA"] == variant.isa.name
        assert result["passthru"]["cudaVersion"] == variant.cuda.name
        if variant.sm.capability in variant.cuda.capabilities:
            # torch scope: CUDA libraries keep nixpkgs' defaults, so they stay binary-cache hits
            assert result["nixpkgsCapabilities"] == list(variant.cuda.capabilities), variant.name
        else:
            # outside the cached list (sm61 on CUDA 12.8): magma and NCCL must have its kernels too
            assert result["nixpkgsCapabilities"] == [variant.sm.capability], variant.name


def test_isa_flags_and_switches_reach_pre_configure(shipped):
    variants, evaluated = shipped
    for variant in (v for v in variants if v.isa):
        script = evaluated[variant.name]["preConfigure"]
        flags = " ".join(variant.isa.flags)
        assert f'export CXXFLAGS="$CXXFLAGS {flags}"' in script
        assert f'export CFLAGS="$CFLAGS {flags}"' in script
        for feature in variant.isa.disable:
            assert f"export USE_{feature}=0\n" in script
        assert ("export USE_CUDNN=0\n" in script) == bool(variant.sm and not variant.sm.cudnn), variant.name
        assert "export MAX_JOBS=32\n" in script
        # nixpkgs' own `export MAX_JOBS=$NIX_BUILD_CORES` would come later and win
        assert "export MAX_JOBS=32\n" in evaluated[variant.name]["preBuild"]
        assert "NIX_BUILD_CORES" not in evaluated[variant.name]["preBuild"]


def test_avx_only_variants_switch_off_what_needs_avx2(shipped):
    _, evaluated = shipped
    script = evaluated["pytorch-python313-cuda12_8-sm61-avx"]["preConfigure"]
    for line in ("export USE_FBGEMM=0", "export USE_MKLDNN=0", "export USE_NNPACK=0", "export USE_CUDNN=0"):
        assert line in script
    assert "USE_FBGEMM=0" not in evaluated["pytorch-python313-cuda12_8-sm90-avx2"]["preConfigure"]


def test_platforms_follow_the_cpu_architecture(shipped):
    variants, evaluated = shipped
    platforms = {name: result["platforms"] for name, result in evaluated.items()}
    assert platforms["pytorch-python313-cuda12_8-sm90-avx512"] == ["x86_64-linux"]
    assert platforms["pytorch-python313-cuda12_8-sm90-armv9"] == ["aarch64-linux"]
    assert platforms["pytorch-python313-cpu-armv8_2"] == ["aarch64-linux"]
    assert platforms["pytorch-python313-darwin-mps"] == ["aarch64-darwin"]


def test_cpu_and_darwin_recipes_have_no_cuda(shipped):
    variants, evaluated = shipped
    for variant in (v for v in variants if v.kind != "gpu"):
        result = evaluated[variant.name]
        assert result["archList"] is None and result["cudaVersion"] is None, variant.name
    assert evaluated["pytorch-python313-cpu-avx2"]["passthru"]["blasProvider"] == "openblas"
    darwin = evaluated["pytorch-python313-darwin-mps"]
    assert darwin["passthru"]["blasProvider"] == "vecLib"
    assert "export USE_MPS=1" in darwin["preConfigure"] and "export BLAS=vecLib" in darwin["preConfigure"]


def test_python_env_holds_the_build_for_the_smoke_test(shipped):
    _, evaluated = shipped
    for name, result in evaluated.items():
        assert result["pythonEnv"] == [name]


def test_metadata_revision_reaches_the_output(shipped):
    _, evaluated = shipped
    assert "echo 0 > $out/.metadata-rev" in evaluated["pytorch-python313-cpu-avx2"]["postInstall"]


def test_nixpkgs_wide_capability_scope_rebuilds_cuda_dependencies_for_the_sm(project, run):
    text = (project / "matrix.yaml").read_text().replace("capability_scope: torch", "capability_scope: nixpkgs")
    (project / "matrix.yaml").write_text(text)
    assert run("--root", project).exit_code == 0
    variants = [v for v in expansion_of(project).variants
                if v.name in ("pytorch-python313-cuda12_8-sm61-avx", "pytorch-python313-cuda12_8-sm90-armv9")]
    evaluated = evaluate_recipes(project, variants)
    assert evaluated["pytorch-python313-cuda12_8-sm61-avx"]["nixpkgsCapabilities"] == ["6.1"]
    assert evaluated["pytorch-python313-cuda12_8-sm90-armv9"]["nixpkgsCapabilities"] == ["9.0"]
    assert evaluated["pytorch-python313-cuda12_8-sm61-avx"]["archList"] == "6.1"


def test_companion_python_env_holds_the_companion():
    companions = [v for v in expansion_of(REPO).variants if v.package != "pytorch"]
    assert companions
    body = " ".join(
        f"{nix(v.name)} = map (p: p.pname) (import {REPO / '.flox/pkgs' / (v.name + '.nix')} "
        f"{{ genMatrixNixpkgs = {FAKE_FOR_SYSTEM[v.system]}; }}).pythonEnv.packages;" for v in companions)
    assert nix_eval("{ " + body + " }") == {v.name: [v.name] for v in companions}


def test_a_jetson_sm_sets_nixpkgs_capabilities_so_jetson_cuda_libraries_are_used(project, run):
    matrix = project / "matrix.yaml"
    text = matrix.read_text().replace("sm: [sm61, sm75, sm80, sm86, sm89, sm90, sm100, sm120]", "sm: [sm87, sm90]")
    matrix.write_text(text)
    assert run("--root", project).exit_code == 0
    variants = [v for v in expansion_of(project).variants if v.name in (
        "pytorch-python313-cuda12_8-sm87-armv9", "pytorch-python313-cuda12_8-sm90-armv9")]
    evaluated = evaluate_recipes(project, variants)
    assert evaluated["pytorch-python313-cuda12_8-sm87-armv9"]["nixpkgsCapabilities"] == ["8.7"]
    assert evaluated["pytorch-python313-cuda12_8-sm87-armv9"]["archList"] == "8.7"
    assert evaluated["pytorch-python313-cuda12_8-sm90-armv9"]["nixpkgsCapabilities"] == [
        "7.5", "8.0", "8.6", "8.9", "9.0", "10.0", "12.0"]


def test_a_pytorch_version_the_pin_does_not_build_fails_evaluation(project, run):
    matrix = project / "matrix.yaml"
    matrix.write_text(matrix.read_text().replace('version: "2.8.0"', 'version: "2.9.1"'))
    assert run("--root", project).exit_code == 0
    recipe = project / ".flox/pkgs/pytorch-python313-cpu-avx2.nix"
    with pytest.raises(NixError) as error:
        nix_eval(f"(import {recipe} {{ genMatrixNixpkgs = {FAKE_NIXPKGS}; }}).version")
    assert "matrix.yaml says PyTorch 2.9.1, but nixpkgs builds 2.8.0" in str(error.value)
