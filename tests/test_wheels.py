"""Which of PyTorch's own wheels run on a GPU: CUDA binary compatibility (SASS of a lower minor of
the same major, PTX by JIT on anything newer, arch-specific targets on their SM alone), the
driver each needs, and the answers `explain`, `env` and `list` build on it."""

from __future__ import annotations

import dataclasses
import json
from types import MappingProxyType

import pytest

from generator import knowledge as K
from generator.commands import handbuild

KNOWLEDGE = K.build(K.builtin())


@pytest.mark.parametrize("arch, capability, served", [
    ("5.0;6.0;7.0;7.5;8.0;8.6;9.0", "8.9", ("8.6", K.SASS)),  # RTX 4090, L40S
    ("5.0;6.0;7.0;7.5;8.0;8.6;9.0", "6.1", ("6.0", K.SASS)),  # GTX 1080
    ("5.0;6.0;7.0;7.5;8.0;8.6;9.0", "5.2", ("5.0", K.SASS)),  # GTX 970
    ("7.5;8.0;8.6;9.0;10.0;12.0", "12.1", ("12.0", K.SASS)),  # DGX Spark
    ("7.5;8.0;8.6;9.0;10.0;12.0", "11.0", None),  # Thor: 10.0 SASS is another major
    ("8.6", "8.0", None),  # SASS never runs on a lower minor
    ("8.0;9.0a", "9.0", ("9.0a", K.SASS)),
    ("9.0a", "9.1", None),  # arch-specific: that SM alone
    ("9.0a+PTX", "10.0", None),
    ("10.0f", "10.3", ("10.0f", K.SASS)),  # family-specific: the family's later minors too
    ("8.0;9.0+PTX", "12.0", ("9.0+PTX", K.PTX)),
    ("8.0;9.0+PTX", "9.0", ("9.0", K.SASS)),  # SASS wins over PTX
    ("7.5;8.0;8.6;9.0;10.0;12.0+PTX", "12.1", ("12.0", K.SASS)),
    ("3.7+PTX;5.0", "3.5", None),  # PTX runs on newer GPUs only
    ("10.0f+PTX", "12.0", None),  # family-specific PTX stays within its family
    ("10.0f+PTX", "10.3", ("10.0f", K.SASS)),
])
def test_an_arch_list_serves_an_sm_by_binary_compatibility(arch, capability, served):
    runs = K.serves(arch, capability)
    assert (runs.target, runs.how) == served if served else runs is None


@pytest.mark.parametrize("suffix", ["", "a", "f"])
@pytest.mark.parametrize("ptx", [False, True])
def test_a_wheels_arch_list_and_cuobjdumps_names_are_judged_by_one_rule(suffix, ptx):
    """serves (TORCH_CUDA_ARCH_LIST entries) and smoke's runs_on (cuobjdump's sm_XY names)
    agree on every target and GPU of the knowledge table."""
    from generator.commands import cuobjdump

    capabilities = sorted({sm.capability for sm in KNOWLEDGE.sm.values()}, key=K.version_key)
    for have in capabilities:
        entry = f"{have}{suffix}{'+PTX' if ptx else ''}"
        name = f"sm_{have.replace('.', '')}{suffix}"
        for sm in KNOWLEDGE.sm.values():
            # where the SASS of an entry runs, its PTX runs too: an entry with +PTX serves
            # exactly where its PTX runs
            assert cuobjdump.runs_on(name, sm, ptx) == (K.serves(entry, sm.capability) is not None), (entry, sm.name)


def _with_release(name: str, *wheels: K.Wheel, python=("3.10", "3.14")) -> K.Knowledge:
    release = K.Release(name=name, python=python, cuda=tuple(w.cuda for w in wheels), wheels=wheels, latest=f"{name}.0")
    return dataclasses.replace(KNOWLEDGE, pytorch=MappingProxyType({name: release}))


