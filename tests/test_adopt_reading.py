"""adopt, reading: what `reading.read` makes of the facts a recipe's evaluation gives.

The facts are those nix-instantiate gives for the adopt fixture's recipes (evaluated once,
through adopt.nix), each case editing one of them as another way of writing a recipe would
(a CUDA set without its minor release, a Python set, a companion for Apple Silicon...)."""

from __future__ import annotations

import copy

import pytest

from conftest import needs_nix
from generator.commands.adopt import reading
from generator.errors import GenMatrixError
from generator.knowledge import build, builtin
from test_adopt import FIXTURE

pytestmark = needs_nix

GPU = "pytorch-python313-cuda12_8-sm90-avx2.nix"
CPU = "pytorch-python313-cpu-avx2.nix"
VISION = "torchvision-python313-cuda12_8-sm61-avx.nix"
MARK = reading._IMPURE["open"] + "builtins.currentSystem" + reading._IMPURE["close"]


@pytest.fixture(scope="module")
def knowledge():
    return build(builtin())


@pytest.fixture(scope="module")
def evaluated(knowledge):
    folder = FIXTURE / ".flox" / "pkgs"
    return reading.evaluate(folder, sorted(p.name for p in folder.glob("*.nix")), knowledge)


def read(evaluated, knowledge, file: str, edit=None, name: str | None = None):
    facts = copy.deepcopy(evaluated[file])
    if edit:
        edit(facts)
    return reading.read(name or file, facts, knowledge, f"pkgs/{name or file}")


def overrides(facts, **values):
    facts["steps"][0]["override"] = values


@pytest.mark.parametrize("case, edit, name, expected", [
    ("cudaPackages_13: the minor release from the name",
     lambda f: f["nixpkgs"].update(cudaPackages="cudaPackages_13"), "pytorch-python313-cuda13_0-sm90-avx2.nix",
     {"cuda": "13.0"}),
    ("a name whose release is not of the major set: the name's, with nothing lost about it",
     lambda f: f["nixpkgs"].update(cudaPackages="cudaPackages_13"), None, {"cuda": "12.8"}),
    ("cudaSupport alone asks for CUDA", lambda f: overrides(f, cudaSupport=True), None, {"kind": "gpu", "sm": "sm90"}),
    ("gpuTargets alone asks for CUDA", lambda f: overrides(f, gpuTargets=["9.0"]), None, {"kind": "gpu", "sm": "sm90"}),
    ("neither: a CPU build", lambda f: (overrides(f), f["attrs"]["passthru"].pop("gpuArch")), None, {"kind": "cpu"}),
    ("the Python set", lambda f: f.update(set="python312Packages"), None, {"python": "3.12"}),
    ("python3Packages: the Python of the name", lambda f: f.update(set="python3Packages"), None, {"python": "3.13"}),
    ("passthru.cpuISA before the name", lambda f: f["attrs"]["passthru"].update(cpuISA="avx512"), None,
     {"isa": "avx512"}),
    ("no passthru.cpuISA: the name's", lambda f: f["attrs"]["passthru"].pop("cpuISA"), None, {"isa": "avx2"}),
    ("darwin platforms alone make an Apple build",
     lambda f: (overrides(f), f["attrs"]["passthru"].clear(), f["attrs"]["meta"].update(platforms=["aarch64-darwin"])),
     "pytorch-python313-darwin-mps.nix", {"kind": "darwin", "accelerator": "mps"}),
])
def test_each_way_of_writing_an_axis_is_read(evaluated, knowledge, case, edit, name, expected):
    recipe = read(evaluated, knowledge, GPU, edit, name)
    facts = dict(recipe.combination, kind=recipe.kind)
    assert {key: facts.get(key) for key in expected} == expected, case


