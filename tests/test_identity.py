"""Which files each build identity is made from: read from the Nix library's imports.

A file left out of an identity lets an edit to it publish builds that were never rebuilt; a
file put into the wrong one rebuilds torch for a wrapper change. The sets are derived from
nix/lib/default.nix and the `import ./x.nix` of each library file; these tests pin what the
derivation must find, check it against Nix's own parser, and show that a new import joins
the identity without any list to update.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from generator import layout
from generator.pipeline import identity

from conftest import REPO, needs_nix

TORCH = ("lib/default.nix", "lib/nixpkgs.nix", "lib/refuse.nix", "lib/torch.nix", "lib/compile.nix",
         "templates/torch.nix.j2", "templates/pins.nix.j2")
COMPANION = ("lib/default.nix", "lib/companion.nix", "lib/refuse.nix", "lib/compile.nix", "templates/companion.nix.j2")
WRAPPER = ("lib/default.nix", "lib/wrapper.nix")


def test_each_identity_is_made_from_the_library_files_its_function_reaches():
    library = identity.library()
    # in this order: identities recorded in matrix.state.json hash the files in it
    assert library.sources("torch") == TORCH
    assert library.sources("companion") == COMPANION
    assert library.wrapper_sources() == WRAPPER


# Library files no build reads: flake.nix's checks run `gen-matrix smoke` on a build with it, so
# that a change to it rebuilds nothing.
CHECKS_ONLY = {"lib/smoke.nix"}


def test_every_library_file_is_in_an_identity_and_the_wrapper_in_no_heavy_build():
    every = {f"lib/{path.name}" for path in (REPO / "nix" / "lib").glob("*.nix")}
    library = identity.library()
    heavy = set(library.sources("torch")) | set(library.sources("companion"))
    assert every - CHECKS_ONLY <= heavy | set(library.wrapper_sources())
    assert not CHECKS_ONLY & (heavy | set(library.wrapper_sources()))
    assert "lib/wrapper.nix" not in heavy
    assert "lib/companion.nix" not in library.sources("torch")


def test_fix_files_are_in_the_identity_of_the_variants_that_use_them_only():
    sources = identity.Sources.read(REPO, identity.shipped_fixes())
    build = {"python": "3.13"}
    pin = {"rev": "x", "sha256": None, "config": {}, "patches": {}}
    plain = identity.torch(sources, (), pin, build)
    for stem in sorted(identity.shipped_fixes()):
        assert identity.torch(sources, (stem,), pin, build) != plain, stem
    assert not any(name.startswith("fixes/") for name in identity.library().sources("companion"))


def test_the_files_hashed_once_a_run_give_every_variant_the_identity_a_run_of_its_own_would():
    """A run hashes each set of files (the library, a variant's fixes) once and hands a copy to
    every variant made from the same set: whatever variants came before, each gets the identity
    it would get alone, for torches with several sets of fixes and for companions."""
    stems = sorted(identity.shipped_fixes())
    pin = {"rev": "x", "sha256": None, "config": {}, "patches": {}}
    shared = identity.Sources.read(REPO, set(stems))
    made = set()
    for fixes in [(), (stems[0],), (stems[0], stems[1]), (stems[1],), (), (stems[0], stems[1])]:
        for build in ({"python": "3.12"}, {"python": "3.13"}):
            alone = identity.Sources.read(REPO, set(stems))
            torch = identity.torch(shared, fixes, pin, build)
            assert torch == identity.torch(alone, fixes, pin, build), (fixes, build)
            companion = identity.companion(shared, "torchvision", build, torch)
            assert companion == identity.companion(identity.Sources.read(REPO, set()), "torchvision", build, torch)
            made.update((torch, companion))
    assert len(made) == 2 * 2 * 4  # two builds, four sets of fixes, a torch and a companion each
    assert identity.wrapper(shared) == identity.wrapper(identity.Sources.read(REPO, set()))


@needs_nix
@pytest.mark.parametrize("name", sorted(p.name for p in (REPO / "nix" / "lib").glob("*.nix")))
def test_the_imports_read_are_those_nix_parses(name):
    parsed = subprocess.run(["nix-instantiate", "--parse", str(layout.LIBRARY / "lib" / name)],
                            check=True, capture_output=True, text=True).stdout
    nix = str(layout.LIBRARY.resolve())
    named = set()
    for path in re.findall(re.escape(nix) + r"/[\w./+-]*", parsed):
        relative = path[len(nix) + 1:]
        named.add("templates/pins.nix.j2" if relative == "pins.nix" else relative)
    named.discard("fixes")  # the folder of fixes: each variant's fixes are sources of their own
    assert named == set(identity.library().imports[f"lib/{name}"])


@pytest.fixture
def library_copy(tmp_path, monkeypatch) -> Path:
    copy = tmp_path / "nix"
    shutil.copytree(layout.LIBRARY, copy)
    monkeypatch.setattr(layout, "LIBRARY", copy)
    return copy


def test_a_file_torch_nix_starts_importing_joins_the_torch_identity_alone(library_copy):
    (library_copy / "lib" / "flags.nix").write_text("{ }: { }\n")
    torch = library_copy / "lib" / "torch.nix"
    text = torch.read_text()
    torch.write_text(text.replace("  exports = ", "  flags = import ./flags.nix { };\n  exports = ", 1))
    library = identity.library()
    assert "lib/flags.nix" in library.sources("torch")
    assert "lib/flags.nix" not in library.sources("companion") + library.wrapper_sources()


def test_a_file_named_only_in_a_string_or_a_comment_is_no_import(library_copy):
    (library_copy / "lib" / "flags.nix").write_text("{ }: { }\n")
    wrapper = library_copy / "lib" / "wrapper.nix"
    text = wrapper.read_text()
    assert "mkdir -p $out" in text
    # a comment, and a shell comment inside the build script's string
    wrapper.write_text("# import ./flags.nix\n" + text.replace("mkdir -p $out", "mkdir -p $out # ./flags.nix", 1))
    assert "lib/flags.nix" not in identity.library().wrapper_sources()


def test_an_edit_to_the_package_set_file_changes_torch_and_not_the_wrapper(library_copy):
    before = identity.Sources.read(REPO, set())
    nixpkgs = library_copy / "lib" / "nixpkgs.nix"
    nixpkgs.write_text(nixpkgs.read_text() + "\n")  # layout only: no identity changes
    same = identity.Sources.read(REPO, set())
    nixpkgs.write_text(nixpkgs.read_text().replace("\nin\n", "\nin\nassert true;\n", 1))
    after = identity.Sources.read(REPO, set())
    pin = {"rev": "x", "sha256": None, "config": {}, "patches": {}}
    assert identity.torch(same, (), pin, {}) == identity.torch(before, (), pin, {})
    assert identity.torch(after, (), pin, {}) != identity.torch(before, (), pin, {})
    assert identity.wrapper(after) == identity.wrapper(before)


@pytest.mark.parametrize("source, code", [
    ('import ./a.nix { s = "./b.nix"; }', 'import ./a.nix { s = ""; }'),
    ("x = ''\n  cp ./b.nix $out # ./c.nix\n'';", "x = '''';"),
    ('x = "${import ./a.nix} and ./b.nix";', 'x = "${import ./a.nix}";'),
    ("x = ''${toString ./a.nix} ''${./b.nix}'';", "x = ''${toString ./a.nix}'';"),
    ('x = "\\" ./b.nix";  # ./c.nix\n/* ./d.nix */ y = ./e.nix;', 'x = ""; y = ./e.nix;'),
])
def test_code_is_what_nix_reads_as_code_without_the_text_of_strings(source, code):
    from generator.pipeline import nixtext

    assert nixtext.code(source) == code


def test_the_identities_recorded_in_the_repository_are_those_the_code_computes():
    """How an identity is hashed is part of every recorded one: a change to it (key order,
    separators, a field's name) would rebuild every variant of every repository. The shipped
    matrix.state.json was written by this code, so the identities computed now are its own."""
    from conftest import expansion_of
    from generator.pipeline import render, state

    recorded = state.read(REPO).entries
    planned = render.recipes(expansion_of(REPO), recorded, REPO)
    assert {r.variant.name: r.entry for r in planned} == recorded


def test_a_fix_without_its_file_is_named_with_where_to_write_it(tmp_path):
    from conftest import expansion_of
    from generator.errors import GenMatrixError

    matrix = expansion_of(REPO).matrix
    (tmp_path / "nix" / "fixes").mkdir(parents=True)
    (tmp_path / "nix" / "fixes" / "here.nix").write_text("{ }\n")
    identity.check_fixes(matrix, tmp_path, {"here", *identity.shipped_fixes()})  # gen-matrix's own, and the repository's
    with pytest.raises(GenMatrixError) as error:
        identity.check_fixes(matrix, tmp_path, {"here", "zz-mine", "aa-mine"})
    assert str(error.value) == (
        f"{matrix.file}: no file for the fix 'aa-mine': nix/fixes/aa-mine.nix\n  hint: write the fix there (a set with "
        "config, overlay or torch, as gen-matrix's own fixes are), or remove its row under knowledge.fixes")


def test_the_files_a_function_reaches_through_let_bindings_are_read_however_the_entry_is_written():
    """The entry point read as Nix reads it: a binding without spaces around `=`, one whose
    value is a bare path, a list or a let of its own, a set's first attribute right after its
    brace. The files
    come in the order the function names them, which is the order they are hashed in."""
    entry = """{ nixpkgs ? null }:
let
  first = import ./first.nix;
  list = [ ./listed.nix ];
  same = x: x == 1;
  tight=import ./tight.nix;
  bare=./bare.nix;
  pins = import ../pins.nix;
  nested = let inner = ./nested.nix; in inner;
in
{torch = args: import ./torch.nix { inherit first tight same bare list pins nested; } args;
  companion = args: import ./companion.nix { fixes = ../fixes; outside = ../../x.nix; } args;
  wrapper = import ./wrapper.nix;
}
"""
    library = identity.Library.of({"lib/default.nix": entry})
    assert library.functions == {
        "torch": ("lib/torch.nix", "lib/first.nix", "lib/tight.nix", "lib/bare.nix", "lib/listed.nix",
                  "templates/pins.nix.j2", "lib/nested.nix"),
        # nix/fixes is a folder, whose files are sources of the variants that use them
        "companion": ("lib/companion.nix",), "wrapper": ("lib/wrapper.nix",)}


def test_every_field_a_recipe_gives_its_heavy_build_is_in_its_identity():
    """Each value torch.nix or companion.nix takes reaches the identity, and so does the torch
    under a companion, even where the torch's identity holds the same value (a companion's
    systemFeatures is its torch's today): an identity that left one out would miss a rebuild
    as soon as the two differ."""
    from conftest import expansion_of
    from generator.pipeline import render

    expansion = expansion_of(REPO)
    sources = identity.Sources.read(REPO, set())
    variant = next(v for v in expansion.variants if v.is_companion)
    build = {"systemFeatures": list(expansion.matrix.system_features)}
    base = identity.companion(sources, variant.package, build, "torch-identity")
    for key in build:
        assert identity.companion(sources, variant.package, dict(build, **{key: ["other"]}), "torch-identity") != base, key
    assert identity.companion(sources, "torchaudio" if variant.package != "torchaudio" else "torchvision", build,
                              "torch-identity") != base
    assert identity.companion(sources, variant.package, build, "another torch") != base
    torch = next(v for v in expansion.variants if not v.is_companion and v.sm is not None)
    build = render.torch_build(expansion.matrix, torch)
    pin = render.pin_data(expansion.matrix, torch.pin)
    base = identity.torch(sources, (), pin, build)
    for key, value in build.items():
        assert identity.torch(sources, (), pin, dict(build, **{key: ["other", value]})) != base, key
    for key in ("rev", "config", "patches"):
        assert identity.torch(sources, (), dict(pin, **{key: "other"}), build) != base, key


@pytest.mark.parametrize("value", [
    {"b": ("5.0", "8.6"), "a": {"y": None, "x": [True, 1, 2.5, -0.0, 1e300]}, "c": ""},
    {"description": "PyTorch for \"Hopper\"\nGPUs: H100", "é": "Grace\u2028, \x7f, \U0001f600"},
    "text alone\n", [], {}, 3, 3.0,
])
def test_an_identity_is_the_json_of_its_data_with_sorted_keys_and_no_spaces(value):
    """canonical() makes its encoder once for the run: what it writes is what json.dumps
    writes with sorted keys, ASCII only, and no spaces, whatever the value."""
    import json

    assert identity.canonical(value) == json.dumps(value, sort_keys=True, separators=(",", ":"))
    assert identity.canonical(value) == identity.canonical(value)  # the same, every time
