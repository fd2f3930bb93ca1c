"""One run at a time: a run that writes holds a lock on a file in the repository.

Two runs that interleave would leave a tree that matches neither matrix. The lock is the
operating system's lock on the open lock file: flock on Linux and macOS (through Python's
fcntl), LockFileEx on Windows (through filelock). The system releases it when its holder dies, however it dies: a
run killed with -9 leaves a lock file that the next run simply takes. Where Python has no such
lock (a system that is neither POSIX with fcntl nor Windows), filelock's marker lock guards the
run instead: a file beside the lock file that names the process holding it, which a later run
on the same host takes over once that process is gone.

The lock file is also the journal of the runs that wrote: before a run creates a temporary
file, the lock file names the run's token, and every temporary file and staging folder it
makes carries that token in its name. A run killed part way leaves its token in the lock
file, and the next run that takes the lock inherits it: only a file or folder whose name
carries a token found there is a leftover, never one that merely looks like one. The token
is random, so no user's file carries it by chance.

The lock file is gen-matrix's only while it holds gen-matrix's first line: a file of that
name with other text, or none, is the user's, and is neither truncated, written nor removed.
A run that creates the file writes that line into it at once, before it even takes the lock,
so that a file of its own is never without it for longer than one write.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import time
import warnings
from pathlib import Path
from typing import Iterator

from ..errors import GenMatrixError, Location
from ..layout import RUN_LOCK_FILE, RUN_MARKER_FILE
from ..records import dataclass

# How long a second run waits for the first to finish: a run of the shipped matrix takes
# well under a second, one of tens of thousands of variants a few.
WAIT_SECONDS = 30.0
# How much of the holder's command line the message shows.
_COMMAND_CHARS = 200
_POLL_SECONDS = 0.05
FIRST_LINE = "gen-matrix run lock: the run that writes this repository, and the tokens of runs cut short"
_RUN_LINE = re.compile(r"^run ([0-9a-f]{16})$")
# A journal of tokens, one line each: far more runs cut short in a row than anyone makes.
_MAX_BYTES = 64 * 1024
_OPEN = os.O_RDWR | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
_CREATE = _OPEN | os.O_CREAT | os.O_EXCL
# How long a run that finds the lock file empty waits for the run that created it to write its
# first line (one write away) before it takes the file for the user's.
_CREATING_SECONDS = 0.5


@dataclass(frozen=True)
class Run:
    """The run that holds the lock: its token, and those of the runs cut short before it."""

    token: str
    cut_short: tuple[str, ...] = ()


def new_token() -> str:
    """16 hex digits from the system's randomness (what secrets.token_hex reads, without the
    modules that importing secrets brings)."""
    return os.urandom(8).hex()


def _tokens(text: bytes) -> tuple[str, ...] | None:
    """The tokens a lock file's text names (none in an empty text: one being created, or unread); None
    when the text is not gen-matrix's."""
    if not text:
        return ()
    lines = text.decode("utf-8", errors="replace").split("\n")
    if lines[0] != FIRST_LINE:
        return None
    return tuple(dict.fromkeys(m.group(1) for m in map(_RUN_LINE.match, lines[1:]) if m))


def journal(root: Path) -> tuple[str, ...]:
    """The tokens the lock file names, read without taking the lock (for `check`)."""
    path = os.path.join(root, RUN_LOCK_FILE)
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return ()
        with open(path, "rb") as handle:
            return _tokens(handle.read(_MAX_BYTES)) or ()
    except OSError:
        return ()


def _holder(text: bytes) -> str:
    found = re.search(rb"^pid ([0-9]{1,12})$", text, re.MULTILINE)
    return found.group(1).decode() if found else ""


def _read(descriptor: int) -> bytes:
    """The lock file's text; empty where it cannot be read (on Windows, while another run holds it)."""
    try:
        os.lseek(descriptor, 0, os.SEEK_SET)
        return os.read(descriptor, _MAX_BYTES)
    except OSError:
        return b""


def _write(descriptor: int, text: bytes) -> None:
    """The lock file's text made `text`, through the descriptor that holds the lock."""
    os.lseek(descriptor, 0, os.SEEK_SET)
    data = memoryview(text)
    while data:
        data = data[os.write(descriptor, data):]
    os.ftruncate(descriptor, len(text))


def _not_regular() -> GenMatrixError:
    return GenMatrixError.at(Location(RUN_LOCK_FILE),
                             "this is not a regular file (a folder, a link, a FIFO or a device), but gen-matrix "
                             "keeps its run lock here",
                             "move it away, then run gen-matrix again")


