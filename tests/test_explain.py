"""`gen-matrix explain`: what a variant is made of and which rule put it in, or which rule
keeps a combination out."""

from __future__ import annotations

import json
import re

import pytest

from conftest import REPO

BASE = 'pytorch: {version: "2.8.0"}\nnixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}\n'


@pytest.fixture(autouse=True)
def in_the_repository(monkeypatch):
    """Messages name the shipped matrix relative to the working folder: run from the checkout."""
    monkeypatch.chdir(REPO)


def explain_json(run, *args):
    result = run("explain", "--root", REPO, "--json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_a_variant_shows_every_resolved_value_and_its_origin(run):
    result = run("explain", "--root", REPO, "pytorch-python313-cuda12_8-sm61-avx")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == ("pytorch-python313-cuda12_8-sm61-avx: in the matrix "
                        "(gpu: python 3.13, cuda 12.8, sm sm61, isa avx)")
    text = "\n".join(" ".join(line.split()) for line in lines[1:])
    for row in [
        "put in by the product of gpu: axes (matrix.yaml:30)",
        "file .flox/pkgs/pytorch-python313-cuda12_8-sm61-avx.nix",
        "build with flox build pytorch-python313-cuda12_8-sm61-avx",
        "python 3.13 (python313Packages)",
        "cuda 12.8 (cudaPackages_12_8; NVIDIA driver 570.26 or newer)",
        "sm sm61 (capability 6.1, Pascal: GeForce GTX 1070,",
        "isa avx (x86_64; /proc/cpuinfo shows avx)",
        "cpu flags -mavx -mno-fma -mno-bmi -mno-bmi2 -mno-avx2",
        "switches USE_CUDNN=0 USE_FBGEMM=0 USE_MKLDNN=0 USE_MKLDNN_CBLAS=0 USE_NNPACK=0",
        "capabilities 6.1 (torch and every CUDA library it links (config.cudaCapabilities): they are built for it too)",
        "blas cublas",
        "platforms x86_64-linux",
        "jobs at most 32 at once on the generated workflow's builders (Nix's cores); each build runs one per 4 GiB of free memory",
        "features big-parallel",
        "description PyTorch 2.8.0 for NVIDIA Pascal GPUs (sm61) and avx CPUs, CUDA 12.8",
    ]:
        assert row in text, f"{row!r} not in\n{result.stdout}"


def test_the_explained_values_are_the_recipes_values(run):
    (outcome,) = explain_json(run, "pytorch-python313-cuda12_8-sm90-armv9")["outcomes"]
    recipe = (REPO / outcome["resolved"]["file"]).read_text()
    assert outcome["in_matrix"] and outcome["knowledge"] == {"allows": True, "reason": None}
    assert outcome["combination"] == {"python": "3.13", "cuda": "12.8", "sm": "sm90", "isa": "armv9"}
    flags = "".join(f'"{flag}" ' for flag in outcome["resolved"]["cpu_flags"])
    assert f"cpuFlags = [ {flags}];" in recipe
    assert f'capabilities = [ "{outcome["resolved"]["capabilities"][0]}" ];' in recipe
    assert f'platforms = [ "{outcome["resolved"]["platforms"][0]}" ];' in recipe
    assert f'description = "{outcome["resolved"]["description"]}";' in recipe
    assert outcome["resolved"]["build"] == "flox build pytorch-python313-cuda12_8-sm90-armv9"


def test_a_darwin_variant(run):
    (outcome,) = explain_json(run, ".flox/pkgs/pytorch-python313-darwin-mps.nix")["outcomes"]
    assert outcome["name"] == "pytorch-python313-darwin-mps"
    assert outcome["resolved"]["blas"] == "veclib" and outcome["resolved"]["platforms"] == ["aarch64-darwin"]
    assert outcome["resolved"]["capabilities"] == [] and outcome["resolved"]["cpu_flags"] == []


def test_a_combination_outside_the_axes_names_the_axis_and_the_knowledge_verdict(run):
    result = run("explain", "--root", REPO, "--sm", "6.1", "--cuda", "13.0", "--isa", "avx2")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    # first whether nvcc and PyTorch can build it at all, then why the matrix has no variant of it
    assert lines[0] == ("build: sm61 with CUDA 13.0 and PyTorch 2.8.0 cannot be built: sm61 (Pascal) was dropped "
                        "after CUDA 12.9; this asks for 13.0, which is too new; PyTorch 2.8's source does not build "
                        "with CUDA 13.0 (it takes CUDA >=11.0,<13.0)")
    wheels = lines.index(next(line for line in lines if line.startswith("wheels:")))
    table = [line for line in lines[wheels + 1:] if line.startswith("  ") and "SASS" in line or "PTX" in line
             or line.split()[:2] == ["PyTorch", "CUDA"] or line.startswith("  * ")]
    assert [line for line in lines if not line.startswith(("build:", "newest that", "note:", "prebuilt:", "wheels:",
                                                           "first release:")) and line not in table] == [
        "pytorch-python313-cuda13_0-sm61-avx2: not in the matrix (gpu: python 3.13, cuda 13.0, sm sm61, isa avx2)",
        "  kept out by  gpu.cuda (matrix.yaml:32:10): cuda 13.0 is not among gpu.cuda values (12.8)",
        "  also         the knowledge table: sm61 (Pascal) was dropped after CUDA 12.9; this asks for 13.0, which is too new",
    ]


def test_a_combination_a_restrict_rule_keeps_out_which_the_knowledge_table_allows(run):
    (outcome,) = explain_json(run, "--sm", "sm61", "--isa", "avx512", "--kind", "gpu")["outcomes"]
    assert not outcome["in_matrix"]
    assert outcome["reasons"] == [{"rule": "gpu.restrict[0]", "where": "matrix.yaml:37:13",
                                   "text": "where sm sm61, only isa avx/avx2"}]
    assert outcome["knowledge"] == {"allows": True, "reason": None}


@pytest.mark.parametrize("sm", ["sm61", "6.1", "61"])
def test_sm_is_given_by_name_capability_or_number(run, sm):
    assert explain_json(run, "--sm", sm, "--cuda", "12.8", "--isa", "avx2")["outcomes"][0]["name"] == \
        "pytorch-python313-cuda12_8-sm61-avx2"


def test_axes_left_out_range_over_the_matrix(run):
    result = run("explain", "--root", REPO, "--sm", "sm61")
    assert result.exit_code == 0
    assert "2 in the matrix, 5 not" in result.stdout
    assert "pytorch-python313-cuda12_8-sm61-avx2: in the matrix, from the product of gpu: axes" in result.stdout
    assert ("pytorch-python313-cuda12_8-sm61-armv9: not in the matrix: gpu.restrict[0] (matrix.yaml:37:13)"
            in result.stdout)


def test_an_isa_alone_asks_about_gpu_and_cpu_variants(run):
    kinds = {o["kind"] for o in explain_json(run, "--isa", "avx2")["outcomes"]}
    assert kinds == {"gpu", "cpu"}


def write_matrix(project, text):
    (project / "matrix.yaml").write_text(BASE + text)


def test_knowledge_exclude_and_include_rules_each_explained(project, run):
    write_matrix(project, """\
gpu:
  python: ["3.13"]
  cuda: ["12.8", "13.0"]
  sm: [sm61, sm90]
  isa: [avx2, avx512]
  exclude:
    - {sm: sm90, isa: avx2}
  include:
    - {python: "3.12", cuda: "12.8", sm: sm90, isa: avx2}
""")

    def outcome(*args):
        result = run("explain", "--root", project, "--json", *args)
        assert result.exit_code == 0, result.output
        (only,) = json.loads(result.stdout)["outcomes"]
        return only

    knowledge = outcome("--python", "3.13", "--sm", "sm61", "--cuda", "13.0", "--isa", "avx2")
    assert knowledge["reasons"] == [{"rule": "the knowledge table", "where": "",
                                     "text": "sm61 (Pascal) was dropped after CUDA 12.9; this asks for 13.0, which is too new"}]
    excluded = outcome("--python", "3.13", "--sm", "sm90", "--cuda", "12.8", "--isa", "avx2")
    assert excluded["reasons"] == [{"rule": "gpu.exclude[0]", "where": f"{project / 'matrix.yaml'}:9:7",
                                    "text": "excluded: sm sm90, isa avx2"}]
    included = outcome("--python", "3.12", "--sm", "sm90", "--cuda", "12.8", "--isa", "avx2")
    assert included["in_matrix"] and included["origin"] == f"gpu.include[0] ({project / 'matrix.yaml'}:11:7)"
    missing = outcome("--python", "3.14", "--sm", "sm90", "--cuda", "12.8", "--isa", "avx512")
    assert missing["reasons"][0]["text"] == "python 3.14 is not among gpu.python values (3.13)"


def test_a_dropped_combination_is_explained_by_its_would_be_name(project, run):
    write_matrix(project, 'gpu: {python: ["3.13"], cuda: ["12.8", "13.0"], sm: [sm61], isa: [avx2]}\n')
    result = run("explain", "--root", project, "pytorch-python313-cuda13_0-sm61-avx2")
    assert result.exit_code == 0
    assert "not in the matrix" in result.stdout and "sm61 (Pascal) was dropped after CUDA 12.9" in result.stdout


def test_a_matrix_that_expands_to_nothing_can_still_be_explained(project, run):
    write_matrix(project, 'gpu: {python: ["3.13"], cuda: ["13.0"], sm: [sm61], isa: [avx2]}\n')
    assert run("--root", project).exit_code == 2
    result = run("explain", "--root", project)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "pytorch-python313-cuda13_0-sm61-avx2: not in the matrix (gpu: python 3.13, cuda 13.0, sm sm61, isa avx2)",
        "  kept out by  the knowledge table: sm61 (Pascal) was dropped after CUDA 12.9; this asks for 13.0, which is too new",
    ]


