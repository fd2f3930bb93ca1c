"""Every generated Nix file parses, and every recipe evaluates, with the real nix-instantiate,
against the strict test package set of its pin in tests/nix/ (conftest.fake_for).

A recipe evaluates to the published wrapper (nix/lib/wrapper.nix); the heavy torch is its
`.unwrapped`, and `genMatrix.pkgs` the package set it was built from. The wrapper's whole
passthru is never forced: genMatrix.pkgs is the entire package set."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from generator.pipeline import render
from generator.pipeline.nixvalue import nix

from conftest import (NIX_INSTANTIATE, REPO, NixError, drv_paths, expansion_of, fake_for, needs_nix,
                      nix_eval)

pytestmark = needs_nix

EVALUATE = """
let
  evaluate = file: source:
    let
      r = import file { genMatrixNixpkgs = source; };
      t = r.unwrapped;
      cudaSupport = t.passthru.cudaSupport or false;
    in {
      inherit (r) pname buildCommand;
      inherit (t) preConfigure preBuild requiredSystemFeatures;
      torchName = t.pname;
      heavyName = t.name;
      # What torch compiles for: gpuTargets reach nixpkgs' preConfigure (TORCH_CUDA_ARCH_LIST),
      # passthru.cudaCapabilities is what the companions compile for.
      cudaCapabilities = t.passthru.cudaCapabilities or null;
      cudaSupport = cudaSupport;
      nixpkgsCapabilities = if cudaSupport then t.passthru.cudaPackages.flags.cudaCapabilities else null;
      configCapabilities = r.genMatrix.pkgs.config.cudaCapabilities or null;
      cudaVersion = if cudaSupport then t.passthru.cudaPackages.cudaMajorMinorVersion else null;
      passthru = { inherit (r) gpuArch cpuISA cudaVersion blasProvider; };
      inherit (r.meta) description longDescription platforms;
      buildDescription = t.meta.description or null;
      # the heavy build's other outputs (dev, lib, cxxdev), which the wrapper's passthru hands on
      otherOutputs = builtins.filter (o: o != "out") (t.outputs or [ "out" ]);
      carriedOutputs = builtins.filter (o: o != "out" && (r.${o}.outPath or null) == t.${o}.outPath)
        (t.outputs or [ "out" ]);
      pythonEnvHoldsWrapper = builtins.elem r.outPath (map (p: p.outPath) r.pythonEnv.paths);
      pythonEnvHoldsBuild = builtins.elem t.outPath (map (p: p.outPath) r.pythonEnv.paths);
      buildMentionsRevision = builtins.match ".*metadata-rev.*" (builtins.toJSON t.drvAttrs) != null;
    };
in
"""


def evaluate_recipes(root, variants) -> dict:
    matrix = expansion_of(root).matrix
    body = " ".join(
        f"{nix(v.name)} = evaluate {root / '.flox/pkgs' / (v.name + '.nix')} ({fake_for(v, matrix)});"
        for v in variants
    )
    return nix_eval(EVALUATE + "{ " + body + " }")


def arch_list(script: str) -> str | None:
    """TORCH_CUDA_ARCH_LIST as nixpkgs' torch exports it in preConfigure (from gpuTargets)."""
    found = re.findall(r'^export TORCH_CUDA_ARCH_LIST="([^"]*)"$', script, re.MULTILINE)
    assert len(found) <= 1, found
    return found[0] if found else None


@pytest.fixture(scope="module")
def shipped():
    variants = [v for v in expansion_of(REPO).variants if v.package == "pytorch"]  # companions: test_companions
    return variants, evaluate_recipes(REPO, variants)


def test_every_generated_nix_file_parses():
    files = sorted(REPO.glob(".flox/pkgs/**/*.nix")) + sorted(REPO.glob("nix/**/*.nix"))
    assert len(files) >= 59 + len(list(REPO.glob("nix/lib/*.nix"))) + 1  # recipes, library, pins.nix
    for file in files:
        result = subprocess.run([NIX_INSTANTIATE, "--parse", str(file)], capture_output=True, text=True)
        assert result.returncode == 0, f"{file}: {result.stderr}"


def test_every_recipe_evaluates_with_its_file_name_as_pname(shipped):
    variants, evaluated = shipped
    assert sorted(evaluated) == sorted(v.name for v in variants)
    for name, result in evaluated.items():
        assert result["pname"] == name
        assert result["torchName"] == "torch"  # the heavy build is nixpkgs' torch, not a copy named after the variant
        assert result["requiredSystemFeatures"] == ["big-parallel"]


