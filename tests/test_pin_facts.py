"""What each known nixpkgs pin holds (knowledge `pins:`), and what generate says where a
matrix asks a pin for what it does not hold.

The rows are claims about real nixpkgs revisions that none of these tests can read; what they
can hold the rows to is the test package set (tests/nix), which models the same revisions
from the same sources, and what its recipes do when Nix evaluates them against it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import NIX_INSTANTIATE, REPO, needs_nix
from generator import knowledge as knowledge_

FACTS = ("torch", "torchvision", "torchaudio", "cuda", "cuda_aliases", "capabilities", "python", "python_default")


@pytest.fixture(scope="module")
def known() -> knowledge_.Knowledge:
    return knowledge_.build(knowledge_.builtin())


@needs_nix
def test_the_table_holds_what_the_test_package_set_evaluates_for_each_pin(known):
    done = subprocess.run([NIX_INSTANTIATE, "--eval", "--strict", "--json", str(REPO / "tests/nix/pin-facts.nix")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    evaluated = json.loads(done.stdout)
    assert len(evaluated) == 4
    for short, facts in evaluated.items():
        row = known.pins.get(facts["rev"])
        assert row is not None, f"tests/nix models {short}, which knowledge pins lacks"
        assert (row.torch, row.torchvision, row.torchaudio) == (facts["torch"], facts["torchvision"], facts["torchaudio"])
        assert dict(row.cuda) == facts["cuda"]
        assert dict(row.cuda_aliases) == facts["cuda_aliases"]
        assert {cuda: list(row.default_capabilities(cuda, known.cuda)) for cuda in row.cuda} == facts["capabilities"]
        assert (sorted(row.python), row.python_default) == (sorted(facts["python"]), facts["python_default"])


def test_every_fact_of_a_known_pin_names_its_source(known):
    assert known.pins
    for rev, row in known.pins.items():
        assert len(rev) == 40
        # python_default is read where the Pythons are: `python`'s source says where
        given = {"python" if fact == "python_default" else fact for fact in FACTS if getattr(row, fact)}
        assert given - set(row.sources) == set(), rev
        assert set(row.inferred) <= given, rev
        for fact in row.inferred:
            assert "inferred" in row.sources[fact], (rev, fact)