def test_ptx_serves_a_newer_gpu_only_with_the_cuda_releases_own_driver():
    ptx = _with_release("2.9", K.Wheel("12.8", "x86_64-linux", "pip", "8.0;9.0+PTX", "test"))
    (fit,) = K.wheels_for(ptx, KNOWLEDGE.sm["sm120"], "x86_64-linux")
    assert fit.runs.how == K.PTX and fit.compat is None  # no minor-version compatibility for PTX
    assert fit.driver_for("Linux") == KNOWLEDGE.cuda["12.8"].driver
    assert not K.driver_meets("560.35.03", fit.driver_for("Linux")) and K.driver_meets("575.64", fit.driver_for("Linux"))
    # an H100 could take CUDA 12.6's SASS on a 525 driver, but its PTX needs 12.6's own driver
    hopper = _with_release("2.9", K.Wheel("12.6", "x86_64-linux", "pip", "8.0+PTX", "test"))
    (fit,) = K.wheels_for(hopper, KNOWLEDGE.sm["sm90"], "x86_64-linux")
    assert fit.runs.how == K.PTX and fit.driver_for("Linux") == KNOWLEDGE.cuda["12.6"].driver
    # PTX of a CUDA older than the GPU: the wheel's bundled CUDA libraries do not know the GPU
    old = _with_release("2.6", K.Wheel("12.4", "x86_64-linux", "pip", "8.0;9.0+PTX", "test"))
    assert K.wheels_for(old, KNOWLEDGE.sm["sm120"], "x86_64-linux") == ()


def test_sass_runs_on_an_older_driver_by_minor_version_compatibility_but_not_below_the_gpus_own():
    k80 = K.best_wheel(K.wheels_for(KNOWLEDGE, KNOWLEDGE.sm["sm37"], "x86_64-linux"))
    assert k80 is not None and k80.cuda.startswith("11.") and k80.runs.how == K.SASS
    # Kepler's last driver branch is R470: CUDA 11.x wheels reach it by minor-version compatibility
    assert k80.driver_for("Linux") == KNOWLEDGE.minor_compat["11"].driver
    assert K.version_key(k80.driver_for("Linux")) < (470,) < K.version_key(KNOWLEDGE.cuda_release(k80.cuda).driver)
    # an RTX 5070 needs a driver that knows Blackwell, whatever minor-version compatibility allows
    rtx = _with_release("2.9", K.Wheel("12.9", "x86_64-linux", "pip", "12.0", "test"))
    (fit,) = K.wheels_for(rtx, KNOWLEDGE.sm["sm120"], "x86_64-linux")
    assert fit.driver_for("Linux") == KNOWLEDGE.cuda["12.8"].driver  # sm120's first CUDA, below 12.9's own


def test_a_driver_the_table_does_not_know_is_unknown_not_the_gpus_floor():
    # CUDA 13.2 is in no driver table, and CUDA 13's Windows minor-version driver is unverified:
    # the Windows answer is unknown, never an Ada card's 520.06, which runs no CUDA 13 binary
    newer = _with_release("2.13", K.Wheel("13.2", "x86_64-windows", "pip", "8.6", "test"))
    (fit,) = K.wheels_for(newer, KNOWLEDGE.sm["sm89"], "x86_64-windows")
    assert fit.driver_for("Windows") == ""
    assert K.version_key(fit.driver_for("Linux")) >= (580,)


def test_releases_come_newest_first_by_version_not_by_text():
    order = [fit.release.name for fit in K.wheels_for(KNOWLEDGE, KNOWLEDGE.sm["sm86"], "x86_64-linux")]
    assert order.index("2.10") < order.index("2.9") < order.index("1.12")
    assert order == sorted(order, key=K.version_key, reverse=True)


