"""`gen-matrix init`: a new matrix repository, committed to git, that `check` finds current,
from an example or for a captured host; made beside its place and moved in whole, so that a
failure leaves nothing behind and nothing of the user's is written over or through."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from click.testing import CliRunner

from conftest import REPO, needs_posix
from generator.cli import main
from generator.commands import init, sandbox
from generator.errors import GenMatrixError
from generator.layout import MANIFEST_FILE, WORKFLOW_FILE
from generator.pipeline import expand, load, validate

HOSTS = REPO / "tests" / "fixtures" / "hosts"
H100 = "xeon8480-h100"


def invoke(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def host_options(name: str) -> list[str]:
    folder = HOSTS / name
    options = ["--uname", (folder / "uname").read_text().strip()]
    if (folder / "cpuinfo").exists():
        options += ["--cpuinfo", str(folder / "cpuinfo")]
    if (folder / "nvidia-smi.csv").exists():
        options += ["--nvidia-smi-output", str(folder / "nvidia-smi.csv")]
    return options


def git(root, *args) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def tree(folder) -> dict[str, str]:
    """Every path under `folder`, with what it is (and a file's text, a link's target)."""
    found = {}
    for path in sorted(folder.rglob("*")):
        relative = str(path.relative_to(folder))
        if path.is_symlink():
            found[relative] = "-> " + os.readlink(path)
        elif path.is_file():
            found[relative] = path.read_bytes().decode("utf-8", "replace")
        else:
            found[relative] = "folder" if path.is_dir() else "other"
    return found


def steps(output: str) -> list[str]:
    lines = output.splitlines()
    return [line.strip() for line in lines[lines.index("next:") + 1:]]


def build_steps(output: str) -> list[str]:
    """The steps from the first build on: after the one that pins gen-matrix, where there is
    one (an editable install, as this suite runs, records no source: there is)."""
    return [step for step in steps(output) if "gen_matrix" not in step]


def test_init_commits_a_repository_check_finds_current_and_a_second_init_refuses(tmp_path):
    root = tmp_path / "builds"
    made = invoke("init", str(root), "--example", "pytorch-2.8", *host_options(H100))
    assert made.exit_code == 0, made.output
    for path in ("matrix.yaml", "README.md", MANIFEST_FILE, WORKFLOW_FILE, ".flox/env.json"):
        assert b"\r" not in (root / path).read_bytes(), f"{path}: LF line endings on every system"
    readme = (root / "README.md").read_text()
    assert readme.startswith("# builds\n") and "<!-- gen-matrix:begin variants -->\n| kind |" in readme
    assert "$schema=" not in (root / "matrix.yaml").read_text()
    # one commit, on the branch the workflow publishes from, holding every file init wrote
    assert git(root, "symbolic-ref", "HEAD").strip() == "refs/heads/main"
    assert len(git(root, "rev-list", "--all").split()) == 1
    assert git(root, "status", "--porcelain", "--ignored") == ""
    committed = set(git(root, "ls-files").split())
    assert {"matrix.yaml", "README.md", WORKFLOW_FILE, MANIFEST_FILE, "matrix.state.json"} <= committed
    assert committed == {p for p, kind in tree(root).items() if kind != "folder" and not p.startswith(".git/")}
    assert invoke("check", "--root", str(root)).exit_code == 0
    assert sorted(os.listdir(tmp_path)) == ["builds"], "no temporary folder is left beside it"
    matrix = (root / "matrix.yaml").read_bytes()
    again = invoke("init", str(root), "--example", "pytorch-2.9", *host_options(H100))
    assert again.exit_code == 2 and "already holds a matrix" in again.output
    assert (root / "matrix.yaml").read_bytes() == matrix


def test_without_a_git_identity_the_commit_names_the_fallback_and_how_to_amend(tmp_path):
    # conftest leaves git no settings: no user.name, no user.email
    root = tmp_path / "builds"
    made = invoke("init", str(root), *host_options(H100))
    assert made.exit_code == 0, made.output
    assert git(root, "log", "-1", "--format=%an <%ae>").strip() == f"{init.FALLBACK_NAME} <{init.FALLBACK_EMAIL}>"
    assert f"git -C {root} commit --amend --reset-author --no-edit" in made.output


def test_the_user_s_git_identity_makes_the_commit(tmp_path, monkeypatch):
    settings = tmp_path / "gitconfig"
    settings.write_text("[user]\n\tname = Ada Lovelace\n\temail = ada@example.org\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(settings))
    root = tmp_path / "builds"
    made = invoke("init", str(root), *host_options(H100))
    assert made.exit_code == 0, made.output
    assert git(root, "log", "-1", "--format=%an <%ae> %cn").strip() == "Ada Lovelace <ada@example.org> Ada Lovelace"
    assert "--reset-author" not in made.output


@needs_posix("hooks written as #!/bin/sh scripts")
@pytest.mark.parametrize("where", ["core.hooksPath", "init.templateDir"])
def test_no_hook_of_the_user_s_runs_for_init_s_commit(tmp_path, monkeypatch, where):
    # real git, with the user's hooks where git finds them: each leaves a file if it runs
    hooks = tmp_path / "template" / "hooks"
    hooks.mkdir(parents=True)
    ran = tmp_path / "ran"
    ran.mkdir()
    for hook in ("pre-commit", "commit-msg", "post-commit", "post-checkout", "reference-transaction"):
        (hooks / hook).write_text(f"#!/bin/sh\ntouch '{ran}/{hook}'\n")
        (hooks / hook).chmod(0o755)
    settings = tmp_path / "gitconfig"
    settings.write_text(f"[core]\n\thooksPath = {hooks}\n" if where == "core.hooksPath"
                        else f"[init]\n\ttemplateDir = {hooks.parent}\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(settings))
    root = tmp_path / "builds"
    made = invoke("init", str(root), *host_options(H100))
    assert made.exit_code == 0, made.output
    assert os.listdir(ran) == []
    assert git(root, "log", "--format=%s").count("\n") == 1  # the commit was made, once


PINNED = "github:acme/gen-matrix/" + "0123456789abcdef" * 2 + "01234567"


@pytest.mark.parametrize("flake", [PINNED + "\n", PINNED + "\n\n", " " + PINNED])
def test_a_gen_matrix_flake_with_a_line_break_is_refused_at_the_option(tmp_path, flake):
    parent = tmp_path / "work"
    parent.mkdir()
    result = invoke("init", str(parent / "builds"), "--gen-matrix", flake, *host_options(H100))
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.stderr.startswith("error: --gen-matrix: ") and "matrix.yaml:" not in result.stderr, result.stderr
    assert os.listdir(parent) == []


def test_a_matrix_init_would_write_is_located_in_no_file_it_did_not_write(tmp_path, monkeypatch):
    # the text init makes, refused by validation: its problems name init, not a line of a file
    monkeypatch.setattr(init, "pinned", lambda text, flake: text + "\nunknown_key: 1\n")
    parent = tmp_path / "work"
    parent.mkdir()
    result = invoke("init", str(parent / "builds"), *host_options(H100))
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.stderr.startswith("error: init: the matrix.yaml init would write (its line "), result.stderr
    assert "matrix.yaml:" not in result.stderr and os.listdir(parent) == []


def test_the_default_example_is_the_newest():
    assert init.examples()[-1] == "pytorch-2.10"


def test_an_unknown_example_writes_nothing(tmp_path):
    result = invoke("init", str(tmp_path / "x"), "--example", "pytorch-1.0")
    assert result.exit_code == 2 and "pytorch-2.10" in result.output
    assert os.listdir(tmp_path) == []


def test_a_failing_git_commit_leaves_nothing_behind(tmp_path, monkeypatch):
    # real git, told to sign with a program that fails: the commit, the last step, fails
    settings = tmp_path / "gitconfig"
    settings.write_text("[commit]\n\tgpgsign = true\n[gpg]\n\tprogram = false\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(settings))
    parent = tmp_path / "work"
    parent.mkdir()
    result = invoke("init", str(parent / "builds"), *host_options(H100))
    assert result.exit_code == 2 and "git commit" in result.output and "Traceback" not in result.output
    assert os.listdir(parent) == []


def test_an_interrupt_after_the_commit_leaves_nothing_behind(tmp_path, monkeypatch):
    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(init, "first_run", interrupted)  # after generate and commit, before the move
    existing = tmp_path / "existing"
    existing.mkdir()
    (existing / "notes.txt").write_text("mine\n")
    for root in (tmp_path / "new", existing):
        before = tree(tmp_path)
        result = CliRunner().invoke(main, ["init", str(root), *host_options(H100)])
        assert result.exit_code == 1 and "Aborted" in result.output
        assert tree(tmp_path) == before


def test_without_git_init_says_so_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "no-programs"))
    result = invoke("init", str(tmp_path / "builds"), *host_options(H100))
    assert result.exit_code == 2 and "git is not installed" in result.output
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("name", ["--bare", "--separate-git-dir=elsewhere", "--template=elsewhere", "-q"])
def test_a_folder_named_like_a_git_option_is_a_folder(tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    made = invoke("init", *host_options(H100), "--", name)
    assert made.exit_code == 0, made.output
    assert os.listdir(tmp_path) == [name]
    root = tmp_path / name
    assert (root / ".git").is_dir() and (root / "matrix.yaml").is_file()
    assert git(root, "rev-parse", "--is-bare-repository").strip() == "false"
    assert git(root, "rev-parse", "--show-toplevel").strip() == str(root)


def test_into_an_existing_folder_only_new_paths_move_in_and_are_named(tmp_path):
    root = tmp_path / "builds"
    (root / ".github" / "workflows").mkdir(parents=True)
    (root / ".github" / "workflows" / "lint.yml").write_text("name: lint\n")
    (root / "LICENSE").write_text("MIT\n")
    before = tree(root)
    made = invoke("init", str(root), *host_options(H100))
    assert made.exit_code == 0, made.output
    after = tree(root)
    assert {path: after[path] for path in before} == before, "the user's files are as they were"
    moved = re.search(r"^moved into the existing folder, beside what it held: (.*)$", made.output, re.M)[1].split()
    assert ".github/workflows/flox-variants.yml" in moved and ".github" not in moved and ".git" in moved
    assert set(moved) == {path.split("/")[0] if not path.startswith(".github/") else path
                          for path in set(after) - set(before) if "/" not in path or path.startswith(".github/w")}
    assert git(root, "status", "--porcelain").split() == ["??", ".github/workflows/lint.yml", "??", "LICENSE"]
    assert invoke("check", "--root", str(root)).exit_code == 0
    assert os.listdir(tmp_path) == ["builds"]


@pytest.mark.parametrize("kind", ["file", "dangling link", "fifo", "folder"])
@pytest.mark.parametrize("path", ["README.md", "matrix.yaml", ".github/workflows/flox-variants.yml"])
def test_anything_where_init_writes_is_refused_and_nothing_is_written(tmp_path, kind, path):
    root = tmp_path / "builds"
    outside = tmp_path / "outside"
    spot = root / path
    spot.parent.mkdir(parents=True)
    if kind == "file":
        spot.write_text("mine\n")
    elif kind == "dangling link":
        spot.symlink_to(outside)
    elif kind == "fifo":
        os.mkfifo(spot)
    else:
        spot.mkdir()
    before = tree(tmp_path)
    result = invoke("init", str(root), *host_options(H100))
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"error: {root}/{path}:" in result.output
    assert tree(tmp_path) == before and not outside.exists()


@pytest.mark.parametrize("folder", [".github", ".flox", "nix"])
def test_a_linked_folder_where_init_writes_is_refused(tmp_path, folder):
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "builds"
    root.mkdir()
    (root / folder).symlink_to(outside)
    result = invoke("init", str(root), *host_options(H100))
    assert result.exit_code == 2 and f"{root}/{folder}: a symbolic link is already here" in result.output
    assert os.listdir(outside) == [] and sorted(os.listdir(root)) == [folder]


LEFT = ".builds.gen-matrix-init-0123456789abcdef"


def leftover(parent, owner: bool = True):
    """What an init killed with -9 while it staged leaves beside its target: the staging
    folder, holding a whole git repository, and (where `owner`) its unlocked owner file."""
    folder = parent / LEFT
    (folder / ".git" / "objects").mkdir(parents=True)
    (folder / "matrix.yaml").write_text("half\n")
    if owner:
        (parent / f"{LEFT}.owner").write_text("")
    return folder


@needs_posix("the system's lock on an open file, as flock")
def test_init_removes_the_staging_folder_an_init_killed_with_9_left(tmp_path):
    parent = tmp_path / "work"
    parent.mkdir()
    leftover(parent)
    made = invoke("init", str(parent / "builds"), *host_options(H100))
    assert made.exit_code == 0, made.output
    assert sorted(os.listdir(parent)) == ["builds"]


@needs_posix("the system's lock on an open file, as flock")
def test_init_names_a_staging_folder_whose_init_still_runs_or_that_no_owner_file_explains(tmp_path):
    import filelock

    parent = tmp_path / "work"
    parent.mkdir()
    leftover(parent)
    descriptor = os.open(parent / f"{LEFT}.owner", os.O_RDWR)  # held, as by an init still running
    try:
        assert filelock.lock_descriptor(descriptor, blocking=False)
        result = invoke("init", str(parent / "builds"), *host_options(H100))
    finally:
        os.close(descriptor)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.stderr.startswith(f"error: {parent}/{LEFT}: another `gen-matrix init` is making a repository here\n")
    assert sorted(os.listdir(parent)) == [LEFT, f"{LEFT}.owner"]
    os.unlink(parent / f"{LEFT}.owner")  # now no owner file says whose it is
    result = invoke("init", str(parent / "builds"), *host_options(H100))
    assert result.exit_code == 2 and f"error: {parent}/{LEFT}: a folder an earlier `gen-matrix init` made" in result.stderr
    assert sorted(os.listdir(parent)) == [LEFT]


@needs_posix("symbolic links, and the system's lock on an open file, as flock")
def test_an_owner_file_that_is_a_link_or_none_explains_no_staging_folder(tmp_path):
    """Beside the target, four staging folders of the same name: two whose owner file is a
    symbolic link to an unlocked file elsewhere (an owner file is one init makes, never a
    link: open through it, the init would lock and delete by someone else's file), one with
    no owner file, and one an init killed with -9 left. The last is removed; each of the
    others is named, with what to do, and kept as it is, its link and the file it names."""
    parent, outside = tmp_path / "work", tmp_path / "outside"
    parent.mkdir()
    outside.mkdir()
    staged = {kind: f".builds.gen-matrix-init-{token * 16}" for kind, token in
              (("link", "1"), ("other link", "2"), ("no owner", "3"), ("killed", "4"))}
    for kind, name in staged.items():
        (parent / name / ".git").mkdir(parents=True)
        (parent / name / "matrix.yaml").write_text(f"{kind}\n")
        owner = parent / f"{name}.owner"
        if "link" in kind:
            (outside / kind).write_text(f"not {kind}'s owner\n")
            owner.symlink_to(outside / kind)
        elif kind == "killed":
            owner.write_text("")
    before = tree(tmp_path)
    result = invoke("init", str(parent / "builds"), *host_options(H100))
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.stderr == "".join(
        f"error: {parent}/{staged[kind]}: a folder an earlier `gen-matrix init` made, with no owner file beside it to "
        f"say whether that init still runs\n  hint: if no init runs here, remove it, then run `gen-matrix init` again\n"
        for kind in ("link", "other link", "no owner"))
    killed = staged["killed"]
    assert tree(tmp_path) == {path: what for path, what in before.items()
                              if not path.startswith((f"work/{killed}/", f"work/{killed}.owner"))
                              and path != f"work/{killed}"}


@pytest.mark.parametrize("kind", ["a clone", "a worktree"])
def test_a_git_repository_is_refused_before_anything_is_made(kind, tmp_path):
    """A clone's .git is a folder, a worktree's (or a submodule's) a file naming one: either
    is a repository already, named with what to do instead."""
    root = tmp_path / "clone"
    root.mkdir()
    if kind == "a clone":
        git(root, "init", "-q")
    else:
        (root / ".git").write_text(f"gitdir: {tmp_path / 'main' / '.git' / 'worktrees' / 'clone'}\n")
    before = tree(tmp_path)
    result = invoke("init", str(root), *host_options(H100))
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.stderr == (f"error: {root}/.git: this folder is a git repository already; init makes a new one, "
                             "with its first commit\n  hint: init a new folder, then push it to your remote from there "
                             "(`git remote add origin URL && git push -u origin main`)\n")
    assert tree(tmp_path) == before


def test_a_move_that_fails_part_way_moves_back_what_it_moved(tmp_path, monkeypatch):
    root = tmp_path / "builds"
    root.mkdir()
    (root / "notes.txt").write_text("mine\n")
    before = tree(tmp_path)
    rename, moved = os.rename, []

    def failing(source, target):
        if str(target).startswith(str(root) + "/") and ".gen-matrix-init-" not in str(target):
            moved.append(target)
            if len(moved) == 3:
                raise PermissionError(13, "Permission denied")
        rename(source, target)

    monkeypatch.setattr(os, "rename", failing)
    result = invoke("init", str(root), *host_options(H100))
    assert result.exit_code == 2 and "cannot move this new path in: Permission denied" in result.output
    assert tree(tmp_path) == before


@pytest.mark.parametrize("case", ["a file", "no parent", "a parent that is a file", "a dangling link"])
def test_a_folder_that_cannot_be_made_is_an_error(tmp_path, case):
    (tmp_path / "file").write_text("x\n")
    (tmp_path / "link").symlink_to(tmp_path / "nowhere")
    target = {"a file": "file", "no parent": "missing/builds", "a parent that is a file": "file/builds",
              "a dangling link": "link"}[case]
    before = tree(tmp_path)
    result = invoke("init", str(tmp_path / target), *host_options(H100))
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert tree(tmp_path) == before


def test_a_parent_that_refuses_a_new_folder_is_an_error(tmp_path, monkeypatch):
    def refused(path, *args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "mkdir", refused)  # as an unwritable parent answers, whoever runs the tests
    result = invoke("init", str(tmp_path / "builds"), *host_options(H100))
    assert result.exit_code == 2
    assert f"error: {tmp_path}: cannot create a folder here: Permission denied" in result.output


@pytest.mark.parametrize("name", ["two words", "new\nline", "caf\u00e9", os.fsdecode(b"bad\xffbyte"), "-"])
def test_odd_folder_names_make_a_repository(tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    made = invoke("init", *host_options(H100), "--", name)
    assert made.exit_code == 0, made.output
    assert (tmp_path / name / "matrix.yaml").is_file()
    assert invoke("check", "--root", str(tmp_path / name)).exit_code == 0


@pytest.mark.parametrize("captured, text", [("cpuinfo", ""), ("cpuinfo", "\x00\xff garbage"),
                                            ("nvidia-smi-output", "\x00\xff,garbage,1,2,3"),
                                            ("cpuinfo", None), ("nvidia-smi-output", None)])
def test_detect_with_odd_captured_files_is_a_located_error(tmp_path, captured, text):
    path = tmp_path / "captured"
    if text is None:
        os.mkfifo(path)
    else:
        path.write_bytes(text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text)
    options = ["--uname", "Linux x86_64", "--cpuinfo", str(HOSTS / H100 / "cpuinfo"),
               "--nvidia-smi-output", str(HOSTS / H100 / "nvidia-smi.csv")]
    options[options.index(f"--{captured}") + 1] = str(path)
    result = invoke("init", str(tmp_path / "builds"), "--detect", *options)
    assert result.exit_code == 2 and f"error: {path}" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "builds").exists()


@pytest.mark.parametrize("host", ["xeon8480-h100", "i7-2600k-gtx1070", "epyc9654-nogpu", "macbook-m3",
                                  "dgx-spark-gb10"])
def test_detect_gives_a_matrix_holding_the_recommended_variant(tmp_path, host):
    root = tmp_path / host
    options = host_options(host)
    # what detect recommends against the example init starts from
    wanted = invoke("detect", "--matrix", str(init.EXAMPLES / init.examples()[-1] / "matrix.yaml"), "--name", *options)
    name = wanted.stdout.strip()
    made = invoke("init", str(root), "--detect", *options)
    assert made.exit_code == 0, made.output
    assert build_steps(made.output)[0].startswith(f"flox build {name}   # the variant `gen-matrix detect` recommends")
    names = invoke("list", "--root", str(root)).output.split()
    assert name in names and len(names) <= 3
    assert invoke("detect", "--root", str(root), "--name", *options).stdout.strip() == name
    assert invoke("check", "--root", str(root)).exit_code == 0
    # the nixpkgs of that variant in the example, of its three pins (the hosts' variants take two)
    example = expand.expand(validate.validate(load.parse(init.example_text(init.examples()[-1]), "matrix.yaml")))
    pin = next(v.pin for v in example.variants if v.name == name)
    made_matrix = load.parse((root / "matrix.yaml").read_text(), "matrix.yaml").data
    assert made_matrix["nixpkgs"]["rev"] == next(p.rev for p in example.matrix.pins if p.name == pin)


@pytest.mark.parametrize("options, why", [
    (["--uname", "Darwin x86_64"], "the matrix has no Darwin variant for x86_64: its Darwin variants need Apple Silicon"),
    (["--uname", "Linux x86_64", "--cpuinfo", "sse2-only"],
     "no CPU-only variant fits: this x86_64 CPU runs none of the instruction sets gen-matrix knows"),
])
def test_detect_for_a_machine_no_variant_fits_says_why_and_makes_nothing(tmp_path, options, why):
    (tmp_path / "sse2-only").write_text("processor\t: 0\nflags\t\t: fpu sse sse2\n")
    (tmp_path / "no-gpu").write_text("No devices were found\n")
    before = sorted(os.listdir(tmp_path))
    made = invoke("init", str(tmp_path / "builds"), "--detect", *[str(tmp_path / o) if o == "sse2-only" else o
                                                                  for o in options],
                  "--nvidia-smi-output", str(tmp_path / "no-gpu"))
    assert made.exit_code == 2 and "Traceback" not in made.output
    assert f"error: --detect: detect recommends no variant for this machine: {why}\n" in made.output
    assert "hint: start from an example with --example NAME" in made.output
    assert sorted(os.listdir(tmp_path)) == before


@pytest.mark.parametrize("host, system", [("macbook-m3", "aarch64-darwin"), ("graviton4-nogpu", "aarch64-linux"),
                                          ("epyc9654-nogpu", "x86_64-linux")])
def test_the_first_build_suggested_is_one_of_this_machine_s_system(tmp_path, host, system):
    root = tmp_path / "builds"
    no_gpu = tmp_path / "nvidia-smi.csv"
    no_gpu.write_text("No devices were found\n")
    made = invoke("init", str(root), "--example", "pytorch-2.8", *host_options(host), "--nvidia-smi-output", str(no_gpu))
    assert made.exit_code == 0, made.output
    name = re.fullmatch(r"flox build (\S+)   # .*", build_steps(made.output)[0])[1]
    shown = json.loads(invoke("show", name, "--json", "--root", str(root)).output)
    assert shown["platforms"] == [system]


def test_a_machine_no_variant_is_for_is_told_so_instead_of_a_build(tmp_path):
    made = invoke("init", str(tmp_path / "builds"), "--uname", "Darwin x86_64")
    assert made.exit_code == 0, made.output
    first = build_steps(made.output)[0]
    assert "flox build" not in made.output
    assert first.startswith("# no variant of the matrix is for x86_64-darwin, this machine's system")
    assert "aarch64-darwin, aarch64-linux, x86_64-linux" in first


@pytest.mark.parametrize("example", ["pytorch-2.8", "pytorch-2.10"])
def test_the_first_ci_run_is_what_ci_summary_plans(tmp_path, example):
    root = tmp_path / "builds"
    made = invoke("init", str(root), "--example", example, *host_options(H100))
    assert made.exit_code == 0, made.output
    summary = invoke("ci", "--summary", "--root", str(root)).output
    jobs = re.search(r"^\| jobs \| (\d+) \|$", summary, re.M)[1]
    hours = re.search(r"Estimated build time: ([\d.]+) runner-hours", summary)[1]
    line = next(line for line in made.output.splitlines() if line.startswith("first CI run:"))
    assert line.startswith(f"first CI run: {jobs} build jobs, one per torch variant ({jobs})")
    assert f"about {hours} build-hours" in line
    assert len(git(root, "ls-files", ".flox/pkgs").split()) == len(invoke("list", "--root", str(root)).output.split())


def test_the_secrets_named_are_those_the_matrix_s_workflow_reads():
    def secrets(ci: str) -> tuple[str, ...]:
        text = init.example_text("pytorch-2.8") + ci
        return init.secrets(expand.expand(validate.validate(load.parse(text, "matrix.yaml"))))

    plain = secrets("")
    assert [line.split("   #")[0] for line in plain] == ["gh secret set FLOX_FLOXHUB_TOKEN",
                                                          "gh variable set FLOX_ORG --body ORG"]
    cached = secrets("ci:\n  organisation_variable: ACME_ORG\n  organisation: acme\n"
                     "  cache: {type: attic, substituter: 'https://attic.example/acme', name: acme, "
                     "secret: ATTIC_TOKEN}\n")
    assert cached[1].startswith("gh variable set ACME_ORG --body ORG   # optional: ci.organisation (acme)")
    assert cached[2].startswith("gh secret set ATTIC_TOKEN   # the attic token")
    workflow_reads = set(re.findall(r"secrets\.(\w+)", (REPO / "templates" / "flox-variants.yml.j2").read_text()))
    assert "FLOX_FLOXHUB_TOKEN" in workflow_reads



PINNED = "github:acme/gen-matrix/" + "0123456789abcdef" * 2 + "01234567"


@pytest.mark.parametrize("source", ["unknown", "given"])
def test_the_next_steps_are_true_in_the_repository_made(tmp_path, source):
    root = tmp_path / "builds"
    given = ["--gen-matrix", PINNED] if source == "given" else []
    made = invoke("init", str(root), "--example", "pytorch-2.8", *host_options(H100), *given)
    assert made.exit_code == 0, made.output
    listed = steps(made.output)
    # secrets and the organisation before the push, the push last
    push = next(i for i, step in enumerate(listed) if step.startswith("git remote add origin URL && git push"))
    assert push == len(listed) - 1
    assert [s.split("   #")[0] for s in listed if s.startswith("gh ")] == [
        "gh secret set FLOX_FLOXHUB_TOKEN", "gh variable set FLOX_ORG --body ORG"]
    if source == "given":  # nothing to pin: the build comes first
        assert listed[0].startswith("flox build ") and not any("gen_matrix" in s for s in listed)
        return
    first = listed[0]
    assert "workflow stops at its first step until" in first and "github:gen-matrix/gen-matrix" in first
    # the step, run as printed (the commit filled in), pins it and leaves a current, committed tree
    assert first.split("   #")[0] in (REPO / "docs" / "ci.md").read_text()  # as docs/ci.md shows it
    command = first.split("   #")[0].replace("<40-hex commit>", PINNED.rsplit("/", 1)[1])
    env = dict(os.environ, PATH=f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ['PATH']}",
               GIT_AUTHOR_NAME="Ada", GIT_AUTHOR_EMAIL="ada@example.org", GIT_COMMITTER_NAME="Ada",
               GIT_COMMITTER_EMAIL="ada@example.org")
    subprocess.run(["sh", "-c", command], cwd=root, env=env, check=True, capture_output=True)
    assert load.parse((root / "matrix.yaml").read_text(), "matrix.yaml").data["ci"]["gen_matrix"] == \
        "github:gen-matrix/gen-matrix/" + PINNED.rsplit("/", 1)[1]
    assert git(root, "status", "--porcelain") == "" and len(git(root, "rev-list", "--all").split()) == 2
    assert invoke("check", "--root", str(root)).exit_code == 0
    assert "ci.gen_matrix is not set" not in invoke("generate", "--root", str(root)).output


@pytest.mark.parametrize("how", [("--example", "pytorch-2.8"), ("--example", "pytorch-2.10"), ("--detect",)])
def test_the_new_matrix_names_only_what_its_repository_holds(tmp_path, how):
    root = tmp_path / "builds"
    made = invoke("init", str(root), *how, *host_options(H100))
    assert made.exit_code == 0, made.output
    comments = "".join(line for line in (root / "matrix.yaml").read_text().splitlines(keepends=True)
                       if line.lstrip().startswith("#"))
    named = re.findall(r"(?:\$schema=|--matrix |\b)((?:examples|generator)/\S+)", comments)
    assert [path for path in named if not (root / path).exists()] == []
    if how[0] == "--example":  # the example's own command, made this repository's
        assert "#   gen-matrix   # in this repository: writes every file this matrix generates" in comments


@pytest.mark.parametrize("args", [("--version",), ("var", "GIT_COMMITTER_IDENT")])
def test_git_output_past_the_cap_is_a_located_error(tmp_path, monkeypatch, args):
    """A git that writes past what gen-matrix keeps of a child's output (a cap of 8 bytes
    here) is stopped, and init says so at `git`, with what to do; no output is taken as git's."""
    monkeypatch.setattr(sandbox, "OUTPUT_BYTES", 8)
    monkeypatch.setenv("GIT_COMMITTER_NAME", "A Committer")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "committer@example.org")
    with pytest.raises(GenMatrixError) as raised:
        init._git(tmp_path, *args)
    (problem,) = raised.value.problems
    assert str(problem.where) == "git"
    assert problem.message.startswith("git wrote more than 8 bytes (at least ")
    assert problem.hint == "run `gen-matrix init` again; nothing was written"


