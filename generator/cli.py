"""The gen-matrix command line: exit 0 ok, 1 drift, 2 invalid input."""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
import sys
import time
from pathlib import Path

import click

from . import layout
from .errors import GenMatrixError, Location, one_line
from .escape import SHELLS
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


HINT = "\n  hint: "


def _own_lines(text: str) -> str:
    """A warning or note as gen-matrix writes it: its own hint line kept, and every other line
    break, which only text from outside can bring, written as \\n (one_line)."""
    return HINT.join(one_line(part) for part in text.split(HINT))


def _warn(warnings, notes=()) -> None:
    for warning in warnings:
        click.echo(_own_lines(f"warning: {warning}"), err=True)
    for note in notes:
        click.echo(_own_lines(f"note: {note}"), err=True)


class Minutes(click.ParamType):
    """A time limit: a finite number of minutes above zero (nan and inf are no limit a user means)."""

    name = "minutes"

    def convert(self, value, param, ctx) -> float:
        try:
            minutes = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of minutes", param, ctx)
        if not math.isfinite(minutes) or minutes <= 0:
            self.fail(f"{value!r} is not a time limit: give a finite number of minutes above 0", param, ctx)
        return minutes


def _version() -> str:
    """gen-matrix's version: its installed distribution's, else (run from a source tree, with
    `python -m generator`) pyproject.toml's beside the package."""
    import importlib.metadata

    try:
        return importlib.metadata.version("gen-matrix")
    except importlib.metadata.PackageNotFoundError:
        import tomlkit

        pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
        try:
            return str(tomlkit.parse(pyproject.read_text(encoding="utf-8"))["project"]["version"]) + " (source tree)"
        except (OSError, KeyError, ValueError):
            return "unknown (not installed)"


def _print_version(ctx: click.Context, _param, value: bool) -> None:
    """--version, worked out only when asked (importlib.metadata is a tenth of the imports)."""
    if value and not ctx.resilient_parsing:
        click.echo(f"gen-matrix, version {_version()}")
        ctx.exit()


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@_MATRIX
@_ROOT
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version and exit.")
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
    _warn(expansion.warnings, expansion.notes)
    return expansion


def _warn_unpinned(project: layout.Project, expansion, shown: str, text: str) -> None:
    """Where nothing pins the repository's gen-matrix, say so, at the matrix `shown` whose
    text is `text`: its workflow cannot run."""
    from . import pin, run

    _warn([warning for warning in [pin.unknown_warning(run.source(project, expansion), shown, text)] if warning])


def _plan(project: layout.Project, expansion, cut_short=None, adoptable=frozenset()):
    """How the tree differs from what the matrix generates."""
    from . import run

    return run.plan(project, expansion, cut_short, adoptable)


@main.command()
@click.option("--adopt", is_flag=True,
              help="Take over hand-written files where the matrix generates its own (recipes, after `gen-matrix "
                   "adopt`): only those committed to git unchanged, whose text git keeps; each is named.")
@project_options
def generate(project: layout.Project, adopt) -> None:
    """Validate the matrix, render every output and write what changed."""
    from .pipeline import lock, write

    # The matrix is read first: it is what shows the repository, and nothing (not the lock)
    # is written before the repository is known.
    expansion = _expansion(project)
    if adopt:
        from .commands import adopt as adopt_
        adoptable = adopt_.committed_files(project.root)
    else:
        adoptable = frozenset()
    from . import run

    with lock.held(project.root) as this_run:
        plan = _plan(project, expansion, this_run.cut_short, adoptable)
        stale = run.stale_lock(project.root, {path: plan.outputs[path] for path in plan.write})
        write.apply(plan, this_run.token)
    for relative in plan.adopted:
        click.echo(f"adopted {relative}: gen-matrix's replaces the hand-written one (`git show HEAD:{relative}`)")
    _warn(plan.kept + ((stale,) if stale else ()))
    _warn_unpinned(project, expansion, project.display,
                   project.matrix_path.read_text(encoding="utf-8", errors="replace"))
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
@click.option("--no-upstream-wheel", "only_here", is_flag=True,
              help="Only the variants no wheel of PyTorch's own (of the matrix's release, for the variant's Python "
                   "and system) runs on: what only this matrix gives.")
