"""gen-matrix owns exactly what it wrote: a header is not ownership, a link is never
followed, two runs never interleave, a run cut short leaves nothing for long, and what is
the user's (line endings, modes, a linked README) stays as the user made it."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from generator import layout
from generator.pipeline import write
from generator.pipeline.nixvalue import NIX_HEADER

from conftest import REPO, needs_posix, needs_symlinks

PHRASE = "Generated from matrix.yaml by gen-matrix"


def files(root) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.is_symlink()}


@pytest.mark.parametrize("path", ["matrix.yaml", ".gitattributes", "NOTES.md", "BUILD_MATRIX.md.bak",
                                  ".flox/pkgs/notes.txt", ".flox/pkgs/old.nix.bak", "nix/NOTES.md"])
def test_a_file_that_only_mentions_the_header_is_never_deleted(project, run, path):
    assert run("--root", project).exit_code == 0
    mine = project / path
    text = f"# {PHRASE}: this line only quotes it\n" + (mine.read_text() if mine.exists() else "mine\n")
    mine.write_text(text)
    assert run("--root", project).exit_code == 0
    assert mine.read_text() == text
    assert run("check", "--root", project).exit_code == 0


def test_a_file_with_the_header_where_an_output_goes_is_an_error_naming_it(project, run):
    """Not in the record: a copy someone made, or a hostile clone's. Exit 2, nothing written."""
    assert run("--root", project).exit_code == 0
    (project / "matrix.yaml").write_text((project / "matrix.yaml").read_text().replace("sm100, ", ""))
    run("--root", project)
    matrix = project / "matrix.yaml"
    matrix.write_text(matrix.read_text().replace("sm89, sm90", "sm89, sm90, sm100"))
    planted = project / ".flox/pkgs/pytorch-python313-cuda12_8-sm100-avx2.nix"
    planted.write_text(NIX_HEADER + "\n{ }: \"planted\"\n")
    before = files(project)
    result = run("--root", project)
    assert result.exit_code == 2
    assert ".flox/pkgs/pytorch-python313-cuda12_8-sm100-avx2.nix: this file carries gen-matrix's header, " \
           "but its record of written files" in result.stderr
    assert files(project) == before


def test_a_recorded_file_the_user_took_over_is_not_removed(project, run):
    """A recorded file whose header the user removed is the user's now."""
    assert run("--root", project).exit_code == 0
    kept = project / ".flox/pkgs/pytorch-python313-cuda12_8-sm100-avx2.nix"
    kept.write_text("{ }: \"mine now\"\n")
    matrix = project / "matrix.yaml"
    matrix.write_text(matrix.read_text().replace("sm100, ", ""))
    assert "6 removed" in run("--root", project).stdout
    assert kept.read_text() == "{ }: \"mine now\"\n"


def _forge(project, path: str, digest: str) -> None:
    """Add `path` to the record of written files, as a hostile clone or a bad merge would."""
    state_file = project / layout.STATE_FILE
    document = json.loads(state_file.read_text())
    document["files"][path] = digest
    state_file.write_text(json.dumps(document, indent=2) + "\n")


