"""adopt and eval evaluate someone else's code: in a box (generator/commands/sandbox.py).
Each test is an attack that worked before the box: a recipe reaching the network, reading
the machine's files or environment into the matrix, looping or growing without end,
outliving gen-matrix, or forging eval's results."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import FAKE_NIXPKGS, REPO, needs_nix, needs_posix, wrapped_package_set
from generator.cli import main
from generator.commands import eval as eval_command, sandbox

pytestmark = needs_nix

FIXTURE = REPO / "tests" / "fixtures" / "adopt"
# Exponential work with little memory: runs for hours.
LOOP = "let f = n: if n == 0 then 0 else f (n - 1) + f (n - 1); in f 60"


def adopt(*args):
    return CliRunner().invoke(main, ["adopt", *map(str, args)], catch_exceptions=False)


@pytest.fixture
def recipes(tmp_path) -> Path:
    target = tmp_path / "recipes"
    shutil.copytree(FIXTURE, target)
    return target


def torch_recipes(root: Path) -> list[Path]:
    return sorted((root / ".flox" / "pkgs").glob("pytorch-*.nix"))


def edit_config(root: Path, extra: str) -> None:
    """`extra` (Nix attributes) in the nixpkgs config of every torch recipe."""
    for recipe in torch_recipes(root):
        text = recipe.read_text()
        assert "allowUnfree = true;" in text
        recipe.write_text(text.replace("allowUnfree = true;", f"allowUnfree = true; {extra}", 1))


@pytest.fixture
def listener():
    """A TCP port on this machine, and the number of connections it was asked for."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.2)
    asked = []
    stop = threading.Event()

    def accept():
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except OSError:
                continue
            asked.append(1)
            connection.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1], asked
    stop.set()
    thread.join()
    server.close()


@pytest.mark.parametrize("how, refused", [
    ('builtins.fetchurl "URL"', True),
    ('builtins.fetchGit "URL"', True),
    ('import (builtins.fetchurl "URL")', True),
    # a helper given the real builtins by an empty scope: its fetchTarball is recorded, not run
    ('(builtins.scopedImport { } ../../nix/helper.nix)', False),
])
def test_adopt_fetches_nothing_and_names_what_the_recipe_tried(how, refused, recipes, listener):
    port, asked = listener
    url = f"http://127.0.0.1:{port}/nixpkgs.tar.gz"
    (recipes / "nix").mkdir()
    (recipes / "nix" / "helper.nix").write_text(f'builtins.fetchTarball "{url}"\n')
    recipe = torch_recipes(recipes)[0]
    recipe.write_text(recipe.read_text().replace("in\n", f"  fetched = {how.replace('URL', url)};\nin\nbuiltins.seq fetched (\n", 1)
                      .rstrip("\n") + ")\n")
    result = adopt(recipes, "--pytorch-version", "2.8.0")
    assert asked == []
    if refused:
        assert result.exit_code == 2, result.output
        assert (f"{recipe}: cannot be read by evaluation: error: access to URI '{url}' is forbidden in restricted mode"
                in result.stderr)
    else:
        assert result.exit_code == 0, result.output


def test_adopt_reads_no_file_outside_the_repository(recipes, tmp_path):
    outside = tmp_path / "secret.nix"
    outside.write_text('"the secret"\n')
    recipe = torch_recipes(recipes)[0]
    recipe.write_text(recipe.read_text().replace("allowUnfree = true;", f"allowUnfree = true; s = import {outside};", 1))
    result = adopt(recipes, "--pytorch-version", "2.8.0")
    assert result.exit_code == 2 and "the secret" not in result.output
    assert f"{recipe}: cannot be read by evaluation: error: access to absolute path '{outside}' is forbidden" in result.stderr


