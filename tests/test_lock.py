"""The run lock, held directly: what the lock file says while a run writes, what it keeps
when a run is cut short, and what it refuses to touch.

flock locks belong to an open file, so a second `held` in the same process is refused just
as a second run would be: these tests need no second process.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import signal
import subprocess
import sys

import filelock
import pytest

from generator.errors import GenMatrixError, Location
from generator.layout import RUN_LOCK_FILE, RUN_MARKER_FILE
from generator.pipeline import lock

from conftest import FIXTURE_MATRIX, needs_posix, needs_symlinks

# Windows' locks are mandatory: while a run holds the lock file, no other handle reads it.
READ_WHILE_HELD = pytest.mark.skipif(sys.platform == "win32", reason="on Windows a held lock file cannot be read")


OLD = "0123456789abcdef"
OLDER = "fedcba9876543210"


def put(path, text: str) -> None:
    """A file's text as gen-matrix writes its lock file: LF line endings on every system."""
    path.write_bytes(text.encode())


@contextlib.contextmanager
def another_holder(root):
    """The lock file held, as another run holds it: through a descriptor of its own."""
    descriptor = os.open(root / RUN_LOCK_FILE, os.O_RDWR | os.O_CREAT)
    try:
        assert filelock.lock_descriptor(descriptor, blocking=False)
        yield
    finally:
        os.close(descriptor)


def lines(root) -> list[str]:
    return (root / RUN_LOCK_FILE).read_text().split("\n")


def problem(error: pytest.ExceptionInfo) -> tuple[Location, str, str]:
    (only,) = error.value.problems
    return only.where, only.message, only.hint


def test_a_token_is_16_random_hex_digits():
    tokens = {lock.new_token() for _ in range(20)}
    assert len(tokens) == 20
    assert all(re.fullmatch("[0-9a-f]{16}", token) for token in tokens)


@READ_WHILE_HELD
def test_while_held_the_lock_file_names_the_run_and_its_process(tmp_path):
    with lock.held(tmp_path) as run:
        assert run.cut_short == ()
        assert re.fullmatch("[0-9a-f]{16}", run.token)
        assert lines(tmp_path) == [lock.FIRST_LINE, f"run {run.token}", f"pid {os.getpid()}", ""]
        assert lock.journal(tmp_path) == (run.token,)
    assert not (tmp_path / RUN_LOCK_FILE).exists()


@READ_WHILE_HELD
def test_a_run_inherits_the_tokens_of_runs_cut_short_and_removes_the_file_when_done(tmp_path):
    put(tmp_path / RUN_LOCK_FILE,
        f"{lock.FIRST_LINE}\nrun {OLDER}\npid 12\nrun {OLD}\nrun {OLDER}\nrun ABCDEF0123456789\nrun {OLD}0\n")
    with lock.held(tmp_path) as run:
        assert run.cut_short == (OLDER, OLD)  # in order, each once; nothing that is not a token
        assert lines(tmp_path) == [lock.FIRST_LINE, f"run {OLDER}", f"run {OLD}", f"run {run.token}",
                                   f"pid {os.getpid()}", ""]
    assert not (tmp_path / RUN_LOCK_FILE).exists()


def test_a_run_cut_short_keeps_the_journal_when_it_inherited_one(tmp_path):
    put(tmp_path / RUN_LOCK_FILE, f"{lock.FIRST_LINE}\nrun {OLD}\n")
    with pytest.raises(KeyboardInterrupt):
        with lock.held(tmp_path) as run:
            raise KeyboardInterrupt
    # its leftovers and those it inherited are still to be removed by the next run
    assert lock.journal(tmp_path) == (OLD, run.token)


def test_a_run_cut_short_with_nothing_inherited_removes_the_lock_file(tmp_path):
    with pytest.raises(RuntimeError):
        with lock.held(tmp_path):
            raise RuntimeError
    assert not (tmp_path / RUN_LOCK_FILE).exists()


