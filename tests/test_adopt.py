"""`gen-matrix adopt` on a small folder of hand-written recipes holding one of each case:
a GPU recipe with a hand-written flag and config, an AVX-only one with an unknown MAGMA
patch and cmakeFlags that never reached CMake, a CPU-only one with a renamed package and a
variable of its own, an Apple Silicon one and a companion importing its torch's recipe."""

from __future__ import annotations

import re

import hashlib
import itertools
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings, strategies as st

from conftest import REPO, needs_nix
from generator.cli import main
from generator.commands import adopt
from generator.knowledge import build, builtin
from generator.pipeline import expand, load, validate

FIXTURE = REPO / "tests" / "fixtures" / "adopt"
NAMES = sorted(p.stem for p in (FIXTURE / ".flox" / "pkgs").glob("*.nix"))

pytestmark = needs_nix


@pytest.fixture
def folder(tmp_path) -> Path:
    target = tmp_path / "recipes"
    shutil.copytree(FIXTURE, target)
    return target


def digests(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def run(*args):
    return CliRunner().invoke(main, ["adopt", *args], catch_exceptions=False)


def test_the_matrix_reproduces_every_name_with_the_same_pin(folder):
    result = adopt.adopt(folder, "2.8.0")
    assert result.reproduced == len(NAMES) == 5
    assert set(result.generated) == set(NAMES)
    assert result.pins_differ == ()
    # what it would write generates those names through the pipeline
    matrix = validate.validate(load.parse(result.text, "matrix.yaml"))
    assert sorted(v.name for v in expand.expand(matrix).variants) == NAMES


def test_the_axes_rules_companions_and_version_are_inferred(folder):
    matrix = adopt.adopt(folder, "2.8.0").matrix
    assert matrix["pytorch"] == {"version": "2.8.0"}
    assert matrix["nixpkgs"]["rev"] == "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3"
    assert matrix["gpu"]["sm"] == ["sm61", "sm90"] and matrix["gpu"]["isa"] == ["avx", "avx2"]
    assert len(matrix["gpu"].get("restrict", [])) + len(matrix["gpu"].get("exclude", [])) == 2
    assert matrix["cpu"] == {"python": ["3.13"], "isa": ["avx2"]}
    assert matrix["darwin"] == {"python": ["3.13"], "accelerator": ["mps"]}
    assert matrix["companions"] == [{"packages": ["torchvision"], "when": {"sm": "sm61"}}]
    assert matrix["build"] == {"jobs": 32, "system_features": ["big-parallel"]}


def test_the_report_lists_every_fact_not_carried_over(folder):
    lost = adopt.adopt(folder, "2.8.0").lost
    assert lost == {
        "pytorch-python313-cpu-avx2": [
            "pname torch-cpu-avx2: the package takes the recipe's name",
            "meta.description and longDescription: generate writes them from the knowledge table",
            "export USE_MKLDNN_CBLAS=1: set by hand, gen-matrix sets no such variable",
            "cmakeFlags -DCMAKE_BUILD_TYPE=Release: never reached CMake (nixpkgs builds torch through setup.py), dropped",
        ],
        "pytorch-python313-cuda12_8-sm61-avx": [
            "magma patch local-tuning.patch: unknown to the built-in fixes (nixpkgs.patches in matrix.yaml can carry it)",
        ],
        "pytorch-python313-cuda12_8-sm90-avx2": [
            "nixpkgs config cudaForwardCompat = false: set by hand here, not by every recipe of its pin "
            "(a pin's config is all its variants')",
            "hand-written flag -O3: not among the knowledge table's flags of avx2",
        ],
    }


def test_the_report_says_what_generate_would_change_and_why(folder):
    changes = adopt.adopt(folder, "2.8.0").changes
    avx = changes["pytorch-python313-cuda12_8-sm61-avx"]
    assert "exports USE_NNPACK=0: the knowledge table switches NNPACK off for avx" in avx
    assert "exports USE_CUDNN=0: current cuDNN no longer supports sm61" in avx
    assert any(c.startswith("cmakeFlags -DCXX_AVX2_FOUND=FALSE: nixpkgs builds torch through setup.py") for c in avx)
    defaults = build(builtin()).pins["fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3"].default_capabilities(
        "12.8", build(builtin()).cuda)
    assert changes["pytorch-python313-cuda12_8-sm90-avx2"] == [
        "store name: python<version>-<package>-<version>-<the variant's axes>, named after its variant, which tells "
        "the variants' builds apart in the store and in build logs",
        "CPU flags -mavx2 -mfma -mf16c where the recipe has -mavx2 -mfma -mf16c -O3 (the knowledge table's flags of avx2)",
        "export MAX_JOBS=32 and ninjaFlags -j32: dropped; the build takes the builder's cores, as many as its free memory "
        "allows (4 GB a CUDA compile job, 2 GB another: nix/lib/compile.nix), and the workflow's builds at most build.jobs",
        # the recipe's passthru has gpuArch and cpuISA, not these
        "passthru.blasProvider = cublas added: a fact for consumers (a vLLM build, say) that every variant gives",
        "passthru.cudaVersion = 12.8 added: a fact for consumers (a vLLM build, say) that every variant gives",
        f"passthru.cudaCapabilities {' '.join(defaults)} -> 9.0: its pin's CUDA set's defaults give way to the variant's "
        "SM alone, which torchvision and torchaudio built against it compile for"]


def test_a_recipe_that_sets_its_capabilities_to_its_sm_keeps_them(folder):
    path = folder / ".flox" / "pkgs" / "pytorch-python313-cuda12_8-sm90-avx2.nix"
    path.write_text(path.read_text().replace('cpuISA = "avx2";', 'cpuISA = "avx2"; cudaCapabilities = [ "9.0" ];'))
    changes = adopt.adopt(folder, None).changes["pytorch-python313-cuda12_8-sm90-avx2"]
    assert not [c for c in changes if c.startswith("passthru.cudaCapabilities")]
    path.write_text(path.read_text().replace('cudaCapabilities = [ "9.0" ];', 'cudaCapabilities = [ "8.0" "9.0" ];'))
    changes = adopt.adopt(folder, None).changes["pytorch-python313-cuda12_8-sm90-avx2"]
    assert [c for c in changes if c.startswith("passthru.cudaCapabilities")] == [
        "passthru.cudaCapabilities 8.0 9.0 -> 9.0: the recipe's own list gives way to the variant's SM alone, which "
        "torchvision and torchaudio built against it compile for"]


SOURCE_HASH = "sha256-BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB="


def give_source(folder: Path, owner: str = "pytorch", repo: str = "pytorch", extra: str = "") -> None:
    """Every torch recipe of `folder` builds PyTorch 2.9.0 from `owner`/`repo`; `extra` is
    written after its src."""
    for recipe in (folder / ".flox" / "pkgs").glob("pytorch-*.nix"):
        recipe.write_text(recipe.read_text().replace("  pname = ", f"""  version = "2.9.0";
  src = nixpkgs_pinned.fetchFromGitHub {{ owner = "{owner}"; repo = "{repo}"; rev = "v2.9.0";
    hash = "{SOURCE_HASH}"; fetchSubmodules = true; }};
{extra}  pname = """, 1))


def test_a_source_override_and_its_fixes_are_carried(folder):
    give_source(folder, extra="  patches = [ ];\n")
    result = adopt.adopt(folder, None)
    assert result.matrix["pytorch"] == {"version": "2.9.0", "source": {"rev": "v2.9.0", "hash": SOURCE_HASH}}
    changes = result.changes["pytorch-python313-cuda12_8-sm90-avx2"]
    # patches = [] is nixpkgs' patches dropped by hand: the built-in fix; the version it did not set
    assert any(c.startswith("adds the torch-source-version fix") for c in changes)
    assert not any("torch-source-patches" in c for c in changes)
    assert any(c.startswith("adds the findcudatoolkit-stub fix") for c in changes)


def test_pins_with_when_rules(folder):
    pkgs = folder / ".flox" / "pkgs"
    other = "0182a361324364ae3f436a63005877674cf45efb"
    repin(pkgs / "pytorch-python313-cuda12_8-sm90-avx2.nix", other)
    result = adopt.adopt(folder, "2.8.0")
    pins = result.matrix["nixpkgs"]["pins"]
    assert pins[0]["rev"] == other and pins[0]["when"] == {"sm": "sm90"}
    assert "when" not in pins[-1] and pins[-1]["rev"].startswith("fe5e41d")
    assert result.reproduced == 5 and result.pins_differ == ()


FE5E = "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3"


def repin(recipe: Path, rev: str, sha256: str | None = None) -> None:
    """The recipe on nixpkgs `rev` instead of fe5e41d, with the tarball's sha256 where given."""
    text = recipe.read_text().replace(FE5E, rev)
    if sha256:
        text = text.replace(f'{rev}.tar.gz";', f'{rev}.tar.gz";\n    sha256 = "{sha256}";')
    recipe.write_text(text)


def move_pin(folder: Path, rev: str, names=None) -> None:
    for recipe in (folder / ".flox" / "pkgs").glob("*.nix"):
        if names is None or recipe.name in names:
            repin(recipe, rev)


def test_without_a_version_the_torch_of_a_known_pin_is_taken(folder):
    result = adopt.adopt(folder, None)
    assert result.matrix["pytorch"] == {"version": "2.8.0"}  # fe5e41d's torch, by knowledge pins
    assert result.reproduced == 5 and not [w for w in result.warnings if "pytorch.version" in w]
    move_pin(folder, "0182a361324364ae3f436a63005877674cf45efb")
    assert adopt.adopt(folder, None).matrix["pytorch"] == {"version": "2.9.1"}


def test_where_known_pins_hold_different_torches_most_recipes_decide_and_the_others_are_warned_of(folder):
    move_pin(folder, "0182a361324364ae3f436a63005877674cf45efb", {"pytorch-python313-cuda12_8-sm90-avx2.nix"})
    result = adopt.adopt(folder, None)
    assert result.matrix["pytorch"] == {"version": "2.8.0"}
    assert [w for w in result.warnings if "pytorch.version" in w] == [
        "matrix.yaml:3:20: pytorch.version is 2.8.0, but the nixpkgs pin 'nixpkgs_0182a36' (0182a36) holds torch 2.9.1: "
        "its recipe builds that torch, which Nix refuses: \"matrix.yaml promises PyTorch 2.8.0, but this nixpkgs builds "
        "2.9.1\"\n  hint: set pytorch.version to 2.9.1; or give pytorch.source to build 2.8.0 from source; or pin a "
        "nixpkgs whose torch is 2.8.0 (fe5e41d); `gen-matrix eval` asks the pin itself"]


def test_without_write_nothing_is_written(folder):
    before = digests(folder)
    result = run(str(folder), "--pytorch-version", "2.8.0")
    assert result.exit_code == 0, result.output
    assert "the matrix reproduces 5 of 5 names" in result.output
    assert "magma patch local-tuning.patch" in result.output
    assert digests(folder) == before


def test_with_write_only_matrix_yaml_is_written(folder):
    before = digests(folder)
    result = run(str(folder), "--pytorch-version", "2.8.0", "--write")
    assert result.exit_code == 0, result.output
    after = digests(folder)
    assert set(after) - set(before) == {"matrix.yaml"}
    assert {k: v for k, v in after.items() if k != "matrix.yaml"} == before
    listed = CliRunner().invoke(main, ["list", "--root", str(folder)])
    assert sorted(listed.output.split()) == NAMES
    # its comments point at nothing the adopted repository lacks (the schema is gen-matrix's)
    schema = re.findall(r"\$schema=(\S+)", (folder / "matrix.yaml").read_text())
    assert all((folder / path).exists() for path in schema), schema
    again = run(str(folder), "--pytorch-version", "2.8.0", "--write")
    assert again.exit_code == 2 and "already" in again.output
    assert digests(folder) == after


@pytest.mark.parametrize("case, expected", [
    ("missing", "no such folder"),
    ("empty", "holds a .nix recipe"),
    ("broken", "cannot be read by evaluation"),
    ("unknown pin", "--pytorch-version"),
    ("not-torch", "not torch or a companion"),
])
def test_bad_input_is_a_located_error_with_exit_2(folder, tmp_path, case, expected):
    path = folder
    pkgs = folder / ".flox" / "pkgs"
    if case == "missing":
        path = tmp_path / "nowhere"
    elif case == "empty":
        path = tmp_path / "empty"
        path.mkdir()
    elif case == "broken":
        broken = pkgs / "pytorch-python313-cpu-avx2.nix"
        broken.write_text(broken.read_text().replace("nixpkgs_pinned.openblas", "nixpkgs_pinned.noSuchBlas"))
    elif case == "unknown pin":  # a pin the knowledge table does not know: its torch is unknown
        move_pin(folder, "a" * 40)
    elif case == "not-torch":
        (pkgs / "hello.nix").write_text(
            '{ }: let p = import (builtins.fetchTarball "https://github.com/NixOS/nixpkgs/archive/'
            'fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3.tar.gz") { }; in p.python313Packages.triton\n')
    before = digests(tmp_path)
    result = run(str(path), *([] if case == "unknown pin" else ["--pytorch-version", "2.8.0"]), "--write")
    assert result.exit_code == 2
    assert expected in result.output
    assert "Traceback" not in result.output
    assert digests(tmp_path) == before
    if case == "broken":
        assert "pytorch-python313-cpu-avx2.nix" in result.output and "noSuchBlas" in result.output
        assert result.output.endswith(
            "\n  hint: adopt reads recipes that import nixpkgs with fetchTarball and override its torch, torchvision "
            "or torchaudio, reading nothing outside their repository; move this one aside, or write its variant by "
            "hand\n")
    if case == "unknown pin":
        assert "does not know which torch nixpkgs aaaaaaa holds" in result.output and "knowledge.pins" in result.output


def test_given_the_recipes_folder_the_matrix_goes_to_its_repository(folder):
    result = run(str(folder / ".flox" / "pkgs"), "--pytorch-version", "2.8.0", "--write")
    assert result.exit_code == 0, result.output
    assert (folder / "matrix.yaml").is_file()
    assert not (folder / ".flox" / "pkgs" / "matrix.yaml").exists()


def test_config_every_recipe_of_a_pin_sets_is_the_pin_s(folder):
    for recipe in (folder / ".flox" / "pkgs").glob("pytorch-*.nix"):
        text = recipe.read_text()
        if "cudaForwardCompat" not in text:
            recipe.write_text(text.replace("allowUnfree = true;", "allowUnfree = true; cudaForwardCompat = false;"))
    result = adopt.adopt(folder, "2.8.0")
    assert result.matrix["nixpkgs"]["config"] == {"cudaForwardCompat": False}
    assert not any("cudaForwardCompat" in fact for facts in result.lost.values() for fact in facts)


def test_the_matrix_is_the_same_whatever_the_hash_seed(folder):
    outputs = set()
    for seed in ("1", "2", "3"):
        done = subprocess.run([sys.executable, "-m", "generator", "adopt", str(folder), "--pytorch-version", "2.8.0"],
                              capture_output=True, text=True, env=dict(os.environ, PYTHONHASHSEED=seed), cwd=REPO)
        assert done.returncode == 0, done.stderr
        outputs.add(done.stdout)
    assert len(outputs) == 1


@pytest.mark.parametrize("example", ["pytorch-2.8", "pytorch-2.9", "pytorch-2.10"])
def test_no_more_rules_than_the_hand_written_examples(example):
    """The rules inferred for each kind of an example's variants are no more than the
    example's own, and keep exactly its variants."""
    text = (REPO / "examples" / example / "matrix.yaml").read_text()
    expansion = expand.expand(validate.validate(load.parse(text, "matrix.yaml")))
    written = load.parse(text, "matrix.yaml").data
    for kind in ("gpu", "cpu", "darwin"):
        variants = [v for v in expansion.variants if v.kind == kind and not v.is_companion]
        if not variants:
            continue
        wanted = {tuple(v.combination.items()) for v in variants}
        axes = {axis: sorted({dict(w)[axis] for w in wanted}) for axis in variants[0].combination}
        restrict, exclude, impossible = adopt.inferring._rules(expansion.matrix.knowledge, kind, axes, wanted)
        assert impossible == set()
        own = len(written[kind].get("restrict", [])) + len(written[kind].get("exclude", []))
        assert len(restrict) + len(exclude) <= own
        kept = {w for w in itertools.product(*([(a, v) for v in axes[a]] for a in axes))
                if expansion.matrix.knowledge.why_not(dict(w)) is None
                and not any(adopt.inferring._matches(_listed(r["when"]), dict(w)) and not adopt.inferring._matches(_listed(r["only"]), dict(w))
                            for r in restrict)
                and not any(adopt.inferring._matches(_listed(r), dict(w)) for r in exclude)}
        assert kept == wanted


def _listed(rule: dict) -> dict:
    return {axis: value if isinstance(value, list) else [value] for axis, value in rule.items()}


def _kept(knowledge, axes: dict, restrict: list, exclude: list) -> set:
    """The combinations of the axes' product that the knowledge table and the rules keep."""
    product = (tuple(zip(axes, values)) for values in itertools.product(*axes.values()))
    return {w for w in product if knowledge.why_not(dict(w)) is None
            and not any(adopt.inferring._matches(_listed(r["when"]), dict(w))
                        and not adopt.inferring._matches(_listed(r["only"]), dict(w)) for r in restrict)
            and not any(adopt.inferring._matches(_listed(r), dict(w)) for r in exclude)}


GPU_AXES = {"python": ["3.12", "3.13"], "cuda": ["12.8"], "sm": ["sm61", "sm75", "sm90", "sm120"],
            "isa": ["avx", "avx2", "avx512"]}


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_the_rules_inferred_for_any_set_of_recipes_keep_exactly_them(data):
    knowledge = build(builtin())
    possible = sorted(_kept(knowledge, GPU_AXES, [], []))
    wanted = set(data.draw(st.lists(st.sampled_from(possible), min_size=1, unique=True)))
    axes = {axis: sorted({dict(w)[axis] for w in wanted}, key=adopt.inferring._sort_key(knowledge, axis))
            for axis in GPU_AXES}
    restrict, exclude, impossible = adopt.inferring._rules(knowledge, "gpu", axes, wanted)
    assert impossible == set()
    assert _kept(knowledge, axes, restrict, exclude) == wanted
    # no rule is there for nothing: each one taken away keeps more
    for i in range(len(restrict)):
        assert _kept(knowledge, axes, restrict[:i] + restrict[i + 1:], exclude) != wanted
    for i in range(len(exclude)):
        assert _kept(knowledge, axes, restrict, exclude[:i] + exclude[i + 1:]) != wanted


CALLPACKAGE_RECIPE = """# written for callPackage: Flox calls it with the environment's nixpkgs
{ python3Packages, lib, openblas }:
python3Packages.pytorch.overrideAttrs (old: {
  pname = "pytorch-python313-cpu-avx512";
  passthru = old.passthru // { cpuISA = "avx512"; };
  buildInputs = old.buildInputs ++ [ openblas ];
  preConfigure = (old.preConfigure or "") + ''
    export CXXFLAGS="-mavx512f -mavx512dq -mavx512vl -mavx512bw -mfma $CXXFLAGS"
  '';
})
"""


def test_recipes_written_for_callpackage_take_the_revision_given(tmp_path):
    folder = tmp_path / "pkgs"
    folder.mkdir()
    (folder / "pytorch-python313-cpu-avx512.nix").write_text(CALLPACKAGE_RECIPE)
    refused = run(str(folder), "--pytorch-version", "2.8.0")
    assert refused.exit_code == 2 and "--nixpkgs-rev" in refused.output
    rev = "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3"
    result = adopt.adopt(folder, "2.8.0", rev)
    assert result.matrix["nixpkgs"]["rev"] == rev
    assert result.matrix["cpu"] == {"python": ["3.13"], "isa": ["avx512"]}
    assert result.reproduced == 1
    assert any(fact.startswith("nixpkgs from <the environment's nixpkgs") for fact in result.lost["pytorch-python313-cpu-avx512"])


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                   check=True, capture_output=True)


