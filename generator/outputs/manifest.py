"""Keep the Flox environment (.flox/env.json, .flox/env/manifest.toml, .flox/.gitignore) in
sync with the matrix.

gen-matrix owns three parts of the manifest: the build tools in [install], options.systems
(every platform a variant builds for) and a marked block in hook.on-activate that names the
builds (read from .flox/pkgs/ at activation, so the manifest and its lock do not change
when variants do). Everything else is the user's, and tomlkit keeps it byte for byte; tomlkit is
imported only to edit an existing manifest: a new one is rendered from its template.

.flox/env.json is how Flox finds the environment at all; gen-matrix creates it when it is
missing and otherwise only checks that Flox can read it. .flox/.gitignore is written as
`flox init` writes it, and lines it lacks are added: `flox build` leaves run/, cache/, lib/
and log/ under .flox/, and `flox publish` refuses untracked files there.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from . import splice
from ..records import dataclass
from .splice import LINES
from ..errors import GenMatrixError, Location
from ..model import Expansion
from ..pin import Source
from ..layout import MANIFEST_FILE, POINTER_FILE
from ..templating import environment

if TYPE_CHECKING:
    from tomlkit.items import Table

# A fixed name rather than the folder's, so that every clone generates the same file.
ENVIRONMENT_NAME = "pytorch-variants"
BEGIN = "# gen-matrix:begin builds"
# What `flox init` writes into .flox/.gitignore, in its order.
FLOX_IGNORED = ("run/", "cache/", "lib/", "log/", "!env/")
END = "# gen-matrix:end builds"
MARKERS = splice.Markers(re.compile(r"^\s*# gen-matrix:(?:(?P<begin>begin)|(?P<end>end)) (?P<name>builds)\s*$"),
                         re.compile(r"^\s*# gen-matrix:"), "# gen-matrix:begin {name}", "# gen-matrix:end {name}",
                         name="builds")

# What regenerating the recipes takes in gen-matrix's own checkout: its Python and libraries,
# and git (Flox builds only tracked files).
CHECKOUT_TOOLS = (
    ("git", "pkg-path", "git"),
    ("python3", "pkg-path", "python313"),
    ("click", "pkg-path", "python313Packages.click"),
    ("jinja2", "pkg-path", "python313Packages.jinja2"),
    ("jsonschema", "pkg-path", "python313Packages.jsonschema"),
    ("pyyaml", "pkg-path", "python313Packages.pyyaml"),
    ("tomlkit", "pkg-path", "python313Packages.tomlkit"),
)
# Elsewhere: git, and gen-matrix itself from its pinned flake (pin.py), which the lock fixes.
GIT = ("git", "pkg-path", "git")
GEN_MATRIX = "gen-matrix"
# How Flox names where an [install] entry comes from; an entry has one of them.
DESCRIPTORS = ("pkg-path", "flake", "store-path")


@dataclass(frozen=True)
class Wanted:
    """What gen-matrix's parts of the manifest hold."""

    tools: tuple[tuple[str, str, str], ...]  # (name in [install], its descriptor, its value)
    systems: list[str]
    block: str  # the marked block in hook.on-activate
    source: Source  # the gen-matrix the environment gives

    @classmethod
    def of(cls, expansion: Expansion, source: Source) -> Wanted:
        # The hook reads the builds from .flox/pkgs/ when it runs: a list written here would
        # change the manifest, and stale its lock, with every variant added or removed.
        if source.checkout:
            tools = CHECKOUT_TOOLS
        else:
            tools = (GIT,) + (((GEN_MATRIX, "flake", source.flake),) if source.flake else ())
        return cls(tools, sorted({platform for v in expansion.variants for platform in v.platforms}),
                   environment(False).get_template("manifest-hook.sh.j2").render(), source)


def _key_line(text: str, table: str, key: str) -> int:
    """The line where `key` of `table` is written, 0 when it cannot be told.

    Looks below the [table] header first, then for the dotted form `table.key` anywhere.
    """
    lines = LINES.findall(text)
    name = rf"""(?:{re.escape(key)}|"{re.escape(key)}"|'{re.escape(key)}')"""
    header = re.compile(rf"\s*\[\s*{re.escape(table)}\s*\]")
    below = re.compile(rf"\s*{name}\s*[.=]")
    dotted = re.compile(rf"\s*\[*\s*{re.escape(table)}\s*\.\s*{name}\s*[.=\]]")
    start = next((i for i, line in enumerate(lines) if header.match(line)), None)
    if start is not None:
        for i in range(start + 1, len(lines)):
            if lines[i].lstrip().startswith("["):
                break
            if below.match(lines[i]):
                return i + 1
    return next((i for i, line in enumerate(lines, 1) if dotted.match(line)), 0)


def _table_line(text: str, table: str) -> int:
    """The line where `table` is first written: its [table] header or its key; 0 when it cannot be told."""
    name = rf"""(?:{re.escape(table)}|"{re.escape(table)}"|'{re.escape(table)}')"""
    pattern = re.compile(rf"\s*(?:\[\[?\s*{name}\s*[].]|{name}\s*[.=])")
    return next((i for i, line in enumerate(LINES.findall(text), 1) if pattern.match(line)), 0)


