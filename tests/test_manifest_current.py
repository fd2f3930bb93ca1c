"""A manifest whose gen-matrix parts are current is only read, without tomlkit; whatever path
update takes, it returns exactly what editing the manifest with tomlkit returns."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from generator import manifest
from generator.errors import GenMatrixError

from conftest import REPO, expansion_of

EXPANSION = expansion_of(REPO)
WANTED = manifest.Wanted.of(EXPANSION)
SHIPPED = (REPO / ".flox/env/manifest.toml").read_text()

TOOLS = "".join(f'{name}.pkg-path = "{pkg_path}"\n' for name, pkg_path in manifest.BUILD_TOOLS)
SYSTEMS = '["aarch64-darwin", "aarch64-linux", "x86_64-linux"]'
BLOCK = WANTED.block
GIT_INLINE = TOOLS.replace('git.pkg-path = "git"', 'git = { pkg-path = "git", priority = 3 }')
STALE = BLOCK.replace("pytorch-python313-darwin-mps\n", "")
LITERAL_HOOK = f"'''\n{BLOCK}'''\n"
INLINE_TOOLS = ", ".join(f"{name} = {{ pkg-path = '{pkg_path}' }}" for name, pkg_path in manifest.BUILD_TOOLS)


def escaped(text: str) -> str:
    """`text` as the body of a one-line basic string."""
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def manifest_text(root: str = "", install: str = f"[install]\n{TOOLS}",
                  hook: str = f"[hook]\non-activate = {LITERAL_HOOK}",
                  options: str = f"[options]\nsystems = {SYSTEMS}\n", rest: str = "") -> str:
    return f"version = 1\n{root}\n{install}\n{hook}\n{options}{rest}"


# Manifest texts, each with whether gen-matrix reads it as current without tomlkit once it has
# updated it (None: tomlkit cannot update it).
CASES = {
    "shipped": (SHIPPED, True),
    "shipped, CRLF": (SHIPPED.replace("\n", "\r\n"), True),
    "shipped, no last newline": (SHIPPED.rstrip("\n"), True),
    "template": (manifest.new(manifest.Wanted((), [], "")), True),
    "user's tables and comments": (f"""\
# My environment: keep this comment.
version = 1

[install]  # tools
# tools I like
ripgrep.pkg-path = "ripgrep"   # fast grep
{GIT_INLINE}
[vars]
GREETING = "hello # not a comment [install]"
EQUALS = 'a = b'

[hook]
on-activate = '''
  echo "$GREETING"   # mine, before
{BLOCK}  echo done   # mine, after
'''