@project_options
def list_(project: layout.Project, kinds, python, cuda, sm, isa, accelerator, output, only_here) -> None:
    """List the variants, filtered on any axis.

    Values of one option: any of them; of several options: all of them.
    """
    from .commands import listing
    from . import run

    expansion = run.expansion(project)
    chosen = listing.make_filter(expansion.matrix.knowledge, kinds=kinds, python=python, cuda=cuda,
                                 sm=sm, isa=isa, accelerator=accelerator)
    variants = listing.select(expansion, chosen)
    if only_here:
        variants = tuple(v for v in variants if listing.upstream_wheel(expansion.matrix, v) is None)
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
    from .templating import environment

    expansion = run.expansion(project)
    facts = listing.facts(expansion.matrix, listing.find(expansion, name, project.display))
    if as_json:
        click.echo(json.dumps(facts, indent=2))
    else:
        click.echo(environment(False).get_template("show.txt.j2").render(**facts), nl=False)


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
@click.option("--python", "python", metavar="PATH",
              help="The Python interpreter the build is for: the variants of its Python version are preferred.")
@click.option("--json", "as_json", is_flag=True, help="Print the recommendation as JSON.")
@click.option("--name", "name_only", is_flag=True,
              help="Print only the name of the matrix's variant for this machine (for scripts).")
@project_options
def detect(project: layout.Project, gpu, no_gpu, nvidia_smi_output, cpuinfo, cpu_flags, uname, python,
           as_json, name_only) -> None:
    """Say what gets this machine its PyTorch, and recommend the matrix's variant for it.

    The first line is the command to run: PyTorch's own wheel where one runs on the GPU (pip,
    then its uv twin), else the build. Then the variant and the reasons; warnings go to
    stderr. --name prints the variant's name alone. Exit 1 when no variant fits.
    """
    from .commands import detect as detect_, host
    from . import run

    expansion, read = run.expansion_or_example(project)
    gpus, source = None, ""
    if no_gpu:
        gpus, source = (), "no GPU asked about: --no-gpu"
    elif gpu is not None:
        gpus, source = (detect_.gpu_from_query(expansion.matrix.knowledge, gpu),), "--gpu"
    machine = host.gather(uname=uname, cpuinfo=Path(cpuinfo) if cpuinfo else None, cpu_flags=cpu_flags,
                          nvidia_smi_output=Path(nvidia_smi_output) if nvidia_smi_output else None,
                          gpus=gpus, gpu_source=source)
    version, chosen_python, python_warning = None, None, None
    if python:
        from .commands import smoke as smoke_
        expansion, version, chosen_python, python_warning = detect_.for_python(expansion, smoke_.interpreter(python))
    result = detect_.recommend(machine, expansion, version)
    if python_warning:
        result = dataclasses.replace(result, warnings=result.warnings + (python_warning,))
    here = project.matrix_given or os.path.lexists(project.matrix_path)
    if as_json:
        click.echo(json.dumps({**detect_.as_json(result, here), "matrix": read}, indent=2))
    elif name_only:
        if result.variant:
            click.echo(result.variant.name)
        _warn(result.warnings)
    else:
        from .commands.terminal import width, wrap

        answer = detect_.answer(result, here)
        # the answer's commands, its unindented lines, are printed whole to be copied whole
        commands = [line for line in answer if not line.startswith(" ")]
        lines = [line for line in answer if line.startswith(" ")]
        lines.append(f"  variant: {result.variant.name}" if result.variant
                     else "  no variant of the matrix fits this host")
        if chosen_python:
            lines.append(f"  {chosen_python}")
        lines += [f"  {reason}" for reason in result.reasons]
        if result.variant:
            lines.append(f"  build: {detect_.build_note(result, detect_.build_command(result, here))}")
        click.echo("\n".join([*commands, wrap("\n".join(lines), width())]))
        _warn(result.warnings)
        click.echo(f"matrix: {read}", err=True)
    if result.variant is None:
        sys.exit(EXIT_DRIFT)


@main.command()
@click.argument("name", required=False)
@click.option("--python", "python", type=click.Path(dir_okay=False), metavar="PATH",
              help="The interpreter to test [default for a variant: ROOT/python-NAME/bin/python, from `nix-build "
                   ".flox/pkgs/NAME.nix -A pythonEnv -o python-NAME`; needed for a hand build].")
@click.option("--gpu", "--sm", "gpu", metavar="GPU",
              help="Without NAME: the SM a hand build is for, as a GPU's name (\"RTX 5070\"), an SM (sm_120) or a "
                   "capability (12.0).")
@click.option("--cuda", metavar="VERSION", help="Without NAME: the CUDA release a hand build is for, e.g. 12.8.")
@click.option("--isa", metavar="ISA", help="Without NAME: the CPU instruction set a hand build is for, e.g. avx2.")
@click.option("--pytorch", metavar="VERSION", help="Without NAME: the PyTorch release or version, e.g. 2.8.0.")
@click.option("--cuobjdump", "cuobjdump", metavar="PATH",
              help="NVIDIA's cuobjdump, to read the GPU code torch's libraries hold [default: on PATH, beside nvcc, "
                   "or in CUDA_HOME or CUDA_PATH].")
