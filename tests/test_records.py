"""records.dataclass: dataclasses' classes, their methods' code kept compiled between runs.

Each test loads its own copies of the module, whose kept file is in the test's folder: one
copy writes the file as a process would at its end, the next one reads it."""

from __future__ import annotations

import atexit
import dataclasses
import importlib.util
import inspect
import marshal
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator import records

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def bytecode(monkeypatch):
    """Bytecode written, as by default, whatever the environment of the tests says."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)


def fresh(kept: Path):
    """A copy of the module as a new process has it, with its kept file at `kept`: of the same
    name, but not the one the package imported."""
    spec = importlib.util.spec_from_file_location(records.__name__, records.__file__)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    atexit.unregister(module._at_exit)  # a test writes the file itself
    module.KEPT = kept
    return module


def classes(module):
    """Three classes: two frozen ones whose methods have the same names and whose fields come
    in the other order, one of them with defaults; and a mutable one without eq."""

    @module.dataclass(frozen=True)
    class Point:
        x: int
        y: int = 2
        tags: tuple = dataclasses.field(default_factory=tuple)

    @module.dataclass(frozen=True)
    class Swapped:
        y: int
        x: int

    @module.dataclass(eq=False)
    class Box:
        content: list = dataclasses.field(default_factory=list)

    return Point, Swapped, Box


def methods(cls) -> dict:
    """What makes each method dataclasses wrote for `cls`: its code's bytes, names, constants and
    file name, and the globals it runs in."""
    found = {name: inspect.unwrap(f) for name, f in vars(cls).items() if callable(f) and hasattr(f, "__code__")}
    return {name: (f.__code__.co_code, f.__code__.co_names, f.__code__.co_consts, f.__code__.co_filename,
                   f.__globals__) for name, f in found.items()}


def twins(module) -> None:
    """The classes of `module.dataclass` have the methods the standard library's would have."""
    for made, own in zip(classes(module), classes(dataclasses)):
        assert methods(made).keys() == methods(own).keys() and len(methods(made)) >= 2
        for name, (code, names, consts, filename, globals_) in methods(made).items():
            assert (code, names, consts, filename) == methods(own)[name][:4]
            assert globals_ is methods(own)[name][4] is globals()  # the class's module's


def behaves(Point, Swapped, Box) -> None:
    point = Point(1)
    assert (point.x, point.y, point.tags) == (1, 2, ())
    assert Point(1, 2) == point and Point(1, 3) != point and hash(Point(1, 2)) == hash(point)
    assert repr(Point(4, 5, ("a",))).endswith(".Point(x=4, y=5, tags=('a',))")
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.x = 3
    with pytest.raises(dataclasses.FrozenInstanceError):
        del point.y
    swapped = Swapped(1, 2)
    assert (swapped.y, swapped.x) == (1, 2) and repr(swapped).endswith(".Swapped(y=1, x=2)")
    assert dataclasses.replace(swapped, x=7) == Swapped(1, 7)
    assert [f.name for f in dataclasses.fields(Point)] == ["x", "y", "tags"]
    first, second = Box(), Box()
    first.content.append(1)
    assert second.content == [] and first != Box([1])  # identity, not eq
    assert dataclasses.is_dataclass(Box) and not hasattr(dataclasses, "exec")


def test_classes_are_dataclasses_own_before_and_after_their_code_is_kept(tmp_path):
    kept = tmp_path / "__pycache__" / "kept.marshal"
    writer = fresh(kept)
    behaves(*classes(writer))
    twins(writer)
    assert len(writer._compiled) >= 12 and set(writer._compiled) == writer._used  # each method compiled
    writer.write(kept)
    reader = fresh(kept)
    behaves(*classes(reader))
    twins(reader)
    assert reader._compiled == []  # every method's code was read back
    reader.write(kept)  # nothing compiled: the file stays as it was
    assert marshal.loads(kept.read_bytes()).keys() == writer._kept.keys()


def test_a_file_that_holds_something_else_is_compiled_past_and_written_over(tmp_path):
    kept = tmp_path / "kept.marshal"
    for bad in (b"", b"\x00garbage", marshal.dumps([1, 2]), marshal.dumps({"source": 1}), marshal.dumps({1: "x"})):
        kept.write_bytes(bad)
        module = fresh(kept)
        behaves(*classes(module))
        assert module._compiled
        module.write(kept)
        assert fresh(kept)._read(kept).keys() == set(module._used)


