"""smoke's `code` check over several libraries, each holding several architectures: a
property of the verdict (every library must hold code the GPU runs, and a failure names
each one that does not, and no other) and of reading cuobjdump's listings line by line."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from generator import knowledge as knowledge_
from generator.commands import cuobjdump

KNOWLEDGE = knowledge_.build(knowledge_.builtin())
ARCHS = ["sm_50", "sm_61", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100f", "sm_120"]
GPUS = ["sm61", "sm75", "sm80", "sm86", "sm89", "sm90", "sm100", "sm103", "sm120"]
NAMES = ["libc10_cuda.so", "libtorch_cuda.so", "libtorch_cuda_linalg.so", "libtorch_nvshmem.so", "libcaffe2.so"]
LIBRARY = st.tuples(st.frozensets(st.sampled_from(ARCHS), max_size=4), st.frozensets(st.sampled_from(ARCHS), max_size=2))


@settings(max_examples=60, deadline=None)
@given(st.lists(LIBRARY, min_size=2, max_size=len(NAMES)), st.sampled_from(GPUS))
def test_the_verdict_fails_exactly_the_libraries_that_hold_no_code_the_gpu_runs(libraries, gpu):
    sm = KNOWLEDGE.sm[gpu]
    folder = Path("/torch")
    held = tuple(cuobjdump.Held(folder / "lib" / name, sass, ptx) for name, (sass, ptx) in zip(NAMES, libraries))
    check = cuobjdump.code_verdict(sm, held, (), folder)
    lacking = [h.library.name for h in held
               if not any(cuobjdump.runs_on(a, sm, False) for a in h.sass)
               and not any(cuobjdump.runs_on(a, sm, True) for a in h.ptx)]
    assert check.state == ("FAIL" if lacking else "PASS")
    if lacking:
        assert check.detail.startswith(f"{', '.join(lacking)} {'holds' if len(lacking) == 1 else 'hold'} neither")
    for library in held:  # every library is listed with what it holds
        assert f"{library.library.name} (SASS " in check.detail
    # one library alone is judged as it is among the others
    for library in held:
        alone = cuobjdump.code_verdict(sm, (library,), (), folder).state
        assert alone == ("FAIL" if library.library.name in lacking else "PASS")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["ELF", "PTX"]), st.sampled_from(ARCHS)), min_size=2, max_size=12))
def test_every_line_of_a_listing_is_read_whatever_its_neighbours(entries):
    lines = [f"{kind} file {index:>4}: libtorch_cuda.{index}.{arch}.{'cubin' if kind == 'ELF' else 'ptx'}"
             for index, (kind, arch) in enumerate(entries, 1)]
    noise = "cuobjdump info    : File 'libtorch_cuda.so' does not contain device code of another kind"
    sass, ptx = cuobjdump.parse("\n".join([noise, *lines, ""]))
    assert sass == {arch for kind, arch in entries if kind == "ELF"}
    assert ptx == {arch for kind, arch in entries if kind == "PTX"}
