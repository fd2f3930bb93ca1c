"""BUILD_MATRIX.md and the README's generated tables."""

from __future__ import annotations

import re

import pytest
import tomlkit
from hypothesis import given, settings, strategies as st

from generator.outputs import docs, splice
from generator.errors import GenMatrixError
from generator.layout import HEADER

from conftest import REPO


def section_rows(text: str, title: str) -> list[str]:
    """The table rows (less header) under a '### title (N)' heading, and N."""
    match = re.search(rf"^### {re.escape(title)} \((\d+)\)\n\n(.*?)(?:\n\n|\Z)", text, re.S | re.M)
    rows = match[2].splitlines()[2:]
    assert len(rows) == int(match[1])
    return [row.split("`")[1] for row in rows]


def test_build_matrix_lists_exactly_the_recipes():
    text = (REPO / "BUILD_MATRIX.md").read_text()
    assert text.splitlines()[0] == f"<!-- {HEADER} -->"
    files = sorted(p.stem for p in (REPO / ".flox/pkgs").glob("*.nix"))
    listed = (section_rows(text, "NVIDIA GPU (CUDA)") + section_rows(text, "CPU only")
              + section_rows(text, "Apple Silicon"))
    companions = re.search(r"^## Companions \((\d+)\)$", text, re.M)
    companion_names = re.findall(r"^\| `((?:torchvision|torchaudio)-[^`]+)` \| `pytorch-", text, re.M)
    assert int(companions[1]) == len(companion_names) == 4
    assert sorted(listed + companion_names) == files
    assert f"{len(files)} recipes in `.flox/pkgs/`" in text


def test_build_matrix_follows_the_matrix(project, run):
    path = project / "matrix.yaml"
    path.write_text(path.read_text().replace("sm: [sm61, sm75, sm80,", "sm: [sm75, sm80,"))
    assert run("--root", project).exit_code == 0
    text = (project / "BUILD_MATRIX.md").read_text()
    assert len(section_rows(text, "NVIDIA GPU (CUDA)")) == 49
    assert "| sm61 |" not in text and "## Companions (2)" in text
    assert "58 recipes in `.flox/pkgs/`" in text
    assert len(list((project / ".flox/pkgs").glob("*.nix"))) == 58


def test_build_matrix_shows_sm_and_isa_facts():
    text = (REPO / "BUILD_MATRIX.md").read_text()
    assert "| sm61 | 6.1 | Pascal | GeForce GTX 1070, " in text
    assert "| 10.0 | 12.9 | 12.8 | 570.26 | 2 |" in text  # min CUDA, last CUDA, CUDA here, driver, variants
    assert '- avx2: `for f in avx2 fma f16c; do grep -qw "$f" /proc/cpuinfo || echo "missing: $f"; done`' in text
    assert "| avx | x86_64 | Intel Sandy Bridge, Intel Ivy Bridge, AMD Bulldozer | `-mavx -mno-fma" in text
    assert "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3" in text


BLOCKS = {"one": "new one\n", "two": "new two\n"}


def test_splice_replaces_only_between_markers():
    text = ("# Title\r\n\r\nkept  \t\n<!-- gen-matrix:begin one -->\nold\nold\n<!-- gen-matrix:end one -->\n"
            "between\n  <!-- gen-matrix:begin two -->  \n<!-- gen-matrix:end two -->\ntail without newline")
    assert docs.splice(text, "README.md", BLOCKS) == (
        "# Title\r\n\r\nkept  \t\n<!-- gen-matrix:begin one -->\nnew one\n<!-- gen-matrix:end one -->\n"
        "between\n  <!-- gen-matrix:begin two -->  \nnew two\n<!-- gen-matrix:end two -->\ntail without newline")


def test_splice_ignores_markers_in_code_and_prose():
    text = ("Write `<!-- gen-matrix:begin one -->` around a block.\n```\n<!-- gen-matrix:begin one -->\n```\n")
    assert docs.splice(text, "README.md", BLOCKS) == text


