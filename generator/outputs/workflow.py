"""The GitHub Actions workflow that builds and publishes the variants, rendered from
templates/flox-variants.yml.j2 with the `ci:` settings of the matrix. `gen-matrix ci`
(generator/commands/ci.py) is what its jobs run to choose what to build."""

from __future__ import annotations

import math
from collections import Counter
from importlib import metadata

from ..layout import FLOX_LOCK_FILE, HEADER, STATE_FILE
from ..model import CI, Expansion
from ..templating import environment

# The tag the workflow moves to a commit once every variant changed up to it is published:
# the next run selects against it, so what a failed or cancelled run missed is not lost.
PUBLISHED_MARKER = "gen-matrix-published"
# The workflow artifact that holds the plan's JSON: every selected name and why.
PLAN_ARTIFACT = "gen-matrix-plan"
# What locks the Flox environment: activation locks a manifest that has no current lock.
LOCK_COMMAND = f"flox activate -- true && git add {FLOX_LOCK_FILE}"


def shard_count(expansion: Expansion, size: int) -> int:
    """Build jobs the workflow needs so that every torch of the matrix fits, in shards of
    one runner each (`Selection.shards`): at least one."""
    per_runner = Counter(expansion.matrix.ci.placement(v) for v in expansion.variants if not v.is_companion)
    return max(1, sum(math.ceil(count / size) for count in per_runner.values()))


def workflow_context(expansion: Expansion) -> dict:
    """What templates/flox-variants.yml.j2 is given: one build job per shard the matrix can fill."""
    ci = expansion.matrix.ci
    shards = [
        {
            "index": index,
            "output": f"shard_{index}",
            "output_value": f"${{{{ steps.select.outputs.shard_{index} }}}}",
            "condition": f"contains(fromJSON(needs.plan.outputs.shards), {index})",
            "runner": f"${{{{ fromJSON(needs.plan.outputs.shard_{index}).runner }}}}",
            "slots": f"${{{{ fromJSON(needs.plan.outputs.shard_{index}).slots }}}}",
        }
        for index in range(shard_count(expansion, ci.shard_size))
    ]
    return {
        "ci": ci,
        "shards": shards,
        "organisation_from_variable": f"${{{{ vars.{ci.organisation_variable} }}}}",
        "organisation_default": ci.organisation or "",
        "cache": ci.cache,
        "cache_secret": f"${{{{ secrets.{ci.cache.secret} }}}}" if ci.cache and ci.cache.secret else "",
        "nix_config": _nix_config(ci),
        "jobs": expansion.matrix.jobs,
        "state_file": STATE_FILE,
        "marker": PUBLISHED_MARKER,
        "lock_file": FLOX_LOCK_FILE,
        "lock_command": LOCK_COMMAND,
        "plan_artifact": PLAN_ARTIFACT,
        "gen_matrix": ci.gen_matrix or default_requirement(),
    }


def default_requirement() -> str:
    """The pip requirement of the gen-matrix that is running: the same release, so that the
    workflow's `gen-matrix check` compares with what generated the files."""
    return f"gen-matrix=={metadata.version('gen-matrix')}"


def _nix_config(ci: CI) -> str:
    """NIX_CONFIG of the build jobs: the binary cache as an extra substituter, if there is one."""
    if ci.cache is None or ci.cache.substituter is None:
        return ""
    lines = [f"extra-substituters = {ci.cache.substituter}"]
    if ci.cache.public_key:
        lines.append(f"extra-trusted-public-keys = {ci.cache.public_key}")
    return "\n".join(lines)


def render(expansion: Expansion) -> str:
    """The workflow's text: one build job per shard the matrix can fill."""
    return environment(False).get_template("flox-variants.yml.j2").render(
        header=f"# {HEADER}", **workflow_context(expansion))
