"""matrix.yaml's structure, checked against the JSON Schema shipped beside this file.

The same schema file serves editors (through the `$schema` comment in matrix.yaml) and
this loader (through jsonschema), so the two cannot disagree. Its errors become located
problems with hints. A matrix is first checked by schema_code.py, the validator generated
from the schema ahead of time (scripts/schema_code.py), which imports nothing beyond the
standard library: where it takes the matrix, jsonschema is not imported at all.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..errors import GenMatrixError, Problem
from .load import Document

SCHEMA_FILE = Path(__file__).resolve().parent.parent / "matrix.schema.json"

_TYPE_NAMES = {
    "object": "a mapping", "array": "a list", "string": "a string", "integer": "a whole number",
    "number": "a number", "boolean": "true or false", "null": "nothing (null)",
}


_TYPE_HINTS = {
    "array": "write a list: [a, b], or one '- a' line per value",
    "object": "write a mapping: one 'key: value' line per key, indented under this one",
    "integer": "write a whole number without quotes, e.g. 16",
    "boolean": "write true or false",
}


_DECIMAL = re.compile(r"[-+]?([0-9][0-9_]*)?\.[0-9_]*([eE][-+]?[0-9]+)?|[-+]?\.(inf|Inf|INF|nan|NaN|NAN)")


def _yaml_type(value) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return "a boolean"
    return {dict: "a mapping", list: "a list", str: "a string", int: "a whole number"}.get(type(value), type(value).__name__)


def _given(value, wanted) -> str:
    """What the user wrote, as a message names it: by its kind, but a decimal number where a
    number goes by its value (the loader keeps `16.0` as the text it is, so that 3.10 stays 3.10)."""
    numbers = {"integer", "number"} & set([wanted] if isinstance(wanted, str) else wanted)
    if numbers and isinstance(value, str) and _DECIMAL.fullmatch(value):
        return f"{value} (a decimal number, which gen-matrix reads as text)"
    return _yaml_type(value)


def schema() -> dict:
    return json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


def _accepted(data) -> bool:
    """Whether schema_code.py, the validator generated from the schema, takes `data`. It never
    takes what jsonschema refuses (tests/test_schema_code.py), but may refuse what jsonschema takes
    (it reads a pattern's `$` as the text's very end): its refusal only sends `data` to jsonschema."""
    from . import schema_code

    try:
        schema_code.validate(data)
    except schema_code.JsonSchemaValueException:
        return False
    return True


def _validator(part: str | None):
    import jsonschema

    root = jsonschema.Draft202012Validator(schema())
    return root if part is None else root.evolve(schema=schema()["properties"][part])


def dotted(path) -> str:
    text = ""
    for key in path:
        text += f"[{key}]" if isinstance(key, int) else (f".{key}" if text else str(key))
    return text or "the top level"


def suggest(word: str, choices) -> str:
    """The closest known name: the same with letters typed for digits (sm12O is sm120), else
    the most alike, and among names equally alike the one whose numbers are nearest (3.10:
    3.11, not 3.14; sm91: sm90)."""
    import difflib  # here: only a mistake needs it

    word, names = str(word), [str(c) for c in choices]
    typed = word.translate(str.maketrans("OoIl", "0011"))
    if typed != word and typed in names:
        return f"did you mean '{typed}'?"
    scores = {name: difflib.SequenceMatcher(None, word, name).ratio() for name in names}
    best = max(scores.values(), default=0)
    if best < 0.6:
        return ""
    alike = sorted((name for name, score in scores.items() if score == best), reverse=True)

    def numbers(text: str) -> tuple[int, ...]:
        return tuple(int(part) for part in re.findall(r"\d+", text))

    if numbers(word) and all(len(numbers(name)) == len(numbers(word)) for name in alike):
        alike.sort(key=lambda name: tuple(abs(x - y) for x, y in zip(numbers(name), numbers(word))))
    return f"did you mean '{alike[0]}'?"


def _other_type(error, path: tuple, instance) -> bool:
    """Whether a branch's `error` says only that `instance` is of another type than the branch
    takes: a `type` refusal, or an `enum` of values none of which is of the instance's type."""
    if tuple(error.absolute_path) != path:
        return False
    if error.validator == "enum":
        return not any(type(choice) is type(instance) for choice in error.validator_value)
    return error.validator == "type"


