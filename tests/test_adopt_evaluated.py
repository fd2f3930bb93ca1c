"""adopt's report names every fact of a build whose evaluated value the takeover changes.

Two folders of hand-written recipes: one shaped like barstoolbluz/build-pytorch's main
branch (its 51 GPU recipes on fe5e41d, from tests/test_adopt.py) beside the adopt fixture's
others, and Thor recipes written as its pytorch-2.10-python313 branch writes them (6a030d5,
cudaPackages_13, torch overridden for 11.0 alone, MAGMA patched by hand). Each recipe is
evaluated by nix-instantiate against the test package set as it is written (its
fetchTarball of the pin answered by the package set that impersonates the pin), and so is
the recipe `gen-matrix generate --adopt` writes in its place. Every fact that differs
between the two must be among what the report says of that recipe (`changes` or `lost`):

- a build switch or a variable exported for setup.py (USE_*, BLAS, MAX_JOBS);
- the compile jobs pinned by ninjaFlags;
- passthru.cudaCapabilities (what torchvision and torchaudio compile for);
- the capabilities nixpkgs builds the CUDA libraries for (cudaPackages.flags);
- NCCL, available to torch or not;
- the CPU flags;
- meta.platforms, where the recipe sets it (a recipe that does not takes nixpkgs' list,
  which is no fact of the recipe's).

Each check is of a fact found to differ somewhere, so the test fails if the folders stop
exercising it.
"""

from __future__ import annotations

import re
import shutil
from collections import Counter
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import REPO, fake_for, needs_nix, nix_eval, nix_string, shell_exports
from generator.cli import main
from generator.commands import adopt
from generator.knowledge import build, builtin
from test_adopt import FIXTURE, reference_shaped

pytestmark = [needs_nix, pytest.mark.slow]

FAKES = REPO / "tests" / "nix" / "fakes.nix"
FIXES = REPO / "nix" / "fixes"
# the fixes that change only which packages may evaluate (knowledge.yaml, `changes: evaluation`)
EVALUATION_FIXES = sorted(name for name, fix in build(builtin()).fixes.items() if fix.changes == "evaluation")

THOR = '''# Written as barstoolbluz/build-pytorch's pytorch-2.10-python313 branch writes its Thor
# recipes: the pin's CUDA 13 set, MAGMA patched for CUDA 13.0, torch for 11.0 alone.
{ pkgs ? import <nixpkgs> { } }:
let
  nixpkgs_pinned = import (builtins.fetchTarball {
    url = "https://github.com/NixOS/nixpkgs/archive/6a030d535719c5190187c4cec156f335e95e3211.tar.gz";
  }) {
    config = { allowUnfree = true; allowBroken = true; cudaSupport = true; };
    overlays = [
      (final: prev: { cudaPackages = final.cudaPackages_13; })
      (final: prev: {
        magma = prev.magma.overrideAttrs (oldAttrs: {
          patches = (oldAttrs.patches or [ ]) ++ [
            (final.fetchpatch {
              name = "cuda-13.0-clockrate-fix.patch";
              url = "https://github.com/icl-utk-edu/magma/commit/235aefb7b064954fce09d035c69907ba8a87cbcd.patch";
              hash = "sha256-i9InbxD5HtfonB/GyF9nQhFmok3jZ73RxGcIciGBGvU=";
            })
          ];
        });
      })
    ];
  };
  gpuArchSM = "11.0";
  cpuFlags = [ FLAGS ];
in
(nixpkgs_pinned.python3Packages.torch.override {
  cudaSupport = true;
  gpuTargets = [ gpuArchSM ];
}).overrideAttrs (oldAttrs: {
  pname = "NAME";
  passthru = oldAttrs.passthru // { gpuArch = gpuArchSM; cpuISA = "ISA"; };
  ninjaFlags = [ "-j32" ];
  requiredSystemFeatures = [ "big-parallel" ];
  preConfigure = (oldAttrs.preConfigure or "") + \'\'
    export CXXFLAGS="${nixpkgs_pinned.lib.concatStringsSep " " cpuFlags} $CXXFLAGS"
    export CFLAGS="${nixpkgs_pinned.lib.concatStringsSep " " cpuFlags} $CFLAGS"
    export MAX_JOBS=32
  \'\';
  meta = oldAttrs.meta // { platforms = [ "aarch64-linux" ]; };
})
'''