def test_an_empty_file_of_the_lock_files_name_is_the_users_and_kept(tmp_path, run):
    """gen-matrix's lock file is never empty: the run that creates it writes its first line at once."""
    (tmp_path / RUN_LOCK_FILE).write_bytes(b"")
    with pytest.raises(GenMatrixError) as error:
        with lock.held(tmp_path):
            pass
    assert problem(error)[:2] == (Location(RUN_LOCK_FILE), "this file is not gen-matrix's run lock, but gen-matrix "
                                                           "keeps its lock here")
    assert (tmp_path / RUN_LOCK_FILE).read_bytes() == b""
    (tmp_path / "matrix.yaml").write_text(FIXTURE_MATRIX.read_text())
    result = run("--root", tmp_path)
    assert result.exit_code == 2 and f"error: {RUN_LOCK_FILE}: this file is not gen-matrix's run lock" in result.stderr
    assert (tmp_path / RUN_LOCK_FILE).read_bytes() == b"" and sorted(p.name for p in tmp_path.iterdir()) == [
        RUN_LOCK_FILE, "matrix.yaml"]


def test_a_run_writes_the_first_line_into_the_lock_file_it_creates_before_it_locks_it(tmp_path, monkeypatch):
    real, seen = lock.take_now, []

    def looking(descriptor):
        seen.append((tmp_path / RUN_LOCK_FILE).read_bytes())
        return real(descriptor)

    monkeypatch.setattr(lock, "take_now", looking)
    with lock.held(tmp_path):
        pass
    assert seen == [f"{lock.FIRST_LINE}\n".encode()]


def test_a_lock_file_found_empty_as_its_creator_writes_its_first_line_is_taken(tmp_path):
    """Another run created the file and is one write from its first line when this run locks it."""
    import threading

    (tmp_path / RUN_LOCK_FILE).write_bytes(b"")
    threading.Timer(0.1, put, (tmp_path / RUN_LOCK_FILE, f"{lock.FIRST_LINE}\n")).start()
    with lock.held(tmp_path) as run:
        assert run.cut_short == ()
    assert not (tmp_path / RUN_LOCK_FILE).exists()


@READ_WHILE_HELD
def test_a_second_run_is_refused_and_named_by_the_holders_process(tmp_path):
    with lock.held(tmp_path) as first:
        with pytest.raises(GenMatrixError) as error:
            with lock.held(tmp_path, wait=0):
                pass
        assert lock.journal(tmp_path) == (first.token,)  # the holder's lock file is as it was
    where, message, hint = problem(error)
    assert (where, hint) == (Location(RUN_LOCK_FILE), "wait for it to finish and run gen-matrix again; the lock goes "
                                                      "with the process that holds it")
    assert re.fullmatch(rf"another gen-matrix run \(process {os.getpid()}(: .+)?\) is writing this repository", message)