[profile]
bash = \"\"\"
[install]
[ -f ~/.bashrc ] && echo '''
hook.on-activate = 1
\"\"\"

[options]
# where this runs
systems = {SYSTEMS}   # every platform
cuda-detection = false
""", True),
    "stale systems": (manifest_text(options='[options]\nsystems = ["x86_64-linux"]\n'), True),
    "systems over several lines": (manifest_text(
        options='[options]\nsystems = [\n  "aarch64-darwin",  # Macs\n  "aarch64-linux",\n  "x86_64-linux",\n]\n'),
        True),
    "no systems": (manifest_text(options="[options]\n"), True),
    "no options": (manifest_text(options=""), True),
    "stale hook block": (manifest_text(hook=f"[hook]\non-activate = '''\n{STALE}'''\n"), True),
    "hook without markers": (manifest_text(hook="[hook]\non-activate = '''\necho hi\n'''\n"), True),
    "no hook": (manifest_text(hook=""), True),
    "hook without on-activate": (manifest_text(hook='[hook]\nscript.x = "y"\n'), True),
    "missing install entry": (manifest_text(install="[install]\n" + TOOLS.replace("click.pkg-path", "# click")), True),
    "stale pkg-path": (manifest_text(install="[install]\n" + TOOLS.replace('"python313"', '"python311"')), True),
    "no install": (manifest_text(install=""), True),
    "inline install entries": (manifest_text(install="[install]\n" + INLINE_TOOLS.replace(", ", "\n") + "\n"), True),
    "quoted headers and keys": (manifest_text(
        install='["install"]\n' + TOOLS.replace("python3.pkg-path", '"python3"."pkg-path"'),
        hook=f'[ hook ]\n"on-activate" = {LITERAL_HOOK}'), True),
    "tables in another order": (f"version = 1\n[options]\nsystems = {SYSTEMS}\n[hook]\non-activate = {LITERAL_HOOK}"
                                f"[install]\n{TOOLS}", True),
    "basic multi-line hook": (manifest_text(hook=f'[hook]\non-activate = """\n  echo "\\t"\n{BLOCK}"""\n'), True),
    "basic multi-line hook, block escaped": (manifest_text(
        hook='[hook]\non-activate = """\n' + BLOCK.replace('"', '\\"') + '"""\n'), True),
    "basic multi-line hook, line continued into the block": (manifest_text(
        hook=f'[hook]\non-activate = """\necho \\\n{BLOCK}"""\n'), True),
    "hook without a first line break": (manifest_text(hook=f"[hook]\non-activate = '''{BLOCK}'''\n"), True),
    "hook ending in quotes": (manifest_text(hook=f"[hook]\non-activate = '''\n{BLOCK}echo 'x''''\n"), True),
    "one-line basic hook holding the block": (manifest_text(hook=f'[hook]\non-activate = "{escaped(BLOCK)}"\n'),
                                              True),
    "one-line literal hook": (manifest_text(hook="[hook]\non-activate = 'echo hi'\n"), True),
    "block in another string, hook stale": (manifest_text(
        hook=f"[hook]\non-activate = '''\n{STALE}'''\n", rest=f"\n[profile]\nbash = '''\n{BLOCK}'''\n"), True),
    "block in another string, one-line hook": (manifest_text(
        hook=f'[hook]\non-activate = "{escaped(BLOCK)}"\n', rest=f"\n[profile]\nbash = '''\n{BLOCK}'''\n"), True),
    "install subtable": (manifest_text(install=f"[install]\n{TOOLS}[install.extra]\npkg-path = 'x'\n"), False),
    "hook in a dotted key": (manifest_text(root=f"hook.on-activate = {LITERAL_HOOK}", hook=""), False),
    # Errors: every path reports the same one.
    "install in dotted keys": (manifest_text(root="".join(f"install.{line}" for line in TOOLS.splitlines(True)),
                                             install=""), None),
    "install out of order": (manifest_text(rest="\n[install.extra]\npkg-path = 'x'\n"), None),
    "inline install": (manifest_text(root=f"install = {{ {INLINE_TOOLS} }}\n", install=""), None),
    "inline hook": (manifest_text(root=f"hook = {{ on-activate = {LITERAL_HOOK.rstrip()} }}\n", hook=""), None),
    "hook not a string": (manifest_text(hook="[hook]\non-activate = 5\n"), None),
    "unbalanced markers": (manifest_text(hook=f"[hook]\non-activate = '''\n{BLOCK}{manifest.END}\n'''\n"), None),
    "install entry not a table": (manifest_text(install='[install]\ngit = "git"\n'), None),
    "systems not strings": (manifest_text(options="[options]\nsystems = [1]\n"), None),
    "invalid TOML": ("version = 1\n[install\n", None),
}


def outcome(update, text: str):
    """What `update` returns for `text`, or what it raises: tomlkit raises some errors itself."""
    try:
        return update(text)
    except GenMatrixError as error:
        return error.problems
    except Exception as error:
        return type(error), str(error)


def through_tomlkit(text: str):
    return outcome(lambda t: manifest.edited(t, WANTED), text)


def through_update(text: str):
    return outcome(lambda t: manifest.update(t, EXPANSION), text)


needs_tomllib = pytest.mark.skipif(manifest.tomllib is None,
                                   reason="Python 3.10 has no tomllib: every manifest goes through tomlkit")


@pytest.mark.parametrize("text, current_once_updated", CASES.values(), ids=CASES)
def test_update_returns_what_tomlkit_returns(text, current_once_updated):
    edited = through_tomlkit(text)
    assert through_update(text) == edited
    assert isinstance(edited, str) == (current_once_updated is not None)
    if isinstance(edited, str):
        assert through_update(edited) == through_tomlkit(edited) == edited


@needs_tomllib
@pytest.mark.parametrize("text, current_once_updated", CASES.values(), ids=CASES)
def test_current_only_where_tomlkit_changes_nothing(text, current_once_updated):
    edited = through_tomlkit(text)
    if manifest.is_current(text, WANTED):
        assert edited == text
    if isinstance(edited, str):
        assert manifest.is_current(edited, WANTED) == current_once_updated


@needs_tomllib
def test_cases_read_as_current_as_written():
    current = {name for name, (text, _) in CASES.items() if manifest.is_current(text, WANTED)}
    assert current == {"shipped", "shipped, no last newline", "user's tables and comments",
                       "systems over several lines", "inline install entries", "quoted headers and keys",
                       "tables in another order", "basic multi-line hook", "hook without a first line break",
                       "basic multi-line hook, line continued into the block", "hook ending in quotes"}


def test_new_manifest_is_what_tomlkit_makes_of_the_template():
    empty = manifest.new(manifest.Wanted((), [], ""))
    for wanted in (WANTED, manifest.Wanted(manifest.BUILD_TOOLS, ["x86_64-linux"], STALE),
                   manifest.Wanted(manifest.BUILD_TOOLS[:1], [], STALE)):
        assert manifest.new(wanted) == manifest.edited(empty, wanted)
    assert manifest.update(None, EXPANSION) == SHIPPED


# Ways to write each part of a manifest: put together in any order, they make manifests valid
# or not, current or not.
user_string = st.text(alphabet="'\"\\[]{}#= \nab", max_size=24)
INSTALL_PARTS = st.sampled_from([
    "",
    f"[install]\n{TOOLS}",
    f"[install]  # mine\n{GIT_INLINE}ripgrep.pkg-path = 'ripgrep'\n",
    "[install]\n" + TOOLS.replace('"python313"', '"python311"'),
    '[install]\nripgrep.pkg-path = "ripgrep"\ngit = { pkg-path = "git", priority = 3 }\n',
    '["install"]\n' + TOOLS,
    f"[install]\n{TOOLS}[install.extra]\npkg-path = 'x'\n",
    'install.git.pkg-path = "git"\n',
])
HOOK_PARTS = st.one_of(st.sampled_from([
    "",
    f"[hook]\non-activate = '''\n{BLOCK}'''\n",
    f"[hook]\non-activate = '''\n{STALE}'''\n",
    f'[hook]\non-activate = "{escaped(BLOCK)}"\n',
    f"hook.on-activate = '''\n{BLOCK}'''\n",
    "[hook]\non-activate = 'echo'\n",
]), st.builds(lambda before, after, quote: f"[hook]\non-activate = {quote}\n{before}{BLOCK}{after}{quote}\n",
              user_string, user_string, st.sampled_from(["'''", '"""'])))