def test_wheels_follow_the_system_and_the_gpus_hosts():
    assert K.wheels_for(KNOWLEDGE, KNOWLEDGE.sm["sm121"], "x86_64-linux") == ()  # GB10 sits beside ARM only
    spark = K.best_wheel(K.wheels_for(KNOWLEDGE, KNOWLEDGE.sm["sm121"], "aarch64-linux"))
    assert spark.runs.target == "12.0" and spark.systems == ("aarch64-linux",)
    assert K.wheels_for(KNOWLEDGE, KNOWLEDGE.sm["sm87"]) == ()  # a Jetson Orin runs JetPack's builds


def test_sm110_is_built_from_pytorch_2_9_on():
    assert KNOWLEDGE.sm["sm110"].pytorch_problem("2.8") and not KNOWLEDGE.sm["sm110"].pytorch_problem("2.9")


def test_the_newest_build_keeps_the_users_python_and_cuda_where_they_fit():
    sm61 = KNOWLEDGE.sm["sm61"]
    kept = handbuild.newest(KNOWLEDGE, sm61, python="3.12", cuda="11.8")
    assert (kept.python, kept.cuda) == ("3.12", "11.8")
    # CUDA 13 cannot compile for Pascal: the user's Python stays, the CUDA gives way
    other = handbuild.newest(KNOWLEDGE, sm61, python="3.12", cuda="13.0")
    assert other.python == "3.12" and other.cuda != "13.0"


def test_env_refuses_a_cuda_below_the_releases_source_floor_and_names_the_wheel(run, tmp_path):
    result = run("env", "--root", tmp_path, "--gpu", "A100", "--cuda", "11.0", "--pytorch", "2.9.1")
    assert result.exit_code == 2 and result.stdout == "" and "Traceback" not in result.output
    assert result.stderr.startswith("error: --cuda: PyTorch 2.9's source does not build with CUDA 11.0")
    assert "pip install torch==2.9.1 --index-url https://download.pytorch.org/whl/cu1" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_explain_lists_every_release_whose_wheels_run_on_the_gpu(run, tmp_path):
    result = run("explain", "--root", tmp_path, "--gpu", "RTX 4090", "--json")
    assert result.exit_code == 0, result.output
    wheels = json.loads(result.stdout)["wheels"]
    releases = [w["pytorch"] for w in wheels]
    assert releases == sorted(releases, key=K.version_key, reverse=True)
    assert {(w["target"], w["how"]) for w in wheels} >= {("8.6", "SASS")}
    assert all(w["driver"] and w["sources"] for w in wheels)


MATRIX = """\
pytorch: {version: "2.8.0"}
nixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}
gpu: {python: ["3.13", "3.14"], cuda: ["12.8"], sm: [sm61, sm86], isa: [avx2, armv9]}
"""


def test_list_no_upstream_wheel_keeps_only_what_no_wheel_serves(run, tmp_path):
    (tmp_path / "matrix.yaml").write_text(MATRIX)
    only = run("list", "--root", tmp_path, "--no-upstream-wheel")
    assert only.exit_code == 0, only.output
    # PyTorch 2.8 supports Python 3.9 to 3.13 (no 3.14 wheel at all); its CUDA 12.6 x86_64 wheels
    # carry sm_60 and sm_86 SASS; the table has no aarch64 list of 2.8 (unknown, so not listed)
    assert sorted(only.stdout.split()) == [f"pytorch-python314-cuda12_8-{sm}-{isa}" for sm in ("sm61", "sm86")
                                           for isa in ("armv9", "avx2")]
    table = {v["name"]: v["upstream_wheel"] for v in json.loads(run("list", "--root", tmp_path, "--format", "json").stdout)}
    assert table["pytorch-python313-cuda12_8-sm61-avx2"] == "cu126 (pip)"
    assert table["pytorch-python313-cuda12_8-sm86-armv9"] == "unknown"
    # a matrix's own wheel rows replace the release's: without the CUDA 12.6 list, no wheel has sm_6x
    (tmp_path / "matrix.yaml").write_text(MATRIX + 'knowledge:\n  pytorch:\n    "2.8":\n      wheels:\n'
                                          '        - {cuda: "12.8", system: x86_64-linux, index: pip, arch: "7.0;8.0;8.6",'
                                          ' source: a wheel we read}\n')
    only = run("list", "--root", tmp_path, "--no-upstream-wheel")
    assert "pytorch-python313-cuda12_8-sm61-avx2" in only.stdout.split()
    assert "pytorch-python313-cuda12_8-sm86-avx2" not in only.stdout.split()