@pytest.mark.parametrize("text, line, message", [
    ("a\n<!-- gen-matrix:begin one -->\nb\n", 2, "block 'one' has no end marker"),
    ("a\nb\n<!-- gen-matrix:end one -->\n", 3, "end marker 'one' without a begin marker"),
    ("<!-- gen-matrix:begin three -->\n<!-- gen-matrix:end three -->\n", 1, "unknown gen-matrix block 'three'"),
    ("<!-- gen-matrix:begin one -->\n<!-- gen-matrix:begin two -->\n", 2, "begin marker 'two' inside block 'one'"),
    ("<!-- gen-matrix:begin one -->\n<!-- gen-matrix:end two -->\n", 2, "end marker 'two' closes block 'one'"),
    ("x\n<!-- gen-matrix:begin -->\n", 2, "malformed gen-matrix marker"),
])
def test_bad_markers_are_located_errors(text, line, message):
    with pytest.raises(GenMatrixError) as error:
        docs.splice(text, "README.md", BLOCKS)
    assert any(p.where.line == line and p.message.startswith(message) for p in error.value.problems), error.value


def test_readme_blocks_are_filled_and_the_rest_kept(project, run):
    readme = project / "README.md"
    mine = "# My builds\n\nSome words   with spaces.\n\n<!-- gen-matrix:begin variants -->\n" \
           "stale\n<!-- gen-matrix:end variants -->\n\nMore of mine.\n"
    readme.write_text(mine)
    assert run("--root", project).exit_code == 0
    text = readme.read_text()
    assert text.startswith("# My builds\n\nSome words   with spaces.\n\n<!-- gen-matrix:begin variants -->\n| kind |")
    assert text.endswith("| **total recipes** | | | **62** |\n<!-- gen-matrix:end variants -->\n\nMore of mine.\n")
    assert "stale" not in text
    assert "0 written" in run("--root", project).stdout


def test_readme_drift_between_markers_is_caught_by_check(project, run):
    (project / "README.md").write_text("<!-- gen-matrix:begin gpus -->\n<!-- gen-matrix:end gpus -->\n")
    assert run("--root", project).exit_code == 0
    path = project / "README.md"
    path.write_text(path.read_text().replace("| sm90 | Hopper |", "| sm90 | Hoppr |"))
    result = run("check", "--root", project)
    assert result.exit_code == 1 and "-| sm90 | Hoppr |" in result.stdout and "+| sm90 | Hopper |" in result.stdout


def test_bad_marker_in_the_readme_stops_everything(project, run):
    readme = project / "README.md"
    readme.write_text("# Mine\n\n<!-- gen-matrix:begin variants -->\nold\n")
    result = run("--root", project)
    assert result.exit_code == 2
    assert "README.md:3: block 'variants' has no end marker" in result.stderr
    assert "Traceback" not in result.output
    assert sorted(p.name for p in project.iterdir()) == ["README.md", "matrix.yaml"]
    assert readme.read_text() == "# Mine\n\n<!-- gen-matrix:begin variants -->\nold\n"


def test_readme_without_markers_or_absent_is_left_alone(project, run):
    assert run("--root", project).exit_code == 0
    assert not (project / "README.md").exists()
    (project / "README.md").write_text("just mine\n")
    assert run("--root", project).exit_code == 0
    assert (project / "README.md").read_text() == "just mine\n"


def test_shipped_readme_has_the_blocks():
    text = (REPO / "README.md").read_text()
    for name in docs.readme_blocks():
        assert f"<!-- gen-matrix:begin {name} -->\n| " in text
    assert "| **total recipes** | | | **62** |" in text

# Lines a user may write: anything that is not a marker line, any line ending.
user_lines = st.lists(
    st.tuples(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), max_size=30)
              .filter(lambda line: not line.lstrip().startswith("<!-- gen-matrix:")
                      and not line.lstrip().startswith(("```", "~~~"))),  # fences: see below
              st.sampled_from(["\n", "\r\n"])).map("".join),
    max_size=8).map("".join)


@given(before=user_lines, inside=user_lines, after=user_lines)
def test_splice_keeps_every_byte_outside_the_block(before, inside, after):
    begin, end = "<!-- gen-matrix:begin one -->\n", "<!-- gen-matrix:end one -->\n"
    assert docs.splice(before + begin + inside + end + after, "README.md", BLOCKS) == (
        before + begin + BLOCKS["one"] + end + after)
    assert docs.splice(before + after, "README.md", BLOCKS) == before + after


_OPENING = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
_CLOSING = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*$")


