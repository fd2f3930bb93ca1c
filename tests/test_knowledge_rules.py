"""Rules of the knowledge table read on their own: a workaround's CUDA condition, a value
typed as its token, when CUDA minor-version compatibility gains anything, a pin's default
capabilities, an Apple GPU back end beside an instruction set, and when a build fix applies."""

from __future__ import annotations

import pytest

from generator import knowledge as K


@pytest.fixture(scope="module")
def table():
    return K.build(K.builtin())


@pytest.mark.parametrize("cuda, applies", [("12.8", False), ("13.0", True), ("13.1", True), (None, False)])
def test_a_workaround_for_a_cuda_range_applies_to_the_releases_in_it(cuda, applies):
    workaround = K.Workaround(name="w", why="", source="", when={"cuda": ">=13.0"}, pip=(), env=(), cmake=())
    assert workaround.applies({"cuda": cuda, "pytorch": "2.9.0", "system": "Linux"}) is applies


@pytest.mark.parametrize("axis, text, name", [("cuda", "12_8", "12.8"), ("cuda", " 12.8 ", "12.8"),
                                              ("python", "313", "3.13"), ("python", "3_13", None),
                                              ("cuda", "12_7", None)])
def test_a_cuda_or_python_release_is_found_by_its_token_as_variant_names_spell_it(table, axis, text, name):
    assert table.lookup(axis, text) == name


def test_minor_version_compatibility_is_offered_only_where_it_asks_less_than_the_release_itself(table):
    runs = K.Runs("12.0", K.SASS)
    # CUDA 12.0's own driver is 525.60.13, the floor of CUDA 12's minor-version compatibility: it gains nothing
    assert table.toolkit["12.0"].driver == table.minor_compat["12"].driver
    assert K._compat(table, "12.0", runs, table.toolkit["12.0"], None) is None
    assert K._compat(table, "12.8", runs, table.cuda["12.8"], None) == table.minor_compat["12"]
    assert K._compat(table, "12.8", K.Runs("12.0", K.PTX), table.cuda["12.8"], None) is None


def test_a_pins_default_capabilities_are_those_read_at_it_else_its_cuda_releases_else_none(table):
    pin = K.PinFacts(name="0" * 40, torch="2.8.0", sources={}, capabilities={"12.8": ("9.0",)})
    assert pin.default_capabilities("12.8", table.cuda) == ("9.0",)
    assert pin.default_capabilities("13.0", table.cuda) == table.cuda["13.0"].capabilities != ()
    assert pin.default_capabilities("11.8", table.cuda) == ()


def test_an_apple_gpu_back_end_rules_out_an_instruction_set_of_another_architecture(table):
    mps = table.accelerator["mps"]
    assert K.why_not_rows({"isa": table.isa["avx2"], "accelerator": mps}) == "mps runs on aarch64; avx2 is x86_64"
    assert K.why_not_rows({"isa": table.isa["armv8_2"], "accelerator": mps}) is None


@pytest.mark.parametrize("facts, applies", [
    ({"pytorch": "2.10.0", "cuda": "13.0", "source": True, "kind": "gpu"}, True),
    ({"pytorch": "2.9.1", "cuda": "13.0", "source": True, "kind": "gpu"}, False),   # PyTorch out of range
    ({"pytorch": "2.10.0", "cuda": None, "source": True, "kind": "gpu"}, False),    # no CUDA
    ({"pytorch": "2.10.0", "cuda": "13.0", "source": False, "kind": "gpu"}, False),  # no source set
    ({"pytorch": "2.10.0", "cuda": "13.0", "source": True, "kind": "cpu"}, False),   # another kind
])
def test_a_fix_applies_where_every_condition_holds(facts, applies):
    fix = K.Fix(name="f", why="", when={"pytorch": ">=2.10", "cuda": ">=13.0", "source": True, "kind": ["gpu"]})
    assert fix.applies(facts) is applies
    assert K.Fix(name="f", why="", when={}, enabled=False).applies(facts) is False


