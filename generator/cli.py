"""The gen-matrix command line: exit 0 ok, 1 drift, 2 invalid input."""

from __future__ import annotations

import dataclasses
import functools
import json
import sys
from pathlib import Path

import click

from . import layout
from .commands.buildenv import SHELLS
from .errors import GenMatrixError
from .model import KIND_CHOICES

EXIT_DRIFT = 1
EXIT_INVALID = 2


def _fail(error: GenMatrixError) -> None:
    for problem in error.problems:
        click.echo(f"error: {problem}", err=True)
    sys.exit(EXIT_INVALID)


_MATRIX = click.option("--matrix", "matrix", type=click.Path(dir_okay=False), default=None,
                       help="The matrix file [default: ROOT/matrix.yaml].")
_ROOT = click.option("--root", "root", type=click.Path(file_okay=False), default=None,
                     help="The repository to write into [default: the matrix's folder, else the working folder].")


def project_options(command):
    """--matrix and --root, on the group and on every command."""

    @_MATRIX
    @_ROOT
    @functools.wraps(command)
    def wrapper(*args, matrix=None, root=None, **kwargs):
        parent = click.get_current_context().find_root().params
        project = layout.locate(matrix or parent.get("matrix"), root or parent.get("root"))
        try:
            return command(project, *args, **kwargs)
        except GenMatrixError as error:
            _fail(error)

    return wrapper


