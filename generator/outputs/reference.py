"""docs/reference.md: every key of matrix.yaml, from generator/matrix.schema.json.

The schema is the one home of what a key means: editors show its descriptions, the loader
quotes them in errors, and this reference lists them. It is an output of gen-matrix's own
checkout only (`pin.is_checkout`): a matrix repository documents its matrix, not the schema.
"""

from __future__ import annotations

import json
from typing import NamedTuple

from ..layout import MARKER
from ..pipeline.schema import SCHEMA_FILE, schema as read_schema
from ..templating import environment

# MARKER makes the file gen-matrix's to overwrite; what it is made from is the schema.
HEADER = (f"{MARKER} (from its schema, {SCHEMA_FILE.parent.name}/{SCHEMA_FILE.name}); do not edit by "
          "hand: change the schema and run `gen-matrix`.")
_TYPES = {"string": "text", "integer": "whole number", "number": "number", "boolean": "true or false",
          "null": "null", "object": "mapping", "array": "list"}


class Row(NamedTuple):
    """One key as the reference lists it."""

    path: str
    required: bool
    type: str
    default: str
    allowed: str
    description: str


def _resolve(node: dict, defs: dict) -> dict:
    """`node` with its `$ref` followed (this schema refers only into its own `$defs`)."""
    while "$ref" in node:
        node = {**defs[node["$ref"].rsplit("/", 1)[-1]], **{k: v for k, v in node.items() if k != "$ref"}}
    return node


def _type(node: dict, defs: dict) -> str:
    node = _resolve(node, defs)
    if "type" not in node and ("oneOf" in node or "anyOf" in node):
        return " or ".join(dict.fromkeys(_type(alt, defs) for alt in node.get("oneOf", node.get("anyOf"))))
    if "enum" in node:
        return " or ".join(dict.fromkeys(_TYPES[_json_type(value)] for value in node["enum"]))
    types = node.get("type", [])
    types = [types] if isinstance(types, str) else types
    words = []
    for kind in types:
        if kind == "array":
            words.append(f"list of {_type(node['items'], defs)}" if "items" in node else "list")
        elif kind == "object" and isinstance(node.get("additionalProperties"), dict):
            words.append(f"mapping of names to {_type(node['additionalProperties'], defs)}")
        else:
            words.append(_TYPES[kind])
    return " or ".join(words) or "any"


def _json_type(value) -> str:
    return {bool: "boolean", int: "integer", float: "number", str: "string", type(None): "null",
            list: "array", dict: "object"}[type(value)]


def _allowed(node: dict, defs: dict) -> str:
    """What the schema admits beyond the type: values, a pattern, a range, a length."""
    node = _resolve(node, defs)
    parts = []
    for alt in node.get("oneOf", node.get("anyOf", ())):
        text = _allowed(alt, defs)
        if text and text not in parts:
            parts.append(text)
    if "enum" in node:
        parts.append("one of " + ", ".join(json.dumps(value) for value in node["enum"]))
    if "pattern" in node:
        parts.append(f"matching {node['pattern']}")
    if "propertyNames" in node and "pattern" in node["propertyNames"]:
        parts.append(f"names matching {node['propertyNames']['pattern']}")
    bounds = [f"at least {node['minimum']}" if "minimum" in node else "",
              f"at most {node['maximum']}" if "maximum" in node else "",
              f"at least {node['minItems']} item{'s' * (node['minItems'] != 1)}" if node.get("minItems") else "",
              f"at most {node['maxItems']} items" if "maxItems" in node else "",
              ("not empty" if node.get("minLength") == 1 else f"at least {node['minLength']} characters")
              if node.get("minLength") else "",
              f"at most {node['maxLength']} characters" if "maxLength" in node else "",
              "no repeats" if node.get("uniqueItems") else ""]
    parts.extend(bound for bound in bounds if bound)
    if node.get("type") == "array" and "items" in node and not _children(node["items"], defs):
        items = _allowed(node["items"], defs)
        if items:
            parts.append(f"each {items}")
    return "; ".join(parts)


def _description(node: dict, defs: dict) -> str:
    """The key's description, or where it has none, its definition's or first alternative's."""
    node = _resolve(node, defs)  # the key's own keywords win over its definition's
    if "description" in node:
        return node["description"]
    alternatives = [alt for alt in node.get("oneOf", ()) if "description" in _resolve(alt, defs)]
    return _resolve(alternatives[0], defs)["description"] if alternatives else ""


def _children(node: dict, defs: dict) -> list[tuple[str, dict, bool]]:
    """The keys under `node`, as path suffixes: `.key` of a mapping with fixed keys, `.<name>`
    of one with names of the user's, `[]` of a list of mappings, through every alternative;
    each with whether its mapping requires it."""
    node = _resolve(node, defs)
    found: list[tuple[str, dict, bool]] = []
    for alt in node.get("oneOf", node.get("anyOf", ())):
        found.extend(_children(alt, defs))
    required = set(node.get("required", ()))
    found.extend((f".{key}", value, key in required) for key, value in node.get("properties", {}).items())
    if isinstance(node.get("additionalProperties"), dict):
        found.append((".<name>", node["additionalProperties"], False))
    if "items" in node:
        found.extend((f"[]{suffix}", value, needed) for suffix, value, needed in _children(node["items"], defs))
    return found


def rows(schema: dict) -> list[Row]:
    """Every key of the schema, depth first in the schema's order."""
    defs = schema.get("$defs", {})
    found: list[Row] = []

    def walk(path: str, node: dict, required: bool) -> None:
        default = node.get("default", _resolve(node, defs).get("default"))
        found.append(Row(path, required, _type(node, defs), "" if default is None else json.dumps(default),
                         _allowed(node, defs), _description(node, defs)))
        seen = set()
        for suffix, child, needed in _children(node, defs):
            if path + suffix not in seen:
                seen.add(path + suffix)
                walk(path + suffix, child, needed)

    top = set(schema.get("required", ()))
    for key, node in schema["properties"].items():
        walk(key, node, key in top)
    return found


def render(schema: dict | None = None) -> str:
    """docs/reference.md from the schema (gen-matrix's own, unless another is given)."""
    schema = read_schema() if schema is None else schema
    sections: dict[str, list[Row]] = {}
    for row in rows(schema):
        sections.setdefault(row.path.split(".")[0].split("[")[0], []).append(row)
    return environment(False).get_template("reference.md.j2").render(
        header=HEADER, description=schema.get("description", ""), sections=sections)