def _open(root: Path, path: str) -> int:
    """A descriptor on the regular file at the lock's path, created when there is none."""
    if not os.path.isdir(root):
        raise GenMatrixError.at(Location(str(root)), "this is not a folder, but gen-matrix takes it for the repository"
                                if os.path.lexists(root) else "the repository folder does not exist",
                                "pass the repository with --root, or run from it")
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:
        raise GenMatrixError.at(Location(RUN_LOCK_FILE), f"cannot read the lock file: {error.strerror or error}",
                                "move it away, then run gen-matrix again") from None
    if mode is not None and not stat.S_ISREG(mode):
        raise _not_regular()
    while True:
        try:
            descriptor = os.open(path, _CREATE, 0o644)
            created = True
        except FileExistsError:
            try:
                descriptor = os.open(path, _OPEN)
                created = False
            except FileNotFoundError:  # removed by the run that held it, between the two opens
                continue
            except OSError as error:
                raise GenMatrixError.at(Location(RUN_LOCK_FILE), f"cannot open the lock file: {error.strerror or error}",
                                        "move it away, then run gen-matrix again") from None
        except FileNotFoundError:
            raise GenMatrixError.at(Location(str(root)), "the repository folder does not exist",
                                    "pass the repository with --root, or run from it") from None
        except OSError as error:
            raise GenMatrixError.at(Location(RUN_LOCK_FILE), f"cannot create the lock file: {error.strerror or error}",
                                    "gen-matrix writes the repository: run it where you may write") from None
        break
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):  # replaced between the look and the open
        os.close(descriptor)
        raise _not_regular()
    if created:
        try:
            _write(descriptor, f"{FIRST_LINE}\n".encode("ascii"))
        except OSError as error:
            os.close(descriptor)
            with contextlib.suppress(OSError):
                os.unlink(path)
            raise GenMatrixError.at(Location(RUN_LOCK_FILE), f"cannot write the lock file: {error.strerror or error}",
                                    "free some space on the disk (or fix its permissions), then run gen-matrix "
                                    "again; nothing was written") from None
    return descriptor


def _users(descriptor: int) -> GenMatrixError:
    os.close(descriptor)
    return GenMatrixError.at(Location(RUN_LOCK_FILE),
                             "this file is not gen-matrix's run lock, but gen-matrix keeps its lock here",
                             "move it away (gen-matrix never writes or removes a file of this name that it "
                             "did not make), then run gen-matrix again")


