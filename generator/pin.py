"""Where a matrix repository's gen-matrix comes from.

A repository pins its gen-matrix as it pins any dependency: `ci.gen_matrix` names a flake
reference fixed to a commit, which the Flox environment installs (and its lock records the
exact build), and which the workflow runs through that environment. Nothing is installed by
a bare name from a package index.

Where the matrix does not say, the default is the source the running gen-matrix was made
from, when it knows one that a runner can fetch: a release carries `release.json`, written by
the project's release workflow at the commit it built; a gen-matrix pip installed from git
carries the commit in its PEP 610 record (direct_url.json). A gen-matrix installed from a
local folder or file knows none, and says so.

In gen-matrix's own source tree (its pyproject.toml names the project) the workflow installs
the checkout itself: the generator of that very commit.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

from .errors import GenMatrixError, Location
from .layout import PACKAGE
from .records import dataclass

PROJECT = "gen-matrix"
# Written by .github/workflows/release.yml into the package it builds.
RELEASE_FILE = PACKAGE / "release.json"
COMMIT = re.compile(r"[0-9a-f]{40}")
# What ci.gen_matrix may be: a flake reference that fixes a commit. The schema holds the
# same pattern (matrix.schema.json, ci.gen_matrix); tests/test_pin.py keeps them equal.
FLAKE_PIN = re.compile(
    r"^(?:(?:github|gitlab|sourcehut):[A-Za-z0-9_.~-]+/[A-Za-z0-9_.-]+/[0-9a-f]{40}"
    r"|git\+https://[A-Za-z0-9.-]+(?::[0-9]+)?(?:/[A-Za-z0-9_.~-]+)+\?(?:ref=[A-Za-z0-9_./-]+&)?rev=[0-9a-f]{40})$")
_GITHUB = re.compile(r"^https://github\.com/(?P<repo>[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+?)(?:\.git)?/?$")
_HTTPS_GIT = re.compile(r"^https://[A-Za-z0-9.-]+(?::[0-9]+)?(?:/[A-Za-z0-9_.~-]+)+$")


@dataclass(frozen=True)
class Source:
    """The gen-matrix a repository's Flox environment and workflow run."""

    flake: str | None  # the pinned flake reference; None in the checkout, or where none is known
    checkout: bool  # gen-matrix's own source tree: the workflow installs the checkout
    origin: str  # where it was taken from, for messages and the files' comments


def is_checkout(root: Path) -> bool:
    """Whether `root` is gen-matrix's own source tree: its pyproject.toml names the project."""
    try:
        text = (root / "pyproject.toml").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False  # a matrix repository has none: no TOML parser to load for it
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        return tomlkit.parse(text).get("project", {}).get("name") == PROJECT
    except (TOMLKitError, AttributeError):
        return False


def of(root: Path, configured: str | None) -> Source:
    """The gen-matrix of the repository at `root`: the checkout, ci.gen_matrix, or the default."""
    if is_checkout(root):
        return Source(None, True, "this checkout of gen-matrix")
    if configured is not None:
        return Source(configured, False, "ci.gen_matrix")
    flake, origin = default()
    return Source(flake, False, origin)


def default() -> tuple[str | None, str]:
    """The flake reference of the running gen-matrix's own source, and where it was read;
    (None, why) where it knows none a runner could fetch."""
    release = _release()
    if release is not None:
        return release, f"the release's {RELEASE_FILE.name}"
    installed = _installed()
    if installed is None:
        return None, "gen-matrix is not installed as a package"
    record = _read(installed / "direct_url.json")
    if record is None:
        return None, "this gen-matrix records no source commit (no release record, no installation record of one)"
    try:
        data = json.loads(record)
        url, vcs = data["url"], data.get("vcs_info")
    except (ValueError, KeyError, TypeError):
        return None, "its installation record (direct_url.json) cannot be read"
    if isinstance(vcs, dict) and vcs.get("vcs") == "git" and COMMIT.fullmatch(str(vcs.get("commit_id", ""))):
        on_github = _GITHUB.match(url)
        if on_github:
            return f"github:{on_github['repo']}/{vcs['commit_id']}", "the git commit it was installed from"
        if _HTTPS_GIT.match(url):
            return f"git+{url}?rev={vcs['commit_id']}", "the git commit it was installed from"
    return None, f"this gen-matrix was installed from {url}, which a CI runner cannot fetch"


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _installed() -> Path | None:
    """The installed gen-matrix's metadata folder (NAME-VERSION.dist-info, or .egg-info),
    found as importlib.metadata finds a distribution's: in the first entry of sys.path that
    holds one. importlib.metadata itself imports email's parser (a thirtieth of a run) for the
    METADATA file, whose few header lines `_project_urls` reads."""
    wanted = _normal(PROJECT)
    for entry in sys.path:
        folder = entry or "."
        try:
            children = os.listdir(folder)
        except OSError:  # not a folder: a zip file, or an entry that does not exist
            continue
        for child in children:
            low = child.lower()
            if low.endswith((".dist-info", ".egg-info")) and _normal(low.rpartition(".")[0].partition("-")[0]) == wanted:
                return Path(folder) / child
    return None