def test_build_matrix_gives_each_variant_the_upstream_wheel_list_gives_it(run, tmp_path):
    # BUILD_MATRIX.md asks once for each Python, systems and SM; `list` asks for each variant
    (tmp_path / "matrix.yaml").write_text(MATRIX + "darwin: {python: [\"3.13\", \"3.14\"], accelerator: [mps]}\n"
                                          "cpu: {python: [\"3.13\"], isa: [avx2, armv9]}\n")
    assert run("--root", tmp_path).exit_code == 0
    listed = {v["name"]: v["upstream_wheel"] or "only this matrix"
              for v in json.loads(run("list", "--root", tmp_path, "--format", "json").stdout)}
    rows = {line.split("`")[1]: line.rstrip().removesuffix(" |").rsplit(" | ", 1)[1]
            for line in (tmp_path / "BUILD_MATRIX.md").read_text().splitlines() if line.startswith("| `")}
    assert rows == listed and len(rows) == 12
    assert set(rows.values()) == {"cu126 (pip)", "unknown", "only this matrix", "cpu"}


def test_the_wheel_suggested_is_the_newest_cuda_the_drivers_runs_else_the_least_demanding():
    fits = K.wheels_for(KNOWLEDGE, KNOWLEDGE.sm["sm89"], "x86_64-linux")
    # the newest release line with wheels of two or more CUDA releases known to run on sm89
    lines = [name for name in dict.fromkeys(f.release.name for f in fits)
             if len({f.cuda for f in fits if f.release.name == name}) > 1]
    fits = [f for f in fits if f.release.name == lines[0]]
    cudas = sorted({f.cuda for f in fits}, key=K.version_key)
    assert len(cudas) > 1
    assert K.best_wheel(fits).cuda == cudas[0]  # no driver seen: the one that asks least of it
    assert K.best_wheel(fits, "470.82").cuda == cudas[0]  # too old for all: the nearest
    on_550 = K.best_wheel(fits, "550.54")
    assert K.driver_meets("550.54", on_550.driver_for("Linux"))
    assert K.best_wheel(fits, "999.1").cuda == cudas[-1]


