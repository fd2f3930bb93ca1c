"""Which gen-matrix a matrix repository pins (ci.gen_matrix) where the matrix does not say:
the commit the running gen-matrix was installed from, read from its installation record
(PEP 610's direct_url.json, as pip writes it) or a release's record; and how `init` writes
it, or the one given with --gen-matrix, into the new matrix."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import tomlkit
import yaml

from conftest import REPO
from generator import pin
from generator.commands import init
from generator.cli import main
from generator.errors import GenMatrixError


COMMIT, OTHER = "0123456789abcdef0123456789abcdef01234567", "89abcdef0123456789abcdef0123456789abcdef"


def install_record(site: Path, record: str | None, monkeypatch) -> None:
    """A gen-matrix installed in `site` (first on the path), with `record` as its direct_url.json
    (None: none, as an install from a package index has), and no release record."""
    info = site / "gen_matrix-0.0.1.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: gen-matrix\nVersion: 0.0.1\n")
    if record is not None:
        (info / "direct_url.json").write_text(record)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(pin, "RELEASE_FILE", site / "no-release.json")


def vcs(url: str, commit: str = COMMIT, requested: str | None = None, kind: str = "git") -> str:
    info = {"vcs": kind, "commit_id": commit}
    if requested is not None:
        info["requested_revision"] = requested
    return json.dumps({"url": url, "vcs_info": info})


def unfetchable(url: str) -> str:
    return f"this gen-matrix was installed from {url}, which a CI runner cannot fetch"


# direct_url.json as pip writes it (PEP 610) -> the flake reference, or None and the whole words that say why
RECORDS = [
    (vcs("https://github.com/acme/gen-matrix.git"), f"github:acme/gen-matrix/{COMMIT}"),
    (vcs("https://github.com/acme/gen-matrix", requested="main"), f"github:acme/gen-matrix/{COMMIT}"),
    (vcs("https://github.com/acme/gen-matrix", requested=OTHER), f"github:acme/gen-matrix/{COMMIT}"),
    (vcs("https://git.example.org:8443/tools/gen-matrix", requested="v1.0"),
     f"git+https://git.example.org:8443/tools/gen-matrix?rev={COMMIT}"),
    (vcs("https://github.com/acme/gen-matrix", commit=COMMIT[:12]), unfetchable("https://github.com/acme/gen-matrix")),
    (vcs("https://github.com/acme/gen-matrix", commit=""), unfetchable("https://github.com/acme/gen-matrix")),
    (vcs("https://hg.example.org/gen-matrix", kind="hg"), unfetchable("https://hg.example.org/gen-matrix")),
    (vcs("ssh://git@github.com/acme/gen-matrix.git"), unfetchable("ssh://git@github.com/acme/gen-matrix.git")),
    (vcs("file:///home/me/gen-matrix"), unfetchable("file:///home/me/gen-matrix")),
    (json.dumps({"url": "file:///tmp/gen_matrix-0.0.1-py3-none-any.whl",
                 "archive_info": {"hash": "sha256=" + "ab" * 32, "hashes": {"sha256": "ab" * 32}}}),
     unfetchable("file:///tmp/gen_matrix-0.0.1-py3-none-any.whl")),
    (json.dumps({"url": "https://example.org/gen_matrix-0.0.1.tar.gz", "archive_info": {"hash": ""}}),
     unfetchable("https://example.org/gen_matrix-0.0.1.tar.gz")),
    (json.dumps({"url": "file:///home/me/gen-matrix", "dir_info": {"editable": True}}),
     unfetchable("file:///home/me/gen-matrix")),
    (json.dumps({"url": "file:///home/me/gen-matrix", "dir_info": {}}), unfetchable("file:///home/me/gen-matrix")),
    (None, "this gen-matrix records no source commit (no release record, no installation record of one)"),
    ("{not json", "its installation record (direct_url.json) cannot be read"),
    (json.dumps({"vcs_info": {"vcs": "git", "commit_id": COMMIT}}),
     "its installation record (direct_url.json) cannot be read"),
]


@pytest.mark.parametrize("record, expected", RECORDS, ids=[f"record{index}" for index in range(len(RECORDS))])
def test_the_default_pin_is_the_commit_pip_recorded_where_a_runner_can_fetch_it(record, expected, tmp_path,
                                                                                monkeypatch):
    install_record(tmp_path, record, monkeypatch)
    flake, origin = pin.default()
    if expected.startswith(("github:", "git+")):
        assert (flake, origin) == (expected, "the git commit it was installed from")
        assert pin.FLAKE_PIN.match(flake)  # what ci.gen_matrix accepts
    else:  # the words init and generate show the user, whole
        assert (flake, origin) == (None, expected)


# a folder's pyproject.toml (None: it has none; a dict: a folder of that name there) -> whether
# the folder is gen-matrix's own source tree
TREES = [
    ('[project]\nname = "gen-matrix"\nversion = "0.0.1"\n', True),
    ('[build-system]\nrequires = ["setuptools"]\n\n[project]  # the source\nname = "gen-matrix"\n', True),
    ('[project]\nname = "gen-matrix-fork"\n', False),
    ('[project]\nname = "my-builds"\n', False),
    ('[tool.gen-matrix]\nname = "gen-matrix"\n', False),
    ('[project]\nversion = "1"\n', False),
    ('project = "gen-matrix"\n', False),
    ('[project\nname = "gen-matrix"\n', False),
    ("", False),
    (None, False),
    ({}, False),
]


@pytest.mark.parametrize("pyproject, checkout", TREES, ids=[f"tree{index}" for index in range(len(TREES))])
@pytest.mark.parametrize("configured", [None, f"github:acme/gen-matrix/{COMMIT}"], ids=["not set", "set"])
def test_a_tree_is_gen_matrix_s_own_only_where_its_pyproject_names_the_project(pyproject, checkout, configured,
                                                                               tmp_path, monkeypatch):
    """gen-matrix's own tree runs the checkout itself, whatever ci.gen_matrix says; any other
    runs ci.gen_matrix, else the default pin."""
    monkeypatch.setattr(pin, "default", lambda: (f"github:acme/gen-matrix/{OTHER}", "stand-in"))
    if isinstance(pyproject, str):
        (tmp_path / "pyproject.toml").write_text(pyproject)
    elif pyproject is not None:
        (tmp_path / "pyproject.toml").mkdir()
    assert pin.is_checkout(tmp_path) is checkout
    expected = pin.Source(None, True, "this checkout of gen-matrix") if checkout else \
        pin.Source(configured, False, "ci.gen_matrix") if configured else \
        pin.Source(f"github:acme/gen-matrix/{OTHER}", False, "stand-in")
    assert pin.of(tmp_path, configured) == expected


def test_a_tree_without_pyproject_is_no_checkout_without_a_toml_parser(tmp_path, monkeypatch):
    """A matrix repository has no pyproject.toml: telling it from gen-matrix's own tree loads
    no TOML parser, whose import would cost a cold generate more than the whole check."""
    monkeypatch.setitem(sys.modules, "tomlkit", None)  # `import tomlkit` fails
    assert pin.is_checkout(tmp_path) is False


def test_gen_matrix_s_own_source_tree_is_a_checkout_and_its_examples_are_not():
    assert pin.is_checkout(REPO)
    assert pin.of(REPO, f"github:acme/gen-matrix/{COMMIT}") == pin.Source(None, True, "this checkout of gen-matrix")
    examples = sorted(path for path in (REPO / "examples").iterdir() if path.is_dir())
    assert len(examples) >= 2 and not any(pin.is_checkout(example) for example in examples)


def test_a_release_record_comes_before_the_installation_record(tmp_path, monkeypatch):
    install_record(tmp_path, vcs("https://github.com/acme/gen-matrix"), monkeypatch)
    (tmp_path / "release.json").write_text(json.dumps({"repository": "flox/gen-matrix", "rev": OTHER}))
    monkeypatch.setattr(pin, "RELEASE_FILE", tmp_path / "release.json")
    assert pin.default() == (f"github:flox/gen-matrix/{OTHER}", "the release's release.json")


@pytest.mark.parametrize("repository", ["Acme-Labs/gen.matrix_2", "flox/gen-matrix"])
def test_a_release_record_names_the_flake_and_the_project_s_home(repository, tmp_path, monkeypatch):
    install_record(tmp_path, vcs("https://github.com/acme/gen-matrix"), monkeypatch)
    (tmp_path / "release.json").write_text(json.dumps({"repository": repository, "rev": COMMIT}))
    monkeypatch.setattr(pin, "RELEASE_FILE", tmp_path / "release.json")
    assert pin.default() == (f"github:{repository}/{COMMIT}", "the release's release.json")
    assert pin.home() == f"github:{repository}"


UNREADABLE, NO_PIN = "not a release record of gen-matrix's release workflow", "the release record names no repository and 40-hex commit"
BAD_RELEASES = [
    ("{not json", UNREADABLE, "reinstall gen-matrix; the file names the repository and commit a release was built from"),
    (json.dumps(["acme/gen-matrix", COMMIT]), UNREADABLE, "reinstall gen-matrix; the file names the repository"),
    (json.dumps({"repository": "acme/gen-matrix"}), UNREADABLE, "reinstall gen-matrix; the file names the repository"),
    (json.dumps({"rev": COMMIT}), UNREADABLE, "reinstall gen-matrix; the file names the repository"),
    (json.dumps({"repository": "acme", "rev": COMMIT}), NO_PIN, "reinstall gen-matrix"),
    (json.dumps({"repository": "acme/gen-matrix", "rev": COMMIT[:12]}), NO_PIN, "reinstall gen-matrix"),
    (json.dumps({"repository": 7, "rev": COMMIT}), NO_PIN, "reinstall gen-matrix"),
    (json.dumps({"repository": "acme/gen matrix", "rev": COMMIT.upper()}), NO_PIN, "reinstall gen-matrix"),
]


@pytest.mark.parametrize("text, message, hint", BAD_RELEASES, ids=[f"release{n}" for n in range(len(BAD_RELEASES))])
def test_a_release_record_gen_matrix_cannot_read_is_an_error_at_that_file(text, message, hint, tmp_path, monkeypatch):
    install_record(tmp_path, vcs("https://github.com/acme/gen-matrix"), monkeypatch)
    release = tmp_path / "release.json"
    release.write_text(text)
    monkeypatch.setattr(pin, "RELEASE_FILE", release)
    for asked in (pin.default, pin.home):
        with pytest.raises(GenMatrixError) as raised:
            asked()
        (problem,) = raised.value.problems
        assert (problem.where.path, problem.message) == (str(release), message)
        assert problem.hint.startswith(hint)


def metadata_urls(site: Path, monkeypatch, *urls: str) -> None:
    """An installed gen-matrix (no installation record) whose metadata lists these Project-URLs."""
    install_record(site, None, monkeypatch)
    info = site / "gen_matrix-0.0.1.dist-info" / "METADATA"
    info.write_text(info.read_text() + "".join(f"Project-URL: {url}\n" for url in urls))


@pytest.mark.parametrize("urls, home", [
    (("Homepage, https://github.com/elsewhere/site", "Repository, https://github.com/acme/gen-matrix.git"),
     "github:acme/gen-matrix"),
    (("Repository, https://github.com/flox/gen-matrix/", "Issues, https://github.com/other/issues"),
     "github:flox/gen-matrix"),
    (("Homepage, https://github.com/elsewhere/site", "Repository, https://git.example.org/acme/gen-matrix"),
     "github:OWNER/gen-matrix"),
])
def test_the_project_s_home_is_its_repository_url_on_github(urls, home, tmp_path, monkeypatch):
    metadata_urls(tmp_path, monkeypatch, *urls)
    assert pin.home() == home
    assert pin.example_flake() == f"{home}/<40-hex commit>"


def test_a_gen_matrix_not_installed_reads_its_home_from_its_source_tree(monkeypatch):
    """Run from a source tree without installing it: no distribution, no installation record;
    the home is the Repository of the tree's own pyproject.toml."""
    monkeypatch.setattr(pin, "PROJECT", "gen-matrix-not-installed")
    monkeypatch.setattr(pin, "RELEASE_FILE", REPO / "no-release.json")
    urls = tomlkit.parse((REPO / "pyproject.toml").read_text())["project"]["urls"]
    owner_name = urls["Repository"].removeprefix("https://github.com/")
    assert pin.home() == f"github:{owner_name}"
    assert pin.default() == (None, "gen-matrix is not installed as a package")


