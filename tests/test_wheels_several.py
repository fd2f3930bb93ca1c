"""Which of PyTorch's own binaries run on a GPU, for arch lists of several entries and GPUs
of the whole knowledge table: a list serves a GPU as its best entry alone does (the nearest
SASS, else the nearest PTX), whatever the order its entries are written in."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from generator import knowledge as K

KNOWLEDGE = K.build(K.builtin())
CAPABILITIES = sorted({sm.capability for sm in KNOWLEDGE.sm.values()}, key=K.version_key)
ENTRY = st.tuples(st.sampled_from(CAPABILITIES), st.sampled_from(["", "a", "f"]), st.booleans()).map(
    lambda parts: f"{parts[0]}{parts[1]}{'+PTX' if parts[2] else ''}")


@settings(max_examples=80, deadline=None)
@given(st.lists(ENTRY, min_size=2, max_size=8, unique=True), st.sampled_from(CAPABILITIES), st.randoms())
def test_an_arch_list_serves_as_its_best_entry_alone_in_any_order(entries, capability, random):
    alone = {entry: K.serves(entry, capability) for entry in entries}
    runs = K.serves(";".join(entries), capability)
    shuffled = list(entries)
    random.shuffle(shuffled)
    assert K.serves(" ; ".join(shuffled), capability) == runs
    sass = [r for r in alone.values() if r is not None and r.how == K.SASS]
    ptx = [(entry, r) for entry, r in alone.items() if r is not None and r.how == K.PTX]
    if sass:  # SASS wins, the nearest (newest that runs) of them
        assert runs.how == K.SASS
        assert runs.target in {r.target for r in sass}
        assert K.version_key(runs.target.rstrip("af")) == max(K.version_key(r.target.rstrip("af")) for r in sass)
    elif ptx:
        assert runs.how == K.PTX and runs.target in {entry for entry, _ in ptx}
        assert K.version_key(runs.target.removesuffix("+PTX").rstrip("af")) == max(
            K.version_key(entry.removesuffix("+PTX").rstrip("af")) for entry, _ in ptx)
    else:
        assert runs is None


@settings(max_examples=10, deadline=None)
@given(st.sampled_from(sorted(KNOWLEDGE.sm)))
def test_each_gpu_gets_every_release_cuda_and_index_whose_wheels_run_there_once_newest_first(name):
    sm = KNOWLEDGE.sm[name]
    fits = K.wheels_for(KNOWLEDGE, sm)
    # several systems of one wheel are one fit, where their libraries lack the same code for it
    keys = [(f.release.name, f.cuda, f.index, f.runs, f.gaps) for f in fits]
    assert len(keys) == len(set(keys))
    releases = [K.version_key(f.release.name) for f in fits]
    assert releases == sorted(releases, reverse=True)
    for fit in fits:  # every system with a wheel of that release, CUDA and index that serves the GPU so
        assert set(fit.systems) == {w.system for w in fit.release.wheels
                                    if w.cuda == fit.cuda and w.index == fit.index
                                    and K.serves(w.arch, sm.capability) == fit.runs
                                    and w.system.split("-")[0] in sm.hosts
                                    and tuple(g for g in w.gaps if g.lacks_capability(sm.capability)) == fit.gaps}
        assert list(fit.systems) == sorted(fit.systems)


def test_the_table_has_wheels_of_several_systems_for_one_gpu():
    """What the property above needs to mean anything: fits of more than one system."""
    assert any(len(fit.systems) > 1 for fit in K.wheels_for(KNOWLEDGE, KNOWLEDGE.sm["sm90"]))