@pytest.mark.parametrize("value, source", [
    ('builtins.readFile SECRET', "builtins.readFile SECRET"),
    ('builtins.getEnv "GEN_MATRIX_TEST_SECRET"', 'builtins.getEnv "GEN_MATRIX_TEST_SECRET"'),
    ('__getEnv "GEN_MATRIX_TEST_SECRET"', 'builtins.getEnv "GEN_MATRIX_TEST_SECRET"'),
    ('"x-${builtins.getEnv "GEN_MATRIX_TEST_SECRET"}"', 'builtins.getEnv "GEN_MATRIX_TEST_SECRET"'),
    ('builtins.currentSystem', "builtins.currentSystem"),
    ('builtins.builtins.currentSystem', "builtins.currentSystem"),
    ('builtins.currentTime', "builtins.currentTime"),
    ('./local.txt', "the path LOCAL"),
    ('"${./local.txt}"', "a string that holds a path or a package"),
])
def test_adopt_carries_only_what_the_recipe_writes(value, source, recipes, tmp_path, monkeypatch):
    secret = tmp_path / "secret.txt"
    secret.write_text("the secret")
    (recipes / ".flox" / "pkgs" / "local.txt").write_text("the secret")
    monkeypatch.setenv("GEN_MATRIX_TEST_SECRET", "the secret")
    edit_config(recipes, f"leak = {value.replace('SECRET', str(secret))};")
    result = adopt(recipes, "--pytorch-version", "2.8.0", "--write")
    assert result.exit_code == 0, result.output
    written = (recipes / "matrix.yaml").read_text()
    assert "leak" not in written and "the secret" not in result.output
    assert sys.platform not in written  # currentSystem's value: x86_64-linux has "linux" in it
    said = source.replace("SECRET", str(secret)).replace("LOCAL", str((recipes / ".flox" / "pkgs" / "local.txt").resolve()))
    for recipe in torch_recipes(recipes):
        assert (f"nixpkgs.config.leak: from {said}, not written in the recipe; left out of the matrix"
                in result.stdout), result.stdout


@pytest.mark.parametrize("name", ["recipes\norganisation: attacker", "recipes\x1b[2J", "tab\there"])
def test_adopt_refuses_a_folder_name_with_a_control_character(name, tmp_path):
    folder = tmp_path / name
    shutil.copytree(FIXTURE, folder)
    result = adopt(folder, "--pytorch-version", "2.8.0", "--write")
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "the folder's name holds a control character" in result.stderr
    assert not (folder / "matrix.yaml").exists()


def test_adopt_stops_a_recipe_that_loops(recipes, monkeypatch):
    monkeypatch.setattr(sandbox, "TIMEOUT_S", 2.0)
    recipe = torch_recipes(recipes)[0]
    recipe.write_text(recipe.read_text().replace("allowUnfree = true;", f"allowUnfree = true; n = {LOOP};", 1))
    started = time.monotonic()
    result = adopt(recipes, "--pytorch-version", "2.8.0")
    assert result.exit_code == 2
    assert f"{recipe}: cannot be read by evaluation: its evaluation ran for more than 2 s" in result.stderr
    assert time.monotonic() - started < 30


def evaluations(monkeypatch) -> list[int]:
    """The number of recipes of each nix-instantiate adopt runs, in order (the real runs)."""
    sizes: list[int] = []
    real = sandbox.run

    def counted(command, *args, **kwargs):
        sizes.append(len(json.loads(command[command.index("request") + 1])["recipes"]))
        return real(command, *args, **kwargs)

    monkeypatch.setattr(sandbox, "run", counted)
    return sizes


def test_adopt_finds_the_failing_recipes_by_halving_the_batch(recipes, monkeypatch):
    failing = torch_recipes(recipes)[:2]
    for recipe in failing:
        recipe.write_text(recipe.read_text().replace("allowUnfree = true;", 'allowUnfree = true; n = throw "no";', 1))
    sizes = evaluations(monkeypatch)
    result = adopt(recipes, "--pytorch-version", "2.8.0")
    assert result.exit_code == 2
    named = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert sorted(named) == sorted(f"error: {recipe}: cannot be read by evaluation: error: no" for recipe in failing)
    total = len(list((recipes / ".flox" / "pkgs").glob("*.nix")))
    assert sizes[0] == total and all(size < total for size in sizes[1:])
    # a half that evaluates is not evaluated again recipe by recipe
    assert sizes.count(1) < total and len(sizes) <= 1 + 2 * total


def test_adopt_has_one_time_budget_and_names_the_recipes_it_did_not_reach(recipes, monkeypatch):
    from generator.commands.adopt import reading

    monkeypatch.setattr(sandbox, "TIMEOUT_S", 1.0)
    monkeypatch.setattr(reading, "BUDGET_S", 2.5)
    for recipe in torch_recipes(recipes):
        recipe.write_text(recipe.read_text().replace("allowUnfree = true;", f"allowUnfree = true; n = {LOOP};", 1))
    sizes = evaluations(monkeypatch)
    result = adopt(recipes, "--pytorch-version", "2.8.0")
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "recipe(s) not evaluated within the 2 s adopt gives all its evaluations: " in result.stderr, result.stderr
    assert len(sizes) <= 3  # 1 s each, 2.5 s in all: the old code ran one more per recipe


