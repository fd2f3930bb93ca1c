"""Propose the knowledge table's rows of PyTorch release lines from PyTorch's own published
build-matrix sources, and say where the table disagrees with them.

    python scripts/pytorch_release_rows.py PATH/TO/pytorch             # a checkout (or a copy of its files)
    python scripts/pytorch_release_rows.py PATH/TO/pytorch --release 2.14
    python scripts/pytorch_release_rows.py PATH/TO/pytorch --build-matrix-release 2.7

It reads two files of the tree, and nothing else:
- RELEASE.md: the "Release Compatibility Matrix" (a row per release line: its Python range,
  its stable and experimental CUDA releases) and the "PyTorch CUDA Support Matrix" (the
  architectures of the Linux x86 and Windows wheels, and of the Linux aarch64 ones, for the
  releases its heading names: "For Release 2.12, 2.13 and 2.14 ...");
- .github/scripts/generate_binary_build_matrix.py: CUDA_ARCHES (the CUDA releases the
  branch's wheels are built for) and FULL_PYTHON_VERSIONS, read as literals (never run). This
  file describes one branch: --build-matrix-release names the release line whose branch it is
  from, to check that line's row against it.

For each release line of the compatibility matrix the table (generator/knowledge.yaml) lacks,
or the one --release names, it prints a `pytorch:` row in the table's own form, each wheel row
with a `source` naming the file and section it came from; for a line the table has, the
differences, as YAML comments (the whole output reads as the rows under `pytorch:`). Review each proposal before adding it: the table also takes facts these files do
not hold (`latest` from PyPI, Windows lists from .ci/pytorch/windows/cuda*.bat, `source_cuda`
from release notes), and a row PyTorch publishes is a plan until the release ships.
Exit 0; 2 where a file is missing or has no table to read.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

KNOWLEDGE = Path(__file__).resolve().parent.parent / "generator" / "knowledge.yaml"
RELEASE_MD = "RELEASE.md"
BUILD_MATRIX = ".github/scripts/generate_binary_build_matrix.py"
# RELEASE.md's two CUDA Support Matrix tables, by the words of their header, and the systems
# each covers; "+PTX available on linux builds only" in a row's notes drops +PTX on Windows
TABLES = (("linux x86 and windows", ("x86_64-linux", "x86_64-windows")), ("linux aarch64", ("aarch64-linux",)))


class SourceError(Exception):
    """A source file that is missing or does not hold what is read from it."""


@dataclass(frozen=True)
class Line:
    """A release line as RELEASE.md's compatibility matrix gives it."""

    name: str
    python: tuple[str, str]
    cuda: tuple[str, ...]
    experimental_cuda: tuple[str, ...]


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def _rows(text: str, heading: str) -> list[list[str]]:
    """The cells of the Markdown table under the first heading that contains `heading`."""
    found = re.search(rf"^#+ .*{re.escape(heading)}.*$", text, re.M | re.I)
    if found is None:
        raise SourceError(f"{RELEASE_MD}: no section '{heading}'")
    rows = []
    for line in text[found.end():].splitlines():
        if line.startswith("#"):
            break
        if line.startswith("|") and not re.match(r"^\|[\s:|-]+\|$", line):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def compatibility(text: str) -> dict[str, Line]:
    """RELEASE.md's Release Compatibility Matrix, by release line."""
    rows = _rows(text, "Release Compatibility Matrix")
    if not rows:
        raise SourceError(f"{RELEASE_MD}: the Release Compatibility Matrix has no rows")
    header = [cell.lower() for cell in rows[0]]
    try:
        at = {name: header.index(name) for name in ("pytorch version", "python", "stable cuda", "experimental cuda")}
    except ValueError as error:
        raise SourceError(f"{RELEASE_MD}: the Release Compatibility Matrix lacks a column: {error}") from None
    lines = {}
    for row in rows[1:]:
        name = row[at["pytorch version"]]
        oldest = re.search(r">=\s*(\d+\.\d+)", row[at["python"]])
        newest = re.search(r"<=\s*\(?\s*(\d+\.\d+)", row[at["python"]])
        if not re.fullmatch(r"\d+\.\d+", name) or not oldest or not newest:
            continue  # a patch release's row (2.0.1) or one written otherwise: not a line to propose
        lines[name] = Line(name, (oldest[1], newest[1]),
                           tuple(re.findall(r"CUDA (\d+\.\d+)", row[at["stable cuda"]])),
                           tuple(re.findall(r"CUDA (\d+\.\d+)", row[at["experimental cuda"]])))
    return lines


