"""`gen-matrix ci --measured`: the plan's estimate from the build costs the build jobs
measured, read from real files as the artifacts download, and every bad file refused with
where it is and what to do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import expansion_of, needs_posix

MINUTES = {"gpu": 180, "cpu": 60, "darwin": 90, "companion": 30}


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    from click.testing import CliRunner

    from conftest import FIXTURE_MATRIX
    from generator.cli import main

    root = tmp_path_factory.mktemp("repo")
    (root / "matrix.yaml").write_text(FIXTURE_MATRIX.read_text(encoding="utf-8"), encoding="utf-8")
    assert CliRunner().invoke(main, ["--root", str(root)]).exit_code == 0
    return root


def measurement(name: str, seconds: float, builds: str = "full", **more) -> dict:
    return {"variant": name, "builds": builds, "wall_seconds": seconds, "cores": 32, "peak_memory_gib": 61.5,
            "compiler_cache_hit_rate": None, **more}


def write(path: Path, data) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def plan(run, repo: Path, tmp_path: Path, *args) -> dict:
    folder = tmp_path / "plan"
    result = run("ci", "--root", repo, "--plan", folder, *args)
    assert result.exit_code == 0, result.output
    return {"plan": json.loads((folder / "plan.json").read_text()), "summary": (folder / "summary.md").read_text()}


def test_each_build_is_estimated_from_its_own_measurement_else_its_kinds_else_the_guess(repo, tmp_path, run):
    variants = [v for v in expansion_of(repo).variants]
    gpus = sorted(v.name for v in variants if v.kind == "gpu" and not v.is_companion)
    others = [v for v in variants if v.kind != "gpu" or v.is_companion]
    # as `gh run download` lays the artifacts out: a folder per artifact
    folder = tmp_path / "measured"
    write(folder / "gen-matrix-measured-0-0" / f"{gpus[0]}.json", measurement(gpus[0], 600, compiler_cache_hit_rate=0.5))
    write(folder / "gen-matrix-measured-0-1" / f"{gpus[1]}.json", measurement(gpus[1], 1800))
    write(folder / "notes.txt", "not a measurement: left alone")
    guessed = plan(run, repo, tmp_path, "--measured", folder)
    gpu_mean = (600 + 1800) / 2 / 60
    expected = 10 + 30 + (len(gpus) - 2) * gpu_mean + sum(MINUTES["companion" if v.is_companion else v.kind]
                                                          for v in others)
    assert guessed["plan"]["estimated_minutes"] == round(expected)
    assert guessed["plan"]["estimated_from"] == {"own": 2, "kind": len(gpus) - 2, "guessed": len(others)}
    assert (f"2 measured for that very build (`--measured`), {len(gpus) - 2} the mean of the\nmeasured builds "
            f"of its kind, {len(others)} guessed from knowledge.build_costs") in guessed["summary"]
    unmeasured = plan(run, repo, tmp_path / "again")
    assert unmeasured["plan"]["estimated_from"] == {"own": 0, "kind": 0, "guessed": len(variants)}


def test_a_wrapper_only_measurement_does_not_estimate_a_full_build(repo, tmp_path, run):
    gpu = next(v.name for v in expansion_of(repo).variants if v.kind == "gpu" and not v.is_companion)
    found = plan(run, repo, tmp_path, "--measured", write(tmp_path / "one.json", measurement(gpu, 60, "wrapper")))
    assert found["plan"]["estimated_from"]["own"] == 0 and found["plan"]["estimated_from"]["kind"] == 0


BAD = [
    ("not-json", '{"variant": "x",\n  "builds": }', ":2:13: not JSON: Expecting value"),
    ("not-an-object", "[1, 2]", ": a measurement is a JSON object"),
    ("unknown-field", dict(measurement("pytorch-x", 1), seconds=3), ": unknown field 'seconds'"),
    ("missing-field", {"variant": "pytorch-x"}, ": no field 'builds'"),
    ("bad-name", measurement("../etc/passwd", 1), ": variant: '../etc/passwd' is not a safe package name"),
    ("negative-time", measurement("pytorch-x", -5), ": wall_seconds must be a number from 0 to 2.592e+06, not -5"),
    ("text-cores", dict(measurement("pytorch-x", 5), cores="32"), ': cores must be a whole number from 1 to 65536, not "32"'),
    ("hit-rate-over-one", measurement("pytorch-x", 5, compiler_cache_hit_rate=1.5),
     ": compiler_cache_hit_rate must be a number from 0 to 1 or null, not 1.5"),
    ("bad-builds", measurement("pytorch-x", 5, "half"), ': builds must be "full" or "wrapper"'),
    ("variant-not-text", dict(measurement("pytorch-x", 5), variant=7), ": variant: not a name"),
    ("negative-memory", dict(measurement("pytorch-x", 5), peak_memory_gib=-1),
     ": peak_memory_gib must be a number from 0 to 1.04858e+06 or null, not -1"),
    ("too-big", " " * (16 * 1024 + 1), ": the file is larger than 16384 bytes"),
    ("deep", "[" * 10_000, ": not a measurement: nested or numbered beyond reason"),
]


@pytest.mark.parametrize("content, message", [(c, m) for _, c, m in BAD], ids=[i for i, _, _ in BAD])
def test_a_bad_measurement_is_refused_where_it_is_and_nothing_is_written(repo, tmp_path, run, content, message):
    bad = write(tmp_path / "measured" / "sub" / "pytorch-x.json", content)
    folder = tmp_path / "plan"
    result = run("ci", "--root", repo, "--plan", folder, "--measured", tmp_path / "measured")
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"error: {tmp_path / 'measured'}/sub/pytorch-x.json{message}" in result.stderr, result.stderr
    assert "hint: a measurement is the JSON object a build job" in result.stderr or "too-big" in str(bad)
    assert not folder.exists()


def test_a_missing_path_is_refused(repo, tmp_path, run):
    result = run("ci", "--root", repo, "--summary", "--measured", tmp_path / "nowhere")
    assert result.exit_code == 2 and f"error: {tmp_path / 'nowhere'}: no such file or folder" in result.stderr


def test_build_matrix_shows_the_measured_hours_the_repository_keeps_and_a_bad_file_stops_generate(tmp_path, run):
    import shutil

    from conftest import FIXTURE_MATRIX

    root = tmp_path / "repo"
    root.mkdir()
    shutil.copy(FIXTURE_MATRIX, root / "matrix.yaml")
    assert run("--root", root).exit_code == 0
    before = (root / "BUILD_MATRIX.md").read_text()
    assert "measured build" not in before
    torches = [v for v in expansion_of(root).variants if not v.is_companion]
    full, wrapper = torches[0].name, torches[1].name
    write(root / "measured" / "gen-matrix-measured-0-0" / f"{full}.json", measurement(full, 2.5 * 3600))
    write(root / "measured" / "gen-matrix-measured-0-1" / f"{wrapper}.json", measurement(wrapper, 90, "wrapper"))
    assert run("--root", root, "check").exit_code == 1  # BUILD_MATRIX.md is stale now
    assert run("--root", root).exit_code == 0
    rows = {line.split(" | ")[0].strip("| `"): line for line in (root / "BUILD_MATRIX.md").read_text().splitlines()
            if line.startswith("| `")}
    assert rows[full].endswith(" | 2.5 h on 32 cores |")
    assert rows[wrapper].endswith(" | - |")  # a wrapper-only build says nothing of the heavy build
    assert "| upstream wheel | measured build |" in (root / "BUILD_MATRIX.md").read_text()
    assert run("--root", root, "check").exit_code == 0
    generated = (root / "BUILD_MATRIX.md").read_text()
    write(root / "measured" / "gen-matrix-measured-0-0" / f"{full}.json", "{not json")
    result = run("--root", root)
    assert result.exit_code == 2
    assert f"measured/gen-matrix-measured-0-0/{full}.json" in result.output and "Traceback" not in result.output
    assert (root / "BUILD_MATRIX.md").read_text() == generated


@pytest.mark.parametrize("where", ["variant", "file name", "field"])
def test_text_of_a_measured_file_cannot_forge_a_line_of_the_log(repo, tmp_path, run, where):
    forged = "x\n::error::forged\r\x1b[2K"
    name = f"pytorch-{forged}.json" if where == "file name" else "pytorch-x.json"
    content = (measurement(f"pytorch-{forged}", 1) if where == "variant" else
               {**measurement("pytorch-x", 1), forged: 1} if where == "field" else {"variant": "pytorch-x"})
    write(tmp_path / "measured" / name, content)
    result = run("ci", "--root", repo, "--summary", "--measured", tmp_path / "measured")
    assert result.exit_code == 2 and "Traceback" not in result.output
    lines = result.stderr.splitlines()
    assert [line[:8] for line in lines] == ["error: /", "  hint: "], result.stderr  # one problem, one hint
    assert "x\\n::error::forged\\x0d\\x1b[2K" in lines[0]


# Each bound of each field: accepted on it, refused just past it, with the field's words.
BOUNDS = [("wall_seconds", 0, 30 * 24 * 3600, 0.5, "a number from 0 to 2.592e+06"),
          ("cores", 1, 65536, 1, "a whole number from 1 to 65536"),
          ("peak_memory_gib", 0, 1 << 20, 0.5, "a number from 0 to 1.04858e+06 or null"),
          ("compiler_cache_hit_rate", 0, 1, 0.001, "a number from 0 to 1 or null")]


@pytest.mark.parametrize("field, low, high, step, words", BOUNDS, ids=[b[0] for b in BOUNDS])
def test_each_field_takes_its_bounds_and_refuses_just_past_them(tmp_path, field, low, high, step, words):
    from generator.commands import measured
    from generator.errors import GenMatrixError

    for value in (low, high):
        data = measurement("pytorch-x", 60, **{field: value})
        got = measured.parse(json.dumps(data), "m/x.json")
        assert getattr(got, field) == value and got.where == "m/x.json" and got.variant == "pytorch-x"
    for value in (low - step, high + step):
        with pytest.raises(GenMatrixError) as refused:
            measured.parse(json.dumps(measurement("pytorch-x", 60, **{field: value})), "m/x.json")
        assert str(refused.value) == f"m/x.json: {field} must be {words}, not {json.dumps(value)}\n  hint: {measured.HINT}"
    nullable = "or null" in words
    if nullable:
        assert getattr(measured.parse(json.dumps(measurement("pytorch-x", 60, **{field: None})), "x"), field) is None
    else:
        with pytest.raises(GenMatrixError):
            measured.parse(json.dumps(measurement("pytorch-x", 60, **{field: None})), "x")


@needs_posix("symbolic links as any user makes them")
def test_a_folder_is_read_three_levels_deep_in_path_order_and_links_are_never_followed(tmp_path):
    from generator.commands import measured

    folder = tmp_path / "measured"
    names = {}
    # two files at each level that is read, and one at the level below, which is not
    for depth, where in enumerate(("", "a", "a/b", "a/b/c")):
        for variant in (f"pytorch-d{depth}-one", f"pytorch-d{depth}-two"):
            write(folder / where / f"{variant}.json", measurement(variant, 60 * (depth + 1)))
            names[variant] = f"shown/{where}/{variant}.json".replace("//", "/")
    write(tmp_path / "outside" / "pytorch-linked.json", measurement("pytorch-linked", 60))
    (folder / "linked.json").symlink_to(tmp_path / "outside" / "pytorch-linked.json")
    (folder / "linked-folder").symlink_to(tmp_path / "outside", target_is_directory=True)
    # the same variant and build twice: the one read last in path order counts
    write(folder / "z" / "again.json", measurement("pytorch-d0-one", 7200))
    found = measured.read(folder, "shown/")
    expected = {v: w for v, w in names.items() if "-d3-" not in v}
    expected["pytorch-d0-one"] = "shown/z/again.json"
    assert {variant: m.where for (variant, builds), m in found.items()} == expected
    assert found["pytorch-d0-one", "full"].wall_seconds == 7200 and found["pytorch-d2-two", "full"].minutes == 3


@needs_posix("symbolic links as any user makes them")
def test_a_link_given_as_the_measurements_is_refused_where_it_is(tmp_path):
    from generator.commands import measured
    from generator.errors import GenMatrixError

    write(tmp_path / "real" / "pytorch-x.json", measurement("pytorch-x", 60))
    (tmp_path / "file-link.json").symlink_to(tmp_path / "real" / "pytorch-x.json")
    (tmp_path / "folder-link").symlink_to(tmp_path / "real", target_is_directory=True)
    for link in ("file-link.json", "folder-link"):
        with pytest.raises(GenMatrixError) as refused:
            measured.read(tmp_path / link, f"given/{link}")
        assert str(refused.value) == (f"given/{link}: a symbolic link; gen-matrix never reads through one\n"
                                      "  hint: give --measured the folder or file itself")


def test_a_folder_of_more_files_than_the_limit_is_refused_whatever_their_depth(tmp_path, monkeypatch):
    from generator.commands import measured
    from generator.errors import GenMatrixError

    monkeypatch.setattr(measured, "MAX_FILES", 3)
    for n in range(3):
        write(tmp_path / "three" / f"run-{n}" / f"pytorch-{n}.json", measurement(f"pytorch-{n}", 60))
    assert len(measured.read(tmp_path / "three", "three")) == 3
    write(tmp_path / "three" / "run-9" / "deeper" / "pytorch-9.json", measurement("pytorch-9", 60))
    with pytest.raises(GenMatrixError) as refused:
        measured.read(tmp_path / "three", "shown/three")
    assert str(refused.value) == ("shown/three: more than 3 measurement files\n"
                                  "  hint: keep the measurements of one or a few runs there")
