"""One run at a time: a run that writes holds a lock on a file in the repository.

Two runs that interleave would leave a tree that matches neither matrix. The lock is
fcntl's (flock), which the system releases when its holder dies, however it dies: a run
killed with -9 leaves a lock file that the next run simply takes. While it holds the lock, a
run is the only one, so any temporary file beside an output is a dead run's and is removed.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import Iterator

from ..errors import GenMatrixError, Location
from ..layout import RUN_LOCK_FILE

# How long a second run waits for the first to finish: a run of the shipped matrix takes
# well under a second, one of tens of thousands of variants a few.
WAIT_SECONDS = 30.0
_POLL_SECONDS = 0.05


def _holder(descriptor: int) -> str:
    try:
        return os.pread(descriptor, 32, 0).decode("ascii", errors="replace").strip()
    except OSError:
        return ""


@contextlib.contextmanager
def held(root: Path, wait: float | None = None) -> Iterator[None]:
    """Hold the repository's lock for the body; wait up to `wait` seconds (WAIT_SECONDS) for another run."""
    import fcntl  # POSIX: Linux and macOS, where Nix and Flox run

    path = os.path.join(root, RUN_LOCK_FILE)
    deadline = time.monotonic() + (WAIT_SECONDS if wait is None else wait)
    while True:
        try:
            descriptor = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
        except FileNotFoundError:
            raise GenMatrixError.at(Location(str(root)), "the repository folder does not exist",
                                    "pass the repository with --root, or run from it") from None
        except OSError as error:
            raise GenMatrixError.at(Location(RUN_LOCK_FILE), f"cannot create the lock file: {error.strerror or error}",
                                    "gen-matrix writes the repository: run it where you may write") from None
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(descriptor)
            os.close(descriptor)
            if time.monotonic() >= deadline:
                raise GenMatrixError.at(
                    Location(RUN_LOCK_FILE),
                    f"another gen-matrix run{f' (process {holder})' if holder else ''} is writing this repository",
                    "wait for it to finish and run gen-matrix again; the lock goes with the process "
                    "that holds it") from None
            time.sleep(_POLL_SECONDS)
            continue
        # The holder before us may have removed the file as we opened it: then this lock is on
        # a file no other run can find, and it must be taken again on the file at the path.
        try:
            same = os.path.samestat(os.fstat(descriptor), os.stat(path))
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(descriptor)
    try:
        os.ftruncate(descriptor, 0)
        os.pwrite(descriptor, f"{os.getpid()}\n".encode("ascii"), 0)
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)
        os.close(descriptor)
