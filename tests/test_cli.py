"""generate and check through the command line, as a user runs them."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from click.testing import CliRunner
from generator.pipeline.nixvalue import NIX_HEADER

from conftest import REPO


def snapshot(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_generate_writes_every_recipe_then_nothing(project, run):
    first = run("generate", "--root", project)
    assert first.exit_code == 0, first.output
    generated = [p for p in project.rglob("*") if p.is_file() and p.name != "matrix.yaml"]
    assert f"62 variants; {len(generated)} written, 0 unchanged, 0 removed" in first.stdout
    recipes = sorted(p.stem for p in (project / ".flox/pkgs").glob("*.nix"))
    assert len(recipes) == 62
    before = {p: p.stat().st_mtime_ns for p in project.rglob("*") if p.is_file()}
    second = run("generate", "--root", project)
    assert f"0 written, {len(generated)} unchanged, 0 removed" in second.stdout
    assert before == {p: p.stat().st_mtime_ns for p in project.rglob("*") if p.is_file()}


def test_bare_command_generates(project, run):
    result = run("--root", project)
    assert result.exit_code == 0 and " written, 0 unchanged" in result.stdout
    assert (project / "nix/pins.nix").exists() and (project / "nix/lib/default.nix").exists()


def test_check_passes_on_the_shipped_repository(run):
    result = run("check", "--root", REPO)
    assert result.exit_code == 0, result.output
    assert "current" in result.stdout


def test_check_detects_an_edited_recipe_and_generate_repairs_it(project, run):
    run("--root", project)
    recipe = project / ".flox/pkgs/pytorch-python313-cuda12_8-sm90-avx512.nix"
    recipe.write_text(recipe.read_text().replace('capabilities = [ "9.0" ];', 'capabilities = [ "8.9" ];'))
    result = run("check", "--root", project)
    assert result.exit_code == 1
    assert "--- a/.flox/pkgs/pytorch-python313-cuda12_8-sm90-avx512.nix" in result.stdout
    assert '-    capabilities = [ "8.9" ];' in result.stdout and '+    capabilities = [ "9.0" ];' in result.stdout
    assert "1 written" in run("--root", project).stdout
    assert run("check", "--root", project).exit_code == 0


def test_check_detects_an_edited_library_file_and_generate_restores_it(project, run):
    run("--root", project)
    library = project / "nix/lib/torch.nix"
    shipped = library.read_text()
    library.write_text(shipped.replace("requiredSystemFeatures = systemFeatures;", "requiredSystemFeatures = [ ];"))
    mine = project / "nix/fixes/my-fix.nix"  # a repository's own fix, not gen-matrix's
    mine.write_text("{ }\n")
    result = run("check", "--root", project)
    assert result.exit_code == 1
    assert "--- a/nix/lib/torch.nix" in result.stdout and "-    requiredSystemFeatures = [ ];" in result.stdout
    assert "my-fix" not in result.stdout
    assert "1 written" in run("--root", project).stdout
    assert library.read_text() == shipped and mine.read_text() == "{ }\n"
    assert run("check", "--root", project).exit_code == 0


def test_check_detects_a_deleted_recipe(project, run):
    run("--root", project)
    (project / ".flox/pkgs/pytorch-python313-cpu-avx2.nix").unlink()
    result = run("check", "--root", project)
    assert result.exit_code == 1
    assert "missing: .flox/pkgs/pytorch-python313-cpu-avx2.nix" in result.stdout
    run("--root", project)
    assert run("check", "--root", project).exit_code == 0


def test_check_detects_a_recipe_no_longer_in_the_matrix_and_generate_removes_it(project, run):
    run("--root", project)
    matrix = project / "matrix.yaml"
    matrix.write_text(matrix.read_text().replace("sm100, ", ""))
    result = run("check", "--root", project)
    assert result.exit_code == 1
    assert "extra (no longer in the matrix): .flox/pkgs/pytorch-python313-cuda12_8-sm100-avx2.nix" in result.stdout
    assert "7 removed" in run("--root", project).stdout
    assert not (project / ".flox/pkgs/pytorch-python313-cuda12_8-sm100-avx2.nix").exists()


def test_a_file_with_the_header_that_gen_matrix_never_wrote_is_left_alone(project, run):
    """Only the files in gen-matrix's record are its own: a header is easy to copy. A recipe
    that carries it is named, though (`flox build` builds it): check fails until someone decides."""
    run("--root", project)
    planted = project / ".flox/pkgs/pytorch-python313-cuda12_8-sm70-avx2.nix"
    planted.write_text(NIX_HEADER + "\n{ }: { }\n")
    check = run("check", "--root", project)
    assert check.exit_code == 1 and "left alone: .flox/pkgs/pytorch-python313-cuda12_8-sm70-avx2.nix" in check.stdout
    assert "0 removed" in run("--root", project).stdout
    assert planted.read_text() == NIX_HEADER + "\n{ }: { }\n"


def test_removing_an_axis_value_deletes_its_recipes(project, run):
    run("--root", project)
    matrix = project / "matrix.yaml"
    matrix.write_text(matrix.read_text().replace("sm100, ", ""))
    result = run("--root", project)
    assert "55 variants" in result.stdout and "7 removed" in result.stdout
    assert not list((project / ".flox/pkgs").glob("*sm100*"))


def test_a_file_of_the_users_is_never_overwritten_or_deleted(project, run):
    pkgs = project / ".flox/pkgs"
    pkgs.mkdir(parents=True)
    mine = pkgs / "pytorch-python313-cpu-avx2.nix"
    mine.write_text("{ }: \"hand-written\"\n")
    other = pkgs / "my-tool.nix"
    other.write_text("{ }: { }\n")
    result = run("--root", project)
    assert result.exit_code == 2
    assert ".flox/pkgs/pytorch-python313-cpu-avx2.nix: this file was not generated by gen-matrix" in result.stderr
    assert mine.read_text() == "{ }: \"hand-written\"\n"
    assert sorted(p.name for p in pkgs.iterdir()) == ["my-tool.nix", "pytorch-python313-cpu-avx2.nix"]
    mine.unlink()
    assert run("--root", project).exit_code == 0
    assert other.read_text() == "{ }: { }\n"


def test_matrix_and_root_options_work_from_any_folder(project, tmp_path_factory, run, monkeypatch):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    monkeypatch.chdir(elsewhere)
    out = tmp_path_factory.mktemp("out")
    assert run("--matrix", project / "matrix.yaml", "--root", out, "generate").exit_code == 0
    assert (out / "nix/pins.nix").exists() and not (elsewhere / "nix").exists()
    assert run("check", "--matrix", project / "matrix.yaml", "--root", out).exit_code == 0
    # --root defaults to the matrix's folder
    assert run("--matrix", project / "matrix.yaml").exit_code == 0
    assert (project / ".flox/pkgs").is_dir()


def test_invalid_matrix_exits_2_with_a_location_and_writes_nothing(project, run):
    (project / "matrix.yaml").write_text((project / "matrix.yaml").read_text().replace("sm90,", "sm91,"))
    result = run("--root", project)
    assert result.exit_code == 2
    assert "matrix.yaml:33:38: unknown sm" in result.stderr and "unknown sm 'sm91'" in result.stderr
    assert "Traceback" not in result.output
    assert sorted(p.name for p in project.iterdir()) == ["matrix.yaml"]


def test_output_is_identical_across_hash_seeds(project, tmp_path):
    outputs = []
    for seed in ("0", "1", "12345"):
        root = tmp_path / f"seed{seed}"
        root.mkdir()
        (root / "matrix.yaml").write_bytes((project / "matrix.yaml").read_bytes())
        env = dict(os.environ, PYTHONHASHSEED=seed)
        subprocess.run([sys.executable, "-m", "generator", "--root", str(root)], check=True, env=env,
                       capture_output=True)
        outputs.append(snapshot(root))
    assert outputs[0] == outputs[1] == outputs[2]


def test_console_script_runs():
    result = subprocess.run([sys.executable, "-m", "generator", "--help"], capture_output=True, text=True)
    assert result.returncode == 0 and "check" in result.stdout and "generate" in result.stdout


def test_the_command_ends_with_its_exit_status_and_all_its_output(project):
    """Its status and every line it printed come out, on both streams."""
    def command(*args):
        return subprocess.run([sys.executable, "-m", "generator", *args, "--root", str(project)],
                              capture_output=True, text=True)

    result = command("generate")
    assert (result.returncode, result.stderr) == (0, "") and result.stdout.startswith("gen-matrix: 62 variants;")
    recipe = next((project / ".flox" / "pkgs").glob("pytorch-*.nix"))
    recipe.write_text(recipe.read_text() + "# edited\n")
    result = command("check")
    assert result.returncode == 1 and result.stdout.count("\n") > 3 and "run `gen-matrix`" in result.stderr
    (project / "matrix.yaml").write_text("pytorch: [\n")
    result = command("check")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith(f"error: {project / 'matrix.yaml'}:2:1: YAML syntax error")



@pytest.mark.parametrize("revision", ["1e30", "Infinity", "-5", "true", "1.7", '"3"'])
def test_a_bad_revision_in_the_state_file_is_a_located_error(project, run, revision):
    run("--root", project)
    state = project / "matrix.state.json"
    text = state.read_text()
    state.write_text(text.replace('"revision": 0', f'"revision": {revision}', 1))
    before = snapshot(project)
    result = run("--root", project)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert "matrix.state.json:4: the entry for 'pytorch-python313-cpu-armv8_2' has revision" in result.stderr
    assert "hint: restore matrix.state.json from git" in result.stderr
    assert snapshot(project) == before


def test_check_shows_the_control_characters_of_an_edited_file_escaped(project, run):
    """A file of the tree can hold anything; its diff reaches the terminal with no escape sequence."""
    assert run("--root", project).exit_code == 0
    recipe = next((project / ".flox" / "pkgs").glob("pytorch-*.nix"))
    recipe.write_text(recipe.read_text() + "# \x1b]0;owned\x07\x1b[2J\x9b31m\n")
    result = run("check", "--root", project)
    assert result.exit_code == 1
    assert "+# \\x1b]0;owned\\x07\\x1b[2J\\x9b31m" in result.stdout.replace("-# ", "+# ")
    assert not any(character in result.stdout for character in "\x1b\x07\x9b")


def test_the_version_is_told_from_a_source_tree_too(monkeypatch):
    # `python -m generator` from a checkout that was never installed: no distribution metadata
    import importlib.metadata

    import tomlkit as toml

    from generator import cli

    def not_installed(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", not_installed)
    expected = toml.parse((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert cli._version() == f"{expected} (source tree)"
    for args in (["--version"], ["--root", "/nonexistent", "--version"]):  # before anything else is read
        result = CliRunner().invoke(cli.main, args)
        assert (result.exit_code, result.output) == (0, f"gen-matrix, version {expected} (source tree)\n"), args


def test_the_version_of_an_installed_gen_matrix_is_its_distribution_s(monkeypatch):
    import importlib.metadata

    from generator import cli

    monkeypatch.setattr(importlib.metadata, "version", lambda name: {"gen-matrix": "7.8.9"}[name])
    result = CliRunner().invoke(cli.main, ["--version"])
    assert (result.exit_code, result.output) == (0, "gen-matrix, version 7.8.9\n")
    assert CliRunner().invoke(cli.main, ["--help"]).output.count("--version") == 1


@pytest.mark.parametrize("args, code", [(["--version"], 0), (["--matrix", "absent.yaml", "check"], 2)])
def test_the_script_collects_seldom_and_leaves_what_a_run_made_to_the_exit(tmp_path, args, code):
    """The `gen-matrix` script (generator.__main__:run), run to its end, whatever the end: its
    young objects are collected after 50,000 allocations, and what it made is frozen, so that
    the collections Python makes as it exits skip it."""
    script = ("import gc, sys\nbefore = gc.get_freeze_count()\nsys.argv = ['gen-matrix', *sys.argv[1:]]\n"
              "from generator.__main__ import run\ntry:\n    run()\nexcept SystemExit as exit_:\n"
              "    print(exit_.code, gc.get_threshold()[0], before == 0 < gc.get_freeze_count(), file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", script, *args], cwd=tmp_path, capture_output=True, text=True)
    assert done.stderr.splitlines()[-1] == f"{code} 50000 True"
