"""Bring the tree in line with the rendered outputs, or report how it differs.

gen-matrix owns exactly the files it recorded as written (the `files` record of the state
file, with their digests) that still carry its header: those it rewrites when they changed.
It removes one that the matrix no longer has only while its text is still what gen-matrix
wrote (its SHA-256 is the recorded one): an edited file is kept, and named. Any other file
is the user's, whatever it says, and is never overwritten or removed; one standing where an
output goes is an error that names it, and a recipe in .flox/pkgs/ that carries the header
but that no variant generates is named too (`flox build` would build it). Where gen-matrix
owns parts of a file of the user's (the README's tables, the Flox manifest, a block of
.gitattributes), its new text is a `Merged` output, made from the file as it stands with
only those parts changed.

A tree generated before the record existed is adopted file by file: a file that carries
the header and already holds what gen-matrix would write goes into the record.

gen-matrix never writes or removes through a symbolic link: a link where an output or one
of its folders goes is an error. A symlinked README is refused the same way when its tables
change (gen-matrix does not follow the link to write the file it points to).
"""

from __future__ import annotations

import os
import posixpath
import re
import secrets
import shutil
import stat
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from . import lock, state
from ..records import dataclass
from .digest import sha256
from ..errors import GenMatrixError, Location, Problem, printable
from ..layout import LIBRARY_MARKER, MARKER, PKGS_DIR, STATE_FILE

_HEAD_BYTES = 512
# O_EXCL: never through a link someone left at the temporary name; O_BINARY: no newline
# translation on Windows.
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
# What `_temporary` names: `.NAME.gen-matrix-TOKEN.tmp`, a file or a staging folder, where
# TOKEN is the run's (lock.Run), written into the lock file before the run creates any.
_TEMPORARY = re.compile(r"^\.(.+)\.gen-matrix-([0-9a-f]{16})\.tmp$")
# Above this many lines, `check` counts changed lines instead of printing a diff: difflib
# takes minutes on a state file where every line changed.
_DIFF_LINES = 4000


class Merged(str):
    """The new text of a file gen-matrix owns only parts of, made from its current text."""


@dataclass(frozen=True)
class Plan:
    """How the tree differs from the outputs: what to write, remove and keep, and why."""

    root: Path
    outputs: dict  # path -> new text, for every output
    write: tuple[str, ...]  # created or changed
    unchanged: tuple[str, ...]
    remove: tuple[str, ...]  # recorded files no longer in the matrix, as gen-matrix wrote them
    leftovers: tuple[str, ...] = ()  # temporary files and folders of runs cut short
    kept: tuple[Problem, ...] = ()  # files gen-matrix could take for its own, left alone: why
    adopted: tuple[str, ...] = ()  # hand-written recipes replaced, as `generate --adopt` allows

    @property
    def current(self) -> bool:
        return not self.write and not self.remove and not self.leftovers and not self.kept


def has_header(head: bytes) -> bool:
    """Whether the first two lines of a file carry gen-matrix's header."""
    first_lines = head[:_HEAD_BYTES].split(b"\n", 2)[:2]
    return any(marker.encode() in line for line in first_lines for marker in (MARKER, LIBRARY_MARKER))


def _regular(path: str, relative: str = "") -> bytes | None:
    """The bytes of the regular file at `path` (not through a link); None when there is none.
    No file gen-matrix writes is larger than the state file may be: a larger one is not its own,
    and is not read whole."""
    try:
        mode = os.lstat(path).st_mode
        if not stat.S_ISREG(mode):
            return None
        with open(path, "rb") as handle:
            data = handle.read(state.MAX_BYTES + 1)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        raise _unreadable(relative or path, error) from None
    if len(data) > state.MAX_BYTES:
        raise GenMatrixError.at(Location(relative or path),
                                f"the file is larger than {state.MAX_BYTES // 1024 // 1024} MiB, more than any "
                                "file gen-matrix writes", "move it away, then run gen-matrix again")
    return data