def generate(root: Path, *args: str):
    return CliRunner().invoke(main, ["generate", "--root", str(root), *args])


def test_generate_adopt_takes_over_only_recipes_git_holds_unchanged(folder):
    assert run(str(folder), "--pytorch-version", "2.8.0", "--write").exit_code == 0
    recipes = folder / ".flox" / "pkgs"
    # not a repository: the hand-written recipes could not be had back
    before = digests(folder)
    result = generate(folder, "--adopt")
    assert result.exit_code == 2 and "not a git repository" in result.output
    assert digests(folder) == before
    git(folder, "init", "-q")
    git(folder, "add", "-A")
    git(folder, "commit", "-qm", "hand-written")
    edited, untracked = recipes / f"{NAMES[0]}.nix", recipes / f"{NAMES[1]}.nix"
    edited.write_text(edited.read_text() + "# an edit not committed\n")
    git(folder, "rm", "-q", "--cached", str(untracked.relative_to(folder)))
    kept = {p: p.read_bytes() for p in (edited, untracked)}
    # without --adopt, or for a file git does not hold as it is: refused, nothing written
    for args in ((), ("--adopt",)):
        before = digests(folder)
        result = generate(folder, *args)
        assert result.exit_code == 2, result.output
        # without --adopt all five recipes are in the way, said as one; with it, the two git does not hold
        assert ("this file and 4 more" if not args else f"{edited.name}: this file was not generated by gen-matrix") \
            in result.output
        assert digests(folder) == before
    assert {p: p.read_bytes() for p in kept} == kept
    git(folder, "add", "-A")
    git(folder, "commit", "-qm", "as it is now")
    result = generate(folder, "--adopt")
    assert result.exit_code == 0, result.output
    adopted = sorted(line.split()[1].rstrip(":") for line in result.output.splitlines() if line.startswith("adopted "))
    assert adopted == sorted(f".flox/pkgs/{name}.nix" for name in NAMES)
    assert generate(folder).exit_code == 0  # gen-matrix's own now
    assert CliRunner().invoke(main, ["check", "--root", str(folder)]).exit_code == 0


