"""list and show: the variants as people and scripts look for them."""

from __future__ import annotations

import dataclasses
import json

import pytest

from generator.commands import listing

from conftest import REPO, expansion_of

MATRIX = REPO / "matrix.yaml"


def names(run, *args) -> list[str]:
    result = run("list", "--matrix", MATRIX, *args)
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def test_names_lists_every_variant_one_a_line(run):
    assert names(run) == [v.name for v in expansion_of(REPO).variants]


def test_filters_on_every_axis_combine(run):
    assert names(run, "--sm", "9.0", "--isa", "avx512", "--cuda", "12.8") == \
        ["pytorch-python313-cuda12_8-sm90-avx512"]
    assert names(run, "--sm", "sm61") == [
        "pytorch-python313-cuda12_8-sm61-avx", "pytorch-python313-cuda12_8-sm61-avx2",
        "torchaudio-python313-cuda12_8-sm61-avx", "torchvision-python313-cuda12_8-sm61-avx"]
    assert names(run, "--sm", "sm61", "--kind", "companion") == [
        "torchaudio-python313-cuda12_8-sm61-avx", "torchvision-python313-cuda12_8-sm61-avx"]
    assert names(run, "--isa", "armv9", "--isa", "armv8_2", "--kind", "cpu") == \
        ["pytorch-python313-cpu-armv8_2", "pytorch-python313-cpu-armv9"]
    assert names(run, "--accelerator", "mps") == ["pytorch-python313-darwin-mps"]
    assert names(run, "--python", "3.12") == []


def test_kinds(run):
    assert len(names(run, "--kind", "gpu")) == 51
    assert len(names(run, "--kind", "cpu")) == 6
    assert names(run, "--kind", "darwin") == ["pytorch-python313-darwin-mps"]
    assert len(names(run, "--kind", "gpu", "--kind", "darwin")) == 52


def test_companion_kind_selects_packages_other_than_torch():
    torch = expansion_of(REPO).variants[0]
    vision = dataclasses.replace(torch, name="torchvision-python313-cpu-armv8_2", package="torchvision")
    companions = listing.Filter(kinds=("companion",))
    assert companions.keeps(vision) and not companions.keeps(torch)
    same_kind = listing.Filter(kinds=(torch.kind,))
    assert same_kind.keeps(torch) and not same_kind.keeps(vision)


def test_unknown_filter_value_is_invalid_input_with_a_suggestion(run):
    result = run("list", "--matrix", MATRIX, "--isa", "avx521")
    assert result.exit_code == 2
    assert "error: --isa: unknown isa 'avx521'\n  hint: did you mean 'avx512'?" in result.stderr
    assert run("list", "--matrix", MATRIX, "--kind", "xpu").exit_code == 2


def test_table_is_aligned_with_a_dash_where_an_axis_does_not_apply(run):
    lines = names(run, "--format", "table", "--kind", "cpu", "--kind", "darwin")
    assert len(lines) == 1 + 7
    assert lines[0].split() == ["NAME", "KIND", "PYTHON", "CUDA", "SM", "ISA", "ACCELERATOR", "PLATFORMS"]
    assert lines[4].split() == ["pytorch-python313-cpu-avx512", "cpu", "3.13", "-", "-", "avx512", "-", "x86_64-linux"]
    assert lines[7].split() == ["pytorch-python313-darwin-mps", "darwin", "3.13", "-", "-", "-", "mps", "aarch64-darwin"]
    assert lines[4].index("3.13") == lines[0].index("PYTHON") == lines[7].index("3.13")


def test_json_lists_the_facts_of_each_variant(run):
    data = json.loads(run("list", "--matrix", MATRIX, "--format", "json", "--sm", "sm120", "--isa", "avx2").stdout)
    (variant,) = data
    assert variant["name"] == "pytorch-python313-cuda12_8-sm120-avx2"
    assert (variant["cuda"], variant["driver"], variant["capability"]) == ("12.8", "570.26", "12.0")
    assert "GeForce RTX 5070" in variant["gpus"]


def test_show_says_everything_about_a_variant(run):
    result = run("show", "--matrix", MATRIX, "pytorch-python313-cuda12_8-sm61-avx")
    assert result.exit_code == 0
    text = result.stdout
    assert text.startswith("pytorch-python313-cuda12_8-sm61-avx\n")
    for line in [
        "  cuda:       12.8; needs NVIDIA driver 570.26 or newer (Windows: 570.65)",
        "  gpu:        sm61, compute capability 6.1 (Pascal): GeForce GTX 1070, GeForce GTX 1080,",
        "  cpu:        avx: Intel Sandy Bridge, Intel Ivy Bridge, AMD Bulldozer; needs avx in /proc/cpuinfo",
        "  flags:      -mavx -mno-fma -mno-bmi -mno-bmi2 -mno-avx2 (MSVC /arch:AVX)",
        "  switches:   USE_CUDNN=0 USE_FBGEMM=0 USE_MKLDNN=0 USE_MKLDNN_CBLAS=0 USE_NNPACK=0",
        "  scope:      torch and every CUDA library it links (config.cudaCapabilities): they are built for it too",
        "  platforms:  x86_64-linux",
        "  file:       .flox/pkgs/pytorch-python313-cuda12_8-sm61-avx.nix",
        "  build:      flox build pytorch-python313-cuda12_8-sm61-avx",
    ]:
        assert line in text
    assert (REPO / ".flox/pkgs/pytorch-python313-cuda12_8-sm61-avx.nix").exists()