def support(text: str) -> tuple[str, tuple[str, ...], list[dict]]:
    """RELEASE.md's CUDA Support Matrix: its heading, the release lines it is for, and a wheel
    row per CUDA release and system (cuda, system, arch as TORCH_CUDA_ARCH_LIST writes it)."""
    found = re.search(r"^(For Release (.+?)) PyTorch Supports", text, re.M)
    if found is None:
        raise SourceError(f"{RELEASE_MD}: the PyTorch CUDA Support Matrix names no release")
    releases = tuple(re.findall(r"\d+\.\d+", found[2]))
    rows = _rows(text, "PyTorch CUDA Support Matrix")
    wheels, systems = [], ()
    for row in rows:
        if row[0].upper() == "CUDA":  # each table's header
            systems = next((s for words, s in TABLES if words in " ".join(row[1:]).lower()), ())
            continue
        cuda = ".".join(row[0].split(".")[:2])
        arch = [a.strip() for group in re.findall(r"\(([^)]*)\)", row[1]) for a in group.split(",")]
        linux_only_ptx = len(row) > 2 and "linux builds only" in row[2].lower()
        for system in systems:
            listed = [a.replace("+PTX", "") if linux_only_ptx and system.endswith("windows") else a for a in arch]
            wheels.append({"cuda": cuda, "system": system, "index": "pip", "arch": ";".join(listed)})
    if not wheels:
        raise SourceError(f"{RELEASE_MD}: the PyTorch CUDA Support Matrix has no rows")
    return found[1], releases, wheels


