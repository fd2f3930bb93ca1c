"""matrix.yaml's structure, checked against the JSON Schema shipped beside this file.

The same schema file serves editors (through the `$schema` comment in matrix.yaml) and
this loader, so the two cannot disagree. A small interpreter of the keywords the file uses
tells whether a document is valid, in a millisecond or two; importing `jsonschema` takes
far longer, so only a document it finds invalid goes to `jsonschema`, which has the last
word and whose errors become located problems with hints.
"""

from __future__ import annotations

import json
import numbers
import re
from functools import lru_cache
from itertools import combinations
from pathlib import Path
from typing import Any, Callable

from .errors import GenMatrixError, Problem
from .load import Document

SCHEMA_FILE = Path(__file__).with_name("matrix.schema.json")

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


def _yaml_type(value) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return "a boolean"
    return {dict: "a mapping", list: "a list", str: "a string", int: "a whole number"}.get(type(value), type(value).__name__)


@lru_cache(maxsize=1)
def schema() -> dict:
    return json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


def _equal(one: Any, two: Any) -> bool:
    """JSON equality: true is not 1, 1 is 1.0, lists and mappings compare by their contents."""
    if one is two:
        return True
    if isinstance(one, bool) or isinstance(two, bool):
        return False
    if isinstance(one, list) and isinstance(two, list):
        return len(one) == len(two) and all(map(_equal, one, two))
    if isinstance(one, dict) and isinstance(two, dict):
        return one.keys() == two.keys() and all(_equal(value, two[key]) for key, value in one.items())
    return one == two


_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda value: isinstance(value, dict),
    "array": lambda value: isinstance(value, list),
    "string": lambda value: isinstance(value, str),
    "boolean": lambda value: isinstance(value, bool),
    "null": lambda value: value is None,
    "number": lambda value: isinstance(value, numbers.Number) and not isinstance(value, bool),
    "integer": lambda value: ((isinstance(value, int) and not isinstance(value, bool))
                              or (isinstance(value, float) and value.is_integer())),
}


def _resolve(ref: str, root: dict) -> dict | bool:
    """The subschema a `$ref` such as "#/$defs/version" points at."""
    if not ref.startswith("#/"):
        raise NotImplementedError(f"{SCHEMA_FILE.name} refers to {ref}; {__name__} follows only '#/...' references")
    node = root
    for token in ref[2:].split("/"):
        node = node[token.replace("~1", "/").replace("~0", "~")]
    return node


def _holds(keyword: str, value: Any, instance: Any, node: dict, root: dict) -> bool:
    """Whether `instance` passes `keyword` (whose value is `value`) of the subschema `node`, as
    Draft 2020-12 defines it; a keyword about one type of instance passes the other types."""
    match keyword:
        case "$schema" | "$defs" | "title" | "description":
            return True
        case "$ref":
            return _valid(instance, _resolve(value, root), root)
        case "type":
            return any(_TYPES[name](instance) for name in ([value] if isinstance(value, str) else value))
        case "enum":
            return any(_equal(choice, instance) for choice in value)
        case "oneOf":
            return sum(_valid(instance, sub, root) for sub in value) == 1
        case "properties":
            return not isinstance(instance, dict) or all(
                _valid(instance[key], sub, root) for key, sub in value.items() if key in instance)
        case "additionalProperties":
            known = node.get("properties", {})
            return not isinstance(instance, dict) or all(
                _valid(instance[key], value, root) for key in instance if key not in known)
        case "propertyNames":
            return not isinstance(instance, dict) or all(_valid(key, value, root) for key in instance)
        case "required":
            return not isinstance(instance, dict) or all(key in instance for key in value)
        case "minProperties":
            return not isinstance(instance, dict) or len(instance) >= value
        case "items":
            return not isinstance(instance, list) or all(_valid(item, value, root) for item in instance)
        case "minItems":
            return not isinstance(instance, list) or len(instance) >= value
        case "uniqueItems":
            return not (value and isinstance(instance, list)) or not any(
                _equal(one, two) for one, two in combinations(instance, 2))
        case "pattern":
            return not isinstance(instance, str) or re.search(value, instance) is not None
        case "minimum":
            return not _TYPES["number"](instance) or not instance < value
        case "maximum":
            return not _TYPES["number"](instance) or not instance > value
    raise NotImplementedError(f"{SCHEMA_FILE.name} uses the keyword {keyword}, which {__name__} does not check")


def _valid(instance: Any, node: dict | bool, root: dict) -> bool:
    """Whether `instance` is valid under the subschema `node`, whose `$ref`s point into `root`.

    Every keyword of `node` is checked, even after one fails, so that a keyword this module
    does not know raises the first time its subschema is used."""
    if isinstance(node, bool):
        return node
    return all([_holds(keyword, value, instance, node, root) for keyword, value in node.items()])


def is_valid(instance: Any, part: str | None = None) -> bool:
    """Whether `instance` is valid under the schema (or its top-level property `part`)."""
    root = schema()
    return _valid(instance, root if part is None else root["properties"][part], root)


@lru_cache(maxsize=None)
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
    import difflib  # here: only a mistake needs it

    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else ""


def _describe(error, doc: Document) -> list[Problem]:
    path = tuple(error.absolute_path)
    name = dotted(path)
    kind = error.validator
    if kind in ("oneOf", "anyOf") and error.context:
        from jsonschema.exceptions import best_match

        return _describe(best_match(error.context), doc)
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
        return [Problem(doc.where(path), f"{name} must be {wanted}, not {_yaml_type(error.instance)}", hint)]
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
    if kind == "uniqueItems":
        return [Problem(doc.where(path), f"{name} lists a value twice", "remove the repeated value")]
    if kind in ("minItems", "minProperties"):
        return [Problem(doc.where(path), f"{name} is empty", "give at least one value, or remove the key")]
    if kind == "minimum":
        return [Problem(doc.where(path), f"{name} must be at least {error.validator_value}",
                        f"use {error.validator_value} or more")]
    if kind == "maximum":
        return [Problem(doc.where(path), f"{name} must be at most {error.validator_value}",
                        f"use {error.validator_value} or less")]
    return [Problem(doc.where(path), f"{name}: {error.message}",  # pragma: no cover
                    f"see {SCHEMA_FILE.name} for what this key takes")]


def check_schema(doc: Document, part: str | None = None) -> None:
    """Raise GenMatrixError with every place where `doc` breaks the schema (or a part of it),
    together with the problems the loader found (duplicate keys, unwritable text)."""
    if not isinstance(doc.data, dict):
        what = "empty" if doc.data is None else f"{_yaml_type(doc.data)}, not a mapping"
        raise GenMatrixError([*doc.problems, Problem(
            doc.where(), f"the file is {what}",
            "start from the shipped matrix.yaml; the top level maps keys such as pytorch:, nixpkgs:, gpu:")])
    problems = list(doc.problems)
    if not is_valid(doc.data, part):
        problems += [p for error in _validator(part).iter_errors(doc.data) for p in _describe(error, doc)]
    if problems:
        raise GenMatrixError(problems)
