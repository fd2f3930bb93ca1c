"""`gen-matrix ci --measured` and BUILD_MATRIX.md with several measurements of one variant: in
two artifact folders (two runs downloaded into measured/), of a full build and of a wrapper
alone, beside other variants of its kind."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import expansion_of

from test_measured import measurement, plan, write


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    from click.testing import CliRunner

    from generator.cli import main
    from test_rebuild_two_pins import MATRIX

    root = tmp_path_factory.mktemp("repo")
    (root / "matrix.yaml").write_text(MATRIX)
    assert CliRunner().invoke(main, ["--root", str(root)]).exit_code == 0
    return root


def gpus(root: Path) -> list[str]:
    return sorted(v.name for v in expansion_of(root).variants if v.kind == "gpu" and not v.is_companion)


def test_of_two_full_builds_of_one_variant_the_one_read_last_counts_for_it_and_for_its_kind(repo, tmp_path, run):
    first, second, *rest = gpus(repo)
    folder = tmp_path / "measured"
    write(folder / "gen-matrix-measured-0-0" / f"{first}.json", measurement(first, 600))
    write(folder / "gen-matrix-measured-0-1" / f"{first}.json", measurement(first, 1800))
    write(folder / "gen-matrix-measured-0-1" / f"{second}.json", measurement(second, 1200))
    found = plan(run, repo, tmp_path, "--measured", folder)["plan"]
    assert found["estimated_from"]["own"] == 2 and found["estimated_from"]["kind"] == len(rest)
    # first: 30 min, second: 20 min; the rest at the mean of those two, the 10 min run left out
    others = found["estimated_minutes"] - 30 - 20 - len(rest) * 25
    assert 0 <= others == round(others)
    alone = plan(run, repo, tmp_path / "alone", "--measured", write(tmp_path / "one.json", measurement(second, 1200)))
    assert found["estimated_minutes"] - alone["plan"]["estimated_minutes"] == 30 + len(rest) * 25 - (len(rest) + 1) * 20


def test_a_wrapper_only_build_measured_later_hides_no_full_build_of_the_same_variant(repo, tmp_path, run):
    """One run built a variant whole, a later one its wrapper alone: a full build of it is still
    estimated from its own measurement, and BUILD_MATRIX.md still shows that build."""
    name, *rest = gpus(repo)
    folder = tmp_path / "measured"
    write(folder / "gen-matrix-measured-0-0" / f"{name}.json", measurement(name, 3 * 3600))
    write(folder / "gen-matrix-measured-0-1" / f"{name}.json", measurement(name, 90, "wrapper"))
    found = plan(run, repo, tmp_path, "--measured", folder)["plan"]
    assert found["estimated_from"] == {"own": 1, "kind": len(rest), "guessed": len(found["builds"]) - 1 - len(rest)}
    # its own 3 h, and the other GPU torches at the mean of the full builds of their kind: 3 h too
    assert found["estimated_minutes"] >= (1 + len(rest)) * 180


@pytest.mark.slow
def test_build_matrix_shows_each_variants_last_full_build_whatever_was_measured_after_it(tmp_path, run):
    from test_rebuild_two_pins import MATRIX

    root = tmp_path / "repo"
    root.mkdir()
    (root / "matrix.yaml").write_text(MATRIX)
    first, second, *_ = gpus_after_generate(run, root)
    write(root / "measured" / "gen-matrix-measured-0-0" / f"{first}.json", measurement(first, 2.5 * 3600))
    write(root / "measured" / "gen-matrix-measured-0-1" / f"{first}.json", measurement(first, 60, "wrapper"))
    write(root / "measured" / "gen-matrix-measured-0-0" / f"{second}.json", measurement(second, 1 * 3600))
    write(root / "measured" / "gen-matrix-measured-0-1" / f"{second}.json", measurement(second, 2 * 3600))
    assert run("--root", root).exit_code == 0
    rows = {line.split(" | ")[0].strip("| `"): line for line in (root / "BUILD_MATRIX.md").read_text().splitlines()
            if line.startswith("| `")}
    assert rows[first].endswith(" | 2.5 h on 32 cores |")
    assert rows[second].endswith(" | 2.0 h on 32 cores |")


def gpus_after_generate(run, root: Path) -> list[str]:
    assert run("--root", root).exit_code == 0
    return gpus(root)