def test_an_unknown_name_is_refused_with_a_suggestion(run):
    result = run("explain", "--root", REPO, "pytorch-python313-cuda12_8-sm91-avx512")
    assert result.exit_code == 2
    assert "no variant is named 'pytorch-python313-cuda12_8-sm91-avx512'" in result.stderr
    assert "did you mean 'pytorch-python313-cuda12_8-sm90-avx512'?" in result.stderr


@pytest.mark.parametrize("args, words", [
    (["--cuda", "12.7"], "error: --cuda: unknown cuda '12.7'"),
    (["--sm", "sm91"], "did you mean 'sm90'?"),
    (["--kind", "cpu", "--sm", "sm90"], "error: --kind: cpu variants have no sm"),
    (["--sm", "sm90", "--accelerator", "mps"], "no kind of variant has all of sm, accelerator"),
])
def test_bad_options_are_refused(run, args, words):
    result = run("explain", "--root", REPO, *args)
    assert result.exit_code == 2 and words in result.stderr


def test_a_name_and_axes_together_are_a_usage_error(run):
    result = run("explain", "--root", REPO, "pytorch-python313-cpu-avx2", "--isa", "avx2")
    assert result.exit_code == 2 and "not both" in result.output


def test_a_kind_the_matrix_has_no_section_for(project, run):
    write_matrix(project, 'cpu: {python: ["3.13"], isa: [avx2]}\n')
    result = run("explain", "--root", project, "--sm", "sm90")
    assert result.exit_code == 0, result.output
    assert any(line.endswith("matrix.yaml): has no gpu: section") for line in result.stdout.splitlines())
    full = run("explain", "--root", project, "--json", "--python", "3.13", "--accelerator", "mps")
    (outcome,) = json.loads(full.stdout)["outcomes"]
    assert outcome["name"] == "pytorch-python313-darwin-mps" and not outcome["in_matrix"]
    assert outcome["knowledge"] == {"allows": True, "reason": None}


