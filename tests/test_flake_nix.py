"""flake.nix, the generated entry point for a Nix CI that reads flakes, on a matrix of two pins
and two systems.

nix-instantiate 2.8 evaluates no flake without the experimental `flakes` feature and a fetch of
its inputs, so these tests do what Nix does with a flake's outputs after the lock: they import
flake.nix, check its inputs, and call its `outputs` with stand-in inputs, each pin's input the
test package set impersonating its revision, and gen-matrix's a stand-in package. They cannot
prove that Nix locks and fetches the inputs as written, that a pure evaluation accepts every
path the outputs read, nor that the real gen-matrix smoke test passes in a real sandbox."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import NIX_INSTANTIATE, drv_paths, expansion_of, needs_nix, nix_eval
from test_rebuild_two_pins import NEWER, OLDER, package_set
from test_release_nix import WIDER

GEN_MATRIX = "github:gen-matrix/gen-matrix/0123456789abcdef0123456789abcdef01234567"


def outputs(root: Path, tmp_path: Path) -> dict:
    """What flake.nix's outputs give on each system, against stand-in inputs: each pin's the
    test package set of its revision, gen-matrix's a package for each system."""
    expression = f"""
      let
        flake = import {root / 'flake.nix'};
        standIn = system: derivation {{ name = "gen-matrix-stand-in"; inherit system; builder = "/bin/sh"; }};
        out = flake.outputs {{
          nixpkgs-older = {{ outPath = "{package_set(tmp_path / 'older', OLDER[:7])}"; }};
          nixpkgs-newer = {{ outPath = "{package_set(tmp_path / 'newer', NEWER[:7])}"; }};
          gen-matrix.packages = builtins.listToAttrs (map (system: {{ name = system; value.default = standIn system; }})
            [ "x86_64-linux" "aarch64-linux" ]);
        }};
        job = j: {{ wrapper = j.drvPath; build = j.unwrapped.drvPath; features = j.unwrapped.requiredSystemFeatures;
                   out = j.outPath; python = j.pythonEnv.outPath; }};
        check = c: {{ drv = c.drvPath; command = c.buildCommand; tools = c.nativeBuildInputs; }};
      in {{
        inputs = flake.inputs;
        packages = builtins.mapAttrs (_: builtins.mapAttrs (_: job)) out.packages;
        hydraBuild = builtins.mapAttrs (_: builtins.mapAttrs (_: j: j.drvPath)) out.hydraJobs.build;
        hydraSmoke = builtins.mapAttrs (_: builtins.mapAttrs (_: c: c.drvPath)) out.hydraJobs.smoke;
        checks = builtins.mapAttrs (_: builtins.mapAttrs (_: check)) out.checks;
        standIns = {{ x86_64-linux = (standIn "x86_64-linux").outPath; aarch64-linux = (standIn "aarch64-linux").outPath; }};
        source = "${{{root}/.}}";
      }}"""
    # release.nix hands a recipe a file it writes into the store (builtins.toFile), as a flake's
    # evaluation may; --eval alone writes nothing, so this evaluation writes into a store of its own.
    done = subprocess.run([NIX_INSTANTIATE, "--eval", "--strict", "--json", "--read-write-mode",
                           "--store", f"local?root={tmp_path / 'store'}", "--expr", expression],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    from click.testing import CliRunner
    from generator.cli import main

    tmp_path = tmp_path_factory.mktemp("flake")
    root = tmp_path / "repo"
    root.mkdir()
    (root / "matrix.yaml").write_text(WIDER + f'ci:\n  gen_matrix: "{GEN_MATRIX}"\n')
    done = CliRunner().invoke(main, ["--root", str(root)])
    assert done.exit_code == 0, done.output
    return root, tmp_path


@needs_nix
def test_flake_parses_and_takes_each_pin_and_gen_matrix_as_inputs(repo):
    root, _ = repo
    parsed = subprocess.run([NIX_INSTANTIATE, "--parse", root / "flake.nix"], capture_output=True, text=True)
    assert parsed.returncode == 0, parsed.stderr
    assert nix_eval(f"(import {root / 'flake.nix'}).inputs") == {
        "nixpkgs-older": {"url": f"github:NixOS/nixpkgs/{OLDER}", "flake": False},
        "nixpkgs-newer": {"url": f"github:NixOS/nixpkgs/{NEWER}", "flake": False},
        "gen-matrix": {"url": GEN_MATRIX},
    }


@needs_nix
@pytest.mark.slow
def test_flake_outputs_each_systems_variants_and_their_smoke_checks(repo, tmp_path):
    root, _ = repo
    expansion = expansion_of(root)
    systems = {v.system for v in expansion.variants}
    assert systems == {"x86_64-linux", "aarch64-linux"} and len(expansion.matrix.pins) == 2
    found = outputs(root, tmp_path)
    alone = drv_paths(root)  # each recipe by itself, against its pin's package set for its system
    assert set(found["packages"]) == systems
    for system in systems:
        jobs = found["packages"][system]
        assert set(jobs) == {v.name for v in expansion.variants if v.system == system}
        # Evaluated on this machine, whatever its system: each system's jobs are that system's builds.
        assert {name: {"wrapper": j["wrapper"], "build": j["build"]} for name, j in jobs.items()} == \
            {name: alone[name] for name in jobs}
        assert all(j["features"] == ["big-parallel", "cuda"] for j in jobs.values())
        assert found["hydraBuild"][system] == {name: j["wrapper"] for name, j in jobs.items()}
        checks = found["checks"][system]
        assert set(checks) == set(jobs)
        assert found["hydraSmoke"][system] == {name: c["drv"] for name, c in checks.items()}
        assert all(c["tools"] == [found["standIns"][system]] for c in checks.values())
    # The check of a torch and of a companion, each run by bash with a stand-in gen-matrix on PATH.
    torch = next(v.name for v in expansion.variants if v.system == "aarch64-linux")
    companion = next(v.name for v in expansion.variants if v.is_companion)
    for name in (torch, companion):
        system = expansion.by_name[name].system
        job, check = found["packages"][system][name], found["checks"][system][name]
        assert _run_check(check["command"], tmp_path / name, 0) == (
            ["smoke", name, "--root", found["source"], "--builder", "--python", f"{job['python']}/bin/python",
             "--result", job["out"]], True)
        # A failed smoke test fails the check: no output.
        assert _run_check(check["command"], tmp_path / f"{name}-failing", 1)[1] is False


def _run_check(command: str, folder: Path, status: int) -> tuple[list[str], bool]:
    """The arguments a check gives gen-matrix, and whether it made its output, with a stand-in
    gen-matrix that records them and exits with `status`."""
    tools = folder / "bin"
    tools.mkdir(parents=True)
    (tools / "gen-matrix").write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{folder}/argv"\nexit {status}\n')
    (tools / "gen-matrix").chmod(0o755)
    out = folder / "out"
    done = subprocess.run(["bash", "-e", "-c", command], env={"PATH": f"{tools}:{os.environ['PATH']}", "out": str(out)},
                          capture_output=True, text=True)
    assert (done.returncode == 0) == (status == 0), done.stderr
    return (folder / "argv").read_text().splitlines(), out.exists()