def test_other_wheels_serve_a_gpu_named_in_their_list_of_its_kind_and_are_unknown_where_none_was_read():
    rocm = K.OtherGpu(name="gfx942", kind="rocm", family="CDNA3", gpus=(), source="")
    other_rocm = K.OtherGpu(name="gfx1100", kind="rocm", family="RDNA3", gpus=(), source="")
    xpu = K.OtherGpu(name="pvc", kind="xpu", family="Ponte Vecchio", gpus=(), source="")
    other_xpu = K.OtherGpu(name="bmg", kind="xpu", family="Battlemage", gpus=(), source="")
    mps = K.OtherGpu(name="mps", kind="mps", family="Apple", gpus=(), source="")
    read = K.OtherWheels(name="2.9", rocm="6.4", gfx="gfx90a;gfx942", xpu="pvc,dg2")
    assert [read.serves(gpu) for gpu in (rocm, other_rocm, xpu, other_xpu, mps)] == [True, False, True, False, None]
    for unread in (K.OtherWheels(name="2.9", rocm="6.4"), K.OtherWheels(name="2.9", rocm="6.4", xpu="")):
        assert [unread.serves(gpu) for gpu in (rocm, other_rocm, xpu, other_xpu)] == [None] * 4


def test_with_a_driver_on_windows_no_wheel_whose_windows_driver_the_table_lacks_is_suggested(table):
    for sm in ("sm80", "sm90"):
        fits = K.wheels_for(table, table.sm[sm], "x86_64-windows")
        assert any(not fit.driver_for("Windows") for fit in fits) and any(fit.driver_for("Windows") for fit in fits)
        for driver in ("581.15", "999.99"):
            best = K.best_wheel(fits, driver, "Windows")
            assert best.driver_for("Windows") and K.driver_meets(driver, best.driver_for("Windows")), (sm, driver)


def test_a_library_gap_is_a_finding_about_the_cuda_release(table):
    # PyTorch's own wheels whose bundled library lacks code for an SM they name: a note about
    # the CUDA release, which `env` and `explain` weigh as they weigh the CUDA release's notes.
    # The shipped table has one such gap (2.11's CUDA 13.0 linalg on sm75); a second, made here,
    # lacks two entries.
    import dataclasses
    from types import MappingProxyType

    gap = K.LibraryGap(library="libtorch_cuda_fft.so", lacks="8.6; 8.9", holds="torch.fft's GPU kernels", source="t")
    wheel = K.Wheel("12.8", "x86_64-linux", "pip", "8.0;8.6;8.9;9.0", "t", gaps=(gap,))
    release = K.Release(name="2.9", python=("3.10", "3.14"), cuda=("12.8",), wheels=(wheel,), latest="2.9.1")
    table = dataclasses.replace(table, pytorch=MappingProxyType({**table.pytorch, "2.9": release}))
    gaps = {(release.name, wheel.cuda, sm.name) for release in table.pytorch.values() for wheel in release.wheels
            for sm in table.sm.values() for gap in wheel.gaps if gap.lacks_capability(sm.capability)}
    assert gaps == {("2.11", "13.0", "sm75"), ("2.9", "12.8", "sm86"), ("2.9", "12.8", "sm89")}
    for name, cuda, sm in sorted(gaps):
        found = [f for f in K.findings(table, sm=table.sm[sm], cuda=cuda, pytorch=name) if "holds no code for it" in f.text]
        assert len(found) == 1 and (found[0].level, found[0].axis) == (K.NOTE, "cuda"), (name, cuda, sm)
    # an SM the gap does not lack has no such finding
    assert not any("holds no code" in f.text for f in K.findings(table, sm=table.sm["sm90"], cuda="12.8", pytorch="2.9"))


def test_pytorchs_rocm_wheels_serve_a_gfx_target_their_list_names_for_a_python_of_their_release(table):
    # the shipped table has read 2.13's gfx list; 2.12's is set here, naming two targets
    import dataclasses
    from types import MappingProxyType

    wheels = dict(table.other_wheels)
    wheels["2.12"] = dataclasses.replace(wheels["2.12"], gfx="gfx90a;gfx942")
    table = dataclasses.replace(table, other_wheels=MappingProxyType(wheels))
    unlisted = K.OtherGpu(name="gfx803", kind="rocm", family="GCN 3", gpus=(), source="")
    asked = {(release, python, gfx.name): K.upstream_rocm_for(table, release, python, gfx)
             for release in ("2.11", "2.12", "2.13", "9.9") for python in ("3.9", "3.13")
             for gfx in (table.gfx["gfx942"], table.gfx["gfx1100"], unlisted)}
    assert {key: answer for key, answer in asked.items() if answer is not None} == {
        ("2.11", "3.13", "gfx942"): "unknown", ("2.11", "3.13", "gfx1100"): "unknown",
        ("2.11", "3.13", "gfx803"): "unknown",
        ("2.12", "3.13", "gfx942"): "rocm7.2 (pip)", ("2.13", "3.13", "gfx942"): "rocm7.2 (pip)",
        ("2.13", "3.13", "gfx1100"): "rocm7.2 (pip)"}


