"""Exactly one torch in every companion's closure: the variant's, on every pin.

A companion (torchvision, torchaudio) is built against its variant's heavy torch. Any
package it pulls in that takes the pin's own `torch` (torchaudio 2.11 depends on
torchcodec, whose tests pull in torchvision) would build a second, default-configured
torch in the same closure: hours of build, and two torches in one environment.

The check is on real derivations: nix-instantiate writes the recipe's .drv files into a
store of the test's own (no daemon, no network), and the test walks their inputs
recursively, reading each .drv file, and counts the PyTorch builds it meets.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import FAKE_NIXPKGS, NIX_INSTANTIATE, expansion_of, fake_for, needs_nix, nix_string

pytestmark = needs_nix

REVS = {
    "fe5e41d": "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3",
    "0182a36": "0182a361324364ae3f436a63005877674cf45efb",
    "6a030d5": "6a030d535719c5190187c4cec156f335e95e3211",
    "2017d6d": "2017d6d515f8a7b289fe06d3a880a7ec588c3900",
}
COMPANIONS = """
companions:
  - packages: [torchvision, torchaudio]
    when: all
"""
# One matrix per PyTorch version the pins carry; together they cover the four pins,
# CUDA 12 and 13, CPU-only and Apple Silicon.
MATRICES = {
    "2.8.0": f"""
pytorch: {{version: "2.8.0"}}
nixpkgs: {{rev: {REVS["fe5e41d"]}}}
gpu: {{python: ["3.13"], cuda: ["12.8"], sm: [sm90], isa: [avx2]}}
cpu: {{python: ["3.13"], isa: [avx2]}}
darwin: {{python: ["3.13"], accelerator: [mps]}}
""" + COMPANIONS,
    "2.9.1": f"""
pytorch: {{version: "2.9.1"}}
nixpkgs:
  pins:
    - {{name: cuda12, rev: {REVS["0182a36"]}, when: {{cuda: ["12.8"]}}}}
    - {{name: cuda13_1, rev: {REVS["2017d6d"]}, when: {{cuda: "13.1"}}}}
    - {{name: main, rev: {REVS["6a030d5"]}}}
gpu: {{python: ["3.13"], cuda: ["12.8", "13.0", "13.1"], sm: [sm90], isa: [avx2]}}
cpu: {{python: ["3.13"], isa: [avx2]}}
darwin: {{python: ["3.13"], accelerator: [mps]}}
""" + COMPANIONS,
}


# -- .drv files (ATerm: Derive([outputs],[inputDrvs],[inputSrcs],system,builder,[args],[env]))

def parse_aterm(text: str):
    """A .drv file's ATerm as nested Python lists (tuples and lists alike) and strings."""
    position = 0

    def value():
        nonlocal position
        char = text[position]
        if char == '"':
            position += 1
            out = []
            while text[position] != '"':
                if text[position] == "\\":
                    position += 1
                    out.append({"n": "\n", "t": "\t", "r": "\r"}.get(text[position], text[position]))
                else:
                    out.append(text[position])
                position += 1
            position += 1
            return "".join(out)
        if char in "[(":
            close = "]" if char == "[" else ")"
            position += 1
            items = []
            while text[position] != close:
                items.append(value())
                if text[position] == ",":
                    position += 1
            position += 1
            return items
        start = position  # a constructor name such as Derive
        while text[position].isalpha():
            position += 1
        return [text[start:position], value()]

    return value()