def test_each_heavy_build_has_a_store_name_of_its_own(shipped):
    variants, evaluated = shipped
    names = {name: result["heavyName"] for name, result in evaluated.items()}
    assert len(set(names.values())) == len(names), "two variants' heavy builds share a store name"
    assert names["pytorch-python313-cuda12_8-sm90-avx512"] == "python3.13-torch-2.8.0-cuda12.8-sm90-avx512"
    assert names["pytorch-python313-cpu-armv9"] == "python3.13-torch-2.8.0-cpu-armv9"
    assert names["pytorch-python313-darwin-mps"] == "python3.13-torch-2.8.0-mps"


def test_gpu_recipes_target_exactly_their_sm(shipped):
    variants, evaluated = shipped
    for variant in (v for v in variants if v.kind == "gpu"):
        result = evaluated[variant.name]
        assert arch_list(result["preConfigure"]) == variant.sm.capability, variant.name
        assert result["cudaCapabilities"] == [variant.sm.capability]
        assert result["cudaVersion"] == variant.cuda.name
        assert result["passthru"]["gpuArch"] == variant.sm.capability
        assert result["passthru"]["cpuISA"] == variant.isa.name
        assert result["passthru"]["cudaVersion"] == variant.cuda.name
        if variant.sm.capability in variant.cuda.capabilities:
            # torch scope: CUDA libraries keep nixpkgs' defaults, so they stay binary-cache hits
            assert not result["configCapabilities"], variant.name
            assert result["nixpkgsCapabilities"] == list(variant.cuda.capabilities), variant.name
        else:
            # outside the cached list (sm61 on CUDA 12.8): magma and NCCL must have its kernels too
            assert result["configCapabilities"] == [variant.sm.capability], variant.name
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
        # The compile jobs are capped by the builder's memory (nix/lib/compile.nix) before nixpkgs'
        # preBuild runs `export MAX_JOBS=$NIX_BUILD_CORES`: 4 GiB a job with CUDA, 2 without.
        assert "export NIX_BUILD_CORES=$genMatrixJobs" in script
        gib_per_job = 4 if variant.cuda else 2
        assert f"genMatrixJobs=$(( genMatrixMemoryKib / ({gib_per_job} * 1024 * 1024) ))" in script
        assert "export MAX_JOBS=$NIX_BUILD_CORES\n" in evaluated[variant.name]["preBuild"]


def test_avx_only_variants_switch_off_what_needs_avx2(shipped):
    _, evaluated = shipped
    script = evaluated["pytorch-python313-cuda12_8-sm61-avx"]["preConfigure"]
    for line in ("export USE_FBGEMM=0", "export USE_MKLDNN=0", "export USE_NNPACK=0", "export USE_CUDNN=0"):
        assert line in script
    # the avx-only-kernels fix: no AVX2 or AVX-512 kernel copies
    assert "export CMAKE_PROJECT_INCLUDE_BEFORE=" in script and "gen-matrix-avx-only.cmake" in script
    avx2 = evaluated["pytorch-python313-cuda12_8-sm90-avx2"]["preConfigure"]
    assert "USE_FBGEMM=0" not in avx2 and "CMAKE_PROJECT_INCLUDE_BEFORE" not in avx2


def test_platforms_follow_the_cpu_architecture(shipped):
    variants, evaluated = shipped
    platforms = {name: result["platforms"] for name, result in evaluated.items()}
    assert platforms["pytorch-python313-cuda12_8-sm90-avx512"] == ["x86_64-linux"]
    assert platforms["pytorch-python313-cuda12_8-sm90-armv9"] == ["aarch64-linux"]
    assert platforms["pytorch-python313-cpu-armv8_2"] == ["aarch64-linux"]
    assert platforms["pytorch-python313-darwin-mps"] == ["aarch64-darwin"]
    for variant in variants:
        assert platforms[variant.name] == [variant.system]


def test_cpu_and_darwin_recipes_have_no_cuda(shipped):
    variants, evaluated = shipped
    for variant in (v for v in variants if v.kind != "gpu"):
        result = evaluated[variant.name]
        assert result["cudaSupport"] is False and result["cudaVersion"] is None, variant.name
        assert arch_list(result["preConfigure"]) is None and not result["cudaCapabilities"], variant.name
        assert not result["configCapabilities"], variant.name
    assert evaluated["pytorch-python313-cpu-avx2"]["passthru"]["blasProvider"] == "openblas"
    darwin = evaluated["pytorch-python313-darwin-mps"]
    assert darwin["passthru"]["blasProvider"] == "veclib"  # as the reference and its consumers read it
    assert re.search(r"^export USE_MPS='?1'?$", darwin["preConfigure"], re.MULTILINE)
    assert re.search(r"^export BLAS='?vecLib'?$", darwin["preConfigure"], re.MULTILINE)


