"""The build fixes of nix/fixes add to what nixpkgs had and take nothing away.

Each fix that changes a package of the pin does it by overriding attributes: an `overlay`
(magma-cuda13-clockrate, compiler-cache-ccache) or an overrideAttrs argument for torch (the
`torch` attribute). Every such fix is applied, as the recipes apply it, to the test package
set of every pin it models, with each CUDA release the fix's `when` lets through, and the
package after the fix is compared with the package before it:

- lists (patches, cmakeFlags, the build inputs): every element before is still there (a
  derivation by its name, since a fix may change a dependency: the magma torch builds with);
- phases (postPatch, preConfigure, ...): the text before is still part of the text after
  (store paths without their hashes: a fix may change what a phase refers to);
- env: every name before is still set.

The test package set's magma carries the patches, postPatch and preConfigure of nixpkgs'
magma at each pin (tests/nix/README.md says where each was read), so a fix that set
`patches = [ ... ]` instead of appending would fail here.

One fix is exempt, on purpose: torch-source-patches builds another PyTorch source, and
nixpkgs' torch patches and `--replace-fail` substitutions are written for the pin's own.

A second test fails where a fix adds a patch the package already has (patch(1) refuses it
as previously applied): the MAGMA fix's rule admits CUDA 13.0 on pins whose magma carries
the same commit (0182a36, 2017d6d), where the fix must add nothing.

What this cannot prove: that the real nixpkgs at each pin has these attributes (the package
set is read from the nearest stored texts, some of it inferred), and that a fix which keeps
them builds.
"""

from __future__ import annotations

import pytest

from conftest import NIX_INSTANTIATE, REPO, needs_nix, nix_eval, nix_string
from generator.knowledge import build, builtin, in_range

FIXES = REPO / "nix" / "fixes"
FAKES = REPO / "tests" / "nix" / "fakes.nix"
KNOWLEDGE = build(builtin())

# Fixes that replace what nixpkgs had by design, and why.
REPLACES = {
    "torch-source-patches": "nixpkgs' torch patches and --replace-fail substitutions are for the pin's own source",
}

LISTS = ["patches", "cmakeFlags", "buildInputs", "nativeBuildInputs", "propagatedBuildInputs", "buildFlags"]
PHASES = ["prePatch", "postPatch", "preConfigure", "postConfigure", "preBuild", "postBuild", "preInstall",
          "postInstall"]


def modelled_pins() -> list[str]:
    """The pins of knowledge.yaml that the test package set impersonates."""
    modelled = set(nix_eval(f"builtins.attrNames (import {nix_string(FAKES)})"))
    return sorted(name for name in KNOWLEDGE.pins if name in modelled)


def cases() -> list[tuple[str, str, str]]:
    """(fix, pin, CUDA release) for each fix, each modelled pin and each release its `when` admits."""
    found = []
    pins = modelled_pins() if NIX_INSTANTIATE else []
    for fix in sorted(KNOWLEDGE.fixes.values(), key=lambda f: f.name):
        if fix.name in REPLACES:
            continue
        wanted = fix.when.get("cuda")
        for pin in pins:
            if "pin" in fix.when and pin not in fix.when["pin"]:
                continue
            releases = [r for r in KNOWLEDGE.pins[pin].cuda if wanted is None or in_range(r, str(wanted))]
            if wanted is None:  # one release is enough where the fix does not depend on it
                releases = releases[-1:]
            found += [(fix.name, pin, release) for release in releases]
    return found


CASES = cases()

