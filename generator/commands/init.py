"""`gen-matrix init`: a new matrix repository, from an example or for this machine."""

from __future__ import annotations

import contextlib
import json
import os
import platform
import posixpath
import re
import shlex
import shutil
import tempfile
from pathlib import Path
from typing import Iterator

import yaml

from .. import pin
from ..errors import GenMatrixError, Location, Problem, printable
from ..layout import PACKAGE, README_FILE, Project
from ..model import KINDS, Expansion, Variant
from ..outputs import docs
from ..pipeline import expand, load, lock, validate, write
from ..records import dataclass
from ..templating import new_environment
from . import sandbox

EXAMPLES = PACKAGE / "examples"
if not EXAMPLES.is_dir():  # a source checkout: examples/ beside generator/
    EXAMPLES = PACKAGE.parent / "examples"
MATRIX_FILE = "matrix.yaml"
_SCHEMA_LINE = "# yaml-language-server: $schema="
# The author of the first commit where git knows no one: named, so that it is plain to amend.
FALLBACK_NAME, FALLBACK_EMAIL = "gen-matrix init", "gen-matrix-init@localhost"


def examples() -> tuple[str, ...]:
    """The examples' names, oldest PyTorch first."""
    names = (p.parent.name for p in EXAMPLES.glob("*/matrix.yaml"))
    return tuple(sorted(names, key=lambda name: (tuple(int(n) for n in re.findall(r"\d+", name)), name)))


def example_text(name: str) -> str:
    """An example's matrix as the new repository's own: less its pointer to the schema of this
    source tree, and with the command that generates it there instead of in this tree."""
    if name not in examples():
        raise GenMatrixError.at(Location("--example"), f"no example named {name!r}",
                                f"choose one of {', '.join(examples())}")
    text = (EXAMPLES / name / MATRIX_FILE).read_text(encoding="utf-8")
    text = "".join(line for line in text.splitlines(keepends=True) if not line.startswith(_SCHEMA_LINE))
    return re.sub(rf"^(#\s+)gen-matrix --matrix examples/{re.escape(name)}/{MATRIX_FILE} --root DIR$",
                  r"\1gen-matrix   # in this repository: writes every file this matrix generates", text, flags=re.M)


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


def shown(root: Path | str) -> str:
    """A path as messages name it: as given, its control characters escaped, and bytes that
    are not UTF-8 (a name from another system) shown as U+FFFD, which any terminal prints."""
    return printable(os.fsdecode(root).encode("utf-8", "surrogateescape").decode("utf-8", "replace"))


def require_git() -> None:
    """The repository is a git repository: the workflow reads its history, Flox its files."""
    if shutil.which("git") is None:
        raise GenMatrixError.at(Location("git"), "git is not installed (no `git` on PATH)",
                                "install git, which the repository, its workflow and Flox need, then run "
                                "`gen-matrix init` again")


def refuse_existing(root: Path) -> None:
    matrix = root / MATRIX_FILE
    if os.path.isfile(matrix) and not os.path.islink(matrix):
        raise GenMatrixError.at(Location(os.path.join(shown(root), MATRIX_FILE)), "this folder already holds a matrix",
                                "run `gen-matrix` there to regenerate it, or init another folder")
    if os.path.isdir(root):
        if os.path.lexists(root / ".git"):
            raise GenMatrixError.at(Location(os.path.join(shown(root), ".git")),
                                    "this folder is a git repository already; init makes a new one, with its first "
                                    "commit", "init a new folder, then push it to your remote from there "
                                    "(`git remote add origin URL && git push -u origin main`)")
        problem = write.in_the_way(root, MATRIX_FILE, shown(root))
        if problem:
            raise GenMatrixError([problem])


def nix_system(machine) -> str:
    """The Nix system of a host, as variants name theirs: x86_64-linux, aarch64-darwin."""
    return f"{machine.machine}-{machine.system.lower()}"


def this_machine(error: GenMatrixError):
    """This machine by its system and architecture alone, where reading the rest failed
    (a /proc/cpuinfo gen-matrix cannot read): enough to say which variants it can build."""
    from . import host

    return host.Host(platform.system(), host.machine_name(platform.machine()), None, (),
                     f"not read: {error.problems[0]}")


