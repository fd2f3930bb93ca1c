"""nix-instantiate in a box, for `adopt` and `eval`: what they evaluate is code from a
repository, which may be someone else's. And how every child of gen-matrix is read
(`capture`): a cap on the bytes kept of each of its outputs, the rest counted and dropped,
and the child stopped once it passes the cap, so that no child's output (an interpreter that
prints without end, a recipe whose value is a gigabyte) grows gen-matrix's memory.

Evaluation is restricted (`restrict-eval`): Nix reads only the folders named here, fetches
only the URIs named here (none for adopt, the pins' tarballs for eval), never builds to
import (import-from-derivation), and never runs a program (`builtins.exec`), whatever a
nix.conf says. NIX_PATH is dropped, so that <nixpkgs> names no folder of the machine.

Each nix-instantiate runs in a session of its own under a memory limit; it is killed, with
everything it started, when its time runs out, when gen-matrix is interrupted, and (on
Linux) when gen-matrix itself dies, even by kill -9: a loop in a recipe must not outlive
the command that started it, nor take the machine's memory.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Iterable

from ..records import dataclass

# Fetching a pin (about 45 MB) and evaluating every recipe of one system against it takes
# a minute or two on a CI runner; ten minutes is far past any evaluation that will end.
TIMEOUT_S = 600.0
# Evaluating nixpkgs for every recipe of one system takes under 2 GiB; 8 GiB leaves room
# for a larger package set and stops a runaway (a recipe reading /dev/zero, a string that
# doubles) before it takes a runner's memory.
MEMORY_BYTES = 8 * 2**30
# The prefix of the search-path entries that name the folders Nix may read. Restricted
# evaluation allows exactly the search path; a name no recipe uses keeps `<nixpkgs>` unfound.
_ALLOWED = "gen-matrix-allowed"
_PR_SET_PDEATHSIG = 1  # linux/prctl.h
# What gen-matrix keeps of one output of a child, unless its caller says less: far past what
# any child it runs prints when it works (an evaluation of every recipe of a large matrix is a
# few MiB of JSON), and small enough to hold.
OUTPUT_BYTES = 64 * 2**20
_CHUNK = 2**16


@dataclass(frozen=True)
class Finished:
    """A child process run in the box, as it ended: its exit status and output."""

    returncode: int
    stdout: str | bytes
    stderr: str | bytes
    timed_out: bool  # killed when its time ran out; returncode then says nothing
    dropped: int = 0  # bytes past the cap, counted and not kept: the child was stopped at the cap

    def overflow(self, name: str, cap: int) -> str:
        """Why the output of `name` cannot be used, where it passed `cap`; "" where it did not."""
        if not self.dropped:
            return ""
        return (f"{name} wrote more than {_size(cap)} (at least {cap + self.dropped:,} bytes), "
                "so gen-matrix stopped it and kept none of it")


def _size(count: int) -> str:
    return f"{count // 2**20} MiB" if count >= 2**20 else f"{count:,} bytes"


def options(folders: Iterable[Path | str], uris: Iterable[str] = ()) -> list[str]:
    """nix-instantiate's options that confine the evaluation to `folders` and `uris`."""
    confined = ["--option", "restrict-eval", "true",
                "--option", "allowed-uris", " ".join(sorted(set(uris))),
                "--option", "allow-import-from-derivation", "false",
                "--option", "allow-unsafe-native-code-during-evaluation", "false"]
    for index, folder in enumerate(dict.fromkeys(str(f) for f in folders)):
        confined += ["-I", f"{_ALLOWED}-{index}={folder}"]
    return confined


def _environment() -> dict[str, str]:
    return {name: value for name, value in os.environ.items() if name != "NIX_PATH"}


def _confinement(memory: int):
    """What the child does between fork and exec: die with its parent, and hold no more
    than `memory` bytes. Only calls into C: Python objects of other threads may be locked."""
    if os.name != "posix":
        return None
    import resource

    prctl = None
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        prctl = libc.prctl
    parent = os.getpid()

    def confine() -> None:
        if prctl is not None:
            # The signal comes when the thread that started the child ends: each evaluation
            # waits for its process in the thread that started it, so that is when it ends.
            prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
            if os.getppid() != parent:  # gen-matrix died before the line above
                raise OSError("gen-matrix is gone")
        try:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        except (ValueError, OSError):  # macOS refuses some limits; the timeout still holds
            pass

    return confine