# sys.path's folders, each with the metadata folders it holds: gen-matrix's under other spellings,
# beside other projects whose names start alike, in the first folder or a later one.
LAYOUTS = [
    [["gen_matrix_extra-1.0.dist-info", "gen-matrixx-2.dist-info"], ["Gen_Matrix-0.3.dist-info"]],
    [["other-1.dist-info"], ["gen.matrix-1.0.egg-info", "gen_matrix-2.0.dist-info"], ["gen_matrix-3.0.dist-info"]],
    [["GEN-MATRIX-0.1.DIST-INFO"], ["gen_matrix-9.dist-info"]],
    [["gen_matrix.pth", "gen_matrix-1.0.dist-info.bak"], ["gen__matrix-4.dist-info"]],
]


def pairs(urls: list[str]) -> list[tuple[str, str]]:
    """Project-URL fields as home() reads each: its label and URL, either side of the first comma."""
    return [(label.strip(), url.strip()) for label, _, url in (field.partition(",") for field in urls)]


@pytest.mark.parametrize("layout", LAYOUTS, ids=[f"layout{n}" for n in range(len(LAYOUTS))])
def test_the_installation_read_is_the_one_importlib_metadata_finds(layout, tmp_path, monkeypatch):
    """gen-matrix finds its own metadata folder as importlib.metadata does, and reads its
    installation record and its Project-URLs (a folded line, a body that mentions one) alike."""
    import importlib.metadata

    folders = []
    for number, children in enumerate(layout):
        folder = tmp_path / f"site{number}"
        for child in children:
            info = folder / child
            info.mkdir(parents=True)
            (info / "direct_url.json").write_text(json.dumps({"url": f"file://{info}"}))
            (info / "METADATA").write_text(
                f"Metadata-Version: 2.1\nName: {child}\nProject-URL: Homepage, https://example.org/{child}\n"
                f"project-url: Repository,\n  https://github.com/acme/{number}\nSummary: x\n\n"
                "Project-URL: Body, https://example.org/not-a-field\n")
        folders.append(str(folder))
    monkeypatch.setattr(sys, "path", [str(tmp_path / "absent"), *folders])
    expected = importlib.metadata.distribution("gen-matrix")
    assert pin._read(pin._installed() / "direct_url.json") == expected.read_text("direct_url.json")
    assert pairs(pin._project_urls(pin._installed())) == pairs(expected.metadata.get_all("Project-URL"))


