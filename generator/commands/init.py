"""`gen-matrix init`: a new matrix repository, from an example or for this machine."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import yaml

from ..errors import GenMatrixError, Location
from ..layout import MANIFEST_FILE, PACKAGE, README_FILE, TEMPLATES, Project
from ..outputs import docs
from ..pipeline import expand, load, validate
from ..templating import new_environment

EXAMPLES = PACKAGE / "examples"
if not EXAMPLES.is_dir():  # a source checkout: examples/ beside generator/
    EXAMPLES = PACKAGE.parent / "examples"
MATRIX_FILE = "matrix.yaml"
_SCHEMA_LINE = "# yaml-language-server: $schema="


def examples() -> tuple[str, ...]:
    """The examples' names, oldest PyTorch first."""
    names = (p.parent.name for p in EXAMPLES.glob("*/matrix.yaml"))
    return tuple(sorted(names, key=lambda name: (tuple(int(n) for n in re.findall(r"\d+", name)), name)))


def example_text(name: str) -> str:
    """An example's matrix, less its pointer to the schema of this source tree."""
    if name not in examples():
        raise GenMatrixError.at(Location("--example"), f"no example named {name!r}",
                                f"choose one of {', '.join(examples())}")
    text = (EXAMPLES / name / MATRIX_FILE).read_text(encoding="utf-8")
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith(_SCHEMA_LINE))


def _neighbour(knowledge, isa: str, runs) -> list[str]:
    """The ISA and the next below it on the same architecture that the host runs: a build for
    a slightly older CPU beside the best one."""
    row = knowledge.isa[isa]
    lower = sorted((other for other in knowledge.isa.values()
                    if other.arch == row.arch and other.rank < row.rank and runs(other)),
                   key=lambda other: other.rank)
    return ([lower[-1].name] if lower else []) + [isa]


def detected_text(host, base_name: str) -> tuple[str, str]:
    """A matrix for `host` alone: the variant `detect` recommends against the example
    `base_name`, and its neighbours; and that variant's name."""
    from . import detect

    base = load.parse(example_text(base_name), MATRIX_FILE)
    expansion = expand.expand(validate.validate(base))
    found = detect.recommend(host, expansion)
    if found.variant is None:
        raise GenMatrixError.at(Location("--detect"), "detect recommends no variant for this machine: "
                                + "; ".join(found.warnings or found.reasons),
                                "start from an example with --example NAME")
    variant, knowledge, data = found.variant, expansion.matrix.knowledge, base.data
    pin = next(p for p in expansion.matrix.pins if p.name == variant.pin)
    runs = (lambda isa: set(isa.cpuinfo) <= set(host.cpu.flags)) if getattr(host, "cpu", None) else (lambda isa: False)
    matrix = {"pytorch": data["pytorch"], "nixpkgs": {"rev": pin.rev, "capability_scope": "auto"}}
    if "build" in data:
        matrix["build"] = data["build"]
    python = variant.python.name
    if variant.kind == "gpu":
        matrix["gpu"] = {"python": [python], "cuda": [variant.cuda.name], "sm": [variant.sm.name],
                         "isa": _neighbour(knowledge, variant.isa.name, runs)}
        matrix["cpu"] = {"python": [python], "isa": [variant.isa.name]}
    elif variant.kind == "cpu":
        matrix["cpu"] = {"python": [python], "isa": _neighbour(knowledge, variant.isa.name, runs)}
    else:
        matrix["darwin"] = {"python": [python], "accelerator": [variant.accelerator.name]}
    header = (f"# The PyTorch builds of this machine: {variant.name}, which `gen-matrix detect` recommends,\n"
              f"# and its neighbours. Made by `gen-matrix init --detect` from the example {base_name}.\n\n")
    return header + yaml.safe_dump(matrix, sort_keys=False, default_flow_style=None, width=100), variant.name


def refuse_existing(root: Path) -> None:
    if (root / MATRIX_FILE).exists():
        raise GenMatrixError.at(Location(str(root / MATRIX_FILE)), "this folder already holds a matrix",
                                "run `gen-matrix` there to regenerate it, or init another folder")


def create(root: Path, matrix_text: str) -> Project:
    """The repository's own files: matrix.yaml, a README with the generated blocks, git.
    Checked before anything is written: a matrix that does not validate writes nothing."""
    refuse_existing(root)
    expand.expand(validate.validate(load.parse(matrix_text, MATRIX_FILE)))
    root.mkdir(parents=True, exist_ok=True)
    if not _in_git(root) and shutil.which("git"):
        subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / MATRIX_FILE).write_text(matrix_text, encoding="utf-8", newline="")
    readme = root / README_FILE
    if not readme.exists():
        text = new_environment({}).get_template("init-readme.md.j2").render(
            title=root.resolve().name, blocks=docs.readme_blocks())
        readme.write_text(text, encoding="utf-8", newline="")
    return Project(root, root / MATRIX_FILE)


def _in_git(root: Path) -> bool:
    return any((folder / ".git").exists() for folder in (root.resolve(), *root.resolve().parents))


def next_steps(name: str, organisation_variable: str) -> tuple[str, ...]:
    """Build one variant, lock the Flox environment, and what publishing from CI needs."""
    return (
        f"flox build {name}",
        "flox activate -- true && git add .flox/env/manifest.lock   # the lock `flox publish` needs, once",
        f"gh secret set FLOX_FLOXHUB_TOKEN && gh variable set {organisation_variable} --body ORG   "
        "# a FloxHub token, and the organisation to publish to",
    )
