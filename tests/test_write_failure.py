"""A failure while writing (a full disk, an I/O error, an interrupt) leaves every file whole,
in its old or its new version, leaves no temporary file, and the next run repairs the tree."""

from __future__ import annotations

import contextlib
import errno
import shutil
import subprocess
import re
import os
import sys

import pytest

from generator import run as generator_run
from generator.layout import locate
from generator.pipeline import state, write

from conftest import needs_posix


def files(root) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def changed(project, run):
    """A generated tree whose matrix was then edited: every recipe changes, sm100's go away.

    Returns (root, the files before, the files the edited matrix generates)."""
    assert run("--root", project).exit_code == 0
    old = files(project)
    matrix = project / "matrix.yaml"
    text = matrix.read_text()
    assert "system_features: [big-parallel]" in text
    matrix.write_text(text.replace("system_features: [big-parallel]", "system_features: [big-parallel, kvm]")
                      .replace("sm100, ", ""))
    p = locate(str(matrix), str(project))
    new = {path: text.encode() for path, text in
           generator_run.outputs(p, generator_run.expansion(p), state.read(project)).items()}
    new["matrix.yaml"] = matrix.read_bytes()
    old["matrix.yaml"] = matrix.read_bytes()
    return project, old, new


def fail_after(count: int, exception: BaseException):
    """A stand-in for an os function that works `count` times when the write step calls it
    (not the run lock, which writes its journal first), then raises."""
    def install(monkeypatch, name):
        real = getattr(os, name)
        calls = []

        def stand_in(*args, **kwargs):
            if sys._getframe(1).f_globals.get("__name__") != write.__name__:
                return real(*args, **kwargs)
            calls.append(args)
            if len(calls) > count:
                raise exception
            return real(*args, **kwargs)

        monkeypatch.setattr(os, name, stand_in)
        return calls
    return install


def assert_whole(root, old: dict, new: dict) -> tuple[int, int]:
    """Every file is its old or its new version; no temporary file is left. Returns (new, old) counts."""
    now = files(root)
    assert not [p for p in now if p.endswith(".tmp")], "a temporary file was left behind"
    assert set(now) <= set(old) | set(new)
    fresh = stale = 0
    for path, data in now.items():
        assert data in (old.get(path), new.get(path)), f"{path} is neither its old nor its new version"
        fresh += data == new.get(path) != old.get(path)
        stale += data == old.get(path) != new.get(path)
    return fresh, stale


@pytest.mark.parametrize("where, code", [("replace", errno.ENOSPC), ("write", errno.ENOSPC), ("replace", errno.EIO)],
                         ids=["disk-full-at-rename", "disk-full-while-writing", "io-error"])
def test_a_failure_part_way_leaves_whole_files_and_a_rerun_repairs(changed, run, monkeypatch, where, code):
    root, old, new = changed
    fail_after(5, OSError(code, os.strerror(code)))(monkeypatch, where)
    result = run("--root", root)
    monkeypatch.undo()

    assert result.exit_code == 2
    assert "Traceback" not in result.output
    (first, hint) = result.stderr.splitlines()[:2]
    assert first.startswith("error: .flox/pkgs/pytorch-") and first.endswith(f"cannot write this file: {os.strerror(code)}")
    assert re.search(r"5 of \d+ changed files were written, each whole", hint) and "run gen-matrix again" in hint
    fresh, stale = assert_whole(root, old, new)
    assert fresh == 5 and stale > 0
    assert (root / ".flox/pkgs/pytorch-python313-cuda12_8-sm100-avx2.nix").exists()  # removal comes last

    assert run("check", "--root", root).exit_code == 1
    rerun = run("--root", root)
    assert rerun.exit_code == 0, rerun.output
    assert re.search(r" [1-9]\d* written, \d+ unchanged, 7 removed", rerun.stdout), rerun.stdout
    assert files(root) == new
    assert run("check", "--root", root).exit_code == 0


def test_an_interrupt_part_way_leaves_whole_files(changed, monkeypatch):
    root, old, new = changed
    p = locate(str(root / "matrix.yaml"), str(root))
    plan = generator_run.plan(p, generator_run.expansion(p))
    fail_after(20, KeyboardInterrupt())(monkeypatch, "replace")
    with pytest.raises(KeyboardInterrupt):
        write.apply(plan)
    monkeypatch.undo()
    assert assert_whole(root, old, new)[0] == 20