def _fail(line: int, message: str, hint: str):
    raise GenMatrixError.at(Location(MANIFEST_FILE, line), message, hint)


def _table(document, key: str, text: str) -> Table:
    import tomlkit
    from tomlkit.items import Table

    if key not in document:
        document.add(key, tomlkit.table())
    table = document[key]
    if not isinstance(table, Table):
        _fail(_table_line(text, key), f"'{key}' is not a table",
              f"write it as a [{key}] section; gen-matrix keeps parts of it")
    return table


def _hook_script(old: str, block: str, where) -> str:
    """`old` with the marked block replaced by `block`, or `block` appended."""
    return splice.appended(old, MARKERS, block, where)


def _set_hook(hook: Table, block: str, text: str) -> None:
    import tomlkit
    from tomlkit.items import String, StringType

    current = hook.get("on-activate")
    if current is None:  # as a new manifest has it: the block from the line after the quotes
        hook["on-activate"] = tomlkit.parse(f"x = '''\n{block}'''")["x"]
        return
    if not isinstance(current, String):
        _fail(_key_line(text, "hook", "on-activate"), "hook.on-activate is not a string",
              "write the hook as a multi-line string ''' ... '''")
    quote = current.as_string()[:3]  # as written: older tomlkit tells no string its type
    if quote in (StringType.MLL.value, StringType.MLB.value):
        # Splice the text as written, so the user's escapes and layout stay as they are.
        raw = current.as_string()[3:-3]
        # The string opens on the line of its key; where that cannot be told (a key written
        # with escapes), on the line where its text, as tomlkit keeps it, first appears.
        first = _key_line(text, "hook", "on-activate") or text.count("\n", 0, text.find(current.as_string())) + 1
        new_raw = _hook_script(raw, block, lambda number: Location(MANIFEST_FILE, first + number - 1))
        if new_raw == raw:
            return
        reparsed = tomlkit.parse(f"x = {quote}{new_raw}{quote}")["x"]
        hook["on-activate"] = String(StringType(quote), str(reparsed), new_raw, current.trivia)
    else:
        line = _key_line(text, "hook", "on-activate")  # a one-line string: its lines are this one
        hook["on-activate"] = tomlkit.string(_hook_script(str(current), block, lambda number: Location(MANIFEST_FILE, line)),
                                             multiline=True)


def _toml_error_location(text: str, error: Exception) -> Location:
    """Where tomlkit's `error` lies in `text`: its own line (and column) where it says them,
    else the line of a key written twice where that can be told, else the file alone."""
    line, column = getattr(error, "line", 0) or 0, getattr(error, "col", 0) or 0
    if line:
        return Location(MANIFEST_FILE, line, column)
    return Location(MANIFEST_FILE, _repeated_key_line(text, str(error)))


def _without_location(error: Exception) -> str:
    """tomlkit's message without the " at line L col C" it ends with: gen-matrix names the place itself."""
    message = str(error)
    line, column = getattr(error, "line", None), getattr(error, "col", None)
    suffix = f" at line {line} col {column}"
    return message[: -len(suffix)] if line is not None and message.endswith(suffix) else message


def _repeated_key_line(text: str, message: str) -> int:
    """The line where tomlkit's 'Key "K" already exists' found K the second time; 0 if unknown."""
    found = re.match(r'Key "(.+)" already exists', message)
    if not found:
        return 0
    key = re.compile(rf"""^\s*["']?{re.escape(found[1])}["']?\s*[=.]""")
    lines = [number for number, line in enumerate(text.splitlines(), 1) if key.match(line)]
    return lines[1] if len(lines) > 1 else 0


def edited(text: str, wanted: Wanted) -> str:
    """`text` with gen-matrix's parts set to `wanted` by tomlkit, everything else kept."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    if text.startswith("\ufeff"):  # tomlkit reads it as the start of a key, and says "Empty key"
        raise GenMatrixError.at(Location(MANIFEST_FILE, 1, 1), "the file starts with a byte order mark (U+FEFF)",
                                "save it as UTF-8 without a BOM (in most editors: the encoding \"UTF-8\", "
                                "not \"UTF-8 with BOM\"); gen-matrix only updates a manifest it can read")
    try:
        document = tomlkit.parse(text)
    except TOMLKitError as error:
        raise GenMatrixError.at(_toml_error_location(text, error), f"not valid TOML: {_without_location(error)}",
                                "fix the TOML syntax, with each key and table written once; gen-matrix only "
                                "updates a manifest it can read") from None

    install = _table(document, "install", text)
    for name, descriptor, value in wanted.tools:
        entry = install.get(name)
        if entry is not None and not isinstance(entry, dict):
            _fail(_key_line(text, "install", name), f"install.{name} is not a table",
                  f'write it as {name}.{descriptor} = "{value}"; gen-matrix keeps its {descriptor} current')
        if isinstance(entry, dict) and entry.get(descriptor) == value:
            continue
        if isinstance(entry, dict):
            for other in DESCRIPTORS:  # Flox takes one source per entry
                if other != descriptor and other in entry:
                    del entry[other]
            entry[descriptor] = value
        else:
            install[tomlkit.key([name, descriptor])] = value

    options = _table(document, "options", text)
    current = options.get("systems", [])
    if not isinstance(current, list) or not all(isinstance(system, str) for system in current):
        _fail(_key_line(text, "options", "systems"), "options.systems is not an array of strings",
              'write it as systems = ["x86_64-linux", ...]; gen-matrix sets it to every platform a variant builds for')
    if list(current) != wanted.systems:
        options["systems"] = wanted.systems

    _set_hook(_table(document, "hook", text), wanted.block, text)
    return tomlkit.dumps(document)


def new(wanted: Wanted) -> str:
    """A manifest of gen-matrix's parts alone: what `edited` makes of the template without them."""
    return environment(False).get_template("manifest.toml.j2").render(
        tools=wanted.tools, systems=wanted.systems, block=wanted.block, source=wanted.source)