def test_explain_says_what_a_build_gives_where_no_wheel_runs_even_when_the_matrix_has_the_gpu(run, tmp_path):
    (tmp_path / "matrix.yaml").write_text(
        'pytorch: {version: "2.8.0"}\nnixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}\n'
        'gpu: {python: ["3.13"], cuda: ["12.8"], sm: [sm87], isa: [armv8_2]}\n')
    result = run("explain", "--root", tmp_path, "--gpu", "Jetson Orin", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["outcomes"][0]["in_matrix"] and data["wheels"] == []
    assert any(line.startswith("newest that builds for sm87: PyTorch ") for line in data["wheel_summary"])


def test_the_suggested_build_carries_the_users_python_shell_and_output(run, tmp_path):
    result = run("env", "--root", tmp_path, "--gpu", "K40c", "--python", "3.9", "--shell", "powershell",
                 "--cuda", "12.1", "-o", str(tmp_path / "build.ps1"))
    assert result.exit_code == 2 and list(tmp_path.iterdir()) == []
    nearest = result.stderr.split("the nearest combination that works: ", 1)[1]
    assert "--cuda 11.8" in nearest and "--python 3.9 --shell powershell -o " in nearest and "build.ps1" in nearest


def test_the_pip_line_pins_the_newest_release_the_table_knows_where_its_wheels_run():
    # no answer sends a GPU to an older torch than the newest release line whose wheels run on it
    newest = max(KNOWLEDGE.pytorch.values(), key=lambda r: K.version_key(r.name))
    served = 0
    for sm in KNOWLEDGE.sm.values():
        fits = K.wheels_for(KNOWLEDGE, sm)
        best = K.best_wheel(fits)
        if best is None:
            continue
        if any(f.release.name == newest.name for f in fits):
            served += 1
            assert best.command.startswith(f"pip install torch=={newest.newest} "), (sm.name, best.command)
        else:  # an older line: the newest whose wheels run on it
            assert best.release.name == max((f.release.name for f in fits), key=K.version_key)
    assert served >= 10 and newest.newest == "2.15.0"


def test_the_release_table_for_a_python_holds_exactly_the_releases_whose_wheels_serve_that_python():
    import re

    from generator.commands.wheels import release_table

    for sm in ("sm80", "sm120"):
        wanted_by_python = {}
        for python in ("3.9", "3.14"):
            wanted = {fit.release.newest for fit in K.wheels_for(KNOWLEDGE, KNOWLEDGE.sm[sm], python=python)}
            rows = [re.split(r"\s{2,}", line.strip()) for line in release_table(KNOWLEDGE, KNOWLEDGE.sm[sm], python)[2:]
                    if not line.startswith("  * ")]
            spans = [tuple(row[0].split(" to ")) for row in rows]
            assert {end for span in spans for end in span} <= wanted, (sm, python)
            assert all(any(K.version_key(span[0]) <= K.version_key(release) <= K.version_key(span[-1])
                           for span in spans) for release in wanted), (sm, python)
            wanted_by_python[python] = wanted
        # each Python has releases the other has not: the table is not the same for both
        assert wanted_by_python["3.9"] - wanted_by_python["3.14"]
        assert wanted_by_python["3.14"] - wanted_by_python["3.9"]


@pytest.mark.parametrize("systems", [("Linux",), ("Windows",), ("Linux", "Windows"), ("Windows", "Linux")])
def test_a_build_no_driver_of_the_gpus_last_branch_runs_names_the_cuda_releases_own_driver(systems):
    # Kepler's last branch is R470; CUDA 12's own drivers and its minor-version compatibility
    # (525) are both past it. The shipped table stops Kepler at CUDA 11.8 before this is asked;
    # a table extended by a user can ask it.
    from generator.commands.wheels import build_driver_text

    for sm in ("sm35", "sm37"):
        for cuda in ("12.6", "12.8"):
            text = build_driver_text(KNOWLEDGE, KNOWLEDGE.sm[sm], cuda, systems)
            own = KNOWLEDGE.cuda[cuda].driver_for(systems[0])
            assert own and KNOWLEDGE.cuda[cuda].driver_for("Linux") != KNOWLEDGE.cuda[cuda].driver_for("Windows")
            assert text == (f"an NVIDIA driver it cannot have: CUDA {cuda} needs {own} or newer, past R470, "
                            f"{sm}'s last driver branch, and minor-version compatibility does not reach back to it")


def test_the_release_tables_driver_is_unknown_where_the_table_has_none_and_starred_where_compatibility_serves():
    import re

    from generator.commands.wheels import release_table

    for sm in ("sm80", "sm90", "sm120"):
        fits = K.wheels_for(KNOWLEDGE, KNOWLEDGE.sm[sm])
        unknown = {(fit.release.newest, fit.cuda) for fit in fits
                   if not all(fit.driver_for(os) for os in {K.WHEEL_OS[s] for s in fit.systems})}
        assert unknown, sm  # CUDA 13.2's Windows driver under minor-version compatibility is not in the table
        shown, starred = set(), 0
        for line in release_table(KNOWLEDGE, KNOWLEDGE.sm[sm])[2:]:
            if line.startswith("  * "):
                continue
            span, cuda, *_, drivers = re.split(r"\s{2,}", line.strip())
            parts = drivers.removesuffix(" *").split(" / ")
            assert all(part == "unknown" or part.endswith("+") and len(part) > 1 for part in parts), line
            # the footnote's star: minor-version compatibility asks less than the CUDA release's own driver
            compat = {fit.compat is not None for fit in fits if fit.release.newest in span.split(" to ")
                      and fit.cuda == cuda}
            assert compat == {drivers.endswith(" *")}, line
            starred += drivers.endswith(" *")
            if "unknown" in parts:
                shown |= {(release, cuda) for release in span.split(" to ")}
        assert shown and shown <= unknown, sm
        assert 0 < starred < len(fits), sm


@pytest.mark.parametrize("system", ["x86_64-linux", "aarch64-linux", "x86_64-windows"])
def test_detects_prebuilt_line_suggests_a_wheel_of_the_hosts_system_and_weighs_the_hosts_driver(system):
    from generator.commands.wheels import prebuilt_line

    os, outcomes = K.WHEEL_OS[system], set()
    for sm in ("sm80", "sm90"):
        fits = K.wheels_for(KNOWLEDGE, KNOWLEDGE.sm[sm], system)
        for driver in ("470.82.01", "580.159.04"):
            best = K.best_wheel(fits, driver, os)
            assert system in best.systems
            line = prebuilt_line(KNOWLEDGE, KNOWLEDGE.sm[sm], system, driver=driver)
            assert line.startswith(f"prebuilt: PyTorch {best.release.newest}'s own CUDA {best.cuda} wheels run on {sm} "
                                   f"({best.runs.target} {best.runs.how}"), line
            assert f"`{best.command}`" in line
            needed = best.driver_for(os)
            if K.driver_meets(driver, needed):
                outcomes.add("runs")
                assert f"; this host's driver {driver} runs them." in line, line
            else:
                outcomes.add("below")
                assert f"; this host's driver {driver} is below {needed}: update the driver first." in line, line
    assert outcomes == {"runs", "below"}


def test_a_python_no_wheel_serves_is_named_and_a_wheel_for_another_python_offered():
    from generator.commands.wheels import prebuilt_line

    for sm in ("sm80", "sm90"):
        elsewhere = K.best_wheel(K.wheels_for(KNOWLEDGE, KNOWLEDGE.sm[sm]))
        for python in ("3.6", "3.16"):
            for system, asked in ((None, f"for Python {python}"), ("x86_64-linux", f"for Python {python} on x86_64-linux")):
                line = prebuilt_line(KNOWLEDGE, KNOWLEDGE.sm[sm], system, python)
                assert line.startswith(f"prebuilt: none of PyTorch's own wheels {asked} runs on {sm}; "
                                       f"PyTorch {elsewhere.release.newest}'s CUDA {elsewhere.cuda} wheels"), line
                assert f"`{elsewhere.command}`" in line


def test_the_driver_text_of_a_ptx_wheel_says_the_jit_compiles_and_no_compatibility_helps():
    from generator.commands.wheels import driver_text

    for sm, cuda, arch in (("sm120", "12.8", "8.0;9.0+PTX"), ("sm90", "12.6", "8.0+PTX")):
        (fit,) = K.wheels_for(_with_release("2.9", K.Wheel(cuda, "x86_64-linux", "pip", arch, "test")),
                              KNOWLEDGE.sm[sm], "x86_64-linux")
        assert driver_text(fit) == (f"NVIDIA driver {KNOWLEDGE.cuda[cuda].driver} (Linux) or newer, whose JIT compiles "
                                    "the kernels on first use (no minor-version compatibility for PTX)")
    # SASS of the same wheel on a GPU it names: no JIT
    (fit,) = K.wheels_for(_with_release("2.9", K.Wheel("12.8", "x86_64-linux", "pip", "8.0;9.0+PTX", "test")),
                          KNOWLEDGE.sm["sm90"], "x86_64-linux")
    assert fit.runs.how == K.SASS and "JIT" not in driver_text(fit)