@pytest.mark.parametrize("kind", ["dangling link", "link to a file", "fifo"])
def test_write_never_writes_over_or_through_anything_at_matrix_yaml(folder, tmp_path, kind):
    outside = tmp_path / "outside.yaml"
    target = folder / "matrix.yaml"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        if kind == "link to a file":
            outside.write_text("mine\n")
        target.symlink_to(outside)
    result = run(str(folder), "--pytorch-version", "2.8.0", "--write")
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"error: {target}: " in result.output and "is already here" in result.output
    assert not outside.exists() or outside.read_text() == "mine\n"


def test_the_sm_axis_is_in_capability_order_not_text_order(folder):
    # sm100 and sm120 sort before sm61 as text
    pkgs = folder / ".flox" / "pkgs"
    sm90 = (pkgs / "pytorch-python313-cuda12_8-sm90-avx2.nix").read_text()
    for sm, capability in (("sm100", "10.0"), ("sm120", "12.0")):
        (pkgs / f"pytorch-python313-cuda12_8-{sm}-avx2.nix").write_text(
            sm90.replace("sm90", sm).replace('"9.0"', f'"{capability}"'))
    result = adopt.adopt(folder, "2.8.0")
    assert result.matrix["gpu"]["sm"] == ["sm61", "sm90", "sm100", "sm120"]
    assert result.reproduced == len(NAMES) + 2