def test_no_installation_is_found_where_importlib_metadata_finds_none(tmp_path, monkeypatch):
    import importlib.metadata

    (tmp_path / "gen_matrix_tools-1.dist-info").mkdir()
    (tmp_path / "gen-matrix").mkdir()
    monkeypatch.setattr(sys, "path", [str(tmp_path), str(tmp_path / "absent.zip")])
    with pytest.raises(importlib.metadata.PackageNotFoundError):
        importlib.metadata.distribution("gen-matrix")
    assert pin._installed() is None
    assert pin.default() == (None, "gen-matrix is not installed as a package")


@pytest.mark.parametrize("text, line", [
    ("pytorch: {version: \"2.8.0\"}\nci:\n  main_branch: main\n", 2),
    ("cinder: x\n# ci: not this one\n  ci: nor this\nci :\n  timeout_minutes: 60\nci: {}\n", 4),  # the first `ci:`
    ("pytorch: {version: \"2.8.0\"}\ncpu: {python: [\"3.13\"], isa: [avx2]}\n", 1),  # none: the first line
])
def test_the_warning_for_no_pin_is_at_the_matrix_s_ci_key_and_says_what_to_do(text, line, monkeypatch):
    monkeypatch.setattr(pin, "example_flake", lambda: "github:acme/gen-matrix/<40-hex commit>")
    source = pin.Source(None, False, "this gen-matrix was installed from file:///src, which a CI runner cannot fetch")
    assert pin.unknown_warning(source, "repo/matrix.yaml", text) == (
        f"repo/matrix.yaml:{line}: ci.gen_matrix is not set and this gen-matrix was installed from file:///src, "
        "which a CI runner cannot fetch: the Flox environment and the workflow cannot install this gen-matrix, and the "
        "workflow stops before it checks or builds anything; set ci.gen_matrix to a flake reference pinned to a "
        "commit, such as github:acme/gen-matrix/<40-hex commit>")
    for known in (pin.Source("github:acme/gen-matrix/" + COMMIT, False, "ci.gen_matrix"), pin.Source(None, True, "x")):
        assert pin.unknown_warning(known, "repo/matrix.yaml", text) is None


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root, check=True,
                          capture_output=True, text=True).stdout.strip()


