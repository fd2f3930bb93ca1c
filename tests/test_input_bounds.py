"""Input is read within bounds and written back safely: only regular files of bounded size,
JSON of any depth a located error, no control character on the terminal, no Python repr or
broken table in the docs, and Nix that parses whatever the attribute names."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest

from generator import layout

from conftest import NIX_INSTANTIATE, REPO, markdown_cells, needs_nix, needs_posix

REV = "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3"
CPU = 'cpu: {python: ["3.13"], isa: [avx2]}\n'


@needs_posix("FIFOs (os.mkfifo)")
def test_a_fifo_as_the_matrix_is_an_error_not_a_hang(tmp_path):
    fifo = tmp_path / "matrix.yaml"
    os.mkfifo(fifo)
    result = subprocess.run([sys.executable, "-m", "generator", "--root", str(tmp_path)], cwd=tmp_path,
                            env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "matrix.yaml: not a regular file" in result.stderr


@pytest.mark.parametrize("device", [
    pytest.param("/dev/zero", marks=needs_posix("/dev/zero")),
    os.devnull,  # NUL on Windows
])
def test_a_device_as_the_matrix_is_an_error_not_an_endless_read(tmp_path, run, device):
    result = run("--matrix", device, "--root", tmp_path)
    assert result.exit_code == 2 and "not a regular file" in result.stderr


def test_a_huge_matrix_is_refused_before_it_is_read_whole(tmp_path, run):
    (tmp_path / "matrix.yaml").write_bytes(b"#" * (17 * 1024 * 1024))
    result = run("--root", tmp_path)
    assert result.exit_code == 2 and "matrix.yaml: the file is larger than 16 MiB" in result.stderr


@needs_posix("FIFOs (os.mkfifo)")
def test_a_fifo_as_the_readme_is_an_error_not_a_hang(project, run):
    os.mkfifo(project / "README.md")
    outcome = {}
    worker = threading.Thread(target=lambda: outcome.update(result=run("--root", project)), daemon=True)
    worker.start()
    worker.join(60)
    assert not worker.is_alive(), "gen-matrix hangs on a FIFO"
    assert outcome["result"].exit_code == 2 and "README.md: not a regular file" in outcome["result"].stderr


def test_a_state_file_nested_beyond_reason_is_a_located_error(project, run):
    assert run("--root", project).exit_code == 0
    (project / layout.STATE_FILE).write_text('{"variants":\n' + "[" * 100_000 + "]" * 100_000 + "}\n")
    for command in ([], ["check"]):
        result = run(*command, "--root", project)
        assert result.exit_code == 2 and "Traceback" not in result.output
        assert "matrix.state.json:2:" in result.stderr and "nested more than 64 levels deep" in result.stderr


def test_a_terminal_escape_never_reaches_the_terminal(tmp_path, run):
    (tmp_path / "matrix.yaml").write_text(
        f'pytorch: {{version: "2.8.0"}}\nnixpkgs: {{rev: {REV}}}\n' + CPU + '"bu\\e]0;owned\\ailt": {jobs: 8}\n')
    result = run("--root", tmp_path)
    assert result.exit_code == 2
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "\\x1b]0;owned\\x07" in result.stderr


def test_a_table_cell_holds_a_pipe(project, run):
    matrix = project / "matrix.yaml"
    matrix.write_text(matrix.read_text() + 'description:\n  cpu: "{isa} | *x*"\n')
    assert run("--root", project).exit_code == 0
    assert "avx2 | *x*" in markdown_cells((project / "BUILD_MATRIX.md").read_text())


def test_a_newline_in_a_version_is_a_located_error_and_nothing_is_written(project, run):
    """It would start a heading of its own in BUILD_MATRIX.md."""
    matrix = project / "matrix.yaml"
    text = matrix.read_text()
    line = text[:text.index('version: "2.8.0"')].count("\n") + 1
    matrix.write_text(text.replace('version: "2.8.0"', 'version: "2.8.0\\n\\n# Injected heading"'))
    result = run("--root", project)
    assert result.exit_code == 2
    assert f"matrix.yaml:{line}:12: this text holds a newline, but every text of the matrix is one line" in result.stderr
    assert [p.name for p in project.iterdir()] == ["matrix.yaml"]


# Every field the workflow is made from, set, beside the tests' matrix.
_CI = """  organisation: my-org
  plan_runner: [ubuntu-latest]
  kind_runners:
    gpu: {x86_64-linux: [self-hosted, gpu-builder]}
  gpu_runners:
    - {labels: [self-hosted, h100], system: x86_64-linux, sm: [sm90]}
  cache:
    type: cachix
    substituter: https://mine.cachix.org
    public_key: mine.cachix.org-1:AAAA
    name: mine
    secret: CACHIX_TOKEN
