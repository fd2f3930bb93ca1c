"""The box of generator/commands/sandbox.py with several folders and several URIs, as eval
gives it (its spec, eval.nix's folder, each repository, the package set): each of them is
open to the evaluation, and nothing beside them is, with the real nix-instantiate. And its
memory limit with several limits and several children: each child is held to the limit of
the runs it belongs to."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from conftest import needs_nix
from generator.commands import sandbox

NIX = shutil.which("nix-instantiate") or "nix-instantiate"


def evaluate(expression: str, folders=(), uris=()) -> subprocess.CompletedProcess:
    # one download attempt: a refused connection is told at once
    command = [NIX, "--eval", "--option", "download-attempts", "1", "-E", expression,
               *sandbox.options(folders, uris)]
    return subprocess.run(command, capture_output=True, text=True, env=sandbox._environment(), timeout=120)


@needs_nix
def test_every_folder_named_is_readable_in_one_evaluation_and_a_folder_beside_them_is_not(tmp_path):
    folders = []
    for name in ("spec", "library", "repository", "nixpkgs", "elsewhere"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "value.nix").write_text(f'"{name} "\n')
        folders.append(tmp_path / name)
    named, beside = folders[:4], folders[4]
    reads = " + ".join(f"import {folder / 'value.nix'}" for folder in named)
    # the same folder twice, and a folder given as text, change nothing
    found = evaluate(reads, [*named, str(named[0])])
    assert found.returncode == 0, found.stderr
    assert found.stdout.strip() == '"spec library repository nixpkgs "'
    refused = evaluate(f"{reads} + import {beside / 'value.nix'}", named)
    assert refused.returncode != 0 and f"access to absolute path '{beside / 'value.nix'}' is forbidden" in refused.stderr


@needs_nix
@pytest.mark.parametrize("uris", [1, 2, 3])
def test_every_uri_named_may_be_fetched_and_no_other(uris):
    """Several pins' tarballs: each is allowed (the fetch is tried: nothing listens on port 9),
    and a URI beside them is refused before anything is fetched."""
    named = [f"http://127.0.0.1:9/pin-{index}/" for index in range(uris)]
    for uri in named:
        tried = evaluate(f'builtins.fetchurl "{uri}nixpkgs.tar.gz"', uris=named)
        assert tried.returncode != 0 and "is forbidden" not in tried.stderr and "unable to download" in tried.stderr
    refused = evaluate('builtins.fetchurl "http://127.0.0.1:9/other/nixpkgs.tar.gz"', uris=named)
    assert refused.returncode != 0 and "access to URI 'http://127.0.0.1:9/other/nixpkgs.tar.gz' is forbidden" \
        in refused.stderr


# ---- the memory limit --------------------------------------------------------------------

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is a hard limit on Linux alone")

MiB = 2**20


def grows(size: int) -> list[str]:
    """A child that takes `size` bytes at once and says so; MemoryError (exit 1) where it may not."""
    return [sys.executable, "-c", f"b = bytearray({size}); print(len(b))"]


# the sizes the children take, and the limits they run under: each child fits under every
# limit above its size, and under none at or below it
SIZES = [32 * MiB, 256 * MiB]
LIMITS = [160 * MiB, 512 * MiB]


@linux
@pytest.mark.parametrize("limit", LIMITS, ids=lambda limit: f"{limit // MiB}MiB")
def test_each_child_is_held_to_the_memory_limit_its_runs_were_given(limit):
    with sandbox.Runs(memory=limit) as runs:
        done = [runs.run(grows(size), 60) for size in SIZES]
    for size, finished in zip(SIZES, done):
        assert not finished.timed_out
        if size < limit:
            assert (finished.returncode, finished.stdout) == (0, f"{size}\n"), finished.stderr
        else:
            assert finished.returncode == 1 and "MemoryError" in finished.stderr, finished


@linux
@pytest.mark.parametrize("limit", LIMITS, ids=lambda limit: f"{limit // MiB}MiB")
def test_a_single_run_is_held_to_its_memory_limit_and_the_default_is_the_module_s(limit, monkeypatch):
    """`run(memory=...)` as `Runs(memory=...)`; without one, MEMORY_BYTES as it is when the runs start."""
    given = [sandbox.run(grows(size), 60, memory=limit).returncode for size in SIZES]
    monkeypatch.setattr(sandbox, "MEMORY_BYTES", limit)
    default = [sandbox.run(grows(size), 60).returncode for size in SIZES]
    expected = [0 if size < limit else 1 for size in SIZES]
    assert given == default == expected