def test_adopt_shows_a_recipe_s_long_value_shortened_with_its_length(recipes):
    recipe = recipes / ".flox" / "pkgs" / "pytorch-python313-cpu-avx2.nix"
    long = "builtins.foldl' (s: _: s + s) \"x\" (builtins.genList (x: x) 18)"  # 262,144 characters
    recipe.write_text(recipe.read_text().replace('pname = "torch-cpu-avx2";', f"pname = {long};", 1))
    result = adopt(recipes, "--pytorch-version", "2.8.0")
    assert "Traceback" not in result.output
    # the fact's subject, "pname " and the value, is shown to 200 characters, then its length
    assert "- pname " + "x" * 194 + "... (262,150 characters): the package takes" in result.output
    assert max(len(line) for line in result.output.splitlines()) < 2000


def test_adopt_refuses_a_recipe_value_of_more_items_than_it_reads(recipes):
    recipe = recipes / ".flox" / "pkgs" / "pytorch-python313-cpu-avx2.nix"
    many = "map toString (builtins.genList (x: x) 200000)"
    recipe.write_text(recipe.read_text().replace('[ "-DCMAKE_BUILD_TYPE=Release" ]', f"({many})", 1))
    result = adopt(recipes, "--pytorch-version", "2.8.0")
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"error: {recipe}: cannot be read: " in result.stderr and "items, more than the 10,000 adopt reads" in \
        result.stderr, result.stderr


@needs_posix("a memory limit is an rlimit")
def test_adopt_stops_a_recipe_that_grows(recipes, monkeypatch):
    monkeypatch.setattr(sandbox, "MEMORY_BYTES", 2**30)
    recipe = torch_recipes(recipes)[0]
    grows = "builtins.stringLength (builtins.foldl' (s: _: s + s) \"x\" (builtins.genList (x: x) 40))"
    recipe.write_text(recipe.read_text().replace("allowUnfree = true;", f"allowUnfree = true; n = {grows};", 1))
    result = adopt(recipes, "--pytorch-version", "2.8.0")
    assert result.exit_code == 2
    assert f"{recipe}: cannot be read by evaluation: error: out of memory (evaluation may take 1 GiB)" in result.stderr


def test_adopt_does_not_read_dev_zero(recipes):
    recipe = torch_recipes(recipes)[0]
    recipe.write_text(recipe.read_text().replace("allowUnfree = true;", "allowUnfree = true; z = import /dev/zero;", 1))
    result = adopt(recipes, "--pytorch-version", "2.8.0")
    assert result.exit_code == 2
    assert "access to absolute path '/dev/zero' is forbidden in restricted mode" in result.stderr


@needs_nix
def test_nix_path_names_no_folder_an_evaluation_may_read(tmp_path, monkeypatch):
    """A machine's NIX_PATH would add its entries to the folders restricted evaluation
    allows: none of them is found, while the folder given is read."""
    for name in ("allowed", "outside", "home"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "secret.nix").write_text(f'"{name}"\n')
    monkeypatch.setenv("NIX_PATH", f"nixpkgs={tmp_path / 'outside'}:secret={tmp_path / 'home'}")

    def evaluate(expression: str) -> sandbox.Finished:
        return sandbox.run(["nix-instantiate", "--eval", "--expr", expression,
                            *sandbox.options([tmp_path / "allowed"])], timeout=120)

    assert evaluate(f"import {tmp_path / 'allowed' / 'secret.nix'}").stdout.strip() == '"allowed"'
    for entry in ("nixpkgs", "secret"):
        done = evaluate(f"import <{entry}/secret.nix>")
        assert done.returncode != 0 and done.stdout == "", done.stdout
        assert f"file '{entry}/secret.nix' was not found" in done.stderr