@pytest.mark.slow
def test_a_gen_matrix_pip_installed_from_git_pins_the_commit_it_was_installed_from(tmp_path, monkeypatch):
    """A real `pip install git+file://...@BRANCH` of a repository of two commits, the branch at
    the first: pip's record names that commit (not the branch, nor the newest), which is the
    default pin once the record's URL is one a runner can fetch."""
    source = tmp_path / "gen-matrix"
    (source / "gm_probe").mkdir(parents=True)
    (source / "gm_probe" / "__init__.py").write_text("")
    (source / "pyproject.toml").write_text('[build-system]\nrequires = ["setuptools"]\n'
                                           'build-backend = "setuptools.build_meta"\n'
                                           '[project]\nname = "gen-matrix"\nversion = "0.0.1"\n')
    git(source, "init", "-q", "-b", "main")
    git(source, "add", "-A")
    git(source, "commit", "-qm", "one")
    first = git(source, "rev-parse", "HEAD")
    git(source, "branch", "release")
    (source / "README").write_text("two\n")
    git(source, "add", "-A")
    git(source, "commit", "-qm", "two")
    site = tmp_path / "site"
    installed = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                                "--no-index", "--target", site, f"git+{source.as_uri()}@release"],
                               capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr
    (info,) = site.glob("gen_matrix-*.dist-info")
    record = json.loads((info / "direct_url.json").read_text())
    assert record["vcs_info"]["commit_id"] == first != git(source, "rev-parse", "HEAD")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(pin, "RELEASE_FILE", site / "no-release.json")
    flake, origin = pin.default()
    assert flake is None and f"installed from {source.as_uri()}, which a CI runner cannot fetch" in origin
    record["url"] = "https://github.com/acme/gen-matrix.git"  # as from GitHub
    (info / "direct_url.json").write_text(json.dumps(record))
    assert pin.default() == (f"github:acme/gen-matrix/{first}", "the git commit it was installed from")