def commonmark_code_lines(lines: list[str]) -> set[int]:
    """The code lines of a document of top-level lines, by CommonMark's rules for fences
    (spec 0.31.2, 4.5), written out here apart from the parser the splicer uses: an opening
    fence is three or more backticks or tildes indented at most three spaces (a backtick
    fence's info string holds no backtick); only a fence of the same character, at least as
    long, with nothing after it but spaces and tabs, closes it; one never closed runs to the end."""
    code, fence = set(), None
    for number, line in enumerate(lines, 1):
        if fence is None:
            found = _OPENING.match(line)
            if found and not (found[2][0] == "`" and "`" in found[3]):
                fence = (found[2][0], len(found[2]))
                code.add(number)
        else:
            code.add(number)
            found = _CLOSING.match(line)
            if found and found[1][0] == fence[0] and len(found[1]) >= fence[1]:
                fence = None
    return code


def spliced_by_the_rules(text: str) -> str | None:
    """What splice gives for `text`, from the fence rules above; None where it must refuse."""
    lines = splice.LINES.findall(text)
    code = commonmark_code_lines([line.rstrip("\r\n") for line in lines])
    out, opened, seen = [], None, set()
    for number, line in enumerate(lines, 1):
        bare = line.rstrip("\r\n")
        marker = None if number in code else re.fullmatch(r" {0,3}<!-- gen-matrix:(begin|end) (one|two) --> *", bare)
        if marker is None:
            if opened is None:
                out.append(line)
            continue
        if marker[1] == "begin":
            if opened is not None or marker[2] in seen:  # a block is filled once: a second is refused
                return None
            out.append(line)
            opened = marker[2]
            seen.add(opened)
        else:
            if opened != marker[2]:
                return None
            out += [BLOCKS[opened], line]
            opened = None
    return None if opened is not None else "".join(out)


# Lines of a README where fences and markers meet: prose (no Markdown container starts in it,
# so that every fence is at the top level), fences of either kind, any length, indented or
# not, with and without an info string, and markers, in or out of them.
_PROSE = st.text(alphabet="abc xyz.,!", max_size=12)
_FENCE_LINE = st.builds(lambda indent, char, length, info, trail: " " * indent + char * length + info + trail,
                        st.integers(0, 5), st.sampled_from("`~"), st.integers(2, 6),
                        st.sampled_from(["", "python", " yaml", "a`b", "~~~", "```"]), st.sampled_from(["", " ", "\t"]))
_MARKER_LINE = st.builds(lambda indent, action, name: f"{' ' * indent}<!-- gen-matrix:{action} {name} -->",
                         st.integers(0, 4), st.sampled_from(["begin", "end"]), st.sampled_from(["one", "two"]))
_README = st.lists(st.tuples(st.one_of(_PROSE, _FENCE_LINE, _MARKER_LINE), st.sampled_from(["\n", "\r\n"]))
                   .map("".join), max_size=14).map("".join)


@settings(max_examples=400)
@given(_README)
def test_splice_reads_fences_as_commonmark_does(text):
    expected = spliced_by_the_rules(text)
    if expected is None:
        with pytest.raises(GenMatrixError):
            docs.splice(text, "README.md", BLOCKS)
    else:
        assert docs.splice(text, "README.md", BLOCKS) == expected


@pytest.mark.parametrize("fence, inner", [("~~~~", "~~~"), ("````", "```"), ("~~~", "```"), ("```", "~~~"),
                                          ("```python", "```python"), ("  ~~~", "    ~~~")])
def test_a_fence_is_closed_only_by_its_own_kind_at_least_as_long(fence, inner):
    """The user's example of a marked block, in a fence that a shorter or other fence line does
    not close: the example is kept as it is."""
    text = (f"# Mine\n\n{fence}\n{inner}\n<!-- gen-matrix:begin one -->\nexample\n<!-- gen-matrix:end one -->\n"
            + fence.strip().removesuffix("python") + "\n\nThe end.\n")
    assert docs.splice(text, "README.md", BLOCKS) == text


def test_markers_in_a_code_block_of_a_list_item_are_examples():
    text = "- item\n\n  ```\n  <!-- gen-matrix:begin one -->\n  ```\n\n1. step\n   ~~~~\n   <!-- gen-matrix:end one -->\n"
    assert docs.splice(text, "README.md", BLOCKS) == text


