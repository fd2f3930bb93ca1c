"""Write generator/pipeline/schema_code.py, matrix.yaml's validator made ahead of time from
generator/matrix.schema.json by fastjsonschema, or check that the committed one is what it writes.

    python scripts/schema_code.py           # write it: run this after editing matrix.schema.json
    python scripts/schema_code.py --check   # exit 1 where the committed module is not what it writes

A run checks a matrix with this module, plain Python that imports nothing beyond the standard
library, and imports jsonschema (about 60 ms) only where the module refuses the matrix: jsonschema
then finds and words the problems, and stays the judge (generator/pipeline/schema.py). The module
must never take what jsonschema refuses (tests/test_schema_code.py tries that on many documents),
so this script refuses a schema that fastjsonschema, which reads it as draft 7, would read more
loosely than jsonschema reads draft 2020-12: a keyword it does not know, a `$ref` beside a keyword
that checks (draft 7 ignores a `$ref`'s siblings), a `$` anywhere but at a pattern's end (it writes
`$` as `\\Z`, which matches less: at the end it refuses a text with a final newline that jsonschema
takes; inside `(?!...)` it would take more).

fastjsonschema (pyproject.toml's test extra) is needed to write the module, never to run it: the
line that imports its exceptions is replaced by a definition of the one exception the module raises
(the same arguments). The output depends on the schema and on fastjsonschema's version alone, which
the module's VERSION line names.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCHEMA = REPO / "generator" / "matrix.schema.json"
MODULE = REPO / "generator" / "pipeline" / "schema_code.py"
COMMAND = "python scripts/schema_code.py"

HEADER = f"""\
# Generated from generator/matrix.schema.json by scripts/schema_code.py, with fastjsonschema; do not
# edit by hand: after editing the schema, run `{COMMAND}`. generator/pipeline/schema.py
# runs it, and asks jsonschema where it refuses a matrix.
"""

IMPORT = "from fastjsonschema import JsonSchemaValueException, JsonSchemaValuesException\n"
EXCEPTIONS = '''\
class JsonSchemaValueException(ValueError):
    """The document breaks the schema (fastjsonschema's exception of that name, without it)."""

    def __init__(self, message, value=None, name=None, definition=None, rule=None):
        super().__init__(message)
        self.message = message
        self.value = value
        self.name = name
        self.definition = definition
        self.rule = rule


# named in the code's `except` clauses; raised only where fastjsonschema collects every error,
# which this module does not (it stops at the first)
JsonSchemaValuesException = JsonSchemaValueException
'''

# The keywords that fastjsonschema's draft 7 and jsonschema's draft 2020-12 read alike. Annotations
# check nothing; `format` checks nothing in either (fastjsonschema is asked not to, and jsonschema
# checks it only with a format checker, which gen-matrix does not give it).
ANNOTATIONS = {"$schema", "$id", "$comment", "title", "description", "default", "examples", "deprecated",
               "readOnly", "writeOnly", "format"}
ONE_SCHEMA = {"items", "additionalProperties", "propertyNames", "not", "if", "then", "else", "contains"}
SCHEMA_LISTS = {"allOf", "anyOf", "oneOf"}
SCHEMA_MAPS = {"$defs", "definitions", "properties", "patternProperties"}
CHECKS = {"$ref", "type", "enum", "const", "required", "minProperties", "maxProperties", "minItems", "maxItems",
          "uniqueItems", "pattern", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum",
          "exclusiveMaximum", "multipleOf"}
_DOLLAR = re.compile(r"(?<!\\)\$")  # fastjsonschema's own test for the `$` it rewrites


def misread(schema) -> list[str]:
    """Where fastjsonschema would read `schema` otherwise than jsonschema does, each as a JSON pointer
    and why; empty where it reads the whole schema alike."""
    found = []

    def walk(node, pointer: str) -> None:
        if isinstance(node, bool):
            return
        if not isinstance(node, dict):
            found.append(f"{pointer or '/'}: a schema must be a mapping or true/false")
            return
        for key, value in node.items():
            at = f"{pointer}/{key}"
            if key in ONE_SCHEMA:
                walk(value, at)
            elif key in SCHEMA_LISTS:
                for index, child in enumerate(value):
                    walk(child, f"{at}/{index}")
            elif key in SCHEMA_MAPS:
                for name, child in value.items():
                    walk(child, f"{at}/{name}")
            elif key not in ANNOTATIONS | CHECKS:
                found.append(f"{at}: fastjsonschema does not read '{key}' (its draft 7 has no such keyword, "
                             "or reads it otherwise)")
        siblings = sorted(set(node) - ANNOTATIONS - {"$ref", "$defs", "definitions"})
        if "$ref" in node and siblings:
            found.append(f"{pointer or '/'}: '$ref' beside {', '.join(siblings)}, which draft 7 ignores: "
                         "put the $ref in an allOf of its own")
        pattern = node.get("pattern")
        if isinstance(pattern, str):
            dollars = [m.start() for m in _DOLLAR.finditer(pattern)]
            if dollars and dollars != [len(pattern) - 1]:
                found.append(f"{pointer}/pattern: '$' other than at its end, which fastjsonschema reads as \\Z")

    walk(schema, "")
    return found


PATTERNS = '''\
class _Patterns(dict):
    """The schema's patterns by their text, each compiled the first time the code uses it: a
    matrix meets a few of them (compiling every one would take longer than checking the matrix)."""

    def __init__(self, sources):
        super().__init__()
        self._sources = sources

    def __missing__(self, pattern):
        compiled = self[pattern] = re.compile(self._sources[pattern])
        return compiled


'''


def lazy_patterns(code: str) -> str:
    """`code` with its table of compiled patterns (REGEX_PATTERNS = {text: re.compile(source)},
    which the code only subscripts) made a _Patterns of the same sources."""
    tree = ast.parse(code)
    (table,) = [node for node in tree.body if isinstance(node, ast.Assign)
                and [getattr(t, "id", None) for t in node.targets] == ["REGEX_PATTERNS"]]
    sources = {}
    for key, value in zip(table.value.keys, table.value.values):
        if not (isinstance(value, ast.Call) and ast.unparse(value.func) == "re.compile" and len(value.args) == 1
                and not value.keywords and isinstance(value.args[0], ast.Constant)):
            raise SystemExit(f"error: REGEX_PATTERNS holds {ast.unparse(value)}, not re.compile of a text")
        sources[key.value] = value.args[0].value
    subscripted = sum(1 for node in ast.walk(tree) if isinstance(node, ast.Subscript)
                      and getattr(node.value, "id", None) == "REGEX_PATTERNS")
    named = sum(1 for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id == "REGEX_PATTERNS")
    if named != subscripted + 1:
        raise SystemExit("error: the code uses REGEX_PATTERNS otherwise than by subscript")
    lines = code.splitlines(keepends=True)
    table_text = "REGEX_PATTERNS = _Patterns({\n" + "".join(f"    {k!r}: {v!r},\n" for k, v in sources.items()) + "})\n"
    return "".join(lines[:table.lineno - 1]) + PATTERNS + table_text + "".join(lines[table.end_lineno:])


def written(schema_text: str) -> str:
    """The module's text for this schema, with the installed fastjsonschema."""
    import fastjsonschema

    schema = json.loads(schema_text)
    wrong = misread(schema)
    if wrong:
        raise SystemExit("error: fastjsonschema would read matrix.schema.json otherwise than jsonschema:\n"
                         + "".join(f"  {line}\n" for line in wrong))
    code = fastjsonschema.compile_to_code(schema, detailed_exceptions=False, use_default=False, use_formats=False)
    if code.count(IMPORT) != 1:
        raise SystemExit(f"error: fastjsonschema {fastjsonschema.VERSION}'s code does not import its exceptions "
                         f"in the line this script replaces:\n  {IMPORT}")
    text = HEADER + lazy_patterns(code.replace(IMPORT, "\n\n" + EXCEPTIONS)).rstrip("\n") + "\n"
    imported = {alias.name.split(".")[0] for node in ast.walk(ast.parse(text)) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(ast.parse(text))
                 if isinstance(node, ast.ImportFrom) and node.module}
    beyond = sorted(imported - set(sys.stdlib_module_names))
    if beyond:
        raise SystemExit(f"error: the code fastjsonschema writes imports {', '.join(beyond)}, "
                         "which gen-matrix does not depend on")
    return text


def version(text: str) -> str | None:
    """The fastjsonschema version the module's text was written by (its VERSION line)."""
    found = re.search(r'^VERSION = "([^"]+)"$', text, re.MULTILINE)
    return found and found[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 where the committed module is not what this script writes")
    args = parser.parse_args(argv)
    text = written(SCHEMA.read_text(encoding="utf-8"))
    name = MODULE.relative_to(REPO).as_posix()
    if args.check:
        committed = MODULE.read_text(encoding="utf-8") if MODULE.is_file() else None
        if committed == text:
            return 0
        why = ("is not there" if committed is None else
               f"was written by fastjsonschema {version(committed)}, not the installed {version(text)}"
               if version(committed) != version(text) else "is not what matrix.schema.json makes")
        print(f"error: {name} {why}\n  hint: run `{COMMAND}` and commit what it writes", file=sys.stderr)
        return 1
    MODULE.write_bytes(text.encode("utf-8"))
    print(f"wrote {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
