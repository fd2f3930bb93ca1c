"""The state file's identities against the derivations, over drawn edits of a matrix.

`gen-matrix ci` decides what to rebuild from the identities in matrix.state.json, without Nix.
That is safe only if every edit that changes a derivation changes its identity too. Here
Hypothesis draws edits of a small matrix from every kind of field that can reach a derivation
(axes, pins, fixes, knowledge rows, build options, companions, sources); each edited matrix is
generated and its recipes evaluated with the real nix-instantiate against the test package
set. Whenever a variant's heavy drvPath changes, its build identity must change: a rebuild is
never missed. When its published wrapper's drvPath changes, one of its identities must. The
other way round (an identity that changes with no derivation change) costs a needless build:
the test counts those and holds their rate under NEEDLESS_BOUND.

Examples per run: the profile "suite" (the default, each edit alone plus a few drawn
combinations) or HYPOTHESIS_PROFILE=long for mutation and release runs.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conftest import drv_paths, needs_nix

pytestmark = [needs_nix, pytest.mark.slow]

BASE = """\
pytorch: {version: "2.8.0"}
nixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3, capability_scope: auto}
build: {jobs: 32, system_features: [big-parallel]}
gpu:
  python: ["3.13"]
  cuda: ["12.8"]
  sm: [sm61, sm90]
  isa: [avx2]
cpu:
  python: ["3.13"]
  isa: [avx, avx2]
companions:
  - packages: [torchvision]
    when: {sm: sm61}
ci:
  gen_matrix: github:acme/gen-matrix/0123456789abcdef0123456789abcdef01234567
"""
SOURCE_HASH = "sha256-" + "A" * 43 + "="


def _set(*path: str, value):
    def apply(data: dict) -> None:
        node = data
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = value
    return apply


def _append(*path: str, value):
    def apply(data: dict) -> None:
        node = data
        for key in path:
            node = node[key]
        node.append(value)
    return apply


def _pin_2_9_1(data: dict) -> None:
    if "pins" not in data["nixpkgs"]:
        data["nixpkgs"]["rev"] = "6a030d535719c5190187c4cec156f335e95e3211"
        data["pytorch"]["version"] = "2.9.1"


def _two_pins(data: dict) -> None:
    # two pins of the same torch (2.9.1): pytorch.version is the matrix's, whatever the pin
    data["pytorch"]["version"] = "2.9.1"
    scope = data["nixpkgs"].get("capability_scope")
    data["nixpkgs"] = {"pins": [{"name": "hopper", "rev": "0182a361324364ae3f436a63005877674cf45efb",
                                 "when": {"sm": "sm90"}},
                                {"name": "main", "rev": "6a030d535719c5190187c4cec156f335e95e3211"}]}
    if scope:
        data["nixpkgs"]["capability_scope"] = scope


def _pin_hash(data: dict) -> None:
    for pin in data["nixpkgs"].get("pins") or [data["nixpkgs"]]:
        pin["sha256"] = "0" * 52


# name -> an edit of the matrix's data. Each reaches (or, for jobs, must not reach) a derivation.
EDITS = {
    "an SM more": _append("gpu", "sm", value="sm86"),
    "an ISA more": _append("gpu", "isa", value="avx512"),
    "another pin": _pin_2_9_1,
    "a pin for one SM": _two_pins,
    "the pin's hash": _pin_hash,
    "a fix turned off": _set("knowledge", "fixes", "avx-only-kernels", value={"enabled": False}),
    "a fix of the matrix's own": _set("knowledge", "fixes", "cccl-include", value={"when": {"isa": ["avx2"]}}),
    "an ISA's flags": _set("knowledge", "isa", "avx2", "flags", value=["-mavx2", "-mfma"]),
    "an ISA's switches": _set("knowledge", "isa", "avx2", "disable", value=["NNPACK"]),
    "an SM without cuDNN": _set("knowledge", "sm", "sm90", "cudnn", value=False),
    "an SM's capability list in nixpkgs": _set("knowledge", "cuda", "12.8", "capabilities",
                                               value=["7.5", "8.0", "8.6", "8.9"]),
    "the capability scope": _set("nixpkgs", "capability_scope", value="nixpkgs"),
    "system features": _set("build", "system_features", value=["big-parallel", "kvm"]),
    "jobs": _set("build", "jobs", value=16),
    # on the self-hosted runners the GPU variants build on, which the matrix says are its own
    "the compiler cache": lambda data: data.setdefault("build", {}).update(compiler_cache="ccache",
                                                                           compiler_cache_runners="dedicated"),
    "a companion more": _set("companions", value=[{"packages": ["torchvision", "torchaudio"],
                                                   "when": {"sm": "sm61"}}]),
    "companions for every variant": _set("companions", value=[{"packages": ["torchvision"], "when": "all"}]),
    "a PyTorch source": _set("pytorch", "source", value={"rev": "v2.8.0", "hash": SOURCE_HASH}),
    "a Python more": _append("gpu", "python", value="3.12"),
}

# edits that only add variants: the variants there were keep their derivations
ADDS_VARIANTS = {"an SM more", "an ISA more", "a Python more", "a companion more", "companions for every variant"}

# edits that reach no derivation: the jobs reach the workflow only (the derivation caps its jobs
# on the builder); the pin's hash checks the tarball fetched, whose content the rev already fixes
NO_DERIVATION = {"jobs", "the pin's hash"}

# Identities that change with no derivation change, over all variants compared, at most.
NEEDLESS_BOUND = 0.10

settings.register_profile("suite", max_examples=10, deadline=None, database=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", max_examples=200, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])

_tally = {"compared": 0, "needless": 0, "examples": 0, "by_edit": {}}


def generated(folder: Path, data: dict, run) -> tuple[dict, dict]:
    """Generate the matrix `data` in `folder`; its state file's identities and its drvPaths."""
    folder.mkdir()
    (folder / "matrix.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    result = run("--root", folder)
    assert result.exit_code == 0, result.output
    state = json.loads((folder / "matrix.state.json").read_text())["variants"]
    return state, drv_paths(folder)


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    from click.testing import CliRunner
    from generator.cli import main

    def run(*args):
        return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)

    folder = tmp_path_factory.mktemp("differential")
    state, drvs = generated(folder / "base", yaml.safe_load(BASE), run)
    yield run, state, drvs
    if _tally["compared"]:
        rate = _tally["needless"] / _tally["compared"]
        assert rate <= NEEDLESS_BOUND, f"{rate:.1%} of identities changed with no derivation change: {_tally}"
        print(f"\nidentity vs derivations: {_tally['examples']} edited matrices, {_tally['compared']} variants "
              f"compared, {_tally['needless']} needless rebuilds ({rate:.1%}); by edit: {_tally['by_edit']}")