@click.option("--cpuinfo", type=click.Path(dir_okay=False), metavar="FILE",
              help="A captured /proc/cpuinfo of the CPU to check the ISA against instead of this machine's.")
@click.option("--cpu-flags", metavar="FLAGS",
              help="That CPU's flags as /proc/cpuinfo or archspec name them, where there is no cpuinfo.")
@click.option("--result", type=click.Path(file_okay=False), metavar="PATH",
              help="The build to read .metadata-rev from [default: ROOT/result-NAME, the link `flox build NAME` leaves].")
@click.option("--builder", is_flag=True,
              help="This machine built the variant and need not run it (CI): a CPU without the variant's "
                   "instruction set skips what needs it rather than failing, and the versions come from the files.")
@project_options
def smoke(project: layout.Project, name, python, gpu, cuda, isa, pytorch, cuobjdump, cpuinfo, cpu_flags, result,
          builder) -> None:
    """Check a built variant, or a hand build, in its Python.

    NAME is a variant of the matrix, or the name a `gen-matrix env` script gives its build
    (pytorch-2.8.0-python311-cuda12_9-sm120); without NAME, --gpu, --cuda, --isa and --pytorch
    describe a hand build, and what they leave out is not checked. Python, PyTorch and CUDA
    versions, the compiled SM and the GPU code the libraries hold (by cuobjdump), the CPU and
    the kernels torch dispatches to, a small computation (on the GPU where there is one), a
    companion's import, and the metadata revision. Exit 1 on a failure; a check this machine
    cannot tell is SKIP, not a failure.
    """
    from .commands import cuobjdump as cuobjdump_, host, promise as promise_, smoke as smoke_
    from . import knowledge as knowledge_, run

    if cpuinfo and cpu_flags:
        raise click.UsageError("--cpuinfo and --cpu-flags exclude each other")
    axes = {"--gpu": gpu, "--cuda": cuda, "--isa": isa, "--pytorch": pytorch}
    given = [option for option, value in axes.items() if value is not None]
    if name is not None and given:
        raise click.UsageError(f"give a NAME or the axes of a hand build ({', '.join(given)}), not both")
    if name is None and not given:
        raise click.UsageError("give a variant NAME, the name a `gen-matrix env` script gives its build, or the "
                               "axes of a hand build: --gpu, --cuda, --isa, --pytorch")
    variant, expansion = None, None
    if name is not None and (project.matrix_given or os.path.lexists(project.matrix_path)):
        expansion = run.expansion(project)
        variant = expansion.by_name.get(name)
    if variant is not None:
        promise = promise_.promise_of(expansion.matrix, variant)
        interpreter = smoke_.interpreter(python) if python else smoke_.default_python(project.root, variant)
        hint = smoke_.build_hint(variant.name)
    else:
        knowledge = expansion.matrix.knowledge if expansion else knowledge_.build(knowledge_.builtin())
        promise = promise_.hand_build(knowledge, name, gpu, cuda, isa, pytorch, project.display,
                                    tuple(v.name for v in expansion.variants) if expansion else None)
        if python is None:
            raise GenMatrixError.at(Location("--python"), f"no interpreter to test {promise.name}",
                                    "give --python PATH: the Python the build was installed into")
        if result is not None:
            raise GenMatrixError.at(Location("--result"), f"{promise.name} is no build of a gen-matrix recipe, so "
                                                          "it has no metadata revision to read", "leave --result out")
        interpreter = smoke_.interpreter(python)
        hint = "give --python PATH: the Python the build was installed into"
    machine = host.gather(cpuinfo=Path(cpuinfo) if cpuinfo else None, cpu_flags=cpu_flags, gpus=(),
                          gpu_source="not asked")
    modules = smoke_.companion_modules(variant) if variant else ()
    tool = cuobjdump_.find(cuobjdump)
    facts = smoke_.probe(interpreter, hint, modules)
    results = smoke_.checks(promise, facts, machine, modules, builder)
    code = cuobjdump_.gpu_code(promise, facts, tool)
    if code is not None:
        results += (code,)
    if variant and ("torch" in facts or (facts.get("files") or {}).get("torch")):  # the build, not only its Python
        (recipe,) = (r for r in run.recipes(project, expansion) if r.variant.name == variant.name)
        built = Path(result).absolute() if result else smoke_.default_result(project.root, variant)
        if built is not None:
            results += (smoke_.metadata(built, recipe.entry.revision),)
    # What the interpreter printed and the files read are shown on its line, never obeyed by the terminal.
    click.echo(one_line(f"smoke test of {promise.name} with {interpreter}"
                        + (f" (Python {facts['python']})" if facts.get("python") else "")))
    width = max(len(check.name) for check in results)
    for check in results:
        click.echo(one_line(f"{check.state}  {check.name.ljust(width)}  {check.detail}"))
    described_by = f"--cpuinfo {cpuinfo}" if cpuinfo else "--cpu-flags" if cpu_flags else None
    for note in smoke_.notes(promise.knowledge, facts, machine, described_by):
        click.echo(one_line(f"NOTE  {note}"))
    counts = {state: sum(check.state == state for check in results) for state in (smoke_.PASS, smoke_.FAIL, smoke_.SKIP)}
    click.echo(f"gen-matrix: {counts[smoke_.PASS]} of {len(results)} checks passed"
               + (f", {counts[smoke_.FAIL]} failed" if counts[smoke_.FAIL] else "")
               + (f", {counts[smoke_.SKIP]} could not be told here (SKIP)" if counts[smoke_.SKIP] else ""))
    if counts[smoke_.FAIL]:
        sys.exit(EXIT_DRIFT)