def _sha256(path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("path", ["matrix.yaml", "NOTES.md", ".git/COMMIT_EDITMSG", "nix/NOTES.md",
                                  ".flox/pkgs/notes.txt", ".github/workflows/mine.yml", "nix/pins.nix.bak"])
def test_a_record_naming_a_file_gen_matrix_never_writes_is_refused(project, run, path):
    """The header phrase on line 2 and the right digest in a forged record: still never removed."""
    assert run("--root", project).exit_code == 0
    mine = project / path
    mine.parent.mkdir(parents=True, exist_ok=True)
    text = (mine.read_text() if mine.exists() else "mine\n") + f"# {PHRASE}\n"
    mine.write_text("# mine\n" + text)
    _forge(project, path, _sha256(mine))
    before = files(project)
    result = run("--root", project)
    assert result.exit_code == 2
    assert f"the 'files' record holds \"{path}\", which is not a file gen-matrix writes" in result.stderr
    assert "matrix.state.json:" in result.stderr
    assert files(project) == before


def test_a_recorded_file_whose_text_is_not_what_gen_matrix_wrote_is_kept_and_named(project, run):
    """The header is still there, but the text was edited: the recorded digest says so."""
    assert run("--root", project).exit_code == 0
    kept = project / ".flox/pkgs/pytorch-python313-cuda12_8-sm100-avx2.nix"
    edited = kept.read_text().replace("{", "{ # my note\n", 1)
    kept.write_text(edited)
    removed = project / ".flox/pkgs/pytorch-python313-cuda12_8-sm100-avx512.nix"
    assert removed.exists()
    matrix = project / "matrix.yaml"
    matrix.write_text(matrix.read_text().replace("sm100, ", ""))
    check = run("check", "--root", project)
    assert check.exit_code == 1
    name = kept.relative_to(project).as_posix()  # as gen-matrix names it on every system
    assert f"left alone: {name}: no longer in the matrix, but its text is " \
           "not what gen-matrix wrote (it was edited); kept" in check.stdout
    result = run("--root", project)
    assert result.exit_code == 0
    assert f"warning: {name}: no longer in the matrix, but its text is not what gen-matrix " \
           "wrote" in result.stderr
    assert "1 kept" in result.stdout
    assert kept.read_text() == edited and not removed.exists()
    check = run("check", "--root", project)  # still a recipe with the header: `flox build` builds it
    assert check.exit_code == 1 and "a recipe with gen-matrix's header that no variant" in check.stdout


def test_a_fix_file_of_the_repository_is_never_removed_even_when_recorded(project, run):
    matrix = project / "matrix.yaml"
    matrix.write_text(matrix.read_text() + "knowledge:\n  fixes:\n    mine: {why: mine, when: {isa: [avx2]}}\n")
    fix = project / "nix/fixes/mine.nix"
    fix.parent.mkdir(parents=True)
    fix.write_text(f"# {layout.LIBRARY_MARKER}\n{{ }}\n")
    assert run("--root", project).exit_code == 0
    _forge(project, "nix/fixes/mine.nix", _sha256(fix))
    result = run("--root", project)
    assert result.exit_code == 0
    assert "nix/fixes/mine.nix: no longer generated, but the matrix reads it (a fix file); kept" in result.stderr
    assert fix.read_text() == f"# {layout.LIBRARY_MARKER}\n{{ }}\n"


def test_a_stray_recipe_with_the_header_fails_check_and_is_named_by_generate(project, run):
    assert run("--root", project).exit_code == 0
    source = project / ".flox/pkgs/pytorch-python313-cuda12_8-sm100-avx2.nix"
    stray = project / ".flox/pkgs/pytorch-python313-cuda12_8-sm999-avx2.nix"
    stray.write_bytes(source.read_bytes())
    mine = project / ".flox/pkgs/my-own.nix"  # no header: the user's recipe
    mine.write_text("{ }: { }\n")
    relative = stray.relative_to(project).as_posix()
    check = run("check", "--root", project)
    assert check.exit_code == 1
    assert f"left alone: {relative}: a recipe with gen-matrix's header that no variant of the matrix generates" \
        in check.stdout
    assert f"`git rm {relative}`" in check.stdout and "my-own" not in check.output
    result = run("--root", project)
    assert result.exit_code == 0 and f"warning: {relative}: a recipe with gen-matrix's header" in result.stderr
    assert stray.read_bytes() == source.read_bytes() and mine.exists()
    assert run("check", "--root", project).exit_code == 1
    stray.write_text("".join(stray.read_text().splitlines(keepends=True)[1:]))  # kept as the user's own
    assert run("check", "--root", project).exit_code == 0


def test_a_tree_generated_before_the_record_is_adopted(project, run):
    """Files that carry the header and hold what gen-matrix writes go into the record."""
    assert run("--root", project).exit_code == 0
    state_file = project / layout.STATE_FILE
    document = json.loads(state_file.read_text())
    recorded = document.pop("files")
    state_file.write_text(json.dumps(document, indent=2) + "\n")
    assert run("--root", project).exit_code == 0
    assert json.loads(state_file.read_text())["files"] == recorded
    matrix = project / "matrix.yaml"
    matrix.write_text(matrix.read_text().replace("sm100, ", ""))
    assert "7 removed" in run("--root", project).stdout


@needs_symlinks
@pytest.mark.parametrize("folder", [".flox/pkgs", "nix", ".github/workflows", ".flox/env", ".flox"])
def test_a_linked_output_folder_is_an_error_and_nothing_is_written_through_it(project, run, tmp_path_factory, folder):
    outside = tmp_path_factory.mktemp("outside")
    (outside / "precious.nix").write_text(NIX_HEADER + "\n{ }: { }\n")
    link = project / folder
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside, target_is_directory=True)
    result = run("--root", project)
    assert result.exit_code == 2
    assert f"{folder}: this folder is a symbolic link" in result.stderr
    assert sorted(p.name for p in outside.iterdir()) == ["precious.nix"]
    assert run("check", "--root", project).exit_code == 2