def test_build_matrix_opens_with_a_choosers_guide_from_the_knowledge_table():
    text = (REPO / "BUILD_MATRIX.md").read_text()
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings[0] == "Which build do I need?"
    guide = text.split("## Which build do I need?")[1].split("\n## ")[0]
    assert "`gen-matrix detect`" in guide  # the command that answers first
    assert "nvidia-smi --query-gpu=name,compute_cap,driver_version" in guide
    assert "archspec.cpu.host().features" in guide and "/proc/cpuinfo" in guide
    # OS, then GPU, then CPU
    assert guide.index("macOS") < guide.index("An NVIDIA GPU?") < guide.index("Which CPU?")
    assert "| 12.0 | sm120 | Blackwell consumer: " in guide and "| 12.8 | 570.26 | 570.65 |" in guide
    isa_rows = re.findall(r"^   \| (\w+) \| .* \| (.+) \|$", guide, re.M)
    choose = {name: when for name, when in isa_rows if name in ("avx", "avx2", "avx512", "armv9")}
    assert choose["avx"].startswith("the CPU has no AVX2") and "Graviton4" in choose["armv9"]
    assert "1 to 3 hours" in guide and "20 GB of disk" in guide and "8 GB of RAM" in guide


def test_readme_serves_each_user_in_turn_after_the_two_commands():
    text = (REPO / "README.md").read_text()
    assert len(text.splitlines()) <= 250  # for people; the guides in docs/ hold the rest
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings == ["Install", "Keeping a matrix of builds", "Building one PyTorch for your machine", "How it works"]
    assert text.index("```sh\npython3 -m venv .venv") < text.index("## Keeping a matrix of builds")
    keeper = text.split("## Keeping a matrix of builds")[1].split("\n## ")[0]
    assert keeper.index("gen-matrix init") < keeper.index("(docs/reference.md)")
    builder = text.split("## Building one PyTorch for your machine")[1].split("\n## ")[0]
    assert "sm120" in builder and "gen-matrix env NAME --shell" in builder and "--index-url" in builder
    assert builder.index("gen-matrix detect") < builder.index("gen-matrix env") < builder.index("(docs/building.md)")
    guide = (REPO / "docs" / "building.md").read_text()
    assert guide.index("gen-matrix detect") < guide.index("1. **The system.**")
    # true on any machine: no local wheel, and no tag but the one the release workflow makes of
    # pyproject.toml's version, which CHANGELOG.md has an entry for
    assert "torch==2.13.0" not in text
    version = tomlkit.parse((REPO / "pyproject.toml").read_text())["project"]["version"]
    shown = text + (REPO / "docs" / "ci.md").read_text()
    home = tomlkit.parse((REPO / "pyproject.toml").read_text())["project"]["urls"]["Repository"]
    owner_name = home.removeprefix("https://github.com/")
    tags = re.findall(rf"{owner_name}[/@](v[0-9.]*[0-9])", shown) + re.findall(r"^ +rev: (v\S+)", shown, re.M)
    assert len(tags) == 3 and set(tags) == {f"v{version}"}  # nix run, nix profile install, pre-commit
    assert f"\n## [{version}]" in (REPO / "CHANGELOG.md").read_text()

def test_a_fix_the_matrix_turned_off_stays_in_build_matrix_marked_off(project, run):
    path = project / "matrix.yaml"
    path.write_text(path.read_text() + "knowledge:\n  fixes:\n    avx-only-kernels: {enabled: false}\n")
    assert run("--root", project).exit_code == 0
    rows = [line for line in (project / "BUILD_MATRIX.md").read_text().splitlines() if "avx-only-kernels" in line]
    assert rows == ["| `avx-only-kernels` (off) | isa avx | PyTorch compiles AVX2 and AVX-512 copies of its CPU kernels "
                    "whatever the build's flags | 8 |"]


# Where the project's home is written for a user to paste or a program to fetch: each one is
# pyproject.toml's [project.urls] Repository, and no placeholder owner is left
HOME_FILES = ("README.md", "docs/ci.md", "docs/building.md", "docs/matrix.md", "flake.nix", "default.nix", "CHANGELOG.md",
              "generator/matrix.schema.json", "generator/cli.py", "templates/workflow-steps.j2")