_NIXPKGS = click.option(
    "--nixpkgs", "nixpkgs", multiple=True, metavar="[PIN=]PATH", envvar="GEN_MATRIX_NIXPKGS",
    help="Evaluate against this nixpkgs (a checkout, or a package set such as tests/nix/nixpkgs) instead of "
         "fetching the pins: PATH for every pin, PIN=PATH for one; may be repeated [env: GEN_MATRIX_NIXPKGS].")


@main.command("eval")
@click.argument("names", nargs=-1, metavar="[NAME]...")
@_NIXPKGS
@click.option("--json", "as_json", is_flag=True, help="Print a list of {name, kind, drv, heavy_drv, error}.")
@click.option("--time-limit", "time_limit", type=Minutes(), default=30.0, show_default=True, metavar="MINUTES",
              help="Every evaluation together ends by then; the recipes not evaluated are named, as failing.")
@project_options
def eval_(project: layout.Project, names, nixpkgs, as_json, time_limit) -> None:
    """Evaluate recipes with nix-instantiate: each against its pin, fetched as `flox build`
    fetches it, for the system that builds it.

    Prints one line per recipe (the heavy build's drvPath and the wrapper's, or the first
    line of Nix's error), then the counts. Exit 0 when every recipe evaluates, 1 when one
    does not, 2 for bad input. Without NAME, every recipe of the matrix.
    """
    from .commands import eval as eval_command, listing
    from . import run

    expansion = run.expansion(project)
    variants = (tuple(listing.find(expansion, name, project.display) for name in dict.fromkeys(names)) if names
                else tuple(sorted(expansion.variants, key=lambda v: v.name)))
    sets = eval_command.package_sets(expansion.matrix, nixpkgs)
    targets = eval_command.targets(expansion, project.root, variants, sets)
    deadline = time.monotonic() + time_limit * 60
    results = eval_command.evaluate(targets, eval_command.nix_instantiate(), deadline=deadline)
    found = eval_command.counts(results)
    if as_json:
        click.echo(json.dumps([result.as_json() for result in results], indent=2))
    else:
        for result in results:
            click.echo(eval_command.line(result))
    click.echo(eval_command.report(found), err=as_json)
    if found.failed:
        sys.exit(EXIT_DRIFT)


@main.command()
@click.argument("name", required=False)
@click.option("--shell", type=click.Choice(SHELLS), default="bash", show_default=True,
              help="bash (Linux or macOS, GCC or Clang flags), cmd or powershell (x64 Windows, MSVC /arch: flags).")
@click.option("--gpu", "--sm", "gpu", metavar="GPU",
              help='Without NAME: the GPU to build for, as nvidia-smi names it ("Tesla K40c"), an SM (sm_35) or a '
                   "capability (3.5).")
@click.option("--cuda", metavar="VERSION", help="Without NAME: the CUDA release, e.g. 11.4 [default: the newest that works].")
@click.option("--pytorch", metavar="VERSION",
              help="Without NAME: the PyTorch release or version, e.g. 1.12.1 [default: the newest that works].")
@click.option("--python", metavar="VERSION", help="Without NAME: the Python version, e.g. 3.9 [default: the newest "
                                                  "the PyTorch release supports].")
