"""ROCm as a kind of the matrix: a `rocm:` section of ROCm releases x gfx targets generates
recipes that build nixpkgs' torch with rocmSupport and gpuTargets, and the example matrix
examples/pytorch-2.8-rocm evaluates against the test package set.

What this cannot prove: the stand-ins model rocmPackages 6.4.3 (clr's gpuTargets as read,
every other ROCm package an empty derivation), so an evaluated recipe says that nixpkgs'
torch expression is called as a ROCm build for the variant's target, not that it compiles."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from conftest import REPO, NixError, drv_paths, expansion_of, fake_for, needs_nix, nix_eval
from generator.errors import GenMatrixError
from generator.pipeline import expand, load, validate

EXAMPLE = REPO / "examples/pytorch-2.8-rocm/matrix.yaml"
FE5E41D_X86 = REPO / "tests/nix/nixpkgs-fe5e41d-x86_64-linux"
GEN_MATRIX = "ci:\n  gen_matrix: github:o/gen-matrix/" + "0" * 40 + "\n"


def generated(tmp_path: Path, run, text: str | None = None) -> Path:
    root = tmp_path / "rocm"
    root.mkdir()
    if text is None:
        shutil.copy(EXAMPLE, root / "matrix.yaml")
    else:
        (root / "matrix.yaml").write_text(text)
    result = run("--root", root)
    assert result.exit_code == 0, result.output
    assert run("check", "--root", root).exit_code == 0
    return root


def expansion(text: str):
    return expand.expand(validate.validate(load.parse(text, "matrix.yaml")))


MATRIX = """\
pytorch:
  version: "2.8.0"
nixpkgs:
  rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3
rocm:
  python: ["3.12", "3.13"]
  rocm: ["6.4"]
  gfx: [gfx90a, gfx942, gfx950]
  isa: [avx2, armv9]
