"""The workflow's steps as a user's repository gets them, run.

In gen-matrix's own checkout the workflow installs the checkout; a user's repository gets
gen-matrix from its pin (a flake reference, or the commit a pip install from git records)
through its Flox environment, or, where nothing pins it, a step that stops. These render the
workflow for each kind of source, read it with PyYAML as GitHub does, and run a step's
`run:` script as GitHub's default shell does (`bash -e`), with stand-in tools on a PATH of
their own: no Nix, Flox or network of the host's is reached.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from generator import layout, pin
from generator.outputs import workflow

from conftest import expansion_of, with_ci

BASH = shutil.which("bash")
pytestmark = pytest.mark.skipif(BASH is None, reason="the steps are bash")

MATRIX = """\
pytorch: {version: "2.8.0"}
nixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}
gpu:
  python: ["3.13"]
  cuda: ["12.8"]
  sm: [sm75, sm90]
  isa: [avx2]
cpu:
  python: ["3.13"]
  isa: [avx2]
"""
FLAKE = pin.Source("github:acme/gen-matrix/" + "0123456789abcdef" * 2 + "01234567", False, "ci.gen_matrix")
PIP = pin.Source("git+https://git.example.org/acme/gen-matrix?ref=main&rev=" + "fedcba9876543210" * 2 + "fedcba98",
                 False, "a gen-matrix pip installed from git")
NOTHING = pin.Source(None, False, "a gen-matrix installed from a local folder")
CHECKOUT = pin.Source(None, True, "this checkout of gen-matrix")
# The step that gives the jobs their gen-matrix, by the source: one of these, exactly.
INSTALL, PINNED, STOP = ("Install gen-matrix from this checkout", "Put the pinned gen-matrix on PATH",
                         "Stop, as nothing pins gen-matrix")
# What the scripts of these steps call beyond bash's builtins, from the host.
HOST_TOOLS = ("bash", "cat", "dirname", "mkdir", "readlink", "tail")
PROFILE = "/nix/var/nix/profiles/default/bin"
CA_BUNDLE = "/etc/ssl/certs/flox-ca-bundle.crt"


@pytest.fixture(scope="module")
def expansion(tmp_path_factory):
    root = tmp_path_factory.mktemp("user")
    (root / "matrix.yaml").write_text(MATRIX)
    return expansion_of(root)


def documents(expansion, source) -> dict[str, dict]:
    """The two workflow files, as GitHub reads them, by path."""
    return {path: yaml.safe_load(text) for path, text in workflow.render(expansion, source).items()}


def steps(document: dict) -> list[dict]:
    return [step for job in document["jobs"].values() for step in job.get("steps", ())]


def named(document: dict, name: str) -> list[dict]:
    return [step for step in steps(document) if step.get("name") == name]


def on(document: dict) -> dict:
    """The `on:` mapping: YAML 1.1, which PyYAML reads, takes the key `on` for true."""
    return document.get("on", document.get(True))


class Shell:
    """A step's script run with bash -e, as GitHub runs a `run:` without `shell:`, in a
    working directory of its own, with the host tools it needs and stand-ins on PATH."""

    def __init__(self, tmp_path: Path):
        self.root = tmp_path
        self.bin = tmp_path / "bin"
        self.bin.mkdir(parents=True)
        self.work = tmp_path / "work"
        self.work.mkdir()
        for tool in HOST_TOOLS:
            (self.bin / tool).symlink_to(shutil.which(tool))
        self.github_path = tmp_path / "github-path"
        self.github_env = tmp_path / "github-env"
        self.github_output = tmp_path / "github-output"

    def tool(self, name: str, script: str, folder: Path | None = None) -> Path:
        path = (folder or self.bin) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("#!" + BASH + "\n" + script)
        path.chmod(0o755)
        return path

    def run(self, step: dict, env: dict | None = None, replace: dict | None = None):
        script = step["run"]
        for old, new in (replace or {}).items():
            assert script.count(old) >= 1, old  # the script still names what the test stands in for
            script = script.replace(old, new)
        for file in (self.github_path, self.github_env, self.github_output):
            file.write_text("")
        environment = {"PATH": str(self.bin), "HOME": str(self.root), "RUNNER_TEMP": str(self.root),
                       "GITHUB_PATH": str(self.github_path), "GITHUB_ENV": str(self.github_env),
                       "GITHUB_OUTPUT": str(self.github_output), "GITHUB_STEP_SUMMARY": os.devnull,
                       **{key: str(value) for key, value in step.get("env", {}).items()}, **(env or {})}
        return subprocess.run([BASH, "-e", "-c", script], cwd=self.work, env=environment, capture_output=True,
                              text=True, timeout=60)


@pytest.mark.parametrize("source, step", [(CHECKOUT, INSTALL), (FLAKE, PINNED), (PIP, PINNED), (NOTHING, STOP)])
def test_each_job_gets_gen_matrix_by_one_step_of_its_source(expansion, source, step):
    for path, document in documents(expansion, source).items():
        found = [s["name"] for s in steps(document) if s.get("name") in (INSTALL, PINNED, STOP)]
        assert found == [step], (path, found)


@pytest.mark.parametrize("source", [FLAKE, PIP])
def test_the_pinned_gen_matrix_is_the_flox_environments(tmp_path, expansion, source):
    """The folder of the environment's gen-matrix, its link resolved, goes on PATH; an
    environment without one stops the job with an error on the manifest."""
    shell = Shell(tmp_path)
    env_bin = tmp_path / "flox-env" / "bin"
    env_bin.mkdir(parents=True)
    # flox activate prints a line of its own before the command's output
    shell.tool("flox", '[ "$1" = activate ] && [ "$2" = -- ] || exit 9\nshift 2\n'
                       "echo \"You are now using the environment 'acme'.\"\n"
                       f'PATH="{env_bin}:$PATH" exec "$@"\n')
    program = shell.tool("gen-matrix", "exit 0\n", tmp_path / "store" / "abc-gen-matrix" / "bin")
    for document in documents(expansion, source).values():
        step = named(document, PINNED)[0]
        assert step["env"]["MANIFEST"] == layout.MANIFEST_FILE
        for entry in env_bin.iterdir():
            entry.unlink()
        missing = shell.run(step)
        assert missing.returncode == 1
        assert missing.stdout.startswith(f"::error file={layout.MANIFEST_FILE}::the Flox environment gives no gen-matrix")
        assert shell.github_path.read_text() == ""
        (env_bin / "gen-matrix").symlink_to(program)
        found = shell.run(step)
        assert found.returncode == 0, found.stderr
        assert shell.github_path.read_text() == f"{program.parent}\n"


def test_without_a_pin_the_jobs_stop_and_say_how_to_pin(tmp_path, expansion):
    shell = Shell(tmp_path)
    for document in documents(expansion, NOTHING).values():
        result = shell.run(named(document, STOP)[0])
        assert result.returncode == 1
        assert result.stdout.startswith("::error file=matrix.yaml::ci.gen_matrix is not set")
        assert "set ci.gen_matrix to a flake reference pinned to a commit" in result.stdout


@pytest.mark.parametrize("manifest", [layout.MANIFEST_FILE, "env: #1/manifest.toml", "'quoted' \"manifest\".toml"])
def test_the_manifest_path_reaches_the_step_as_it_is(monkeypatch, expansion, manifest):
    monkeypatch.setattr(workflow, "MANIFEST_FILE", manifest)
    for source in (FLAKE, PIP):
        for document in documents(expansion, source).values():
            assert named(document, PINNED)[0]["env"]["MANIFEST"] == manifest


def test_nix_goes_on_path_from_the_profile_only_where_a_command_is_missing(tmp_path, expansion):
    """Both Nix commands on PATH: nothing added. Either missing: the default profile's folder,
    or an error where it has no nix-instantiate. The CA bundle is set only where nothing set
    NIX_SSL_CERT_FILE and the bundle exists."""
    profile = tmp_path / "profile"
    bundle = tmp_path / "ca-bundle.crt"
    replace = {PROFILE: str(profile), CA_BUNDLE: str(bundle)}
    step_name = "Put Nix's commands on PATH, with the CA bundle its downloads need"
    found = [named(document, step_name) for document in documents(expansion, FLAKE).values()]
    assert [len(each) for each in found] == [1, 1]
    for number, (on_path, in_profile, set_before, bundle_there) in enumerate(
            itertools.product([(), ("nix-instantiate",), ("nix-build",), ("nix-instantiate", "nix-build")],
                              [False, True], [False, True], [False, True])):
        shell = Shell(tmp_path / str(number))
        for tool in on_path:
            shell.tool(tool, "exit 0\n")
        shutil.rmtree(profile, ignore_errors=True)
        if in_profile:
            shell.tool("nix-instantiate", "exit 0\n", profile)
        bundle.unlink(missing_ok=True)
        if bundle_there:
            bundle.write_text("certificates\n")
        env = {"NIX_SSL_CERT_FILE": "/run/own.crt"} if set_before else {}
        case = (on_path, in_profile, set_before, bundle_there)
        for each in found:
            result = shell.run(each[0], env, replace)
            needs_profile = len(on_path) < 2
            if needs_profile and not in_profile:
                assert result.returncode == 1, case
                assert result.stdout.startswith(f"::error::no nix-instantiate on PATH or in {profile}"), case
                continue
            assert result.returncode == 0, (case, result.stderr)
            assert shell.github_path.read_text() == (f"{profile}\n" if needs_profile else ""), case
            wanted = f"NIX_SSL_CERT_FILE={bundle}\n" if bundle_there and not set_before else ""
            assert shell.github_env.read_text() == wanted, case


@pytest.mark.parametrize("branch", ["main", "1.10", "yes", "release/2.8", "null"])
def test_pushes_to_the_main_branch_trigger_the_workflow_whatever_its_name(expansion, branch):
    document = documents(with_ci(expansion, main_branch=branch), FLAKE)[layout.WORKFLOW_FILE]
    assert on(document)["push"]["branches"] == [branch]


@pytest.mark.parametrize("runner", [("ubuntu-latest",), ("self-hosted", "linux", "x64")])
def test_the_small_jobs_run_on_the_plan_runner(expansion, runner):
    document = documents(with_ci(expansion, plan_runner=runner), FLAKE)[layout.WORKFLOW_FILE]
    jobs = {name: job["runs-on"] for name, job in document["jobs"].items() if "runs-on" in job}
    assert jobs == {"plan": list(runner), "mark-published": list(runner)}


@pytest.mark.parametrize("source", [CHECKOUT, FLAKE, PIP])
def test_the_workflow_reads_as_written_without_json_escapes(expansion, source):
    """A reader of the workflow sees each command as it is typed: `&&`, not `\\u0026\\u0026`."""
    for text in workflow.render(expansion, source).values():
        assert "\\u" not in text
    document = documents(expansion, source)[layout.WORKFLOW_FILE]
    lock = named(document, "Check that the Flox environment's lock is committed and current")[0]
    assert lock["env"]["LOCK_COMMAND"] == workflow.LOCK_COMMAND
    assert f"LOCK_COMMAND: \"{workflow.LOCK_COMMAND}\"" in workflow.render(expansion, source)[layout.WORKFLOW_FILE]


def test_the_selection_reads_the_measured_folder_only_where_there_is_one(tmp_path, expansion):
    """`gen-matrix ci` gets `--measured` with the folder where the repository has it, and not
    where it has none or a file of that name."""
    step = named(documents(expansion, FLAKE)[layout.WORKFLOW_FILE], "Select the variants whose build inputs changed")[0]
    assert step["env"]["MEASURED"] == layout.MEASURED_DIR
    for number, (event, measured) in enumerate(itertools.product(["pull_request", "push"], ["none", "folder", "file"])):
        shell = Shell(tmp_path / str(number))
        arguments = tmp_path / f"arguments-{number}"
        shell.tool("git", "exit 1\n")  # no published marker yet
        shell.tool("gen-matrix", f'printf "%s\\n" "$@" > "{arguments}"\nwhile [ "$1" != --plan ]; do shift; done\n'
                                 'mkdir -p "$2" && echo build=true > "$2/github-output"\n')
        if measured == "folder":
            (shell.work / layout.MEASURED_DIR).mkdir()
        elif measured == "file":
            (shell.work / layout.MEASURED_DIR).write_text("")
        env = {"EVENT": event, "BASE_REF": "main", "SINCE": "", "REF": "refs/heads/main"}
        result = shell.run(step, env)
        assert result.returncode == 0, result.stderr
        given = arguments.read_text().splitlines()
        assert ("--measured" in given) == (measured == "folder"), (event, measured)
        if measured == "folder":
            assert given[given.index("--measured") + 1] == layout.MEASURED_DIR
        assert "build=true" in shell.github_output.read_text().splitlines()