class Store:
    """The .drv files nix-instantiate wrote into a store rooted at `root`."""

    def __init__(self, root: Path):
        self.root = root
        self.cache: dict[str, tuple[list[str], dict[str, str]]] = {}

    def instantiate(self, expression: str) -> list[str]:
        result = subprocess.run(
            [NIX_INSTANTIATE, "--store", f"local?root={self.root}", "--expr", expression],
            capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        return result.stdout.split()

    def read(self, drv: str) -> tuple[list[str], dict[str, str]]:
        if drv not in self.cache:
            _, fields = parse_aterm((self.root / drv.lstrip("/")).read_text())
            self.cache[drv] = ([input_drv for input_drv, _ in fields[1]], dict(fields[6]))
        return self.cache[drv]

    def closure(self, drv: str) -> set[str]:
        """`drv` and every derivation it depends on, through inputDrvs, recursively."""
        seen, todo = set(), [drv]
        while todo:
            current = todo.pop()
            if current not in seen:
                seen.add(current)
                todo.extend(self.read(current)[0])
        return seen

    def torches(self, drv: str) -> set[str]:
        """The PyTorch builds in the closure of `drv`: nixpkgs' torch exports
        PYTORCH_BUILD_VERSION, in every layout, whatever the derivation is named."""
        return {d for d in self.closure(drv)
                if "PYTORCH_BUILD_VERSION" in self.read(d)[1] or self.read(d)[1].get("pname") == "torch"}

    def names(self, drv: str) -> set[str]:
        return {self.read(d)[1].get("pname", "") for d in self.closure(drv)}


@pytest.fixture
def store(tmp_path) -> Store:
    return Store(tmp_path / "store")


def generate(root: Path, matrix: str, run) -> None:
    root.mkdir(parents=True)
    (root / "matrix.yaml").write_text(matrix)
    result = run("--root", root)
    assert result.exit_code == 0, result.output


def companion_drvs(root: Path, store: Store, nixpkgs=None) -> dict[str, tuple[str, str, str]]:
    """Per companion recipe of the repository at `root`: its pin, the drvPath of its
    published wrapper and that of its torch recipe's heavy build, instantiated against
    the test package set of its pin (or `nixpkgs(variant, matrix)`)."""
    expansion = expansion_of(root)
    companions = [v for v in expansion.variants if v.is_companion]
    pkgs = root / ".flox" / "pkgs"
    fake = nixpkgs or fake_for
    expression = "[\n" + "".join(
        f"(import {nix_string(pkgs / (v.name + '.nix'))} {{ genMatrixNixpkgs = {fake(v, expansion.matrix)}; }})\n"
        f"(import {nix_string(pkgs / (v.torch + '.nix'))} {{ genMatrixNixpkgs = {fake(v, expansion.matrix)}; }}).unwrapped\n"
        for v in companions) + "]"
    paths = store.instantiate(expression)
    pins = {p.name: p.rev[:7] for p in expansion.matrix.pins}
    return {v.name: (pins[v.pin], paths[2 * i], paths[2 * i + 1]) for i, v in enumerate(companions)}


@pytest.mark.parametrize("version", sorted(MATRICES))
def test_every_companion_closure_holds_one_torch_the_variants(version, tmp_path, store, run):
    root = tmp_path / "project"
    generate(root, MATRICES[version], run)
    found = companion_drvs(root, store)
    # two companions for each torch variant: GPU ones (one per CUDA release), CPU, Darwin
    assert len(found) == {"2.8.0": 6, "2.9.1": 10}[version]
    pins = set()
    for name, (pin, companion, torch) in found.items():
        pins.add(pin)
        assert store.torches(companion) == {torch}, name
    assert pins == ({"fe5e41d"} if version == "2.8.0" else {"0182a36", "2017d6d", "6a030d5"})


# -- a pin whose torchaudio depends on torchcodec ---------------------------------------

LATER_TORCHAUDIO = f"""
args: import {nix_string(FAKE_NIXPKGS)} (args // {{
  overlays = (args.overlays or [ ]) ++ [
    (final: prev: {{
      pythonPackagesExtensions = prev.pythonPackagesExtensions ++ [
        (pfinal: pprev: {{ torchaudio = pfinal.callPackage {nix_string(FAKE_NIXPKGS / "pkgs" / "torchaudio-2.11.nix")} {{ }}; }})
      ];
    }})
  ];
}})
"""


def with_later_torchaudio(tmp_path: Path):
    """The test package set of each pin, with torchaudio 2.11 (which depends on torchcodec)
    in place of the pin's own: what a later pin brings."""
    def nixpkgs(variant, matrix) -> str:
        pin = next(p for p in matrix.pins if p.name == variant.pin)
        folder = tmp_path / f"nixpkgs-{pin.rev[:7]}-{variant.system}"
        if not folder.exists():
            folder.mkdir()
            (folder / "default.nix").write_text(
                LATER_TORCHAUDIO.replace("(args // {", f'(args // {{ revision = "{pin.rev}"; system = "{variant.system}";', 1))
        return nix_string(folder)
    return nixpkgs


@pytest.mark.parametrize("version", sorted(MATRICES))
def test_torchcodec_and_test_inputs_take_the_variants_torch(version, tmp_path, store, run):
    root = tmp_path / "project"
    generate(root, MATRICES[version], run)
    found = companion_drvs(root, store, with_later_torchaudio(tmp_path))
    audio = {name: drvs for name, drvs in found.items() if name.startswith("torchaudio-")}
    assert audio
    for name, (_, companion, torch) in audio.items():
        # the case is real: torchcodec, its test input torchvision, and pytorch-lightning
        # (torchaudio's test input) are all in the closure, and all take the scope's torch
        assert {"torchcodec", "torchvision", "pytorch-lightning"} <= store.names(companion), name
        assert store.torches(companion) == {torch}, name


@pytest.mark.parametrize("revision", sorted(REVS))
def test_overriding_the_companions_torch_argument_alone_builds_a_second_torch(revision, tmp_path, store):
    """The counter-check: the override nixpkgs users reach for first leaves torchcodec,
    torchvision and pytorch-lightning on the pin's default torch."""
    expression = f"""
      let
        pkgs = ({LATER_TORCHAUDIO}) {{ revision = "{revision}";
          config = {{ allowUnfree = true; cudaSupport = true; }}; }};
        ps = pkgs.python313Packages;
        torch = ps.torch.override {{ gpuTargets = [ "9.0" ]; }};
      in [ torch (ps.torchaudio.override {{ inherit torch; }}) ]
    """
    torch, audio = store.instantiate(expression)
    torches = store.torches(audio)
    assert torch in torches and len(torches) == 2