# --- init writes the pin ---------------------------------------------------------------

GIVEN, DEFAULT, SET = (f"github:acme/gen-matrix/{COMMIT}", f"git+https://git.example.org/gen-matrix?rev={OTHER}",
                       f"github:mine/gen-matrix/{'f' * 40}")
BASE = "pytorch: {version: \"2.8.0\"}\nnixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}\n"
CI_SECTIONS = {
    "no ci": "cpu: {python: [\"3.13\"], isa: [avx2]}\n",
    "a ci block, keys after it": "ci:  # the workflow\n  main_branch: trunk\n  timeout_minutes: 60\n"
                                 "cpu: {python: [\"3.13\"], isa: [avx2]}\n",
    "a ci block that pins already": f"ci:\n  gen_matrix: {SET}\n  main_branch: trunk\n"
                                    "cpu: {python: [\"3.13\"], isa: [avx2]}\n",
}


@pytest.mark.parametrize("section", CI_SECTIONS)
@pytest.mark.parametrize("given", [GIVEN, None], ids=["given", "none given"])
@pytest.mark.parametrize("default", [DEFAULT, None], ids=["a default", "no default"])
def test_init_pins_the_matrix_s_own_else_the_given_else_the_default_and_keeps_every_other_key(
        section, given, default, monkeypatch):
    monkeypatch.setattr(pin, "default", lambda: (default, "stand-in"))
    text = BASE + CI_SECTIONS[section]
    pinned = init.pinned(text, given)
    before, after = yaml.safe_load(text), yaml.safe_load(pinned)
    expected = SET if "pins already" in section else given or default
    assert after.get("ci", {}).get("gen_matrix") == expected
    if expected is None or "pins already" in section:
        assert pinned == text
    for key, value in before.items():  # nothing else changes
        assert after[key] == value if key != "ci" else {k: v for k, v in after[key].items() if k != "gen_matrix"} == \
            {k: v for k, v in value.items() if k != "gen_matrix"}


def test_init_refuses_a_given_reference_not_pinned_to_a_commit():
    for flake in ("github:acme/gen-matrix", f"github:acme/gen-matrix/{COMMIT[:12]}", "gen-matrix",
                  "git+https://x.org/g?ref=main"):
        with pytest.raises(GenMatrixError) as refused:
            init.pinned(BASE, flake)
        assert "is not a flake reference pinned to a commit" in str(refused.value)


@pytest.mark.slow
def test_init_with_gen_matrix_makes_a_repository_whose_environment_and_workflow_run_it(tmp_path):
    from click.testing import CliRunner

    result = CliRunner().invoke(main, ["init", str(tmp_path / "mine"), "--gen-matrix", GIVEN, "--uname", "Linux x86_64"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "ci.gen_matrix is not set" not in result.output
    root = tmp_path / "mine"
    assert yaml.safe_load((root / "matrix.yaml").read_text())["ci"]["gen_matrix"] == GIVEN
    assert f'gen-matrix.flake = "{GIVEN}"' in (root / ".flox/env/manifest.toml").read_text()
    assert CliRunner().invoke(main, ["check", "--root", str(root)]).exit_code == 0
    assert git(root, "status", "--porcelain") == ""  # committed as generated