@pytest.mark.parametrize("sm", ["sm_120", "sm120", "12.0", "120"])
@pytest.mark.parametrize("cuda", ["11.8", "12.0", "12.3", "12.4", "12.5"])
def test_a_cuda_release_nixpkgs_lacks_still_gets_the_sm_verdict(run, sm, cuda):
    # before, any CUDA outside the knowledge table was "unknown cuda"
    result = run("explain", "--root", REPO, "--sm", sm, "--cuda", cuda)
    assert result.exit_code == 0, result.output
    lines = [" ".join(line.split()) for line in result.stdout.splitlines()]
    start = lines.index(f"gpu: cuda {cuda}, sm sm120: not in the matrix")
    assert lines[start + 1] == (f"kept out by the knowledge table: sm120 (Blackwell consumer) needs CUDA >= 12.8; "
                                f"this asks for {cuda}, which is too old")
    assert lines[0].startswith(f"build: sm120 with CUDA {cuda} and PyTorch 2.8.0 cannot be built")
    assert f"nixpkgs packages no CUDA {cuda}" in result.stdout


def test_an_unpackaged_cuda_recent_enough_for_the_sm_says_only_what_is_missing(run):
    data = explain_json(run, "--sm", "sm61", "--cuda", "12.4")
    (outcome,) = data["outcomes"]
    texts = [reason["text"] for reason in outcome["reasons"]]
    assert texts[0] == ("nixpkgs packages no CUDA 12.4 (it packages 12.6, 12.8, 12.9, 13.0, 13.1); a hand build "
                        "with it needs NVIDIA driver 550.54.14 on Linux, 551.61 on Windows, or newer")
    # PyTorch's wheels do not ship 12.4: a note, not a reason the source cannot build
    assert any("PyTorch 2.8's own wheels are built for CUDA 12.6, 12.8 (experimental: 12.9), not 12.4: a build "
               "from source with it is untested upstream" in text for text in texts)
    assert data["build"][0].startswith("build: sm61 with CUDA 12.4 and PyTorch 2.8.0 can be built by hand")
    ok = explain_json(run, "--sm", "8.9", "--cuda", "11.8")["outcomes"][0]
    assert [r["text"][:30] for r in ok["reasons"]][:1] == ["nixpkgs packages no CUDA 11.8 "]