def _broken(folder: Path) -> None:
    """Recipes as barstoolbluz/build-pytorch writes them on two branches: Thor recipes on
    6a030d5, whose torch marks itself broken for CUDA 13 (tests/nix/README.md), one without
    allowBroken (as its pytorch-2.9-python313 branch writes its CUDA 13.0 recipes) and one with
    it; and a CPU recipe with allowBroken (as its pytorch-2.10-python313 branch writes them),
    where torch is not marked broken."""
    _thor(folder)
    pkgs = folder / ".flox" / "pkgs"
    thor = pkgs / "pytorch-python313-cuda13_0-sm110-armv8_2.nix"
    thor.write_text(thor.read_text().replace("allowBroken = true; ", ""))
    cpu = (FIXTURE / ".flox" / "pkgs" / "pytorch-python313-cpu-avx2.nix").read_text()
    cpu = cpu.replace("fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3", "6a030d535719c5190187c4cec156f335e95e3211")
    (pkgs / "pytorch-python313-cpu-avx2.nix").write_text(
        cpu.replace("config = { allowUnfree = true; };", "config = { allowUnfree = true; allowBroken = true; };"))


def _reference_main(folder: Path) -> None:
    shutil.copytree(FIXTURE, folder)
    keep = {p.name: p.read_text() for p in (folder / ".flox" / "pkgs").glob("*.nix")}
    reference_shaped(folder)
    for name, text in keep.items():  # the fixture's CPU, Apple and companion recipes beside them
        if "cuda12_8-sm" not in name or name.startswith("torchvision"):
            (folder / ".flox" / "pkgs" / name).write_text(text)


def _thor(folder: Path, on_main_pin: bool = False) -> None:
    """The Thor recipes; `on_main_pin`: on the main branch's pin and its CUDA 13.0 set, to sit
    beside its recipes (one PyTorch)."""
    from generator.knowledge import build, builtin

    knowledge = build(builtin())
    pkgs = folder / ".flox" / "pkgs"
    pkgs.mkdir(parents=True, exist_ok=True)
    text = THOR
    if on_main_pin:
        text = text.replace("6a030d535719c5190187c4cec156f335e95e3211", "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3")
        text = text.replace("final.cudaPackages_13;", "final.cudaPackages_13_0;")
    for isa in ("armv8_2", "armv9"):
        name = f"pytorch-python313-cuda13_0-sm110-{isa}"
        flags = " ".join(f'"{flag}"' for flag in knowledge.isa[isa].flags)
        (pkgs / f"{name}.nix").write_text(text.replace("FLAGS", flags).replace("NAME", name).replace("ISA", isa))


FACTS = '''
  facts = r: t: cuda: {
    # nixpkgs sets some in env (torchvision's FORCE_CUDA), which a recipe's export repeats
    vars = builtins.mapAttrs (_: toString) (lib.filterAttrs
      (n: v: builtins.match "USE_[A-Z0-9_]+|BLAS|MAX_JOBS|FORCE_CUDA" n != null && (builtins.isString v || builtins.isInt v))
      ((t.drvAttrs.env or { }) // t.drvAttrs));
    preConfigure = t.preConfigure or "";
    ninjaFlags = t.drvAttrs.ninjaFlags or [ ];
    passthruCapabilities = t.passthru.cudaCapabilities or [ ];
    gencode = if cuda then t.passthru.cudaPackages.flags.gencodeString else null;
    nccl = if cuda then t.passthru.cudaPackages.nccl.meta.available else null;
    platforms = r.meta.platforms or null;
    # whether nixpkgs' check-meta lets torch evaluate under the recipe's config (allowBroken)
    available = t.meta.available;
    # the store name of the build, the facts the published package's passthru gives consumers, the packages it adds
    # to buildInputs (a derivation by its name) and the features it asks its builder for
    name = t.name;
    passthru = lib.filterAttrs (n: v: n != "cudaCapabilities" && (v == null || builtins.isString v)) r.passthru;
    buildInputs = map (p: p.pname or p.name or "?") (t.buildInputs or [ ]);
    systemFeatures = t.drvAttrs.requiredSystemFeatures or [ ];
  };
'''


def _evaluate(folder: Path, generated: Path, result) -> dict:
    """{recipe: {"before": facts, "after": facts}} for the torch recipes both folders hold."""
    from conftest import expansion_of

    expansion = expansion_of(generated)
    entries = []
    for v in expansion.variants:
        if v.name not in result.names:
            continue
        torch = next(t for t in expansion.variants if t.name == v.torch) if v.is_companion else v
        fake = fake_for(torch, expansion.matrix)
        cuda = "true" if v.cuda and not v.is_companion else "false"  # a companion links its torch's CUDA set
        old = folder / ".flox" / "pkgs" / f"{v.name}.nix"
        new = generated / ".flox" / "pkgs" / f"{v.name}.nix"
        entries.append(f'''"{v.name}" = let
      fake = {fake};
      real = builtins;
      scope = {{
        fetchTarball = _: fake;
        __findFile = _: _: fake;
        builtins = real // {{ fetchTarball = _: fake; }};
        import = scopedImport scope;  # a companion's import of its torch's recipe
      }};
      old = scopedImport scope {nix_string(old)} {{ }};
      new = import {nix_string(new)} {{ genMatrixNixpkgs = fake; }};
    in {{ before = facts old old {cuda}; after = facts new new.unwrapped {cuda}; }};''')
    lib = f"(import {nix_string(FAKES)}).fe5e41d.x86_64-linux"
    expression = f"let lib = (import {lib} {{ }}).lib;\n{FACTS}\nin {{\n" + "\n".join(entries) + "\n}"
    return nix_eval(expression)