def _describe(error, doc: Document) -> list[Problem]:
    path = tuple(error.absolute_path)
    name = dotted(path)
    kind = error.validator
    if kind in ("oneOf", "anyOf") and error.context:
        from jsonschema.exceptions import best_match

        # The branch meant is the one of the value's type: a string that breaks the string
        # branch's pattern is told about the pattern, not that it could also have been null.
        # When no branch takes the type, every allowed type is named.
        relevant = [e for e in error.context if not _other_type(e, path, error.instance)]
        if not relevant:
            wanted, kinds = [], []
            for e in error.context:
                if e.validator == "enum":  # a branch of fixed values (companions' `when: all`)
                    choices = ", ".join(f"'{choice}'" for choice in e.validator_value)
                    wanted.append(choices if len(e.validator_value) == 1 else f"one of {choices}")
                    continue
                for t in [e.validator_value] if isinstance(e.validator_value, str) else e.validator_value:
                    kinds.append(t)
                    if _TYPE_NAMES[t] not in wanted:
                        wanted.append(_TYPE_NAMES[t])
            return [Problem(doc.where(path), f"{name} must be {' or '.join(wanted)}, not {_given(error.instance, kinds)}",
                            "see the description of this key in matrix.schema.json")]
        if all(e.validator == "required" for e in relevant):  # one key of several (a GPU runner's sm or gfx)
            keys = list(dict.fromkeys(k for e in relevant for k in e.validator_value if k not in error.instance))
            return [Problem(doc.where(path), f"{name} lacks a key: one of {', '.join(repr(k) for k in keys)}",
                            f"add {' or '.join(f'{k}:' for k in keys)}")]
        return _describe(best_match(relevant), doc)
    if kind == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        problems = []
        for key in sorted(set(error.instance) - set(allowed)):
            hint = suggest(key, allowed) or (f"allowed here: {', '.join(allowed)}" if allowed else "remove it")
            where = f"in {name}" if path else "at the top level"
            problems.append(Problem(doc.key_where(path + (key,)), f"unknown key '{key}' {where}", hint))
        return problems
    if kind == "required":
        missing = [k for k in error.validator_value if k not in error.instance]
        return [Problem(doc.where(path), f"{name} lacks the key '{k}'", f"add '{k}:'") for k in missing]
    if kind == "type":
        wanted = error.validator_value
        wanted = " or ".join(_TYPE_NAMES[t] for t in ([wanted] if isinstance(wanted, str) else wanted))
        hint = ("quote versions, e.g. \"12.8\"" if "string" in str(error.validator_value)
                else _TYPE_HINTS.get(error.validator_value if isinstance(error.validator_value, str) else "", ""))
        return [Problem(doc.where(path), f"{name} must be {wanted}, not {_given(error.instance, error.validator_value)}", hint)]
    if kind == "enum":
        choices = [str(c) for c in error.validator_value]
        hint = suggest(error.instance, choices) or f"use one of: {', '.join(choices)}"
        return [Problem(doc.where(path), f"{name}: '{error.instance}' is not allowed here", hint)]
    if kind == "pattern" and "propertyNames" in error.schema_path:
        description = error.schema.get("description", f"a name matching {error.validator_value}")
        return [Problem(doc.key_where(path + (error.instance,)), f"{name}: the name '{error.instance}' is not valid",
                        f"expected {description}")]
    if kind == "pattern":
        description = error.schema.get("description", f"text matching {error.validator_value}")
        return [Problem(doc.where(path), f"{name}: '{error.instance}' is not valid", f"expected {description}")]
    if kind == "not":  # the one use: nixpkgs takes one pin (rev ...) or several (pins), not both
        return [Problem(doc.where(path), f"{name} has both the keys of one pin (rev, sha256, config, patches) and pins",
                        "write one pin with rev, or several under pins:, each with its own rev")]
    if kind == "uniqueItems":
        return [Problem(doc.where(path), f"{name} lists a value twice", "remove the repeated value")]
    if kind in ("minItems", "minProperties"):
        return [Problem(doc.where(path), f"{name} is empty", "give at least one value, or remove the key")]
    if kind == "minLength" and error.validator_value == 1:
        description = error.schema.get("description")
        return [Problem(doc.where(path), f"{name} is empty",
                        f"expected {description}" if description else "write a value, or remove the key")]
    if kind == "minimum":
        return [Problem(doc.where(path), f"{name} must be at least {error.validator_value}",
                        f"use {error.validator_value} or more")]
    if kind == "maximum":
        return [Problem(doc.where(path), f"{name} must be at most {error.validator_value}",
                        f"use {error.validator_value} or less")]
    return [Problem(doc.where(path), f"{name}: {error.message}",  # pragma: no cover
                    f"see {SCHEMA_FILE.name} for what this key takes")]