@pytest.mark.parametrize("cuda", ["twelve", "12.7"])
def test_text_that_is_no_cuda_release_is_still_an_unknown_cuda(run, cuda):
    result = run("explain", "--root", REPO, "--sm", "sm120", "--cuda", cuda)
    assert result.exit_code == 2 and f"unknown cuda '{cuda}'" in result.stderr


def test_pytorch_option_says_what_that_release_supports(run):
    result = run("explain", "--root", REPO, "--sm", "sm_120", "--cuda", "12.4", "--pytorch", "2.6")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    # sm120 needs 2.7: the release rows of 2.4 to 2.7 no longer say nothing against it
    assert lines[0] == ("build: sm120 with CUDA 12.4 and PyTorch 2.6 cannot be built: sm120 (Blackwell consumer) "
                        "needs CUDA >= 12.8; this asks for 12.4, which is too old; sm120 (Blackwell consumer) needs "
                        "PyTorch >=2.7; PyTorch 2.6's source does not build for it")
    assert "first release: PyTorch 2.7 is the first whose source builds for sm120 (CUDA >= 12.8)" in lines
    assert lines[-3:] == ["PyTorch 2.6: Python 3.9 to 3.13, CUDA 11.8, 12.4 (experimental: 12.6)",
                          "sm120 (Blackwell consumer) needs PyTorch >=2.7; PyTorch 2.6's source does not build for it",
                          "PyTorch 2.6's own CUDA 12.4 wheels leave out sm120 (12.0): a build for it from source "
                          "works, untested upstream"]
    newer = run("explain", "--root", REPO, "--sm", "sm120", "--cuda", "12.8", "--python", "3.14", "--isa", "avx2",
                "--pytorch", "2.8")
    assert "PyTorch 2.8 supports Python 3.9 to 3.13; 3.14 is outside" in newer.stdout
    unknown = run("explain", "--root", REPO, "--sm", "sm120", "--pytorch", "3.0")
    assert unknown.exit_code == 2
    lines = unknown.stderr.splitlines()
    assert lines[0] == "error: --pytorch: PyTorch 3.0 is not in the knowledge table's pytorch rows"
    # the hint names every release line, in version order (2.10 after 2.9, not after 2.1)
    lines_known = sorted(knowledge_release_lines(), key=lambda v: tuple(int(p) for p in v.split(".")))
    assert lines[1] == f"  hint: known release lines: {', '.join(lines_known)}"
    assert lines_known.index("2.10") == lines_known.index("2.9") + 1


# ---- whether nvcc and PyTorch can build it, before whether the matrix has it ------------