"""


def _every_scalar(text: str):
    """Every key and value of the YAML `text`, as nodes with their place in the text."""
    import yaml

    nodes, stack = [], [yaml.compose(text)]
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.ScalarNode):
            nodes.append(node)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            stack.extend(part for pair in node.value for part in pair)
    return sorted(nodes, key=lambda node: node.start_mark.index)


@pytest.mark.parametrize("injected, message", [
    ("${{ secrets.FLOX_FLOXHUB_TOKEN }}", "this text holds `${{`"),
    ("\n\n# Injected heading", "this text holds a newline"),
    ("\tx", "this text holds a tab"),
])
def test_every_text_of_the_matrix_refuses_an_expression_and_a_line_break(project, injected, message):
    """Each key and value in turn, the workflow's among them: a located error, exit 2."""
    import json

    from generator.errors import GenMatrixError
    from generator.pipeline import load, validate

    text = (project / "matrix.yaml").read_text().replace("ci:\n", "ci:\n" + _CI, 1)
    validate.validate(load.parse(text, "matrix.yaml"))  # valid as it stands
    nodes = _every_scalar(text)
    assert len(nodes) > 100 and {"substituter", "public_key", "organisation", "main_branch"} <= {n.value for n in nodes}
    for node in nodes:
        start, end = node.start_mark.index, node.end_mark.index
        changed = text[:start] + json.dumps(node.value + injected) + text[end:]
        with pytest.raises(GenMatrixError) as error:
            validate.validate(load.parse(changed, "matrix.yaml"))
        found = [p for p in error.value.problems if p.message.startswith(message)]
        assert [(p.where.line, p.where.column) for p in found] == \
               [(node.start_mark.line + 1, node.start_mark.column + 1)], (node.value, error.value)


def test_config_values_are_written_as_nix_and_json_not_python(project, run):
    matrix = project / "matrix.yaml"
    text = matrix.read_text()
    matrix.write_text(text.replace("  capability_scope: auto\n",
                                   "  capability_scope: auto\n  config: {cudaForwardCompat: false, names: [a, b]}\n"))
    assert run("--root", project).exit_code == 0, run("--root", project).output
    build_matrix = (project / "BUILD_MATRIX.md").read_text()
    assert 'cudaForwardCompat = false, names = ["a", "b"]' in markdown_cells(build_matrix)
    assert "False" not in build_matrix and "('a'" not in build_matrix
    pins = (project / layout.PINS_FILE).read_text()
    assert "cudaForwardCompat = false;" in pins and 'names = [ "a" "b" ];' in pins


@needs_nix
@pytest.mark.parametrize("name", ["if", "in", "inherit", "rec", "or", "magma"])
def test_a_nix_keyword_as_a_patch_attribute_name_parses(project, run, name):
    matrix = project / "matrix.yaml"
    text = matrix.read_text()
    matrix.write_text(text.replace(
        "  capability_scope: auto\n",
        f"  capability_scope: auto\n  patches:\n    {name}:\n      - url: https://example.org/a.patch\n"
        f"        hash: sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n"))
    result = run("--root", project)
    assert result.exit_code == 0, result.output
    pins = project / layout.PINS_FILE
    assert subprocess.run([NIX_INSTANTIATE, "--parse", str(pins)], capture_output=True).returncode == 0, \
        pins.read_text()