def test_every_link_to_the_project_is_pyproject_s_home():
    home = tomlkit.parse((REPO / "pyproject.toml").read_text())["project"]["urls"]["Repository"]
    owner_name = re.fullmatch(r"https://github\.com/([\w.-]+/[\w.-]+)", home)[1]
    found = []
    for name in HOME_FILES:
        text = (REPO / name).read_text()
        assert "OWNER" not in text, name
        found += [(name, m) for m in re.findall(r"(?:github:|github\.com/)([\w.-]+/gen-matrix)\b", text)]
    assert {m for _, m in found} == {owner_name}, found
    assert {name for name, _ in found} >= {"README.md", "docs/ci.md", "flake.nix", "default.nix"}
    # and what gen-matrix itself suggests, read from the installed metadata
    from generator import pin
    assert pin.home() == f"github:{owner_name}"
    # the PyPI, pipx and uv lines are marked as from the first release on; the line before
    # them says how to install until then
    readme = (REPO / "README.md").read_text()
    install = readme.split("## Install\n")[1].split("\n## ")[0]
    for line in ("pip install gen-matrix", "pipx install gen-matrix", "uv tool install gen-matrix"):
        paragraph = next(p for p in install.split("\n\n") if line in p)
        assert paragraph.startswith("From the first release on"), paragraph
    assert install.index("from a checkout") < install.index("From the first release on")
    # and nowhere else is installing it from an index shown as working today
    for page in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for paragraph in page.read_text().split("\n\n"):
            if re.search(r"\b(?:pip|pipx|uv tool) install gen-matrix\b", paragraph):
                assert "first release" in paragraph, (page.name, paragraph)


# The README's variants table, read as GitHub's Markdown reads it, against the variants.
VARIANT_MATRICES = {
    "companions": """\
pytorch: {version: "2.8.0"}
nixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}
gpu:
  python: ["3.12", "3.13"]
  cuda: ["12.8", "12.9"]
  sm: [sm75, sm90]
  isa: [avx2, avx512]
cpu:
  python: ["3.13"]
  isa: [avx2, avx512]
companions:
  - packages: [torchvision, torchaudio]
    when: {sm: sm75, isa: avx2}
""",
    "none": """\
pytorch: {version: "2.8.0"}
nixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}
gpu:
  python: ["3.13"]
  cuda: ["12.8"]
  sm: [sm86]
  isa: [avx2]
darwin:
  python: ["3.12", "3.13"]
  accelerator: [mps]
""",
}


@pytest.mark.parametrize("titles", [{}, {"gpu": "NVIDIA *GPU* | CUDA_12 `nvcc`", "cpu": "CPU <only> [x](y)"}])
@pytest.mark.parametrize("matrix", sorted(VARIANT_MATRICES))
def test_the_readme_variants_table_counts_the_variants(tmp_path, monkeypatch, matrix, titles):
    """One row per kind, CUDA release and SM, `-` where the kind has none, with its count of
    torches; then the companions and every recipe. Each cell reads as its text, whatever the
    kind's title holds."""
    from collections import Counter

    from generator.pipeline import render

    from conftest import expansion_of, markdown_cells, markdown_inline

    monkeypatch.setattr(docs, "KIND_TITLES", {**docs.KIND_TITLES, **titles})
    (tmp_path / "matrix.yaml").write_text(VARIANT_MATRICES[matrix])
    expansion = expansion_of(tmp_path)
    block = docs.render_readme_blocks(docs.facts(expansion, render.recipes(expansion, {}, tmp_path / "out")))["variants"]
    cells = markdown_cells(block)
    assert len(cells) % 4 == 0
    header, *rows, companions, total = (cells[i:i + 4] for i in range(0, len(cells), 4))
    assert header == ["kind", "CUDA", "SM", "variants"]
    torches = [v for v in expansion.variants if not v.is_companion]
    wanted = Counter((docs.KIND_TITLES[v.kind], v.cuda.name if v.cuda else "-", v.sm.name if v.sm else "-")
                     for v in torches)
    assert sorted(rows) == sorted([*key, str(count)] for key, count in wanted.items())
    assert len(rows) == len(wanted)
    count = sum(v.is_companion for v in expansion.variants)
    assert count == (8 if matrix == "companions" else 0)
    assert companions == ["companions (torchvision, torchaudio)", "", "", str(count)]
    bold = [("strong_open", ""), ("text", "total recipes"), ("strong_close", "")]
    assert [[piece for piece in cell if piece != ("text", "")] for cell in markdown_inline(block)[-4:]] == [
        bold, [], [], [*bold[:1], ("text", str(len(expansion.variants))), *bold[2:]]]