def test_without_a_gpu_a_build_needs_the_cuda_releases_own_driver_and_no_branch_bounds_it(table):
    for cuda in ("11.8", "12.8"):
        for system in ("Linux", "Windows"):
            own = table.cuda_release(cuda).driver_for(system)
            assert own and K.driver_need(table, None, cuda, system) == K.DriverNeed(cuda, own, own, None)
    # and with Kepler, whose last branch is R470, CUDA 11.8's own (520) is past it
    assert K.driver_need(table, table.sm["sm35"], "11.8", "Linux").driver == table.minor_compat["11"].driver


def test_a_builds_switches_turn_cuda_on_with_a_gpu_and_off_what_its_sm_and_instruction_set_cannot_run(table):
    # the recipes and `env` set these; an SM current cuDNN left out (Kepler to Volta) builds
    # without cuDNN, an instruction set without AVX2 without FBGEMM and oneDNN
    sms = (None, table.sm["sm35"], table.sm["sm70"], table.sm["sm90"], table.sm["sm120"])
    isas = (None, table.isa["avx"], table.isa["avx2"], table.isa["armv8_2"])
    for sm in sms:
        for isa in isas:
            for accelerator in (None, table.accelerator["mps"]):
                values = K.switches(sm, isa, accelerator)
                assert list(values) == sorted(values)
                assert values["USE_CUDA"] == ("1" if sm else "0")
                assert values.get("USE_CUDNN") == (None if sm is None else "1" if sm.cudnn else "0")
                assert values.get("USE_MPS") == ("1" if accelerator else None)
                off = {name.removeprefix("USE_") for name, value in values.items() if value == "0"} - {"CUDA"}
                assert K.disabled_features(sm, isa) == tuple(sorted(off))
                assert off == set(isa.disable if isa else ()) | ({"CUDNN"} if sm and not sm.cudnn else set())
    assert K.switches(table.sm["sm35"], table.isa["avx"], None) == {
        "USE_CUDA": "1", "USE_CUDNN": "0", "USE_FBGEMM": "0", "USE_MKLDNN": "0", "USE_MKLDNN_CBLAS": "0",
        "USE_NNPACK": "0"}
    assert K.switches(None, table.isa["armv8_2"], table.accelerator["mps"]) == {"USE_CUDA": "0", "USE_MPS": "1"}
    assert K.disabled_features(None, table.isa["avx"]) == ("FBGEMM", "MKLDNN", "MKLDNN_CBLAS", "NNPACK")


def test_why_a_combination_of_names_cannot_work_weighs_its_table_rows_and_never_its_python(table):
    assert {str(sorted(c.items())): table.why_not(c) for c in (
        {"sm": "sm35", "cuda": "12.8"}, {"sm": "sm120", "cuda": "12.6"}, {"sm": "sm35", "isa": "armv8_2"},
        {"sm": "sm87", "cuda": "13.0", "isa": "avx"}, {"isa": "avx2", "accelerator": "mps"},
        {"sm": "sm90", "cuda": "12.8", "isa": "avx2", "python": "3.12"}, {"sm": "sm120", "cuda": "12.8"})} == {
        "[('cuda', '12.8'), ('sm', 'sm35')]":
            "sm35 (Kepler) was dropped after CUDA 11.8; this asks for 12.8, which is too new",
        "[('cuda', '12.6'), ('sm', 'sm120')]":
            "sm120 (Blackwell consumer) needs CUDA >= 12.8; this asks for 12.6, which is too old",
        "[('isa', 'armv8_2'), ('sm', 'sm35')]":
            "sm35 (Kepler) is found only on x86_64 hosts; armv8_2 is an aarch64 instruction set",
        "[('cuda', '13.0'), ('isa', 'avx'), ('sm', 'sm87')]":
            "sm87 (Ampere Orin) is a Jetson part, found only on aarch64 hosts; avx is an x86_64 instruction set",
        "[('accelerator', 'mps'), ('isa', 'avx2')]": "mps runs on aarch64; avx2 is x86_64",
        "[('cuda', '12.8'), ('isa', 'avx2'), ('python', '3.12'), ('sm', 'sm90')]": None,
        "[('cuda', '12.8'), ('sm', 'sm120')]": None}