def test_what_is_taken_from_the_name_is_said(evaluated, knowledge):
    default_set = read(evaluated, knowledge, GPU, lambda f: f["nixpkgs"].pop("cudaPackages"))
    assert dict(default_set.combination)["cuda"] == "12.8"
    assert "the CUDA release: the recipe keeps nixpkgs' default cudaPackages; taken from its name (12.8)" in \
        default_set.lost
    two = read(evaluated, knowledge, GPU, lambda f: overrides(f, cudaSupport=True, gpuTargets=["8.0", "9.0"]))
    assert dict(two.combination)["sm"] == "sm90"
    assert "gpuTargets ['8.0', '9.0']: gen-matrix builds one SM per variant; taken from its name (sm90)" in two.lost


@pytest.mark.parametrize("gpu_arch, cuda, kind", [("6.1", True, "gpu"), ("6.1", False, "cpu"), ("mps", True, "darwin")])
def test_a_companions_kind_is_its_gpu_arch_and_its_nixpkgs_cuda(evaluated, knowledge, gpu_arch, cuda, kind):
    def edit(facts):
        facts["attrs"]["passthru"]["gpuArch"] = gpu_arch
        facts["nixpkgs"]["config"]["cudaSupport"] = cuda
    name = {"gpu": VISION, "cpu": "torchvision-python313-cpu-avx.nix", "darwin": "torchvision-python313-darwin-mps.nix"}
    assert read(evaluated, knowledge, VISION, edit, name[kind]).kind == kind


def test_an_evaluation_error_is_the_recipes_error(evaluated, knowledge):
    with pytest.raises(GenMatrixError) as refused:
        reading.read(GPU, {"error": "torch.override is not a function"}, knowledge, "pkgs/" + GPU)
    assert str(refused.value) == (f"pkgs/{GPU}: torch.override is not a function\n  hint: adopt reads recipes that "
                                  "override nixpkgs' torch, torchvision or torchaudio")


def test_a_recipe_of_another_package_is_refused_with_what_to_do(evaluated, knowledge):
    with pytest.raises(GenMatrixError) as refused:
        read(evaluated, knowledge, GPU, lambda f: f.update(package="triton"))
    assert str(refused.value) == (f"pkgs/{GPU}: builds triton, not torch or a companion\n  hint: move it out of the "
                                  "recipes folder, or keep it beside the matrix by hand")


def test_a_recipe_that_does_not_tell_an_axis_says_which(evaluated, knowledge):
    with pytest.raises(GenMatrixError) as refused:
        read(evaluated, knowledge, CPU, lambda f: f["attrs"]["passthru"].pop("cpuISA", None), "my-torch.nix")
    assert str(refused.value) == ("pkgs/my-torch.nix: the cpu recipe does not tell its isa\n  hint: adopt reads them "
                                  "from torch's override and passthru, or from a name such as "
                                  "{package}-python{python}-cpu-{isa}")


def test_what_a_recipe_did_not_write_is_left_out_and_said_where():
    assert reading.unread(MARK) == (None, ["a value: from builtins.currentSystem, not written in the recipe; "
                                           "left out of the matrix"])
    kept, lost = reading.unread({"meta": {"platforms": ["x86_64-linux", MARK]}, "pname": "t", "empty": []})
    assert kept == {"meta": {"platforms": ["x86_64-linux"]}, "pname": "t", "empty": []}
    assert lost == ["meta.platforms[1]: from builtins.currentSystem, not written in the recipe; left out of the matrix"]
    kept, lost = reading.unread({"system": MARK, "flags": [MARK]})
    assert kept == {"flags": []} and len(lost) == 2


