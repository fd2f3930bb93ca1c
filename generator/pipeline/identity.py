"""Build identities: what each variant's derivations are made from, as one SHA-256 each.

A variant is two derivations (see state.py): the heavy build and the published wrapper over
it. The heavy build's identity hashes the values that go into it, its pin and fixes, and
the text of the Nix library files and templates that make it, read as Nix reads them
(nixtext.significant: a comment or a reformat changes nothing). Which library files those
are is read from the library itself: the files the entry point (nix/lib/default.nix)
reaches from its `torch` or `companion` function through `import ./x.nix`, and from the
files they import. The wrapper (wrapper.nix) has an identity of its own, so that a change
to it rebuilds no torch.
"""

from __future__ import annotations

import json
import re
from dataclasses import field
from json.encoder import c_make_encoder, encode_basestring_ascii
from pathlib import Path

from .. import layout
from ..errors import GenMatrixError, Location
from ..model import Matrix
from . import load, nixtext, state
from ..records import dataclass
from .digest import sha256

_JINJA_COMMENT = re.compile(r"\{#.*?#\}", re.DOTALL)
# The recipe templates, by the library function they call: a recipe is that call.
TEMPLATES = (("torch", "templates/torch.nix.j2"), ("companion", "templates/companion.nix.j2"))
# nix/pins.nix, which the library imports, is rendered from this template.
PINS_TEMPLATE = "templates/pins.nix.j2"
ENTRY = "lib/default.nix"
WRAPPER = "lib/wrapper.nix"



# One encoder for every identity, as json.dumps keeps one for its defaults: dumps with options
# makes an encoder each call, and a run takes two identities a variant.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"))
# JSONEncoder.encode makes its C encoder, and the functions around it, anew on each call: this
# is the encoder it makes, made once for the run. It keeps no record of the containers it is
# in (markers None), which only catches a value that holds itself: an identity's data is made
# of the matrix's and the knowledge's values, none of which does.
_ENCODE = None if c_make_encoder is None else c_make_encoder(
    None, _CANONICAL.default, encode_basestring_ascii, None, _CANONICAL.key_separator,
    _CANONICAL.item_separator, _CANONICAL.sort_keys, _CANONICAL.skipkeys, _CANONICAL.allow_nan)


def canonical(value) -> str:
    if _ENCODE is None:  # a Python without json's C module
        return _CANONICAL.encode(value)
    return "".join(_ENCODE(value, 0))


# --- which files an identity is made from ---------------------------------------------------

def _reached(path: str, source: str) -> str | None:
    """The identity source that path literal `path`, written in library file `source`, names;
    None for a folder (nix/fixes: a variant's fixes are sources of its own)."""
    target = Path(source).parent.joinpath(path).as_posix()  # without its "." and empty parts
    parts = []
    for part in target.split("/"):
        if part != "..":
            parts.append(part)
        elif not parts:  # above nix/: nothing gen-matrix writes
            return None
        else:
            parts.pop()
    target = "/".join(parts)
    if target.startswith("lib/") and target.endswith(".nix"):
        return target
    if target == layout.PINS_FILE.removeprefix("nix/"):
        return PINS_TEMPLATE
    return None


@dataclass(frozen=True)
class Library:
    """The import graph of the Nix library: for each file, the sources its code names."""

    imports: dict  # "lib/x.nix" -> tuple of sources, in the order the file names them
    functions: dict  # "torch" / "companion" -> the sources default.nix's function names, in order

    @classmethod
    def of(cls, texts: dict) -> "Library":
        """The graph of the library files `texts` ("lib/x.nix" -> its text)."""
        imports = {}
        for name, text in sorted(texts.items()):
            found = (_reached(p, name) for p in nixtext.PATH.findall(nixtext.code(text)))
            imports[name] = tuple(dict.fromkeys(p for p in found if p))
        code = nixtext.code(texts[ENTRY])
        # { args }: let BINDINGS in { FUNCTIONS }
        bindings_text, body = nixtext.outer_let(code)
        bindings = nixtext.bindings(bindings_text)
        functions = {name: tuple(cls._names(value, bindings, ())) for name, value in
                     nixtext.bindings(body.strip().removeprefix("{")).items()}  # the closing } follows the last ;
        return cls(imports, functions)

    @staticmethod
    def _names(text: str, bindings: dict, seen: tuple) -> list[str]:
        """The sources `text` of default.nix names, through the let bindings it uses, in order."""
        found = []
        for match in re.finditer(f"{nixtext.PATH.pattern}|{nixtext.NAME.pattern}", text):
            token = match.group()
            if token.startswith("."):
                source = _reached(token, ENTRY)
                if source:
                    found.append(source)
            elif token in bindings and token not in seen:
                found.extend(Library._names(bindings[token], bindings, seen + (token,)))
        return found

    def closure(self, *roots: str) -> list[str]:
        """`roots` and every library file they import, in the order they are reached."""
        reached: list[str] = []

        def visit(name: str) -> None:
            if name not in reached:
                reached.append(name)
                for imported in self.imports.get(name, ()):
                    visit(imported)
        for root in roots:
            visit(root)
        return reached

    def sources(self, function: str) -> tuple[str, ...]:
        """What the heavy build of `function` ("torch", "companion") is made from: the entry
        point and the library files it reaches (the wrapper aside), then its template, then
        the pins' template when the library reads the pins for it."""
        reached = [ENTRY, *self.closure(*(s for s in self.functions[function] if s != WRAPPER))]
        files = [s for s in reached if s.startswith("lib/")]
        return (*files, dict(TEMPLATES)[function], *(s for s in reached if s == PINS_TEMPLATE))

    def wrapper_sources(self) -> tuple[str, ...]:
        return (ENTRY, *self.closure(WRAPPER))


