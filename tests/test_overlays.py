"""Overlays declared in matrix.yaml: a PyTorch source, dependency patches, nixpkgs config."""

from __future__ import annotations

import json

import pytest

from conftest import REPO, expansion_of, fake_for, needs_nix, nix_eval, nix_string

TORCH_HASH = "sha256-" + "A" * 43 + "="
PATCH_HASH = "sha256-" + "B" * 43 + "="
# `${` must reach Nix as text, not as an interpolation.
PATCH_URL = "https://example.org/magma/cuda13-${fix}.patch"

MATRIX = f"""\
pytorch:
  version: "2.9.0"
  source: {{rev: v2.9.0, hash: "{TORCH_HASH}"}}
nixpkgs:
  rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3
  config: {{cudaForwardCompat: false, allowBroken: true}}
  patches:
    magma:
      - {{url: "{PATCH_URL}", hash: "{PATCH_HASH}"}}
gpu: {{python: ["3.13"], cuda: ["12.8"], sm: [sm61, sm90], isa: [avx2]}}
cpu: {{python: ["3.13"], isa: [avx2]}}
companions:
  - packages: [torchvision]
    when: {{sm: sm61}}
"""


@pytest.fixture
def overlaid(project, run):
    (project / "matrix.yaml").write_text(MATRIX)
    result = run("--root", project)
    assert result.exit_code == 0, result.output
    return project


def test_pin_overlays_are_written_once_into_pins_nix(overlaid):
    """The pin's config and patches live in nix/pins.nix, which every recipe names its pin in;
    the PyTorch source is part of each torch recipe's build."""
    pins = (overlaid / "nix" / "pins.nix").read_text()
    assert pins.count(PATCH_HASH) == 1 and TORCH_HASH not in pins
    assert "config = { allowBroken = true; cudaForwardCompat = false; };" in pins
    assert 'url = "https://example.org/magma/cuda13-\\${fix}.patch";' in pins
    recipes = sorted((overlaid / ".flox" / "pkgs").glob("*.nix"))
    assert recipes
    for recipe in recipes:
        text = recipe.read_text()
        assert PATCH_HASH not in text and "cudaForwardCompat" not in text, recipe.stem
        if recipe.stem.startswith("pytorch-"):
            assert 'pin = "default";' in text and text.count(TORCH_HASH) == 1, recipe.stem
        else:  # a companion takes its torch's package set and source
            assert TORCH_HASH not in text and "torch = import ./pytorch-" in text, recipe.stem
    assert not (overlaid / "nix" / "nixpkgs.nix").exists()


def evaluate(root, names: dict[str, str], body: str) -> object:
    """`body` with each recipe of `names` ({variable: recipe}) evaluated against its pin's test package set."""
    expansion = expansion_of(root)
    bindings = "".join(
        f"{var} = import {nix_string(root / '.flox' / 'pkgs' / (name + '.nix'))} "
        f"{{ genMatrixNixpkgs = {fake_for(expansion.by_name[name], expansion.matrix)}; }};\n"
        for var, name in names.items())
    return nix_eval(f"let\n{bindings}{body}")