def test_nothing_is_written_before_every_file_is_rendered(changed, run, monkeypatch):
    """A problem found while planning (here a file of the user's in the way) stops the run
    before the first write."""
    root, old, _ = changed
    mine = root / ".flox/pkgs/pytorch-python313-cpu-avx2.nix"
    mine.write_text("{ }: \"hand-written\"\n")
    old[mine.relative_to(root).as_posix()] = mine.read_bytes()
    writes = fail_after(10**6, AssertionError())(monkeypatch, "replace")
    result = run("--root", root)
    assert result.exit_code == 2 and "was not generated by gen-matrix" in result.stderr
    assert writes == [] and files(root) == old


@contextlib.contextmanager
def read_only(folder):
    """`folder` made read-only for this process: by its mode, or, for root (whom modes do not
    stop, as in CI), by the immutable attribute."""
    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            yield "Permission denied"
        finally:
            folder.chmod(0o755)
        return
    chattr = shutil.which("chattr")
    if chattr is None or subprocess.run([chattr, "+i", str(folder)], capture_output=True).returncode != 0:
        pytest.skip("running as root, and this file system has no immutable attribute (chattr +i)")
    try:
        yield "Operation not permitted"
    finally:
        subprocess.run([chattr, "-i", str(folder)], check=True)


@needs_posix("a read-only folder (by its mode, or chattr +i for root)")
def test_a_read_only_tree_is_reported_not_crashed(changed, run):
    root, old, new = changed
    with read_only(root / ".flox/pkgs") as message:
        result = run("--root", root)
    assert result.exit_code == 2 and message in result.stderr
    assert_whole(root, old, new)


def test_a_file_where_a_folder_goes_is_one_clear_error(project, run):
    (project / ".flox").mkdir()
    (project / ".flox/pkgs").write_text("not a folder\n")
    result = run("--root", project)
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "error: .flox/pkgs: this is a file, but gen-matrix writes into it as a folder",
        "  hint: move the file away, then run gen-matrix again",
    ]
    assert sorted(p.relative_to(project).as_posix() for p in project.rglob("*")) == [
        ".flox", ".flox/pkgs", "matrix.yaml"]


def names(root) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))


def test_a_first_run_writes_each_new_folder_whole_then_moves_it_into_place(project, run, monkeypatch):
    renamed = []
    real = os.rename
    monkeypatch.setattr(os, "rename", lambda source, target: renamed.append(os.path.basename(target))
                        or real(source, target))
    assert run("--root", project).exit_code == 0
    assert sorted(renamed) == [".flox", ".github", "nix"]
    assert not [name for name in names(project) if name.endswith(".tmp")]
    assert run("check", "--root", project).exit_code == 0


def written_by_a_first_run(run, project, copy) -> int:
    """How many files a first run of `project`'s matrix writes, in `copy`, a folder of its own."""
    shutil.copy(project / "matrix.yaml", copy / "matrix.yaml")
    return int(re.search(r"(\d+) written", run("--root", copy).stdout).group(1))


@pytest.mark.parametrize("where", ["write", "rename"])
def test_a_failure_in_a_first_run_leaves_no_new_folder_in_part(project, run, monkeypatch, where, tmp_path_factory):
    first_run = tmp_path_factory.mktemp("first-run")
    total = written_by_a_first_run(run, project, first_run)
    # what the failed run writes: all but the new folders not yet moved into place
    not_moved = sum(1 for folder in (".github", "nix") for path in (first_run / folder).rglob("*") if path.is_file())
    fail_after(5 if where == "write" else 1, OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)))(monkeypatch, where)
    result = run("--root", project)
    monkeypatch.undo()
    assert result.exit_code == 2 and "Traceback" not in result.output
    first, hint = result.stderr.splitlines()[:2]
    if where == "write":
        assert first.startswith("error: .flox/") and first.endswith("cannot write this file: No space left on device")
        assert f"0 of {total} changed files were written, each whole" in hint
    else:  # .flox was moved into place, .github was not
        assert first == "error: .github: cannot move this new folder into place: No space left on device"
        assert f"{total - not_moved} of {total} changed files were written" in hint
    left = names(project)
    assert not [name for name in left if name.endswith(".tmp")]
    assert ".github" not in left and "nix" not in left
    assert (".flox/pkgs" in left) == (where == "rename")
    assert run("--root", project).exit_code == 0
    assert run("check", "--root", project).exit_code == 0


def test_a_folder_shaped_like_a_staging_folder_but_not_journaled_is_left_alone(project, run):
    """Only a token the lock file names makes a leftover (test_ownership kills real runs)."""
    mine = project / f"..flox.{os.getpid()}.tmp" / "pkgs"
    mine.mkdir(parents=True)
    (mine / "pytorch-python313-cpu-avx2.nix").write_text("my notes")
    assert run("--root", project).exit_code == 0
    assert (mine / "pytorch-python313-cpu-avx2.nix").read_text() == "my notes"
    assert run("check", "--root", project).exit_code == 0