@pytest.mark.parametrize("args, command", [(("-c", "core.quotepath=off", "no-such-command"), "git no-such-command"),
                                           (("log", "-1"), "git log")])
def test_git_that_fails_is_an_error_named_by_its_command_with_what_git_said(tmp_path, args, command):
    with pytest.raises(GenMatrixError) as raised:
        init._git(tmp_path, *args)  # tmp_path is no repository: `git log` fails there too
    (problem,) = raised.value.problems
    assert str(problem.where) == command
    assert re.fullmatch(r"failed with exit status [1-9][0-9]*: \S.*", problem.message)
    assert problem.hint == "fix what git says, then run `gen-matrix init` again; nothing was written"


@pytest.mark.parametrize("title", ["acme-torch", "my_*torch* <b>x</b> [a](b) `c`"])
def test_the_new_readme_reads_as_its_title_and_names_the_lock_command_and_variable(title):
    """The README init writes: its heading is the folder's name as text, whatever it holds;
    it gives the lock command the workflow checks for and the organisation variable's default."""
    from generator.commands.init import new_environment
    from generator.model import CI
    from generator.outputs import docs, workflow

    from conftest import markdown_inline

    text = new_environment({}).get_template("init-readme.md.j2").render(title=title, blocks=docs.readme_blocks())
    pieces = markdown_inline(text)
    assert pieces[0] == [("text", title)]
    spans = [content for line in pieces for kind, content in line if kind == "code_inline"]
    assert workflow.LOCK_COMMAND in spans and CI().organisation_variable in spans