HOLD = """
import sys, time
from pathlib import Path
from generator.pipeline import lock
with lock.held(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(60)
"""


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="the command line of a process, from Linux's /proc")
def test_the_refusal_names_the_holders_process_and_its_command_line(tmp_path):
    from conftest import REPO

    script = tmp_path / "hold.py"
    script.write_text(HOLD)
    # run from its folder, so that its command line stays under the length shown whole however
    # deep the test's folder is
    holder = subprocess.Popen([sys.executable, script.name, ".", "--a-word\nof\x1bits"], cwd=tmp_path,
                              stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        assert holder.stdout.readline() == "held\n"
        with pytest.raises(GenMatrixError) as error:
            with lock.held(tmp_path, wait=0):
                pass
    finally:
        holder.kill()
        holder.wait()
    (only,) = error.value.problems
    assert str(only).startswith(f"{RUN_LOCK_FILE}: another gen-matrix run (process {holder.pid}: {sys.executable} "
                                f"{script.name} . --a-word\\nof\\x1bits) is writing this repository\n")


def test_without_a_wait_a_second_run_waits_the_default_time(tmp_path, monkeypatch):
    monkeypatch.setattr(lock, "WAIT_SECONDS", 0.0)
    with lock.held(tmp_path):
        with pytest.raises(GenMatrixError, match="another gen-matrix run"):
            with lock.held(tmp_path):
                pass


def test_a_lock_held_by_an_unnamed_process_says_so_without_a_number(tmp_path):
    put(tmp_path / RUN_LOCK_FILE, f"{lock.FIRST_LINE}\n")
    with another_holder(tmp_path), pytest.raises(GenMatrixError) as error:
        with lock.held(tmp_path, wait=0):
            pass
    assert problem(error)[1] == "another gen-matrix run is writing this repository"
    assert (tmp_path / RUN_LOCK_FILE).read_text() == f"{lock.FIRST_LINE}\n"


@pytest.mark.parametrize("text", [b"my own notes\n", b"gen-matrix run lock\nrun 0123456789abcdef\n",
                                  b"\n" + lock.FIRST_LINE.encode() + b"\n"])
def test_a_users_file_at_the_lock_path_is_refused_and_left_as_it_is(tmp_path, text):
    (tmp_path / RUN_LOCK_FILE).write_bytes(text)
    with pytest.raises(GenMatrixError) as error:
        with lock.held(tmp_path):
            pass
    where, message, hint = problem(error)
    assert where == Location(RUN_LOCK_FILE)
    assert message == "this file is not gen-matrix's run lock, but gen-matrix keeps its lock here"
    assert hint.startswith("move it away")
    assert (tmp_path / RUN_LOCK_FILE).read_bytes() == text
    assert lock.journal(tmp_path) == ()


@READ_WHILE_HELD
def test_a_users_file_at_the_lock_path_is_refused_while_another_holds_it(tmp_path):
    put(tmp_path / RUN_LOCK_FILE, "mine\n")
    with another_holder(tmp_path), pytest.raises(GenMatrixError, match="this file is not gen-matrix's run lock"):
        with lock.held(tmp_path, wait=10):
            pass




@pytest.mark.parametrize("make", [os.mkdir, pytest.param(lambda path: os.mkfifo(path), marks=needs_posix("FIFOs")),
                                  pytest.param(lambda path: os.symlink("elsewhere", path), marks=needs_symlinks)],
                         ids=["folder", "fifo", "link"])
def test_something_other_than_a_regular_file_at_the_lock_path_is_refused(tmp_path, make):
    make(tmp_path / RUN_LOCK_FILE)
    with pytest.raises(GenMatrixError) as error:
        with lock.held(tmp_path):
            pass
    assert problem(error) == (
        Location(RUN_LOCK_FILE), "this is not a regular file (a folder, a link, a FIFO or a device), but "
        "gen-matrix keeps its run lock here", "move it away, then run gen-matrix again")
    assert lock.journal(tmp_path) == ()
    assert not (tmp_path / "elsewhere").exists()


def test_a_repository_folder_that_does_not_exist_is_named(tmp_path):
    with pytest.raises(GenMatrixError) as error:
        with lock.held(tmp_path / "missing"):
            pass
    assert problem(error) == (Location(str(tmp_path / "missing")), "the repository folder does not exist",
                              "pass the repository with --root, or run from it")
    assert not (tmp_path / "missing").exists()


def test_a_failed_write_removes_a_lock_file_it_made_and_keeps_one_it_found(tmp_path, monkeypatch):
    import errno

    def full(*args):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(lock.os, "write", full)
    with pytest.raises(GenMatrixError) as error:
        with lock.held(tmp_path):
            pass
    assert problem(error)[1] == f"cannot write the lock file: {os.strerror(errno.ENOSPC)}"
    assert not (tmp_path / RUN_LOCK_FILE).exists()
    put(tmp_path / RUN_LOCK_FILE, f"{lock.FIRST_LINE}\nrun {OLD}\n")
    with pytest.raises(GenMatrixError):
        with lock.held(tmp_path):
            pass
    assert lock.journal(tmp_path) == (OLD,)


@READ_WHILE_HELD
def test_a_short_write_is_finished(tmp_path, monkeypatch):
    real = os.write
    monkeypatch.setattr(lock.os, "write", lambda fd, data: real(fd, bytes(data[:5])))
    with lock.held(tmp_path) as run:
        assert lines(tmp_path) == [lock.FIRST_LINE, f"run {run.token}", f"pid {os.getpid()}", ""]


def test_a_longer_journal_is_cut_to_the_new_text(tmp_path):
    put(tmp_path / RUN_LOCK_FILE, f"{lock.FIRST_LINE}\nrun {OLD}\n" + "pid 1\n" * 1000)
    with pytest.raises(RuntimeError):
        with lock.held(tmp_path) as run:
            raise RuntimeError
    assert lines(tmp_path) == [lock.FIRST_LINE, f"run {OLD}", f"run {run.token}", f"pid {os.getpid()}", ""]


def test_journal_reads_only_gen_matrix_lock_files(tmp_path):
    assert lock.journal(tmp_path) == ()
    path = tmp_path / RUN_LOCK_FILE
    put(path, f"{lock.FIRST_LINE}\nrun {OLD}\nrun {OLD}\nrun {OLDER}\n")
    assert lock.journal(tmp_path) == (OLD, OLDER)
    put(path, f"not the lock\nrun {OLD}\n")
    assert lock.journal(tmp_path) == ()
    path.unlink()
    path.mkdir()
    assert lock.journal(tmp_path) == ()
    path.rmdir()
    put(tmp_path / "target", f"{lock.FIRST_LINE}\nrun {OLD}\n")
    path.symlink_to("target")
    assert lock.journal(tmp_path) == ()  # not through a link


def test_journal_of_a_file_beyond_its_size_reads_its_start(tmp_path):
    put(tmp_path / RUN_LOCK_FILE, f"{lock.FIRST_LINE}\nrun {OLD}\n" + "x" * (lock._MAX_BYTES * 2)
                                          + f"\nrun {OLDER}\n")
    assert lock.journal(tmp_path) == (OLD,)


@pytest.mark.parametrize("text", [b"\xff\xfe\x00binary", lock.FIRST_LINE.encode() + b"\nrun \xff\n"])
def test_a_lock_file_of_bytes_that_are_not_text_is_read_not_crashed_on(tmp_path, text):
    (tmp_path / RUN_LOCK_FILE).write_bytes(text)
    if text.startswith(lock.FIRST_LINE.encode()):
        assert lock.journal(tmp_path) == ()
        with lock.held(tmp_path) as run:
            assert run.cut_short == ()
        return
    assert lock.journal(tmp_path) == ()
    with pytest.raises(GenMatrixError) as error:
        with lock.held(tmp_path):
            pass
    assert problem(error) == (
        Location(RUN_LOCK_FILE), "this file is not gen-matrix's run lock, but gen-matrix keeps its lock here",
        "move it away (gen-matrix never writes or removes a file of this name that it did not make), "
        "then run gen-matrix again")
    assert (tmp_path / RUN_LOCK_FILE).read_bytes() == text


def test_a_repository_path_that_is_a_file_is_named(tmp_path):
    put(tmp_path / "file", "")
    with pytest.raises(GenMatrixError) as error:
        with lock.held(tmp_path / "file"):
            pass
    assert problem(error) == (Location(str(tmp_path / "file")),
                              "this is not a folder, but gen-matrix takes it for the repository",
                              "pass the repository with --root, or run from it")


@needs_posix("file modes")
def test_the_lock_file_is_readable_by_all_and_writable_by_its_owner(tmp_path):
    old = os.umask(0o022)
    try:
        with lock.held(tmp_path):
            assert (tmp_path / RUN_LOCK_FILE).stat().st_mode & 0o777 == 0o644
    finally:
        os.umask(old)


@needs_posix("FIFOs")
def test_a_fifo_made_between_the_look_and_the_open_is_refused(tmp_path, monkeypatch):
    os.mkfifo(tmp_path / RUN_LOCK_FILE)

    def missing(path):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT))

    monkeypatch.setattr(lock.os, "lstat", missing)
    with pytest.raises(GenMatrixError, match="this is not a regular file"):
        with lock.held(tmp_path):
            pass