OPTIONS_PARTS = st.sampled_from([
    "",
    f"[options]\nsystems = {SYSTEMS}\n",
    '[options]\nsystems = [\n  "aarch64-darwin",\n  "aarch64-linux",  # comment\n  "x86_64-linux",\n]\n',
    '[options]\nsystems = ["x86_64-linux"]\ncuda-detection = false\n',
    f"options.systems = {SYSTEMS}\n",
])
OTHER_PARTS = st.lists(st.one_of(st.sampled_from([
    '[vars]\nA = "a = [b] # c"\n',
    f"[profile]\nbash = '''\n[install]\n{BLOCK}'''\n",
    "# [hook]\n",
    "[[services]]\nname = 'x'\n",
    "[install.more]\npkg-path = 'y'\n",
]), user_string.map(lambda s: f"[profile]\nbash = '''\n{s}'''\n"),
    user_string.map(lambda s: f'[vars]\nX = """{s}"""\n')), max_size=3)


@settings(max_examples=300, deadline=None)
@given(parts=st.tuples(INSTALL_PARTS, HOOK_PARTS, OPTIONS_PARTS, OTHER_PARTS)
       .map(lambda parts: [*parts[:3], *parts[3]]).flatmap(st.permutations),
       version=st.sampled_from(["", "version = 1\n"]), newline=st.sampled_from(["\n", "\r\n"]))
def test_any_manifest_gets_what_tomlkit_gives(parts, version, newline):
    text = (version + "".join(parts)).replace("\n", newline)
    edited = through_tomlkit(text)
    assert through_update(text) == edited
    if isinstance(edited, str):
        assert through_update(edited) == through_tomlkit(edited)


@needs_tomllib
def test_a_current_manifest_is_read_without_tomlkit():
    program = ("import sys\nfrom generator import pipeline\np = pipeline.locate(None, sys.argv[1])\n"
               "files = pipeline.outputs(p, pipeline.expansion(p))\n"
               "assert files['.flox/env/manifest.toml'] == open(sys.argv[2]).read()\n"
               "print('tomlkit' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", program, str(REPO), str(REPO / ".flox/env/manifest.toml")],
                            capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "False\n"