class Runs:
    """The nix-instantiate processes of one command. On leaving it (an error, Ctrl-C) every
    process still running is killed, and none starts after."""

    def __init__(self, memory: int | None = None) -> None:
        self._memory = MEMORY_BYTES if memory is None else memory
        self._live: set[subprocess.Popen] = set()
        self._lock = threading.Lock()
        self._closed = False

    def __enter__(self) -> "Runs":
        return self

    def __exit__(self, *_) -> None:
        with self._lock:
            self._closed = True
            live = list(self._live)
        for process in live:
            _kill(process)

    def run(self, command: list[str], timeout: float, cap: int | None = None) -> Finished:
        """`command` to its end or `timeout` seconds, each output read up to `cap` bytes
        (`capture`). OSError where it cannot start."""
        with self._lock:
            if self._closed:
                return Finished(-1, "", "", True)
            process = _start(command, env=_environment(), preexec_fn=_confinement(self._memory))
            self._live.add(process)
        try:
            return _collect(process, timeout, OUTPUT_BYTES if cap is None else cap, True)
        finally:
            with self._lock:
                self._live.discard(process)


def run(command: list[str], timeout: float = TIMEOUT_S, memory: int | None = None,
        cap: int | None = None) -> Finished:
    with Runs(memory) as runs:
        return runs.run(command, timeout, cap)


def capture(command: list[str], timeout: float | None = None, cap: int | None = None, text: bool = True,
            cwd: Path | str | None = None, env: dict[str, str] | None = None) -> Finished:
    """Run `command` (no input) to its end, or until `timeout` seconds pass, or until one of
    its outputs passes `cap` bytes: then it is killed with all it started (it leads a session
    of its own), and what it wrote past the cap (OUTPUT_BYTES unless given) is counted
    (`dropped`), never kept. Its
    outputs as text (UTF-8, undecodable bytes replaced) or, with `text` false, as bytes.
    OSError where it cannot start."""
    process = _start(command, cwd=cwd, env=env)
    return _collect(process, timeout, OUTPUT_BYTES if cap is None else cap, text)


def _start(command: list[str], **more) -> subprocess.Popen:
    return subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=os.name == "posix", **more)


def _collect(process: subprocess.Popen, timeout: float | None, cap: int, text: bool) -> Finished:
    """Read both outputs of `process`, each in a thread of its own, keeping `cap` bytes of
    each; the first to pass it kills the process, then reads on to the end, counting."""
    kept: dict[str, bytearray] = {"stdout": bytearray(), "stderr": bytearray()}
    dropped = {"stdout": 0, "stderr": 0}

    def read(name: str, stream) -> None:
        buffer = kept[name]
        with stream:
            while chunk := stream.read1(_CHUNK):
                room = cap - len(buffer)
                buffer += chunk[:max(room, 0)]
                if len(chunk) > room:
                    if not dropped[name]:
                        _kill(process)
                    dropped[name] += len(chunk) - max(room, 0)

    readers = [threading.Thread(target=read, args=(name, getattr(process, name)), daemon=True) for name in kept]
    for reader in readers:
        reader.start()
    deadline = None if timeout is None else time.monotonic() + max(timeout, 0)

    def left() -> float | None:
        return None if deadline is None else max(deadline - time.monotonic(), 0)

    try:
        try:
            process.wait(timeout=left())
            for reader in readers:  # an output stays open while a process it started holds it
                reader.join(timeout=left())
            timed_out = any(reader.is_alive() for reader in readers)
        except subprocess.TimeoutExpired:
            timed_out = True
        if timed_out:
            _kill(process)
            process.wait()
        for reader in readers:
            reader.join()
    except BaseException:
        _kill(process)
        raise
    stdout, stderr = (bytes(kept[name]).decode("utf-8", "replace") if text else bytes(kept[name]) for name in kept)
    return Finished(process.returncode, stdout, stderr, timed_out, dropped["stdout"] + dropped["stderr"])


def _kill(process: subprocess.Popen) -> None:
    """The process and all it started: it leads a session of its own (on POSIX)."""
    try:
        if os.name == "posix":
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
    except (ProcessLookupError, PermissionError):
        pass  # already gone
