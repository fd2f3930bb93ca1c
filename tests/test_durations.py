"""The quick subset's record (tests/durations.json): what a run records replaces what it held, and
the tests and fixtures that are gone leave it, whatever part of the suite the run collected."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import REPO, merged_durations, recorded_durations


def test_a_recording_keeps_what_it_did_not_collect_and_drops_what_is_gone(tmp_path):
    for name in ("test_a.py", "test_b.py", "test_c.py"):
        (tmp_path / "tests").mkdir(exist_ok=True)
        (tmp_path / "tests" / name).write_text("")
    old = {
        "tests": {"tests/test_a.py::one": 1.0, "tests/test_a.py::renamed": 2.0, "tests/test_a.py::two": 0.3,
                  "tests/test_b.py::kept": 0.5, "tests/test_b.py::kept2": 0.05, "tests/test_gone.py::x": 9.0},
        "fixtures": {"tests/test_a.py::repo": 3.0, "tests/test_a.py::dropped": 1.0, "tests/test_b.py::repo": 4.0,
                     "tests/test_gone.py::repo": 1.0},
    }
    recorded = {"tests": {"tests/test_a.py::one": 0.123, "tests/test_c.py::new": 0.7},
                "fixtures": {"tests/test_c.py::made": 1.5}}
    # this run collected test_a (two tests, one of them deselected) and test_c, not test_b
    collected = {"tests": {"tests/test_a.py::one", "tests/test_a.py::two", "tests/test_c.py::new"},
                 "fixtures": {"tests/test_a.py::repo", "tests/test_c.py::made"},
                 "files": {"tests/test_a.py", "tests/test_c.py"}}
    assert merged_durations(old, recorded, collected, tmp_path) == {
        "tests": {"tests/test_a.py::one": 0.12, "tests/test_a.py::two": 0.3, "tests/test_b.py::kept": 0.5,
                  "tests/test_b.py::kept2": 0.05, "tests/test_c.py::new": 0.7},
        "fixtures": {"tests/test_a.py::repo": 3.0, "tests/test_b.py::repo": 4.0, "tests/test_c.py::made": 1.5},
    }


def test_the_record_is_sorted_so_that_two_recordings_of_the_same_run_are_the_same_file(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("")
    empty = {"tests": {}, "fixtures": {}}
    collected = {"tests": {"tests/test_a.py::b", "tests/test_a.py::a"}, "fixtures": set(), "files": {"tests/test_a.py"}}
    recorded = {"tests": {"tests/test_a.py::b": 0.5, "tests/test_a.py::a": 0.25}, "fixtures": {}}
    merged = merged_durations(empty, recorded, collected, tmp_path)
    assert list(merged["tests"]) == ["tests/test_a.py::a", "tests/test_a.py::b"]


@pytest.mark.slow  # it collects the whole suite: about 10 s
def test_the_record_names_every_test_of_the_suite_and_none_that_is_gone():
    """The quick subset's cut is complete: every test the suite holds has its seconds in
    tests/durations.json, and the file names no test the suite no longer holds. A test added
    without `pytest --record-durations` over its file would run in the quick subset unmeasured."""
    listed = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:randomly",
                             "-p", "no:cacheprovider", "-p", "no:xdist", "tests"],
                            cwd=REPO, capture_output=True, text=True, timeout=600)
    assert listed.returncode == 0, listed.stdout[-2000:] + listed.stderr[-2000:]
    collected = {line for line in listed.stdout.splitlines() if "::" in line}
    assert len(collected) > 1000, listed.stdout[-2000:]
    recorded = set(recorded_durations()["tests"])
    unrecorded, gone = sorted(collected - recorded), sorted(recorded - collected)
    assert not unrecorded, f"{len(unrecorded)} tests without their seconds, record them with " \
                           f"`pytest --record-durations FILE...`: {unrecorded[:20]}"
    assert not gone, f"{len(gone)} tests recorded that the suite no longer holds: {gone[:20]}"