def test_show_darwin_and_cpu_leave_out_what_does_not_apply(run):
    darwin = run("show", "--matrix", MATRIX, "pytorch-python313-darwin-mps").stdout
    assert "apple gpu:  mps" in darwin and "cuda:" not in darwin and "cpu:" not in darwin
    assert "switches:   BLAS=vecLib USE_MPS=1" in darwin and "scope:" not in darwin
    cpu = run("show", "--matrix", MATRIX, "pytorch-python313-cpu-armv9").stdout
    assert "cpu:        armv9" in cpu and "gpu:" not in cpu and "MSVC" not in cpu


def test_show_json(run):
    data = json.loads(run("show", "--matrix", MATRIX, "--json", "pytorch-python313-cuda12_8-sm90-avx512").stdout)
    assert data["sm"] == "sm90" and data["isa"] == "avx512" and data["msvc"] == "/arch:AVX512"
    assert data["switches"] == {} and data["nixpkgs_off"] == [] and data["capability_scope"] == "torch"
    assert data["platforms"] == ["x86_64-linux"]
    assert data["build"] == "flox build pytorch-python313-cuda12_8-sm90-avx512"


@pytest.mark.parametrize("command", ["show", "env", "smoke"])
def test_unknown_variant_is_invalid_input_with_the_closest_name(run, command):
    result = run(command, "--matrix", MATRIX, "pytorch-python313-cuda12_8-sm90-avx51")
    assert result.exit_code == 2
    assert "no variant is called 'pytorch-python313-cuda12_8-sm90-avx51'" in result.stderr
    assert "did you mean 'pytorch-python313-cuda12_8-sm90-avx512'?" in result.stderr


def test_an_sm_typed_any_way_means_the_same_to_list_explain_and_detect(run):
    sm61 = names(run, "--sm", "sm61")
    assert sm61 and all("-sm61-" in name for name in sm61)
    for typed in ("61", "6.1", "SM61"):
        assert names(run, "--sm", typed) == sm61, typed
    explained = run("explain", "--matrix", MATRIX, "--json", "--sm", "61")
    assert explained.exit_code == 0, explained.output
    in_matrix = [o["name"] for o in json.loads(explained.stdout)["outcomes"] if o["in_matrix"]]
    assert in_matrix == names(run, "--sm", "6.1", "--kind", "gpu")
    cpu = REPO / "tests" / "fixtures" / "hosts" / "ryzen5950x-rtx3090" / "cpuinfo"
    detected = run("detect", "--matrix", MATRIX, "--cpuinfo", cpu, "--gpu", "6.1", "--name")
    assert detected.exit_code == 0, detected.output
    assert detected.stdout.strip() in in_matrix


@pytest.mark.parametrize("command, option", [("list", "--sm"), ("explain", "--sm"), ("detect", "--gpu")])
def test_an_unknown_sm_is_refused_in_the_same_words_everywhere(run, command, option):
    result = run(command, "--matrix", MATRIX, option, "sm91")
    assert result.exit_code == 2
    assert f"error: {option}: unknown sm 'sm91'\n  hint: did you mean 'sm90'?" in result.stderr


@pytest.mark.parametrize("name", ["pytorch-python313-cuda12_8-sm61-avx", "pytorch-python313-darwin-mps",
                                  "pytorch-python313-cpu-armv9", "pytorch-python313-cuda12_8-sm90-avx512"])
def test_show_gives_each_switch_its_reason(run, name):
    text = run("show", "--matrix", MATRIX, name).stdout
    data = json.loads(run("show", "--matrix", MATRIX, "--json", name).stdout)
    explained = [s for line in text.splitlines() if line.startswith("  because:")
                 for s in line.removeprefix("  because:").split(": ", 1)[0].split()]
    assert sorted(explained) == sorted(f"{k}={v}" for k, v in data["switches"].items())  # each once
    # the switches line: each switch once, in the JSON's order; where there are none, it says so
    listed = [line.removeprefix("  switches:").strip() for line in text.splitlines() if line.startswith("  switches:")]
    assert listed == [" ".join(f"{k}={v}" for k, v in data["switches"].items()) or "none beyond nixpkgs' own"]
    if "sm61" in name:
        assert ("  because:    USE_CUDNN=0: cuDNN 9.11 and newer support compute capability 7.5 and up only, "
                "and sm61 is 6.1") in text
        assert "USE_FBGEMM=0 USE_MKLDNN=0 USE_MKLDNN_CBLAS=0 USE_NNPACK=0: what it builds needs more than an avx" in text