@pytest.mark.parametrize("axis, given, ordered", [("python", ["3.10", "3.9", "3.13"], ["3.9", "3.10", "3.13"]),
                                                   ("cuda", ["13.0", "12.10", "12.8"], ["12.8", "12.10", "13.0"])])
def test_the_python_and_cuda_axes_are_in_version_order_not_text_order(axis, given, ordered):
    assert sorted(given, key=adopt.inferring._sort_key(build(builtin()), axis)) == ordered


def reference_shaped(folder: Path) -> dict[str, list[str]]:
    """The recipes of a repository shaped like barstoolbluz/build-pytorch's main branch: its eight
    SMs by its seven ISAs where the knowledge table and its Pascal rule allow, each the fixture's sm90-avx2 recipe
    with its SM and its ISA's flags, and -O3 by hand; a BUILD_MATRIX.md written by hand beside
    them. Returns the recipe names by ISA."""
    pkgs = folder / ".flox" / "pkgs"
    template = (pkgs / "pytorch-python313-cuda12_8-sm90-avx2.nix").read_text()
    for old in pkgs.glob("*.nix"):
        old.unlink()
    knowledge = build(builtin())
    by_isa: dict[str, list[str]] = {}
    for sm in ("sm61", "sm75", "sm80", "sm86", "sm89", "sm90", "sm100", "sm120"):
        for isa in ("avx", "avx2", "avx512", "avx512bf16", "avx512vnni", "armv8_2", "armv9"):
            if knowledge.why_not({"sm": sm, "cuda": "12.8", "isa": isa}) or sm == "sm61" and isa not in ("avx", "avx2"):
                continue  # the reference builds Pascal for AVX and AVX2 hosts only
            name = f"pytorch-python313-cuda12_8-{sm}-{isa}"
            flags = " ".join(f'"{flag}"' for flag in knowledge.isa[isa].flags + ("-O3",))
            capability = knowledge.sm[sm].capability
            (pkgs / f"{name}.nix").write_text(
                template.replace("pytorch-python313-cuda12_8-sm90-avx2", name).replace('"9.0"', f'"{capability}"')
                .replace('cpuISA = "avx2"', f'cpuISA = "{isa}"')
                .replace('"-mavx2" "-mfma" "-mf16c" "-O3"', flags))
            by_isa.setdefault(isa, []).append(name)
    (folder / "BUILD_MATRIX.md").write_text("# Build matrix\n\nWritten by hand.\n")
    return by_isa


def test_the_report_says_each_fact_once_with_its_count_and_the_cost_of_the_takeover(folder):
    by_isa = reference_shaped(folder)
    recipes = sum(map(len, by_isa.values()))
    assert recipes == 51  # as many GPU recipes as the reference's main branch
    result = run(str(folder))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert len(lines) < 80
    assert f"the matrix reproduces {recipes} of {recipes} names" in result.output
    facts = [line for line in lines if line.startswith("  - ")]
    assert len(facts) == len(set(facts))
    for isa, names in by_isa.items():
        flag = [line for line in facts if line.startswith(f"  - hand-written flag -O3: not among the knowledge "
                                                             f"table's flags of {isa} (")]
        assert flag == [f"  - hand-written flag -O3: not among the knowledge table's flags of {isa} "
                        f"({len(names)} recipes, e.g. {sorted(names)[0]})"]
    hours = recipes * build(builtin()).build_costs["gpu"].minutes / 60
    assert (f"The takeover builds every variant anew: {recipes} torch builds ({recipes} gpu), about {hours:.0f} "
            "build-hours by the knowledge table's build_costs") in result.output
    knowledge = build(builtin())
    uncached = sum(1 for names in by_isa.values() for name in names
                   if knowledge.sm[name.split("-")[3]].capability not in knowledge.cuda["12.8"].capabilities)
    assert uncached == 2  # sm61, for avx and avx2
    assert (f"for {uncached} of them, whose SM the binary cache does not serve, magma, NCCL and the other CUDA "
            "libraries are built too") in result.output
    assert f"replaces {recipes} recipes under .flox/pkgs, BUILD_MATRIX.md" in result.output
    (folder / "BUILD_MATRIX.md").unlink()
    assert "BUILD_MATRIX.md" not in run(str(folder)).output