def test_python_env_holds_the_wrapper_for_the_smoke_test(shipped):
    _, evaluated = shipped
    for name, result in evaluated.items():
        assert result["pythonEnvHoldsWrapper"], name
        assert not result["pythonEnvHoldsBuild"], name  # the wrapper stands for it, no second torch


def test_the_wrapper_carries_its_recipes_description_and_the_builds_other_outputs(shipped):
    variants, results = shipped
    expansion = expansion_of(REPO)
    descriptions = set()
    for variant in variants:
        result = results[variant.name]
        assert result["description"] == render.describe(expansion, variant) != result["buildDescription"]
        descriptions.add(result["description"])
        assert result["otherOutputs"] == result["carriedOutputs"]
        assert {"dev", "lib", "cxxdev"} <= set(result["carriedOutputs"])
    assert len(descriptions) == len(variants) > 1


def test_metadata_revision_reaches_the_wrapper_and_not_the_build(shipped):
    _, evaluated = shipped
    for name, result in evaluated.items():
        (revision,) = re.findall(r"^    revision = (\d+);$", (REPO / ".flox/pkgs" / f"{name}.nix").read_text(), re.MULTILINE)
        assert f"echo {revision} > $out/.metadata-rev" in result["buildCommand"], name
        assert not result["buildMentionsRevision"], name


def test_a_new_metadata_revision_rebuilds_the_wrapper_alone(project, run):
    assert run("--root", project).exit_code == 0
    name = "pytorch-python313-cuda12_8-sm61-avx"
    companion = "torchvision-python313-cuda12_8-sm61-avx"
    before = drv_paths(project, {name, companion})
    recipe = project / ".flox/pkgs" / f"{name}.nix"
    text = recipe.read_text()
    assert text.count("revision = 0;") == 1
    recipe.write_text(text.replace("revision = 0;", "revision = 7;"))
    after = drv_paths(project, {name, companion})
    assert after[name]["wrapper"] != before[name]["wrapper"]
    assert after[name]["build"] == before[name]["build"]
    assert after[companion] == before[companion]  # the companion takes the heavy torch, not the wrapper
    variant = expansion_of(project).by_name[name]
    command = nix_eval(f"(import {recipe} {{ genMatrixNixpkgs = {fake_for(variant, expansion_of(project).matrix)}; }})"
                       ".buildCommand")
    assert "echo 7 > $out/.metadata-rev" in command


def test_nixpkgs_wide_capability_scope_rebuilds_cuda_dependencies_for_the_sm(project, run):
    text = (project / "matrix.yaml").read_text().replace("capability_scope: auto", "capability_scope: nixpkgs")
    (project / "matrix.yaml").write_text(text)
    assert run("--root", project).exit_code == 0
    variants = [v for v in expansion_of(project).variants
                if v.name in ("pytorch-python313-cuda12_8-sm61-avx", "pytorch-python313-cuda12_8-sm90-armv9")]
    evaluated = evaluate_recipes(project, variants)
    for name, capability in (("pytorch-python313-cuda12_8-sm61-avx", "6.1"),
                             ("pytorch-python313-cuda12_8-sm90-armv9", "9.0")):
        assert evaluated[name]["configCapabilities"] == [capability]
        assert evaluated[name]["nixpkgsCapabilities"] == [capability]
        assert arch_list(evaluated[name]["preConfigure"]) == capability
        assert evaluated[name]["cudaCapabilities"] == [capability]


def test_companion_python_env_holds_the_companion():
    expansion = expansion_of(REPO)
    companions = [v for v in expansion.variants if v.package != "pytorch"]
    assert companions
    body = " ".join(
        f"{nix(v.name)} = let r = import {REPO / '.flox/pkgs' / (v.name + '.nix')} "
        f"{{ genMatrixNixpkgs = {fake_for(v, expansion.matrix)}; }}; paths = map (p: p.outPath) r.pythonEnv.paths; "
        f"in [ (builtins.elem r.outPath paths) (builtins.elem r.unwrapped.outPath paths) ];" for v in companions)
    assert nix_eval("{ " + body + " }") == {v.name: [True, False] for v in companions}


