"""smoke's `code` check: the GPU code a torch install's libraries really hold, as NVIDIA's
cuobjdump lists it, against the SM a build promises.

torch.cuda.get_arch_list() reports the architectures torch was configured for; the machine
code (SASS) and PTX embedded in libtorch_cuda.so and its sibling libraries are what a GPU
runs. nixpkgs' torch test reads them the same way (cuobjdump --dump-elf and --list-ptx on a
fatbin: pkgs/development/python-modules/torch/tests/cuda-architectures.nix, nixpkgs revision
613b8b48f7d48ff70985b390e366975eede57415).
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

from ..errors import GenMatrixError, Location
from ..knowledge import Sm, code_runs, version_key
from . import sandbox
from ..records import dataclass
from .promise import Promise
from .smoke import FAIL, PASS, SKIP, Check

TOOL = "cuobjdump.exe" if sys.platform == "win32" else "cuobjdump"
TIMEOUT_S = 600

# `cuobjdump --list-elf` prints "ELF file    1: libtorch_cuda.1.sm_86.cubin", `--list-ptx`
# "PTX file    1: libtorch_cuda.1.sm_90.ptx" (the PTX's virtual architecture, compute_90).
_LISTED = re.compile(r"^(ELF|PTX) file\s+[0-9]+:\s+\S*\.(sm_[0-9]+[a-z]?)\.(?:cubin|ptx)\s*$")
_NO_CODE = "does not contain device code"


@dataclass(frozen=True)
class Held:
    """The GPU code one library holds: SASS and PTX, by the architecture cuobjdump names
    (sm_86, sm_90a, sm_100f; for PTX, the virtual architecture of that number)."""

    library: Path
    sass: frozenset[str]
    ptx: frozenset[str]


def parse(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The SASS and the PTX architectures in what `cuobjdump --list-elf` or `--list-ptx` printed."""
    sass, ptx = set(), set()
    for line in text.splitlines():
        listed = _LISTED.match(line.strip())
        if listed:
            (sass if listed.group(1) == "ELF" else ptx).add(listed.group(2))
    return frozenset(sass), frozenset(ptx)


def find(given: str | None) -> Path | None:
    """cuobjdump: `given` (--cuobjdump), else on PATH, else beside nvcc or in CUDA_HOME or
    CUDA_PATH, where a CUDA toolkit keeps it; None where there is none."""
    if given is not None:
        path = Path(given).absolute()
        if not path.is_file() or not os.access(path, os.X_OK):
            raise GenMatrixError.at(Location("--cuobjdump"), f"{given} is not an executable file",
                                    "give the path of NVIDIA's cuobjdump (in a CUDA toolkit's bin folder, or "
                                    "`pip install nvidia-cuda-cuobjdump`), or leave --cuobjdump out")
        return path
    on_path = shutil.which(TOOL)
    if on_path:
        return Path(on_path)
    nvcc = shutil.which("nvcc")
    folders = [Path(nvcc).parent, Path(nvcc).resolve().parent] if nvcc else []
    folders += [Path(os.environ[name]) / "bin" for name in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(name)]
    return next((folder / TOOL for folder in folders
                 if (folder / TOOL).is_file() and os.access(folder / TOOL, os.X_OK)), None)


def libraries(torch_folder: Path) -> tuple[Path, ...]:
    """The shared libraries of a torch install (torch/lib), where its CUDA code lives."""
    folder = torch_folder / "lib"
    if not folder.is_dir():
        return ()
    return tuple(sorted(path for path in folder.iterdir() if path.is_file()
                        and (".so" in path.name or path.suffix.lower() == ".dll")))