# For each case: what the packages a fix touches had before it and lost after it.
EXPRESSION = """
let
  fakes = import FAKES;
  cases = CASES;
  lists = LISTS;
  phases = PHASES;
  name = p: p.name or (baseNameOf (toString p));
  # store paths compared without their hashes: a fix may change what a phase refers to
  # (compiler-cache-ccache gives torch another compiler), not the text around it
  unhashed = text: builtins.concatStringsSep "" (map (x: if builtins.isList x then "/nix/store/HASH-" else x)
    (builtins.split "/nix/store/[0-9a-z]{32}-" (builtins.unsafeDiscardStringContext text)));
  # a derivation by its name: the magma fix changes the magma torch builds with, not its name
  key = p: if lib.isDerivation p then p.name else if builtins.isPath p then baseNameOf p else unhashed (toString p);
  contains = part: text: part == "" || builtins.replaceStrings [ (unhashed part) ] [ "" ] (unhashed text) != unhashed text;
  lost = old: new:
    builtins.concatMap (a:
      let before = old.${a} or [ ]; after = map key (new.${a} or [ ]); in
      map (p: "${a}: ${name p}") (builtins.filter (p: !(builtins.elem (key p) after)) before)) lists
    ++ builtins.concatMap (a:
      if !(old ? ${a}) || old.${a} == null then [ ]
      else if !(new ? ${a}) || new.${a} == null || !(contains old.${a} new.${a}) then [ "${a}: the text nixpkgs had" ]
      else [ ]) phases
    ++ map (n: "env.${n}") (builtins.filter (n: !((new.env or { }) ? ${n})) (builtins.attrNames (old.env or { })));
  lib = (import fakes."fe5e41d"."x86_64-linux" { }).lib;
  # patches the list holds twice: a fetchpatch by its hash (the same text under another
  # name), a file by its path; patch(1) refuses the second as "previously applied"
  same = p: p.outputHash or (toString p);
  twice = ps: map name (builtins.filter (p: builtins.length (builtins.filter (q: same q == same p) ps) > 1) ps);
  one = c:
    let
      fix = import (FIXES + "/${c.fix}.nix");
      set = overlays: import fakes.${c.pin}."x86_64-linux" {
        config = { allowUnfree = true; cudaSupport = true; allowBroken = true; } // (fix.config or { });
        overlays = [ (final: prev: { cudaPackages = final."cudaPackages_${builtins.replaceStrings [ "." ] [ "_" ] c.cuda}"; }) ] ++ overlays;
      };
      plain = set [ ];
      fixed = set (lib.optional (fix ? overlay) fix.overlay);
      torch = pkgs: pkgs.python3Packages.torch;
      # the passthru the recipes give every torch of a matrix with build.compiler_cache
      # (render.torch_build), which the compiler cache's fix reads; the derivation is the same
      grouped = pkgs: (torch pkgs).overrideAttrs (old: { passthru = old.passthru // { compilerCacheGroup = "0123456789abcdef"; }; });
      torchAfter =
        if fix ? torch then (grouped fixed).overrideAttrs (fix.torch { pkgs = fixed; inherit lib; version = (torch plain).version; })
        else torch fixed;
      touched = if fix ? overlay then builtins.filter (a: lib.isDerivation (plain.${a} or null)) (builtins.attrNames (fix.overlay fixed plain)) else [ ];
    in {
      name = "${c.fix} ${c.pin} ${c.cuda}";
      value = {
        torch = lost (torch plain) torchAfter;
        magma = lost plain.magma-cuda-static fixed.magma-cuda-static;
        # what each checked package had, so that an empty comparison cannot pass unnoticed
        magmaPatches = map name plain.magma-cuda-static.patches;
        twice = twice fixed.magma-cuda-static.patches ++ twice torchAfter.patches;
        # the content of each patch of magma after the fix, to see that the MAGMA fix's is there
        magmaPatchesAfter = map same fixed.magma-cuda-static.patches;
        # whether the fix changes the build at all: the derivation of torch after it
        changesTorch = torchAfter.drvPath != (torch plain).drvPath;
      } // builtins.listToAttrs (map (a: { name = a; value = lost plain.${a} fixed.${a}; }) touched);
    };
in builtins.listToAttrs (map one cases)
"""


def nix_list(items) -> str:
    return "[ " + " ".join(f'"{item}"' for item in items) + " ]"


@pytest.fixture(scope="module")
def compared() -> dict:
    cases = "[ " + " ".join(f'{{ fix = "{f}"; pin = "{p}"; cuda = "{c}"; }}' for f, p, c in CASES) + " ]"
    expression = (EXPRESSION.replace("FAKES", nix_string(FAKES)).replace("FIXES", nix_string(FIXES))
                  .replace("CASES", cases).replace("LISTS", nix_list(LISTS)).replace("PHASES", nix_list(PHASES)))
    return nix_eval(expression)


@needs_nix
def test_every_fix_of_a_package_is_checked():
    fixes = {fix for fix, _, _ in CASES}
    # the fixes that change a package; allow-broken-cuda13 only sets config
    assert {"magma-cuda13-clockrate", "compiler-cache-ccache", "cccl-include", "avx-only-kernels",
            "findcudatoolkit-stub", "torch-source-version"} <= fixes
    assert {pin for fix, pin, _ in CASES if fix == "magma-cuda13-clockrate"} == set(modelled_pins())
    assert {cuda for fix, _, cuda in CASES if fix == "magma-cuda13-clockrate"} == {"13.0"}
    # every fix file is either checked here, said to replace on purpose, or changes no package
    evaluation = {fix.stem for fix in KNOWLEDGE.fixes.values() if fix.changes == "evaluation"}
    assert {path.stem for path in FIXES.glob("*.nix")} == fixes | set(REPLACES) | evaluation


# What nixpkgs' check-meta reads from config to refuse or let a package evaluate, and no
# derivation reads (NixOS/nixpkgs pkgs/stdenv/generic/check-meta.nix; tests/nix/nixpkgs/stdenv.nix
# models the first three).
CHECK_META = {"allowBroken", "allowUnfree", "allowUnsupportedSystem", "allowInsecurePredicate",
              "permittedInsecurePackages", "allowUnfreePredicate"}