""" + GEN_MATRIX


def test_the_product_of_rocm_releases_and_gfx_targets_is_named_like_the_cuda_variants():
    result = expansion(MATRIX)
    assert [v.name for v in result.variants] == [
        f"pytorch-python{py}-rocm6_4-{gfx}-avx2" for py in ("312", "313") for gfx in ("gfx90a", "gfx942")]
    variant = result.by_name["pytorch-python313-rocm6_4-gfx942-avx2"]
    assert (variant.kind, variant.system, variant.rocm.name, variant.gfx.name) == ("rocm", "x86_64-linux", "6.4", "gfx942")
    reasons = {dict(d.combination)["gfx"] + "/" + dict(d.combination)["isa"]: d.reason for d in result.dropped}
    # clr 6.4.3 lists no gfx950 (MI350X comes with ROCm 7), and nixpkgs builds ROCm for x86_64 only
    assert "not for gfx950 (CDNA 4)" in reasons["gfx950/avx2"]
    assert "x86_64 hosts only; armv9 is aarch64" in reasons["gfx942/armv9"]
    assert any("gfx950 yields no variant" in w.message for w in result.warnings)


@pytest.mark.parametrize("text, where, said", [
    (MATRIX.replace("gfx950]", "gfx9999]"), "matrix.yaml:8", "unknown gfx 'gfx9999'"),
    (MATRIX.replace('rocm: ["6.4"]', 'rocm: ["5.7"]'), "matrix.yaml:7", "unknown rocm '5.7'"),
    (MATRIX + "naming:\n  rocm: \"{package}-python{python}-rocm{rocm}-{isa}\"\n", "matrix.yaml:13",
     "naming.rocm lacks {gfx}"),
])
def test_a_bad_rocm_value_is_named_where_it_is_written(text, where, said):
    with pytest.raises(GenMatrixError) as raised:
        expansion(text)
    found = [p for p in raised.value.problems if said in p.message]
    assert found and f"{found[0].where.path}:{found[0].where.line}" == where, [str(p) for p in raised.value.problems]


def test_a_rocm_release_the_pin_lacks_is_a_warning_at_its_value():
    text = MATRIX + 'knowledge:\n  rocm:\n    "6.3": {targets: [gfx942], hosts: [x86_64], source: test}\n'
    result = expansion(text.replace('rocm: ["6.4"]', 'rocm: ["6.3", "6.4"]'))
    said = [w for w in result.warnings if "ROCm 6.3:" in w.message]
    assert len(said) == 1 and said[0].where.line == 7
    assert "has ROCm 6.4.3" in said[0].message and not any("ROCm 6.4:" in w.message for w in result.warnings)


def test_the_cli_refuses_a_bad_gfx_target_with_exit_2_and_writes_nothing(tmp_path, run):
    root = tmp_path / "bad"
    root.mkdir()
    (root / "matrix.yaml").write_text(MATRIX.replace("gfx950]", "gfx9999]"))
    result = run("--root", root)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "matrix.yaml:8" in result.output and "other_gpus (kind: rocm)" in result.output
    assert sorted(p.name for p in root.iterdir()) == ["matrix.yaml"]


@needs_nix
def test_the_rocm_example_generates_and_gen_matrix_eval_evaluates_every_recipe(tmp_path, run):
    root = generated(tmp_path, run)
    names = sorted(p.stem for p in (root / ".flox/pkgs").glob("*.nix"))
    torches = [n for n in names if n.startswith("pytorch-") and "-rocm" in n]
    assert torches == sorted(f"pytorch-python{py}-rocm6_4-{gfx}-{isa}" for py in ("312", "313")
                             for gfx, isas in (("gfx1100", ["avx2"]), ("gfx90a", ["avx2", "avx512"]),
                                               ("gfx942", ["avx2", "avx512"])) for isa in isas)
    assert len([n for n in names if n.startswith(("torchvision-", "torchaudio-"))]) == 8
    result = run("eval", "--root", root, "--nixpkgs", FE5E41D_X86)
    assert result.exit_code == 0, result.output
    assert f"{len(names)} recipes, {len(names)} evaluated, 0 failed" in result.output


def facts_of(root: Path, name: str) -> dict:
    """What the ROCm recipe `name` hands nixpkgs, read from the derivations it evaluates to."""
    expansion_ = expansion_of(root)
    variant = expansion_.by_name[name]
    recipe = root / ".flox/pkgs" / f"{name}.nix"
    return nix_eval(f"""
      let r = import {recipe} {{ genMatrixNixpkgs = {fake_for(variant, expansion_.matrix)}; }};
          t = r.unwrapped; pkgs = r.genMatrix.pkgs;
      in {{
        name = t.name; rocmSupport = t.rocmSupport; cudaSupport = t.cudaSupport;
        preConfigure = t.preConfigure; config = pkgs.config.rocmSupport;
        magma = pkgs.magma.rocmSupport; gpuArch = r.gpuArch; build = t.drvPath;
        cmakeFlags = t.cmakeFlags or [ ];
      }}""")


@needs_nix
def test_each_rocm_torch_compiles_for_its_own_gfx_target_and_its_companions_too(tmp_path, run):
    root = generated(tmp_path, run)
    mi300 = facts_of(root, "pytorch-python313-rocm6_4-gfx942-avx2")
    mi250 = facts_of(root, "pytorch-python312-rocm6_4-gfx90a-avx512")
    radeon = facts_of(root, "pytorch-python313-rocm6_4-gfx1100-avx2")
    for facts, gfx in ((mi300, "gfx942"), (mi250, "gfx90a"), (radeon, "gfx1100")):
        # nixpkgs' own torch expression exports PYTORCH_ROCM_ARCH from gpuTargets, not clr's 13 targets
        assert f'export PYTORCH_ROCM_ARCH="{gfx}"\n' in facts["preConfigure"]
        assert facts["rocmSupport"] and not facts["cudaSupport"] and facts["config"] and facts["magma"]
        assert facts["gpuArch"] == gfx and facts["name"].endswith(f"-rocm6.4-{gfx}-" + facts["name"].rsplit("-", 1)[1])
    assert len({mi300["build"], mi250["build"], radeon["build"]}) == 3
    audio = nix_eval(f"""
      let r = import {root / ".flox/pkgs/torchaudio-python313-rocm6_4-gfx942-avx2.nix"}
            {{ genMatrixNixpkgs = {FE5E41D_X86}; }};
      in r.unwrapped.cmakeFlags""")
    assert "-DPYTORCH_ROCM_ARCH=gfx942" in audio


@needs_nix
def test_a_rocm_release_other_than_the_package_sets_is_refused_when_nix_evaluates(tmp_path, run):
    text = MATRIX.replace("gfx950]", "gfx950]\n") + (
        'knowledge:\n  rocm:\n    "6.3": {targets: [gfx942], hosts: [x86_64], source: test}\n')
    root = generated(tmp_path, run, text.replace('rocm: ["6.4"]', 'rocm: ["6.3"]').replace(
        "gfx: [gfx90a, gfx942, gfx950]", "gfx: [gfx942]"))
    with pytest.raises(NixError, match="asks for ROCm 6.3, but this nixpkgs has ROCm 6.4.3"):
        drv_paths(root, {"pytorch-python313-rocm6_3-gfx942-avx2"})


# ---- smoke: what a ROCm build is checked for ---------------------------------------------

def rocm_facts(**changes) -> dict:
    """What the probe reports of a ROCm torch on an MI300X host: HIP, one gfx target, the GPU."""
    facts = {
        "python": "3.13.5", "torch": "2.8.0", "torch_file": "/nix/store/x-torch/torch/__init__.py",
        "machine": "x86_64", "aten_cpu_capability": None,
        "cuda": None, "hip": "6.4.43484-0", "cuda_available": True, "arch_list": ["gfx942:sramecc+:xnack-"],
        "arch_source": "torch.cuda.get_arch_list()",
        "cpu_capability": "AVX2", "cpu_ceiling": "AVX512", "cpu_ceiling_source": "torch.cpu",
        "devices": [{"name": "AMD Instinct MI300X", "capability": "9.4"}],
        "compute": {"cpu": {"device": "cpu", "ok": True, "size": 64, "wrong": 0},
                    "cuda": {"device": "cuda:0", "ok": True, "size": 64, "wrong": 0}},
    }
    facts.update(changes)
    return facts


def rocm_promise(name: str = "pytorch-python313-rocm6_4-gfx942-avx2"):
    from generator.commands import promise

    result = expansion(MATRIX)
    return promise.promise_of(result.matrix, result.by_name[name])


def smoke_of(facts: dict, name: str = "pytorch-python313-rocm6_4-gfx942-avx2") -> dict[str, tuple[str, str]]:
    from generator.commands import host, smoke

    cpu = host.gather(cpuinfo=REPO / "tests/fixtures/hosts/xeon8480-h100/cpuinfo", gpus=(), gpu_source="")
    return {c.name: (c.state, c.detail) for c in smoke.checks(rocm_promise(name), facts, cpu)}


def test_a_rocm_build_of_its_release_and_gfx_target_passes_and_computes_on_the_gpu():
    found = smoke_of(rocm_facts())
    assert {name: state for name, (state, _) in found.items()} == {
        "torch": "PASS", "python": "PASS", "version": "PASS", "cuda": "PASS", "rocm": "PASS", "arch": "PASS",
        "cpu": "PASS", "kernels": "PASS", "compute": "PASS", "gpu": "PASS"}
    assert "torch.version.hip is 6.4.43484-0" in found["rocm"][1]
    assert "exactly gfx942" in found["arch"][1]
    # the same facts against the gfx90a variant: another target's code
    assert smoke_of(rocm_facts(), "pytorch-python313-rocm6_4-gfx90a-avx2")["arch"][0] == "FAIL"


@pytest.mark.parametrize("changes, check, state, said", [
    ({"hip": None}, "rocm", "FAIL", "this torch has no ROCm"),
    ({"hip": "6.3.42131-0"}, "rocm", "FAIL", "the variant is ROCm 6.4"),
    ({"arch_list": ["gfx90a", "gfx942"]}, "arch", "FAIL", "promises gfx942 (CDNA 3) alone"),
    ({"arch_list": [], "arch_source": "torch._C._cuda_getArchFlags()"}, "arch", "SKIP", "cannot be checked here"),
    ({"cuda_available": False}, "gpu", "SKIP", "no usable AMD GPU"),
    ({"compute": {"cpu": {"device": "cpu", "ok": True, "size": 64, "wrong": 0},
                  "cuda": {"device": "cuda:0", "ok": False, "size": 64, "wrong": 3}}}, "gpu", "FAIL", "3 wrong values"),
    ({"cuda": "12.8"}, "cuda", "FAIL", "built without CUDA"),
])
def test_each_rocm_mismatch_fails_or_skips_its_own_check(changes, check, state, said):
    found = smoke_of(rocm_facts(**changes))
    assert found[check][0] == state and said in found[check][1], found[check]
    assert all(s == "PASS" for name, (s, _) in found.items() if name != check)


def test_the_probe_reads_a_rocm_builds_gfx_targets_without_a_gpu():
    from types import SimpleNamespace

    from generator.commands import smoke_probe

    def torch(hip, flags):
        return SimpleNamespace(cuda=SimpleNamespace(get_arch_list=lambda: []),
                               version=SimpleNamespace(cuda=None, hip=hip),
                               _C=SimpleNamespace(_cuda_getArchFlags=lambda: flags))

    assert smoke_probe.arch_list(torch("6.4.43484-0", "gfx90a;gfx942")) == (
        ["gfx90a", "gfx942"], "torch._C._cuda_getArchFlags()")
    assert smoke_probe.arch_list(torch(None, "gfx942")) == ([], "torch.cuda.get_arch_list()")


# ---- the generated workflow, run by tests/workflow_harness.py ------------------------------

WORKFLOW_MATRIX = """\
pytorch: {version: "2.8.0"}
nixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}
rocm:
  python: ["3.13"]
  rocm: ["6.4"]
  gfx: [gfx90a, gfx942]
  isa: [avx2]