edits = st.lists(st.sampled_from(sorted(EDITS)), min_size=1, max_size=3, unique=True)


def _each_alone(test):
    for name in sorted(EDITS):
        test = example([name])(test)
    return test


@settings(settings.get_profile(os.environ.get("HYPOTHESIS_PROFILE", "suite")))
@given(chosen=edits)
@_each_alone
def test_a_derivation_that_changes_changes_its_identity(base, chosen):
    run, before_state, before_drvs = base
    data = yaml.safe_load(BASE)
    for name in chosen:
        EDITS[name](data)
    with tempfile.TemporaryDirectory(prefix="differential-") as scratch:
        after_state, after_drvs = generated(Path(scratch) / "edited", data, run)
    common = sorted(set(before_drvs) & set(after_drvs))
    for name in common:
        old, new = before_state[name], after_state[name]
        if before_drvs[name]["build"] != after_drvs[name]["build"]:
            assert old["build"] != new["build"], f"{chosen}: {name}'s heavy build changed, its identity did not"
        if before_drvs[name]["wrapper"] != after_drvs[name]["wrapper"]:
            assert (old["build"], old["metadata"], old["wrapper"]) != (new["build"], new["metadata"], new["wrapper"]), \
                f"{chosen}: {name}'s wrapper changed, none of its identities did"
    rebuilt = [name for name in common if before_drvs[name]["build"] != after_drvs[name]["build"]]
    if len(chosen) == 1 and chosen[0] not in ADDS_VARIANTS:
        # an edit that reaches no derivation would prove nothing here
        assert bool(rebuilt) != (chosen[0] in NO_DERIVATION), f"{chosen}: heavy derivations changed: {rebuilt}"
    needless = [name for name in common if before_state[name]["build"] != after_state[name]["build"]
                and before_drvs[name]["build"] == after_drvs[name]["build"]]
    _tally["examples"] += 1
    _tally["compared"] += len(common)
    _tally["needless"] += len(needless)
    key = " + ".join(chosen)
    _tally["by_edit"][key] = _tally["by_edit"].get(key, 0) + len(needless)
    if chosen == ["jobs"]:
        assert not needless, "build.jobs changed identities: every variant would rebuild for nothing"