def _warn(warnings) -> None:
    for warning in warnings:
        click.echo(f"warning: {warning}", err=True)


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@_MATRIX
@_ROOT
@click.version_option(package_name="gen-matrix")
@click.pass_context
def main(ctx: click.Context, matrix, root) -> None:
    """Expand matrix.yaml into Flox recipes for custom PyTorch builds.

    Without a command, runs `generate`.
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(generate)


def _expansion(project: layout.Project):
    from . import run

    expansion = run.expansion(project)
    _warn(expansion.warnings)
    return expansion


def _plan(project: layout.Project, expansion, cut_short=None):
    """How the tree differs from what the matrix generates."""
    from . import run
    from .pipeline import write

    return write.plan(project.root, run.outputs(project, expansion), cut_short, run.inputs(expansion))


@main.command()
@project_options
def generate(project: layout.Project) -> None:
    """Validate the matrix, render every output and write what changed."""
    from .pipeline import lock, write

    # The matrix is read first: it is what shows the repository, and nothing (not the lock)
    # is written before the repository is known.
    expansion = _expansion(project)
    with lock.held(project.root) as this_run:
        plan = _plan(project, expansion, this_run.cut_short)
        write.apply(plan, this_run.token)
    _warn(plan.kept)
    click.echo(f"gen-matrix: {len(expansion.variants)} variants; {len(plan.write)} written, "
               f"{len(plan.unchanged)} unchanged, {len(plan.remove)} removed"
               + (f", {len(plan.kept)} kept" if plan.kept else ""))


@main.command()
@project_options
def check(project: layout.Project) -> None:
    """Exit 1, with a diff, if the tree differs from what the matrix generates."""
    from .pipeline import write

    plan = _plan(project, _expansion(project))
    if plan.current:
        click.echo(f"gen-matrix: {len(plan.outputs)} generated files are current")
        return
    click.echo(write.report(plan), nl=False)
    click.echo(f"gen-matrix: {len(plan.write)} files differ or are missing, {len(plan.remove)} are no longer "
               f"in the matrix; run `gen-matrix` to update them"
               + (f"; {len(plan.kept)} gen-matrix leaves alone, named above with what to do" if plan.kept else ""),
               err=True)
    sys.exit(EXIT_DRIFT)


def _kind_axes(command):
    """The axis filters of `list`: each may be given more than once."""
    options = [
        click.option("--kind", "kinds", multiple=True, type=click.Choice(KIND_CHOICES),
                     help="gpu, cpu, darwin (torch itself) or companion (torchvision, torchaudio)."),
        click.option("--python", multiple=True, metavar="VERSION", help="e.g. 3.13"),
        click.option("--cuda", multiple=True, metavar="VERSION", help="e.g. 12.8"),
        click.option("--sm", multiple=True, metavar="SM",
                     help='an SM, its compute capability or a GPU name: sm_90, sm90, 90, 9.0 or "H100"'),
        click.option("--isa", multiple=True, metavar="ISA", help="e.g. avx512"),
        click.option("--accelerator", multiple=True, metavar="NAME", help="e.g. mps"),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@main.command("list")
@_kind_axes
@click.option("--format", "output", type=click.Choice(["names", "table", "json"]), default="names",
              show_default=True, help="names: one a line, for scripts; table: aligned columns; json.")
@project_options
def list_(project: layout.Project, kinds, python, cuda, sm, isa, accelerator, output) -> None:
    """List the variants, filtered on any axis.

    Values of one option: any of them; of several options: all of them.
    """
    from .commands import listing
    from . import run

    expansion = run.expansion(project)
    chosen = listing.make_filter(expansion.matrix.knowledge, kinds=kinds, python=python, cuda=cuda,
                                 sm=sm, isa=isa, accelerator=accelerator)
    variants = listing.select(expansion, chosen)
    if output == "json":
        click.echo(json.dumps([listing.facts(expansion.matrix, v) for v in variants], indent=2))
    elif output == "table":
        for line in listing.aligned(listing.table(expansion.matrix, variants)):
            click.echo(line)
    else:
        for variant in variants:
            click.echo(variant.name)


@main.command()
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print the facts as JSON.")
@project_options
def show(project: layout.Project, name, as_json) -> None:
    """Everything about one variant.

    Axes, GPUs, CPUs, flags, switches, minimum driver, platforms, file, build command.
    """
    from .commands import listing
    from . import run
    from .pipeline import render

    expansion = run.expansion(project)
    facts = listing.facts(expansion.matrix, listing.find(expansion, name, project.display))
    if as_json:
        click.echo(json.dumps(facts, indent=2))
    else:
        click.echo(render.environment(False).get_template("show.txt.j2").render(**facts), nl=False)


@main.command()
@click.option("--gpu", metavar="NAME", help='Ask about a GPU without having it: "RTX 5070", sm_120, sm120, 120 or 12.0.')
@click.option("--no-gpu", is_flag=True, help="Leave any GPU aside: recommend a CPU-only variant.")
@click.option("--nvidia-smi-output", type=click.Path(dir_okay=False), metavar="FILE",
              help="Captured output of `nvidia-smi --query-gpu=name,compute_cap,driver_version "
                   "--format=csv,noheader` instead of running it.")
@click.option("--cpuinfo", type=click.Path(dir_okay=False), metavar="FILE",
              help="A captured /proc/cpuinfo instead of this machine's.")
@click.option("--cpu-flags", metavar="FLAGS",
              help="The CPU's flags, as /proc/cpuinfo and archspec name them (\"avx avx2 fma f16c\"), for a "
                   "machine without /proc/cpuinfo: on Windows or macOS, what `python -c \"import archspec.cpu; "
                   "print(*sorted(archspec.cpu.host().features))\"` prints [default: this machine's, by archspec].")
@click.option("--uname", metavar="TEXT",
              help='What `uname -sm` prints, e.g. "Darwin arm64" or "Windows AMD64" [default: this machine].')
@click.option("--json", "as_json", is_flag=True, help="Print the recommendation as JSON.")
@project_options
def detect(project: layout.Project, gpu, no_gpu, nvidia_smi_output, cpuinfo, cpu_flags, uname, as_json) -> None:
    """Recommend the variant for this machine.

    Prints its name, then the reasons; warnings go to stderr. Exit 1 when none fits.
    """
    from .commands import detect as detect_, host
    from . import run

    expansion = run.expansion(project)
    gpus, source = None, ""
    if no_gpu:
        gpus, source = (), "no GPU asked about: --no-gpu"
    elif gpu is not None:
        gpus, source = (detect_.gpu_from_query(expansion.matrix.knowledge, gpu),), "--gpu"
    machine = host.gather(uname=uname, cpuinfo=Path(cpuinfo) if cpuinfo else None, cpu_flags=cpu_flags,
                          nvidia_smi_output=Path(nvidia_smi_output) if nvidia_smi_output else None,
                          gpus=gpus, gpu_source=source)
    result = detect_.recommend(machine, expansion)
    if as_json:
        click.echo(json.dumps(detect_.as_json(result), indent=2))
    else:
        click.echo(result.variant.name if result.variant else "no variant of the matrix fits this host")
        for reason in result.reasons:
            click.echo(f"  {reason}")
        if result.variant:
            click.echo(f"  build: {detect_.build_command(result)}")
        _warn(result.warnings)
    if result.variant is None:
        sys.exit(EXIT_DRIFT)


@main.command()
@click.argument("name")
@click.option("--python", "python", type=click.Path(dir_okay=False), metavar="PATH",
              help="The interpreter to test [default: ROOT/python-NAME/bin/python, from `nix-build .flox/pkgs/NAME.nix -A pythonEnv -o python-NAME`].")
@click.option("--cpuinfo", type=click.Path(dir_okay=False), metavar="FILE",
              help="A captured /proc/cpuinfo to check the ISA against instead of this machine's.")
@project_options
def smoke(project: layout.Project, name, python, cpuinfo) -> None:
    """Check a built variant in its Python.

    Python, PyTorch and CUDA versions, the SM, the CPU and a small computation; exit 1 on a failure.
    """
    from .commands import host, listing, smoke as smoke_
    from . import run

    expansion = run.expansion(project)
    variant = listing.find(expansion, name, project.display)
    interpreter = smoke_.interpreter(python) if python else smoke_.default_python(project.root, variant)
    machine = host.gather(cpuinfo=Path(cpuinfo) if cpuinfo else None, gpus=(), gpu_source="not asked")
    facts = smoke_.probe(interpreter, variant.name)
    results = smoke_.checks(expansion.matrix, variant, facts, machine)
    click.echo(f"smoke test of {variant.name} with {interpreter}"
               + (f" (Python {facts['python']})" if facts.get("python") else ""))
    width = max(len(check.name) for check in results)
    for check in results:
        click.echo(f"{'PASS' if check.ok else 'FAIL'}  {check.name.ljust(width)}  {check.detail}")
    failed = [check for check in results if not check.ok]
    click.echo(f"gen-matrix: {len(results) - len(failed)} of {len(results)} checks passed"
               + (f", {len(failed)} failed" if failed else ""))
    if failed:
        sys.exit(EXIT_DRIFT)


@main.command()
@click.argument("name")
@click.option("--shell", type=click.Choice(SHELLS), default="bash", show_default=True,
              help="bash (Linux, GCC or Clang flags), cmd or powershell (Windows, MSVC /arch: flags).")
@project_options
def env(project: layout.Project, name, shell) -> None:
    """A script that builds a variant without Nix, in a PyTorch source checkout.

    It stops on an nvcc too old (or too new) for the SM and, on Windows, outside an MSVC x64
    prompt; sets the architecture and the variant's switches; removes a CMake cache left by
    another architecture; sets MAX_JOBS from the cores and memory; then builds.
    """
    from .commands import buildenv, listing
    from . import run

    expansion = run.expansion(project)
    variant = listing.find(expansion, name, project.display)
    click.echo(buildenv.script(expansion.matrix, variant, shell), nl=False)


@main.command()
@click.option("--changed-since", "since", metavar="REF", default=None,
              help="Only the variants whose build inputs or metadata changed since this git revision.")
@click.option("--shard-size", type=click.IntRange(1, 256), default=None,
              help="Variants per shard [default: ci.shard_size in matrix.yaml, 256].")
@click.option("--shard", type=click.IntRange(min=0), default=None, metavar="K",
              help="Print only shard K as a value for strategy.matrix (empty past the last shard).")
@click.option("--shards", "list_shards", is_flag=True, help="Print the indices of the non-empty shards.")
@click.option("--summary", is_flag=True,
              help="Print the plan in Markdown: builds by kind and the estimated build-hours.")
@project_options
def ci(project: layout.Project, since, shard_size, shard, list_shards, summary) -> None:
    """Print the GitHub Actions build matrix as JSON: every variant, or those changed since REF.

    Variants whose metadata alone changed are marked metadata_only; variants in the state at
    REF but no longer in the matrix are listed under "deleted".
    """
    from .commands import ci as ci_
    from . import run

    if sum((shard is not None, list_shards, summary)) > 1:
        raise click.UsageError("--shard, --shards and --summary exclude each other")
    expansion = run.expansion(project)
    _warn(expansion.warnings)
    now = {recipe.variant.name: recipe.entry for recipe in run.recipes(project, expansion)}
    before = ci_.committed_state(project.root, since) if since is not None else None
    selection = ci_.select(expansion, now, before)
    shards = selection.shards(shard_size or expansion.matrix.ci.shard_size)
    if summary:
        click.echo(ci_.summary(expansion, selection), nl=False)
        return
    if list_shards:
        document = list(range(len(shards)))
    elif shard is not None:
        document = ci_.matrix_json(shards[shard] if shard < len(shards) else ())
    else:
        document = selection.as_json()
    click.echo(json.dumps(document, separators=(",", ":")))


@main.command()
@click.argument("name", required=False)
@click.option("--sm", help='An SM: sm_61, sm61, 61, its capability 6.1, or a GPU name ("GTX 1080").')
@click.option("--cuda", help="A CUDA release, e.g. 12.8; releases nixpkgs no longer packages (11.8 to 12.5) too.")
@click.option("--isa", help="A CPU instruction set, e.g. avx2.")
@click.option("--python", help="A Python version, e.g. 3.13.")
@click.option("--accelerator", help="An Apple GPU back end, e.g. mps.")
@click.option("--pytorch", "pytorch", metavar="VERSION",
              help="Also say what PyTorch VERSION's release notes allow of the given CUDA, Python and SM, e.g. 2.6.")
@click.option("--kind", type=click.Choice(["gpu", "cpu", "darwin"]),
              help="The kind of variant [default: every kind that has the given axes].")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@project_options
def explain(project: layout.Project, name, sm, cuda, isa, python, accelerator, pytorch, kind, as_json) -> None:
    """Show a variant's resolved values and the rule that put it in the matrix, or, for a
    combination (--sm 6.1 --cuda 13.0 --isa avx2), the rules that keep it out.

    Axes left out take every value of the matrix; with no NAME and no axis, every
    combination of the matrix is listed."""
    from .commands import explain as explain_
    from . import run

    given = {axis: value for axis, value in
             (("python", python), ("cuda", cuda), ("sm", sm), ("isa", isa), ("accelerator", accelerator))
             if value is not None}
    if name is not None and (given or kind or pytorch):
        raise click.UsageError("give a variant NAME or axis options, not both")
    expansion = run.expansion(project, allow_empty=True)
    _warn(expansion.warnings)
    result = (explain_.by_name(expansion, name) if name is not None
              else explain_.by_values(expansion, given, kind))
    if pytorch is not None:
        result = dataclasses.replace(result, pytorch=explain_.for_pytorch(expansion, pytorch, given))
    if as_json:
        click.echo(json.dumps(explain_.as_json(result), indent=2))
    else:
        click.echo(explain_.text(result), nl=False)