@pytest.mark.parametrize("cuda, verdict", [
    ("12.9", "build: sm120 with CUDA 12.9 and PyTorch 2.8.0 can be built by hand: CUDA 12.9's nvcc compiles for it "
             "and the release's source builds with it; running it needs NVIDIA driver 575.51.03 on Linux, 576.02 "
             "on Windows, or newer; `gen-matrix env --sm sm120 --cuda 12.9 --pytorch 2.8.0` writes the script"),
    ("13.0", "build: sm120 with CUDA 13.0 and PyTorch 2.8.0 cannot be built: PyTorch 2.8's source does not build "
             "with CUDA 13.0 (it takes CUDA >=11.0,<13.0)"),
    ("13.1", "build: sm120 with CUDA 13.1 and PyTorch 2.8.0 cannot be built: PyTorch 2.8's source does not build "
             "with CUDA 13.1 (it takes CUDA >=11.0,<13.0)"),
])
def test_a_cuda_outside_the_matrixs_axes_is_judged_before_the_matrix_says_it_lacks_it(run, cuda, verdict):
    result = run("explain", "--root", REPO, "--sm", "sm_120", "--cuda", cuda)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == verdict
    lacks = next(i for i, line in enumerate(lines) if "is not among gpu.cuda values" in line)
    assert lacks > 0


def test_explain_names_the_prebuilt_wheel_that_already_fits(run):
    data = explain_json(run, "--sm", "sm120", "--cuda", "12.9")  # a CUDA outside the matrix
    prebuilt = next(line for line in data["wheel_summary"] if line.startswith("prebuilt:"))
    # the newest release whose wheels run on sm120, with the oldest of its CUDA releases that do
    newest = max((f for f in data["wheels"]), key=lambda f: tuple(int(n) for n in f["pytorch"].split(".")))
    assert f"pip install torch=={newest['pytorch']} --index-url https://download.pytorch.org/whl/cu" in prebuilt
    assert {f["how"] for f in data["wheels"]} == {"SASS"} and "8.6" not in {f["target"] for f in data["wheels"]}
    # a combination the matrix holds is explained by its variant alone
    held = explain_json(run, "--sm", "sm120", "--cuda", "12.8", "--isa", "avx2")
    assert held["build"] == [] and held["wheels"][0]["command"] == data["wheels"][0]["command"]
    assert "a CPU instruction set of your choice, a smaller binary for one SM, or patches" in prebuilt


def test_the_kepler_owner_gets_an_honest_answer(run):
    k40 = run("explain", "--root", REPO, "--sm", "sm_35", "--cuda", "11.4", "--pytorch", "1.12")
    assert k40.exit_code == 0, k40.output
    assert k40.stdout.splitlines()[0] == (
        "build: sm35 with CUDA 11.4 and PyTorch 1.12 can be built by hand: CUDA 11.4's nvcc compiles for it and the "
        "release's source builds with it; running it needs NVIDIA driver 470.42.01 on Linux, 471.11 on Windows, or "
        "newer within R470, sm35's last driver branch; `gen-matrix env --sm sm35 --cuda 11.4 --pytorch 1.12.1` writes the script")
    assert re.search(r"^prebuilt: none of PyTorch's own wheels the knowledge table lists \(releases [0-9.]+ to "
                     r"[0-9.]+\) runs on sm35", k40.stdout, re.MULTILINE)
    cuda12 = run("explain", "--root", REPO, "--sm", "sm_35", "--cuda", "12.1").stdout.splitlines()
    assert cuda12[0].endswith("cannot be built: sm35 (Kepler) was dropped after CUDA 11.8; this asks for 12.1, "
                              "which is too new")
    # CUDA 11.8's own driver (520.61.05) is past Kepler's last branch: R470 runs it by minor-version compatibility
    assert cuda12[1] == ("newest that builds for sm35: PyTorch 2.7.1 with CUDA 11.8 and Python 3.13 (NVIDIA driver "
                         "R470, sm35's last driver branch: 450.80.02 on Linux, 452.39 on Windows, or newer within "
                         "R470, by CUDA 11.x minor-version compatibility (CUDA 11.8's own 520.61.05 is past R470; "
                         "that mode runs SASS only)): `gen-matrix env --sm sm35 --cuda 11.8 --pytorch 2.7.1 "
                         "--python 3.13` writes the script")


def test_a_fix_the_matrix_turned_off_shows_as_disabled(project, run):
    path = project / "matrix.yaml"
    path.write_text(path.read_text() + "knowledge:\n  fixes:\n    avx-only-kernels: {enabled: false}\n")
    (outcome,) = json.loads(run("explain", "--root", project, "--json",
                                "pytorch-python313-cuda12_8-sm61-avx").stdout)["outcomes"]
    assert {"name": "avx-only-kernels (disabled)",
            "why": "PyTorch compiles AVX2 and AVX-512 copies of its CPU kernels whatever the build's flags"} \
        in outcome["resolved"]["fixes"]
    on = json.loads(run("explain", "--root", REPO, "--json", "pytorch-python313-cuda12_8-sm61-avx").stdout)
    assert [f["name"] for f in on["outcomes"][0]["resolved"]["fixes"]] == ["avx-only-kernels"]


