"""The validator generated from matrix.schema.json ahead of time (generator/pipeline/schema_code.py,
written by scripts/schema_code.py): it is what the script writes from the schema as it is, it runs
without fastjsonschema or jsonschema, and it never takes a document that jsonschema refuses, so
that a matrix it takes gets from gen-matrix exactly what jsonschema alone would give it. Where it
refuses, jsonschema words the problems (tests/test_validation.py checks those words)."""

from __future__ import annotations

import ast
import copy
import datetime
import importlib.util
import json
import subprocess
import sys

import jsonschema
import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from generator.errors import GenMatrixError
from generator.knowledge import KNOWLEDGE_FILE
from generator.pipeline import load, schema, schema_code

from conftest import FIXTURE_MATRIX, REPO, SYNTHETIC
from test_validation import BUILDER_CASES, CASES, EVERY_KEY, MUTABLE, SHIPPED

SCHEMA = json.loads(schema.SCHEMA_FILE.read_text(encoding="utf-8"))
JSONSCHEMA = jsonschema.Draft202012Validator(SCHEMA)


@pytest.fixture(scope="module")
def script():
    spec = importlib.util.spec_from_file_location("schema_code_script", REPO / "scripts" / "schema_code.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def fastjsonschema(script):
    """fastjsonschema, of the version the committed module was written by."""
    module = pytest.importorskip("fastjsonschema", reason="fastjsonschema (the test extra) writes the module")
    committed = script.version(script.MODULE.read_text(encoding="utf-8"))
    if module.VERSION != committed:
        pytest.skip(f"fastjsonschema {module.VERSION} is installed; the module was written by {committed}, "
                    "whose code may differ")
    return module


def fast_accepts(data) -> bool:
    try:
        schema_code.validate(data)
    except schema_code.JsonSchemaValueException:
        return False
    return True


# --- the module is what the script writes -------------------------------------------------

def test_the_committed_module_is_what_the_script_writes_from_the_schema(script, fastjsonschema):
    assert script.written(schema.SCHEMA_FILE.read_text(encoding="utf-8")) == script.MODULE.read_text(encoding="utf-8"), \
        "generator/pipeline/schema_code.py is not what matrix.schema.json makes: run python scripts/schema_code.py"


def test_check_mode_fails_where_the_module_differs_and_write_mode_mends_it(script, fastjsonschema, tmp_path,
                                                                          monkeypatch, capsys):
    module = tmp_path / "schema_code.py"
    monkeypatch.setattr(script, "REPO", tmp_path)
    monkeypatch.setattr(script, "MODULE", module)
    assert script.main(["--check"]) == 1
    assert "error: schema_code.py is not there" in capsys.readouterr().err
    assert script.main([]) == 0 and script.main(["--check"]) == 0
    good = module.read_text(encoding="utf-8")
    assert good.startswith("# Generated from generator/matrix.schema.json by scripts/schema_code.py")
    module.write_text(good.replace("'^[0-9a-f]{40}\\\\Z'", "'^[0-9a-f]{4,40}\\\\Z'"), encoding="utf-8")
    assert module.read_text(encoding="utf-8") != good
    assert script.main(["--check"]) == 1
    error = capsys.readouterr().err
    assert "error: schema_code.py is not what matrix.schema.json makes" in error
    assert "hint: run `python scripts/schema_code.py`" in error
    module.write_text(good.replace(f'VERSION = "{fastjsonschema.VERSION}"', 'VERSION = "2.0"'), encoding="utf-8")
    assert script.main(["--check"]) == 1
    assert f"was written by fastjsonschema 2.0, not the installed {fastjsonschema.VERSION}" in capsys.readouterr().err


def test_the_module_imports_the_standard_library_alone_and_neither_validator_library():
    tree = ast.parse((REPO / "generator" / "pipeline" / "schema_code.py").read_text(encoding="utf-8"))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported == {"decimal", "re"}
    # in a fresh process where fastjsonschema cannot be imported at all
    check = ("import sys\n"
             "sys.modules['fastjsonschema'] = None\n"
             "from generator.pipeline import schema_code\n"
             "import yaml\n"
             "schema_code.validate(yaml.safe_load(open('matrix.yaml')))\n"
             "try:\n"
             "    schema_code.validate({'nixpkgs': {}})\n"
             "except ValueError as refused:\n"
             "    assert type(refused).__module__ == 'generator.pipeline.schema_code', type(refused)\n"
             "    assert refused.message == 'data must contain ', refused.message\n"
             "else:\n"
             "    raise AssertionError('taken')\n"
             "print(sorted(name for name, module in sys.modules.items() if 'jsonschema' in name and module))\n")
    done = subprocess.run([sys.executable, "-c", check], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_each_pattern_is_compiled_where_first_used_from_the_source_fastjsonschema_wrote(script, fastjsonschema):
    """The module's table of patterns compiles none on import, and each on its first use, from
    the very source fastjsonschema's own table compiles (every one of the schema's patterns)."""
    own = fastjsonschema.compile_to_code(SCHEMA, detailed_exceptions=False, use_default=False, use_formats=False)
    (table,) = [node for node in ast.parse(own).body if isinstance(node, ast.Assign)
                and [getattr(t, "id", None) for t in node.targets] == ["REGEX_PATTERNS"]]
    compiled = {key.value: value.args[0].value for key, value in zip(table.value.keys, table.value.values)}
    assert len(compiled) > 1
    fresh = {}
    exec(compile(script.MODULE.read_text(encoding="utf-8"), str(script.MODULE), "exec"), fresh)
    patterns = fresh["REGEX_PATTERNS"]
    assert dict(patterns) == {}  # nothing compiled on import
    for text, source in compiled.items():
        assert patterns[text].pattern == source
        assert patterns[text] is patterns[text]  # compiled once
    assert sorted(patterns) == sorted(compiled)
    with pytest.raises(KeyError):  # no pattern of its own making
        patterns["^not in the schema$"]


def test_a_table_of_patterns_used_otherwise_than_by_subscript_is_refused(script):
    code = ("import re\nREGEX_PATTERNS = {'a$': re.compile('a\\\\Z'), 'b$': re.compile('b\\\\Z')}\n"
            "def validate(data):\n    return REGEX_PATTERNS['a$'].search(data)\n")
    made = {}
    exec(script.lazy_patterns(code), made)
    assert made["validate"]("xa") and not made["validate"]("xb") and sorted(made["REGEX_PATTERNS"]) == ["a$"]
    for use in ("list(REGEX_PATTERNS)", "REGEX_PATTERNS.get('a$')", "len(REGEX_PATTERNS)"):
        with pytest.raises(SystemExit, match="otherwise than by subscript"):
            script.lazy_patterns(code + f"def more():\n    return {use}\n")
    with pytest.raises(SystemExit, match="not re.compile of a text"):
        script.lazy_patterns(code.replace("re.compile('b\\\\Z')", "re.compile('b', re.I)"))


# --- what fastjsonschema would read otherwise: the script refuses it ----------------------

def test_the_schema_uses_only_what_fastjsonschema_reads_as_jsonschema_does(script):
    assert script.misread(SCHEMA) == []


@pytest.mark.parametrize("node, data, said", [
    # draft 7 ignores a $ref's siblings; 2020-12 applies them
    ({"$defs": {"s": {"type": "string"}}, "$ref": "#/$defs/s", "minLength": 3}, "ab", "'$ref' beside minLength"),
    # 2020-12 keywords that draft 7 does not know
    ({"prefixItems": [{"type": "integer"}]}, ["x"], "does not read 'prefixItems'"),
    ({"properties": {"a": {}}, "unevaluatedProperties": False}, {"b": 1}, "does not read 'unevaluatedProperties'"),
    ({"dependentRequired": {"a": ["b"]}}, {"a": 1}, "does not read 'dependentRequired'"),
    # $ written as \Z inside a negative lookahead takes more
    ({"type": "string", "pattern": "^(?!none$)"}, "none\n", "'$' other than at its end"),
])
def test_a_schema_that_fastjsonschema_would_read_more_loosely_is_refused(script, node, data, said):
    fastjsonschema = pytest.importorskip("fastjsonschema")
    schema_text = json.dumps({"$schema": "https://json-schema.org/draft/2020-12/schema", **node})
    # why: the code fastjsonschema writes for it takes what jsonschema refuses
    assert fastjsonschema.compile(json.loads(schema_text))(copy.deepcopy(data)) is not None
    assert not jsonschema.Draft202012Validator(json.loads(schema_text)).is_valid(data)
    assert any(said in line for line in script.misread(json.loads(schema_text))), script.misread(json.loads(schema_text))
    with pytest.raises(SystemExit, match="otherwise than jsonschema"):
        script.written(schema_text)


# --- it never takes what jsonschema refuses -------------------------------------------------

def _documents() -> list:
    """The matrices the tests use that YAML reads as a mapping: the shipped one (alone and with the
    knowledge table), the examples, the fixtures, test_validation.py's cases and its matrix with every
    key of the schema, as the loader reads them."""
    knowledge = KNOWLEDGE_FILE.read_text(encoding="utf-8")
    texts = [SHIPPED, SHIPPED + "knowledge:\n" + "".join(f"  {line}\n" for line in knowledge.splitlines()),
             MUTABLE, EVERY_KEY, SYNTHETIC, FIXTURE_MATRIX.read_text(encoding="utf-8")]
    texts += [path.read_text(encoding="utf-8") for path in sorted((REPO / "examples").glob("*/matrix.yaml"))]
    texts += [case.text for case in CASES + BUILDER_CASES]
    documents = []
    for text in texts:
        try:
            data = load.parse(text, "matrix.yaml").data
        except (GenMatrixError, UnicodeError):  # a case of a YAML mistake, or of a text YAML cannot hold
            continue
        if isinstance(data, dict):
            documents.append(data)
    return documents


DOCUMENTS = _documents()
# values of every kind the loader makes: a decimal number is kept as its text (FloatText), a
# date and !!binary are read as such; and a float, which it does not make
OTHERS = [True, False, 0, 1, -1, 2, 4097, 10**30, 1.5, 2.0, None, "", "x", "1", "0", "true", "True",
          load.FloatText("3.10", 3.1), load.FloatText("1.0", 1.0), datetime.date(2026, 1, 2), b"x",
          [], ["x"], [1, True], [0, False], [True, "True"], [1, "1"], {}, {"x": 1}, {"name": True}]


def paths(value, path: tuple = ()):
    """Every path of `value`, the whole first."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from paths(item, path + (index,))


def at(data, path):
    for key in path:
        data = data[key]
    return data


def put(data, path, value):
    if not path:
        return value
    at(data, path[:-1])[path[-1]] = value
    return data


def mutants(value) -> tuple[list, list]:
    """What a value can be made into: another kind of value; and for its kind, the mistakes."""
    others = [other for other in OTHERS if not (type(other) is type(value) and other == value)]
    made = []
    if isinstance(value, str):
        made += [value + "\n", "\n" + value, value + " ", " " + value, value + "\t", value.upper(), value[:-1],
                 value + "x", value + "$", value + "${{ secrets.X }}", value + "é", value * 2,
                 load.FloatText(value, 1.0)]
    elif isinstance(value, bool):
        made += [int(value), str(value).lower()]
    elif isinstance(value, int):
        made += [bool(value), not value, str(value), value + 1, value - 1, -value, value * 1000]
    elif isinstance(value, list):
        made += [value + value[:1], value[:1] + value, value[1:], value + [True], value + [1], value + [0],
                 value + [None], value + [value[0] if value else "x"], [value], list(reversed(value))]
        made += [value[:i] + [True if item == 1 else 1 if item is True else item] + value[i + 1:]
                 for i, item in enumerate(value[:3])]
    elif isinstance(value, dict):
        keys = list(value)
        made += [{k: v for k, v in value.items() if k != key} for key in keys]  # a key dropped
        made += [dict(value, unknown=1), dict(value, **{"": 1}), dict(value, **{"x\n": 1}), dict(value, **{"1": 1})]
        made += [{(key + "\n" if key == chosen else key): item for key, item in value.items()} for chosen in keys[:3]]
        made += [{(key.upper() if key == chosen else key): item for key, item in value.items()} for chosen in keys[:3]]
        made += [{(key + "_" if key == chosen else key): item for key, item in value.items()} for chosen in keys[:3]]
    return others, made or others


def _named(path: tuple) -> str:
    """The name of the key that holds a value: `sm` for gpu.sm and each of its items (`sm[]`)."""
    keys = [key for key in path if isinstance(key, str)]
    items = len(path) - 1 - max((i for i, key in enumerate(path) if isinstance(key, str)), default=-1)
    return (keys[-1] if keys else "") + "[]" * items


# every value each key holds in some document: what a value is made into that is often right
DONORS: dict[str, list] = {}
for _document in DOCUMENTS:
    for _path in list(paths(_document))[1:]:
        _values = DONORS.setdefault(_named(_path), [])
        if at(_document, _path) not in _values:
            _values.append(at(_document, _path))


@st.composite
def mutated(draw):
    """A document of DOCUMENTS with one to three values replaced: by a value of another kind, by a
    mistake of its kind, or by what the same key holds elsewhere. The top level stays a mapping:
    check_schema refuses anything else before any validator sees it."""
    data = copy.deepcopy(draw(st.sampled_from(DOCUMENTS)))
    for _ in range(draw(st.integers(1, 3))):
        everywhere = list(paths(data))[1:]
        path = everywhere[draw(st.integers(0, len(everywhere) - 1))]
        others, made = mutants(at(data, path))
        choices = {"another kind": others, "a mistake": made, "another document's": DONORS.get(_named(path)) or others}
        kind = draw(st.sampled_from(sorted(choices)))
        event(f"value: {kind}")
        data = put(data, path, copy.deepcopy(choices[kind][draw(st.integers(0, len(choices[kind]) - 1))]))
    return data


def before(doc: load.Document) -> tuple:
    """What check_schema raised before the generated validator, for a mapping: jsonschema's problems,
    always."""
    problems = list(doc.problems) + schema._text_problems(doc)
    problems += [p for error in JSONSCHEMA.iter_errors(doc.data) for p in schema._describe(error, doc)]
    return GenMatrixError(problems).problems


def now(doc: load.Document) -> tuple:
    try:
        schema.check_schema(doc)
    except GenMatrixError as error:
        return error.problems
    return ()


def said(check, doc: load.Document):
    """The problems `check` finds in `doc`, or the exception it fails with, should it fail: the
    same with or without the generated validator."""
    try:
        return check(doc)
    except Exception as error:  # noqa: BLE001 - compared, not hidden
        return type(error).__name__, str(error)


def judge(data) -> tuple[bool, bool]:
    """Whether the generated validator and jsonschema take `data`; and that the first leaves it as
    it was (fastjsonschema can write a key's default into the document it checks)."""
    kept = copy.deepcopy(data)
    fast = fast_accepts(data)
    assert data == kept and repr(data) == repr(kept), "the generated validator changed the document"
    return fast, JSONSCHEMA.is_valid(data)


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated())
def test_what_the_generated_validator_takes_jsonschema_takes_and_check_schema_says_what_it_said(data):
    fast, full = judge(data)
    event("both take it" if fast else "jsonschema alone takes it" if full else "both refuse it")
    assert full or not fast, f"the generated validator takes what jsonschema refuses:\n{yaml.safe_dump(data)}"
    doc = load.Document("matrix.yaml", data)
    found = said(now, doc)
    assert found == said(before, doc)
    if full and not fast:  # jsonschema's word stands: no problem of the schema
        assert found == GenMatrixError(list(doc.problems) + schema._text_problems(doc)).problems


# where Python's True == 1 and 0 == False could have the generated code judge otherwise
CONFUSED = [True, False, 0, 1, "1", "0", "True", "true", [1, True], [0, False], [True, "True"]]


def test_at_each_place_of_a_matrix_the_generated_validator_takes_a_confusable_value_only_if_jsonschema_does():
    """Every value of the shipped matrix, MUTABLE, and the matrix with every key of the schema
    (test_validation.py holds it to that: each `enum` and `uniqueItems` of the schema is met)
    replaced by each of CONFUSED, and each list given a repeated value, True or 1 more."""
    taken = refused = 0
    for document in (DOCUMENTS[0], DOCUMENTS[2], DOCUMENTS[3]):
        for path in list(paths(document)):
            value = at(document, path)
            for mutant in CONFUSED + ([value + value[:1], value + [True], value + [1]] if isinstance(value, list) else []):
                data = put(copy.deepcopy(document), path, copy.deepcopy(mutant))
                if fast_accepts(data):
                    taken += 1
                    assert JSONSCHEMA.is_valid(data), (path, mutant)
                else:
                    refused += 1
    assert taken > 100 and refused > 3000, (taken, refused)


def test_no_enum_of_the_schema_holds_a_number_or_true_or_false():
    # Python's 1 == True: where an enum held 0, 1 or a boolean, the test above is what would show
    # that the generated code (isinstance before ==) tells them apart as jsonschema does
    enums = [node["enum"] for node in _schema_nodes(SCHEMA) if "enum" in node]
    assert enums and all(isinstance(value, str) for enum in enums for value in enum)
    lists = [node for node in _schema_nodes(SCHEMA) if node.get("uniqueItems")]
    assert len(lists) > 10


def _schema_nodes(node):
    if isinstance(node, dict):
        yield node
        for child in node.values():
            yield from _schema_nodes(child)
    elif isinstance(node, list):
        for child in node:
            yield from _schema_nodes(child)


@pytest.mark.parametrize("node, values", [
    ({"type": "array", "uniqueItems": True}, [[1, True], [0, False], [True, "True"], [1, "1"], [1, 1.0],
                                              [{"a": 1}, {"a": True}], [[1], [True]], [[0], [False]], [None, 0]]),
    ({"enum": ["1", "0", "true"]}, [1, 0, True, False, "1", load.FloatText("1.0", 1.0)]),
    ({"enum": [1, 0]}, [True, False, 1, 0, 1.0, "1"]),
    ({"enum": [True, False]}, [1, 0, True, False, "true"]),
    ({"const": 1}, [True, 1, 1.0]),
])
def test_what_python_calls_equal_and_jsonschema_does_not_is_told_apart_by_the_generated_code(node, values):
    """Python's True == 1 and 0 == False: the code fastjsonschema writes for `enum`, `const` and
    `uniqueItems` compares the kind first, as jsonschema does (the matrix's schema has enums of
    text alone, and unique lists of texts, where the kind alone refuses 1 and True)."""
    fastjsonschema = pytest.importorskip("fastjsonschema")
    validate = fastjsonschema.compile(node, use_default=False)
    for value in values:
        try:
            validate(copy.deepcopy(value))
            fast = True
        except fastjsonschema.JsonSchemaValueException:
            fast = False
        assert fast == jsonschema.Draft202012Validator(node).is_valid(value), value


def test_the_matrixs_unique_lists_refuse_a_repeated_value_and_a_number_for_a_text():
    for values, taken in ((["sm90", "sm120"], True), (["sm90", "sm90"], False), ([1, True], False),
                          (["1", 1], False), ([True, "True"], False)):
        data = yaml.safe_load(SHIPPED)
        data["gpu"]["sm"] = values
        assert judge(data) == (taken, taken), values


def test_a_refusal_jsonschema_overrules_ends_with_jsonschemas_word():
    # fastjsonschema reads a pattern's $ as the very end of the text; Python's re, which jsonschema
    # uses, lets $ match before a final newline: only jsonschema takes "2.8.0\n"
    doc = load.parse('pytorch: {version: "2.8.0\\n"}\nnixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}\n'
                     'cpu: {python: ["3.13"], isa: [avx2]}\n', "matrix.yaml")
    assert judge(doc.data) == (False, True)
    with pytest.raises(GenMatrixError) as raised:
        schema.check_schema(doc)
    # the loader's own refusal of a line break, and nothing from the schema
    assert [str(problem) for problem in raised.value.problems] == [
        "matrix.yaml:1:20: this text holds a newline, but every text of the matrix is one line\n"
        "  hint: write it on one line (in a folded or literal block, YAML keeps the line breaks; and \\n in "
        "double quotes writes one)"]
    assert raised.value.problems == before(doc)