@click.option("--isa", metavar="ISA", help="Without NAME: the CPU instruction set, e.g. avx2 [default: the compiler's].")
@click.option("--detect", is_flag=True, help="Without NAME: the GPU, CPU and Python of this machine (axes given win).")
@click.option("--wheel", is_flag=True, help="Build a wheel (python -m build --wheel) rather than an editable install.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write the script to FILE, in the bytes its shell reads: cmd as ASCII with CRLF, PowerShell as "
                   "UTF-8 with a byte order mark (Windows PowerShell 5.1's > writes UTF-16, which cmd cannot run).")
@click.option("--force", is_flag=True, help="With -o: replace FILE even where it is a file gen-matrix env did not write.")
@project_options
def env(project: layout.Project, name, shell, gpu, cuda, pytorch, python, isa, detect, wheel, output, force) -> None:
    """A script that builds PyTorch without Nix, in a PyTorch source checkout.

    For a variant NAME of the matrix, or for the axes given (--gpu, --cuda, --pytorch, --python,
    --isa, --detect), checked against the knowledge table: a combination that cannot work
    exits 2 with the reason and the nearest one that works. The script checks the Python, the
    checkout, MSVC x64 on Windows, the CUDA toolkit (too old for the SM or too new for PyTorch),
    the host compiler and cuDNN before it installs the requirements; says why each switch it
    turns off is off; launches the compilers through ccache or sccache where one is on PATH;
    removes a CMake cache configured with other switches; caps MAX_JOBS by memory; then builds.
    -o FILE writes it in the bytes its shell reads, never through a link or into a FIFO or a
    device, and over a file only one env wrote (or with --force).
    """
    from .commands import buildenv, handbuild, listing
    from . import knowledge as knowledge_, run
    from .pipeline import load

    axes = {"--gpu": gpu, "--cuda": cuda, "--pytorch": pytorch, "--python": python, "--isa": isa}
    given = [option for option, value in axes.items() if value is not None] + (["--detect"] if detect else [])
    if name is not None and given:
        raise click.UsageError(f"give a variant NAME or the axes ({', '.join(given)}), not both")
    if name is None and not given:
        raise click.UsageError("give a variant NAME of the matrix, or the axes of a build: --gpu, --cuda, --pytorch, "
                               "--python, --isa, or --detect")
    if name is not None:
        # no matrix here: the shipped example stands in, as for detect and explain, whose names these are
        expansion, read = run.expansion_or_example(project)
        if name not in expansion.by_name and read != project.display:
            raise GenMatrixError.at(Location(read), f"no variant named {name!r}",
                                    "run in the folder of your matrix or give --matrix FILE; without a matrix, "
                                    "describe the build with --gpu, --cuda, --pytorch, --python, --isa or --detect")
        variant = listing.find(expansion, name, project.display)
        target = buildenv.target_of(expansion.matrix, variant, shell, wheel)
        if read != project.display:
            click.echo(f"matrix: {read}", err=True)
    else:
        read = project.display if project.matrix_path.is_file() else None
        knowledge = (run.expansion(project, allow_empty=True).matrix.knowledge if read
                     else knowledge_.build(knowledge_.builtin()))
        if detect:
            gpu, isa, python = handbuild.detected(knowledge, gpu, isa, python)
        target = handbuild.resolve(knowledge, handbuild.Asked(gpu, cuda, pytorch, python, isa, shell, wheel, output))
    text = buildenv.script(target, shell)
    # the matrix the script was made from, read again only where the script holds text beyond
    # ASCII: a character cmd cannot read is shown where it is written there
    sources = load.read(project.matrix_path, read).texts() if read == project.display and not text.isascii() else ()
    text = buildenv.readable(text, shell, sources)
    if output is None:
        click.echo(text, nl=False)
    else:
        buildenv.write_script(Path(output), text, shell, force)
        click.echo(f"wrote {output}", err=True)


@main.command()
@click.option("--changed-since", "since", metavar="REF", default=None,
              help="Only the variants whose build inputs or metadata changed since this git revision.")
@click.option("--by", type=click.Choice(["text", "derivations"]), default="text", show_default=True,
              help="How --changed-since compares: text, the build identities in matrix.state.json (offline); "
                   "derivations, what the recipes evaluate to at REF and now (nix-instantiate, which fetches "
                   "the pins unless --nixpkgs is given).")
@_NIXPKGS
@click.option("--selection", "selection_file", type=click.Path(dir_okay=False, exists=True), metavar="FILE",
              help="Read the selection from FILE, as `gen-matrix ci` printed it, instead of making it again.")