def test_a_flox_pointer_nested_beyond_reason_is_a_located_error(project, run):
    (project / ".flox").mkdir()
    (project / layout.POINTER_FILE).write_text("[" * 100_000 + "]" * 100_000)
    result = run("--root", project)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert ".flox/env.json:1: holds values nested thousands of levels deep" in result.stderr


def _files(root) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _edit_state(project, edit) -> None:
    import json

    state_file = project / layout.STATE_FILE
    document = json.loads(state_file.read_text())
    edit(document)
    state_file.write_text(json.dumps(document, indent=2) + "\n")


def test_a_path_of_5000_characters_in_the_record_is_a_located_error(project, run):
    assert run("--root", project).exit_code == 0
    _edit_state(project, lambda d: d["files"].update({".flox/pkgs/" + "a" * 5000 + ".nix": "0" * 64}))
    before = _files(project)
    for command in ([], ["check"]):
        result = run(*command, "--root", project)
        assert result.exit_code == 2 and "Traceback" not in result.output
        assert "matrix.state.json:" in result.stderr and "which is not a file gen-matrix writes" in result.stderr
    assert _files(project) == before


def test_a_number_of_5000_digits_in_the_state_file_is_a_located_error(project, run):
    assert run("--root", project).exit_code == 0
    state_file = project / layout.STATE_FILE
    text = state_file.read_text()
    state_file.write_text(text.replace('"revision": 0', '"revision": ' + "9" * 5000, 1))
    line = text[:text.index('"revision": 0')].count("\n") + 1
    before = _files(project)
    for command in ([], ["check"]):
        result = run(*command, "--root", project)
        assert result.exit_code == 2 and "Traceback" not in result.output
        assert f"matrix.state.json:{line}:" in result.stderr and "thousands of digits" in result.stderr
    assert _files(project) == before


def test_a_revision_that_cannot_go_up_is_a_located_error(project, run):
    """A metadata change raises the revision by one: at 2^63-1 it would leave Nix's integers."""
    assert run("--root", project).exit_code == 0
    name = "pytorch-python313-cpu-avx2"
    _edit_state(project, lambda d: d["variants"][name].update(revision=2**63 - 1))
    matrix = project / "matrix.yaml"
    matrix.write_text(matrix.read_text().replace("description:\n", "description:\n  cpu: \"CPU {isa}\"\n", 1)
                      if "description:\n" in matrix.read_text() else
                      matrix.read_text() + 'description: {cpu: "CPU {isa}"}\n')
    before = _files(project)
    result = run("--root", project)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"the entry for '{name}' has revision {2**63 - 1}: not a whole number from 0 to {2**63 - 2}" \
        in result.stderr
    assert _files(project) == before


def test_a_fix_file_that_is_not_utf8_is_a_located_error(project, run):
    matrix = project / "matrix.yaml"
    matrix.write_text(matrix.read_text() + "knowledge:\n  fixes:\n    mine: {why: mine, when: {isa: [avx2]}}\n")
    fix = project / "nix/fixes/mine.nix"
    fix.parent.mkdir(parents=True)
    fix.write_bytes(b"{ }: {\n  # caf\xe9\n}\n")
    result = run("--root", project)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "nix/fixes/mine.nix:2:8: the byte 0xe9 is not UTF-8 text" in result.stderr
    assert "hint: write nix/fixes/mine.nix as UTF-8 Nix, or remove its fix" in result.stderr
    assert sorted(_files(project)) == ["matrix.yaml", "nix/fixes/mine.nix"]