def test_platforms_a_variant_does_not_build_for_are_said_to_be_dropped(folder):
    path = folder / ".flox" / "pkgs" / "pytorch-python313-cpu-avx2.nix"
    path.write_text(path.read_text().replace('description = "PyTorch for AVX2 CPUs";', 'description = "PyTorch for AVX2 CPUs"; '
                                             'platforms = [ "x86_64-linux" "aarch64-linux" ];'))
    changes = adopt.adopt(folder, None).changes["pytorch-python313-cpu-avx2"]
    assert "meta.platforms aarch64-linux dropped: a variant builds for one system, that of its instruction set" in changes
    path.write_text(path.read_text().replace('[ "x86_64-linux" "aarch64-linux" ]', '[ "x86_64-linux" ]'))
    assert not [c for c in adopt.adopt(folder, None).changes["pytorch-python313-cpu-avx2"] if "platforms" in c]


REV_B = "0182a361324364ae3f436a63005877674cf45efb"
REV_C = "2017d6d515f8a7b289fe06d3a880a7ec588c3900"
SHA_B = "1" * 52


def test_several_pins_the_most_used_is_the_default_and_each_other_has_its_rule_hash_and_config(folder):
    """Reference-shaped recipes on three revisions: sm86 and sm120 on one (the most after the
    default), sm90 on another; the first with a sha256 all its recipes give and without
    cudaForwardCompat, the second with two different sha256s."""
    reference_shaped(folder)
    pkgs = folder / ".flox" / "pkgs"
    counts = {}
    for recipe in sorted(pkgs.glob("*.nix")):
        sm = recipe.stem.split("-")[3]
        if sm in ("sm86", "sm120"):
            repin(recipe, REV_B, SHA_B)
            recipe.write_text(recipe.read_text().replace(" cudaForwardCompat = false;", ""))
        elif sm == "sm90":
            counts[sm] = counts.get(sm, 0) + 1
            repin(recipe, REV_C, str(counts[sm]) * 52)
    result = adopt.adopt(folder, "2.8.0")
    assert result.matrix["nixpkgs"]["pins"] == [
        {"name": "nixpkgs_0182a36", "rev": REV_B, "when": {"sm": ["sm86", "sm120"]}, "sha256": SHA_B},
        {"name": "nixpkgs_2017d6d", "rev": REV_C, "when": {"sm": "sm90"}, "config": {"cudaForwardCompat": False}},
        {"name": "nixpkgs_fe5e41d", "rev": FE5E, "config": {"cudaForwardCompat": False}},
    ]
    assert not [w for w in result.warnings if "no rule over the axes" in w]
    assert result.reproduced == 51 and result.pins_differ == ()


def test_recipes_no_rule_can_pick_take_the_default_pin_and_each_revision_is_warned_of(folder):
    """Two recipes on each of two other revisions, chosen so that no rule over the axes picks
    exactly them (nor the default's): every recipe takes the most used revision."""
    reference_shaped(folder)
    pkgs = folder / ".flox" / "pkgs"
    for name, rev in (("sm80-avx2", REV_B), ("sm90-avx512", REV_B), ("sm80-avx512", REV_C), ("sm90-avx2", REV_C)):
        repin(pkgs / f"pytorch-python313-cuda12_8-{name}.nix", rev)
    result = adopt.adopt(folder, "2.8.0")
    assert result.matrix["nixpkgs"]["pins"] == [
        {"name": "nixpkgs_fe5e41d", "rev": FE5E, "config": {"cudaForwardCompat": False}}]
    assert [w for w in result.warnings if "no rule over the axes" in w] == [
        "no rule over the axes picks exactly the recipes of nixpkgs 0182a36; they take the default pin",
        "no rule over the axes picks exactly the recipes of nixpkgs 2017d6d; they take the default pin"]
    assert sorted(result.pins_differ) == sorted(f"pytorch-python313-cuda12_8-{name}" for name in
                                               ("sm80-avx2", "sm90-avx512", "sm80-avx512", "sm90-avx2"))


COMPANION = """{ pkgs ? import <nixpkgs> { } }:
let
  nixpkgs_pinned = import (builtins.fetchTarball {
    url = "https://github.com/NixOS/nixpkgs/archive/fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3.tar.gz";
  }) { config = { allowUnfree = true; }; };
  customPytorch = TORCH;
in
(nixpkgs_pinned.python313Packages.PACKAGE.override { torch = customPytorch; }).overrideAttrs (old: {
  pname = "NAME";
})
"""


def companion(folder: Path, package: str, torch: str, imported: bool = True) -> None:
    name = package + torch[len("pytorch"):]
    text = (COMPANION.replace("TORCH", f"import ./{torch}.nix {{ }}" if imported else "null")
            .replace("PACKAGE", package).replace("NAME", name))
    (folder / ".flox" / "pkgs" / f"{name}.nix").write_text(text)


def test_companions_a_rule_where_one_picks_their_torches_else_one_exact_rule_per_torch(folder):
    pkgs = folder / ".flox" / "pkgs"
    (pkgs / "torchvision-python313-cuda12_8-sm61-avx.nix").unlink()
    companion(folder, "torchaudio", "pytorch-python313-cuda12_8-sm90-avx2")
    for torch in ("pytorch-python313-cuda12_8-sm61-avx", "pytorch-python313-cpu-avx2"):
        companion(folder, "torchvision", torch)
    result = adopt.adopt(folder, "2.8.0")
    assert result.matrix["companions"] == [
        {"packages": ["torchaudio"], "when": {"sm": "sm90"}},
        # without its kind, the CPU torch's rule would pick the sm90 AVX2 one too
        {"packages": ["torchvision"], "when": {"kind": "cpu", "python": "3.13", "isa": "avx2"}},
        {"packages": ["torchvision"], "when": {"python": "3.13", "cuda": "12.8", "sm": "sm61", "isa": "avx"}},
    ]
    assert set(result.generated) == {recipe.stem for recipe in pkgs.glob("*.nix")} and result.reproduced == 7
    assert not result.warnings


def test_companions_of_every_torch_are_one_rule_for_all(folder):
    (folder / ".flox" / "pkgs" / "pytorch-python313-darwin-mps.nix").unlink()
    for torch in NAMES:
        if "darwin" in torch:
            continue
        if torch.startswith("pytorch-"):
            for package in ("torchvision", "torchaudio"):
                companion(folder, package, torch)
    result = adopt.adopt(folder, "2.8.0")
    assert result.matrix["companions"] == [{"packages": ["torchvision", "torchaudio"], "when": "all"}]


