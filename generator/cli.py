"""The gen-matrix command line: exit 0 ok, 1 drift, 2 invalid input."""

from __future__ import annotations

import functools
import json
import sys

import click

from . import explain as explain_
from . import pipeline, write
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
    write.apply(plan)
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
@click.argument("name", required=False)
@click.option("--sm", help="An SM: sm61, 61 or its capability 6.1.")
@click.option("--cuda", help="A CUDA release, e.g. 12.8.")
@click.option("--isa", help="A CPU instruction set, e.g. avx2.")
@click.option("--python", help="A Python version, e.g. 3.13.")
@click.option("--accelerator", help="An Apple GPU back end, e.g. mps.")
@click.option("--kind", type=click.Choice(["gpu", "cpu", "darwin"]),
              help="The kind of variant [default: every kind that has the given axes].")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@project_options
def explain(project: pipeline.Project, name, sm, cuda, isa, python, accelerator, kind, as_json) -> None:
    """Show a variant's resolved values and the rule that put it in the matrix, or, for a
    combination (--sm 6.1 --cuda 13.0 --isa avx2), the rules that keep it out.

    Axes left out take every value of the matrix; with no NAME and no axis, every
    combination of the matrix is listed."""
    given = {axis: value for axis, value in
             (("python", python), ("cuda", cuda), ("sm", sm), ("isa", isa), ("accelerator", accelerator))
             if value is not None}
    if name is not None and (given or kind):
        raise click.UsageError("give a variant NAME or axis options, not both")
    expansion = pipeline.expansion(project, allow_empty=True)
    _warn(expansion)
    result = (explain_.by_name(expansion, name) if name is not None
              else explain_.by_values(expansion, given, kind))
    if as_json:
        click.echo(json.dumps(explain_.as_json(result), indent=2))
    else:
        click.echo(explain_.text(result), nl=False)