def _unreadable(shown: str, error: OSError) -> GenMatrixError:
    return GenMatrixError.at(Location(shown), f"cannot read the file: {error.strerror or error}",
                             "fix its permissions (or move it away), then run gen-matrix again")


def _linked(root: Path, relative: str) -> str | None:
    """The first part of `relative` (a folder, or the file) that is a symbolic link."""
    parts = relative.split("/")
    for count in range(1, len(parts) + 1):
        part = "/".join(parts[:count])
        if os.path.islink(os.path.join(root, part)):
            return part
    return None


def _folder_problem(root: Path, folder: str, shown: str = "") -> Problem | None:
    """What keeps gen-matrix from writing into `folder` of `root`: a symbolic link, or a file,
    standing where it goes. `shown`: how messages name `root` (nothing: by relative paths)."""
    path = os.path.join(root, folder)
    if os.path.islink(path):
        return Problem(Location(posixpath.join(shown, folder)),
                       "this folder is a symbolic link; gen-matrix never writes through one",
                       "replace the link by a real folder (or remove it), then run gen-matrix again")
    if os.path.lexists(path) and not os.path.isdir(path):
        return Problem(Location(posixpath.join(shown, folder)), "this is a file, but gen-matrix writes into it as a folder",
                       "move the file away, then run gen-matrix again")
    return None