def test_the_json_holds_every_value_the_text_says_under_its_documented_key(run):
    """`explain --json` is read by scripts: its keys are an interface, and each value is the
    one the text shows."""
    name = "pytorch-python313-cuda12_8-sm61-avx"
    data = explain_json(run, name)
    assert set(data) == {"query", "outcomes", "pytorch", "build", "wheels", "wheel_summary", "matrix"}
    assert data["query"] == {"name": name}
    (outcome,) = data["outcomes"]
    assert set(outcome) == {"kind", "combination", "name", "in_matrix", "origin", "reasons", "knowledge", "resolved"}
    assert (outcome["kind"], outcome["name"], outcome["in_matrix"], outcome["reasons"]) == ("gpu", name, True, [])
    resolved = outcome["resolved"]
    assert set(resolved) == {"file", "build", "details", "cpu_flags", "disabled", "switches", "nixpkgs_off",
                             "capabilities", "capability_scope", "blas", "platforms", "jobs", "system_features",
                             "description", "pin", "fixes", "pytorch_support"}
    text = run("explain", "--root", REPO, name).stdout
    assert resolved["file"] == f".flox/pkgs/{name}.nix" and f"file          {resolved['file']}" in text
    assert resolved["build"] == f"flox build {name}"
    assert resolved["details"]["python"] == "python313Packages"
    assert resolved["cpu_flags"] == ["-mavx", "-mno-fma", "-mno-bmi", "-mno-bmi2", "-mno-avx2"]
    assert resolved["disabled"] == ["CUDNN", "FBGEMM", "MKLDNN", "MKLDNN_CBLAS", "NNPACK"]
    assert resolved["switches"] == {f"USE_{f}": "0" for f in resolved["disabled"]}
    assert resolved["nixpkgs_off"] == []
    assert (resolved["capabilities"], resolved["capability_scope"], resolved["blas"]) == (["6.1"], "nixpkgs", "cublas")
    assert (resolved["platforms"], resolved["jobs"], resolved["system_features"]) == (["x86_64-linux"], 32, ["big-parallel"])
    assert resolved["description"] in text and resolved["pin"] in text
    assert [fix["name"] for fix in resolved["fixes"]] == ["avx-only-kernels"] and resolved["fixes"][0]["why"] in text
    assert resolved["pytorch_support"] and all(note in text for note in resolved["pytorch_support"])
    absent = explain_json(run, "--python", "3.13", "--cuda", "12.8", "--sm", "sm61", "--isa", "avx512")
    (outcome,) = absent["outcomes"]
    assert outcome["resolved"] is None and outcome["in_matrix"] is False and outcome["reasons"]
    assert outcome["knowledge"] == {"allows": True, "reason": None}


def knowledge_release_lines() -> list[str]:
    from generator.knowledge import build, builtin

    return list(build(builtin()).pytorch)


def test_a_name_no_variant_has_is_a_located_error_and_a_dropped_name_says_what_kept_it_out(run):
    missing = run("explain", "--root", REPO, "NOPE-x")
    assert missing.exit_code == 2
    assert missing.stderr.splitlines()[:2] == [
        "error: matrix.yaml: no variant is named 'NOPE-x'",
        "  hint: `gen-matrix explain --sm SM --cuda VERSION --isa ISA` explains a combination"]
    name = "pytorch-python313-cuda12_8-sm61-avx512"
    data = explain_json(run, name)
    assert data["query"] == {"name": name}
    (outcome,) = data["outcomes"]
    assert (outcome["name"], outcome["in_matrix"], outcome["resolved"]) == (name, False, None)
    assert outcome["reasons"] == [{"rule": "gpu.restrict[0]", "where": "matrix.yaml:37:13",
                                   "text": "where sm sm61, only isa avx/avx2"}]
    text = run("explain", "--root", REPO, name).stdout
    assert text.splitlines()[1] == "  kept out by  gpu.restrict[0] (matrix.yaml:37:13): where sm sm61, only isa avx/avx2"