@needs_nix
def test_a_fix_said_to_change_only_what_evaluates_sets_only_what_check_meta_reads():
    """knowledge.yaml's `changes: evaluation` (adopt names such a fix only where it decides
    whether torch evaluates) holds exactly for the fix files whose module is a config that
    check-meta alone reads."""
    modules = nix_eval("builtins.mapAttrs (name: _: let m = import (" + nix_string(FIXES)
                       + " + \"/${name}\"); in { keys = builtins.attrNames m; config = builtins.attrNames (m.config or { }); })"
                       " (builtins.readDir " + nix_string(FIXES) + ")")
    said = {fix.stem + ".nix": fix.changes for fix in KNOWLEDGE.fixes.values()}
    for file, module in modules.items():
        only_check_meta = module["keys"] == ["config"] and set(module["config"]) <= CHECK_META
        assert (said[file] == "evaluation") is only_check_meta, (file, module, said[file])
    assert "evaluation" in said.values() and "derivation" in said.values()


@needs_nix
@pytest.mark.parametrize("fix, pin, cuda", CASES, ids=[f"{f}-{p[:7]}-cuda{c}" for f, p, c in CASES])
def test_the_fix_keeps_what_nixpkgs_had(compared, fix, pin, cuda):
    result = dict(compared[f"{fix} {pin} {cuda}"])
    # the test package set's magma has nixpkgs' patches at every modelled pin
    assert "drop-cmp0037-old.patch" in result.pop("magmaPatches")
    result.pop("twice")
    result.pop("magmaPatchesAfter")
    result.pop("changesTorch")
    lost = {package: what for package, what in result.items() if what}
    assert not lost, f"{fix} on {pin[:7]} with CUDA {cuda} drops what nixpkgs had: {lost}"


# Where a fix's rule lets it add a patch nixpkgs already carries. knowledge.yaml keeps the
# MAGMA fix to CUDA 13.0, but NixOS/nixpkgs#487064 put the same commit into magma under
# every CUDA release; 0182a36 having it is inferred from dates (tests/nix/README.md), and
# agrees with barstoolbluz/build-pytorch's pytorch-2.9-python313 branch, whose CUDA 13.0
# recipes on 0182a36 leave magma as it is. The fix adds its patch only where none of the
# same content is there.
@needs_nix
@pytest.mark.parametrize("fix, pin, cuda", CASES, ids=[f"{f}-{p[:7]}-cuda{c}" for f, p, c in CASES])
def test_the_fix_adds_no_patch_nixpkgs_already_has(compared, fix, pin, cuda):
    twice = compared[f"{fix} {pin} {cuda}"]["twice"]
    assert not twice, f"{fix} on {pin[:7]} with CUDA {cuda} applies a patch twice: {twice}"


@needs_nix
def test_the_magma_fix_leaves_magma_with_its_patch_once_on_every_pin(compared):
    """Where nixpkgs' magma lacks the commit the fix adds it; where it has it, it adds none."""
    wanted = "sha256-i9InbxD5HtfonB/GyF9nQhFmok3jZ73RxGcIciGBGvU="
    assert wanted in (FIXES / "magma-cuda13-clockrate.nix").read_text()
    seen = {}
    for fix, pin, cuda in CASES:
        if fix == "magma-cuda13-clockrate":
            seen[pin[:7]] = compared[f"{fix} {pin} {cuda}"]["magmaPatchesAfter"].count(wanted)
    assert seen and set(seen.values()) == {1}, seen


# A fix is applied only where it changes the build: a pin's row lists under `carries` the
# fixes whose change its nixpkgs already holds, and none is applied there (expand.py). The
# row must say exactly where the fix changes nothing: on 0182a36 and 2017d6d, whose magma
# has the MAGMA commit, the fix leaves torch's derivation as it was; on fe5e41d and
# 6a030d5 it changes it.
@needs_nix
def test_a_pin_carries_exactly_the_fixes_that_change_nothing_on_it(compared):
    changes = {}
    for fix, pin, cuda in CASES:
        if fix == "allow-broken-cuda13":
            continue  # config alone: it changes whether torch evaluates, never its derivation
        changes.setdefault((fix, pin), []).append(compared[f"{fix} {pin} {cuda}"]["changesTorch"])
    carried = {(fix, pin) for (fix, pin), changed in changes.items() if not any(changed)}
    assert carried == {(fix, pin) for pin in modelled_pins() for fix in KNOWLEDGE.pins[pin].carries}
    assert {pin[:7] for fix, pin in carried} == {"0182a36", "2017d6d"}, carried


@needs_nix
def test_a_fix_the_pin_carries_is_not_applied_there():
    from generator.pipeline import expand, load, validate

    matrix = f"""\
pytorch: {{version: "2.9.1"}}
nixpkgs:
  pins:
    - {{name: carried, rev: {next(p for p in KNOWLEDGE.pins if p.startswith("0182a36"))}, when: {{isa: avx2}}}}
    - {{name: lacking, rev: {next(p for p in KNOWLEDGE.pins if p.startswith("6a030d5"))}}}
gpu:
  python: ["3.13"]
  cuda: ["13.0"]
  sm: [sm90]
  isa: [avx2, avx512]
"""
    expansion = expand.expand(validate.validate(load.parse(matrix, "matrix.yaml")))
    fixes = {v.isa.name: v.fixes for v in expansion.variants}
    assert "magma-cuda13-clockrate" not in fixes["avx2"] and "allow-broken-cuda13" in fixes["avx2"]
    assert "magma-cuda13-clockrate" in fixes["avx512"]
