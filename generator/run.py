"""load -> validate -> expand -> render -> write: a project taken through the pipeline.

The state file is read once here (`state.read`) and handed to what needs it: the recipes
take their revisions from its identities, and the write plan its record of written files."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Mapping

from . import pin
from .errors import Location, Problem
from .outputs import docs, gitattributes, manifest, workflow
from .pipeline import expand, identity, load, render, state, validate, write
from .layout import (ATTRIBUTES_FILE, BUILD_MATRIX_FILE, FLOX_GITIGNORE_FILE, FLOX_LOCK_FILE, HEADER, MANIFEST_FILE,
                     MEASURED_DIR, POINTER_FILE, README_FILE, REFERENCE_FILE, STATE_FILE, Project)
from .model import Expansion


def expansion(project: Project, allow_empty: bool = False) -> Expansion:
    doc = load.read(project.matrix_path, project.display)
    return expand.expand(validate.validate(doc), allow_empty)


def expansion_or_example(project: Project, allow_empty: bool = False) -> tuple[Expansion, str]:
    """The project's matrix, or where it has none and none was named with --matrix, the newest
    shipped example, for the commands that answer without a repository (detect, explain);
    and which matrix that is, in words."""
    if project.matrix_given or os.path.lexists(project.matrix_path):
        return expansion(project, allow_empty), project.display
    from .commands import init

    name = init.examples()[-1]
    doc = load.read(init.EXAMPLES / name / init.MATRIX_FILE, f"{name}/{init.MATRIX_FILE}")
    return expand.expand(validate.validate(doc), allow_empty), f"no matrix.yaml here: the shipped example {name}"


def _current(path: Path, name: str) -> str | None:
    return load.read_text(path, name)


def merged(current: str | None, update: Callable[[str | None], str]) -> write.Merged:
    """The new text of a file of the user's that gen-matrix owns parts of: made from its LF
    form, then given back the file's CRLF line endings if it had them."""
    crlf = current is not None and "\r\n" in current
    text = update(current.replace("\r\n", "\n") if crlf else current)
    return write.Merged(text.replace("\n", "\r\n") if crlf else text)


def recipes(project: Project, result: Expansion) -> tuple[render.Recipe, ...]:
    """Every recipe, with revisions from the committed state file: for a command that needs
    the recipes alone."""
    return render.recipes(result, state.read(project.root).entries, project.root)


def inputs(result: Expansion) -> frozenset[str]:
    """The files of the repository the outputs are made from besides the matrix: the fix files
    of the repository's own (nix/fixes/), which gen-matrix never removes."""
    shipped = identity.shipped_fixes()
    stems = {result.matrix.knowledge.fixes[name].stem for variant in result.variants for name in variant.fixes}
    return frozenset(f"nix/fixes/{stem}.nix" for stem in stems - shipped)


def source(project: Project, result: Expansion) -> pin.Source:
    """The gen-matrix the repository's Flox environment and workflow run."""
    return pin.of(project.root, result.matrix.ci.gen_matrix)


def measured_of(root: Path) -> Mapping:
    """The build costs the repository keeps in measured/ (the build jobs' gen-matrix-measured-*
    artifacts, committed), by variant, for BUILD_MATRIX.md; none where there is no such folder."""
    folder = root / MEASURED_DIR
    if not os.path.lexists(folder):
        return {}
    from .commands import measured  # here: most repositories keep no measurements

    return measured.read(folder, MEASURED_DIR)


def outputs(project: Project, result: Expansion, previous: state.State) -> dict[str, str]:
    """Every output by path: the files gen-matrix owns whole, recorded with their digests in
    the state file, and the files of the user's it owns parts of (`write.Merged`).
    `previous` is the state file as committed."""
    planned = render.recipes(result, previous.entries, project.root)
    files = render.files(result, planned)
    context = docs.facts(result, planned, measured_of(project.root))
    files[BUILD_MATRIX_FILE] = docs.build_matrix(context)
    runs = source(project, result)
    files.update(workflow.render(result, runs))
    checkout = runs.checkout
    if checkout:
        from .outputs import reference  # here: gen-matrix's own checkout alone has the reference

        files[REFERENCE_FILE] = reference.render()
    else:
        files.update(render.flake(result, runs.flake))
    files[STATE_FILE] = state.dump({r.variant.name: r.entry for r in planned}, HEADER,
                                   {path: text for path, text in files.items() if path != STATE_FILE})
    root = project.root
    readme = _current(root / README_FILE, README_FILE)
    if readme is not None:
        files[README_FILE] = merged(readme, lambda text: docs.readme(text, context))
    files[MANIFEST_FILE] = merged(_current(root / MANIFEST_FILE, MANIFEST_FILE),
                                  lambda text: manifest.update(text, result, runs))
    files[POINTER_FILE] = merged(_current(root / POINTER_FILE, POINTER_FILE), manifest.pointer)
    files[ATTRIBUTES_FILE] = merged(_current(root / ATTRIBUTES_FILE, ATTRIBUTES_FILE),
                                    lambda text: gitattributes.update(text, checkout))
    files[FLOX_GITIGNORE_FILE] = merged(_current(root / FLOX_GITIGNORE_FILE, FLOX_GITIGNORE_FILE), manifest.gitignore)
    return dict(sorted(files.items()))


def lock_staled(root: Path, outputs: Mapping[str, str]) -> list[str]:
    """What of the Flox manifest the committed lock holds `outputs` change, in words
    (manifest.lock_changes); none where the repository has no lock or the manifest stays."""
    current = _current(root / MANIFEST_FILE, MANIFEST_FILE)
    new = outputs.get(MANIFEST_FILE)
    if not os.path.isfile(root / FLOX_LOCK_FILE) or current is None or new is None or current == new:
        return []
    return manifest.lock_changes(current, new)


def stale_lock(root: Path, outputs: Mapping[str, str]) -> Problem | None:
    """The warning that writing `outputs` stales the committed Flox lock, with the command that
    makes it again; None where it does not."""
    changes = lock_staled(root, outputs)
    if not changes:
        return None
    return Problem(Location(FLOX_LOCK_FILE),
                   f"this run changes what the Flox lock holds of {MANIFEST_FILE} ({'; '.join(changes)}), so the "
                   "committed lock is stale: `flox publish` refuses it and the workflow's plan job fails on it",
                   f"make it again and commit it: `{workflow.LOCK_COMMAND} && git commit -m 'Lock the Flox environment'`")


def plan(project: Project, result: Expansion, cut_short: tuple[str, ...] | None = None,
         adoptable: frozenset[str] = frozenset()) -> write.Plan:
    """How the tree differs from what the matrix generates, from one read of the state file;
    `adoptable`: the files `generate --adopt` may take over (write.plan)."""
    previous = state.read(project.root)
    return write.plan(project.root, outputs(project, result, previous), previous.files, cut_short, inputs(result),
                      adoptable)