def update(text: str | None, expansion: Expansion, source: Source) -> str:
    """The manifest with gen-matrix's parts current; a new one when `text` is None."""
    wanted = Wanted.of(expansion, source)
    return new(wanted) if text is None else edited(text, wanted)


def lock_changes(old: str, new_text: str) -> list[str]:
    """What of the manifest the Flox lock holds changes from `old` to `new_text`, in words.
    The lock (.flox/env/manifest.lock) holds the whole manifest as data, so anything but
    comments and layout makes it stale; options.systems and [install] are said entry by entry."""
    import tomlkit

    before, after = (tomlkit.parse(text).unwrap() for text in (old, new_text))
    changes = []
    systems = [(before.get("options") or {}).get("systems") or [], (after.get("options") or {}).get("systems") or []]
    dropped = [s for s in systems[0] if s not in systems[1]]
    added = [s for s in systems[1] if s not in systems[0]]
    if dropped or added:
        changes.append("options.systems " + ", ".join(
            [f"{', '.join(dropped)} dropped"] * bool(dropped) + [f"{', '.join(added)} added"] * bool(added)))
    install = [before.get("install") or {}, after.get("install") or {}]
    for name in sorted(set(install[0]) | set(install[1])):
        if install[0].get(name) != install[1].get(name):
            how = "added" if name not in install[0] else "dropped" if name not in install[1] else "changed"
            changes.append(f"install.{name} {how}")
    for key in sorted(set(before) | set(after)):
        if key in ("install",) or before.get(key) == after.get(key):
            continue
        rest = [{k: v for k, v in (side.get(key) or {}).items() if k != "systems"} if key == "options"
                else side.get(key) for side in (before, after)]
        if rest[0] != rest[1]:
            changes.append(f"{'hook.on-activate' if key == 'hook' else key} changed")
    return changes


def _pointer_problem(line: int, message: str, column: int = 0) -> GenMatrixError:
    return GenMatrixError.at(
        Location(POINTER_FILE, line, column), message,
        f'Flox reads this file to find the environment; write it as {{"name": "{ENVIRONMENT_NAME}", "version": 1}}, '
        "or delete it and gen-matrix recreates it")


def _json_key_line(text: str, key: str) -> int:
    return next((i for i, content in enumerate(LINES.findall(text), 1) if f'"{key}"' in content), 1)


def pointer(text: str | None) -> str:
    """.flox/env.json as it stands, or a new one when `text` is None; an error if Flox cannot read it."""
    if text is None:
        return environment(False).get_template("flox-env.json.j2").render(name=ENVIRONMENT_NAME)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise _pointer_problem(error.lineno, f"not valid JSON: {error.msg}", error.colno) from None
    except ValueError:  # Python refuses to read an integer of more than 4,300 digits, which holds this run
        found = re.search(r"[0-9]{1000}", text)
        raise _pointer_problem(text.count("\n", 0, found.start()) + 1, "holds a number thousands of digits long") from None
    except RecursionError:  # json nests by recursion; Flox's file is one flat object
        raise _pointer_problem(1, "holds values nested thousands of levels deep") from None
    if not isinstance(data, dict):
        raise _pointer_problem(1, "is not a JSON object")
    name, version = data.get("name"), data.get("version")
    if not isinstance(name, str) or not name:
        raise _pointer_problem(_json_key_line(text, "name"), "'name' must be a non-empty string")
    # Flox knows only version 1 of this file; `true == 1` in Python, so booleans are ruled out first.
    if isinstance(version, bool) or version != 1:
        raise _pointer_problem(_json_key_line(text, "version"), "'version' must be 1")
    return text


def gitignore(text: str | None) -> str:
    """.flox/.gitignore as `flox init` writes it when `text` is None; else `text` with the
    lines of FLOX_IGNORED it lacks added at its end."""
    if text is None:
        return environment(False).get_template("flox-gitignore.j2").render()
    present = {line.strip() for line in LINES.findall(text)}
    missing = [line for line in FLOX_IGNORED if line not in present]
    if not missing:
        return text
    separator = "" if not text or text.endswith("\n") else "\n"
    return text + separator + "".join(f"{line}\n" for line in missing)