def build_matrix(text: str) -> dict[str, object]:
    """The literals generate_binary_build_matrix.py assigns at its top level (never run)."""
    values = {}
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                values[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                continue  # computed, not a literal
    if "CUDA_ARCHES" not in values or "FULL_PYTHON_VERSIONS" not in values:
        raise SourceError(f"{BUILD_MATRIX}: no CUDA_ARCHES or FULL_PYTHON_VERSIONS literal")
    return values


def _read(tree: Path, name: str) -> str:
    try:
        return (tree / name).read_text(encoding="utf-8")
    except OSError as error:
        raise SourceError(f"{tree / name}: cannot be read ({error.strerror})") from None


def proposals(tree: Path, known: dict, release: str | None = None,
              build_matrix_release: str | None = None) -> list[str]:
    """What to print: a proposed row per line the table lacks (or `release`), else the differences."""
    text = _read(tree, RELEASE_MD)
    lines = compatibility(text)
    heading, covered, wheels = support(text)
    where = f"pytorch/pytorch {RELEASE_MD}"
    out: list[str] = []
    names = [release] if release else sorted(lines, key=_key, reverse=True)
    for name in names:
        line = lines.get(name)
        if line is None:
            raise SourceError(f"{RELEASE_MD}: the Release Compatibility Matrix has no row for {name}")
        rows = ([{**w, "source": f"{where}, section 'PyTorch CUDA Support Matrix': '{heading}'"}
                 for w in wheels if w["cuda"] in line.cuda + line.experimental_cuda]
                if name in covered else [])
        have = known.get(name)
        if have is None or release:
            out.append(_row(line, rows, where))
        else:
            out += [f"# {difference}" for difference in _differences(line, rows, have)]
    if build_matrix_release:
        out += [f"# {difference}" for difference in
                _against_build_matrix(build_matrix(_read(tree, BUILD_MATRIX)), build_matrix_release, known)]
    return out


def _row(line: Line, wheels: list[dict], where: str) -> str:
    """A `pytorch:` row in the table's own form."""
    head = {"python": list(line.python), "cuda": list(line.cuda)}
    if line.experimental_cuda:
        head["experimental_cuda"] = list(line.experimental_cuda)
    text = f'  "{line.name}":  # {where}, Release Compatibility Matrix\n'
    text += "".join(f"    {key}: {yaml.safe_dump(value, default_flow_style=True).strip()}\n".replace("'", '"')
                    for key, value in head.items())
    if not wheels:
        return text + "    # no wheel rows: the CUDA Support Matrix of this RELEASE.md is for other releases\n"
    text += "    wheels:\n"
    for w in sorted(wheels, key=lambda w: (_key(w["cuda"]), w["system"])):
        text += (f'      - {{cuda: "{w["cuda"]}", system: {w["system"]}, index: {w["index"]}, '
                 f'arch: "{w["arch"]}", source: "{w["source"]}"}}\n')
    return text


def _differences(line: Line, wheels: list[dict], have: dict) -> list[str]:
    out = []
    for key in ("python", "cuda", "experimental_cuda"):
        theirs, ours = list(getattr(line, key)), [str(v) for v in have.get(key) or []]
        if theirs != ours:
            out.append(f"{line.name}: {key} is {ours} in the table, {theirs} in {RELEASE_MD}")
    ours = {(str(w["cuda"]), w["system"]): w for w in have.get("wheels") or []}
    for w in wheels:
        row = ours.get((w["cuda"], w["system"]))
        if row is None:
            out.append(f"{line.name}: no wheel row for CUDA {w['cuda']} on {w['system']}; {RELEASE_MD} lists {w['arch']}")
        elif str(row["arch"]) != w["arch"]:
            out.append(f"{line.name}: CUDA {w['cuda']} on {w['system']} is {row['arch']} in the table, {w['arch']} "
                       f"in {RELEASE_MD}" + (" (the table's row is inferred from elsewhere)" if row.get("inferred") else ""))
    return out


def _against_build_matrix(values: dict, name: str, known: dict) -> list[str]:
    have = known.get(name)
    if have is None:
        return [f"{name}: not in the table, so {BUILD_MATRIX} has nothing to check"]
    out = []
    cudas = sorted(values["CUDA_ARCHES"], key=_key)
    ours = sorted({str(c) for c in (have.get("cuda") or []) + (have.get("experimental_cuda") or [])}, key=_key)
    if cudas != ours:
        out.append(f"{name}: CUDA {ours} in the table, CUDA_ARCHES {cudas} in {BUILD_MATRIX}")
    pythons = sorted({p for p in values["FULL_PYTHON_VERSIONS"] if re.fullmatch(r"\d+\.\d+", p)}, key=_key)
    if [pythons[0], pythons[-1]] != [str(p) for p in have.get("python") or []]:
        out.append(f"{name}: python {have.get('python')} in the table, FULL_PYTHON_VERSIONS "
                   f"{pythons[0]} to {pythons[-1]} in {BUILD_MATRIX}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", type=Path, help="a pytorch/pytorch checkout, or a folder with copies of its files")
    parser.add_argument("--release", help="propose this release line's row even where the table has it")
    parser.add_argument("--build-matrix-release", metavar="RELEASE",
                        help=f"check this line's row against {BUILD_MATRIX} of the tree (from its branch)")
    parser.add_argument("--knowledge", type=Path, default=KNOWLEDGE, help="the table [default: %(default)s]")
    args = parser.parse_args(argv)
    try:
        known = (yaml.safe_load(args.knowledge.read_text(encoding="utf-8")) or {}).get("pytorch") or {}
        out = proposals(args.tree, {str(k): v for k, v in known.items()}, args.release, args.build_matrix_release)
    except (SourceError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print("\n".join(out) if out else "# the table agrees with these sources")
    return 0


if __name__ == "__main__":
    sys.exit(main())