def problems_of(value, definition: str, field: str) -> list[str]:
    """What in `value`, named `field` in messages, breaks the schema's definition `definition`
    (one of its $defs, e.g. runnerLabels): for values read from elsewhere than matrix.yaml
    that must obey the same rule."""
    import jsonschema

    rule = {"type": "object", "properties": {field: schema()["$defs"][definition]}}
    holder = Document("", {field: value})
    found = jsonschema.Draft202012Validator(rule).iter_errors(holder.data)
    # the hints speak of YAML, which such a value is not written in
    return [problem.message for error in found for problem in _describe(error, holder)]


# GitHub evaluates `${{ ... }}` anywhere in a workflow, a value in `env:` or `run:` included:
# a matrix value holding one would run an expression (read a secret) in CI.
_EXPRESSION = "${{"
# Every text of a matrix is one line: a name, a version, a URL, a pattern, a description. A
# newline or a tab would start a heading or break a table row in the docs, a line in the
# workflow. (The loader refuses every other control character.)
_LINE_BREAKS = {"\n": "a newline", "\t": "a tab"}


def _text_problems(doc: Document) -> list[Problem]:
    """Every text of `doc`, key or value, that could run as a workflow expression or break a line."""
    problems = []

    def check(text: str, where) -> None:
        if _EXPRESSION in text:
            problems.append(Problem(where, "this text holds `${{`, which GitHub Actions would evaluate as an "
                                    "expression in the workflow",
                                    "remove it: no value of the matrix reaches the workflow as an expression"))
        for char, name in _LINE_BREAKS.items():
            if char in text:
                problems.append(Problem(where, f"this text holds {name}, but every text of the matrix is one line",
                                        "write it on one line (in a folded or literal block, YAML keeps the "
                                        "line breaks; and \\n in double quotes writes one)"))
                break

    def walk(value, path: tuple) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if isinstance(key, str):
                    check(key, doc.key_where(path + (key,)))
                walk(item, path + (key,))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                walk(item, path + (index,))
        elif isinstance(value, str):
            check(value, doc.where(path))

    walk(doc.data, ())
    return problems


def check_schema(doc: Document, part: str | None = None) -> None:
    """Raise GenMatrixError with every place where `doc` breaks the schema (or a part of it),
    together with the problems the loader found (duplicate keys, unwritable text)."""
    if not isinstance(doc.data, dict):
        what = "empty" if doc.data is None else f"{_yaml_type(doc.data)}, not a mapping"
        raise GenMatrixError([*doc.problems, Problem(
            doc.where(), f"the file is {what}",
            "start from the shipped matrix.yaml; the top level maps keys such as pytorch:, nixpkgs:, gpu:")])
    problems = list(doc.problems) + _text_problems(doc)
    # a part (the knowledge table alone) has no generated validator of its own: jsonschema checks it
    if part is not None or not _accepted(doc.data):
        problems += [p for error in _validator(part).iter_errors(doc.data) for p in _describe(error, doc)]
    if problems:
        raise GenMatrixError(problems)
