"""The workflow's values, directly: how many build jobs, and what each is told about the
cache and the organisation. test_ci.py reads the rendered workflow of whole matrices; these
pin the boundaries (a shard exactly full, a cache without a key)."""

from __future__ import annotations

import dataclasses

import pytest
import yaml

from generator.model import CI, Cache
from generator.outputs import workflow

from conftest import SYNTHETIC, expansion_of


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """300 torches, and the companions of 18 of them."""
    root = tmp_path_factory.mktemp("big")
    (root / "matrix.yaml").write_text(SYNTHETIC + "companions:\n  - packages: [torchvision, torchaudio]\n"
                                      "    when: {sm: [sm61, sm75, sm90], isa: avx}\n")
    return expansion_of(root)


def with_ci(expansion, **settings):
    matrix = dataclasses.replace(expansion.matrix, ci=dataclasses.replace(expansion.matrix.ci, **settings))
    return dataclasses.replace(expansion, matrix=matrix)


def torches(expansion) -> int:
    return sum(not v.is_companion for v in expansion.variants)


def test_the_companions_take_no_room_in_a_shard(big):
    assert torches(big) == 300 and len(big.variants) > 300
    assert workflow.shard_count(big, 300) == 1
    assert workflow.shard_count(big, 299) == 2
    assert workflow.shard_count(big, 150) == 2
    assert workflow.shard_count(big, 149) == 3
    assert workflow.shard_count(big, 1) == 300


def test_a_matrix_without_torches_still_has_one_build_job(big):
    empty = dataclasses.replace(big, variants=())
    assert workflow.shard_count(empty, 256) == 1


def test_the_organisation_and_its_default(big):
    context = workflow.workflow_context(with_ci(big, organisation_variable="ORG", organisation=None))
    assert context["organisation_from_variable"] == "${{ vars.ORG }}"
    assert context["organisation_default"] == ""
    assert workflow.workflow_context(with_ci(big, organisation="acme"))["organisation_default"] == "acme"


@pytest.mark.parametrize("cache, nix_config, secret", [
    (None, "", ""),
    (Cache("s3", None, None, "s3://bucket", "KEY"), "", "${{ secrets.KEY }}"),
    (Cache("attic", "https://attic.example/acme", None, "acme", None), "extra-substituters = https://attic.example/acme",
     ""),
    (Cache("cachix", "https://acme.cachix.org", "acme.cachix.org-1:AAAA", "acme", "TOKEN"),
     "extra-substituters = https://acme.cachix.org\nextra-trusted-public-keys = acme.cachix.org-1:AAAA",
     "${{ secrets.TOKEN }}"),
])
def test_the_cache_reaches_the_build_jobs_as_nix_settings(big, cache, nix_config, secret):
    context = workflow.workflow_context(with_ci(big, cache=cache))
    assert context["nix_config"] == nix_config
    assert context["cache_secret"] == secret
    assert context["cache"] == cache


def test_the_rendered_workflow_starts_with_the_header_and_names_the_state(big):
    text = workflow.render(big)
    assert text.startswith("# Generated from matrix.yaml by gen-matrix; do not edit by hand")
    assert "matrix.state.json" in text and workflow.PUBLISHED_MARKER in text
    assert workflow.LOCK_COMMAND == "flox activate -- true && git add .flox/env/manifest.lock"