@needs_symlinks
def test_a_linked_output_file_is_an_error(project, run, tmp_path_factory):
    assert run("--root", project).exit_code == 0
    outside = tmp_path_factory.mktemp("outside") / "target.md"
    outside.write_text("outside\n")
    (project / "BUILD_MATRIX.md").unlink()
    (project / "BUILD_MATRIX.md").symlink_to(outside)
    result = run("--root", project)
    assert result.exit_code == 2 and "BUILD_MATRIX.md: this is a symbolic link" in result.stderr
    assert outside.read_text() == "outside\n"


def readme_with_blocks(project):
    return (REPO / "README.md").read_text()


@needs_symlinks
def test_a_linked_readme_is_refused_when_its_tables_change_and_left_a_link(project, run):
    assert run("--root", project).exit_code == 0
    docs_folder = project / "docs"
    docs_folder.mkdir()
    target = docs_folder / "README.md"
    target.write_text(readme_with_blocks(project))
    (project / "README.md").symlink_to("docs/README.md")
    assert run("--root", project).exit_code == 0  # its tables are current: nothing to write
    matrix = project / "matrix.yaml"
    matrix.write_text(matrix.read_text().replace("sm100, ", ""))
    result = run("--root", project)
    assert result.exit_code == 2 and "README.md: this is a symbolic link" in result.stderr
    assert (project / "README.md").is_symlink()
    assert target.read_text() == readme_with_blocks(project)


@pytest.mark.parametrize("block", ["```\n{marker}\n```\n", "~~~markdown\n{marker}\n~~~\n", "\n    {marker}\n",
                                   "\n\t{marker}\n"], ids=["backticks", "tildes", "indented", "tab"])
def test_markers_in_a_code_block_are_the_users_example(project, run, block):
    example = "<!-- gen-matrix:begin variants -->\nan example of mine\n<!-- gen-matrix:end variants -->"
    indent = "    " if "    " in block else ("\t" if "\t" in block else "")
    body = block.format(marker=example.replace("\n", "\n" + indent))
    readme = project / "README.md"
    readme.write_text("# Mine\n\nHow to mark a table:\n" + body + "\nThe end.\n")
    before = readme.read_text()
    assert run("--root", project).exit_code == 0
    assert readme.read_text() == before


# A run of gen-matrix that kills itself (-9, no cleanup) at the Nth rename of a file or
# folder into place: what it leaves is what a run cut short leaves.
def _killed_run(project, at: int) -> None:
    script = ("import os, signal, sys\nfrom generator.cli import main\ncalls = [0]\n"
              "def wrap(real):\n"
              "    def killed(*args, **kwargs):\n"
              "        calls[0] += 1\n"
              "        if calls[0] == int(sys.argv[1]):\n"
              "            os.kill(os.getpid(), signal.SIGKILL)\n"
              "        return real(*args, **kwargs)\n"
              "    return killed\n"
              "os.replace, os.rename = wrap(os.replace), wrap(os.rename)\n"
              "main(['--root', sys.argv[2]])\n")
    killed = subprocess.run([sys.executable, "-c", script, str(at), str(project)],
                            env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True)
    assert killed.returncode == -9, killed.stderr.decode()


def _tree(root) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


def _leftover_roots(paths: set[str]) -> set[str]:
    """The temporary files and folders among `paths`, each named by a run's token; not what is inside them."""
    roots = set()
    for path in paths:
        parts = path.split("/")
        named = [i for i, part in enumerate(parts) if ".gen-matrix-" in part]
        assert named, f"{path} is no temporary file or folder of a run"
        roots.add("/".join(parts[:named[0] + 1]))
    return roots