def test_what_no_matrix_carries_is_each_said(evaluated, knowledge):
    def edit(facts):
        facts["nixpkgs"]["tarball"] = {"channel": "nixpkgs"}
        facts["nixpkgs"]["config"].update(odd={"a": 1}, numbers=[1, 2])
        facts["steps"][1]["overrideAttrs"].append("dontStrip")
        facts["attrs"]["buildInputs"] = [{"package": "cudnn"}, "a path"]
        facts["attrs"]["meta"] = {"longDescription": "by hand"}
    lost = read(evaluated, knowledge, GPU, edit).lost
    for line in ("nixpkgs from <nixpkgs>: not a github.com/NixOS/nixpkgs/archive/REV.tar.gz pin",
                 'nixpkgs config numbers = [1, 2]: not a value matrix.yaml can hold',
                 'nixpkgs config odd = {"a": 1}: not a value matrix.yaml can hold',
                 "overrideAttrs sets dontStrip by hand: gen-matrix does not carry it",
                 "buildInputs adds cudnn: not carried",
                 "meta.description and longDescription: generate writes them from the knowledge table"):
        assert line in lost


def test_a_fix_is_known_by_its_sign_in_postpatch_too(evaluated, knowledge):
    assert "findcudatoolkit-stub" not in read(evaluated, knowledge, GPU).fixes
    recipe = read(evaluated, knowledge, GPU,
                  lambda f: f["attrs"].update(postPatch="rm cmake/Modules/FindCUDAToolkit.cmake"))
    assert "findcudatoolkit-stub" in recipe.fixes


def test_capabilities_come_from_passthru_else_the_nixpkgs_config(evaluated, knowledge):
    recipe = read(evaluated, knowledge, GPU, lambda f: f["nixpkgs"]["config"].update(cudaCapabilities=["8.6"]))
    assert recipe.capabilities == ("8.6",) and recipe.config_capabilities == ("8.6",)
    both = read(evaluated, knowledge, GPU, lambda f: (f["nixpkgs"]["config"].update(cudaCapabilities=["8.6"]),
                                                      f["attrs"]["passthru"].update(cudaCapabilities=["9.0"])))
    assert both.capabilities == ("9.0",) and both.config_capabilities == ("8.6",)


def test_a_folder_that_is_not_there_says_what_to_give(tmp_path):
    with pytest.raises(GenMatrixError) as refused:
        reading.recipes_folder(tmp_path / "nowhere")
    assert str(refused.value) == (f"{tmp_path / 'nowhere'}: no such folder\n  hint: give a repository, or its "
                                  ".flox/pkgs folder of recipes")


# A recipe that calls the functions of nixpkgs' lib that adopt stands in for, on both sides of
# each edge, and hands their results to torch's override, where adopt reads them back.
LIB_RECIPE = '''{ pkgs ? import <nixpkgs> { } }:
let
  p = import (builtins.fetchTarball {
    url = "https://github.com/NixOS/nixpkgs/archive/fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3.tar.gz";
  }) { config = { allowUnfree = true; }; };
  inherit (p) lib;
in
p.python313Packages.torch.override {
  suffixes = [ (lib.hasSuffix "ab" "xab") (lib.hasSuffix "ab" "ab") (lib.hasSuffix "ab" "xba")
               (lib.hasSuffix "abc" "bc") (lib.hasSuffix "" "x") ];
  atLeast = [ (lib.versionAtLeast "12.8" "12.8") (lib.versionAtLeast "12.9" "12.8")
              (lib.versionAtLeast "12.8" "12.9") (lib.versionAtLeast "13.0" "12.10") ];
  older = [ (lib.versionOlder "12.8" "12.8") (lib.versionOlder "12.8" "12.9") ];
  listed = lib.optional true "kept" ++ lib.optional false "dropped" ++ lib.optional (1 == 1) "also";
}
'''


def test_the_lib_adopt_gives_recipes_answers_as_nixpkgs_lib_does(knowledge, tmp_path):
    for name in ("first.nix", "second.nix"):
        (tmp_path / name).write_text(LIB_RECIPE)
    evaluated = reading.evaluate(tmp_path, ["first.nix", "second.nix"], knowledge)
    for name in ("first.nix", "second.nix"):
        (step,) = evaluated[name]["steps"]
        assert step["override"] == {"suffixes": [True, True, False, False, True],
                                    "atLeast": [True, True, False, True],
                                    "older": [False, True],
                                    "listed": ["kept", "also"]}