UNPACKAGED_12_4 = ("nixpkgs packages no CUDA 12.4 (it packages 12.6, 12.8, 12.9, 13.0, 13.1); a hand build with it "
                   "needs NVIDIA driver 550.54.14 on Linux, 551.61 on Windows, or newer")


def wheels_note(pytorch: str, cuda: str, built: str) -> str:
    return (f"PyTorch {pytorch}'s own wheels are built for CUDA {built}, not {cuda}: a build from source with it "
            "is untested upstream")


def test_an_unpackaged_cuda_outcome_whole(run):
    data = explain_json(run, "--sm", "sm61", "--cuda", "12.4", "--python", "3.13", "--isa", "avx2")
    assert data["query"] == {"python": "3.13", "cuda": "12.4", "sm": "sm61", "isa": "avx2"}
    assert data["outcomes"] == [{
        "kind": "gpu", "combination": {"python": "3.13", "cuda": "12.4", "sm": "sm61", "isa": "avx2"},
        "name": None, "in_matrix": False, "origin": None,
        "reasons": [{"rule": "the knowledge table", "where": "", "text": UNPACKAGED_12_4},
                    {"rule": "PyTorch's release notes", "where": "",
                     "text": wheels_note("2.8", "12.4", "12.6, 12.8 (experimental: 12.9)")}],
        "knowledge": None, "resolved": None}]


def test_an_unpackaged_cuda_alone_is_asked_of_every_sm_of_the_matrix_in_its_order(run):
    result = run("explain", "--root", REPO, "--cuda", "12.4")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    sms = ["sm61", "sm75", "sm80", "sm86", "sm89", "sm90", "sm100", "sm120"]
    assert [line.split(": not in the matrix")[0] for line in lines[:-1]] == [f"gpu: cuda 12.4, sm {sm}" for sm in sms]
    too_old = {"sm100": "sm100 (Blackwell datacenter) needs CUDA >= 12.8; this asks for 12.4, which is too old",
               "sm120": "sm120 (Blackwell consumer) needs CUDA >= 12.8; this asks for 12.4, which is too old"}
    for sm, line in zip(sms, lines):
        reasons = [f"the knowledge table: {too_old[sm]}"] if sm in too_old else []
        reasons += [f"the knowledge table: {UNPACKAGED_12_4}",
                    f"PyTorch's release notes: {wheels_note('2.8', '12.4', '12.6, 12.8 (experimental: 12.9)')}"]
        assert line == f"gpu: cuda 12.4, sm {sm}: not in the matrix: " + "; also ".join(reasons)
    assert lines[-1] == "0 in the matrix, 8 not; `gen-matrix explain NAME` shows one in full"


def test_an_unpackaged_cuda_is_judged_by_the_pytorch_asked_about(run):
    (outcome,) = explain_json(run, "--sm", "sm61", "--cuda", "12.4", "--pytorch", "2.9")["outcomes"]
    assert [r["text"] for r in outcome["reasons"]] == [
        UNPACKAGED_12_4, wheels_note("2.9", "12.4", "12.6, 12.8 (experimental: 13.0)")]


def test_an_unpackaged_cuda_without_a_gpu_section_is_asked_of_every_sm_the_knowledge_table_knows(project, run):
    from generator.knowledge import build, builtin

    write_matrix(project, 'cpu: {python: ["3.13"], isa: [avx2]}\n')
    data = explain_json(run, "--root", project, "--cuda", "12.4")
    assert [o["combination"] for o in data["outcomes"]] == [{"cuda": "12.4", "sm": sm} for sm in build(builtin()).sm]


XAVIER = 'gpu: {python: ["3.13"], cuda: ["12.8"], sm: [sm72], isa: [armv8_2]}\n'


def test_an_sm_no_wheel_runs_on_gets_the_newest_build_for_the_python_asked_about(project, run):
    write_matrix(project, XAVIER)
    data = explain_json(run, "--root", project, "--sm", "sm72", "--python", "3.13")
    assert [o["in_matrix"] for o in data["outcomes"]] == [True] and data["wheels"] == []
    assert data["wheel_summary"] == [
        "prebuilt: none of PyTorch's own wheels runs on sm72 (Volta Xavier): they are built for servers, and a Jetson "
        "runs NVIDIA's JetPack builds of PyTorch; else a build from source is the way",
        "newest that builds for sm72: PyTorch 2.14.1 with CUDA 12.6 and Python 3.13 (a Jetson's driver comes with "
        "JetPack, whose CUDA release decides what runs on the board): `gen-matrix env --sm sm72 --cuda 12.6 "
        "--pytorch 2.14.1 --python 3.13` writes the script"]