def _library_texts() -> dict[str, str]:
    return {f"lib/{path.name}": path.read_text(encoding="utf-8") for path in sorted((layout.LIBRARY / "lib").glob("*.nix"))}


def library() -> Library:
    """The import graph of gen-matrix's Nix library."""
    return Library.of(_library_texts())


# --- the sources' text --------------------------------------------------------------------

@dataclass(frozen=True)
class Sources:
    """The Nix and template text build identities are made from, read once per run, in the
    form Nix reads it (nixtext.significant): a comment or reformat changes no identity."""

    files: dict  # name -> significant text: "lib/torch.nix", "fixes/x.nix", "templates/torch.nix.j2"
    library: Library
    made_of: dict  # "torch" / "companion" -> library.sources of it: the same for every variant
    # a hasher fed with the text of these names, by names: thousands of variants are made from
    # the same few sets of files, which are hashed once each, then copied
    _hashed: dict = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def read(cls, root: Path, fixes: set[str]) -> "Sources":
        texts = _library_texts()
        files = {name: nixtext.significant(text) for name, text in texts.items()}
        for stem in sorted(fixes):
            # the repository's own fix files are the user's: read as any input, bounded, UTF-8 checked
            name = f"nix/fixes/{stem}.nix"
            text = load.read_text(fix_file(root, stem), name, hint=f"write {name} as UTF-8 Nix, or remove its fix")
            files[f"fixes/{stem}.nix"] = nixtext.significant(text or "")
        for name in (*(template for _, template in TEMPLATES), PINS_TEMPLATE):
            text = _JINJA_COMMENT.sub("", (layout.TEMPLATES / name.removeprefix("templates/")).read_text(encoding="utf-8"))
            files[name] = nixtext.significant(text)
        library = Library.of(texts)
        return cls(files, library, {function: library.sources(function) for function, _ in TEMPLATES})

    def digest(self, *names: str, data=None, more: tuple[str, ...] = ()) -> str:
        if names not in self._hashed:
            self._hashed[names] = sha256(*(f"{name}\0{self.files[name]}\0" for name in names))
        hasher = self._hashed[names].copy()
        for chunk in (canonical(data), *(f"\0{part}" for part in more)):
            hasher.update(chunk.encode("utf-8"))
        return hasher.hexdigest()


def torch(sources: Sources, fixes: tuple[str, ...], pin: dict, build: dict) -> str:
    """A torch variant's heavy build: `fixes` by stem, `pin` as nix/pins.nix holds it, `build`
    as nix/lib/torch.nix takes it. The pin's sha256 is left out: fetchTarball names what it
    unpacks by its content, so a hash filled in for the same rev fetches the same store path,
    and no derivation built on it changes. (A wrong hash fails the fetch, which `gen-matrix
    eval` reports.) It stays null, as it was before one was filled in, so that identities
    recorded then still hold."""
    return sources.digest(*sources.made_of["torch"], *(f"fixes/{stem}.nix" for stem in fixes),
                          data={"pin": dict(pin, sha256=None), "build": build})


def companion(sources: Sources, package: str, build: dict, torch_identity: str) -> str:
    """A companion's heavy build, which includes its torch's."""
    return sources.digest(*sources.made_of["companion"], data={"package": package, "build": build},
                          more=(torch_identity,))


def wrapper(sources: Sources) -> str:
    """The wrapper's own code, the same for every variant."""
    return sources.digest(*sources.library.wrapper_sources())


def metadata(meta: dict) -> str:
    """What only the wrapper carries: descriptions and platforms."""
    return state.digest(canonical(meta))


# --- fixes -----------------------------------------------------------------------------

def shipped_fixes() -> set[str]:
    """The fixes gen-matrix ships in its library (and writes into nix/fixes/)."""
    return {path.stem for path in (layout.LIBRARY / "fixes").glob("*.nix")}


def fix_file(root: Path, stem: str) -> Path:
    """A fix's Nix file: gen-matrix's own, or one the matrix's repository keeps in nix/fixes/."""
    if stem in shipped_fixes():
        return layout.LIBRARY / "fixes" / f"{stem}.nix"
    return root / "nix" / "fixes" / f"{stem}.nix"


def check_fixes(matrix: Matrix, root: Path, stems: set[str]) -> None:
    """Every fix a variant uses has its file: gen-matrix's own, or the repository's."""
    absent = sorted(stem for stem in stems if not fix_file(root, stem).is_file())
    if absent:
        raise GenMatrixError.at(Location(matrix.file), f"no file for the fix '{absent[0]}': nix/fixes/{absent[0]}.nix",
                                "write the fix there (a set with config, overlay or torch, as gen-matrix's own "
                                "fixes are), or remove its row under knowledge.fixes")
