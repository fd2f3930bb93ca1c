"""The GitHub Actions workflow that builds and publishes the variants, rendered from
templates/flox-variants.yml.j2 and the build workflow it calls, flox-variants-build.yml.j2,
with the `ci:` settings of the matrix. `gen-matrix ci` (generator/commands/ci.py) is what its
jobs run to choose what to build; its output is the build job's matrix, so neither file
grows with the matrix."""

from __future__ import annotations


from ..layout import (FLOX_LOCK_FILE, HEADER, MANIFEST_FILE, MEASURED_DIR, STATE_FILE, WORKFLOW_BUILD_FILE,
                      WORKFLOW_FILE)
from ..model import CI, Builder, Expansion, Matrix
from ..pin import Source
from ..records import dataclass
from ..templating import environment

# The tag the workflow moves to a commit once every variant changed up to it is published:
# the next run selects against it, so what a failed or cancelled run missed is not lost.
PUBLISHED_MARKER = "gen-matrix-published"
# The workflow artifact that holds the plan's JSON: every selected name and why.
PLAN_ARTIFACT = "gen-matrix-plan"
# What locks the Flox environment: activation locks a manifest that has no current lock.
LOCK_COMMAND = f"flox activate -- true && git add {FLOX_LOCK_FILE}"


def workflow_context(expansion: Expansion, source: Source) -> dict:
    """What the workflow's two templates are given: the same whatever the number of variants,
    as the plan's output is the build job's matrix."""
    ci = expansion.matrix.ci
    return {
        "ci": ci,
        "source": source,
        "organisation_from_variable": f"${{{{ vars.{ci.organisation_variable} }}}}",
        "organisation_default": ci.organisation or "",
        "cache": ci.cache,
        "cache_secret": f"${{{{ secrets.{ci.cache.secret} }}}}" if ci.cache and ci.cache.secret else "",
        "nix_config": _nix_config(ci),
        "compiler_cache": compiler_cache(expansion.matrix),
        "substituters": " ".join(url for url, _ in ci.substituters),
        "substituter_keys": " ".join(key for _, key in ci.substituters),
        "builders": [_builder(builder) for builder in ci.builders],
        "builder_secrets": builder_secrets(ci),
        "jobs": expansion.matrix.jobs,
        "state_file": STATE_FILE,
        "marker": PUBLISHED_MARKER,
        "lock_file": FLOX_LOCK_FILE,
        "lock_command": LOCK_COMMAND,
        "plan_artifact": PLAN_ARTIFACT,
        "measured_dir": MEASURED_DIR,
        "manifest_file": MANIFEST_FILE,
        "workflow_file": WORKFLOW_FILE,
        "build_file": WORKFLOW_BUILD_FILE,
    }


@dataclass(frozen=True)
class CompilerCache:
    """What the build jobs set up for build.compiler_cache: the tool, and the fix file that
    names its folder (the workflow reads the folder from there)."""

    tool: str
    file: str


def compiler_cache(matrix: Matrix) -> CompilerCache | None:
    """The compiler cache of the matrix's builds, by the knowledge row that carries it out
    (the enabled fix whose `when` names the tool); None where build.compiler_cache is off or
    no enabled row carries it out, which builds without it."""
    if matrix.compiler_cache is None:
        return None
    for fix in matrix.knowledge.fixes.values():
        if fix.enabled and matrix.compiler_cache in tuple(fix.when.get("compiler_cache", ())):
            return CompilerCache(matrix.compiler_cache, f"nix/fixes/{fix.stem}.nix")
    return None


def builder_secrets(ci: CI) -> list[str]:
    """The repository secrets of ci.builders, each once, in order: the build workflow declares
    them and the workflow passes them on."""
    return list(dict.fromkeys(name for builder in ci.builders
                              for name in (builder.ssh_key_secret, builder.known_hosts_secret)))


def _builder(builder: Builder) -> dict:
    """A builder's fields of its line in Nix's machines file, and the secrets the step reads."""
    return {"url": builder.url, "systems": ",".join(builder.systems), "features": ",".join(builder.features) or "-",
            "max_jobs": str(builder.max_jobs), "key": f"${{{{ secrets.{builder.ssh_key_secret} }}}}",
            "key_secret": builder.ssh_key_secret, "known_hosts": f"${{{{ secrets.{builder.known_hosts_secret} }}}}",
            "known_hosts_secret": builder.known_hosts_secret}


def _nix_config(ci: CI) -> str:
    """NIX_CONFIG of the build jobs: the binary cache as an extra substituter, if there is one."""
    if ci.cache is None or ci.cache.substituter is None:
        return ""
    lines = [f"extra-substituters = {ci.cache.substituter}"]
    if ci.cache.public_key:
        lines.append(f"extra-trusted-public-keys = {ci.cache.public_key}")
    return "\n".join(lines)


def render(expansion: Expansion, source: Source) -> dict[str, str]:
    """The workflow and the build workflow it calls, by path."""
    context = workflow_context(expansion, source)
    env = environment(False)
    return {path: env.get_template(template).render(header=f"# {HEADER}", **context)
            for path, template in ((WORKFLOW_FILE, "flox-variants.yml.j2"),
                                   (WORKFLOW_BUILD_FILE, "flox-variants-build.yml.j2"))}