def read(tool: Path, library: Path) -> Held | str | None:
    """The code `library` holds; None where it holds no GPU code, cuobjdump's complaint
    where it cannot read it."""
    sass, ptx = frozenset(), frozenset()
    for flag in ("--list-elf", "--list-ptx"):
        try:
            result = sandbox.capture([str(tool), flag, str(library)], TIMEOUT_S)
        except OSError as error:
            return f"cannot run {tool}: {error.strerror or error}"
        if result.dropped:
            return result.overflow(f"cuobjdump {flag} {library.name}", sandbox.OUTPUT_BYTES)
        if result.timed_out:
            return f"cuobjdump {flag} {library.name} ran past {TIMEOUT_S} s"
        if _NO_CODE in result.stderr:
            return None
        if result.returncode != 0:
            why = (result.stderr.strip().splitlines() or [f"exit status {result.returncode}"])[-1]
            return f"cuobjdump {flag} {library.name}: {why}"
        found_sass, found_ptx = parse(result.stdout)
        sass, ptx = sass | found_sass, ptx | found_ptx
    return Held(library, sass, ptx)


def _architecture(arch: str) -> tuple[int, int, str]:
    """sm_86 -> (8, 6, ""), sm_90a -> (9, 0, "a"), sm_100f -> (10, 0, "f")."""
    digits, suffix = re.fullmatch(r"sm_([0-9]+)([a-z]?)", arch).groups()
    return int(digits) // 10, int(digits) % 10, suffix


def runs_on(arch: str, sm: Sm, ptx: bool) -> bool:
    """Whether code for `arch` (cuobjdump's sm_86, sm_90a, sm_100f), SASS or PTX, runs on a
    GPU of `sm`'s compute capability (knowledge.code_runs)."""
    major, minor, suffix = _architecture(arch)
    return code_runs((major, minor), suffix, ptx, version_key(sm.capability))


def _listed(held: Held) -> str:
    def names(archs):
        return " ".join(sorted(archs, key=_architecture)) or "none"
    return f"{held.library.name} (SASS {names(held.sass)}; PTX {names(held.ptx)})"


def code_verdict(sm: Sm, held: tuple[Held, ...], unread: tuple[str, ...], folder: Path) -> Check:
    """Whether every library holding GPU code holds code a GPU of `sm` runs: SASS for it, or
    PTX it compiles; a library without either fails that GPU with "no kernel image"."""
    if not held:
        return Check("code", SKIP, "; ".join(unread) if unread else
                     f"no library in {folder / 'lib'} holds GPU code, by cuobjdump: there is no CUDA code to check")
    lacking = [h for h in held if not any(runs_on(arch, sm, False) for arch in h.sass)
               and not any(runs_on(arch, sm, True) for arch in h.ptx)]
    said = "; ".join(_listed(h) for h in held) + (f"; unread: {'; '.join(unread)}" if unread else "")
    if lacking:
        return Check("code", FAIL, f"{', '.join(h.library.name for h in lacking)} "
                                   f"{'holds' if len(lacking) == 1 else 'hold'} neither SASS for "
                                   f"{sm.name} (compute capability {sm.capability}) nor PTX that compiles for it, "
                                   f"by cuobjdump: {said}")
    return Check("code", SKIP if unread else PASS,
                 f"every library cuobjdump read holds code {sm.name} (compute capability {sm.capability}) runs: {said}")


def gpu_code(promise: Promise, facts: dict, tool: Path | None) -> Check | None:
    """What cuobjdump reads in the libraries of the torch install `facts` show, against the
    promised SM; None where nothing promises an SM or no torch was found."""
    found = facts.get("torch_file") or ((facts.get("files") or {}).get("torch") or {}).get("file")
    if promise.sm is None or not isinstance(found, str):
        return None
    folder = Path(found).parent
    if tool is None:
        return Check("code", SKIP, "no cuobjdump on PATH, beside nvcc or in CUDA_HOME or CUDA_PATH: the GPU code "
                                   "torch's libraries hold cannot be read here; give --cuobjdump PATH (a CUDA "
                                   "toolkit's, or `pip install nvidia-cuda-cuobjdump`)")
    readings = [read(tool, library) for library in libraries(folder)]
    return code_verdict(promise.sm, tuple(r for r in readings if isinstance(r, Held)),
                        tuple(r for r in readings if isinstance(r, str)), folder)