@needs_posix("kill -9 (SIGKILL)")
def test_leftovers_of_a_run_killed_are_reported_by_check_and_removed_by_the_next_run(project, run):
    """Only what a run recorded as its own (its token, in the lock file) is a leftover: a
    user's file or folder of the same shape is never taken for one."""
    mine = [".flox/.pkgs.7.tmp/notes.txt", ".README.md.1.tmp", ".BUILD_MATRIX.md.999998.tmp",
            "nix/.pins.nix.12.tmp", ".BUILD_MATRIX.md.gen-matrix-0123456789abcdef.tmp"]
    for relative in mine:
        (project / relative).parent.mkdir(parents=True, exist_ok=True)
        (project / relative).write_text("mine\n")
    before = _tree(project)
    _killed_run(project, 1)  # a first run, killed at its first rename: staged folders and a temporary file stay
    assert (project / layout.RUN_LOCK_FILE).exists()
    roots = _leftover_roots(_tree(project) - before - {layout.RUN_LOCK_FILE})
    assert any((project / root).is_dir() for root in roots) and any((project / root).is_file() for root in roots)
    result = run("check", "--root", project)
    assert result.exit_code == 1
    for path in roots:
        assert f"left by a run cut short: {path}" in result.stdout
    for relative in mine:
        assert relative not in result.stdout
    assert run("--root", project).exit_code == 0
    generated = _tree(project)
    assert not [path for path in generated if ".gen-matrix-" in path and path not in mine]
    assert not (project / layout.RUN_LOCK_FILE).exists()
    (project / "matrix.yaml").write_text((project / "matrix.yaml").read_text().replace("sm100, ", ""))
    _killed_run(project, 2)  # now a run that rewrites files: killed at its second rename
    assert _leftover_roots(_tree(project) - generated - {layout.RUN_LOCK_FILE})
    assert run("--root", project).exit_code == 0
    assert not (_tree(project) - generated)
    for relative in mine:
        assert (project / relative).read_text() == "mine\n"
    assert run("check", "--root", project).exit_code == 0


def test_crlf_in_merged_files_is_kept(project, run):
    assert run("--root", project).exit_code == 0
    for name in ("README.md", layout.MANIFEST_FILE, ".gitattributes"):
        path = project / name
        text = (path.read_text() if path.exists() else "") or "# mine\n"
        if name == "README.md":
            text = readme_with_blocks(project)
        path.write_bytes(text.replace("\n", "\r\n").encode())
    assert run("--root", project).exit_code == 0
    for name in ("README.md", layout.MANIFEST_FILE, ".gitattributes"):
        data = (project / name).read_bytes()
        assert data.count(b"\n") == data.count(b"\r\n") > 3, name
    assert run("check", "--root", project).exit_code == 0


def test_a_crlf_checkout_names_the_files_that_differ_only_in_line_endings(project, run):
    assert run("--root", project).exit_code == 0
    recipe = project / ".flox/pkgs/pytorch-python313-cpu-avx2.nix"
    recipe.write_bytes(recipe.read_bytes().replace(b"\n", b"\r\n"))
    result = run("check", "--root", project)
    assert result.exit_code == 1
    assert "line endings only (CRLF where gen-matrix writes LF): .flox/pkgs/pytorch-python313-cpu-avx2.nix" \
        in result.stdout
    assert "core.autocrlf" in result.stdout and "---" not in result.stdout
    assert run("--root", project).exit_code == 0
    assert b"\r\n" not in recipe.read_bytes()


def test_the_gitattributes_block_is_merged_into_the_users_file(project, run):
    attributes = project / ".gitattributes"
    attributes.write_text("*.png binary\n")
    assert run("--root", project).exit_code == 0
    text = attributes.read_text()
    assert text.startswith("*.png binary\n# >>> gen-matrix") and "/.flox/pkgs/*.nix text eol=lf\n" in text
    attributes.write_text(text + "*.jpg binary\n")
    assert run("--root", project).exit_code == 0
    assert attributes.read_text() == text + "*.jpg binary\n"


@pytest.mark.skipif(not os.path.exists("/usr/bin/git"), reason="git is not installed")
@pytest.mark.parametrize("lines, line, message", [
    (["*.png binary", "{begin}", "*.txt text", "mine.md -diff"], 2, "block 'line endings' has no end marker"),
    (["{end}", "*.txt text", "{begin}", "/x text", "{end}", "mine.md -diff"], 1,
     "end marker 'line endings' without a begin marker"),
    (["{begin}", "{end}", "{begin}", "{end}", "mine.md -diff"], 3,
     "a second block 'line endings' (the first begins at line 1)"),
    (["{begin}", "{begin}", "{end}", "mine.md -diff"], 2, "begin marker 'line endings' inside block 'line endings'"),
    (["{begin}", "/x text", "# <<< gen-matrix: end", "mine.md -diff"], 3, "malformed gen-matrix marker"),
])
def test_unmatched_gitattributes_markers_are_a_located_error_and_nothing_is_written(project, run, lines, line,
                                                                                   message):
    from generator.outputs import gitattributes

    attributes = project / ".gitattributes"
    text = "".join(f"{entry}\n" for entry in lines).format(begin=gitattributes.BEGIN, end=gitattributes.END)
    attributes.write_text(text)
    for _ in range(2):
        result = run("--root", project)
        assert result.exit_code == 2
        assert f"error: .gitattributes:{line}: {message}" in result.stderr
        assert attributes.read_text() == text
        assert sorted(p.name for p in project.iterdir()) == [".gitattributes", "matrix.yaml"]