def test_a_fix_file_over_16_mib_is_refused_unread(project, run):
    matrix = project / "matrix.yaml"
    matrix.write_text(matrix.read_text() + "knowledge:\n  fixes:\n    mine: {why: mine, when: {isa: [avx2]}}\n")
    fix = project / "nix/fixes/mine.nix"
    fix.parent.mkdir(parents=True)
    fix.write_bytes(b"{ }\n" + b"#" * (20 * 1024 * 1024))
    result = run("--root", project)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "nix/fixes/mine.nix: the file is larger than 16 MiB" in result.stderr


def test_a_quote_in_an_msvc_flag_is_a_located_error(project, run):
    """cmd cannot set a value holding a quote: the matrix refuses it, before any script."""
    matrix = project / "matrix.yaml"
    matrix.write_text(matrix.read_text() + "knowledge:\n  isa:\n    avx2: {msvc: '/arch:AVX2\" & calc'}\n")
    line = matrix.read_text().count("\n")
    for command in (["env", "--shell", "cmd", "pytorch-python313-cpu-avx2"], []):
        result = run(*command, "--root", project)
        assert result.exit_code == 2 and "Traceback" not in result.output
        assert f"matrix.yaml:{line}:" in result.stderr and "MSVC flags such as /arch:AVX2" in result.stderr
    assert [p.name for p in project.iterdir()] == ["matrix.yaml"]


def test_a_number_of_5000_digits_in_the_flox_pointer_is_a_located_error(project, run):
    (project / ".flox").mkdir()
    (project / layout.POINTER_FILE).write_text('{\n  "name": "x",\n  "version": ' + "1" * 5000 + "\n}\n")
    result = run("--root", project)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert ".flox/env.json:3:" in result.stderr and "thousands of digits" in result.stderr


@pytest.mark.parametrize("line, expected", [
    ('nixpkgs: {rev: ' + REV + ', sha256: "abc"}\n',
     ["nixpkgs.sha256: 'abc' is not valid", "expected an SRI hash (sha256-, then 44 characters of base64)"]),
    ('nixpkgs: {rev: ' + REV + '}\nci: {organisation: "my org"}\n',
     ["ci.organisation: 'my org' is not valid", "expected a Flox organisation: letters, digits, _ and -"]),
    ('nixpkgs: {rev: ' + REV + '}\nbuild: {jobs: 16.0}\n',
     ["build.jobs must be a whole number, not 16.0 (a decimal number, which gen-matrix reads as text)",
      "write a whole number without quotes, e.g. 16"]),
    ('nixpkgs: {rev: ' + REV + ', config: {big: 9223372036854775808}}\n',
     ["nixpkgs.config.big must be at most 9223372036854775807"]),
    # Nix reads a negative number as a minus before a positive one, which stops at 2**63 - 1
    ('nixpkgs: {rev: ' + REV + ', config: {low: -9223372036854775808}}\n',
     ["nixpkgs.config.low must be at least -9223372036854775807"]),
    ('nixpkgs: {rev: ' + REV + ', config: {names: [1]}}\n', ["nixpkgs.config.names[0] must be a string"]),
    ('nixpkgs: {rev: ' + REV + ', config: {nested: {a: 1}}}\n',
     ["nixpkgs.config.nested must be true or false or a whole number or a string or a list, not a mapping"]),
])
def test_a_wrong_value_is_told_what_is_allowed_for_its_kind(tmp_path, run, line, expected):
    """Not jsonschema's choice among the branches of a oneOf (`must be nothing (null)`)."""
    (tmp_path / "matrix.yaml").write_text('pytorch: {version: "2.8.0"}\n' + line + CPU)
    result = run("--root", tmp_path)
    assert result.exit_code == 2 and "Traceback" not in result.output
    for text in expected:
        assert text in result.stderr
    assert "nothing (null)" not in result.stderr and "must be a list" not in result.stderr