# gen-matrix in a Python where `import fcntl` fails, as on a system with no lock on open files.
WITHOUT_FCNTL = "import sys; sys.modules['fcntl'] = None; from generator.cli import main; main(prog_name='gen-matrix')"
HOLD_WITHOUT_FCNTL = ("import sys, time; sys.modules['fcntl'] = None\n"
                      "from generator.pipeline import lock\n"
                      "with lock.held(sys.argv[1]):\n"
                      "    print('held', flush=True); time.sleep(60)\n")


def without_fcntl(*args, code: str = WITHOUT_FCNTL, **kwargs):
    return subprocess.Popen([sys.executable, "-c", code, *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kwargs)


def finished(process) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=120)
    return process.returncode, out, err


# Windows has no fcntl and a lock of its own (LockFileEx): these show the marker lock elsewhere.
NOT_WINDOWS = pytest.mark.skipif(sys.platform == "win32", reason="Windows locks open files without fcntl")


@NOT_WINDOWS
def test_the_library_has_no_lock_on_open_files_without_fcntl():
    """What the tests below stand on: filelock then answers ENOSYS, and this module falls back."""
    probe = ("import sys; sys.modules['fcntl'] = None\n"
             "import errno, filelock, os, tempfile\n"
             "descriptor, _ = tempfile.mkstemp()\n"
             "try:\n    filelock.lock_descriptor(descriptor, blocking=False)\n"
             "except OSError as error:\n    print(errno.errorcode[error.errno])\n")
    assert finished(without_fcntl(code=probe))[:2] == (0, "ENOSYS\n")