def _read(path: Path) -> str | None:
    """A metadata file's text; None where there is none (importlib.metadata's read_text)."""
    try:
        return path.read_text(encoding="utf-8")
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError):
        return None


def _project_urls(installed: Path) -> list[str]:
    """The Project-URL fields of the metadata's header (METADATA, or an egg's PKG-INFO): each
    "Label, URL". A header line that starts with a space or tab continues the one before."""
    text = _read(installed / "METADATA") or _read(installed / "PKG-INFO") or ""
    fields: list[str] = []
    for line in text.replace("\r\n", "\n").split("\n\n", 1)[0].split("\n"):
        if line[:1] in (" ", "\t") and fields:
            fields[-1] += " " + line.strip()
        else:
            fields.append(line)
    return [field.partition(":")[2].strip() for field in fields if field.partition(":")[0].strip().lower() == "project-url"]


def _release() -> str | None:
    if not RELEASE_FILE.is_file():
        return None
    where = Location(str(RELEASE_FILE))
    try:
        data = json.loads(RELEASE_FILE.read_text(encoding="utf-8"))
        repository, rev = data["repository"], data["rev"]
    except (OSError, ValueError, KeyError, TypeError):
        raise GenMatrixError.at(where, "not a release record of gen-matrix's release workflow",
                                "reinstall gen-matrix; the file names the repository and commit a release was built from") from None
    if not (isinstance(repository, str) and re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", repository)
            and isinstance(rev, str) and COMMIT.fullmatch(rev)):
        raise GenMatrixError.at(where, "the release record names no repository and 40-hex commit",
                                "reinstall gen-matrix")
    return f"github:{repository}/{rev}"


def home() -> str:
    """The project's repository as a flake reference's prefix ("github:OWNER/NAME"), from the
    Repository URL of its metadata (pyproject.toml's [project.urls]); a release's own record
    names the repository it was built in, and wins."""
    release = _release()
    if release is not None:
        return release.rsplit("/", 1)[0]
    installed = _installed()
    urls = [] if installed is None else _project_urls(installed)
    if not urls:  # not installed as a package: the source tree's own pyproject.toml
        import tomlkit

        try:
            table = tomlkit.parse((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))
            urls = [f"{label}, {url}" for label, url in table["project"]["urls"].items()]
        except (OSError, KeyError):
            urls = []
    for entry in urls:
        label, _, url = entry.partition(",")
        on_github = _GITHUB.match(url.strip())
        if label.strip().lower() == "repository" and on_github:
            return f"github:{on_github['repo']}"
    return "github:OWNER/gen-matrix"  # a gen-matrix that knows no home: neither metadata nor pyproject.toml


def example_flake() -> str:
    """A pinned flake reference of the project, its commit to fill in."""
    return f"{home()}/<40-hex commit>"


def unknown_warning(source: Source, matrix: str, text: str) -> str | None:
    """The warning for a repository whose gen-matrix nothing pins, located at the matrix's
    `ci:` key (its first line where it has none): its workflow stops at its first step."""
    if source.checkout or source.flake is not None:
        return None
    line = next((number for number, content in enumerate(text.splitlines(), 1) if re.match(r"ci\s*:", content)), 1)
    return (f"{matrix}:{line}: ci.gen_matrix is not set and {source.origin}: the Flox environment and the workflow "
            "cannot install this gen-matrix, and the workflow stops before it checks or builds anything; set ci.gen_matrix to a "
            f"flake reference pinned to a commit, such as {example_flake()}")