def test_a_huge_file_where_an_output_goes_is_refused_unread(project, run, monkeypatch):
    from generator.pipeline import state

    monkeypatch.setattr(state, "MAX_BYTES", 1024 * 1024)  # the check, not the disk, is under test
    (project / "BUILD_MATRIX.md").write_bytes(b"#" * (2 * 1024 * 1024))
    result = run("--root", project)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "BUILD_MATRIX.md: the file is larger than 1 MiB, more than any file gen-matrix writes" in result.stderr
    assert (project / "BUILD_MATRIX.md").stat().st_size == 2 * 1024 * 1024


@pytest.mark.parametrize("option", ["--cpuinfo", "--nvidia-smi-output"])
@needs_posix("FIFOs (os.mkfifo)")
def test_a_captured_output_that_is_a_fifo_is_an_error_not_a_hang(project, run, option):
    fifo = project / "captured"
    os.mkfifo(fifo)
    result = run("detect", option, fifo, "--uname", "Linux x86_64", "--root", project)
    assert result.exit_code == 2 and "not a regular file" in result.stderr


@pytest.mark.parametrize("option", ["--cpuinfo", "--nvidia-smi-output"])
def test_a_captured_output_that_is_huge_is_an_error_not_read_whole(project, run, option):
    huge = project / "captured"
    huge.write_bytes(b"x" * (17 * 1024 * 1024))
    result = run("detect", option, huge, "--uname", "Linux x86_64", "--root", project)
    assert result.exit_code == 2 and "the file is larger than 16 MiB" in result.stderr


# ---- eval: what Nix prints, and the package sets it is handed ---------------------------

AVX2 = "pytorch-python313-cpu-avx2"


@pytest.mark.parametrize("given, message", [
    ("~no-such-user-here/nixpkgs", "cannot use this path: "),
    ("p" * 5000, "cannot use this path: File name too long"),
    pytest.param("fifo", "not a folder or a regular file (a FIFO or a device)", marks=needs_posix("FIFOs (os.mkfifo)")),
])
def test_a_package_set_eval_cannot_use_is_a_located_error(project, run, given, message):
    assert run("--root", project).exit_code == 0
    if given == "fifo":
        os.mkfifo(project / "fifo")
        given = str(project / "fifo")
    result = run("eval", "--root", project, "--nixpkgs", given, AVX2)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.stderr.startswith(f"error: --nixpkgs {given}: {message}")


def package_set(folder, body: str):
    """A package set whose evaluation does `body` (Nix), whatever it is asked for."""
    folder.mkdir()
    (folder / "default.nix").write_text(f"{{ ... }}: {body}\n")
    return folder


@needs_nix
def test_control_characters_in_nixs_message_are_shown_escaped(project, run, tmp_path):
    assert run("--root", project).exit_code == 0
    throwing = package_set(tmp_path / "throwing", 'throw "a\\u0001b\\u009bc"'.encode().decode("unicode_escape"))
    result = run("eval", "--root", project, "--nixpkgs", throwing, AVX2)
    assert result.exit_code == 1
    assert "\x01" not in result.output and "\x9b" not in result.output
    assert result.stdout.splitlines()[0] == f"{AVX2}  error: a\\x01b\\x9bc"


@needs_nix
@pytest.mark.parametrize("traced", ['{bad}', '{\\"name\\": 1}', '{\\"name\\": \\"x\\"}',
                                    '{\\"name\\": \\"x\\", \\"value\\": 5}'])
def test_a_package_set_that_traces_like_eval_nix_is_no_traceback(project, run, tmp_path, traced):
    assert run("--root", project).exit_code == 0
    tracing = package_set(tmp_path / "tracing", f'builtins.trace "gen-matrix-eval: {traced}" (throw "no")')
    result = run("eval", "--root", project, "--nixpkgs", tracing, AVX2, "pytorch-python313-cpu-avx512")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.stdout.splitlines()[:2] == [f"{AVX2}  error: no", "pytorch-python313-cpu-avx512  error: no"]