def _flags(text: str) -> set[str]:
    exported = shell_exports(text)
    return {flag for var in ("CXXFLAGS", "CFLAGS") for flag in exported.get(var, "").split() if not flag.startswith("$")}


def _differences(before: dict, after: dict) -> dict:
    """fact -> the word (or words, one of which) the report must use for it, for each fact
    that differs."""
    found = {}
    have = {**before["vars"], **shell_exports(before["preConfigure"])}
    want = {**after["vars"], **shell_exports(after["preConfigure"])}
    for var in sorted(set(have) | set(want)):
        if var in ("CXXFLAGS", "CFLAGS", "NIX_BUILD_CORES", "TORCH_CUDA_ARCH_LIST") or "$" in have.get(var, ""):
            continue
        if have.get(var) != want.get(var):
            # a variable a built-in fix sets is said with the fix that the report says it adds
            fixes = tuple(f"adds the {path.stem} fix" for path in sorted(FIXES.glob("*.nix")) if var in path.read_text())
            found[f"variable {var}"] = ("NCCL" if "NCCL" in var else var,) + fixes
    if before["ninjaFlags"] != after["ninjaFlags"]:
        found["ninjaFlags"] = "ninjaFlags"
    if before["passthruCapabilities"] != after["passthruCapabilities"]:
        found["passthru.cudaCapabilities"] = "passthru.cudaCapabilities"
    if before["gencode"] != after["gencode"]:
        # config.cudaCapabilities or another nixpkgs config (cudaForwardCompat) sets the gencode
        found["CUDA libraries' capabilities"] = ("config.cudaCapabilities", "nixpkgs config")
    if before["nccl"] != after["nccl"]:
        found["NCCL"] = "NCCL off"
    if _flags(before["preConfigure"]) != _flags(after["preConfigure"]):
        found["CPU flags"] = "flag"
    if before["name"] != after["name"]:
        found["store name"] = "store name"
    for key in sorted(set(before["passthru"]) | set(after["passthru"])):
        if before["passthru"].get(key, "absent") != after["passthru"].get(key, "absent"):
            found[f"passthru.{key}"] = f"passthru.{key}"
    # an input gone or added, by its name; a companion's torch is named as its recipe says
    # (the torch recipe's report covers that)
    # (the torch recipe's report covers that); counted, so that an input given twice is seen
    inputs = [Counter(name for name in side["buildInputs"] if name != "torch" and not name.startswith("pytorch-"))
              for side in (before, after)]
    if inputs[0] != inputs[1]:
        changed = set((inputs[0] - inputs[1]) + (inputs[1] - inputs[0]))
        # nccl goes with NCCL off, which the report says as such
        found["buildInputs"] = tuple(f"buildInputs {name}" for name in sorted(changed)) + (
            ("NCCL off",) if changed == {"nccl"} else ())
    if before["systemFeatures"] != after["systemFeatures"]:
        found["requiredSystemFeatures"] = "requiredSystemFeatures"
    if before["available"] != after["available"]:
        found["evaluates"] = tuple(f"adds the {fix} fix" for fix in EVALUATION_FIXES)
    return found


@pytest.fixture(scope="module")
def adopted(tmp_path_factory) -> dict:
    out = {}
    both = lambda folder: (_reference_main(folder), _thor(folder, on_main_pin=True))  # noqa: E731
    for label, make in (("reference-main", _reference_main), ("thor", _thor), ("both", both), ("broken", _broken)):
        tmp = tmp_path_factory.mktemp(label)
        folder = tmp / "recipes"
        make(folder)
        subprocess.run(["git", "init", "-q", str(folder)], check=True)
        result = adopt.adopt(folder, None)
        generated = tmp / "generated"  # what generate --adopt writes in the recipes' place
        generated.mkdir()
        (generated / "matrix.yaml").write_text(result.text)
        done = CliRunner().invoke(main, ["--root", str(generated), "generate"], catch_exceptions=False)
        assert done.exit_code == 0, done.output
        out[label] = (folder, result, _evaluate(folder, generated, result))
    return out


