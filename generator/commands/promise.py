"""What a build promises, axis by axis, for `smoke` to check: a matrix variant's, or a hand
build's (one a `gen-matrix env` script made), by the name the script printed or by the axes
given, where an axis left out is not checked."""

from __future__ import annotations


from ..errors import GenMatrixError, Location
from ..knowledge import Accelerator, Isa, Knowledge, OtherGpu, Sm
from ..model import Matrix, Variant
from ..records import dataclass


@dataclass(frozen=True)
class Promise:
    """What a build promises, axis by axis; None where it promises nothing, which is then not
    checked."""

    name: str
    knowledge: Knowledge
    what: str  # what the details call it: "variant", "build"
    pytorch: str | None  # a version (2.8.0) or a release line (2.8)
    python: str | None
    with_cuda: bool | None  # False: a CPU-only or Mac build
    cuda: str | None = None
    sm: Sm | None = None
    isa: Isa | None = None
    accelerator: Accelerator | None = None
    rocm: str | None = None  # the ROCm release (6.4) of a ROCm build, which has no CUDA
    gfx: OtherGpu | None = None  # its gfx target


def promise_of(matrix: Matrix, variant: Variant) -> Promise:
    return Promise(variant.name, matrix.knowledge, "variant", matrix.pytorch_version, variant.python.name,
                   variant.cuda is not None, variant.cuda.name if variant.cuda else None, variant.sm, variant.isa,
                   variant.accelerator, variant.rocm.name if variant.rocm else None, variant.gfx)


def hand_promise(knowledge: Knowledge, name: str, pytorch: str | None, python: str | None, cuda: str | None,
                 sm: Sm | None, isa: Isa | None, cpu_only: bool) -> Promise:
    """A build no matrix made: an `env` script's, by its name (which says CPU-only where it
    has no SM) or by the axes given (which say nothing of CUDA unless --cuda or an SM is)."""
    with_cuda = True if cuda or sm else False if cpu_only else None
    return Promise(name, knowledge, "build", pytorch, python, with_cuda, cuda, sm, isa)


def hand_build(knowledge: Knowledge, name: str | None, gpu: str | None, cuda: str | None, isa: str | None,
               pytorch: str | None, where: str, variants: tuple[str, ...] | None) -> Promise:
    """The promise of a build no matrix made: by `name`, as a `gen-matrix env` script names
    its build, or by the axes given. `variants` are the names of the matrix at `where` that
    `name` is not one of; None where there is no matrix."""
    from . import handbuild
    from .listing import axis_value
    from ..pipeline.schema import suggest

    if name is not None:
        named = handbuild.axes_of_name(knowledge, name)
        if named is None:
            not_env = "and it is not the name of a build `gen-matrix env` writes a script for"
            raise GenMatrixError.at(
                Location(where),
                f"no variant is called '{name}' in the matrix, {not_env}" if variants is not None
                else f"no matrix here, so no variant is called '{name}'; {not_env}",
                (suggest(name, variants) + "; " if variants and suggest(name, variants) else "")
                + ("`gen-matrix list` names the variants; " if variants is not None else "")
                + "an env script prints the name of its build, as `gen-matrix env --gpu ... --cuda ... "
                  "--pytorch ...` made it; or describe the build with --gpu, --cuda, --isa, --pytorch")
        return hand_promise(knowledge, name, named.pytorch, named.python, named.cuda, named.sm, named.isa,
                            cpu_only=True)
    sm = knowledge.sm[axis_value(knowledge, "sm", gpu, "--gpu")] if gpu else None
    isa_row = knowledge.isa[axis_value(knowledge, "isa", isa, "--isa")] if isa else None
    if cuda is not None and knowledge.cuda_release(cuda.strip()) is None:
        raise GenMatrixError.at(Location("--cuda"), f"unknown CUDA release '{cuda}'",
                                f"the knowledge table knows CUDA {', '.join(handbuild.cuda_releases(knowledge))}")
    if pytorch is not None:
        handbuild.pytorch_release(knowledge, pytorch)
    cuda, pytorch = cuda and cuda.strip(), pytorch and pytorch.strip()
    described = [part for part in (sm and sm.name, cuda and f"CUDA {cuda}", isa_row and isa_row.name,
                                   pytorch and f"PyTorch {pytorch}") if part]
    return hand_promise(knowledge, f"the hand build for {', '.join(described)}", pytorch, None, cuda, sm, isa_row,
                        cpu_only=False)