def _kind(path: str) -> str:
    """What stands at `path`, in words, without following a link."""
    mode = os.lstat(path).st_mode
    for test, words in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a folder"), (stat.S_ISREG, "a file"),
                        (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return words
    return "a device"


def in_the_way(root: Path, relative: str, shown: str = "") -> Problem | None:
    """What stands where a new file or folder `relative` of `root` would go, in a folder the
    caller found real: anything at all, even a link that points nowhere. gen-matrix writes a
    new path over none of them, nor through one."""
    path = os.path.join(root, relative)
    if not os.path.lexists(path):
        return None
    return Problem(Location(posixpath.join(shown, relative)),
                   f"{_kind(path)} is already here, and gen-matrix writes only a new one here, never over one or "
                   "through a link", "move it away, then run the command again")


def create_new(path: Path, text: str, shown: str) -> None:
    """Write `text` to a new file at `path`: never over anything already there (a link, even
    one that points nowhere, a FIFO, a device), and no file left where writing fails.
    `shown`: how messages name `path`."""
    try:
        _create(str(path), text)
    except FileExistsError:
        raise GenMatrixError.at(Location(shown), f"{_kind(str(path))} is already here, and gen-matrix writes only a "
                                "new file here", "move it away, then run the command again") from None
    except OSError as error:
        raise GenMatrixError.at(Location(shown), f"cannot write this file: {error.strerror or error}",
                                "fix the cause (permissions, disk space), then run the command again") from None


def replace_own(path: str, data: bytes, own: Callable[[bytes], bool], force: bool, option: str,
                mode: int = 0o666) -> None:
    """Write `data` to the file at `path`, a path a user gave (`option` names it), as the other
    writers do: never through a link, even one that points nowhere, nor into a FIFO, a socket,
    a device or a folder; an existing file is replaced only when `own(its first bytes)` says
    this command wrote it, or with `force`; by atomic rename, so a reader sees the old file or
    the new one. `mode`: a new file's; a replaced file keeps its own."""
    shown = Location(option)
    try:
        found = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        found = None
    except OSError as error:
        raise GenMatrixError.at(shown, f"cannot look at {printable(path)}: {error.strerror or error}",
                                "give a file in a folder that exists and that you may write") from None
    if found is not None and not stat.S_ISREG(found):
        raise GenMatrixError.at(shown, f"{_kind(path)} is at {printable(path)}, and gen-matrix writes only a file "
                                "there, never through a link or into a FIFO or a device",
                                "give the path of a file (or move that away), then run the command again")
    if found is not None and not force:
        try:
            # O_NONBLOCK: what lstat found a file may be a FIFO by now, which would block an open
            descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
            try:
                head = os.read(descriptor, _HEAD_BYTES) if stat.S_ISREG(os.fstat(descriptor).st_mode) else b""
            finally:
                os.close(descriptor)
        except OSError:
            head = b""
        if not own(head):
            raise GenMatrixError.at(shown, f"{printable(path)} is already a file, and not one this command wrote",
                                    "give --force to replace it, or another path")
    try:
        atomic_write(path, data, secrets.token_hex(8), mode)
    except OSError as error:
        raise GenMatrixError.at(shown, f"cannot write {printable(path)}: {error.strerror or error}",
                                "give a file in a folder that exists and that you may write") from None


def _folders(outputs) -> list[str]:
    """Every folder the outputs go into, with the folders above them."""
    folders = set()
    for folder in {posixpath.dirname(p) for p in outputs}:
        while folder and folder not in folders:
            folders.add(folder)
            folder = posixpath.dirname(folder)
    return sorted(folders)


def _leftovers(root: Path, paths, tokens) -> list[str]:
    """The temporary files and staging folders that runs cut short left beside `paths` (the
    outputs, the recorded files and their folders): `.NAME.gen-matrix-TOKEN.tmp` for a NAME
    among them and a TOKEN among `tokens`, those the lock file names."""
    if not tokens:
        return []
    beside: dict[str, set[str]] = {}
    for path in paths:
        folder, name = posixpath.split(path)
        beside.setdefault(folder, set()).add(name)
    found = []
    for folder, names in sorted(beside.items()):
        try:
            entries = os.listdir(os.path.join(root, folder))
        except OSError:
            continue
        for entry in entries:
            match = _TEMPORARY.match(entry)
            if match and match.group(1) in names and match.group(2) in tokens:
                found.append(posixpath.join(folder, entry))
    return sorted(found)


def _as_written(old: bytes, recorded: str) -> bool:
    """Whether `old` is the text whose SHA-256 gen-matrix recorded (or it with git's CRLF)."""
    return recorded in (sha256(old).hexdigest(), sha256(old.replace(b"\r\n", b"\n")).hexdigest())


def plan(root: Path, outputs: dict[str, str], record: dict[str, str] | None,
         cut_short: tuple[str, ...] | None = None, inputs: frozenset[str] = frozenset(),
         adoptable: frozenset[str] = frozenset()) -> Plan:
    """Compare the outputs with the tree; raise if anything of the user's stands in the way.

    `record`: the files the state file records as written by gen-matrix, with their digests
    (None before the first record); `cut_short`: the tokens of runs cut short (the lock
    file's, when None); `inputs`: the files of the repository the run reads (fix files),
    which are never removed; `adoptable`: files without gen-matrix's header it may replace
    all the same (hand-written files git holds unchanged, which `generate --adopt` takes
    over)."""
    folders = _folders(outputs)
    problems = [problem for problem in (_folder_problem(root, folder) for folder in folders) if problem]
    if problems:
        raise GenMatrixError(problems)
    # a folder that is not there holds no file: its outputs are new without a look at each (a
    # first run's thousands of recipes)
    absent = {folder for folder in folders if not os.path.lexists(os.path.join(root, folder))}
    write, unchanged, adopted, hand_written = [], [], [], []
    for relative, text in outputs.items():
        if absent and posixpath.dirname(relative) in absent:
            write.append(relative)
            continue
        path = os.path.join(root, relative)
        try:
            mode = os.lstat(path).st_mode
        except (FileNotFoundError, NotADirectoryError):
            write.append(relative)  # nothing here yet: a new file
            continue
        except OSError as error:
            raise _unreadable(relative, error) from None
        new = text.encode("utf-8")
        if stat.S_ISLNK(mode):
            if isinstance(text, Merged) and os.path.isfile(path) and _linked(root, relative) == relative \
                    and Path(path).read_bytes() == new:
                unchanged.append(relative)  # a linked README whose tables are current
                continue
            problems.append(Problem(Location(relative), "this is a symbolic link; gen-matrix never writes through one",
                                    "replace the link by the file it points to, then run gen-matrix again"))
            continue
        if not stat.S_ISREG(mode):
            problems.append(Problem(Location(relative), "this is not a regular file, but the matrix generates a file here",
                                    "move it away, then run gen-matrix again"))
            continue
        old = _regular(path, relative)
        if old == new:
            unchanged.append(relative)
            continue
        if old is not None and not isinstance(text, Merged) and not _owned(relative, old, new, record):
            if relative in adoptable and not has_header(old):
                adopted.append(relative)
            elif not has_header(old):
                hand_written.append(relative)
            else:
                problems.append(_not_owned(relative, old, record))
        write.append(relative)
    problems += _hand_written(hand_written)
    removable, kept = [], []
    for relative in sorted(set(record or ()) - set(outputs)):
        if _linked(root, relative) is not None:
            kept.append(Problem(Location(relative), "no longer in the matrix, but a symbolic link is on its path; "
                                "kept", "remove it yourself if you do not need it"))
            continue
        old = _regular(os.path.join(root, relative), relative)
        if old is None:
            continue
        if relative in inputs:
            kept.append(Problem(Location(relative), "no longer generated, but the matrix reads it (a fix file); kept",
                                "nothing to do: it is yours now"))
        elif not has_header(old) or not _as_written(old, record[relative]):
            kept.append(Problem(Location(relative), "no longer in the matrix, but its text is not what gen-matrix "
                                "wrote (it was edited); kept",
                                "remove it yourself if you do not need it; gen-matrix no longer writes it"))
        else:
            removable.append(relative)
    if problems:
        raise GenMatrixError(problems)
    kept += _strays(root, outputs, record or {})
    tokens = lock.journal(root) if cut_short is None else cut_short
    leftovers = _leftovers(root, [*outputs, *(record or ()), *folders], set(tokens))
    return Plan(root, outputs, tuple(write), tuple(unchanged), tuple(removable), tuple(leftovers), tuple(kept),
                tuple(adopted))


def _strays(root: Path, outputs, record) -> list[Problem]:
    """Recipes in .flox/pkgs/ that carry gen-matrix's header, but that no variant generates and
    the record does not list (a copy, or one left from before the record): `flox build` would
    build them, and a publishing run could publish them, so they are named until someone decides."""
    folder = os.path.join(root, PKGS_DIR)
    if os.path.islink(folder) or not os.path.isdir(folder):
        return []
    strays = []
    for entry in sorted(os.listdir(folder)):
        relative = f"{PKGS_DIR}/{entry}"
        if not entry.endswith(".nix") or relative in outputs or relative in record:
            continue
        old = _regular(os.path.join(folder, entry), relative)
        if old is not None and has_header(old):
            strays.append(Problem(Location(relative), "a recipe with gen-matrix's header that no variant of the "
                                  "matrix generates; `flox build` builds it",
                                  f"remove it (`git rm {relative}`) if it is a stray copy; to keep it as a recipe "
                                  "of your own, remove its header line"))
    return strays


def _owned(relative: str, old: bytes, new: bytes, record: dict | None) -> bool:
    """Whether gen-matrix may overwrite `old`: it wrote it and the header is still there, or
    (before the record existed) it is what gen-matrix writes, but for CRLF line endings."""
    if not has_header(old):
        return False
    if relative == STATE_FILE or (record is not None and relative in record):
        return True
    return old.replace(b"\r\n", b"\n") == new


# How many hand-written files in the way are named one by one; more are one problem.
HAND_WRITTEN_NAMED = 3
HAND_WRITTEN_HINT = ("gen-matrix never overwrites a file it did not write. Hand-written recipes `gen-matrix adopt "
                     "--write` wrote the matrix for: commit them with it, then run `gen-matrix generate --adopt`, "
                     "which takes over each one git holds unchanged; anything else: move it away (or rename the "
                     "variant in matrix.yaml)")


def _hand_written(paths: list[str]) -> list[Problem]:
    """The files in the way that gen-matrix did not write: each its own problem where there are
    few, one problem naming the first of them where there are more (the recipes of a
    repository `gen-matrix adopt` wrote a matrix for)."""
    if len(paths) <= HAND_WRITTEN_NAMED:
        return [Problem(Location(relative), "this file was not generated by gen-matrix, but the matrix generates it",
                        HAND_WRITTEN_HINT) for relative in paths]
    first = sorted(paths)
    return [Problem(Location(first[0]), f"this file and {len(first) - 1} more ({', '.join(first[1:HAND_WRITTEN_NAMED])}, "
                    "...) were not generated by gen-matrix, but the matrix generates them", HAND_WRITTEN_HINT)]


def _not_owned(relative: str, old: bytes, record: dict | None) -> Problem:
    why = ("its record of written files (in matrix.state.json) does not list it" if record is not None
           else "matrix.state.json holds no record of written files yet, and the file is not what gen-matrix "
                "would write")
    return Problem(Location(relative), f"this file carries gen-matrix's header, but {why}",
                   "if it is an old generated file, remove it and run gen-matrix again; if it is yours, "
                   "move it away (or rename the variant in matrix.yaml)")


def _temporary(path: str, token: str) -> str:
    """The name beside `path` that the run with `token` writes it under before renaming it into place."""
    folder, name = os.path.split(path)
    return os.path.join(folder, f".{name}.gen-matrix-{token}.tmp")


def _discard(path: str) -> None:
    """Remove the file at `path` if there is one; a failure to is no error of its own."""
    try:
        os.unlink(path)
    except OSError:
        pass


def _create(path: str, text: str | bytes, mode: int = 0o666) -> None:
    """Write `text` (bytes as they are) to a new file at `path`; if that fails part way, no
    file is left there."""
    descriptor = os.open(path, _NEW_FILE, mode)
    try:
        try:
            data = memoryview(text if isinstance(text, bytes) else text.encode("utf-8"))
            while data:
                data = data[os.write(descriptor, data):]
        finally:
            os.close(descriptor)
    except BaseException:
        _discard(path)
        raise


def atomic_write(path: str, text: str | bytes, token: str, mode: int = 0o666) -> None:
    """Write a temporary file beside `path`, then rename it over `path`: a reader, or a run
    cut short, sees the old file or the new one, never a part. The file keeps its mode (an
    executable bit, a group's write permission). There is no fsync per file: it would cost
    more than all the rest of a run, and ext4 and btrfs write a file's data before they commit
    a rename over another file. `mode`: a new file's (less the umask)."""
    temporary = _temporary(path, token)
    _create(temporary, text, mode)
    try:
        try:
            os.chmod(temporary, stat.S_IMODE(os.lstat(path).st_mode))
        except FileNotFoundError:
            pass
        os.replace(temporary, path)
    except BaseException:
        _discard(temporary)
        raise


def _staging(root: Path, folders: list[str], token: str) -> dict[str, str]:
    """The outermost of `folders` that do not exist yet, each with the temporary name beside
    it that it is written under, whole, before it is renamed into place."""
    missing = {folder for folder in folders if not os.path.isdir(os.path.join(root, folder))}
    return {folder: _temporary(folder, token) for folder in sorted(missing) if posixpath.dirname(folder) not in missing}


def apply(plan: Plan, token: str | None = None) -> None:
    """Write what changed, then remove what is stale.

    A file in a folder that exists is written beside its old version and renamed over it. A
    folder that does not exist yet (a first run, a new kind of output) is written whole under
    a temporary name, then renamed into place: one rename instead of one per file. A failure
    part way (a full disk, a read-only folder) leaves every file whole, in its old or its new
    version, no new folder in part and no temporary file behind; running again finishes the job.
    Temporary names carry `token`, the run's as the lock file names it.
    """
    token = token or lock.new_token()
    folders = _folders(plan.write)
    staged = _staging(plan.root, folders, token)

    def located(relative: str) -> tuple[str, bool]:
        """Where `relative` is written, and whether that is inside a folder being staged."""
        for folder, temporary in staged.items():
            if relative == folder or relative.startswith(folder + "/"):
                return os.path.join(plan.root, temporary + relative[len(folder):]), True
        return os.path.join(plan.root, relative), False

    def discard_staged() -> None:
        for temporary in staged.values():
            shutil.rmtree(os.path.join(plan.root, temporary), ignore_errors=True)

    written = 0
    action, relative = "remove this temporary file, left by a run cut short", ""
    try:
        try:
            for relative in plan.leftovers:
                _remove_leftover(os.path.join(plan.root, relative))
            action = "create this folder"
            for relative in folders:
                os.makedirs(located(relative)[0], exist_ok=True)
            action = "write this file"
            for relative in plan.write:
                path, new = located(relative)
                if new:
                    _create(path, plan.outputs[relative])
                else:
                    atomic_write(path, plan.outputs[relative], token)
                    written += 1
            action = "move this new folder into place"
            for relative, temporary in staged.items():
                os.rename(os.path.join(plan.root, temporary), os.path.join(plan.root, relative))
                written += sum(1 for path in plan.write if path.startswith(relative + "/"))
            action = "remove this file"
            for relative in plan.remove:
                (plan.root / relative).unlink()
        except BaseException:
            discard_staged()
            raise
    except OSError as error:
        raise GenMatrixError.at(
            Location(relative), f"cannot {action}: {error.strerror or error}",
            f"{written} of {len(plan.write)} changed files were written, each whole; the rest keep their "
            "old version, or are not there yet. Fix the cause (disk space, permissions) and run gen-matrix again",
        ) from None


def _remove_leftover(path: str) -> None:
    """Remove a temporary file or staging folder of a run cut short; a link only as a link."""
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        os.unlink(path)


def _diff(relative: str, old: str, new: str) -> list[str]:
    """A unified diff of a small file; for a big one, how many lines changed (difflib's time
    grows faster than the lines do)."""
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    if len(old_lines) + len(new_lines) <= _DIFF_LINES:
        import difflib  # here: only a tree that differs needs it

        return list(difflib.unified_diff(old_lines, new_lines, fromfile=f"a/{relative}", tofile=f"b/{relative}"))
    old_count, new_count = Counter(old_lines), Counter(new_lines)
    return [f"changed: {relative} ({sum((old_count - new_count).values())} lines removed, "
            f"{sum((new_count - old_count).values())} added; too big to print a diff)\n"]


def report(plan: Plan) -> str:
    """Every difference, as `check` prints it: a diff per changed file, and the files that
    differ only in their line endings, named together with what to do about them."""
    chunks, crlf = [], []
    for relative in plan.write:
        old = _regular(str(plan.root / relative))  # named in an error by the system's own path
        new = plan.outputs[relative]
        if old is None:
            chunks.append(f"missing: {relative}\n")
        elif b"\r\n" in old and old.replace(b"\r\n", b"\n") == new.encode("utf-8"):
            crlf.append(relative)
        else:
            # the tree's text as it is, its control characters escaped: a file can hold any
            chunks.extend(printable(line) for line in _diff(relative, old.decode("utf-8", errors="replace"), new))
    chunks.extend(f"extra (no longer in the matrix): {relative}\n" for relative in plan.remove)
    chunks.extend(f"left by a run cut short: {relative}\n" for relative in plan.leftovers)
    chunks.extend(f"left alone: {problem}\n" for problem in plan.kept)
    if crlf:
        chunks.extend(f"line endings only (CRLF where gen-matrix writes LF): {relative}\n" for relative in crlf)
        chunks.append("hint: git converted these files to CRLF on checkout (core.autocrlf=true). Run `gen-matrix` "
                      "to write them with LF and commit the .gitattributes it writes: its `eol=lf` lines keep "
                      "them LF on every later checkout.\n")
    return "".join(chunks)
