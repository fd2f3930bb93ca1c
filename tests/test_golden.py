"""Rendered recipes of each kind against reviewed copies in tests/golden/.

After an intended template change: `python -m pytest tests/test_golden.py --update-golden`,
then review the diff of tests/golden/ before committing it.
"""

from __future__ import annotations

import pytest

from generator import docs, layout, render

from conftest import REPO, expansion_of

GOLDEN = REPO / "tests" / "golden"
REPRESENTATIVES = [
    "nix/nixpkgs.nix",
    ".flox/pkgs/pytorch-python313-cuda12_8-sm61-avx.nix",  # AVX-only and below sm75: switches off
    ".flox/pkgs/pytorch-python313-cuda12_8-sm90-armv9.nix",  # aarch64 GPU host
    ".flox/pkgs/pytorch-python313-cpu-avx512.nix",
    ".flox/pkgs/pytorch-python313-darwin-mps.nix",
    ".flox/pkgs/torchvision-python313-cuda12_8-sm61-avx.nix",
    ".flox/pkgs/torchaudio-python313-cuda12_8-sm75-avx.nix",
    "BUILD_MATRIX.md",
]


@pytest.fixture(scope="module")
def rendered() -> dict[str, str]:
    expansion = expansion_of(REPO)
    shared = render.shared_nix(expansion.matrix)
    planned = render.recipes(expansion, {}, shared)
    files = render.files(expansion, shared, planned)
    files[docs.BUILD_MATRIX_FILE] = docs.build_matrix(docs.facts(expansion, planned))
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
        assert layout.MARKER in "\n".join(text.splitlines()[:2]), path


def test_folded_templates_render_what_jinja_inheritance_renders(rendered):
    """Recipes render from templates whose `{% extends %}` chains are folded into one (render.fold):
    every recipe must be byte for byte what Jinja's own inheritance renders from the files."""
    expansion = expansion_of(REPO)
    plain = render.environment(True)
    for recipe in render.recipes(expansion, {}, render.shared_nix(expansion.matrix)):
        expected = plain.get_template(recipe.template).render(recipe.context, revision=recipe.entry.revision)
        assert rendered[f"{layout.PKGS_DIR}/{recipe.variant.name}.nix"] == expected, recipe.variant.name


def test_a_folded_template_cannot_call_super(tmp_path):
    import jinja2

    loader = jinja2.DictLoader({"base.j2": "{% block a %}base{% endblock %}",
                                "leaf.j2": '{% extends "base.j2" %}{% block a %}{{ super() }} leaf{% endblock %}',
                                "nested.j2": '{% extends "leaf.j2" %}'})
    env = jinja2.Environment(loader=loader)
    with pytest.raises(ValueError, match="super"):
        render.fold(env, "nested.j2")


def test_folding_keeps_the_most_derived_block_and_its_nested_blocks():
    import jinja2

    loader = jinja2.DictLoader({
        "base.j2": "<{% block outer %}base-outer{% endblock %}|{% block tail %}base-tail{% endblock %}>",
        "mid.j2": '{% extends "base.j2" %}{% block outer %}mid[{% block inner %}mid-inner{% endblock %}]{% endblock %}',
        "leaf.j2": '{% extends "mid.j2" %}{% block inner %}{% if x %}leaf-{{ x }}{% endif %}{% endblock %}'})
    env = jinja2.Environment(loader=loader)
    folded = jinja2.Template.from_code(env, env.compile(render.fold(env, "leaf.j2")), env.make_globals(None))
    for x in ("1", ""):
        assert folded.render(x=x) == env.get_template("leaf.j2").render(x=x)
    assert folded.render(x="1") == "<mid[leaf-1]|base-tail>"
