"""Build costs as the build jobs measured them, read back for the plan's estimate.

Each build job of the generated workflow writes one small JSON file per build it ran
(measured/<variant>.json in its artifact): how long it took, on how many cores, the most
memory the machine had in use meanwhile, and, with a compiler cache, the share of compiles
it served. `gen-matrix ci --measured` reads such files (one file, or a folder of them as
the artifacts download) and estimates each build from its own last measurement, else from
the measurements of builds of its kind, and guesses from knowledge.build_costs only where
nothing was measured. The files come from anywhere: each is bounded and checked, and a bad
one is a located error.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Mapping

from ..errors import GenMatrixError, Location
from ..model import check_name
from ..pipeline import load
from ..records import dataclass

# A measurement is a few hundred bytes; a folder holds one per build of a run, at most 256 x 256.
MAX_FILE_BYTES = 16 * 1024
MAX_FILES = 256 * 256
MAX_DEPTH = 3  # measured/ARTIFACT/<variant>.json, as `gh run download` lays artifacts out
FULL, WRAPPER = "full", "wrapper"
FIELDS = ("variant", "builds", "wall_seconds", "cores", "peak_memory_gib", "compiler_cache_hit_rate")
HINT = ("a measurement is the JSON object a build job of the generated workflow writes: "
        '{"variant": NAME, "builds": "full" or "wrapper", "wall_seconds": N, "cores": N, '
        '"peak_memory_gib": N or null, "compiler_cache_hit_rate": 0 to 1 or null}')


@dataclass(frozen=True)
class Measurement:
    """What one build job measured of a variant's build."""

    variant: str
    builds: str  # FULL: the heavy build compiled; WRAPPER: only the wrapper, over a fetched heavy build
    wall_seconds: float
    cores: int
    peak_memory_gib: float | None
    compiler_cache_hit_rate: float | None
    where: str  # the file it was read from

    @property
    def minutes(self) -> float:
        return self.wall_seconds / 60


def _number(value, field: str, where: Location, low: float, high: float, integer: bool = False,
            optional: bool = False) -> float | int | None:
    if value is None and optional:
        return None
    wanted = int if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, wanted) or not low <= value <= high:
        kind = "a whole number" if integer else "a number"
        raise GenMatrixError.at(where, f"{field} must be {kind} from {low:g} to {high:g}"
                                       f"{' or null' if optional else ''}, not {json.dumps(value)[:40]}", HINT)
    return value


def parse(text: str, name: str) -> Measurement:
    """One measurement from the text of file `name`."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise GenMatrixError.at(Location(name, error.lineno, error.colno), f"not JSON: {error.msg}", HINT) from None
    except (RecursionError, ValueError):  # thousands of brackets, or a number thousands of digits long
        raise GenMatrixError.at(Location(name), "not a measurement: nested or numbered beyond reason", HINT) from None
    where = Location(name)
    if not isinstance(data, dict):
        raise GenMatrixError.at(where, "a measurement is a JSON object", HINT)
    unknown = [key for key in data if key not in FIELDS]
    missing = [key for key in FIELDS if key not in data]
    if unknown or missing:
        raise GenMatrixError.at(where, f"unknown field '{unknown[0]}'" if unknown else f"no field '{missing[0]}'", HINT)
    variant = data["variant"]
    if not isinstance(variant, str) or check_name(variant):
        raise GenMatrixError.at(where, f"variant: {check_name(variant) if isinstance(variant, str) else 'not a name'}",
                                HINT)
    if data["builds"] not in (FULL, WRAPPER):
        raise GenMatrixError.at(where, f"builds must be \"{FULL}\" or \"{WRAPPER}\"", HINT)
    return Measurement(
        variant, data["builds"],
        float(_number(data["wall_seconds"], "wall_seconds", where, 0, 30 * 24 * 3600)),
        int(_number(data["cores"], "cores", where, 1, 65536, integer=True)),
        _number(data["peak_memory_gib"], "peak_memory_gib", where, 0, 1 << 20, optional=True),
        _number(data["compiler_cache_hit_rate"], "compiler_cache_hit_rate", where, 0, 1, optional=True),
        name)


def _files(folder: Path, display: str) -> list[tuple[Path, str]]:
    """The .json files under `folder`, at most MAX_DEPTH deep, links and other files left alone."""
    found: list[tuple[Path, str]] = []

    def visit(path: Path, shown: str, depth: int) -> None:
        try:
            entries = sorted(os.scandir(path), key=lambda entry: entry.name)
        except OSError as error:
            raise GenMatrixError.at(Location(shown), f"cannot read the folder: {error.strerror or error}",
                                    "give --measured a folder of measurements (or one file)") from None
        for entry in entries:
            if entry.is_symlink():
                continue  # never read through a link
            if entry.is_dir() and depth < MAX_DEPTH:
                visit(Path(entry.path), f"{shown}/{entry.name}", depth + 1)
            elif entry.is_file() and entry.name.endswith(".json"):
                found.append((Path(entry.path), f"{shown}/{entry.name}"))
                if len(found) > MAX_FILES:
                    raise GenMatrixError.at(Location(display), f"more than {MAX_FILES} measurement files",
                                            "keep the measurements of one or a few runs there")
    visit(folder, display.rstrip("/"), 1)
    return found


def read(path: Path, display: str) -> Mapping[tuple[str, str], Measurement]:
    """The measurements in file or folder `path`, by variant and what it built (FULL or
    WRAPPER): where two name the same variant and the same build, the one read last (in path
    order) counts. A wrapper alone, measured after a full build, hides nothing of that build."""
    if os.path.islink(path):
        raise GenMatrixError.at(Location(display), "a symbolic link; gen-matrix never reads through one",
                                "give --measured the folder or file itself")
    if path.is_dir():
        files = _files(path, display)
    elif path.exists():
        files = [(path, display)]
    else:
        raise GenMatrixError.at(Location(display), "no such file or folder",
                                "download the build jobs' gen-matrix-measured-* artifacts there first")
    found: dict[tuple[str, str], Measurement] = {}
    for file, shown in files:
        measurement = parse(load.read_text(file, shown, MAX_FILE_BYTES, HINT) or "", shown)
        found[measurement.variant, measurement.builds] = measurement
    return found