def test_the_upstream_wheel_of_a_build_is_its_releases_cpu_or_cuda_wheel_for_its_python_and_systems(table):
    # 2.15 has CUDA wheels for Linux alone in the table: on Windows what shipped is unknown,
    # beside Linux (either first) Linux's is the one;
    # sm87 (Jetson) has no wheel of PyTorch's own; a Python outside the release has none
    linux, windows = ("x86_64-linux",), ("x86_64-windows",)
    every = (linux, windows, linux + windows, windows + linux)
    sms = {"cpu": None, "sm87": table.sm["sm87"], "sm90": table.sm["sm90"], "sm120": table.sm["sm120"]}
    asked = {(release, python, sm, systems): K.upstream_for(table, release, python, systems, gpu)
             for release in ("2.9", "2.15", "9.9") for python in ("3.9", "3.13") for sm, gpu in sms.items()
             for systems in every}
    assert {key: answer for key, answer in asked.items() if answer is not None} == {
        **{(release, "3.13", "cpu", systems): "cpu" for release in ("2.9", "2.15")
           for systems in every},
        **{("2.9", "3.13", "sm90", systems): "cu126 (pip)" for systems in every},
        **{("2.9", "3.13", "sm120", systems): "cu128 (pip)" for systems in every},
        **{("2.15", "3.13", sm, systems): "cu132 (pip)" for sm in ("sm90", "sm120")
           for systems in (linux, linux + windows, windows + linux)},
        ("2.15", "3.13", "sm90", windows): "unknown", ("2.15", "3.13", "sm120", windows): "unknown"}
    # an AMD GPU's are its ROCm wheels, whatever the SM given
    for gfx in (table.gfx["gfx942"], table.gfx["gfx1100"]):
        for release in ("2.11", "2.13"):
            assert K.upstream_for(table, release, "3.13", linux, table.sm["sm90"], gfx) \
                == K.upstream_rocm_for(table, release, "3.13", gfx)
    assert K.upstream_for(table, "2.13", "3.13", linux, None, table.gfx["gfx942"]) == "rocm7.2 (pip)"


def test_each_finding_names_the_axis_it_is_about_the_weightiest_first(table):
    # explain and env mark the value a finding is about (its axis): the CUDA release nvcc cannot
    # build for the SM, the instruction set of another architecture, the PyTorch release too old
    # for the SM, a Python or CUDA release outside the release's source or wheels
    asked = {
        ("sm35", "12.8", "2.9.1", "3.9", "armv8_2"): [(K.CANNOT, "cuda"), (K.CANNOT, "isa"), (K.SOURCE, "python"),
                                                     (K.NOTE, "cuda")],
        ("sm120", "12.6", "2.6.0", "3.14", "avx2"): [(K.CANNOT, "cuda"), (K.CANNOT, "pytorch"), (K.SOURCE, "python"),
                                                    (K.NOTE, "cuda")],
        ("sm90", "13.1", "2.8.0", "3.13", None): [(K.SOURCE, "cuda")],
        (None, "12.6", "2.15.0", "3.10", None): [(K.SOURCE, "python"), (K.NOTE, "cuda")],
        ("sm90", "12.8", "2.9.1", "3.13", "avx2"): [],
        ("sm35", None, None, None, "avx2"): [],
    }
    for (sm, cuda, pytorch, python, isa), expected in asked.items():
        found = K.findings(table, sm=table.sm[sm] if sm else None, cuda=cuda, pytorch=pytorch, python=python,
                           isa=table.isa[isa] if isa else None)
        assert [(f.level, f.axis) for f in found] == expected, (sm, cuda, pytorch, python, isa)
        assert all(isinstance(f.text, str) and f.text for f in found), (sm, cuda, pytorch, python, isa)
    # and each carries the rule's own words
    sm120 = table.sm["sm120"]
    assert [f.text for f in K.findings(table, sm=sm120, cuda="12.6", pytorch="2.6.0")][:2] == [
        "sm120 (Blackwell consumer) needs CUDA >= 12.8; this asks for 12.6, which is too old",
        "sm120 (Blackwell consumer) needs PyTorch >=2.7; PyTorch 2.6.0's source does not build for it"]


def test_a_releases_note_on_a_cuda_release_lists_the_ones_its_wheels_are_built_for_and_the_experimental(table):
    tail = "a build from source with it is untested upstream"
    assert {(release, cuda): table.pytorch[release].cuda_support(cuda)
            for release in ("2.9", "2.11") for cuda in ("12.8", "12.9", "13.0")} == {
        ("2.9", "12.8"): None, ("2.9", "13.0"): None, ("2.11", "12.8"): None, ("2.11", "13.0"): None,
        ("2.9", "12.9"):
            f"PyTorch 2.9's own wheels are built for CUDA 12.6, 12.8 (experimental: 13.0), not 12.9: {tail}",
        ("2.11", "12.9"): f"PyTorch 2.11's own wheels are built for CUDA 12.6, 12.8, 13.0, not 12.9: {tail}"}