@click.option("--shard-size", type=click.IntRange(1, 256), default=None,
              help="Variants per shard [default: ci.shard_size in matrix.yaml, 256].")
@click.option("--shard", type=click.IntRange(min=0), default=None, metavar="K",
              help="Print only shard K as a value for strategy.matrix (empty past the last shard).")
@click.option("--shards", "list_shards", is_flag=True, help="Print the indices of the non-empty shards.")
@click.option("--summary", is_flag=True,
              help="Print the plan in Markdown: builds by kind and the estimated build-hours.")
@click.option("--names", "list_names", is_flag=True, help="Print the name of every build, one a line.")
@click.option("--plan", "plan_dir", type=click.Path(file_okay=False), metavar="DIR",
              help="Write the whole plan of a CI run into DIR, from one selection: github-output (the shards, "
                   "for $GITHUB_OUTPUT), summary.md, plan.json (every selected name and why), and the "
                   "evaluation of the recipes (eval.txt, eval-errors.txt). DIR is new, empty, or a folder --plan "
                   "wrote before.")
@click.option("--organisation", default="", metavar="ORG",
              help="The Flox organisation the wrappers are published to, where metadata-only builds fetch "
                   "their heavy build (empty: none, unless ci.cache has a substituter).")
@click.option("--compared-with", "compared_with", default=None, metavar="TEXT",
              help="What the selection was compared with, in words, for the summary and plan.json.")
@click.option("--measured", "measured_path", type=click.Path(), default=None, metavar="DIR_OR_FILE",
              help="Build costs the build jobs measured (their gen-matrix-measured-* artifacts: a folder of "
                   "them, or one file): the estimate takes each build's own last measurement, else the mean of "
                   "its kind's, and knowledge.build_costs only where nothing was measured.")
@click.option("--time-limit", "time_limit", type=Minutes(), default=None, metavar="MINUTES",
              help="With --by derivations: evaluate for at most MINUTES; the recipes not evaluated by then are "
                   "compared by their text identity, and the summary and plan.json name them.")
@project_options
def ci(project: layout.Project, since, by, nixpkgs, selection_file, shard_size, shard, list_shards, summary,
       list_names, plan_dir, organisation, compared_with, measured_path, time_limit) -> None:
    """Print the GitHub Actions build matrix as JSON: every variant, or those changed since REF.

    Variants whose metadata alone changed are marked metadata_only; variants in the state at
    REF but no longer in the matrix are listed under "deleted".
    """
    from .commands import ci as ci_
    from . import run

    if sum((shard is not None, list_shards, summary, list_names, plan_dir is not None)) > 1:
        raise click.UsageError("--shard, --shards, --summary, --names and --plan exclude each other")
    if selection_file is not None and (since is not None or by != "text"):
        raise click.UsageError("--selection reads a selection made before: leave out --changed-since and --by")
    if time_limit is not None and by != "derivations":
        raise click.UsageError("--time-limit bounds the evaluation of --by derivations: give both")
    expansion = run.expansion(project)
    _warn(expansion.warnings)
    from .commands import measured as measured_

    measured = {} if measured_path is None else measured_.read(Path(measured_path), measured_path)
    if selection_file is not None:
        from .pipeline import load

        selection = ci_.read_selection(expansion, load.read_text(Path(selection_file), selection_file) or "",
                                       selection_file)
    else:
        if plan_dir is not None:  # a plan refuses more shards than a run holds: at once, where that is sure
            ci_.fits_before_evaluating(expansion, project.root, since, shard_size or expansion.matrix.ci.shard_size)
        now = {recipe.variant.name: recipe.entry for recipe in run.recipes(project, expansion)}
        selection = ci_.selection(expansion, project.root, now, since, by, nixpkgs, time_limit)
    size = shard_size or expansion.matrix.ci.shard_size
    shards = selection.shards(size)
    if plan_dir is not None:
        ci_.write_plan(expansion, selection, Path(plan_dir), size, organisation or None, compared_with, measured)
        return
    if summary:
        click.echo(ci_.summary(expansion, selection, organisation or None, compared_with, measured), nl=False)
        return
    if list_names:
        for name in selection.builds:
            click.echo(name)
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
@click.option("--sm", "--gpu", "sm", help='An SM: sm_61, sm61, 61, its capability 6.1, or a GPU name ("GTX 1080"); '
              "with it, which of PyTorch's own wheels run on it and what a build from source gives.")