@dataclass(frozen=True)
class Stage:
    """The folder a new repository is made in, beside where it goes (or, for a folder that
    exists, inside it), so that it moves into place by renames on one file system."""

    root: Path  # where the repository goes
    folder: Path  # where it is made
    existing: bool  # whether `root` is a folder already, which keeps all it holds

    @property
    def title(self) -> str:
        return shown(os.path.basename(os.path.abspath(self.root)))

    def place(self) -> tuple[str, ...]:
        """Move the repository into place: the folder whole where there was none; into a
        folder that exists, only the paths it does not hold yet, which are returned. A path
        already there (a file, a link even to nowhere, a FIFO), or a link or a file where a
        folder goes, is an error before anything moves: nothing of the user's is written
        over or through."""
        if not self.existing:
            try:
                os.rename(self.folder, self.root)
            except OSError as error:
                raise GenMatrixError.at(Location(shown(self.root)), f"cannot move the new repository here: "
                                        f"{error.strerror or error}", "init a folder that does not exist, "
                                        "or an existing one") from None
            return ()
        moves, problems = _new_paths(self.folder, self.root, "", shown(self.root))
        if problems:
            raise GenMatrixError(problems)
        moved: list[str] = []
        try:
            for relative in moves:
                os.rename(self.folder / relative, self.root / relative)
                moved.append(relative)
        except BaseException as error:
            for relative in reversed(moved):  # back where they were made, which is then removed
                os.rename(self.root / relative, self.folder / relative)
            if isinstance(error, OSError):
                raise GenMatrixError.at(Location(os.path.join(shown(self.root), relative)),
                                        f"cannot move this new path in: {error.strerror or error}",
                                        "nothing was moved in; fix the cause (permissions), then run "
                                        "`gen-matrix init` again") from None
            raise
        return tuple(moves)


def _new_paths(made: Path, root: Path, under: str, named: str) -> tuple[list[str], list[Problem]]:
    """The outermost paths under `made` that `root` does not hold, into folders both hold;
    and what stands in the way of the others."""
    moves, problems = [], []
    for entry in sorted(os.listdir(made / under)):
        relative = posixpath.join(under, entry)
        target = root / relative
        if os.path.isdir(target) and not os.path.islink(target) and (made / relative).is_dir():
            found, stopped = _new_paths(made, root, relative, named)
            moves += found
            problems += stopped
            continue
        problem = write.in_the_way(root, relative, named)
        if problem is None:
            moves.append(relative)
        else:
            problems.append(problem)
    return moves, problems


