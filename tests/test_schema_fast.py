"""The schema check that runs without jsonschema agrees with jsonschema.

A valid document is checked by generator.schema's own interpreter of the schema file;
jsonschema is imported only to describe what is wrong with an invalid one. Here the two are
compared on documents shaped like the schema's, on mutations of them, and on every matrix
the tests write, and gen-matrix is shown not to import jsonschema for the shipped matrix.
"""

from __future__ import annotations

import ast
import math
import subprocess
import sys
import textwrap
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from generator import load, schema
from generator.errors import GenMatrixError
from generator.knowledge import KNOWLEDGE_FILE
from generator.load import Document

from conftest import REPO
from test_validation import CASES

ROOT = schema.schema()
PARTS = [None, "knowledge"]  # the parts gen-matrix checks: the whole matrix, and knowledge.yaml


def part_schema(part: str | None) -> dict:
    return ROOT if part is None else ROOT["properties"][part]


def agree(instance: Any, part: str | None) -> bool:
    """Assert that both checks give the same answer for `instance`; return it."""
    fast = schema.is_valid(instance, part)
    slow = schema._validator(part).is_valid(instance)
    assert fast == slow, f"fast check says {fast}, jsonschema says {slow}, for {instance!r}"
    return slow


# --- every keyword of the schema file is one the fast check knows --------------------------

def subschemas(node: Any):
    """`node` and every subschema within it (values of enum, required and type are data)."""
    yield node
    if not isinstance(node, dict):
        return
    for keyword, value in node.items():
        if keyword in ("enum", "required", "type"):
            continue
        if keyword in ("properties", "$defs"):
            children = list(value.values())
        else:
            children = value if isinstance(value, list) else [value]
        for child in children:
            if isinstance(child, (dict, bool)):
                yield from subschemas(child)


def test_every_keyword_of_the_schema_file_is_checked():
    nodes = [node for node in subschemas(ROOT) if isinstance(node, dict)]
    assert len(nodes) > 100
    for node in nodes:
        for instance in (None, True, 0, 1.5, "", "x", [], [1, 1], {}, {"x": 1}):
            schema._valid(instance, node, ROOT)  # raises NotImplementedError for an unknown keyword


@pytest.mark.parametrize("node", [
    {"anyOf": [{"type": "string"}]},
    {"type": "string", "not": {"type": "integer"}},  # after a keyword that fails
    {"type": "object", "properties": {"a": {"const": 1}}},
    {"$ref": "other.json#/$defs/x"},
])
def test_a_keyword_the_fast_check_does_not_know_is_never_ignored(node):
    with pytest.raises(NotImplementedError):
        schema._valid({"a": 1}, node, {"$defs": {}})


# --- the fast check and jsonschema agree ---------------------------------------------------

FLOATS = st.floats(allow_nan=False, width=32)
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 5000), FLOATS,
                    st.sampled_from(["", "3.13", "12.8", "sm90", "avx2", "x86_64", "all", "gpu", "torchvision",
                                     "sha256-" + "A" * 43 + "=", "0" * 40]),
                    st.text(max_size=6))


def containers(inner: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3))


GARBAGE = st.recursive(SCALARS, containers, max_leaves=6)

_shapes: dict[int, st.SearchStrategy] = {}


def shape(node: Any) -> st.SearchStrategy:
    """Values that `node` most likely accepts: the schema's own shapes, patterns and bounds."""
    if id(node) not in _shapes:
        _shapes[id(node)] = _shape(node)
    return _shapes[id(node)]


def _shape(node: Any) -> st.SearchStrategy:
    if not isinstance(node, dict):
        return GARBAGE
    if "$ref" in node:
        return shape(schema._resolve(node["$ref"], ROOT))
    if "oneOf" in node:
        return st.one_of([shape(sub) for sub in node["oneOf"]])
    if "enum" in node:
        return st.sampled_from(node["enum"])
    types = node.get("type", [])
    return st.one_of([_typed(name, node) for name in ([types] if isinstance(types, str) else types)] or [GARBAGE])


