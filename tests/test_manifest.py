"""The Flox manifest: gen-matrix's parts kept current, the user's kept byte for byte."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess

import pytest
import tomlkit

from generator import pin
from generator.outputs import manifest
from generator.errors import GenMatrixError

from conftest import REPO, expansion_of, needs_posix

MANIFEST = ".flox/env/manifest.toml"

USER_MANIFEST = """\
# My environment: keep this comment.
version = 1

[install]
# tools I like
ripgrep.pkg-path = "ripgrep"   # fast grep
python3.pkg-path = "python311" # gen-matrix owns this one
git = { pkg-path = "git", priority = 3 }

[vars]
GREETING = "hello"

[hook]
on-activate = '''
  echo "$GREETING"   # mine, before
# gen-matrix:begin builds
stale
# gen-matrix:end builds
  echo done   # mine, after
'''

[profile]
bash = '''
  alias ll='ls -l'
'''

[options]
# where this runs
systems = ["x86_64-linux"]
cuda-detection = false
"""


# gen-matrix's own checkout: the manifest gives the tools `python -m generator` needs.
CHECKOUT = pin.of(REPO, None)
FLAKE = "github:acme/gen-matrix/" + "0123456789abcdef" * 2 + "01234567"


def generate(run, root):
    result = run("--root", root)
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture
def pinned(project):
    """A matrix repository whose matrix pins its gen-matrix (ci.gen_matrix)."""
    assert f"  gen_matrix: {FLAKE}\n" in (project / "matrix.yaml").read_text(encoding="utf-8")  # the tests' matrix
    return project


def test_created_when_absent(pinned, run):
    generate(run, pinned)
    text = (pinned / MANIFEST).read_text()
    data = tomlkit.parse(text).unwrap()
    assert data["version"] == 1
    assert data["options"]["systems"] == ["aarch64-darwin", "aarch64-linux", "x86_64-linux"]
    # git, and the pinned gen-matrix, which `flox activate -- gen-matrix` runs
    assert data["install"] == {"git": {"pkg-path": "git"}, "gen-matrix": {"flake": FLAKE}}
    assert "python -m generator" not in text and "`flox activate -- gen-matrix` runs" in text


def test_the_checkout_of_gen_matrix_gets_the_tools_that_run_it_from_source():
    data = tomlkit.parse(manifest.update(None, expansion_of(REPO), CHECKOUT)).unwrap()
    assert {name: entry["pkg-path"] for name, entry in data["install"].items()} == {
        name: value for name, _, value in manifest.CHECKOUT_TOOLS}
    assert "gen-matrix" not in data["install"]


def test_without_a_pin_the_manifest_has_no_gen_matrix_and_generate_says_why(project, run):
    """An editable install of gen-matrix (as this test suite runs) records no commit a runner can fetch."""
    assert pin.default()[0] is None
    matrix = project / "matrix.yaml"
    matrix.write_text(matrix.read_text(encoding="utf-8").replace(f"  gen_matrix: {FLAKE}\n", ""), encoding="utf-8")
    result = generate(run, project)
    data = tomlkit.parse((project / MANIFEST).read_text()).unwrap()
    assert data["install"] == {"git": {"pkg-path": "git"}}
    assert f"warning: {project / 'matrix.yaml'}:51: ci.gen_matrix is not set" in result.stderr
    assert "holds no gen-matrix yet: set ci.gen_matrix" in (project / MANIFEST).read_text()


def test_a_pin_replaces_the_source_an_entry_had(pinned, run):
    path = pinned / MANIFEST
    path.parent.mkdir(parents=True)
    path.write_text('version = 1\n[install]\ngen-matrix.pkg-path = "python3Packages.gen-matrix"  # mine\n')
    generate(run, pinned)
    assert tomlkit.parse(path.read_text()).unwrap()["install"]["gen-matrix"] == {"flake": FLAKE}


@needs_posix("the hook runs in bash, as Flox runs it on Linux and macOS")
def test_the_hook_run_as_flox_runs_it_names_every_recipe(project, run):
    generate(run, project)
    data = tomlkit.parse((project / MANIFEST).read_text()).unwrap()
    script = data["hook"]["on-activate"] + '\nprintf "%s" "$GEN_MATRIX_BUILDS"'
    shown = subprocess.run(["bash", "-c", script], env={"FLOX_ENV_PROJECT": str(project), "PATH": os.environ["PATH"]},
                           capture_output=True, text=True, check=True).stdout
    assert shown.split("\n") == sorted(p.stem for p in (project / ".flox/pkgs").glob("*.nix"))
    assert len(shown.split("\n")) == 62


def test_the_manifest_stays_the_same_when_variants_come_and_go(project, run):
    generate(run, project)
    before = (project / MANIFEST).read_bytes()
    matrix = project / "matrix.yaml"
    matrix.write_text(matrix.read_text().replace("sm: [sm61, sm75, sm80, sm86, sm89, sm90, sm100, sm120]",
                                                 "sm: [sm61, sm75, sm90]"))
    result = generate(run, project)
    assert "removed" in result.output and len(list((project / ".flox/pkgs").glob("*.nix"))) < 62
    assert (project / MANIFEST).read_bytes() == before  # so the committed lock stays current


@pytest.mark.skipif(shutil.which("git") is None, reason="git not found")
def test_flox_gitignore_is_what_flox_init_writes_and_hides_what_flox_build_leaves(project, run):
    generate(run, project)
    assert (project / ".flox/.gitignore").read_text() == "run/\ncache/\nlib/\nlog/\n!env/\n"
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    for left in ("run/x86_64-linux.pytorch-variants.dev/activate", "cache/x", "lib/x", "log/build.log"):
        (project / ".flox" / left).parent.mkdir(parents=True, exist_ok=True)
        (project / ".flox" / left).write_text("")
    untracked = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "--", ".flox"],
                               cwd=project, capture_output=True, text=True, check=True).stdout
    assert ".flox/run" not in untracked and ".flox/log" not in untracked and ".flox/cache" not in untracked
    assert ".flox/env/manifest.toml" in untracked  # the environment itself is tracked


def test_a_users_flox_gitignore_is_kept_with_the_lines_it_lacks_added(project, run):
    (project / ".flox").mkdir()
    (project / ".flox/.gitignore").write_text("# mine\nrun/\nscratch/")
    generate(run, project)
    assert (project / ".flox/.gitignore").read_text() == "# mine\nrun/\nscratch/\ncache/\nlib/\nlog/\n!env/\n"
    assert run("check", "--root", project).exit_code == 0


def test_users_parts_kept_byte_for_byte(pinned, run):
    project = pinned
    path = project / MANIFEST
    path.parent.mkdir(parents=True)
    path.write_text(USER_MANIFEST)
    generate(run, project)
    text = path.read_text()
    # Everything outside the owned values is as the user wrote it.
    for kept in ('# My environment: keep this comment.\nversion = 1\n\n[install]\n# tools I like\n'
                 'ripgrep.pkg-path = "ripgrep"   # fast grep\n',
                 'python3.pkg-path = "python311" # gen-matrix owns this one\ngit = { pkg-path = "git", priority = 3 }\n',
                 '\n[vars]\nGREETING = "hello"\n\n[hook]\n',
                 "on-activate = '''\n  echo \"$GREETING\"   # mine, before\n# gen-matrix:begin builds\n",
                 "# gen-matrix:end builds\n  echo done   # mine, after\n'''\n\n[profile]\nbash = '''\n"
                 "  alias ll='ls -l'\n'''\n\n[options]\n# where this runs\n",
                 "cuda-detection = false\n"):
        assert kept in text
    assert "stale" not in text
    data = tomlkit.parse(text).unwrap()
    assert data["install"]["python3"]["pkg-path"] == "python311"  # gen-matrix's only in its own checkout
    assert data["install"]["gen-matrix"] == {"flake": FLAKE}
    assert data["install"]["git"] == {"pkg-path": "git", "priority": 3}
    assert data["install"]["ripgrep"]["pkg-path"] == "ripgrep"
    assert data["options"]["systems"] == ["aarch64-darwin", "aarch64-linux", "x86_64-linux"]
    assert data["options"]["cuda-detection"] is False
    assert list(data) == ["version", "install", "vars", "hook", "profile", "options"]
    assert "0 written" in generate(run, project).stdout


def test_hook_without_markers_gets_the_block_appended(project, run):
    path = project / MANIFEST
    path.parent.mkdir(parents=True)
    path.write_text('version = 1\n\n[hook]\non-activate = """\n  echo "tab\\there"\n"""\n')
    generate(run, project)
    text = path.read_text()
    assert text.startswith('version = 1\n\n[hook]\non-activate = """\n  echo "tab\\there"\n# gen-matrix:begin builds\n')
    assert tomlkit.parse(text).unwrap()["hook"]["on-activate"].startswith('  echo "tab\there"\n# gen-matrix:begin builds\n')