@needs_nix
@pytest.mark.parametrize("setting", ["NIX_CONFIG", "NIX_USER_CONF_FILES"])
def test_no_program_runs_whatever_the_machine_s_nix_configuration_allows(setting, tmp_path, monkeypatch):
    """builtins.exec exists where the machine's Nix configuration allows unsafe native code:
    a confined evaluation has none, from the environment's settings or a nix.conf."""
    allowed = "allow-unsafe-native-code-during-evaluation = true"
    if setting == "NIX_CONFIG":
        monkeypatch.setenv("NIX_CONFIG", allowed)
    else:
        (tmp_path / "nix.conf").write_text(allowed + "\n")
        monkeypatch.setenv("NIX_USER_CONF_FILES", str(tmp_path / "nix.conf"))
    ran = tmp_path / "ran"
    done = sandbox.run(["nix-instantiate", "--eval", "--expr", f'builtins.exec ["sh" "-c" "touch {ran}; echo 42"]',
                        *sandbox.options([tmp_path])], timeout=120)
    assert done.returncode != 0 and "attribute 'exec' missing" in done.stderr
    assert not ran.exists()


# ---- processes ---------------------------------------------------------------------------

def processes_with(marker: str) -> list[int]:
    """The processes whose command line holds `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def wait_for(condition, seconds: float = 30.0) -> bool:
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        if condition():
            return True
        time.sleep(0.1)
    return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG and /proc are Linux's")
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGINT])
def test_no_nix_instantiate_outlives_gen_matrix(how, tmp_path):
    marker = f"loop-{uuid.uuid4().hex}"  # in the recipes' folder, which nix-instantiate is given
    folder = tmp_path / marker
    shutil.copytree(FIXTURE, folder)
    recipe = torch_recipes(folder)[0]
    recipe.write_text(recipe.read_text().replace("allowUnfree = true;", f"allowUnfree = true; n = {LOOP};", 1))
    # gen-matrix as a terminal starts it, whatever started the tests: a job a shell puts in the
    # background (a script's `&`, nohup) inherits SIGINT ignored, and a Ctrl-C never reaches it
    gen_matrix = subprocess.Popen([sys.executable, "-m", "generator", "adopt", str(folder), "--pytorch-version", "2.8.0"],
                                  cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert wait_for(lambda: [pid for pid in processes_with(marker) if pid != gen_matrix.pid])
        gen_matrix.send_signal(how)
        gen_matrix.wait(timeout=30)
        assert wait_for(lambda: processes_with(marker) == [], 10), "nix-instantiate still runs"
    finally:
        gen_matrix.kill()
        for pid in processes_with(marker):
            os.kill(pid, signal.SIGKILL)


@needs_posix("commands run by /bin/sh")
def test_no_process_starts_once_the_runs_are_closed(tmp_path):
    """After Ctrl-C or an error closes a command's runs, a thread that asks for one more gets
    a run that timed out, with nothing read: no process is started."""
    with sandbox.Runs() as runs:
        assert runs.run(["sh", "-c", f"echo started > {tmp_path / 'before'}; echo out"], 60).stdout == "out\n"
    for name in ("after", "again"):
        assert runs.run(["sh", "-c", f"echo started > {tmp_path / name}; echo out; echo err >&2"], 60) == \
            sandbox.Finished(-1, "", "", True)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["before"]


@needs_posix("commands run by /bin/sh, in a session of their own")
@pytest.mark.parametrize("stream", ["stdout", "stderr"])
@pytest.mark.parametrize("cap", [4096, 3 * 2**16 + 5])
def test_a_child_is_stopped_at_the_first_byte_past_the_cap_though_it_then_writes_nothing(stream, cap):
    """A child that passes the cap by one byte, then waits (as a program that printed its
    error waits for input): it is killed there, not when it writes again, nor at the time limit."""
    redirect = " >&2" if stream == "stderr" else ""
    done = sandbox.capture(["sh", "-c", f"head -c {cap + 1} /dev/zero{redirect}; exec sleep 300"], timeout=30, cap=cap)
    assert not done.timed_out, "the child ran on to the time limit"
    assert done.returncode == -signal.SIGKILL and done.dropped == 1
    assert (getattr(done, stream), done.stdout if stream == "stderr" else done.stderr) == ("\0" * cap, "")


# ---- eval --------------------------------------------------------------------------------

@pytest.fixture
def generated(project, run) -> Path:
    assert run("--root", project).exit_code == 0
    return project


def eval_json(run, root: Path, nixpkgs, *names) -> dict:
    result = run("eval", *names, "--root", root, "--json", "--nixpkgs", nixpkgs)
    assert "Traceback" not in result.output
    return {entry["name"]: entry for entry in json.loads(result.stdout)}


def test_a_trace_of_the_evaluated_code_cannot_forge_a_result(generated, run, tmp_path):
    names = ["pytorch-python313-cpu-avx2", "pytorch-python313-cuda12_8-sm90-avx2"]
    forged = json.dumps({"name": names[1], "value": {"drv": "/nix/store/forged.drv", "heavy": "forged",
                                                     "python": "forged"}})
    # abort: a failure tryEval does not catch, after which the traces were read
    body = f'builtins.trace "gen-matrix-eval: {forged.replace(chr(34), chr(92) + chr(34))}" (builtins.abort "stop here")'
    found = eval_json(run, generated, wrapped_package_set(tmp_path / "forging", body), *names)
    assert [entry["drv"] for entry in found.values()] == [None, None]
    assert all("stop here" in entry["error"] for entry in found.values())


def test_eval_fetches_nothing_a_package_set_asks_for(generated, run, tmp_path, listener):
    port, asked = listener
    url = f"http://127.0.0.1:{port}/x"
    found = eval_json(run, generated, wrapped_package_set(tmp_path / "fetching", f'import (builtins.fetchurl "{url}")'),
                      "pytorch-python313-cpu-avx2")
    assert found["pytorch-python313-cpu-avx2"]["error"] == f"access to URI '{url}' is forbidden in restricted mode"
    assert asked == []


def test_eval_reads_no_file_outside_the_package_set_and_repository(generated, run, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (elsewhere / "secret.nix").write_text("{ }\n")
    given = wrapped_package_set(tmp_path_factory.mktemp("given") / "reading", f"import {elsewhere / 'secret.nix'}")
    found = eval_json(run, generated, given, "pytorch-python313-cpu-avx2")
    assert (found["pytorch-python313-cpu-avx2"]["error"]
            == f"access to absolute path '{elsewhere / 'secret.nix'}' is forbidden in restricted mode")


@needs_posix("/dev/zero")
@pytest.mark.parametrize("given, message", [
    ("/dev/zero", "not a folder or a regular file (a FIFO or a device)"),
    ("nowhere", "no such file or folder"),
])
def test_eval_refuses_a_package_set_that_is_not_one(given, message, generated, run, tmp_path):
    result = run("eval", "--root", generated, "--nixpkgs", given if given.startswith("/") else tmp_path / given)
    assert result.exit_code == 2 and message in result.stderr and "Traceback" not in result.output


def test_eval_of_a_file_that_is_no_package_set_names_the_error(generated, run, tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("not nix at all\n")
    result = run("eval", "pytorch-python313-cpu-avx2", "--root", generated, "--nixpkgs", text)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "pytorch-python313-cpu-avx2  error: " in result.stdout


def targets_of(root: Path, nixpkgs: Path, names=None):
    from conftest import expansion_of

    expansion = expansion_of(root)
    variants = tuple(v for v in expansion.variants if names is None or v.name in names)
    sets = eval_command.package_sets(expansion.matrix, (str(nixpkgs),))
    return eval_command.targets(expansion, root, variants, sets)


def test_a_deadline_in_the_past_evaluates_nothing(generated, tmp_path, monkeypatch):
    started = []
    real = sandbox.Runs.run
    monkeypatch.setattr(sandbox.Runs, "run", lambda self, *a, **k: started.append(a) or real(self, *a, **k))
    found = targets_of(generated, FAKE_NIXPKGS)
    results = eval_command.evaluate(found, eval_command.nix_instantiate(), deadline=time.monotonic() - 1)
    assert [r.name for r in results] == [t.name for t in found]
    assert all(r.error == eval_command.OUT_OF_TIME and r.drv is None for r in results)
    assert started == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_deadline_stops_an_evaluation_that_loops(generated, tmp_path):
    marker = f"loop-{uuid.uuid4().hex}"
    looping = wrapped_package_set(tmp_path / marker, LOOP)
    found = targets_of(generated, looping)
    started = time.monotonic()
    results = eval_command.evaluate(found, eval_command.nix_instantiate(), deadline=started + 3)
    assert time.monotonic() - started < 15
    assert all(r.error == eval_command.OUT_OF_TIME for r in results)
    assert processes_with(marker) == []


def test_a_process_that_runs_too_long_is_stopped_and_named(generated, tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox, "TIMEOUT_S", 2.0)
    found = targets_of(generated, wrapped_package_set(tmp_path / "looping", LOOP), ["pytorch-python313-cpu-avx2"])
    (result,) = eval_command.evaluate(found, eval_command.nix_instantiate())
    assert result.error == "nix-instantiate ran for more than 2 s and was stopped (does the recipe loop?)"