def test_a_jetson_sm_sets_nixpkgs_capabilities_so_jetson_cuda_libraries_are_used(project, run):
    matrix = project / "matrix.yaml"
    text = matrix.read_text().replace("sm: [sm61, sm75, sm80, sm86, sm89, sm90, sm100, sm120]", "sm: [sm87, sm90]")
    matrix.write_text(text)
    assert run("--root", project).exit_code == 0
    variants = [v for v in expansion_of(project).variants if v.name in (
        "pytorch-python313-cuda12_8-sm87-armv9", "pytorch-python313-cuda12_8-sm90-armv9")]
    evaluated = evaluate_recipes(project, variants)
    jetson = evaluated["pytorch-python313-cuda12_8-sm87-armv9"]
    assert jetson["configCapabilities"] == ["8.7"] and jetson["nixpkgsCapabilities"] == ["8.7"]
    assert arch_list(jetson["preConfigure"]) == "8.7"
    hopper = evaluated["pytorch-python313-cuda12_8-sm90-armv9"]
    assert not hopper["configCapabilities"]
    assert hopper["nixpkgsCapabilities"] == ["7.5", "8.0", "8.6", "8.9", "9.0", "10.0", "12.0"]


def test_a_pytorch_version_the_pin_does_not_build_fails_evaluation(project, run):
    matrix = project / "matrix.yaml"
    matrix.write_text(matrix.read_text().replace('version: "2.8.0"', 'version: "2.9.1"'))
    assert run("--root", project).exit_code == 0
    expansion = expansion_of(project)
    variant = expansion.by_name["pytorch-python313-cpu-avx2"]
    recipe = project / ".flox/pkgs/pytorch-python313-cpu-avx2.nix"
    with pytest.raises(NixError) as error:
        nix_eval(f"(import {recipe} {{ genMatrixNixpkgs = {fake_for(variant, expansion.matrix)}; }}).version")
    assert "matrix.yaml promises PyTorch 2.9.1, but this nixpkgs builds 2.8.0" in str(error.value)


# Values a matrix's knowledge may give an accelerator's environment, which the shell reads
# only as written when they are quoted: spaces, a variable, quotes, a backslash, a glob.
AWKWARD = {"GEN_MATRIX_NOTE": "two words $HOME 'single' \"double\" back\\slash *", "GEN_MATRIX_FLAGS": "-O2  -g;true"}


def test_an_accelerators_environment_reaches_setup_py_as_written(project, run):
    """Each value of an accelerator's environment is exported as it is written, whatever the
    shell would read into it: the export lines of the torch's preConfigure, run in a real bash."""
    environment = {"USE_MPS": "1", "BLAS": "vecLib", **AWKWARD}
    path = project / "matrix.yaml"
    path.write_text(path.read_text() + "knowledge:\n  accelerator:\n    mps:\n      environment: "
                    + json.dumps(environment) + "\n")
    assert run("--root", project).exit_code == 0
    variant = expansion_of(project).by_name["pytorch-python313-darwin-mps"]
    script = evaluate_recipes(project, [variant])[variant.name]["preConfigure"]
    exports = [line for line in script.splitlines() if line.startswith(tuple(f"export {n}=" for n in environment))]
    assert len(exports) == len(environment), script
    shown = subprocess.run(["bash", "-c", "\n".join(exports) + '\nfor n in "$@"; do printf "%s\\0" "${!n}"; done',
                            "bash", *environment], capture_output=True, text=True, check=True,
                           env={"PATH": "/usr/bin:/bin", "HOME": "/nowhere"}).stdout
    assert dict(zip(environment, shown.split("\0"))) == environment


@pytest.mark.parametrize("extra", ["", """\
  sha256: "0000000000000000000000000000000000000000000000000000"
  config: {cudaForwardCompat: false, allowBroken: true}
  patches:
    magma:
      - {url: "https://example.org/magma/one.patch", hash: "sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}
      - {url: "https://example.org/magma/two.patch", hash: "sha256-BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB="}
"""], ids=["shipped", "hash-config-patches"])
def test_pins_nix_evaluates_to_the_matrixs_pins(tmp_path, run, extra):
    """The shipped nix/pins.nix, and that of a matrix whose pin has a hash, a config and two
    patches, are the matrix's pins: each revision, hash, config and patch, nothing more."""
    def wanted(root):
        return {pin.name: {"rev": pin.rev, "sha256": pin.sha256, "config": dict(pin.config),
                           "patches": {attr: [{"url": p.url, "hash": p.hash} for p in patches]
                                       for attr, patches in pin.patches}}
                for pin in expansion_of(root).matrix.pins}

    roots = [REPO]
    if extra:
        text = (REPO / "matrix.yaml").read_text()
        assert text.count("  sha256: null\n") == 1
        (tmp_path / "matrix.yaml").write_text(text.replace("  sha256: null\n", extra))
        assert run("--root", tmp_path).exit_code == 0
        roots = [tmp_path]
    for root in roots:
        found = nix_eval(f"import {root / 'nix' / 'pins.nix'}")
        expected = wanted(root)
        assert found == expected
        if extra:
            assert expected["default"]["sha256"] and len(expected["default"]["patches"]["magma"]) == 2