def test_wheels_are_listed_newest_release_first_then_oldest_cuda_release_pip_before_conda(table):
    for sm in ("sm61", "sm80"):
        for system in (None, "x86_64-linux"):
            fits = K.wheels_for(table, table.sm[sm], system)
            keys = [(tuple(-n for n in K.version_key(f.release.name)), K.version_key(f.cuda), f.index != "pip")
                    for f in fits]
            assert keys == sorted(keys), (sm, system)
            # several releases ship one CUDA release's wheels by both, conda's listed first in the table
            both = {(f.release.name, f.cuda) for f in fits if f.index == "conda"} \
                & {(f.release.name, f.cuda) for f in fits if f.index == "pip"}
            assert len(both) >= 2, (sm, system)


def test_a_rocm_release_rules_out_a_gfx_target_it_does_not_build_for_and_an_isa_of_another_host(table):
    import dataclasses

    rocm, older = table.rocm["6.4"], dataclasses.replace(table.rocm["6.4"], name="6.3")
    hosts = "nixpkgs builds ROCm 6.4 for x86_64 hosts only"
    asked = {
        ("6.4", None, "armv8_2"): f"{hosts}; armv8_2 is aarch64", ("6.4", None, "armv9"): f"{hosts}; armv9 is aarch64",
        ("6.4", "gfx942", "armv8_2"): f"{hosts}; armv8_2 is aarch64",
        ("6.4", None, "avx2"): None, ("6.4", "gfx942", "avx2"): None, ("6.4", "gfx1200", None): None,
        (None, "gfx942", "avx2"): None, (None, "gfx950", "armv8_2"): None,
        ("6.4", "gfx950", None): f"nixpkgs' ROCm 6.4 builds for {', '.join(rocm.targets)} (clr's gpuTargets), "
                                 "not for gfx950 (CDNA 4)",
        ("6.3", "gfx1200", "avx2"): "gfx1200 (RDNA 4) needs ROCm >= 6.4.1; this asks for 6.3, which is too old",
        ("6.3", "gfx942", "avx512"): None,
    }
    for (release, gfx, isa), expected in asked.items():
        rows = {"rocm": {"6.4": rocm, "6.3": older}.get(release), "gfx": table.gfx.get(gfx), "isa": table.isa.get(isa)}
        assert K.why_not_rows({axis: row for axis, row in rows.items() if row is not None}) == expected, \
            (release, gfx, isa)


def test_kepler_needs_a_cuda_releases_own_driver_within_its_last_branch_and_past_it_minor_compatibility(table):
    import dataclasses
    from types import MappingProxyType

    for sm in ("sm35", "sm37"):
        gpu = table.sm[sm]
        for system, within, compat in (("Linux", "470.42.01", "450.80.02"), ("Windows", "471.11", "452.39")):
            # CUDA 11.4's own driver is of R470, Kepler's last branch
            assert K.driver_need(table, gpu, "11.4", system) == K.DriverNeed("11.4", within, within, 470)
            # CUDA 11.8's (520) is past it: CUDA 11's minor-version compatibility runs it
            need = K.driver_need(table, gpu, "11.8", system)
            assert (need.driver, need.branch, need.compat) == (compat, 470, table.minor_compat["11"]), (sm, system)
            # CUDA 12's compatibility asks 525, past R470 too: no driver runs it
            assert K.driver_need(table, gpu, "12.8", system).driver == ""
    # a compatibility floor of the branch itself is within it
    at_branch = dataclasses.replace(table.minor_compat["11"], driver="470.57.02", windows_driver="471.41")
    edited = dataclasses.replace(table, minor_compat=MappingProxyType({**table.minor_compat, "11": at_branch}))
    for system, driver in (("Linux", "470.57.02"), ("Windows", "471.41")):
        assert K.driver_need(edited, table.sm["sm35"], "11.8", system) == \
            K.DriverNeed("11.8", table.cuda_release("11.8").driver_for(system), driver, 470, at_branch)


@pytest.mark.parametrize("driver, needed, meets", [
    ("525.60.13", "525.60.13", True), ("525.60.12", "525.60.13", False), ("525.60.14", "525.60.13", True),
    ("580.88", "580.88", True), ("580.87", "580.88", False), ("470.42.01", "R590", True)])
def test_a_driver_meets_a_minimum_it_equals_or_passes_and_one_given_by_its_branch_alone(driver, needed, meets):
    assert K.driver_meets(driver, needed) is meets