@click.option("--cuda", help="A CUDA release, e.g. 12.8; releases nixpkgs no longer packages (10.2 to 12.5) too.")
@click.option("--isa", help="A CPU instruction set, e.g. avx2.")
@click.option("--python", help="A Python version, e.g. 3.13.")
@click.option("--accelerator", help="An Apple GPU back end, e.g. mps.")
@click.option("--rocm", help="A ROCm release of a rocm variant, e.g. 6.4.")
@click.option("--gfx", help="An AMD gfx target of a rocm variant, e.g. gfx942.")
@click.option("--pytorch", "pytorch", metavar="VERSION",
              help="Also say what PyTorch VERSION's release notes allow of the given CUDA, Python and SM, e.g. 2.6.")
@click.option("--kind", type=click.Choice(["gpu", "cpu", "darwin", "rocm"]),
              help="The kind of variant [default: every kind that has the given axes].")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@project_options
def explain(project: layout.Project, name, sm, cuda, isa, python, accelerator, rocm, gfx, pytorch, kind,
            as_json) -> None:
    """Show a variant's resolved values and the rule that put it in the matrix, or, for a
    combination (--sm 6.1 --cuda 13.0 --isa avx2), the rules that keep it out.

    Axes left out take every value of the matrix; with no NAME and no axis, every
    combination of the matrix is listed."""
    from .commands import explain as explain_
    from . import run

    given = {axis: value for axis, value in
             (("python", python), ("cuda", cuda), ("sm", sm), ("isa", isa), ("accelerator", accelerator),
              ("rocm", rocm), ("gfx", gfx))
             if value is not None}
    if name is not None and (given or kind or pytorch):
        raise click.UsageError("give a variant NAME or axis options, not both")
    expansion, read = run.expansion_or_example(project, allow_empty=True)
    # no matrix here: the shipped example stands in, and its notes are not the user's
    example = None if project.matrix_given or os.path.lexists(project.matrix_path) else read.rsplit(" ", 1)[-1]
    if example is None:
        _warn(expansion.warnings, expansion.notes)
    other = explain_.other_gpu(expansion.matrix.knowledge, sm) if sm is not None and name is None else None
    if other is not None:  # an AMD, Intel or Apple GPU: its target and PyTorch's own wheels, no SM
        built = tuple(v.name for v in expansion.variants if v.gfx is not None and v.gfx.name == other.name
                      and not v.is_companion)
        if as_json:
            click.echo(json.dumps({"gpu": sm, "target": other.name, "backend": other.kind, "family": other.family,
                                   "source": other.source, "text": explain_.other_text(
                                       expansion.matrix.knowledge, sm, other, python, built), "matrix": read}, indent=2))
        else:
            click.echo(explain_.other_text(expansion.matrix.knowledge, sm, other, python, built), nl=False)
            click.echo(f"matrix: {read}", err=True)
        return
    result = (explain_.by_name(expansion, name) if name is not None
              else explain_.by_values(expansion, given, kind, pytorch))
    if pytorch is not None:
        result = dataclasses.replace(result, pytorch=explain_.for_pytorch(expansion, pytorch, given))
    if as_json:
        click.echo(json.dumps({**explain_.as_json(result), "matrix": read}, indent=2))
    else:
        from .commands.terminal import width, wrap

        click.echo(wrap(explain_.text(result, example), width()), nl=False)
        click.echo(f"matrix: {read}", err=True)



@main.command()
@click.argument("path", type=click.Path(file_okay=False))
@click.option("--write", "write_", is_flag=True, help="Write matrix.yaml in the repository (and nothing else).")
@click.option("--pytorch-version", metavar="VERSION",
              help="The PyTorch version of the recipes' nixpkgs, where they build its own (no source override); "
                   "by default the torch the knowledge table says their pin holds.")
@click.option("--nixpkgs-rev", metavar="REV",
              help="The nixpkgs revision for recipes that pin none (written for callPackage).")
def adopt(path, write_, pytorch_version, nixpkgs_rev) -> None:
    """Infer the matrix.yaml of a folder of hand-written recipes.

    PATH is a repository or its .flox/pkgs folder. Prints the matrix, how many of the
    recipes' names it reproduces, per recipe what it cannot carry over and what `generate`
    would change. Without --write nothing is written.
    """
    from .commands import adopt as adopt_

    try:
        result = adopt_.adopt(Path(path), pytorch_version, nixpkgs_rev)
        root = adopt_.repository_root(Path(path))
        if write_:
            from .pipeline import write

            target = root / adopt_.MATRIX_FILE
            if os.path.isfile(target) and not os.path.islink(target):
                raise GenMatrixError.at(adopt_.Location(str(target)), "a matrix is already there",
                                        "move it aside to adopt the recipes again")
            write.create_new(target, result.text, str(target))
    except GenMatrixError as error:
        _fail(error)
    click.echo(adopt_.report(result), nl=False)
    if write_:
        click.echo(f"gen-matrix: wrote {root / adopt_.MATRIX_FILE}; commit it with the recipes, then "
                   f"`gen-matrix generate --adopt --root {root}` replaces each recipe by gen-matrix's, naming it")


