"""nix-instantiate in a box, for `adopt` and `eval`: what they evaluate is code from a
repository, which may be someone else's.

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
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

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


@dataclass(frozen=True)
class Finished:
    returncode: int
    stdout: str
    stderr: str
    timed_out: bool  # killed when its time ran out; returncode then says nothing


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

    def run(self, command: list[str], timeout: float) -> Finished:
        """`command` to its end or `timeout` seconds. OSError where it cannot start."""
        with self._lock:
            if self._closed:
                return Finished(-1, "", "", True)
            process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True, encoding="utf-8", errors="replace", env=_environment(),
                start_new_session=True, preexec_fn=_confinement(self._memory))
            self._live.add(process)
        try:
            stdout, stderr = process.communicate(timeout=max(timeout, 0))
            timed_out = False
        except subprocess.TimeoutExpired:
            _kill(process)
            stdout, stderr = process.communicate()
            timed_out = True
        except BaseException:
            _kill(process)
            raise
        finally:
            with self._lock:
                self._live.discard(process)
        return Finished(process.returncode, stdout, stderr, timed_out)


def run(command: list[str], timeout: float = TIMEOUT_S, memory: int | None = None) -> Finished:
    with Runs(memory) as runs:
        return runs.run(command, timeout)


def _kill(process: subprocess.Popen) -> None:
    """The process and all it started: it leads a session of its own."""
    try:
        if os.name == "posix":
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
    except (ProcessLookupError, PermissionError):
        pass  # already gone
