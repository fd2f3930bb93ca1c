"""The GPU code a torch install's libraries really hold, as NVIDIA's cuobjdump lists it.

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
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from ..errors import GenMatrixError, Location

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
            result = subprocess.run([str(tool), flag, str(library)], capture_output=True, encoding="utf-8",
                                    errors="replace", timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return f"cuobjdump {flag} {library.name} ran past {TIMEOUT_S} s"
        except OSError as error:
            return f"cannot run {tool}: {error.strerror or error}"
        if _NO_CODE in result.stderr:
            return None
        if result.returncode != 0:
            why = (result.stderr.strip().splitlines() or [f"exit status {result.returncode}"])[-1]
            return f"cuobjdump {flag} {library.name}: {why}"
        found_sass, found_ptx = parse(result.stdout)
        sass, ptx = sass | found_sass, ptx | found_ptx
    return Held(library, sass, ptx)