def test_the_same_source_is_not_the_same_class(tmp_path):
    """Code is kept by its whole source: two classes of the same field names in another order
    get their own __init__, whatever is kept."""
    kept = tmp_path / "kept.marshal"
    writer = fresh(kept)

    @writer.dataclass(frozen=True)
    class First:
        a: int
        b: str

    writer.write(kept)
    reader = fresh(kept)

    @reader.dataclass(frozen=True)
    class Second:
        b: str
        a: int

    @reader.dataclass(frozen=True)
    class First:  # noqa: F811 (the first one again, read back)
        a: int
        b: str

    assert (Second(1, 2).b, First(1, 2).a) == (1, 1)
    assert len(reader._compiled) >= 4 and set(reader._compiled) == reader._used - writer._used  # Second's alone


def test_the_file_keeps_what_earlier_runs_used_up_to_its_limit(tmp_path, monkeypatch):
    kept = tmp_path / "kept.marshal"
    earlier = {f"# an earlier run's method {n}\n": compile("pass", "<string>", "exec") for n in range(3)}
    kept.write_bytes(marshal.dumps(earlier))
    module = fresh(kept)
    behaves(*classes(module))
    module.write(kept)
    held = fresh(kept)._read(kept)
    assert set(earlier) < held.keys() and set(module._used) < held.keys()
    module.LIMIT = len(module._used) + 3  # room for the three earlier entries, and no more
    module.write(kept)
    assert fresh(kept)._read(kept).keys() == set(earlier) | module._used
    module.LIMIT = len(module._used) + 2  # room for two of them: none are kept
    module.write(kept)
    assert fresh(kept)._read(kept).keys() == set(module._used)


def test_nothing_is_written_without_bytecode_nor_where_the_folder_cannot_be_written(tmp_path, monkeypatch):
    kept = tmp_path / "kept.marshal"
    module = fresh(kept)
    classes(module)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    module.write(kept)
    assert not kept.exists()
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    blocked = tmp_path / "file" / "kept.marshal"
    (tmp_path / "file").write_text("a file where a folder would be\n")
    module.write(blocked)  # no error, and nothing left behind
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_a_class_that_dataclasses_refuses_leaves_its_module_as_it_was(tmp_path):
    module = fresh(tmp_path / "kept.marshal")
    with pytest.raises(TypeError, match="non-default argument"):
        @module.dataclass
        class Wrong:
            a: int = 1
            b: int
    assert not hasattr(dataclasses, "exec")


def test_a_class_made_while_another_is_made_leaves_the_outer_one_as_it_was(tmp_path):
    """dataclasses asks for the signature of a class without a docstring, to write one: here the
    signature makes a class of its own."""
    module = fresh(tmp_path / "kept.marshal")
    inner = []

    class Asks(type):
        @property
        def __signature__(cls):
            if not inner:
                @module.dataclass(frozen=True)
                class Inner:
                    a: int
                inner.append(Inner)
                assert "exec" in vars(dataclasses)  # the outer class's, still
            return None

    @module.dataclass(frozen=True)
    class Outer(metaclass=Asks):
        b: int

    assert (Outer(1).b, inner[0](2).a) == (1, 2) and not hasattr(dataclasses, "exec")


def test_a_second_run_of_a_copied_package_compiles_none_of_its_classes(tmp_path):
    """The real package, copied with its kept file still absent, imported by two processes."""
    shutil.copytree(REPO / "generator", tmp_path / "generator", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path)  # a mutation run's mutants read their settings there
    imports = ("import generator.cli, generator.run, generator.commands.explain, generator.commands.detect; "
               "from generator import records; print(len(records._compiled), len(records._used))")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    runs = [subprocess.run([sys.executable, "-c", imports], cwd=tmp_path, env=env, capture_output=True, text=True,
                           check=True).stdout.split() for _ in range(2)]
    (compiled, used), (again, used_again) = runs
    assert int(compiled) == int(used) >= 300 and used_again == used and again == "0"
    assert (tmp_path / "generator" / "__pycache__" / records.KEPT.name).is_file()


def test_every_class_of_the_package_is_made_by_records_with_a_docstring_of_its_own():
    """dataclasses writes a docstring from inspect.signature for a class without one, as the
    class is made; and a class made by dataclasses' own decorator compiles its methods in
    every run."""
    import pkgutil

    import generator

    made = []
    for found in pkgutil.walk_packages(generator.__path__, "generator."):
        module = importlib.import_module(found.name)
        source = Path(module.__file__).read_text(encoding="utf-8")
        assert not re.search(r"^from dataclasses import .*\bdataclass\b|@dataclasses\.dataclass", source, re.M), \
            found.name
        made += [cls for cls in vars(module).values()
                 if isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == module.__name__]
    assert len(made) >= 80
    unwritten = [f"{cls.__module__}.{cls.__qualname__}" for cls in made if cls.__doc__.startswith(cls.__name__ + "(")]
    assert unwritten == []
