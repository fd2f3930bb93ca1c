"""`gen-matrix show` and `explain` say of a build only what its derivation holds.

For variants of every kind, capability scope and set of switches (the shipped matrix and the
2.10 example, whose Thor variants resolve to the nixpkgs scope), each recipe is evaluated by
nix-instantiate against the test package set, beside its pin's own torch built with the same
CUDA release and no capabilities of the variant's (the baseline). Every line the two commands
print about the build is then held against what was evaluated:

- switches: the variables torch's derivation sets that the baseline does not, or sets
  otherwise, whether the recipe exports them or nixpkgs sets them;
- nixpkgs: a feature said to be turned off by nixpkgs is off in the derivation, on in the
  baseline, and not exported by the recipe;
- scope and capabilities: TORCH_CUDA_ARCH_LIST and passthru.cudaCapabilities hold the SM;
  under "torch" magma and NCCL are the baseline's, under "nixpkgs" they are not, and
  config.cudaCapabilities is the SM;
- jobs: the derivation holds no job count, only compile.nix's cap by memory at the GiB the
  line names; the count is the generated workflow's;
- cpu flags, platforms, features, blas, version, Python, CUDA release, description and the
  pin's revision as nix/pins.nix holds it.

The schema's descriptions of the same options are held to the same facts.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from conftest import REPO, copy_checkout, expansion_of, fake_for, needs_nix, nix_eval, nix_string, shell_exports

pytestmark = [needs_nix, pytest.mark.slow]

# What the lines below cover elsewhere or that is no switch of PyTorch's: the compiler flags
# (the "flags" line), the SM (the "capabilities" line) and compile.nix's own variables.
NOT_SWITCHES = {"CFLAGS", "CXXFLAGS", "NIX_BUILD_CORES", "TORCH_CUDA_ARCH_LIST"}
SWITCH = re.compile(r"^(USE_|BUILD_|BLAS$|[A-Z][A-Z0-9_]*$)")


def _copy(source: Path, tmp_path: Path, name: str) -> Path:
    return copy_checkout(tmp_path / name, leave=("tests",))


@pytest.fixture(scope="module")
def repositories(tmp_path_factory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("derivation")
    shipped = _copy(REPO, tmp, "shipped")
    example = shipped / "examples" / "pytorch-2.10"
    _cli(example, "generate")
    return {"shipped": shipped, "example": example}


def _representatives(root: Path) -> list:
    """One variant for each kind, capability scope, CUDA release and set of switches."""
    expansion = expansion_of(root)
    matrix = expansion.matrix
    chosen = {}
    for v in expansion.variants:
        if v.is_companion:
            continue
        key = (v.kind, matrix.capability_scope_of(v) if v.sm else None, v.cuda.name if v.cuda else None,
               tuple(matrix.switches(v).items()), v.pin)
        chosen.setdefault(key, v)
    return list(chosen.values())


def _evaluate(root: Path, variants) -> dict:
    matrix = expansion_of(root).matrix
    body = []
    for v in variants:
        cuda = f'"{v.cuda.name}"' if v.cuda else "null"
        python = v.python.name.replace(".", "")
        fixes = " ".join(f'"{matrix.knowledge.fixes[name].stem}"' for name in v.fixes)
        body.append(f'''"{v.name}" = let
      r = import {nix_string(root / ".flox/pkgs" / (v.name + ".nix"))} {{ genMatrixNixpkgs = fake; }};
      fake = {fake_for(v, matrix)};
      b = r.unwrapped;
      pkgs = r.genMatrix.pkgs;
      cuda = {cuda};
      fixes = map (name: import {nix_string(root / "nix/fixes")}/${{name}}.nix) [ {fixes} ];
      base = import {nix_string(root / "nix/lib/nixpkgs.nix")} {{
        nixpkgs = fake; pins = import {nix_string(root / "nix/pins.nix")};
      }} {{ pin = "{v.pin}"; inherit cuda fixes; capabilities = [ ]; capabilityScope = "torch"; }};
      t0 = lib.foldl' (drv: fix: if fix ? torch then drv.overrideAttrs (fix.torch {{ pkgs = base; inherit lib; version = b.version; }}) else drv)
        (base.python{python}Packages.torch.override {{ cudaSupport = cuda != null; }}) fixes;
      vars = d: builtins.mapAttrs (_: toString)
        (lib.filterAttrs (n: v: builtins.match "{SWITCH.pattern}" n != null && (builtins.isString v || builtins.isInt v || builtins.isBool v)) d.drvAttrs);
      lib = pkgs.lib;
      cudaFacts = p: if cuda == null then null else {{
        magma = p.magma-cuda-static.drvPath;
        ncclAvailable = p.cudaPackages.nccl.meta.available;
        nccl = if p.cudaPackages.nccl.meta.available then p.cudaPackages.nccl.drvPath else null;
        capabilities = p.config.cudaCapabilities or null;
      }};
    in {{
      vars = vars b;
      baseVars = vars t0;
      preConfigure = b.preConfigure or "";
      basePreConfigure = t0.preConfigure or "";
      version = b.version;
      name = b.name;
      python = b.passthru.pythonModule.pythonVersion or null;
      cuda = if cuda == null then null else b.passthru.cudaPackages.cudaMajorMinorVersion;
      cudaCapabilities = b.passthru.cudaCapabilities or null;
      blas = b.passthru.blasProvider or null;
      features = b.drvAttrs.requiredSystemFeatures or [ ];
      platforms = r.meta.platforms;
      description = r.meta.description;
      pinRev = (import {nix_string(root / "nix/pins.nix")})."{v.pin}".rev;
      cudaSet = cudaFacts pkgs;
      baseCudaSet = cudaFacts base;
    }};''')
    return nix_eval("{\n" + "\n".join(body) + "\n}")



def _switches(facts: dict) -> dict[str, str]:
    """What torch's derivation exports beyond the baseline's exports, and the attributes it
    sets otherwise than the baseline."""
    exported = shell_exports(facts["preConfigure"])
    base_exported = shell_exports(facts["basePreConfigure"])
    added = {name: value for name, value in exported.items() if base_exported.get(name) != value}
    changed = {name: value for name, value in facts["vars"].items() if facts["baseVars"].get(name) != value}
    return {name: value for name, value in sorted({**changed, **added}.items())
            if name not in NOT_SWITCHES and "$" not in value}


def _lines(text: str, separator: str) -> dict[str, str]:
    """label -> value of `show`'s "  label: value" or `explain`'s "  label  value" lines."""
    lines = {}
    for line in text.splitlines()[1:]:
        label, _, value = line.strip().partition(separator)
        if label and value and label not in lines:
            lines[label.strip()] = value.strip()
    return lines


def _explain_lines(text: str) -> dict[str, str]:
    return {m.group(1): m.group(2) for m in re.finditer(r"^  (\S(?:[^ ]| (?! ))*)\s{2,}(.*)$", text, re.M)}


@pytest.fixture(scope="module")
def evaluated(repositories):
    out = {}
    for key, root in repositories.items():
        variants = _representatives(root)
        out[key] = (root, variants, _evaluate(root, variants))
    return out


def _cli(root: Path, *args: str) -> str:
    from click.testing import CliRunner

    from generator.cli import main

    # a wide terminal: the test reads each of explain's labelled lines whole
    result = CliRunner().invoke(main, ["--root", str(root), *args], catch_exceptions=False, env={"COLUMNS": "1000"})
    assert result.exit_code == 0, result.output
    return result.stdout


def test_the_representatives_cover_every_scope_and_a_switch_of_nixpkgs(evaluated):
    shipped, example = evaluated["shipped"][1], evaluated["example"][1]
    kinds = {v.kind for v in shipped}
    assert kinds == {"gpu", "cpu", "darwin"}
    matrix = expansion_of(evaluated["example"][0]).matrix
    assert {matrix.capability_scope_of(v) for v in example if v.sm} == {"torch", "nixpkgs"}
    assert any(matrix.nixpkgs_off(v) for v in example)


@pytest.mark.parametrize("which", ["shipped", "example"])
def test_show_and_explain_say_only_what_the_derivation_holds(evaluated, which):
    root, variants, facts = evaluated[which]
    expansion = expansion_of(root)
    matrix = expansion.matrix
    workflow_jobs = yaml.safe_load((root / ".github/workflows/flox-variants-build.yml").read_text())
    jobs_env = [step.get("env", {}).get("JOBS") for job in workflow_jobs["jobs"].values()
                for step in job.get("steps", ()) if "JOBS" in step.get("env", {})]
    assert jobs_env and set(jobs_env) == {str(matrix.jobs)}
    for v in variants:
        f = facts[v.name]
        shown = json.loads(_cli(root, "show", v.name, "--json"))
        show_text = _lines(_cli(root, "show", v.name), ":")
        explained = json.loads(_cli(root, "explain", v.name, "--json"))["outcomes"][0]["resolved"]
        explain_text = _explain_lines(_cli(root, "explain", v.name))
        derived = _switches(f)

        # switches: the same in both commands, and exactly what the derivation adds
        assert shown["switches"] == explained["switches"] == derived, v.name
        line = " ".join(f"{k}={value}" for k, value in derived.items()) or "none beyond nixpkgs' own"
        assert show_text["switches"] == explain_text["switches"] == line, v.name

        # nixpkgs: off in the derivation, on in the baseline, not the recipe's doing
        for row in matrix.nixpkgs_off(v):
            for name in row.switches:
                assert f["vars"].get(name) == "0" and f["baseVars"].get(name) == "1", v.name
                assert name not in shell_exports(f["preConfigure"]), v.name
            assert f["cudaSet"]["ncclAvailable"] is False and f["baseCudaSet"]["ncclAvailable"] is True, v.name
        assert [o["feature"] for o in shown["nixpkgs_off"]] == [o["feature"] for o in explained["nixpkgs_off"]]
        if v.cuda and not shown["nixpkgs_off"]:
            assert f["vars"].get("USE_NCCL") == "1", v.name

        # scope and capabilities
        if v.sm:
            capability = v.sm.capability
            assert f["cudaCapabilities"] == [capability], v.name
            assert f'export TORCH_CUDA_ARCH_LIST="{capability}"' in f["preConfigure"], v.name
            assert explained["capabilities"] == [capability]
            scope = shown["capability_scope"]
            assert scope == explained["capability_scope"]
            assert show_text["scope"] in explain_text["capabilities"]
            if scope == "torch":
                assert f["cudaSet"]["magma"] == f["baseCudaSet"]["magma"], v.name
                assert f["cudaSet"]["nccl"] == f["baseCudaSet"]["nccl"], v.name
                assert f["cudaSet"]["capabilities"] == f["baseCudaSet"]["capabilities"], v.name
                assert "nixpkgs' own" in show_text["scope"]
            else:
                assert f["cudaSet"]["magma"] != f["baseCudaSet"]["magma"], v.name
                assert f["cudaSet"]["capabilities"] == [capability], v.name
                assert "config.cudaCapabilities" in show_text["scope"]
        else:
            assert not f["cudaCapabilities"] and "scope" not in show_text, v.name

        # jobs: no count in the derivation, only the cap by memory the line names
        memory = shown["job_memory_gb"]
        assert f"({memory} * 1024 * 1024)" in f["preConfigure"], v.name
        assert not re.search(rf"\b(MAX_JOBS|NIX_BUILD_CORES)={matrix.jobs}\b", f["preConfigure"]), v.name
        assert show_text["jobs"] == explain_text["jobs"] == shown["jobs_text"]
        assert f"at most {matrix.jobs} " in shown["jobs_text"] and f"{memory} GiB" in shown["jobs_text"]

        # the rest
        if v.isa:
            flags = " ".join(v.isa.flags)
            assert f'export CXXFLAGS="$CXXFLAGS {flags}"' in f["preConfigure"], v.name
            assert show_text["flags"].startswith(flags) and explain_text["cpu flags"] == flags
        assert f["platforms"] == shown["platforms"] == explained["platforms"], v.name
        assert f["description"] == explained["description"] == explain_text["description"], v.name
        assert explain_text["nixpkgs pin"] == explained["pin"] == f'{v.pin} (nixpkgs {f["pinRev"]})', v.name
        assert f["features"] == explained["system_features"], v.name
        assert f["blas"] == explained["blas"], v.name
        assert f["version"] == shown["pytorch"], v.name
        assert f["python"] == shown["python"], v.name
        assert f["cuda"] == shown["cuda"], v.name


def test_the_schema_says_of_jobs_features_and_scopes_what_the_derivations_hold(evaluated):
    schema = json.loads((REPO / "generator/matrix.schema.json").read_text())
    build = schema["properties"]["build"]["properties"]
    scope = schema["properties"]["nixpkgs"]["properties"]["capability_scope"]["description"]
    assert "not part of any derivation" in build["jobs"]["description"]
    assert "nix/lib/compile.nix" in build["jobs"]["description"]
    assert "requiredSystemFeatures" in build["system_features"]["description"]
    assert "nixpkgs' own builds for its default capabilities" in scope
    assert "for a Jetson part nixpkgs builds no NCCL" in scope and "USE_NCCL=0" in scope
    for root, variants, facts in evaluated.values():
        matrix = expansion_of(root).matrix
        for v in variants:
            f = facts[v.name]
            assert str(matrix.jobs) not in json.dumps(f["features"])
            assert f["features"] == list(matrix.system_features), v.name
            if v.sm and v.sm.jetson and matrix.capability_scope_of(v) == "nixpkgs":
                assert f["vars"]["USE_NCCL"] == "0", v.name