def test_check_sees_an_edited_owned_part(project, run):
    generate(run, project)
    path = project / MANIFEST
    path.write_text(path.read_text().replace('systems = ["aarch64-darwin", ', 'systems = ['))
    result = run("check", "--root", project)
    assert result.exit_code == 1 and f"a/{MANIFEST}" in result.stdout
    generate(run, project)
    assert run("check", "--root", project).exit_code == 0


def test_unbalanced_hook_markers_are_a_located_error(project, run):
    path = project / MANIFEST
    path.parent.mkdir(parents=True)
    path.write_text("version = 1\n[hook]\non-activate = '''\n# gen-matrix:begin builds\necho\n'''\n")
    result = run("--root", project)
    assert result.exit_code == 2
    assert f"{MANIFEST}:4: block 'builds' has no end marker" in result.stderr
    assert not (project / ".flox/pkgs").exists()


def test_invalid_toml_is_a_located_error(project, run):
    path = project / MANIFEST
    path.parent.mkdir(parents=True)
    path.write_text("version = 1\n[install\n")
    result = run("--root", project)
    assert result.exit_code == 2 and f"{MANIFEST}:2:" in result.stderr and "not valid TOML" in result.stderr
    assert path.read_text() == "version = 1\n[install\n"


def test_shipped_manifest_is_current():
    text = (REPO / MANIFEST).read_text()
    assert manifest.update(text, expansion_of(REPO), CHECKOUT) == text