def test_a_companion_whose_torch_is_no_recipe_of_the_folder_is_warned_of(folder):
    companion(folder, "torchaudio", "pytorch-python313-cuda12_8-sm75-avx", imported=False)
    companion(folder, "torchvision", "pytorch-python313-cuda12_8-sm75-avx", imported=False)
    result = adopt.adopt(folder, "2.8.0")
    assert result.matrix["companions"] == [{"packages": ["torchvision"], "when": {"sm": "sm61"}}]
    assert [w for w in result.warnings if "no such torch recipe" in w] == [
        "torchvision, torchaudio of pytorch-python313-cuda12_8-sm75-avx: no such torch recipe"]


def test_what_adopt_cannot_infer_is_a_located_error_that_says_what_to_give(folder, tmp_path):
    pkgs = folder / ".flox" / "pkgs"
    move_pin(folder, "a" * 40)
    assert run(str(folder)).output == (
        f"error: {pkgs}: the recipes build their pin's own PyTorch, and the knowledge table does not know which torch "
        "nixpkgs aaaaaaa holds\n  hint: give it with --pytorch-version, e.g. what `nix-instantiate --eval -A "
        "python3Packages.torch.version <the pin>` prints; or add the pin's row under knowledge.pins "
        "(generator/knowledge.yaml)\n")
    only = tmp_path / "companions"
    (only / ".flox" / "pkgs").mkdir(parents=True)
    companion(only, "torchvision", "pytorch-python313-cuda12_8-sm61-avx", imported=False)
    assert run(str(only), "--pytorch-version", "2.8.0").output == (
        f"error: {only / '.flox' / 'pkgs'}: no torch recipe among the recipes\n"
        "  hint: adopt starts from torch recipes\n")
    unpinned = tmp_path / "unpinned"
    unpinned.mkdir()
    (unpinned / "pytorch-python313-cpu-avx512.nix").write_text(CALLPACKAGE_RECIPE)
    assert run(str(unpinned), "--pytorch-version", "2.8.0").output == (
        f"error: {unpinned}: no recipe pins nixpkgs: they build against the environment's\n"
        "  hint: give the nixpkgs revision they should build against with --nixpkgs-rev REV\n")


def test_a_pin_rule_by_kind_one_sha256_and_the_isa_axis_x86_first(folder):
    by_isa = reference_shaped(folder)
    pkgs = folder / ".flox" / "pkgs"
    for name in ("pytorch-python313-cpu-avx2", "pytorch-python313-darwin-mps"):
        shutil.copy(FIXTURE / ".flox" / "pkgs" / f"{name}.nix", pkgs)
    repin(pkgs / "pytorch-python313-cpu-avx2.nix", REV_B)
    result = adopt.adopt(folder, "2.8.0")
    assert [pin.get("when") for pin in result.matrix["nixpkgs"]["pins"]] == [{"kind": "cpu"}, None]
    assert result.matrix["gpu"]["isa"] == ["avx", "avx2", "avx512", "avx512bf16", "avx512vnni", "armv8_2", "armv9"]
    assert sorted(by_isa) == sorted(result.matrix["gpu"]["isa"])
    for recipe in pkgs.glob("*.nix"):
        repin(recipe, REV_B, SHA_B)
    assert adopt.adopt(folder, "2.9.1").matrix["nixpkgs"]["sha256"] == SHA_B


def test_a_recipe_left_out_of_the_product_is_kept_out_by_a_rule(folder):
    reference_shaped(folder)
    pkgs = folder / ".flox" / "pkgs"
    (pkgs / "pytorch-python313-cuda12_8-sm80-avx512.nix").unlink()
    result = adopt.adopt(folder, "2.8.0")
    assert result.matrix["gpu"]["exclude"] == [{"sm": "sm80", "isa": "avx512"}]
    assert result.reproduced == 50 and set(result.generated) == {recipe.stem for recipe in pkgs.glob("*.nix")}


def test_a_source_from_a_fork_keeps_its_owner_and_repository(folder):
    give_source(folder, "someone", "pytorch-fork")
    assert adopt.adopt(folder, None).matrix["pytorch"]["source"] == {
        "rev": "v2.9.0", "hash": SOURCE_HASH, "owner": "someone", "repo": "pytorch-fork"}


def test_what_a_hand_written_switch_becomes_is_said_for_each_kind_of_switch(folder):
    """USE_CUDA/USE_CUDNN off in a build without CUDA, -DUSE_X=OFF cmakeFlags (a CUDA one in a
    CPU build, another), a CUDAFLAGS export no fix makes, and the source fixes' own variable and
    CMake flag."""
    pkgs = folder / ".flox" / "pkgs"
    give_source(folder)
    for recipe in pkgs.glob("pytorch-*.nix"):
        recipe.write_text(recipe.read_text().replace("  preConfigure = (old.preConfigure or \"\") + ''\n", """  preConfigure = (old.preConfigure or "") + ''
    export PYTORCH_BUILD_VERSION=2.9.0
""", 1))
    cpu = pkgs / "pytorch-python313-cpu-avx2.nix"
    cpu.write_text(cpu.read_text().replace('"-DCMAKE_BUILD_TYPE=Release"',
                                           '"-DCMAKE_BUILD_TYPE=Release" "-DUSE_CUDA=OFF" "-DUSE_FOO=OFF" '
                                           '"-DTORCH_BUILD_VERSION=2.9.0"')
               .replace("export USE_CUDA=0", "export USE_CUDA=0\n    export USE_CUDNN=0"))
    mps = pkgs / "pytorch-python313-darwin-mps.nix"
    mps.write_text(mps.read_text().replace("export USE_MPS=1", "export USE_MPS=1\n    export USE_CUDA=0"))
    gpu = pkgs / "pytorch-python313-cuda12_8-sm90-avx2.nix"
    gpu.write_text(gpu.read_text().replace("export MAX_JOBS=32", "export MAX_JOBS=32\n    export CUDAFLAGS=-O2"))
    result = adopt.adopt(folder, None)
    assert [c for c in result.changes["pytorch-python313-cpu-avx2"] if "USE_" in c or "cmakeFlags" in c] == [
        "export USE_CUDA=0: dropped; the build has no CUDA (cudaSupport false), so setup.py finds none to use",
        "export USE_CUDNN=0: dropped; the build has no CUDA (cudaSupport false), so setup.py finds none to use",
        "cmakeFlags -DUSE_CUDA=OFF: never reached CMake (nixpkgs builds torch through setup.py); generate switches "
        "USE_CUDA off where setup.py reads it",
        "cmakeFlags -DTORCH_BUILD_VERSION=2.9.0: nixpkgs builds torch through setup.py, so it never reached CMake; "
        "the built-in fix does its work in the build"]
    assert [line for line in result.lost["pytorch-python313-cpu-avx2"] if "cmakeFlags" in line] == [
        "cmakeFlags -DCMAKE_BUILD_TYPE=Release: never reached CMake (nixpkgs builds torch through setup.py), dropped",
        "cmakeFlags -DUSE_FOO=OFF: never reached CMake (nixpkgs builds torch through setup.py), dropped"]
    assert "export USE_CUDA=0: dropped; the build has no CUDA (cudaSupport false), so setup.py finds none to use" in \
        result.changes["pytorch-python313-darwin-mps"]
    assert "export CUDAFLAGS=-O2: set by hand, gen-matrix sets no such variable" in \
        result.lost["pytorch-python313-cuda12_8-sm90-avx2"]
    assert not any("PYTORCH_BUILD_VERSION" in line for lines in result.lost.values() for line in lines)