@needs_nix
def test_recipes_build_the_declared_source_with_the_patches(overlaid):
    result = evaluate(overlaid, {
        "torch": "pytorch-python313-cuda12_8-sm90-avx2",
        "vision": "torchvision-python313-cuda12_8-sm61-avx2",
        "visionTorch": "pytorch-python313-cuda12_8-sm61-avx2",
        "cpu": "pytorch-python313-cpu-avx2",
    }, """
        t = torch.unwrapped;
        pkgs = torch.genMatrix.pkgs;
        magma = builtins.head (builtins.filter (p: (p.pname or "") == "magma") t.buildInputs);
      in {
        version = t.version;
        wrapperVersion = torch.version;
        src = { inherit (t.src) rev owner repo outputHash fetchSubmodules; };
        patches = map (p: { inherit (p) urls outputHash; }) magma.patches;
        magmaIsTheSetsMagma = magma.drvPath == pkgs.magma-cuda-static.drvPath;
        forwardCompat = t.passthru.cudaPackages.flags.cudaForwardCompat;
        allowBroken = pkgs.config.allowBroken;
        torchPatches = t.patches;
        buildVersion = t.PYTORCH_BUILD_VERSION or t.env.PYTORCH_BUILD_VERSION;
        postPatch = t.postPatch;
        preConfigure = t.preConfigure;
        visionTorch = builtins.elem visionTorch.unwrapped.drvPath (map (d: d.drvPath) vision.unwrapped.dependencies);
        visionTorchVersion = visionTorch.unwrapped.version;
        visionArch = vision.unwrapped.TORCH_CUDA_ARCH_LIST;
        cpuVersion = cpu.unwrapped.version;
        cpuSrc = cpu.unwrapped.src.rev;
        cpuPostPatch = cpu.unwrapped.postPatch;
      }
    """)
    # the pin's patch reaches magma after nixpkgs' own, and that magma is the one torch builds with
    assert result.pop("patches") == [
        {"urls": ["https://github.com/icl-utk-edu/magma/commit/2fecaf3f0c811344363f713669c1fe30f6879acd.patch"],
         "outputHash": "sha256-Dfzq2gqoLSByCLWV5xvY/lXZeVa/yQ67lDSoIAa9jUU="},
        {"urls": [PATCH_URL], "outputHash": PATCH_HASH}]
    assert result.pop("magmaIsTheSetsMagma") is True
    # the pin's config reaches the package set
    assert result.pop("forwardCompat") is False and result.pop("allowBroken") is True
    # the source fixes: nixpkgs' patches dropped, the version reported, FindCUDAToolkit.cmake stubbed
    assert result.pop("torchPatches") == [] and result.pop("buildVersion") == "2.9.0"
    post_patch = result.pop("postPatch")
    assert "echo 2.9.0 > version.txt" in post_patch
    assert post_patch.index("rm cmake/Modules/FindCUDAToolkit.cmake") < post_patch.index("include(FindCUDAToolkit)")
    assert 'export TORCH_CUDA_ARCH_LIST="9.0"\n' in result.pop("preConfigure")
    cpu_post_patch = result.pop("cpuPostPatch")
    assert "echo 2.9.0 > version.txt" in cpu_post_patch and "FindCUDAToolkit" not in cpu_post_patch
    assert result == {
        "version": "2.9.0",
        "wrapperVersion": "2.9.0",
        "src": {"rev": "v2.9.0", "owner": "pytorch", "repo": "pytorch", "outputHash": TORCH_HASH,
                "fetchSubmodules": True},
        "visionTorch": True,
        "visionTorchVersion": "2.9.0",
        "visionArch": "6.1",
        "cpuVersion": "2.9.0",
        "cpuSrc": "v2.9.0",
    }


@needs_nix
def test_without_overlays_the_pinned_torch_is_used(project, run):
    assert run("--root", project).exit_code == 0
    result = evaluate(project, {"torch": "pytorch-python313-cuda12_8-sm90-avx2"}, """
        t = torch.unwrapped;
        magma = builtins.head (builtins.filter (p: (p.pname or "") == "magma") t.buildInputs);
      in [ t.version t.src.tag t.passthru.cudaPackages.flags.cudaForwardCompat
           (map (p: p.name or (baseNameOf p)) t.patches) (map (p: p.urls or [ ]) magma.patches)
           (torch.genMatrix.pkgs.config.allowBroken or false) ]
    """)
    assert result[:3] == ["2.8.0", "v2.8.0", True]
    assert "fix-cmake-cuda-toolkit.patch" in result[3]  # the pin's own torch patches stay
    assert not any("example.org" in url for urls in result[4] for url in urls)
    assert result[5] is False


def test_config_gen_matrix_sets_itself_is_a_located_error(project, run):
    (project / "matrix.yaml").write_text(MATRIX.replace("allowBroken: true", "allowUnfree: false"))
    result = run("--root", project)
    assert result.exit_code == 2
    assert "matrix.yaml:6:" in result.stderr and "nixpkgs.config.allowUnfree is set by gen-matrix" in result.stderr
    assert not (project / "nix").exists()


@pytest.mark.parametrize("old, new, message", [
    (TORCH_HASH, "sha256-short", "pytorch.source.hash: 'sha256-short' is not valid"),
    ("magma:", "magma pkgs:", "nixpkgs.patches"),
    ("rev: v2.9.0, ", "", "pytorch.source lacks the key 'rev'"),
])
def test_bad_overlay_values_are_errors(project, run, old, new, message):
    (project / "matrix.yaml").write_text(MATRIX.replace(old, new))
    result = run("--root", project)
    assert result.exit_code == 2 and message in result.stderr and "matrix.yaml:" in result.stderr