@pytest.mark.parametrize("text, line, message", [
    ("version = 1\ninstall = 3\n", 2, "'install' is not a table"),
    ("version = 1\n[hook]\non-activate = 5\n", 3, "hook.on-activate is not a string"),
    ("[hook]\non-activate = '''\n# gen-matrix:end builds\n# gen-matrix:begin builds\n'''\n", 3,
     "end marker 'builds' without a begin marker"),
])
def test_manifest_gen_matrix_cannot_update_is_a_located_error(text, line, message):
    with pytest.raises(GenMatrixError) as error:
        manifest.update(text, expansion_of(REPO), CHECKOUT)
    problem = error.value.problems[0]
    assert (problem.where.path, problem.where.line, problem.message) == (MANIFEST, line, message)


def test_single_line_hook_becomes_multi_line_with_the_block():
    text = manifest.update('version = 1\n[hook]\non-activate = "echo hi"\n', expansion_of(REPO), CHECKOUT)
    hook = tomlkit.parse(text).unwrap()["hook"]["on-activate"]
    assert hook.startswith("echo hi\n# gen-matrix:begin builds\n") and hook.endswith("# gen-matrix:end builds\n")


def test_a_new_manifest_is_what_tomlkit_makes_of_the_template():
    """A tree without a manifest gets one from the template alone, without tomlkit: the same
    text as editing the bare template with tomlkit gives."""
    empty = manifest.new(manifest.Wanted((), [], "", CHECKOUT))
    wanted = manifest.Wanted.of(expansion_of(REPO), CHECKOUT)
    stale = wanted.block.replace("pytorch-python313-darwin-mps\n", "")
    elsewhere = pin.Source(FLAKE, False, "ci.gen_matrix")
    for case in (wanted, manifest.Wanted(manifest.CHECKOUT_TOOLS, ["x86_64-linux"], stale, CHECKOUT),
                 manifest.Wanted(manifest.CHECKOUT_TOOLS[:1], [], stale, CHECKOUT),
                 manifest.Wanted.of(expansion_of(REPO), elsewhere)):
        assert manifest.new(case) == manifest.edited(manifest.new(dataclasses.replace(case, tools=())), case)
    assert manifest.update(None, expansion_of(REPO), CHECKOUT) == (REPO / MANIFEST).read_text()