def test_the_report_of_the_fixture_whole(folder):
    result = run(str(folder), "--pytorch-version", "2.8.0")
    assert result.exit_code == 0, result.output
    jobs = ("dropped; the build takes the builder's cores, as many as its free memory allows (4 GB a CUDA compile job, "
            "2 GB another: nix/lib/compile.nix), and the workflow's builds at most build.jobs")
    defaults = "7.5 8.0 8.6 8.9 9.0 10.0 12.0"
    assert result.output.split("\n\ngen-matrix adopt: ", 1)[1].splitlines() == [
        "the matrix reproduces 5 of 5 names",
        "The takeover builds every variant anew: 4 torch builds (1 cpu, 1 darwin, 2 gpu) and 1 companion builds, "
        "about 9 build-hours by the knowledge table's build_costs, with nothing cached; for 1 of them, whose SM the "
        "binary cache does not serve, magma, NCCL and the other CUDA libraries are built too",
        "`gen-matrix generate --adopt` replaces 5 recipes under .flox/pkgs",
        "",
        "Not carried over (7 facts of 3 recipes):",
        "  - pname torch-cpu-avx2: the package takes the recipe's name (pytorch-python313-cpu-avx2)",
        "  - meta.description and longDescription: generate writes them from the knowledge table "
        "(pytorch-python313-cpu-avx2)",
        "  - export USE_MKLDNN_CBLAS=1: set by hand, gen-matrix sets no such variable (pytorch-python313-cpu-avx2)",
        "  - cmakeFlags -DCMAKE_BUILD_TYPE=Release: never reached CMake (nixpkgs builds torch through setup.py), "
        "dropped (pytorch-python313-cpu-avx2)",
        "  - magma patch local-tuning.patch: unknown to the built-in fixes (nixpkgs.patches in matrix.yaml can carry "
        "it) (pytorch-python313-cuda12_8-sm61-avx)",
        "  - nixpkgs config cudaForwardCompat = false: set by hand here, not by every recipe of its pin (a pin's "
        "config is all its variants') (pytorch-python313-cuda12_8-sm90-avx2)",
        "  - hand-written flag -O3: not among the knowledge table's flags of avx2 (pytorch-python313-cuda12_8-sm90-avx2)",
        "",
        "What `gen-matrix generate` would change (5 recipes):",
        "  - store name: python<version>-<package>-<version>-<the variant's axes>, named after its variant, which "
        "tells the variants' builds apart in the store and in build logs (5 recipes, e.g. pytorch-python313-cpu-avx2)",
        "  - export USE_CUDA=0: dropped; the build has no CUDA (cudaSupport false), so setup.py finds none to use "
        "(pytorch-python313-cpu-avx2)",
        f"  - ninjaFlags -j32; export MAX_JOBS=32 and ninjaFlags -j32: {jobs} (4 recipes, e.g. pytorch-python313-cpu-avx2)",
        "  - passthru.cudaVersion = null added; passthru.blasProvider = cublas added; passthru.cudaVersion = 12.8 added: "
        "a fact for consumers (a vLLM build, say) that every variant gives (5 recipes, e.g. pytorch-python313-cpu-avx2)",
        "  - buildInputs openblas: dropped; a second copy of the BLAS nixpkgs' torch already links, which generate "
        "makes OpenBLAS (blas.override { blasProvider = openblas; }) (pytorch-python313-cpu-avx2)",
        "  - exports USE_CUDNN=0: current cuDNN no longer supports sm61 (pytorch-python313-cuda12_8-sm61-avx)",
        "  - exports USE_MKLDNN=0: the knowledge table switches MKLDNN off for avx (pytorch-python313-cuda12_8-sm61-avx)",
        "  - exports USE_MKLDNN_CBLAS=0: the knowledge table switches MKLDNN_CBLAS off for avx "
        "(pytorch-python313-cuda12_8-sm61-avx)",
        "  - exports USE_NNPACK=0: the knowledge table switches NNPACK off for avx (pytorch-python313-cuda12_8-sm61-avx)",
        "  - cmakeFlags -DCXX_AVX2_FOUND=FALSE; cmakeFlags -DC_AVX2_FOUND=FALSE: nixpkgs builds torch through "
        "setup.py, so it never reached CMake; the built-in fix does its work in the build "
        "(pytorch-python313-cuda12_8-sm61-avx)",
        f"  - passthru.cudaCapabilities {defaults} -> 6.1; passthru.cudaCapabilities {defaults} -> 9.0: its pin's CUDA "
        "set's defaults give way to the variant's SM alone, which torchvision and torchaudio built against it compile "
        "for (2 recipes, e.g. pytorch-python313-cuda12_8-sm61-avx)",
        "  - config.cudaCapabilities the pin's defaults -> 6.1: capability scope nixpkgs, torch and every CUDA library "
        "it links (config.cudaCapabilities): they are built for it too (pytorch-python313-cuda12_8-sm61-avx)",
        "  - CPU flags -mavx2 -mfma -mf16c where the recipe has -mavx2 -mfma -mf16c -O3 (the knowledge table's flags "
        "of avx2) (pytorch-python313-cuda12_8-sm90-avx2)",
        "  - requiredSystemFeatures big-parallel added: the matrix's build.system_features, which every build of it "
        "asks its builder for (torchvision-python313-cuda12_8-sm61-avx)",
        "  - CPU flags -mavx -mno-fma -mno-bmi -mno-bmi2 -mno-avx2 where the recipe has (none) (the knowledge table's "
        "flags of avx) (torchvision-python313-cuda12_8-sm61-avx)",
    ]


def test_facts_of_one_reason_are_said_once_with_at_most_four_subjects():
    facts = {f"r{i}": [f"flag -O{i}: not carried"] for i in range(6)}
    facts["r0"].append("a fact without a reason")
    assert adopt.reporting._grouped(facts) == [
        "  - flag -O0; flag -O1; flag -O2; 3 more like them: not carried (6 recipes, e.g. r0)",
        "  - a fact without a reason (r0)"]
    four = {f"r{i}": [f"flag -O{i}: not carried"] for i in range(4)}
    assert adopt.reporting._grouped(four) == [
        "  - flag -O0; flag -O1; flag -O2; flag -O3: not carried (4 recipes, e.g. r0)"]