@needs_nix
def test_each_pin_is_fetched_by_its_revision_and_its_hash_where_it_has_one():
    """nixpkgs.nix fetches a pin's revision, checked against its sha256 where matrix.yaml gives
    one: builtins.fetchTarball is stood in for by one that gives back what it was asked."""
    revs = {"hashed": "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3", "unhashed": "0182a361324364ae3f436a63005877674cf45efb",
            "other": "6a030d535719c5190187c4cec156f335e95e3211"}
    sha256 = {"hashed": "1" * 52, "unhashed": None, "other": "0" * 52}
    pins = " ".join(f"{name} = {{ rev = {json.dumps(rev)}; sha256 = {json.dumps(sha256[name])}; "
                    "config = { }; patches = { }; };" for name, rev in revs.items())
    result = nix_eval(f"""
      let
        # fetchTarball gives back what it was asked; importing that gives a "nixpkgs" that
        # answers it whatever its config and overlays (a path, refuse.nix, is imported as ever)
        scope = {{
          builtins = builtins // {{ fetchTarball = args: {{ fetched = args; }}; }};
          import = source: if source ? fetched then (_: source.fetched) else import source;
        }};
        packageSet = scopedImport scope
          {nix_string(REPO / "nix" / "lib" / "nixpkgs.nix")} {{ nixpkgs = null; pins = {{ {pins} }}; }};
      in builtins.mapAttrs (pin: _: packageSet {{ inherit pin; cuda = null; capabilities = [ ];
                                                  capabilityScope = "torch"; fixes = [ ]; }}) {{ {pins} }}
    """)
    assert result == {name: {"url": f"https://github.com/NixOS/nixpkgs/archive/{rev}.tar.gz",
                             **({"sha256": sha256[name]} if sha256[name] else {})} for name, rev in revs.items()}


@needs_nix
def test_the_package_set_gets_the_pins_config_under_the_variants_and_the_fixes_in_order():
    """What nixpkgs.nix hands nixpkgs: the pin's config, then gen-matrix's own settings, then
    each fix's config (a later fix over an earlier one); the pin's patches, the CUDA release
    and each fix's overlay, in that order. The "nixpkgs" handed in gives back its arguments."""
    result = nix_eval(f"""
      let
        scope = {{ import = source: if source ? given then (arguments: arguments) else import source; }};
        pins = {{
          first = {{ rev = "a"; sha256 = null; config = {{ allowBroken = false; cudaForwardCompat = false; }}; patches = {{ }}; }};
          second = {{ rev = "b"; sha256 = null; config = {{ }}; patches = {{ }}; }};
        }};
        packageSet = scopedImport scope {nix_string(REPO / "nix" / "lib" / "nixpkgs.nix")} {{
          nixpkgs = {{ given = true; }}; inherit pins; }};
        early = {{ config = {{ allowBroken = true; order = "early"; }}; overlay = final: prev: {{ early = 1; }}; }};
        late = {{ config = {{ order = "late"; }}; }};
        last = {{ overlay = final: prev: {{ last = 1; }}; }};
        show = set: set // {{ overlays = map (overlay: builtins.attrNames (overlay {{ }} {{ }})) set.overlays; }};
      in map show [
        (packageSet {{ pin = "first"; cuda = "12.8"; capabilities = [ "6.1" "9.0" ]; capabilityScope = "nixpkgs";
                       fixes = [ early late last ]; }})
        (packageSet {{ pin = "second"; cuda = "13.0"; capabilities = [ "7.5" ]; capabilityScope = "torch";
                       fixes = [ late early ]; }})
        (packageSet {{ pin = "first"; cuda = null; capabilities = [ ]; capabilityScope = "torch"; fixes = [ ];
                       rocm = "6.3"; }})
      ]
    """)
    assert result == [
        {"config": {"allowBroken": True, "cudaForwardCompat": False, "allowUnfree": True, "cudaSupport": True,
                    "cudaCapabilities": ["6.1", "9.0"], "order": "late"},
         "overlays": [[], ["cudaPackages"], ["early"], ["last"]]},
        {"config": {"allowBroken": True, "allowUnfree": True, "cudaSupport": True, "order": "early"},
         "overlays": [[], ["cudaPackages"], ["early"]]},
        {"config": {"allowBroken": False, "cudaForwardCompat": False, "allowUnfree": True, "cudaSupport": False,
                    "rocmSupport": True},
         "overlays": [[]]},
    ]