@pytest.mark.parametrize("knowledge", ["", """\
knowledge:
  sm:
    sm75: {gpus: ["GeForce *RTX* 2080", "Tesla_T4 | <b>bold</b>"], family: "Turing [x](y)"}
"""], ids=["shipped", "escaped"])
@pytest.mark.parametrize("matrix", sorted(VARIANT_MATRICES))
def test_the_readme_gpus_table_lists_each_sm_of_the_variants(tmp_path, matrix, knowledge):
    """One row per SM the torches are built for, in order of capability: its family, its GPUs
    joined by ", ", the CUDA releases built for it and the driver the oldest needs, each cell
    reading as its text whatever the knowledge table's names hold."""
    from generator.knowledge import version_key
    from generator.pipeline import render

    from conftest import expansion_of, markdown_cells

    (tmp_path / "matrix.yaml").write_text(VARIANT_MATRICES[matrix] + knowledge)
    expansion = expansion_of(tmp_path)
    block = docs.render_readme_blocks(docs.facts(expansion, render.recipes(expansion, {}, tmp_path / "out")))["gpus"]
    cells = markdown_cells(block)
    assert len(cells) % 5 == 0
    header, *rows = (cells[i:i + 5] for i in range(0, len(cells), 5))
    assert header == ["SM", "family", "GPUs", "CUDA", "min driver"]
    gpu = [v for v in expansion.variants if v.kind == "gpu" and not v.is_companion]
    wanted = []
    for sm in sorted({v.sm.name: v.sm for v in gpu}.values(), key=lambda sm: version_key(sm.capability)):
        cudas = sorted({v.cuda.name: v.cuda for v in gpu if v.sm.name == sm.name}.values(),
                       key=lambda cuda: version_key(cuda.name))
        wanted.append([sm.name, sm.family, ", ".join(sm.gpus), ", ".join(c.name for c in cudas), cudas[0].driver])
    assert rows == wanted
    assert len(rows) == (2 if matrix == "companions" else 1)
    if knowledge and matrix == "companions":
        assert rows[0][1:3] == ["Turing [x](y)", "GeForce *RTX* 2080, Tesla_T4 | <b>bold</b>"]


BUILD_MATRIX_MATRIX = """\
pytorch: {version: "2.8.0"}
nixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}
description:
  gpu: "PyTorch *{sm}* | <b>{cuda}</b> [x](y)"
gpu:
  python: ["3.13"]
  cuda: ["12.8"]
  sm: [sm86, sm87]
  isa: [armv8_2]
darwin:
  python: ["3.12", "3.13"]
  accelerator: [mps]
"""


def test_build_matrix_marks_jetson_sms_joins_the_mac_variants_and_shows_descriptions_as_text(tmp_path):
    """Of two SMs, the Jetson one alone is marked so in its family; of two Mac variants, the
    guide offers one or the other; a description holding Markdown reads as its text."""
    from generator.pipeline import render

    from conftest import expansion_of, markdown_inline

    (tmp_path / "matrix.yaml").write_text(BUILD_MATRIX_MATRIX)
    expansion = expansion_of(tmp_path)
    recipes = render.recipes(expansion, {}, tmp_path / "out")
    text = docs.build_matrix(docs.facts(expansion, recipes))
    pieces = markdown_inline(text)
    plain = ["".join(content for kind, content in line if kind in ("text", "code_inline")) for line in pieces]
    darwin = sorted(v.name for v in expansion.variants if v.kind == "darwin")
    assert len(darwin) == 2
    mac = next(line for line in pieces if ("text", "macOS on Apple Silicon?") in line)
    assert [content for kind, content in mac if kind == "code_inline"] == darwin
    assert " or ".join(darwin) in "".join(content for kind, content in mac if kind in ("text", "code_inline"))
    # the SM table: the family cell follows each SM's name and capability
    sms = {sm.name: sm for sm in (v.sm for v in expansion.variants if v.sm)}
    assert sorted(sms) == ["sm86", "sm87"] and sms["sm87"].jetson and not sms["sm86"].jetson
    for name, sm in sms.items():
        rows = [i for i, cell in enumerate(plain[:-2]) if cell == name and plain[i + 1] == sm.capability]
        assert len(rows) == 1, (name, rows)
        assert plain[rows[0] + 2] == sm.family + (" (Jetson)" if sm.jetson else ""), name
    # each GPU torch's description cell, after its name, reads as the recipe's description
    for recipe in recipes:
        if recipe.variant.kind == "gpu":
            assert "*" in recipe.description and "<b>" in recipe.description
            cells = [i for i, line in enumerate(pieces) if line == [("code_inline", recipe.variant.name)]]
            assert any(recipe.description in plain[i + 1:i + 8] for i in cells), recipe.variant.name