@main.command()
@click.argument("directory", required=False, default=".", type=click.Path(file_okay=False))
@click.option("--example", metavar="NAME", help="Start from this example's matrix [default: the newest].")
@click.option("--detect", "for_host", is_flag=True,
              help="A matrix for this machine alone: the variant `detect` recommends, and its neighbours.")
@click.option("--nvidia-smi-output", type=click.Path(dir_okay=False), metavar="FILE",
              help="Captured nvidia-smi output instead of running it (for --detect and the first build suggested).")
@click.option("--cpuinfo", type=click.Path(dir_okay=False), metavar="FILE",
              help="A captured /proc/cpuinfo instead of this machine's.")
@click.option("--uname", metavar="TEXT", help='What `uname -sm` prints, e.g. "Darwin arm64" [default: this machine].')
@click.option("--gen-matrix", "gen_matrix", metavar="FLAKE",
              help="The gen-matrix the repository's Flox environment and workflow run, as ci.gen_matrix: a flake "
                   "reference pinned to a commit, e.g. github:gen-matrix/gen-matrix/<commit> [default: the commit this "
                   "gen-matrix was built from, where it records one].")
def init(directory, example, for_host, nvidia_smi_output, cpuinfo, uname, gen_matrix) -> None:
    """Create a matrix repository in DIRECTORY: matrix.yaml, the Flox environment, the
    workflow and a README with the generated tables, generated and committed to git on the
    branch the workflow publishes from.

    The repository is made beside DIRECTORY and moved into place only when all of it was
    made: a failure leaves nothing behind. Into a folder that exists, only paths it does not
    hold yet are moved, and named; a path already there is an error. Refuses a folder that
    already holds a matrix or a git repository.
    """
    from .commands import host, init as init_
    from .pipeline import lock, write

    if example and for_host:
        raise click.UsageError("--example and --detect exclude each other")
    root = Path(directory)
    try:
        init_.require_git()
        init_.refuse_existing(root)
        base = example or init_.examples()[-1]
        text = None if for_host else init_.example_text(base)
        captured = dict(uname=uname, cpuinfo=Path(cpuinfo) if cpuinfo else None,
                        nvidia_smi_output=Path(nvidia_smi_output) if nvidia_smi_output else None)
        try:
            machine = host.gather(**captured)
        except GenMatrixError as error:
            if for_host or any(captured.values()):
                raise
            machine = init_.this_machine(error)  # only the first build suggested needs more
        if for_host:
            text, _ = init_.detected_text(machine, base)
        text = init_.pinned(text, gen_matrix)
        with init_.staged(root) as stage:
            project, expansion = init_.create(stage, text)
            _warn(expansion.warnings, expansion.notes)
            with lock.held(project.root) as this_run:
                plan = _plan(project, expansion, this_run.cut_short)
                write.apply(plan, this_run.token)
            fallback = init_.commit(stage.folder, expansion.matrix.ci.main_branch,
                                    f"A matrix of PyTorch builds, from gen-matrix's example {base}"
                                    + (" for this machine" if for_host else ""))
            first_run = init_.first_run(expansion, project)
            moved = stage.place()
    except GenMatrixError as error:
        _fail(error)
    shown = init_.shown(root)
    _warn_unpinned(project, expansion, os.path.join(shown, "matrix.yaml"), text)
    click.echo(f"gen-matrix init: {shown} holds {len(expansion.variants)} variants; {len(plan.write)} files "
               f"written and committed on {expansion.matrix.ci.main_branch}")
    if moved:
        click.echo(f"moved into the existing folder, beside what it held: {' '.join(moved)}")
    if fallback:
        _warn((), (init_.amend_hint(root),))
    click.echo(f"first CI run: {first_run.jobs} build jobs, one per torch variant ({first_run.torches})"
               + (f" with its {first_run.companions} companions" if first_run.companions else "")
               + f"; about {first_run.hours:.1f} build-hours (estimated from knowledge.build_costs; "
               "`gen-matrix ci --summary` itemises it)")
    name, why = init_.first_build(expansion, machine)
    click.echo("next:")
    from . import run

    for step in init_.next_steps(name and name.name, why, expansion, run.source(project, expansion), text):
        click.echo(f"  {step}")