def _command_of(pid: str) -> str:
    """The command line of process `pid`, where the system tells it (Linux's /proc); "" elsewhere."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            words = handle.read(_MAX_BYTES).rstrip(b"\0").split(b"\0")
    except OSError:
        return ""
    text = " ".join(word.decode("utf-8", "replace") for word in words if word)
    return text if len(text) <= _COMMAND_CHARS else text[:_COMMAND_CHARS] + "..."


def _busy(holder: str) -> GenMatrixError:
    command = _command_of(holder) if holder else ""
    named = f" (process {holder}{f': {command}' if command else ''})" if holder else ""
    return GenMatrixError.at(
        Location(RUN_LOCK_FILE),
        f"another gen-matrix run{named} is writing this repository",
        "wait for it to finish and run gen-matrix again; the lock goes with the process that holds it")


def _filelock():
    """filelock, imported only where a run takes the lock without fcntl: on Windows, or for
    the marker lock (filelock and what it imports are a fortieth of a generate's time)."""
    with warnings.catch_warnings():  # filelock warns on import where it has only its marker lock
        warnings.simplefilter("ignore")
        import filelock
    return filelock


def _fcntl():
    """Python's fcntl, where the system has it (POSIX): its flock is the lock filelock takes
    there, without filelock's imports. None on Windows, or where `import fcntl` fails."""
    try:
        import fcntl
    except ImportError:
        return None
    return fcntl


# What flock answers when another process holds the lock: EWOULDBLOCK, or EACCES on some file
# systems (as filelock reads it).
_HELD = frozenset({errno.EACCES, errno.EAGAIN, errno.EWOULDBLOCK})


def take_now(descriptor: int) -> bool | None:
    """The system's lock on the open file, taken without waiting: True when taken, False when
    another process holds it, None where this Python has no lock on open files."""
    fcntl = _fcntl()
    try:
        if fcntl is None:
            return _filelock().lock_descriptor(descriptor, blocking=False)
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError as error:
        if fcntl is not None and error.errno in _HELD:
            return False
        if error.errno == errno.ENOSYS:
            return None
        raise


def _lock(descriptor: int) -> bool | None:
    """take_now, for the run lock: a file system without locks is a located error, and the
    descriptor is closed."""
    try:
        return take_now(descriptor)
    except OSError as error:
        os.close(descriptor)
        raise GenMatrixError.at(Location(RUN_LOCK_FILE), f"cannot lock the file: {error.strerror or error}",
                                "gen-matrix needs a file system with file locks for its run lock") from None


@contextlib.contextmanager
def _marker_lock(root: Path, deadline: float) -> Iterator[None]:
    """filelock's marker lock beside the lock file, for a Python with no lock on open files."""
    filelock = _filelock()
    marker = filelock.SoftFileLock(os.path.join(root, RUN_MARKER_FILE), timeout=max(0.0, deadline - time.monotonic()))
    try:
        marker.acquire()
    except filelock.Timeout:
        raise _busy(str(marker.pid or "")) from None
    except OSError as error:
        raise GenMatrixError.at(Location(RUN_MARKER_FILE), f"cannot create the lock file: {error.strerror or error}",
                                "gen-matrix writes the repository: run it where you may write") from None
    try:
        yield
    finally:
        marker.release()


def _take(root: Path, path: str, deadline: float, guards: contextlib.ExitStack) -> int:
    """A descriptor on the lock file at `path`, which this run alone holds: by the system's lock
    on it, or by the marker lock (entered into `guards`) where there is none."""
    native = True
    while True:
        descriptor = _open(root, path)
        taken = _lock(descriptor) if native else True
        if taken is None:
            os.close(descriptor)
            guards.enter_context(_marker_lock(root, deadline))
            native = False
            continue
        if not taken:
            text = _read(descriptor)
            if _tokens(text) is None:
                raise _users(descriptor)
            os.close(descriptor)
            if time.monotonic() >= deadline:
                raise _busy(_holder(text))
            time.sleep(_POLL_SECONDS)
            continue
        # The holder before us may have removed the file as we opened it: then this lock is on
        # a file no other run can find, and it must be taken again on the file at the path.
        try:
            same = os.path.samestat(os.fstat(descriptor), os.stat(path))
        except FileNotFoundError:
            same = False
        if same:
            return descriptor
        _release(descriptor)


def _release(descriptor: int) -> None:
    fcntl = _fcntl()
    with contextlib.suppress(OSError):
        if fcntl is None:
            _filelock().unlock_descriptor(descriptor)
        else:
            fcntl.flock(descriptor, fcntl.LOCK_UN)
    os.close(descriptor)


@contextlib.contextmanager
def held(root: Path, wait: float | None = None) -> Iterator[Run]:
    """Hold the repository's lock for the body; wait up to `wait` seconds (WAIT_SECONDS) for another run."""
    path = os.path.join(root, RUN_LOCK_FILE)
    deadline = time.monotonic() + (WAIT_SECONDS if wait is None else wait)
    with contextlib.ExitStack() as guards:
        descriptor = _take(root, path, deadline, guards)
        before = _read(descriptor)
        creating = time.monotonic() + _CREATING_SECONDS
        while not before and time.monotonic() < creating:  # its creator is one write from its first line
            time.sleep(_POLL_SECONDS)
            before = _read(descriptor)
        cut_short = _tokens(before) if before else None
        if cut_short is None:
            raise _users(descriptor)
        # The new text starts with the lines of the old, so a write cut short part way still
        # names the tokens it inherited.
        this = Run(new_token(), cut_short)
        text = "\n".join([FIRST_LINE, *(f"run {token}" for token in (*cut_short, this.token)),
                          f"pid {os.getpid()}", ""]).encode("ascii")
        try:
            _write(descriptor, text)
        except OSError as error:
            _let_go(path, descriptor, remove=not cut_short)
            raise GenMatrixError.at(Location(RUN_LOCK_FILE), f"cannot write the lock file: {error.strerror or error}",
                                    "free some space on the disk (or fix its permissions), then run gen-matrix "
                                    "again; nothing was written") from None
        done = False
        try:
            yield this
            done = True
        finally:
            _let_go(path, descriptor, remove=done or not cut_short)


def _let_go(path: str, descriptor: int, remove: bool) -> None:
    """Release the lock; remove the lock file unless it names a run cut short whose leftovers
    this run did not get to remove.

    It is removed while still held, so that no other run can take a file that is gone. Windows
    removes no file that is open: there it is removed just after it is closed, which fails, as
    it should, when another run has opened it in between."""
    if not remove:
        _release(descriptor)
        return
    try:
        os.unlink(path)
        refused = False
    except PermissionError:  # Windows: the file is open (here); POSIX: the folder is read-only
        refused = True
    except OSError:
        refused = False
    _release(descriptor)
    if refused:
        with contextlib.suppress(OSError):
            os.unlink(path)
