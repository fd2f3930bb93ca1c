"""The workflow's values, directly: how the plan's output shards the build jobs, and what
each is told about the cache and the organisation. test_ci.py reads the rendered workflow of whole matrices; these
pin the boundaries (a shard exactly full, a cache without a key)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from generator import pin
from generator.commands import ci
from generator.errors import GenMatrixError
from generator.model import Cache
from generator.outputs import workflow

from conftest import SYNTHETIC, expansion_of, with_ci


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """300 torches, and the companions of 18 of them."""
    root = tmp_path_factory.mktemp("big")
    (root / "matrix.yaml").write_text(SYNTHETIC + "companions:\n  - packages: [torchvision, torchaudio]\n"
                                      "    when: {sm: [sm61, sm75, sm90], isa: avx}\n")
    return expansion_of(root)


CHECKOUT = pin.Source(None, True, "this checkout of gen-matrix")


def torches(expansion) -> int:
    return sum(not v.is_companion for v in expansion.variants)


def plan_outputs(expansion, size: int) -> dict:
    """What the plan job hands the build job: `gen-matrix ci --plan`'s github-output, read."""
    every = ci.select(expansion, ci.changes_by_text(expansion, {v.name: None for v in expansion.variants}, None))
    lines = ci.github_output(expansion, every, size).splitlines()
    return {key: value for key, _, value in (line.partition("=") for line in lines)}


def test_the_companions_take_no_room_in_a_shard(big):
    assert torches(big) == 300 and len(big.variants) > 300
    for size, shards in ((256, 2), (150, 2), (149, 3), (2, 150)):
        matrix = json.loads(plan_outputs(big, size)["shards"])
        assert len(matrix["include"]) == shards
        assert [entry["shard"] for entry in matrix["include"]] == list(range(shards))
        assert sum(len(entry["slots"]) for entry in matrix["include"]) == 300
        assert all(len(entry["slots"]) <= size for entry in matrix["include"])


def test_more_shards_than_a_run_holds_is_an_error_that_says_what_to_do(big):
    assert len(json.loads(plan_outputs(big, 2)["shards"])["include"]) == 150 <= ci.MAX_SHARDS
    with pytest.raises(GenMatrixError) as raised:
        plan_outputs(big, 1)
    assert "300 shards" in str(raised.value) and "at most 256" in str(raised.value)


def test_with_nothing_to_build_the_build_job_is_skipped(big):
    nothing = ci.select(big, {})
    outputs = dict(line.partition("=")[::2] for line in ci.github_output(big, nothing, 256).splitlines())
    assert outputs == {"build": "false", "shards": '{"include":[]}'}
    assert plan_outputs(big, 256)["build"] == "true"


def test_the_workflow_is_the_same_text_whatever_the_number_of_variants(big):
    """Its size is constant: the plan's output is the build job's matrix."""
    few = dataclasses.replace(big, variants=big.variants[:3])
    source = pin.Source("github:acme/gen-matrix/" + "0" * 40, False, "test")
    assert workflow.render(few, source) == workflow.render(big, source)


def test_the_organisation_and_its_default(big):
    context = workflow.workflow_context(with_ci(big, organisation_variable="ORG", organisation=None), CHECKOUT)
    assert context["organisation_from_variable"] == "${{ vars.ORG }}"
    assert context["organisation_default"] == ""
    assert workflow.workflow_context(with_ci(big, organisation="acme"), CHECKOUT)["organisation_default"] == "acme"


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
    context = workflow.workflow_context(with_ci(big, cache=cache), CHECKOUT)
    assert context["nix_config"] == nix_config
    assert context["cache_secret"] == secret
    assert context["cache"] == cache


def test_the_rendered_workflow_starts_with_the_header_and_names_the_state(big):
    files = workflow.render(big, CHECKOUT)
    assert sorted(files) == [".github/workflows/flox-variants-build.yml", ".github/workflows/flox-variants.yml"]
    for text in files.values():
        assert text.startswith("# Generated from matrix.yaml by gen-matrix; do not edit by hand")
    text = files[".github/workflows/flox-variants.yml"]
    assert "matrix.state.json" in text and workflow.PUBLISHED_MARKER in text
    assert workflow.LOCK_COMMAND == "flox activate -- true && git add .flox/env/manifest.lock"