def test_without_fcntl_generate_and_check_run_and_leave_no_lock(project, run):
    assert run("--root", project).exit_code == 0
    expected = {p.relative_to(project): p.read_bytes() for p in project.rglob("*") if p.is_file()}
    for p in project.rglob("*"):
        if p.is_file() and p.name != "matrix.yaml":
            p.unlink()
    code, out, err = finished(without_fcntl("--root", project))
    assert (code, err) == (0, "")
    assert {p.relative_to(project): p.read_bytes() for p in project.rglob("*") if p.is_file()} == expected
    assert finished(without_fcntl("check", "--root", project))[0] == 0


@NOT_WINDOWS
def test_without_fcntl_a_second_run_waits_for_the_first_and_is_refused_by_its_process(project):
    holder = without_fcntl(project, code=HOLD_WITHOUT_FCNTL)
    try:
        assert holder.stdout.readline() == "held\n"
        assert (project / RUN_MARKER_FILE).is_file()
        code, out, err = finished(without_fcntl("--root", project, code=WITHOUT_FCNTL.replace(
            "from generator.cli", "from generator.pipeline import lock; lock.WAIT_SECONDS = 0.5; from generator.cli")))
    finally:
        holder.kill()
        holder.wait()
    assert code == 2
    assert f"another gen-matrix run (process {holder.pid}" in err
    assert not (project / "BUILD_MATRIX.md").exists()


@NOT_WINDOWS
def test_without_fcntl_the_marker_of_a_run_killed_with_9_is_taken_over(project, run):
    holder = without_fcntl(project, code=HOLD_WITHOUT_FCNTL)
    assert holder.stdout.readline() == "held\n"
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    assert (project / RUN_MARKER_FILE).is_file() and (project / RUN_LOCK_FILE).is_file()
    code, out, err = finished(without_fcntl("--root", project))
    assert (code, err) == (0, "")
    assert not (project / RUN_MARKER_FILE).exists() and not (project / RUN_LOCK_FILE).exists()
    assert run("check", "--root", project).exit_code == 0


def test_a_lock_file_that_cannot_be_read_while_held_is_waited_for_as_gen_matrixs(tmp_path, monkeypatch):
    """As on Windows, where another process's lock makes the held file unreadable."""
    def unreadable(*args):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))

    with another_holder(tmp_path), pytest.raises(GenMatrixError) as error:
        monkeypatch.setattr(lock.os, "read", unreadable)
        with lock.held(tmp_path, wait=0.2):
            pass
    assert problem(error)[1] == "another gen-matrix run is writing this repository"


@READ_WHILE_HELD
def test_a_second_run_takes_the_lock_when_the_first_lets_go_within_the_wait(tmp_path):
    import threading

    first = lock.held(tmp_path)
    first_run = first.__enter__()
    threading.Timer(0.3, first.__exit__, (None, None, None)).start()
    with lock.held(tmp_path, wait=30) as second:
        assert lock.journal(tmp_path) == (second.token,)
        assert second.token != first_run.token and second.cut_short == ()
    assert not (tmp_path / RUN_LOCK_FILE).exists()


