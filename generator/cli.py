"""The gen-matrix command line: exit 0 ok, 1 drift, 2 invalid input."""

from __future__ import annotations

import functools
import json
import sys

import click

from . import ci as ci_, pipeline, state, write
from .errors import GenMatrixError

EXIT_DRIFT = 1
EXIT_INVALID = 2


def _fail(error: GenMatrixError) -> None:
    for problem in error.problems:
        click.echo(f"error: {problem}", err=True)
    sys.exit(EXIT_INVALID)


def project_options(command):
    """--matrix and --root, on the group and on every command."""

    @click.option("--matrix", "matrix", type=click.Path(dir_okay=False), default=None,
                  help="The matrix file [default: ROOT/matrix.yaml].")
    @click.option("--root", "root", type=click.Path(file_okay=False), default=None,
                  help="The repository to write into [default: the matrix's folder, else the working folder].")
    @functools.wraps(command)
    def wrapper(*args, matrix=None, root=None, **kwargs):
        parent = click.get_current_context().find_root().params
        project = pipeline.locate(matrix or parent.get("matrix"), root or parent.get("root"))
        try:
            return command(project, *args, **kwargs)
        except GenMatrixError as error:
            _fail(error)

    return wrapper


def _warn(expansion) -> None:
    for warning in expansion.warnings:
        click.echo(f"warning: {warning}", err=True)


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--matrix", type=click.Path(dir_okay=False), default=None,
              help="The matrix file [default: ROOT/matrix.yaml].")
@click.option("--root", type=click.Path(file_okay=False), default=None,
              help="The repository to write into [default: the matrix's folder, else the working folder].")
@click.version_option(package_name="gen-matrix")
@click.pass_context
def main(ctx: click.Context, matrix, root) -> None:
    """Expand matrix.yaml into Flox recipes for custom PyTorch builds.

    Without a command, runs `generate`.
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(generate)


@main.command()
@project_options
def generate(project: pipeline.Project) -> None:
    """Validate the matrix, render every output and write what changed."""
    expansion = pipeline.expansion(project)
    _warn(expansion)
    plan = write.plan(project.root, pipeline.outputs(project, expansion))
    try:
        write.apply(plan)
    except OSError as error:
        click.echo(f"error: {error.filename or project.root}: cannot write: {error.strerror or error}", err=True)
        click.echo("  hint: files already written are complete; fix the cause and run gen-matrix again", err=True)
        sys.exit(EXIT_INVALID)
    click.echo(f"gen-matrix: {len(expansion.variants)} variants; {len(plan.write)} written, "
               f"{len(plan.unchanged)} unchanged, {len(plan.remove)} removed")


@main.command()
@project_options
def check(project: pipeline.Project) -> None:
    """Exit 1, with a diff, if the tree differs from what the matrix generates."""
    expansion = pipeline.expansion(project)
    _warn(expansion)
    plan = write.plan(project.root, pipeline.outputs(project, expansion))
    if plan.current:
        click.echo(f"gen-matrix: {len(plan.outputs)} generated files are current")
        return
    click.echo(write.report(plan), nl=False)
    click.echo(f"gen-matrix: {len(plan.write)} files differ or are missing, {len(plan.remove)} are no longer "
               f"in the matrix; run `gen-matrix` to update them", err=True)
    sys.exit(EXIT_DRIFT)


@main.command()
@click.option("--changed-since", "since", metavar="REF", default=None,
              help="Only the variants whose build inputs or metadata changed since this git revision.")
@click.option("--shard-size", type=click.IntRange(1, 256), default=None,
              help="Variants per shard [default: ci.shard_size in matrix.yaml, 256].")
@click.option("--shard", type=click.IntRange(min=0), default=None, metavar="K",
              help="Print only shard K as a value for strategy.matrix (empty past the last shard).")
@click.option("--shards", "list_shards", is_flag=True, help="Print the indices of the non-empty shards.")
@project_options
def ci(project: pipeline.Project, since, shard_size, shard, list_shards) -> None:
    """Print the GitHub Actions build matrix as JSON: every variant, or those changed since REF.

    Variants whose metadata alone changed are marked metadata_only; variants in the state at
    REF but no longer in the matrix are listed under "deleted".
    """
    if shard is not None and list_shards:
        raise click.UsageError("--shard and --shards exclude each other")
    expansion = pipeline.expansion(project)
    _warn(expansion)
    now = state.parse(pipeline.outputs(project, expansion)[state.STATE_FILE], state.STATE_FILE)
    before = ci_.committed_state(project.root, since) if since is not None else None
    selection = ci_.select(expansion, now, before)
    shards = selection.shards(shard_size or expansion.matrix.ci.shard_size)
    if list_shards:
        document = list(range(len(shards)))
    elif shard is not None:
        document = ci_.matrix_json(shards[shard] if shard < len(shards) else ())
    else:
        document = selection.as_json()
    click.echo(json.dumps(document, separators=(",", ":")))