def _typed(name: str, node: dict) -> st.SearchStrategy:
    if name == "string":
        return st.from_regex(node["pattern"], fullmatch=True) if "pattern" in node else st.text(max_size=8)
    if name == "number":
        return st.one_of(FLOATS, st.integers(0, 20))
    if name == "integer":
        return st.integers(node.get("minimum", -5), node.get("maximum", 5000))
    if name == "boolean":
        return st.booleans()
    if name == "null":
        return st.none()
    if name == "array":
        return st.lists(shape(node.get("items", True)), min_size=node.get("minItems", 0), max_size=2,
                        unique_by=repr if node.get("uniqueItems") else None)
    assert name == "object", name
    properties = node.get("properties", {})
    required = {key: shape(properties.get(key, True)) for key in node.get("required", [])}
    optional = {key: shape(sub) for key, sub in properties.items() if key not in required}
    fixed = st.fixed_dictionaries(required, optional=optional)
    extra = node.get("additionalProperties", True)
    if extra is False:
        return fixed
    names = _typed("string", node.get("propertyNames", {}))
    extras = st.dictionaries(names, shape(extra), max_size=2)
    return st.builds(lambda extras, fixed: {**extras, **fixed}, extras, fixed)


def paths(value: Any, path: tuple = ()):
    """The path of `value` and of everything inside it."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from paths(item, path + (index,))


def replaced(value: Any, path: tuple, new: Any) -> Any:
    """A copy of `value` with `new` at `path` (the parts off the path are shared, not copied)."""
    if not path:
        return new
    key, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, key: replaced(value[key], rest, new)}
    return [replaced(item, rest, new) if index == key else item for index, item in enumerate(value)]


def _variants(value: Any) -> list[st.SearchStrategy]:
    """Near misses of `value`: another type that reads alike, a broken pattern, an unknown key, ..."""
    changes = [GARBAGE]
    if isinstance(value, bool):
        changes.append(st.just(int(value)))
    elif isinstance(value, (int, float)):
        changes += [st.just(float(value)), st.just(value + 0.5), st.just(str(value)), st.just(bool(value)),
                    st.just(-value)]
    elif isinstance(value, str):
        changes += [st.just(value + "\n"), st.just(" " + value), st.just(value.upper()), st.just(""),
                    st.just(value + "!"), st.just([value])]
        try:
            if math.isfinite(float(value)):
                changes.append(st.just(float(value)))
        except ValueError:
            pass
    elif isinstance(value, list):
        changes += [st.just([]), st.just(value[0] if value else None)]
        if value:
            changes += [st.just(value + value[:1]), st.just([True if x == 1 else x for x in value])]
        changes.append(GARBAGE.map(lambda extra: value + [extra]))
    elif isinstance(value, dict):
        changes += [st.just({}), st.just(list(value))]
        changes.append(st.builds(lambda key, item: {**value, key: item},
                                 st.one_of(st.text(max_size=6), *(st.just(k + "s") for k in value),
                                           *(st.just(k.upper()) for k in value)), GARBAGE))
        changes += [st.just({k: v for k, v in value.items() if k != gone}) for gone in value]
    return changes


@st.composite
def mutated(draw, document: Any, most: int = 3) -> Any:
    """`document` with up to `most` near misses anywhere in it."""
    for _ in range(draw(st.integers(0, most))):
        path = draw(st.sampled_from(list(paths(document))))
        target = document
        for key in path:
            target = target[key]
        document = replaced(document, path, draw(st.one_of(_variants(target))))
    return document


FAST = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                       HealthCheck.data_too_large])


@pytest.mark.parametrize("part", PARTS)
@FAST
@given(data=st.data())
def test_the_fast_check_agrees_with_jsonschema_on_documents_shaped_like_the_schema(part, data):
    document = data.draw(shape(part_schema(part)).flatmap(mutated))
    event("valid" if agree(document, part) else "invalid")


def fixture_documents() -> list[Any]:
    """The shipped matrix, the bad matrices of test_validation, and every matrix (or piece of
    one, after each module-level prefix such as BASE) written in the tests."""
    texts = {(REPO / "matrix.yaml").read_text(encoding="utf-8")}
    texts |= {case.text for case in CASES}
    for path in sorted((REPO / "tests").glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        strings = {textwrap.dedent(node.value) for node in ast.walk(tree)
                   if isinstance(node, ast.Constant) and isinstance(node.value, str) and ":" in node.value}
        prefixes = {node.value.value for node in tree.body if isinstance(node, ast.Assign)
                    and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
                    and node.value.value.endswith("\n")}
        texts |= strings | {prefix + text for prefix in prefixes for text in strings}
    documents = []
    for text in sorted(texts):
        if not text.encode("utf-8", errors="replace").decode("utf-8") == text:
            continue  # a lone surrogate: no file holds it
        try:
            document = load.parse(text, "matrix.yaml").data
        except GenMatrixError:
            continue
        if isinstance(document, dict):
            documents.append(document)
    return documents


@cache
def fixtures(part: str | None) -> list[Any]:
    """The documents of the tests that gen-matrix checks against `part` of the schema."""
    matrices = fixture_documents()
    if part is None:
        return matrices
    assert part == "knowledge"
    return [load.read(KNOWLEDGE_FILE).data] + [matrix["knowledge"] for matrix in matrices if "knowledge" in matrix]


@pytest.mark.parametrize("part", PARTS)
def test_the_fast_check_agrees_with_jsonschema_on_the_matrices_of_the_tests(part):
    assert len(fixtures(part)) > (200 if part is None else 10)
    outcomes = {agree(document, part) for document in fixtures(part)}
    assert outcomes == {True, False}


@pytest.mark.parametrize("part", PARTS)
@FAST
@given(data=st.data())
def test_the_fast_check_agrees_with_jsonschema_on_mutations_of_the_tests_matrices(part, data):
    document = data.draw(st.sampled_from(fixtures(part)).flatmap(mutated))
    event("valid" if agree(document, part) else "invalid")


@pytest.mark.parametrize("instance, node, expected", [
    ([1, True], {"uniqueItems": True}, True),
    ([[1], [True]], {"uniqueItems": True}, True),
    ([[1], [1, 2]], {"uniqueItems": True}, True),
    ([1, 1.0], {"uniqueItems": True}, False),
    ([{"a": [1]}, {"a": [1.0]}], {"uniqueItems": True}, False),
    ([{"a": 1}, {"a": True}], {"uniqueItems": True}, True),
    (1.0, {"type": "integer"}, True),
    (1.5, {"type": "integer"}, False),
    (True, {"type": "integer"}, False),
    (True, {"type": "number"}, False),
    (True, {"minimum": 2}, True),
    (float("nan"), {"minimum": 2, "maximum": 1}, True),
    ("3.10\n", {"pattern": "^[0-9]+\\.[0-9]+$"}, True),
    ("v3.10", {"pattern": "[0-9]+\\.[0-9]+"}, True),
    (1, {"enum": [True]}, False),
    (1.0, {"enum": [1]}, True),
    (3.1, {"type": ["string", "number"], "pattern": "^x$"}, True),
    ("a", {"oneOf": [{"type": "string"}, {"pattern": "a"}]}, False),
    ({"a": 1}, {"additionalProperties": False, "properties": {"b": True}}, False),
    ({"a": 1}, {"propertyNames": {"pattern": "^b"}}, False),
    ({"b": None}, {"required": ["b"], "minProperties": 1}, True),
])
def test_edges_of_the_json_schema_rules(instance, node, expected):
    assert schema._valid(instance, node, ROOT) is expected
    assert schema._validator(None).evolve(schema=node).is_valid(instance) is expected


# --- check_schema ----------------------------------------------------------------------------

VALID = {"pytorch": {"version": "2.8.0"}, "nixpkgs": {"rev": "f" * 40}}


def test_where_jsonschema_finds_nothing_wrong_the_document_passes():
    # jsonschema looks for equal neighbours in the sorted list, and sorting leaves NaN between
    # the two 1.0 here. No matrix.yaml can hold this: gen-matrix reads every float as its text.
    document = Document("matrix.yaml", dict(VALID, gpu={"python": [1.0, float("nan"), 1.0]}))
    assert not schema.is_valid(document.data)
    assert schema._validator(None).is_valid(document.data)
    schema.check_schema(document)


def test_an_invalid_document_still_gets_jsonschemas_located_problems():
    document = load.parse(
        'pytorch: {version: "2.8.0"}\nnixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}\n'
        "build: {jobs: 0, jbos: 2}\n", "matrix.yaml")
    with pytest.raises(GenMatrixError) as raised:
        schema.check_schema(document)
    assert [(p.where.line, p.message) for p in raised.value.problems] == [
        (3, "build.jobs must be at least 1"), (3, "unknown key 'jbos' in build")]


def test_a_valid_matrix_is_checked_without_importing_jsonschema():
    code = textwrap.dedent(f"""\
        import importlib, pkgutil, sys
        import generator
        for module in pkgutil.iter_modules(generator.__path__):
            if module.name != "__main__":
                importlib.import_module(f"generator.{{module.name}}")
        from generator import pipeline
        pipeline.expansion(pipeline.locate(None, {str(REPO)!r}))
        assert "generator.schema" in sys.modules
        assert "jsonschema" not in sys.modules, "jsonschema was imported"
        """)
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