def test_every_fact_whose_evaluated_value_changes_is_in_the_report(adopted):
    seen = set()
    for label, (folder, result, evaluated) in adopted.items():
        assert evaluated, label
        for name, both in evaluated.items():
            said = " | ".join(result.changes.get(name, []) + result.lost.get(name, []))
            for fact, word in _differences(both["before"], both["after"]).items():
                seen.add(fact.split()[0] if fact.startswith("variable") else fact)
                words = word if isinstance(word, tuple) else (word,)
                assert any(w in said for w in words), f"{label}: {name}: {fact} changes ({words}), and the report says only: {said}"
            recipe_sets_platforms = "platforms" in (folder / ".flox/pkgs" / f"{name}.nix").read_text()
            if recipe_sets_platforms and both["before"]["platforms"] != both["after"]["platforms"]:
                seen.add("platforms")
                assert "meta.platforms" in said, f"{label}: {name}: meta.platforms changes: {said}"
    # each kind of fact differs somewhere, so none of the checks above is idle
    assert {"variable", "ninjaFlags", "passthru.cudaCapabilities", "CUDA libraries' capabilities", "NCCL",
            "CPU flags", "store name", "passthru.cudaVersion", "buildInputs", "requiredSystemFeatures",
            "evaluates"} <= seen, seen


def test_a_fix_that_decides_only_what_evaluates_is_named_only_where_it_decides_it(adopted):
    """allow-broken-cuda13 sets config.allowBroken alone, which no derivation reads: the report
    names it where the recipe's torch is refused (marked broken, without allowBroken) and the
    generated one evaluates, and nowhere else: not where the recipe has it already, nor where
    the recipe's allowBroken is dropped from a torch nothing marks broken (a CPU build)."""
    assert EVALUATION_FIXES == ["allow-broken-cuda13"]
    seen = Counter()
    for label, (folder, result, evaluated) in adopted.items():
        for name, both in evaluated.items():
            said = [line for line in result.changes.get(name, []) + result.lost.get(name, [])
                    if any(fix in line for fix in EVALUATION_FIXES)]
            before, after = both["before"]["available"], both["after"]["available"]
            assert after, f"{label}: {name}: the generated torch does not evaluate"
            text = (folder / ".flox/pkgs" / f"{name}.nix").read_text()
            seen[(before, "allowBroken" in text)] += 1
            assert bool(said) is (before != after), f"{label}: {name}: evaluates {before} -> {after}, said {said}"
    # refused and made to evaluate; evaluating with the recipe's allowBroken (CUDA 13, and a
    # CPU build where it changes nothing); evaluating without it
    assert {(False, False), (True, True), (True, False)} <= set(seen), seen
    assert seen[(True, True)] >= 2, seen


def test_the_thor_report_says_nccl_goes_off_and_the_cuda_libraries_are_built_for_it(adopted):
    folder, result, evaluated = adopted["thor"]
    for name, both in evaluated.items():
        assert both["before"]["nccl"] is True and both["after"]["nccl"] is False
        assert both["after"]["vars"]["USE_NCCL"] == "0" and both["before"]["vars"]["USE_NCCL"] == "1"
    text = adopt.report(result)
    assert "NCCL off (USE_NCCL=0 USE_STATIC_NCCL=0 USE_SYSTEM_NCCL=0) where the recipe's build has it" in text
    assert "config.cudaCapabilities the pin's defaults -> 11.0" in text


def test_the_cost_line_names_nccl_only_for_the_builds_that_have_it(adopted):
    """The builds whose CUDA libraries are built anew: NCCL among them only as often as the
    evaluated builds have it (a Jetson build has none), in the reference-shaped folder (all
    have it), the Thor one (none has it) and both together."""
    seen = set()
    for label, (folder, result, evaluated) in adopted.items():
        cost = next(line for line in adopt.report(result).splitlines() if line.startswith("The takeover"))
        # the builds whose package set's CUDA libraries are built for their SM alone
        rebuilt = [name for name, both in evaluated.items()
                   if both["after"]["gencode"] and len(set(re.findall(r"compute_(\d+)", both["after"]["gencode"]))) == 1]
        without = sum(1 for name in rebuilt if evaluated[name]["after"]["nccl"] is False)
        assert result.cuda_rebuilds == len(rebuilt) > 0, (label, cost)
        libraries = cost.split(", whose SM the binary cache does not serve, ", 1)[1]
        if without == 0:
            seen.add("all")
            assert libraries == "magma, NCCL and the other CUDA libraries are built too", (label, cost)
        elif without == len(rebuilt):
            seen.add("none")
            assert libraries == ("magma and the other CUDA libraries are built too (no NCCL: nixpkgs builds none "
                                 "for their SMs)"), (label, cost)
        else:
            seen.add("some")
            assert libraries == (f"magma, NCCL and the other CUDA libraries are built too (NCCL for "
                                 f"{len(rebuilt) - without} of them: nixpkgs builds none for the other {without})"), (
                label, cost)
    assert seen == {"all", "none", "some"}
