"""Rendered recipes of each kind against reviewed copies in tests/golden/.

After an intended template change: `python -m pytest tests/test_golden.py --update-golden`,
then review the diff of tests/golden/ before committing it.
"""

from __future__ import annotations

import pytest

from generator import layout, pin
from generator.outputs import docs, workflow
from generator.pipeline import render

from conftest import REPO, expansion_of

GOLDEN = REPO / "tests" / "golden"
REPRESENTATIVES = [
    "nix/pins.nix",
    ".flox/pkgs/pytorch-python313-cuda12_8-sm61-avx.nix",  # AVX-only and below sm75: switches off
    ".flox/pkgs/pytorch-python313-cuda12_8-sm90-armv9.nix",  # aarch64 GPU host
    ".flox/pkgs/pytorch-python313-cpu-avx512.nix",
    ".flox/pkgs/pytorch-python313-darwin-mps.nix",
    ".flox/pkgs/torchvision-python313-cuda12_8-sm61-avx.nix",
    ".flox/pkgs/torchaudio-python313-cuda12_8-sm75-avx.nix",
    "BUILD_MATRIX.md",
]


# Rendered for each test, not once per module: mutation testing (scripts/mutation.py) runs,
# for a mutated function, the tests that called it, and a module fixture's calls count for
# the first test alone.
@pytest.fixture
def rendered() -> dict[str, str]:
    expansion = expansion_of(REPO)
    planned = render.recipes(expansion, {}, REPO)
    files = render.files(expansion, planned)
    files[layout.BUILD_MATRIX_FILE] = docs.build_matrix(docs.facts(expansion, planned))
    files.update(workflow.render(expansion, pin.of(REPO, None)))
    return files


@pytest.mark.parametrize("path", REPRESENTATIVES)
def test_rendered_output_matches_golden(path, rendered, update_golden):
    golden = GOLDEN / path.replace("/", "__").lstrip(".")
    if update_golden:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(rendered[path], encoding="utf-8")
    assert golden.exists(), f"{golden} is missing: run pytest with --update-golden and review it"
    assert rendered[path] == golden.read_text(encoding="utf-8"), (
        f"{path} differs from {golden.name}; if the change is intended, rerun with --update-golden")


def test_every_generated_file_starts_with_the_header(rendered):
    for path, text in rendered.items():
        # The Nix library is gen-matrix's own, copied as it is: it says so instead.
        marker = layout.LIBRARY_MARKER if path.startswith(("nix/lib/", "nix/fixes/")) else layout.MARKER
        assert marker in "\n".join(text.splitlines()[:2]), path



def test_a_value_a_template_was_not_given_stops_the_run_rather_than_writing_nothing():
    """Markdown, scripts and the workflow: no Nix escaping to stop an undefined value there."""
    import jinja2

    from generator.templating import environment

    with pytest.raises(jinja2.UndefinedError):
        environment(False).get_template("readme-gpus.md.j2").render()


def test_every_file_of_the_nix_library_is_written_as_it_is(rendered):
    """A repository gets the whole library its recipes call: each Nix file of nix/lib and
    nix/fixes, byte for byte, and nothing else under them."""
    import os

    shipped = {f"nix/{folder}/{name}" for folder in ("lib", "fixes") for name in os.listdir(REPO / "nix" / folder)
               if name.endswith(".nix")}
    library = {path: text for path, text in rendered.items() if path.startswith(("nix/lib/", "nix/fixes/"))}
    assert library == {path: (REPO / path).read_bytes().decode("utf-8") for path in shipped}


def test_a_torch_source_reaches_the_build_as_torch_nix_reads_it(tmp_path):
    """torch.nix takes `inherit (source) owner repo rev hash`: those four, as the matrix has them."""
    (tmp_path / "matrix.yaml").write_text(
        'pytorch: {version: "2.8.0", source: {owner: me, repo: torch-fork, rev: v2.8.0-mine,\n'
        '                                     hash: "sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}}\n'
        "nixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}\n"
        'cpu: {python: ["3.13"], isa: [avx2]}\n')
    expansion = expansion_of(tmp_path)
    (variant,) = expansion.variants
    assert render.torch_build(expansion.matrix, variant)["source"] == {
        "owner": "me", "repo": "torch-fork", "rev": "v2.8.0-mine",
        "hash": "sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}


def test_a_pin_reaches_nix_pins_nix_as_pins_nix_reads_it(tmp_path):
    """Config values as they are (a list as a list), each patch as the url and hash fetchpatch takes."""
    (tmp_path / "matrix.yaml").write_text(
        'pytorch: {version: "2.8.0"}\n'
        "nixpkgs:\n  pins:\n"
        "    - {name: mine, rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3,\n"
        '       config: {names: [a, b], flag: false, text: xy, number: 3},\n'
        '       patches: {magma: [{url: "https://example.org/m.patch", hash: "sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}]}}\n'
        'cpu: {python: ["3.13"], isa: [avx2]}\n')
    expansion = expansion_of(tmp_path)
    import json

    assert json.loads(json.dumps(render.pin_data(expansion.matrix, "mine"))) == {
        "rev": "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3", "sha256": None,
        "config": {"names": ["a", "b"], "flag": False, "text": "xy", "number": 3},
        "patches": {"magma": [{"url": "https://example.org/m.patch",
                               "hash": "sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}]}}
