"""Every child of gen-matrix is read within bounds (sandbox.capture): a cap on the bytes kept
of each output, the rest counted and dropped, the child (and all it started) stopped at the cap.

The children are real processes: Python interpreters and /bin/sh scripts that write without
end, or leave a process behind that holds their output open.
"""

from __future__ import annotations

import sys
import textwrap
import threading
from pathlib import Path

import pytest

from generator.commands import cuobjdump, sandbox, smoke

from conftest import needs_posix

ENDLESS = "import itertools, sys; [sys.{stream}.buffer.write(b'x' * 65536) for _ in itertools.count()]"


def finishes(call, seconds: float = 60.0):
    """What `call()` returns, run in a thread; None where it is still running after `seconds`
    (a hang, which is the bug these tests guard, fails the test instead of stalling the suite)."""
    found = []
    thread = threading.Thread(target=lambda: found.append(call()), daemon=True)
    thread.start()
    thread.join(seconds)
    return found[0] if found else None


def script(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text))
    path.chmod(0o755)
    return path


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
@pytest.mark.parametrize("cap", [4096, 3 * 2**20])
def test_a_child_that_writes_without_end_is_stopped_at_the_cap(stream, cap):
    done = finishes(lambda: sandbox.capture([sys.executable, "-c", ENDLESS.format(stream=stream)], cap=cap))
    assert done is not None, "capture still reads a child that writes without end"
    kept = getattr(done, stream)
    assert kept == "x" * cap and done.dropped > 0 and not done.timed_out
    assert done.returncode != 0  # killed, not ended by itself
    assert done.overflow("the interpreter", cap).startswith(
        f"the interpreter wrote more than {'3 MiB' if cap > 2**20 else '4,096 bytes'} (at least ")


def test_output_under_the_cap_is_kept_whole_as_text_or_bytes():
    program = "import sys; sys.stdout.write('caf\\u00e9\\n' * 1000); sys.stderr.write('warned\\n'); sys.exit(3)"
    as_text = sandbox.capture([sys.executable, "-c", program], cap=6000)
    assert (as_text.returncode, as_text.stdout, as_text.stderr, as_text.dropped) == (3, "caf\u00e9\n" * 1000,
                                                                                      "warned\n", 0)
    assert as_text.overflow("it", 6000) == ""
    as_bytes = sandbox.capture([sys.executable, "-c", program], cap=6000, text=False)
    assert as_bytes.stdout == "caf\u00e9\n".encode() * 1000 and as_bytes.stderr == b"warned\n"


@needs_posix("a session of processes, started by /bin/sh")
def test_what_the_child_started_is_stopped_with_it(tmp_path):
    # the first `yes` holds stdout open after the shell's own `yes` is killed: only the
    # session's kill ends it, and with it the output
    child = script(tmp_path / "child", """\
        #!/bin/sh
        yes &
        exec yes
    """)
    done = finishes(lambda: sandbox.capture([str(child)], cap=2**16))
    assert done is not None and done.dropped > 0 and len(done.stdout) == 2**16


@needs_posix("a process left behind by /bin/sh")
def test_a_process_left_holding_the_output_counts_against_the_time_limit(tmp_path):
    child = script(tmp_path / "child", """\
        #!/bin/sh
        echo started
        sleep 300 &
    """)
    done = finishes(lambda: sandbox.capture([str(child)], timeout=1))
    assert done is not None and done.timed_out and done.stdout == "started\n"


@needs_posix("a stand-in interpreter written as a #!/bin/sh script")
def test_smoke_stops_an_interpreter_that_writes_without_end(tmp_path):
    python = script(tmp_path / "python", f"""\
        #!/bin/sh
        exec {sys.executable} -c "{ENDLESS.format(stream='stdout')}"
    """)
    facts = finishes(lambda: smoke.probe(python, "no hint needed"))
    assert facts is not None, "the probe reads the interpreter's output to its end"
    assert facts["failed"].startswith(f"the interpreter wrote more than {smoke.PROBE_OUTPUT_BYTES // 2**20} MiB ")


@needs_posix("a stand-in cuobjdump written as a #!/bin/sh script")
def test_a_cuobjdump_that_writes_without_end_is_stopped_and_named(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox, "OUTPUT_BYTES", 2**20)
    tool = script(tmp_path / "cuobjdump", """\
        #!/bin/sh
        exec yes "ELF file    1: libtorch_cuda.1.sm_86.cubin"
    """)
    (tmp_path / "libtorch_cuda.so").write_bytes(b"")
    found = finishes(lambda: cuobjdump.read(tool, tmp_path / "libtorch_cuda.so"))
    assert found == "cuobjdump --list-elf libtorch_cuda.so wrote more than 1 MiB (at least " + found.split("(at least ")[1]