@contextlib.contextmanager
def staged(root: Path) -> Iterator[Stage]:
    """A Stage for `root`, removed with all it holds unless its repository was placed; a
    failure (an invalid matrix, git, Ctrl-C) leaves nothing behind, in `root` or beside it."""
    existing = os.path.isdir(root)
    if os.path.islink(root) and not existing:
        raise GenMatrixError.at(Location(shown(root)), "this is a symbolic link that points nowhere",
                                "remove it, or name another folder")
    parent = root if existing else Path(os.path.dirname(os.path.abspath(root)))
    if not existing and not os.path.isdir(parent):
        raise GenMatrixError.at(Location(shown(root)), "the folder this one goes in does not exist",
                                "create it first (`mkdir -p`), or name a folder in one that exists")
    name = os.path.basename(os.path.abspath(root)) or "repository"
    where = Location(shown(root) if existing else shown(parent))
    left = _clear_leftovers(parent, name, where.path)
    if left:
        raise GenMatrixError(left)
    # The staging folder's owner holds the system's lock on the file beside it, made first and
    # removed last: an init killed (even by kill -9) leaves the file unlocked, and the next
    # init of the same folder finds both by their name and removes them.
    token = lock.new_token()
    folder = parent / _STAGING_NAME.format(name=name, token=token)
    owner_path = f"{folder}{_OWNER_SUFFIX}"
    try:
        owner = os.open(owner_path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
    except OSError as error:
        raise GenMatrixError.at(where, f"cannot create a file here: {error.strerror or error}",
                                "init a folder where you may write") from None
    try:
        lock.take_now(owner)
        # mkdir, not mkdtemp: the folder keeps the mode the umask gives, as the repository's
        try:
            os.mkdir(folder)
        except OSError as error:
            raise GenMatrixError.at(where, f"cannot create a folder here: {error.strerror or error}",
                                    "init a folder where you may write") from None
        try:
            yield Stage(root, folder, existing)
        finally:
            shutil.rmtree(folder, ignore_errors=True)  # gone already where the repository was placed whole
    finally:
        with contextlib.suppress(OSError):
            os.unlink(owner_path)
        os.close(owner)


_STAGING_NAME = ".{name}.gen-matrix-init-{token}"
_STAGING = re.compile(r"^\.(?P<name>.+)\.gen-matrix-init-[0-9a-f]{16}$")
_OWNER_SUFFIX = ".owner"


def _clear_leftovers(parent: Path, name: str, shown_parent: str) -> list[Problem]:
    """Remove the staging folders an init of `name` left in `parent` when it was killed (their
    owner file is there and no process holds its lock); a problem for each other one: its
    init still runs, or no owner file says whose it is."""
    problems = []
    try:
        entries = sorted(os.listdir(parent))
    except OSError:
        return []
    for entry in entries:
        found = _STAGING.match(entry)
        if not found or found["name"] != name:
            continue
        folder, owner_path = parent / entry, parent / f"{entry}{_OWNER_SUFFIX}"
        named = Location(os.path.join(shown_parent, entry))
        try:
            owner = os.open(owner_path, os.O_RDWR | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            problems.append(Problem(named, "a folder an earlier `gen-matrix init` made, with no owner file beside it "
                                           "to say whether that init still runs",
                                    "if no init runs here, remove it, then run `gen-matrix init` again"))
            continue
        try:
            taken = lock.take_now(owner)
            if taken:  # its init is gone: the folder is what it left
                if os.path.isdir(folder) and not os.path.islink(folder):
                    shutil.rmtree(folder, ignore_errors=True)
                if not os.path.lexists(folder):
                    os.unlink(owner_path)
                    continue
            problems.append(Problem(named, "another `gen-matrix init` is making a repository here" if taken is False
                                    else "a folder an earlier `gen-matrix init` made, which gen-matrix cannot remove",
                                    "wait for it to finish, then run `gen-matrix init` again" if taken is False
                                    else "remove it, then run `gen-matrix init` again"))
        finally:
            os.close(owner)
    return problems


def pinned(text: str, flake: str | None) -> str:
    """The matrix text with ci.gen_matrix set, so that the repository's Flox environment and
    workflow run a gen-matrix pinned to a commit: `flake` (--gen-matrix), else the commit
    this gen-matrix was built from. Unchanged where the matrix sets one already, or where
    neither is known (generate then warns)."""
    if flake is not None and not pin.FLAKE_PIN.fullmatch(flake):  # fullmatch: $ passes a line break
        raise GenMatrixError.at(Location("--gen-matrix"), f"{printable(flake)!r} is not a flake reference pinned to a commit",
                                f"give {pin.example_flake()} or git+https://HOST/PATH?rev=<40-hex commit>")
    data = load.parse(text, MATRIX_FILE).data
    ci = data.get("ci")
    if isinstance(ci, dict) and "gen_matrix" in ci:
        return text
    flake = flake or pin.default()[0]
    if flake is None:
        return text
    line = (f"  # the gen-matrix the Flox environment installs and the workflow runs, pinned to a commit\n"
            f"  gen_matrix: {json.dumps(flake)}\n")
    if ci is None:
        return text.rstrip("\n") + "\n\nci:\n" + line
    block = re.search(r"^ci:[ \t]*(#.*)?\n", text, re.M)
    if not isinstance(ci, dict) or block is None:
        raise GenMatrixError.at(Location(MATRIX_FILE), "ci: is not a block of keys gen-matrix can add gen_matrix to",
                                "write ci: as a block, one key a line")
    return text[:block.end()] + line + text[block.end():]


def create(stage: Stage, matrix_text: str) -> tuple[Project, Expansion]:
    """The repository's own files in the new folder: matrix.yaml and a README for the
    generated blocks; and the matrix's expansion, whose messages name the file where it
    goes. Checked before anything is written: a matrix that does not validate writes nothing."""
    where = os.path.join(shown(stage.root), MATRIX_FILE)
    try:
        expansion = expand.expand(validate.validate(load.parse(matrix_text, where)))
    except GenMatrixError as error:  # located in the text init made, not in a file: none was written
        raise GenMatrixError([Problem(Location("init"), f"the {MATRIX_FILE} init would write"
                                      f"{f' (its line {p.where.line})' if p.where.line else ''}: {p.message}",
                                      p.hint) for p in error.problems]) from None
    folder = stage.folder
    (folder / MATRIX_FILE).write_text(matrix_text, encoding="utf-8", newline="")
    text = new_environment({}).get_template("init-readme.md.j2").render(title=stage.title, blocks=docs.readme_blocks())
    (folder / README_FILE).write_text(text, encoding="utf-8", newline="")
    return Project(folder, folder / MATRIX_FILE), expansion


def _git(folder: Path, *args: str) -> str:
    """Run git in `folder` (never given a folder name: one could read as an option)."""
    try:
        done = sandbox.capture(["git", *args], cwd=folder)
    except OSError as error:
        raise GenMatrixError.at(Location("git"), f"cannot run git: {error.strerror or error}",
                                "install git, then run `gen-matrix init` again") from None
    if done.dropped:
        raise GenMatrixError.at(Location("git"), done.overflow("git", sandbox.OUTPUT_BYTES),
                                "run `gen-matrix init` again; nothing was written")
    if done.returncode != 0:
        said = " ".join((done.stderr or done.stdout).split()) or "nothing"
        command = next(arg for arg in args if not arg.startswith("-") and "=" not in arg)
        raise GenMatrixError.at(Location(f"git {command}"), f"failed with exit status {done.returncode}: {said}",
                                "fix what git says, then run `gen-matrix init` again; nothing was written")
    return done.stdout


def _identity_configured(folder: Path) -> bool:
    """Whether git knows who commits from its settings or environment, rather than guessing
    from the machine's user and host names."""
    try:
        for ident in ("GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"):
            _git(folder, "-c", "user.useConfigOnly=true", "var", ident)
    except GenMatrixError:
        return False
    return True


def commit(folder: Path, branch: str, message: str) -> bool:
    """Make `folder` a git repository whose first commit, on `branch`, holds every file in it.
    HEAD is set by symbolic-ref, which every git has (`git init -b` came in 2.28). Returns
    whether the fallback identity made the commit (git knows no one here)."""
    _git(folder, "init", "-q")
    _git(folder, "symbolic-ref", "HEAD", f"refs/heads/{branch}")
    # No program of the user's runs for this commit: the hooks (of their git template or their
    # core.hooksPath; --no-verify skips pre-commit and commit-msg, not post-commit) are looked
    # for in an empty folder, and no file system monitor is started for `add`.
    with tempfile.TemporaryDirectory(prefix="gen-matrix-no-hooks-") as empty:
        quiet = ("-c", f"core.hooksPath={empty}", "-c", "core.fsmonitor=false")
        _git(folder, *quiet, "add", "--all")
        fallback = not _identity_configured(folder)
        identity = ("-c", f"user.name={FALLBACK_NAME}", "-c", f"user.email={FALLBACK_EMAIL}") if fallback else ()
        _git(folder, *quiet, *identity, "commit", "-q", "--no-verify", "-m", message)
    return fallback


def amend_hint(root: Path) -> str:
    return (f"git knows no identity here (user.name, user.email): the first commit is by {FALLBACK_NAME} "
            f"<{FALLBACK_EMAIL}>; set yours with `git config --global user.name NAME` and `git config --global "
            f"user.email EMAIL`, then `git -C {shlex.quote(shown(root))} commit --amend --reset-author --no-edit`")


def first_build(expansion: Expansion, machine) -> tuple[Variant | None, str]:
    """The variant to build first, and why: one of this machine's Nix system, since Nix builds
    only for the system it runs on; the one `detect` recommends where it is in the matrix."""
    from . import detect

    system = nix_system(machine)
    recommended = detect.recommend(machine, expansion).variant
    if recommended is not None and recommended.system == system:
        return recommended, "the variant `gen-matrix detect` recommends for this machine"
    ours = sorted((v for v in expansion.variants if not v.is_companion and v.system == system), key=lambda v: v.name)
    if ours:
        return ours[0], f"one for {system}, this machine's system; `gen-matrix detect` recommends none here"
    systems = sorted({v.system for v in expansion.variants})
    return None, (f"no variant of the matrix is for {system}, this machine's system, and Nix builds only for the "
                  f"system it runs on: build on a machine of {', '.join(systems)}")


@dataclass(frozen=True)
class FirstRun:
    """What the workflow's first run builds: every variant, a job per torch."""

    jobs: int
    torches: int
    companions: int
    hours: float


def first_run(expansion: Expansion, project: Project) -> FirstRun:
    from . import ci
    from .. import run

    now = {recipe.variant.name: recipe.entry for recipe in run.recipes(project, expansion)}
    selection = ci.selection(expansion, project.root, now, None)
    plan = ci.plan(expansion, selection)
    return FirstRun(len(selection.jobs), sum(plan.torches[kind] for kind in KINDS), plan.companions,
                    plan.minutes / 60)


def secrets(expansion: Expansion) -> tuple[str, ...]:
    """The `gh` commands that give the workflow what it reads from the repository's settings."""
    ci = expansion.matrix.ci
    organisation = (f"   # optional: ci.organisation ({ci.organisation}) is used where it is unset" if ci.organisation
                    else "   # the Flox organisation to publish to")
    lines = ["gh secret set FLOX_FLOXHUB_TOKEN   # a FloxHub token: the workflow publishes with it",
             f"gh variable set {ci.organisation_variable} --body ORG{organisation}"]
    cache = ci.cache
    if cache is not None and cache.secret:
        what = "the Nix secret key that signs what is pushed" if cache.type == "s3" else f"the {cache.type} token"
        lines.append(f"gh secret set {cache.secret}   # {what} for the binary cache (ci.cache)")
    return tuple(lines)


def pin_step(source: pin.Source, matrix_text: str) -> tuple[str, ...]:
    """Where nothing pins the gen-matrix the repository runs: the command that pins it, first,
    since the workflow stops at its first step until then. The matrix init writes has no `ci:`
    key of its own then (init adds gen_matrix under one it has), so appending the block is exact."""
    if source.checkout or source.flake is not None:
        return ()
    why = ("   # first: ci.gen_matrix is unset, and the workflow stops at its first step until it names the "
           f"commit of {pin.home()} this gen-matrix was built from")
    if "ci" in (load.parse(matrix_text, MATRIX_FILE).data or {}):
        return (f"# set ci.gen_matrix in {MATRIX_FILE} to {json.dumps(pin.example_flake())}, then: "
                f"gen-matrix generate && git commit -qam 'Pin gen-matrix'{why}",)
    block = '\\nci:\\n  gen_matrix: "%s"\\n'
    return (f"printf '{block}' {shlex.quote(pin.example_flake())} >> {MATRIX_FILE} && gen-matrix generate "
            f"&& git commit -qam 'Pin gen-matrix'{why}",)


def next_steps(name: str | None, why: str, expansion: Expansion, source: pin.Source, matrix_text: str) -> tuple[str, ...]:
    """Pin gen-matrix where nothing does, build one variant, lock the Flox environment, give CI
    its secrets and organisation, then push: each true in the repository init made."""
    branch = expansion.matrix.ci.main_branch
    build = f"flox build {name}   # {why}" if name else f"# {why}"
    return (
        *pin_step(source, matrix_text),
        build,
        "flox activate -- true && git add .flox/env/manifest.lock && git commit -m 'Lock the Flox environment'"
        "   # the lock `flox publish` needs, once",
        *secrets(expansion),
        f"git remote add origin URL && git push -u origin {branch}   # the workflow's first run: it checks the "
        f"organisation and token first, then builds and publishes what is new on {branch}",
    )