@pytest.mark.skipif(shutil.which("git") is None, reason="git not found: the test checks out with core.autocrlf")
def test_a_checkout_with_autocrlf_keeps_the_generated_files_lf(project, run, tmp_path_factory):
    assert run("--root", project).exit_code == 0
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q", str(project)], check=True)
    subprocess.run([*git, "-C", str(project), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(project), "commit", "-qm", "x"], check=True)
    clone = tmp_path_factory.mktemp("clone") / "repo"
    subprocess.run([*git, "-c", "core.autocrlf=true", "clone", "-q", str(project), str(clone)], check=True)
    assert b"\r\n" in (clone / "matrix.yaml").read_bytes()  # the setting is in force
    assert run("check", "--root", clone).exit_code == 0


@needs_posix("file modes (chmod 0o640)")
def test_file_modes_are_kept(project, run):
    assert run("--root", project).exit_code == 0
    recipe = project / ".flox/pkgs/pytorch-python313-cpu-avx2.nix"
    recipe.chmod(0o640)
    (project / "README.md").write_text(readme_with_blocks(project))
    (project / "README.md").chmod(0o600)
    matrix = project / "matrix.yaml"
    matrix.write_text(matrix.read_text().replace("system_features: [big-parallel]", "system_features: [kvm]"))
    assert run("--root", project).exit_code == 0
    assert recipe.stat().st_mode & 0o777 == 0o640
    assert (project / "README.md").stat().st_mode & 0o777 == 0o600


GENERATE = [sys.executable, "-m", "generator"]


def test_two_runs_at_once_leave_the_tree_of_one_of_them(project, tmp_path_factory):
    other = tmp_path_factory.mktemp("other") / "matrix.yaml"
    other.write_text((project / "matrix.yaml").read_text().replace("sm100, ", "").replace(
        "system_features: [big-parallel]", "system_features: [kvm]"))
    env = dict(os.environ, PYTHONPATH=str(REPO))
    for _ in range(4):
        runs = [subprocess.Popen([*GENERATE, "--matrix", str(m), "--root", str(project)], env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                for m in (project / "matrix.yaml", other)]
        for process in runs:
            assert process.wait(timeout=120) == 0, process.stderr.read().decode()
        checks = [subprocess.run([*GENERATE, "check", "--matrix", str(m), "--root", str(project)], env=env,
                                 capture_output=True).returncode for m in (project / "matrix.yaml", other)]
        assert sorted(checks) == [0, 1]
    assert not (project / layout.RUN_LOCK_FILE).exists()


def test_a_second_run_waits_for_the_lock_then_says_why(project, run, monkeypatch):
    from generator.pipeline import lock

    monkeypatch.setattr(lock, "WAIT_SECONDS", 0.2)
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time; from pathlib import Path; from generator.pipeline import lock\n"
        "with lock.held(Path(sys.argv[1])):\n    print('held', flush=True); time.sleep(30)\n"), str(project)],
        env=dict(os.environ, PYTHONPATH=str(REPO)), stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().rstrip() == b"held"
        result = run("--root", project)
    finally:
        holder.kill()
        holder.wait()
    assert result.exit_code == 2
    # Windows' lock is mandatory: there the held lock file, and the process it names, may not be read
    # the holder by its pid, and its command line where the system tells it
    named = f"( \\(process {holder.pid}(\\)|: ))?" if sys.platform == "win32" else f" \\(process {holder.pid}(\\)|: )"
    assert re.search(f"another gen-matrix run{named}", result.stderr)
    assert "is writing this repository" in result.stderr
    assert not (project / ".flox").exists()
    assert run("--root", project).exit_code == 0  # the lock went with its process