companions:
  - packages: [torchaudio]
    when: {gfx: gfx942}
ci:
  gpu_runners:
    - {labels: [self-hosted, linux, x64, mi300x], system: x86_64-linux, gfx: [gfx942]}
"""
MI300 = ["pytorch-python313-rocm6_4-gfx942-avx2", "torchaudio-python313-rocm6_4-gfx942-avx2"]
MI250 = ["pytorch-python313-rocm6_4-gfx90a-avx2"]


@needs_nix
@pytest.mark.skipif(shutil.which("git") is None or shutil.which("bash") is None,
                    reason="the workflow's scripts need git and bash")
def test_the_workflow_builds_smoke_tests_and_publishes_rocm_variants_on_their_runners(tmp_path, run):
    import json

    from test_workflow_logic import Project, assert_each_build_smoke_tested_then_published, assert_each_torch_built_once

    project = Project(tmp_path, run, WORKFLOW_MATRIX)
    head = project.commit("The matrix")
    done = project.harness.run("push", head)
    assert done.results == {"plan": "success", "build": "success", "mark-published": "success"}, "\n".join(done.log)
    assert sorted(done.publishes()) == sorted(MI300 + MI250) == sorted(done.smokes())
    assert_each_build_smoke_tested_then_published(done)
    assert_each_torch_built_once(done)
    assert "| torch, rocm | 2 |" in done.summary
    jobs = {job["name"]: job for shard in json.loads(done.artifacts["gen-matrix-plan"].read_text())["shards"]
            for job in shard}
    # the MI300X variant and its companion on the runner with that GPU; the other on the ROCm builders
    assert (jobs[MI300[0]]["runner"], jobs[MI300[0]]["gpu"], jobs[MI300[0]]["builds"]) == (
        ["self-hosted", "linux", "x64", "mi300x"], True, " ".join(MI300))
    assert (jobs[MI250[0]]["runner"], jobs[MI250[0]]["gpu"]) == (["self-hosted", "linux", "x64", "pytorch-builder"], False)
    # selection by build identity: new names for gfx942's GPUs change its descriptions only, so
    # its two builds are wrappers over the published heavy builds
    names = lambda data: data.setdefault("knowledge", {}).setdefault("other_gpus", {}).setdefault(
        "gfx942", {}).update(gpus=["Instinct MI300X OAM"])
    relabelled = project.harness.run("push", project.commit("gfx942's GPUs", names))
    assert sorted(relabelled.publishes()) == sorted(MI300) and relabelled.compiled() == []
    assert sorted(relabelled.substituted()) == sorted(MI300)


def test_build_matrix_and_the_readme_list_the_rocm_variants_by_gfx_target(tmp_path, run):
    root = tmp_path / "docs"
    root.mkdir()
    shutil.copy(EXAMPLE, root / "matrix.yaml")
    blocks = "".join(f"<!-- gen-matrix:begin {name} -->\n<!-- gen-matrix:end {name} -->\n" for name in ("gpus", "variants"))
    (root / "README.md").write_text("# Our builds\n\n" + blocks)
    assert run("--root", root).exit_code == 0
    build_matrix = (root / "BUILD_MATRIX.md").read_text()
    readme = (root / "README.md").read_text()
    assert "### AMD GPU (ROCm) (10)" in build_matrix
    assert "| gfx942 | CDNA 3 | Instinct MI300X, Instinct MI300A, Instinct MI325X | 6.4 | 4 |" in build_matrix
    assert "| gfx1100 | RDNA 3 | Radeon RX 7900 XTX, Radeon RX 7900 XT, Radeon PRO W7900, Radeon PRO W7800 | 6.4 | 2 |" \
        in build_matrix
    assert "| `pytorch-python313-rocm6_4-gfx90a-avx512` | 3.13 | 6.4 | gfx90a | avx512 | PyTorch 2.8.0 for AMD CDNA 2 " \
           "GPUs (gfx90a) and avx512 CPUs, ROCm 6.4 | 0 | - | unknown |" in build_matrix
    assert "| kind | CUDA or ROCm | SM or gfx | variants |" in readme
    assert "| AMD GPU (ROCm) | ROCm 6.4 | gfx942 | 4 |" in readme and "| AMD GPU (ROCm) | ROCm 6.4 | gfx90a | 4 |" in readme
    assert "| gfx90a | CDNA 2 | Instinct MI210, Instinct MI250, Instinct MI250X | 6.4 |" in readme


def test_explain_says_why_a_gfx_target_is_left_out(tmp_path, run):
    root = generated(tmp_path, run)
    result = run("explain", "--gfx", "gfx950", "--python", "3.13", "--isa", "avx2", "--root", root)
    assert result.exit_code == 0, result.output
    assert "pytorch-python313-rocm6_4-gfx950-avx2: not in the matrix" in result.output
    assert "not for gfx950 (CDNA 4)" in result.output
    result = run("explain", "--gfx", "gfx942", "--rocm", "6.4", "--python", "3.12", "--isa", "avx512", "--root", root)
    assert "pytorch-python312-rocm6_4-gfx942-avx512: in the matrix" in result.output, result.output


def test_the_upstream_wheel_of_a_rocm_variant_is_pytorchs_rocm_wheel_never_the_cpu_one(tmp_path, run):
    from generator import knowledge as knowledge_

    known = knowledge_.build(knowledge_.builtin())
    gfx = known.gfx
    # 2.13's ROCm 7.2 wheels list gfx942 and gfx1101; 2.8's list was not read
    assert knowledge_.upstream_for(known, "2.13.0", "3.13", ("x86_64-linux",), None, gfx["gfx942"]) == "rocm7.2 (pip)"
    assert knowledge_.upstream_for(known, "2.13.0", "3.13", ("x86_64-linux",), None, gfx["gfx1101"]) == "rocm7.2 (pip)"
    assert knowledge_.upstream_for(known, "2.8.0", "3.13", ("x86_64-linux",), None, gfx["gfx942"]) == "unknown"
    root = generated(tmp_path, run)
    import json

    listed = {v["name"]: v for v in json.loads(run("list", "--format", "json", "--root", root).stdout)}
    mi300 = listed["pytorch-python313-rocm6_4-gfx942-avx2"]
    assert (mi300["rocm"], mi300["gfx"], mi300["upstream_wheel"], mi300["job_memory_gb"]) == ("6.4", "gfx942", "unknown", 4)


@pytest.mark.parametrize("runners, where, said", [
    ("    - {labels: [a], system: x86_64-linux, gfx: [gfx942]}\n    - {labels: [b], system: x86_64-linux, gfx: [gfx942]}\n",
     "matrix.yaml:13", "gfx942 on x86_64-linux already has a GPU runner, ci.gpu_runners[0]"),
    ("    - {labels: [a], system: x86_64-linux, gfx: [gfx94]}\n", "matrix.yaml:12", "unknown gfx 'gfx94'"),
    ("    - {labels: [a], system: x86_64-linux}\n", "matrix.yaml:12",
     "ci.gpu_runners[0] lacks a key: one of 'sm', 'gfx'"),
])
def test_a_gpu_runner_names_its_gfx_targets_once_and_known(runners, where, said):
    with pytest.raises(GenMatrixError) as raised:
        expansion(MATRIX.replace("ci:\n", "ci:\n  gpu_runners:\n" + runners))
    found = [p for p in raised.value.problems if said in p.message]
    assert found and f"{found[0].where.path}:{found[0].where.line}" == where, [str(p) for p in raised.value.problems]


def test_detect_recommends_the_matrixs_rocm_variant_for_an_amd_gpu(tmp_path, run):
    root = generated(tmp_path, run)
    cpuinfo = REPO / "tests/fixtures/hosts/xeon8480-h100/cpuinfo"  # AVX-512
    found = run("detect", "--root", root, "--gpu", "AMD Instinct MI300X", "--cpuinfo", cpuinfo, "--uname",
                "Linux x86_64", "--name")
    assert found.exit_code == 0, found.output
    assert found.stdout.strip() == "pytorch-python313-rocm6_4-gfx942-avx512"
    said = run("detect", "--root", root, "--gpu", "AMD Instinct MI300X", "--cpuinfo", cpuinfo, "--uname", "Linux x86_64")
    assert "the matrix builds gfx942: pytorch-python312-rocm6_4-gfx942-avx2" in said.output
    assert "not ROCm ones" not in said.output
    # a gfx target the matrix lacks: PyTorch's wheel, and a CPU-only variant
    other = run("detect", "--root", root, "--gpu", "Radeon RX 7800 XT", "--cpuinfo", cpuinfo, "--uname", "Linux x86_64",
                "--name")
    assert other.stdout.strip() == "pytorch-python313-cpu-avx2"
    explained = run("explain", "--root", root, "--gpu", "AMD Instinct MI300X")
    assert "the matrix builds gfx942: pytorch-python312-rocm6_4-gfx942-avx2" in explained.output


@pytest.mark.skipif(os.name != "posix", reason="a stand-in interpreter written as a #!/bin/sh script")
@pytest.mark.parametrize("hip, rocm_check", [("6.4.43484-0", "PASS"), ("6.3.42131-0", "FAIL"), (None, "FAIL")])
def test_a_builder_without_the_isa_checks_a_rocm_build_from_its_files(run, tmp_path, hip, rocm_check):
    import sys
    import textwrap

    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    (tmp_path / "matrix.yaml").write_text(textwrap.dedent(f"""\
        pytorch: {{version: "2.8.0"}}
        nixpkgs: {{rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}}
        knowledge:
          python:
            "{python}": {{}}
        rocm: {{python: ["{python}"], rocm: ["6.4"], gfx: [gfx942], isa: [avx512]}}
    """))
    name = f"pytorch-python{python.replace('.', '')}-rocm6_4-gfx942-avx512"
    # a torch that dies of SIGILL on import, as an AVX-512 build does on an AVX2 builder
    package = tmp_path / "site" / "torch"
    package.mkdir(parents=True)
    (package / "version.py").write_text("from typing import Optional\n__version__ = '2.8.0'\n"
                                        "cuda: Optional[str] = None\n" + (f"hip = '{hip}'\n" if hip else ""))
    (package / "__init__.py").write_text("import os, signal\nos.kill(os.getpid(), signal.SIGILL)\n")
    base = Path(sys.base_prefix) / "bin" / f"python{python}"
    interpreter = tmp_path / "python"
    interpreter.write_text(f"#!/bin/sh\nPYTHONPATH={tmp_path / 'site'} exec {base} -S \"$@\"\n")
    interpreter.chmod(0o755)
    avx2_only = REPO / "tests/fixtures/hosts/ryzen5950x-rtx3090/cpuinfo"
    result = run("smoke", "--root", tmp_path, name, "--python", interpreter, "--cpuinfo", avx2_only, "--builder")
    rows = [line.split()[:2] for line in result.stdout.splitlines()[1:-1]]
    assert rows == [["SKIP", "torch"], ["PASS", "python"], ["PASS", "version"], ["PASS", "cuda"], [rocm_check, "rocm"],
                    ["SKIP", "arch"], ["SKIP", "kernels"], ["SKIP", "compute"], ["SKIP", "gpu"]], result.stdout
    assert result.exit_code == (0 if rocm_check == "PASS" else 1)