def snapshot(root):
    return {path: path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


@pytest.mark.parametrize("text, line, message", [
    ('version = 1\n\n[install]\ngit = "git"\n', 4, "install.git is not a table"),
    ('version = 1\n[install]\n# git and more\nripgrep.pkg-path = "ripgrep"\n"gen-matrix" = 3\n', 5,
     "install.gen-matrix is not a table"),
    ("version = 1\n[[install.gen-matrix]]\npkg-path = 'x'\n", 2, "install.gen-matrix is not a table"),
    ("version = 1\n[[install]]\nx = 1\n", 2, "'install' is not a table"),
    ('version = 1\noptions = "all"\n', 2, "'options' is not a table"),
    ("version = 1\n\n[options]\nsystems = 5\n", 4, "options.systems is not an array of strings"),
    ('version = 1\n[options]\nsystems = "x86_64-linux"\n', 3, "options.systems is not an array of strings"),
    ('version = 1\noptions.systems = ["x86_64-linux", 5]\n', 2, "options.systems is not an array of strings"),
    ("version = 1\nhook = [1]\n", 2, "'hook' is not a table"),
    ("version = 1\n[hook]\non-activate = ['echo']\n", 3, "hook.on-activate is not a string"),
    ("version = 1\n[hook.on-activate]\nx = 1\n", 2, "hook.on-activate is not a string"),
])
def test_manifest_gen_matrix_cannot_read_is_a_located_error_through_the_cli(pinned, run, text, line, message):
    project = pinned
    path = project / MANIFEST
    path.parent.mkdir(parents=True)
    path.write_text(text)
    before = snapshot(project)
    result = run("--root", project)
    assert result.exit_code == 2
    assert f"{MANIFEST}:{line}: {message}\n  hint: " in result.stderr
    assert "Traceback" not in result.output + result.stderr
    assert snapshot(project) == before
    assert run("check", "--root", project).exit_code == 2


POINTER = ".flox/env.json"


def test_environment_pointer_created_with_a_fixed_name(project, run, tmp_path_factory):
    generate(run, project)
    text = (project / POINTER).read_text()
    assert json.loads(text) == {"name": "pytorch-variants", "version": 1}
    # Another clone, in a folder with another name, generates the same file.
    other = tmp_path_factory.mktemp("another-clone")
    shutil.copy(project / "matrix.yaml", other / "matrix.yaml")
    generate(run, other)
    assert (other / POINTER).read_text() == text
    assert (REPO / POINTER).read_text() == text


def test_environment_pointer_is_the_users_once_it_exists(project, run):
    path = project / POINTER
    path.parent.mkdir(parents=True)
    mine = '{"name": "my-torch",\n "version": 1, "env_id": "abc"}'
    path.write_text(mine)
    generate(run, project)
    assert path.read_text() == mine
    assert run("check", "--root", project).exit_code == 0


def test_check_reports_a_missing_environment_pointer(project, run):
    generate(run, project)
    (project / POINTER).unlink()
    result = run("check", "--root", project)
    assert result.exit_code == 1 and POINTER in result.stdout
    assert not (project / POINTER).exists()


@pytest.mark.parametrize("text, where, message", [
    # a missing comma: every Python's json places it alike (3.13 places a trailing comma otherwise)
    ('{"name": "x"\n "version": 1\n}\n', f"{POINTER}:2:2", "not valid JSON"),
    ('["pytorch-variants", 1]\n', f"{POINTER}:1", "is not a JSON object"),
    ('{\n  "version": 1\n}\n', f"{POINTER}:1", "'name' must be a non-empty string"),
    ('{\n  "name": 7,\n  "version": 1\n}\n', f"{POINTER}:2", "'name' must be a non-empty string"),
    ('{\n  "name": "x",\n  "version": "1"\n}\n', f"{POINTER}:3", "'version' must be 1"),
    ('{\n  "name": "x",\n  "version": true\n}\n', f"{POINTER}:3", "'version' must be 1"),
])
def test_malformed_environment_pointer_is_a_located_error(project, run, text, where, message):
    path = project / POINTER
    path.parent.mkdir(parents=True)
    path.write_text(text)
    before = snapshot(project)
    result = run("--root", project)
    assert result.exit_code == 2
    assert f"{where}: {message}" in result.stderr and "hint: Flox reads this file" in result.stderr
    assert snapshot(project) == before


# --- what gen-matrix writes into a manifest it edits, and the lines its errors name ---------

def updated(text: str) -> str:
    return manifest.update(text, expansion_of(REPO), CHECKOUT)


def problem(text: str) -> str:
    """The one problem `text` is refused for, as the user reads it."""
    with pytest.raises(GenMatrixError) as error:
        updated(text)
    (found,) = error.value.problems
    return str(found)


def test_a_hook_table_without_on_activate_gets_the_hook_a_new_manifest_has():
    block = manifest.Wanted.of(expansion_of(REPO), CHECKOUT).block
    text = updated("version = 1\n[hook]\n")
    assert "[hook]\non-activate = '''\n" + block + "'''\n" in text
    assert tomlkit.parse(text).unwrap()["hook"]["on-activate"] == block
    assert f"on-activate = '''\n{block}'''\n" in updated(None)
    assert updated(text) == text


def test_a_single_line_hook_is_rewritten_as_a_multi_line_string():
    text = updated('version = 1\n[hook]\non-activate = "echo hi"  # greet\n')
    assert text.startswith('version = 1\n[hook]\non-activate = """echo hi\n# gen-matrix:begin builds\n')
    assert updated(text) == text


def test_a_marker_in_a_single_line_hook_is_named_at_the_hooks_line():
    assert problem('version = 1\n\n[hook]\non-activate = "# gen-matrix:begin builds"\n').startswith(
        f"{MANIFEST}:4: block 'builds' has no end marker\n  hint: add # gen-matrix:end builds")


@pytest.mark.parametrize("text, line", [
    # the same text in a string before the hook's: the hook's own line
    ("[profile]\nbash = '''\n# gen-matrix:begin builds\n'''\n[hook]\non-activate = '''\n# gen-matrix:begin builds\n'''\n",
     7),
    # a blank first line counts
    ("\n[hook]\non-activate = '''\n# gen-matrix:begin builds\n'''\n", 4),
    # a key written with an escape: found by its text
    ("\n[hook]\n\"on-activat\\u0065\" = '''\n\n# gen-matrix:begin builds\n'''\n", 5),
    ('version = 1\nhook.on-activate = """\necho\n# gen-matrix:begin builds\n"""\n', 4),
])
def test_a_marker_problem_in_the_hook_names_the_markers_own_line(text, line):
    assert problem(text).startswith(f"{MANIFEST}:{line}: block 'builds' has no end marker")


@pytest.mark.parametrize("text, shown", [
    # a key written quoted is found
    ('version = 1\n"install" = 3\n', f"{MANIFEST}:2: 'install' is not a table"),
    # a header indented below the table ends it: the key found after it is another table's
    ('version = 1\n[hook]\n  [hook.on-activate]\n  x = 1\n  [vars]\n  on-activate = "x"\n',
     f"{MANIFEST}:3: hook.on-activate is not a string\n  hint: write the hook as a multi-line string ''' ... '''"),
    # where the line cannot be told, the file alone: never a wrong line
    ('version = 1\n"inst\\u0061ll" = 3\n', f"{MANIFEST}: 'install' is not a table"),
    ('[options]\n"syst\\u0065ms" = 5\n', f"{MANIFEST}: options.systems is not an array of strings"),
    ('version = 1\n[options]\nsystems = 5\n', f"{MANIFEST}:3: options.systems is not an array of strings\n"
     '  hint: write it as systems = ["x86_64-linux", ...]; gen-matrix sets it to every platform a variant builds for'),
])
def test_a_manifest_error_names_the_right_line_or_none_and_says_what_to_do(text, shown):
    assert problem(text).startswith(shown)


TOML_HINT = "fix the TOML syntax, with each key and table written once; gen-matrix only updates a manifest it can read"


@pytest.mark.parametrize("text, places", [
    # a key written twice: the parser's line where it tells one, else the line gen-matrix finds
    ("version = 1\n[options]\nfoo = 1\n'foo' = 2\n", {"4"}),
    ('version = 1\n[install]\ngit.pkg-path = "git"\n\n"git" = 1\n', {"5"}),
    # where neither can tell the line, the file alone: never a wrong line
    ('version = 1\n[options]\nfoo = 1\n"f\\u006fo" = 2\n', {"4", None}),
    ("version = 1\n[options]\nx.y = 1\n[options.x]\nz = 1\n", {"5", None}),
    ("version = 1\n[hook]\n[hook]\n", {"3", None}),
    # a syntax error: line and column
    ("version = 1\n[install\n", {"2:8"}),
])
def test_toml_the_manifest_cannot_parse_is_located_by_gen_matrix_and_carries_the_parsers_words(text, places):
    # what the parser says is its own, and its wording changes between releases: the test reads
    # gen-matrix's part (the place, once, and the hint) and that some message is carried
    shown = problem(text)
    found = re.fullmatch(rf"{re.escape(MANIFEST)}(?::(\d+(?::\d+)?))?: not valid TOML: (.+)\n  hint: (.+)", shown)
    assert found, shown
    place, message, hint = found.groups()
    assert place in places
    assert message.strip() and hint == TOML_HINT


def test_toml_a_parse_error_through_the_cli_is_located_and_writes_nothing(pinned, run):
    project = pinned
    path = project / MANIFEST
    path.parent.mkdir(parents=True)
    for text, place in [("version = 1\n[options]\nfoo = 1\n'foo' = 2\n", "4"), ("version = 1\n[install\n", "2:8")]:
        path.write_text(text)
        before = snapshot(project)
        result = run("--root", project)
        assert result.exit_code == 2
        assert result.stderr.startswith(f"error: {MANIFEST}:{place}: not valid TOML: ")
        assert result.stderr.endswith(f"\n  hint: {TOML_HINT}\n")
        assert "Traceback" not in result.output + result.stderr
        assert snapshot(project) == before


class _ParserError(Exception):
    def __init__(self, message, line, col):
        super().__init__(message)
        self.line, self.col = line, col


@pytest.mark.parametrize("error, place, message", [
    # the parser's own " at line L col C" is dropped where it names the same place gen-matrix shows
    (_ParserError("Unexpected character at line 3 col 7", 3, 7), "3:7", "Unexpected character"),
    (_ParserError("Key \"a\" already exists. at line 12 col 0", 12, 0), "12", 'Key "a" already exists.'),
    # another place, or none, is kept as the parser wrote it
    (_ParserError("Bad value at line 3 col 7", 4, 1), "4:1", "Bad value at line 3 col 7"),
    (_ParserError("Key \"a\" already exists.", 0, 0), "", 'Key "a" already exists.'),
])
def test_toml_the_parsers_location_is_shown_once(error, place, message):
    text = "a = 1\n" * 13
    location = manifest._toml_error_location(text, error)
    assert str(location) == (f"{MANIFEST}:{place}" if place else f"{MANIFEST}:2")  # a repeated a: its second line
    assert manifest._without_location(error) == message


def test_a_tool_whose_pkg_path_is_right_is_left_as_written():
    text = "version = 1\n[install]\ngit.pkg-path = 'git'  # single quotes, mine\n"
    assert updated(text).startswith(text)


@pytest.mark.parametrize("text, expected", [
    ("# mine\n", "# mine\nrun/\ncache/\nlib/\nlog/\n!env/\n"),  # no blank line put in
    ("", "run/\ncache/\nlib/\nlog/\n!env/\n"),
    ("run/\ncache/\nlib/\nlog/\n!env/", "run/\ncache/\nlib/\nlog/\n!env/"),  # nothing lacking: kept as it is
])
def test_the_lines_a_flox_gitignore_lacks_are_added_after_its_last(text, expected):
    assert manifest.gitignore(text) == expected


def test_a_pointer_error_says_how_to_mend_it():
    with pytest.raises(GenMatrixError) as error:
        manifest.pointer('{"name": "x"}')
    assert str(error.value) == (
        ".flox/env.json:1: 'version' must be 1\n  hint: Flox reads this file to find the environment; write it as "
        '{"name": "pytorch-variants", "version": 1}, or delete it and gen-matrix recreates it')


def test_a_number_too_long_to_read_in_the_pointer_is_named_at_its_line():
    text = '\n{"name": "x",\n "version": 1,\n "size": ' + "9" * 5000 + '\n}\n'
    with pytest.raises(GenMatrixError) as error:
        manifest.pointer(text)
    assert str(error.value).startswith(".flox/env.json:4: holds a number thousands of digits long\n  hint: ")


@pytest.mark.parametrize("name", [manifest.ENVIRONMENT_NAME, 'torch "variants"', "back\\slash", "two\nlines"])
def test_a_new_pointer_is_json_of_the_environments_name(monkeypatch, name):
    """.flox/env.json, written new, reads back as the name and version 1, whatever the name holds."""
    monkeypatch.setattr(manifest, "ENVIRONMENT_NAME", name)
    text = manifest.pointer(None)
    assert json.loads(text) == {"name": name, "version": 1}
    assert manifest.pointer(text) == text


def test_a_new_manifest_holds_each_tools_value_as_given():
    """[install]'s values read back as given, two tools at once, whatever they hold: a GitHub
    flake reference, a git+https one with `&`, and text with quotes and a backslash."""
    values = ["github:acme/gen-matrix/" + "0123456789abcdef" * 2 + "01234567",
              "git+https://git.example.org/acme/gen-matrix?ref=main&rev=" + "f" * 40, 'say "hi" \\ bye']
    for value in values:
        tools = (("git", "pkg-path", "git"), ("gen-matrix", "flake", value))
        wanted = manifest.Wanted(tools, ["aarch64-linux", "x86_64-linux"], "# block\n",
                                 pin.Source(value, False, "test"))
        install = tomlkit.parse(manifest.new(wanted))["install"]
        assert {name: dict(table) for name, table in install.items()} == {
            "git": {"pkg-path": "git"}, "gen-matrix": {"flake": value}}