def test_a_users_file_at_the_lock_path_is_never_truncated_or_removed(project, run):
    lock_file = project / layout.RUN_LOCK_FILE
    lock_file.write_text("my own notes\n")
    result = run("--root", project)
    assert result.exit_code == 2
    assert f"{layout.RUN_LOCK_FILE}: this file is not gen-matrix's run lock" in result.stderr
    assert lock_file.read_text() == "my own notes\n"
    assert sorted(p.name for p in project.iterdir()) == sorted(["matrix.yaml", layout.RUN_LOCK_FILE])


@needs_posix("FIFOs (os.mkfifo)")
def test_a_fifo_at_the_lock_path_is_an_error(project, run):
    os.mkfifo(project / layout.RUN_LOCK_FILE)
    result = run("--root", project)
    assert result.exit_code == 2
    assert f"{layout.RUN_LOCK_FILE}: this is not a regular file" in result.stderr
    assert sorted(p.name for p in project.iterdir()) == sorted(["matrix.yaml", layout.RUN_LOCK_FILE])


def test_a_full_disk_when_the_lock_is_written_is_an_error_and_nothing_is_written(project, run, monkeypatch):
    import errno

    from generator.pipeline import lock

    def full(*args):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(lock.os, "write", full)
    result = run("--root", project)
    assert result.exit_code == 2
    assert f"{layout.RUN_LOCK_FILE}: cannot write the lock file: {os.strerror(errno.ENOSPC)}" in result.stderr
    assert [p.name for p in project.iterdir()] == ["matrix.yaml"]


def test_the_lock_is_taken_only_in_the_repository_the_matrix_shows(project, run, monkeypatch):
    """Run from a folder without a matrix: an error, and no lock file there."""
    assert run("--root", project).exit_code == 0
    before = files(project)
    created = []
    real_open = os.open

    def spied(path, flags, *args, **kwargs):
        if flags & os.O_CREAT:
            created.append(str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", spied)
    monkeypatch.chdir(project / ".flox/pkgs")
    result = run()
    assert created == []  # not even for a moment
    assert result.exit_code == 2 and "matrix.yaml: file not found" in result.stderr
    assert not (project / ".flox/pkgs" / layout.RUN_LOCK_FILE).exists()
    assert files(project) == before
    empty = project.parent / (project.name + "-elsewhere")
    empty.mkdir()
    monkeypatch.chdir(empty)
    assert run("generate").exit_code == 2
    assert not list(empty.iterdir()) and created == []


def test_nothing_is_written_outside_the_repository(project, tmp_path_factory):
    home, cache = tmp_path_factory.mktemp("home"), tmp_path_factory.mktemp("cache")
    env = dict(os.environ, PYTHONPATH=str(REPO), HOME=str(home), XDG_CACHE_HOME=str(cache),
               PYTHONDONTWRITEBYTECODE="1")
    for command in ([], ["check"]):
        subprocess.run([*GENERATE, *command, "--root", str(project)], env=env, check=True, capture_output=True)
    assert not list(home.iterdir()) and not list(cache.iterdir())


def test_a_large_state_diff_is_counted_not_diffed(tmp_path):
    """difflib takes minutes on tens of thousands of changed lines; check stays linear."""
    import time

    old = "".join(f'    "build": "{i:064x}",\n' for i in range(60_000))
    new = "".join(f'    "build": "{i + 1:064x}",\n' for i in range(60_000, 120_000))
    (tmp_path / "matrix.state.json").write_text(old)
    plan = write.Plan(tmp_path, {"matrix.state.json": new}, ("matrix.state.json",), (), ())
    started = time.perf_counter()
    text = write.report(plan)
    assert time.perf_counter() - started < 5
    assert "changed: matrix.state.json (60000 lines removed, 60000 added; too big to print a diff)" in text


@pytest.mark.parametrize("path", ["../outside.nix", "/etc/hostname", ".flox/../../outside.nix", "a//b.nix"])
def test_a_record_naming_a_path_outside_the_repository_is_an_error(project, run, tmp_path_factory, path):
    """A forged record must not make gen-matrix remove a file outside the repository."""
    assert run("--root", project).exit_code == 0
    outside = project.parent / "outside.nix"
    outside.write_text(NIX_HEADER + "\n{ }: { }\n")
    state_file = project / layout.STATE_FILE
    document = json.loads(state_file.read_text())
    document["files"][path] = "0" * 64
    state_file.write_text(json.dumps(document, indent=2) + "\n")
    result = run("--root", project)
    assert result.exit_code == 2
    assert "which is not a path inside the repository" in result.stderr or \
           "which is not a file gen-matrix writes" in result.stderr
    assert outside.exists()