MANIFEST = """version = 1

[install]
git.pkg-path = "git"

[hook]
on-activate = '''
echo "hand-written"
'''

[options]
systems = ["aarch64-darwin", "x86_64-darwin", "x86_64-linux"]
"""
LOCK_LINE = "run `flox activate -- true && git add .flox/env/manifest.lock`"


def test_after_adopt_write_a_plain_generate_says_once_to_run_generate_adopt(folder):
    git(folder, "init", "-q")
    assert run(str(folder), "--write", "--pytorch-version", "2.8.0").exit_code == 0
    result = generate(folder)
    assert result.exit_code == 2
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert errors == [f"error: .flox/pkgs/{NAMES[0]}.nix: this file and {len(NAMES) - 1} more "
                      f"(.flox/pkgs/{NAMES[1]}.nix, .flox/pkgs/{NAMES[2]}.nix, ...) were not generated by "
                      "gen-matrix, but the matrix generates them"], result.output
    assert len(result.output.splitlines()) == 2 and "then run `gen-matrix generate --adopt`" in result.output


def test_adopt_and_generate_say_when_the_flox_lock_goes_stale_with_the_command(folder):
    """The lock holds the manifest: the hand-written one's systems lose x86_64-darwin (no
    variant builds there) and its hook gains gen-matrix's block; later, a new system stales it
    again, and variants that leave the manifest as it is do not."""
    manifest, lock = folder / ".flox/env/manifest.toml", folder / ".flox/env/manifest.lock"
    manifest.parent.mkdir(parents=True)
    manifest.write_text(MANIFEST)
    lock.write_text('{"lockfile-version": 1, "manifest": {}, "packages": []}\n')
    git(folder, "init", "-q")
    report = run(str(folder), "--write", "--pytorch-version", "2.8.0").output
    said = ("It changes what the committed Flox lock holds of .flox/env/manifest.toml (options.systems x86_64-darwin "
            "dropped; hook.on-activate changed): after it, " + LOCK_LINE.removeprefix("run ").join(["run ", ""]))
    assert said in report, report
    git(folder, "add", "-A")
    git(folder, "commit", "-qm", "hand-written")
    result = generate(folder, "--adopt")
    assert result.exit_code == 0, result.output
    assert ("warning: .flox/env/manifest.lock: this run changes what the Flox lock holds of .flox/env/manifest.toml "
            "(options.systems x86_64-darwin dropped; hook.on-activate changed)") in result.output
    assert "make it again and commit it: `flox activate -- true && git add .flox/env/manifest.lock" in result.output
    assert "manifest.lock" not in generate(folder).output  # nothing of it changes now
    matrix = folder / "matrix.yaml"
    matrix.write_text(matrix.read_text().replace("python: ['3.13']", "python: ['3.12', '3.13']", 1))  # gpu's
    result = generate(folder)
    assert result.exit_code == 0 and "variants" in result.output and "manifest.lock" not in result.output, result.output
    cpu = "cpu:\n  python: ['3.13']\n  isa: [avx2]"
    assert cpu in matrix.read_text()
    matrix.write_text(matrix.read_text().replace(cpu, cpu.replace("[avx2]", "[avx2, armv9]")))
    result = generate(folder)
    assert result.exit_code == 0, result.output
    assert "Flox lock holds of .flox/env/manifest.toml (options.systems aarch64-linux added)" in result.output
    lock.unlink()  # no lock: nothing to stale
    matrix.write_text(matrix.read_text().replace(cpu.replace("[avx2]", "[avx2, armv9]"), cpu))
    result = generate(folder)
    assert result.exit_code == 0 and "manifest.lock" not in result.output, result.output


@pytest.mark.parametrize("rev, adds", [("0182a361324364ae3f436a63005877674cf45efb", False),
                                       ("6a030d535719c5190187c4cec156f335e95e3211", True)])
def test_the_magma_fix_is_said_to_be_added_only_on_a_pin_whose_magma_lacks_it(folder, rev, adds):
    """build-pytorch's 2.9 branch: CUDA 13.0 recipes on 0182a36 leave magma as it is, and its
    magma has the commit (knowledge pins, carries); on 6a030d5 it has not, and the fix adds it."""
    pkgs = folder / ".flox" / "pkgs"
    for recipe in list(pkgs.glob("*.nix")):
        if recipe.name != "pytorch-python313-cuda12_8-sm90-avx2.nix":
            recipe.unlink()
            continue
        text = recipe.read_text().replace(FE5E, rev).replace("cudaPackages_12_8", "cudaPackages_13_0")
        (pkgs / recipe.name.replace("cuda12_8", "cuda13_0")).write_text(text)
        recipe.unlink()
    result = adopt.adopt(folder, "2.9.1")
    said = result.changes["pytorch-python313-cuda13_0-sm90-avx2"]
    assert any(line.startswith("adds the allow-broken-cuda13 fix") for line in said), said
    assert any(line.startswith("adds the magma-cuda13-clockrate fix") for line in said) is adds, said
    (folder / "matrix.yaml").write_text(result.text)
    explained = CliRunner().invoke(main, ["explain", "pytorch-python313-cuda13_0-sm90-avx2", "--root", str(folder)])
    assert explained.exit_code == 0, explained.output
    assert ("magma-cuda13-clockrate" in explained.output) is adds


@pytest.mark.parametrize("rev, carried", [("0182a361324364ae3f436a63005877674cf45efb", True),
                                          ("6a030d535719c5190187c4cec156f335e95e3211", False)])
def test_a_hand_written_fix_the_pin_holds_is_said_dropped_not_lost(tmp_path, rev, carried):
    """Thor recipes that patch MAGMA by hand, as build-pytorch's pytorch-2.10-python313 branch
    does: on 0182a36, whose magma has the same commit (knowledge pins, carries), generate
    drops the hand-written patch, which the pin already applies; on 6a030d5 the built-in fix
    takes its place, and neither is said. The report never calls the fix one that does not
    apply: its rule holds on both."""
    from test_adopt_evaluated import _thor

    folder = tmp_path / "recipes"
    _thor(folder)
    for recipe in (folder / ".flox" / "pkgs").glob("*.nix"):
        text = recipe.read_text().replace("6a030d535719c5190187c4cec156f335e95e3211", rev)
        recipe.write_text(text.replace("final.cudaPackages_13;", "final.cudaPackages_13_0;"))
    result = adopt.adopt(folder, "2.9.1")
    assert sorted(result.changes) == sorted(result.names) == ["pytorch-python313-cuda13_0-sm110-armv8_2",
                                                               "pytorch-python313-cuda13_0-sm110-armv9"]
    for name in result.names:
        said = [line for line in result.changes[name] + result.lost.get(name, []) if "magma-cuda13-clockrate" in line]
        dropped = "its hand-written magma-cuda13-clockrate fix dropped: the pin's nixpkgs already holds that change"
        assert said == ([dropped] if carried else []), (name, said)