@READ_WHILE_HELD
def test_a_lock_file_removed_as_it_was_taken_is_taken_again_at_its_path(tmp_path, monkeypatch):
    """The run before removed its lock file between this run's open and lock: the lock is on a
    file no other run can find, so it is taken again on a new file at the path."""
    real = lock.take_now
    calls = []

    def removed_meanwhile(descriptor):
        calls.append(descriptor)
        taken = real(descriptor)
        if len(calls) == 1:
            os.unlink(tmp_path / RUN_LOCK_FILE)
        return taken

    monkeypatch.setattr(lock, "take_now", removed_meanwhile)
    with lock.held(tmp_path) as run:
        assert len(calls) == 2
        assert lines(tmp_path) == [lock.FIRST_LINE, f"run {run.token}", f"pid {os.getpid()}", ""]
        monkeypatch.undo()
        with pytest.raises(GenMatrixError, match="another gen-matrix run"):  # the new file is held
            with lock.held(tmp_path, wait=0):
                pass


@pytest.mark.parametrize("error, tries, removed", [
    # as on Windows, which removes no open file: removed just after the lock is let go
    (PermissionError(errno.EACCES, os.strerror(errno.EACCES)), 2, True),
    # once let go, another run may hold the file: only Windows' refusal is tried again
    (OSError(errno.EIO, os.strerror(errno.EIO)), 1, False),
], ids=["open-on-windows", "other-error"])
def test_a_lock_file_that_cannot_be_removed_while_held(tmp_path, monkeypatch, error, tries, removed):
    real = os.unlink
    calls = []

    def failing_once(path, *args, **kwargs):
        calls.append(path)
        if len(calls) == 1:
            raise error
        return real(path, *args, **kwargs)

    monkeypatch.setattr(lock.os, "unlink", failing_once)
    with lock.held(tmp_path):
        pass
    assert len(calls) == tries
    assert (tmp_path / RUN_LOCK_FILE).exists() is not removed


def test_a_lock_file_another_run_opened_meanwhile_is_left_to_it(tmp_path, monkeypatch):
    """On Windows the removal after closing fails while another run has the file open: no error."""
    def open_elsewhere(path, *args, **kwargs):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))

    monkeypatch.setattr(lock.os, "unlink", open_elsewhere)
    with lock.held(tmp_path):
        pass
    assert (tmp_path / RUN_LOCK_FILE).exists()


@pytest.mark.skipif(sys.platform == "win32", reason="Windows removes no open file: there it goes once closed")
def test_a_run_removes_its_lock_file_once_while_it_holds_it(tmp_path, monkeypatch):
    """Never again after letting it go, when the file at the path may be another run's."""
    real = os.unlink
    tries = []
    monkeypatch.setattr(lock.os, "unlink", lambda path: (tries.append(path), real(path)))
    with lock.held(tmp_path):
        pass
    assert tries == [os.path.join(tmp_path, RUN_LOCK_FILE)]


EACCES, ENOENT, ENOLCK = (OSError(code, os.strerror(code)) for code in (errno.EACCES, errno.ENOENT, errno.ENOLCK))


@pytest.mark.parametrize("where, name, error, expected", [
    (os, "lstat", PermissionError(*EACCES.args), (RUN_LOCK_FILE, f"cannot read the lock file: {EACCES.strerror}",
                                                  "move it away, then run gen-matrix again")),
    (os, "open", PermissionError(*EACCES.args), (RUN_LOCK_FILE, f"cannot create the lock file: {EACCES.strerror}",
                                                 "gen-matrix writes the repository: run it where you may write")),
    # the repository folder removed between the look and the open
    (os, "open", FileNotFoundError(*ENOENT.args), (None, "the repository folder does not exist",
                                                   "pass the repository with --root, or run from it")),
    (lock, "take_now", ENOLCK, (RUN_LOCK_FILE, f"cannot lock the file: {ENOLCK.strerror}",
                                           "gen-matrix needs a file system with file locks for its run lock")),
], ids=["look", "create", "folder-gone", "lock"])
def test_a_step_the_system_refuses_is_named_and_leaves_nothing_held(tmp_path, monkeypatch, where, name, error,
                                                                     expected):
    def refused(*args, **kwargs):
        raise error

    monkeypatch.setattr(where, name, refused)
    with pytest.raises(GenMatrixError) as raised:
        with lock.held(tmp_path):
            pass
    path, message, hint = expected
    assert problem(raised) == (Location(path or str(tmp_path)), message, hint)
    monkeypatch.undo()
    with lock.held(tmp_path, wait=0):  # no descriptor of this process holds the file
        pass