def test_a_variant_an_include_rule_adds_beyond_the_product_is_among_the_outcomes(project, run):
    write_matrix(project, XAVIER.replace("}\n", ", include: [{python: '3.13', cuda: '12.8', sm: sm87, isa: armv9}]}\n"))
    data = explain_json(run, "--root", project, "--cuda", "12.8")
    assert [(o["name"], o["in_matrix"]) for o in data["outcomes"]] == [
        ("pytorch-python313-cuda12_8-sm72-armv8_2", True), ("pytorch-python313-cuda12_8-sm87-armv9", True)]


def test_axes_no_kind_has_together_are_a_located_error_with_the_kinds_axes(run):
    result = run("explain", "--root", REPO, "--accelerator", "mps", "--sm", "sm90")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[:2] == [
        "error: --sm: no kind of variant has all of sm, accelerator",
        "  hint: ask about gpu (python, cuda, sm, isa), cpu (python, isa), darwin (python, accelerator) or rocm (python, rocm, gfx, isa) separately"]


def test_one_outcome_the_knowledge_table_allows_says_so_in_its_own_row(run):
    lines = run("explain", "--root", REPO, "--sm", "sm61", "--isa", "avx512", "--kind", "gpu", "--python", "3.13",
                "--cuda", "12.8").stdout.splitlines()
    start = lines.index("pytorch-python313-cuda12_8-sm61-avx512: not in the matrix (gpu: python 3.13, cuda 12.8, "
                        "sm sm61, isa avx512)")
    assert lines[start + 1:start + 3] == [
        "  kept out by  gpu.restrict[0] (matrix.yaml:37:13): where sm sm61, only isa avx/avx2",
        "  knowledge    allows this combination"]


def test_the_fixes_rows_are_labelled_once_and_the_accelerator_row_says_what_it_is(project, run):
    lines = run("explain", "--root", REPO, "pytorch-python313-darwin-mps").stdout.splitlines()
    assert "  accelerator  mps (aarch64; Metal Performance Shaders on Apple Silicon)" in lines
    (project / "matrix.yaml").write_text(
        'pytorch:\n  version: "2.9.0"\n  source: {rev: v2.9.0, hash: "sha256-BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB="}\n'
        "nixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}\n" + XAVIER)
    result = run("explain", "--root", project, "pytorch-python313-cuda12_8-sm72-armv8_2")
    assert result.exit_code == 0, result.output
    fixes = [line for line in result.stdout.splitlines()
             if line[16:].startswith(("findcudatoolkit-stub:", "torch-source-patches:", "torch-source-version:"))]
    assert [line[:16] for line in fixes] == ["  build fix     ", "                ", "                "]


def test_a_build_by_hand_without_a_cuda_release_names_none(run):
    lines = run("explain", "--root", REPO, "--sm", "sm120", "--pytorch", "2.6").stdout.splitlines()
    assert lines[0] == ("build: sm120 and PyTorch 2.6 cannot be built: sm120 (Blackwell consumer) needs PyTorch >=2.7; "
                        "PyTorch 2.6's source does not build for it")
    python = run("explain", "--root", REPO, "--sm", "sm120", "--cuda", "12.9", "--python", "3.14").stdout.splitlines()
    assert python[0] == ("build: sm120 with CUDA 12.9 and PyTorch 2.8.0 cannot be built: PyTorch 2.8 supports Python "
                         "3.9 to 3.13; 3.14 is outside")


def test_a_jetson_build_says_nixpkgs_turns_nccl_off(project, run):
    write_matrix(project, XAVIER)
    lines = run("explain", "--root", project, "pytorch-python313-cuda12_8-sm72-armv8_2").stdout.splitlines()
    assert "  switches      USE_CUDNN=0 USE_NCCL=0 USE_STATIC_NCCL=0 USE_SYSTEM_NCCL=0" in lines
    assert ("  nixpkgs       NCCL off: nixpkgs builds no NCCL for a Jetson part (its nccl is unsupported on "
            "aarch64-linux in a Jetson build), and its torch links NCCL only where nccl is available") in lines
