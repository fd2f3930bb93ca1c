"""gen-matrix ci and the generated workflow: what CI rebuilds, how it shards, and that GitHub accepts it."""

from __future__ import annotations

import collections
import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
from unittest import mock
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.commands import ci as ci_
from generator import run as generator_run
from generator.pipeline import state
from generator.layout import PKGS_DIR, WORKFLOW_BUILD_FILE, WORKFLOW_FILE, locate

from conftest import FAKE_NIXPKGS, NIX_INSTANTIATE, REPO, SYNTHETIC, expansion_of, needs_nix, needs_posix, nix_eval, wrapped_package_set

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git not found: --changed-since reads the history with it")
BIN = Path(sys.executable).parent  # the test extra's tools land beside the interpreter


def tool(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path=str(BIN))
    if found is None:
        pytest.skip(f"{name} not found: install the test extra (pip install -e '.[test]')")
    return found


def git(root: Path, *args: str) -> str:
    return subprocess.run([GIT, *args], cwd=root, check=True, capture_output=True, text=True).stdout


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def generate(run, root: Path):
    result = run("generate", "--root", root)
    assert result.exit_code == 0, result.output
    return result


def ci(run, root: Path, *args: str):
    result = run("ci", "--root", root, *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def names(document: dict) -> list[str]:
    """Every build of the jobs, sorted: a job builds a torch and then its companions."""
    return sorted(name for entry in document["include"] for name in entry["builds"].split())


def metadata_only(document: dict) -> list[str]:
    return sorted(name for entry in document["include"] for name in entry["metadata_only"].split())


def variant_names(root: Path, where=lambda variant: True) -> list[str]:
    return sorted(v.name for v in expansion_of(root).variants if where(v))


def edit(root: Path, change) -> None:
    """Apply `change` to matrix.yaml's data (its comments do not survive; nothing reads them)."""
    path = root / "matrix.yaml"
    data = yaml.safe_load(path.read_text())
    change(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def override_sm(sm: str, **fields):
    """A change adding `knowledge: sm: SM: FIELDS` to the matrix."""
    return lambda data: data.setdefault("knowledge", {}).setdefault("sm", {}).setdefault(sm, {}).update(fields)


def on_sm(sm: str):
    return lambda variant: variant.sm is not None and variant.sm.name == sm


@pytest.fixture
def repo(project, run) -> Path:
    """A git repository with the shipped matrix generated and committed."""
    git(project, "init", "-q", "-b", "main")
    git(project, "config", "user.name", "Test")
    git(project, "config", "user.email", "test@example.invalid")
    git(project, "config", "commit.gpgsign", "false")
    generate(run, project)
    commit(project, "Generate the matrix")
    return project


def workflow(root: Path) -> dict:
    return yaml.safe_load((root / WORKFLOW_FILE).read_text())


def build_job(root: Path) -> dict:
    """The job of the build workflow, which the workflow's build job calls once per shard."""
    return yaml.safe_load((root / WORKFLOW_BUILD_FILE).read_text())["jobs"]["build"]


def every_step(root: Path) -> list[dict]:
    """The steps of both workflow files."""
    return [step for job in workflow(root)["jobs"].values() for step in job.get("steps", ())] + build_job(root)["steps"]


def steps(job: dict) -> dict:
    return {step.get("name") or step["uses"]: step for step in job["steps"]}


# --- selection -------------------------------------------------------------------------


def test_without_a_revision_every_variant_on_the_runner_of_its_kind_and_system(run):
    document = ci(run, REPO)
    expansion = expansion_of(REPO)
    assert names(document) == sorted(v.name for v in expansion.variants)
    assert document["deleted"] == []
    ci_settings = expansion.matrix.ci
    by_name = {v.name: v for v in expansion.variants}
    for entry in document["include"]:
        torch = by_name[entry["name"]]
        assert torch.package == "pytorch" and entry["system"] == torch.system
        expected = ci_settings.kind_runners.get(torch.kind, {}).get(torch.system, ci_settings.runners[torch.system])
        assert entry["runner"] == list(expected)
        assert entry["metadata_only"] == "" and entry["gpu"] is False
    # CUDA builds go to self-hosted builders by default; CPU ones to the runners of their system
    assert {e["runner"][0] for e in document["include"] if "-cuda" in e["name"]} == {"self-hosted"}
    assert {e["runner"][0] for e in document["include"] if "-cpu-arm" in e["name"]} == {"ubuntu-24.04-arm"}


def test_a_torch_and_its_companions_are_one_job_torch_first(run):
    document = ci(run, REPO)
    expansion = expansion_of(REPO)
    jobs = {entry["name"]: entry["builds"].split() for entry in document["include"]}
    companions = [v for v in expansion.variants if v.is_companion]
    assert companions
    for variant in companions:
        assert variant.name in jobs[variant.torch][1:]
    assert all(builds[0] == name for name, builds in jobs.items())
    assert len(jobs) == sum(not v.is_companion for v in expansion.variants)


@needs_git
def test_nothing_changed_selects_nothing(repo, run):
    assert ci(run, repo, "--changed-since", "HEAD") == {"include": [], "deleted": [], "selected_by": "text",
                                                       "by_text": [], "why": {}}
    assert ci(run, repo, "--changed-since", "HEAD", "--shards") == []


@needs_git
def test_one_sm_metadata_edit_selects_exactly_that_sms_variants_as_metadata_only(repo, run):
    edit(repo, override_sm("sm90", gpus=["H100", "H200", "GH200", "H20"]))
    generate(run, repo)
    commit(repo, "Name the H20 among the Hopper GPUs")
    document = ci(run, repo, "--changed-since", "HEAD~1")
    expected = variant_names(repo, on_sm("sm90"))
    assert 0 < len(expected) < len(variant_names(repo))
    assert names(document) == expected
    assert metadata_only(document) == expected
    assert document["deleted"] == []


@needs_git
def test_one_sm_build_edit_selects_exactly_that_sms_variants_for_a_rebuild(repo, run):
    edit(repo, override_sm("sm61", cudnn=True))
    generate(run, repo)
    commit(repo, "Build the Pascal variants with cuDNN")
    document = ci(run, repo, "--changed-since", "HEAD~1")
    assert names(document) == variant_names(repo, on_sm("sm61"))
    assert document["include"] and metadata_only(document) == []


def plan_of(run, root: Path, folder: Path, *args: str) -> dict:
    result = run("ci", "--root", root, "--plan", folder, *args)
    assert result.exit_code == 0, result.output
    return json.loads((folder / "plan.json").read_text())


@needs_git
def test_the_plan_names_every_build_and_why_and_where_metadata_only_builds_get_their_heavy_build(repo, run, tmp_path):
    edit(repo, override_sm("sm90", gpus=["H100", "H200", "GH200", "H20"]))
    edit(repo, override_sm("sm61", cudnn=True))
    generate(run, repo)
    commit(repo, "Name the H20; build Pascal with cuDNN")
    found = plan_of(run, repo, tmp_path / "catalog", "--changed-since", "HEAD~1", "--organisation", "acme")
    builds = {entry["name"]: entry for entry in found["builds"]}
    assert sorted(builds) == sorted(variant_names(repo, on_sm("sm90")) + variant_names(repo, on_sm("sm61")))
    for name, entry in builds.items():
        wrapper = "-sm90-" in name
        assert entry["metadata_only"] is wrapper
        assert entry["builds"] == ("wrapper" if wrapper else "full")
        assert entry["why"] == ("its wrapper alone changed (metadata only): the heavy build is unchanged" if wrapper
                                else "its heavy build changed")
    assert found["heavy_source"] == "catalog"
    summary = (tmp_path / "catalog" / "summary.md").read_text()
    assert "fetch their unchanged heavy build from the Flox catalog of\nacme" in summary
    with_catalog = found["estimated_minutes"]

    # no organisation and no cache: nowhere to fetch from, so they count as full builds
    nowhere = plan_of(run, repo, tmp_path / "nowhere", "--changed-since", "HEAD~1")
    assert nowhere["heavy_source"] is None
    assert {entry["builds"] for entry in nowhere["builds"]} == {"full"}
    sm90 = len(variant_names(repo, on_sm("sm90")))
    costs = expansion_of(repo).matrix.knowledge.build_costs
    assert nowhere["estimated_minutes"] - with_catalog == sm90 * (costs["gpu"].minutes - costs["wrapper"].minutes)
    summary = (tmp_path / "nowhere" / "summary.md").read_text()
    assert f"No source for the heavy builds of {sm90} metadata-only build(s)" in summary
    assert "counts them as full builds" in summary


def test_the_summary_counts_and_names_the_first_of_each_group_and_stays_small(big, run, tmp_path):
    plan_of(run, big, tmp_path / "plan")
    summary = (tmp_path / "plan" / "summary.md").read_text()
    everything = names(ci(run, big))
    assert "| torch, gpu | 300 |" in summary
    first = sorted(everything)[:10]
    assert f"| torch, gpu | 300 | {' '.join(first)} and 290 more |" in summary
    assert sorted(everything)[10] not in summary
    assert len(summary.encode()) < 8_000
    found = json.loads((tmp_path / "plan" / "plan.json").read_text())
    assert sorted(entry["name"] for entry in found["builds"]) == everything
    for written in (tmp_path / "plan").iterdir():
        assert b"\r" not in written.read_bytes(), f"{written.name}: LF line endings on every system"


@needs_git
def test_the_working_tree_counts_before_it_is_committed(repo, run):
    edit(repo, override_sm("sm61", cudnn=True))
    assert names(ci(run, repo, "--changed-since", "HEAD")) == variant_names(repo, on_sm("sm61"))


@needs_git
def test_a_pin_edit_selects_every_variant(repo, run):
    edit(repo, lambda data: data["nixpkgs"].update(rev="0123456789abcdef0123456789abcdef01234567"))
    generate(run, repo)
    commit(repo, "Move the nixpkgs pin")
    document = ci(run, repo, "--changed-since", "HEAD~1")
    assert names(document) == variant_names(repo)
    assert metadata_only(document) == []


@needs_git
def test_filling_in_a_pins_sha256_for_the_same_rev_selects_nothing(repo, run):
    edit(repo, lambda data: data["nixpkgs"].update(sha256="1" * 52))
    generate(run, repo)
    assert '"1111' in (repo / "nix/pins.nix").read_text()  # the recipes do fetch with it
    commit(repo, "Fill in the pin's hash")
    assert ci(run, repo, "--changed-since", "HEAD~1")["include"] == []
    # ...and a hash for another rev is a new pin: every torch rebuilds
    edit(repo, lambda data: data["nixpkgs"].update(rev="0123456789abcdef0123456789abcdef01234567"))
    generate(run, repo)
    assert names(ci(run, repo, "--changed-since", "HEAD")) == variant_names(repo)


def by_derivations(run, root: Path, since: str, nixpkgs: Path = FAKE_NIXPKGS) -> dict:
    return ci(run, root, "--changed-since", since, "--by", "derivations", "--nixpkgs", nixpkgs)


@needs_git
@needs_nix
def test_by_derivations_a_recipe_that_did_not_evaluate_at_the_revision_falls_back_to_the_text_identity(repo, run):
    library = repo / "nix/lib/default.nix"
    library.write_text(library.read_text() + "\n{")  # a syntax error, committed
    commit(repo, "A broken library")
    edit(repo, override_sm("sm90", gpus=["H100", "H200", "GH200", "H20"]))
    generate(run, repo)  # writes the library back
    document = by_derivations(run, repo, "HEAD")
    assert document["selected_by"] == "derivations"
    assert document["by_text"] == variant_names(repo)
    assert names(document) == metadata_only(document) == variant_names(repo, on_sm("sm90"))
    summary = run("ci", "--root", repo, "--changed-since", "HEAD", "--by", "derivations", "--nixpkgs", FAKE_NIXPKGS,
                  "--summary").stdout
    assert "Selected by derivations" in summary and "did not evaluate at the base revision" in summary


@needs_git
@needs_nix
def test_by_derivations_a_build_changed_at_the_revision_is_selected_though_its_text_identity_is_not(repo, run,
                                                                                                     tmp_path):
    torch = repo / "nix/lib/torch.nix"
    text = torch.read_text()
    torch.write_text(text.replace("  built = configured.overrideAttrs (finalAttrs: old: {\n",
                                  "  built = configured.overrideAttrs (finalAttrs: old: {\n    edited = true;\n", 1))
    assert torch.read_text() != text
    commit(repo, "An attribute more in every torch build, the state file as it was")
    generate(run, repo)  # writes the library back
    assert ci(run, repo, "--changed-since", "HEAD")["include"] == []  # the state file is the same
    found = plan_of(run, repo, tmp_path / "plan", "--changed-since", "HEAD", "--by", "derivations",
                    "--nixpkgs", FAKE_NIXPKGS)
    assert sorted(entry["name"] for entry in found["builds"]) == variant_names(repo)
    assert {(entry["why"], entry["metadata_only"]) for entry in found["builds"]} == {(ci_.REASONS[ci_.BUILD], False)}
    assert (found["selected_by"], found["by_text"]) == ("derivations", [])


@needs_git
@needs_nix
@needs_posix("a nix-instantiate wrapped in a shell script")
def test_by_derivations_the_base_revision_evaluates_what_differs_there_in_the_same_processes_as_now(
        repo, run, tmp_path, monkeypatch):
    from generator.commands import eval as eval_command

    edit(repo, override_sm("sm61", cudnn=True))  # sm61's recipes differ from the base's, no other
    generate(run, repo)
    log = tmp_path / "specs"
    folder = tmp_path / "bin"
    folder.mkdir()
    wrapper = folder / "nix-instantiate"  # logs the recipes each process is given
    wrapper.write_text(f'#!/bin/sh\nfor a; do [ "$p" = spec ] && {{ cat "$a"; echo; }} >> {log}; p=$a; done\n'
                       f'exec {NIX_INSTANTIATE} "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(eval_command.os, "cpu_count", lambda: 1)  # one batch per package set and system
    monkeypatch.setattr(eval_command.os, "sysconf", lambda name: 2**40 if name == "SC_PHYS_PAGES" else 4096)
    document = by_derivations(run, repo, "HEAD")
    assert names(document) == variant_names(repo, on_sm("sm61"))
    specs = [json.loads(line) for line in log.read_text().splitlines()]
    files = [Path(recipe["file"]) for spec in specs for recipe in spec["recipes"]]
    now = sorted(file.stem for file in files if file.is_relative_to(repo.resolve()))
    base = sorted(file.stem for file in files if not file.is_relative_to(repo.resolve()))
    assert now == variant_names(repo)  # every recipe now, once
    assert base == variant_names(repo, on_sm("sm61"))  # at the base, those that differ, once
    assert len(specs) == len({v.system for v in expansion_of(repo).variants})  # no process for the base alone


@needs_git
@needs_nix
def test_by_derivations_a_recipe_that_does_not_evaluate_now_is_selected(repo, run, tmp_path):
    refusing = wrapped_package_set(tmp_path / "refusing",
                                'if args.config.cudaSupport or false then throw "no CUDA here" else fake args')
    document = by_derivations(run, repo, "HEAD", refusing)
    expansion = expansion_of(repo)
    with_cuda = sorted(v.name for v in expansion.variants if (expansion.by_name[v.torch] if v.torch else v).cuda)
    assert names(document) == with_cuda and metadata_only(document) == []
    # nothing changed, and everything evaluates: nothing selected
    assert by_derivations(run, repo, "HEAD")["include"] == []


@needs_git
def test_a_selection_is_read_back_for_shards_summary_and_names(repo, run, tmp_path):
    edit(repo, override_sm("sm61", cudnn=True))
    generate(run, repo)
    saved = tmp_path / "selection.json"
    saved.write_text(run("ci", "--root", repo, "--changed-since", "HEAD").stdout)
    for option in ("--shards", "--summary"):
        assert run("ci", "--root", repo, "--selection", saved, option).stdout == \
            run("ci", "--root", repo, "--changed-since", "HEAD", option).stdout
    listed = run("ci", "--root", repo, "--selection", saved, "--names").stdout.split()
    assert sorted(listed) == variant_names(repo, on_sm("sm61"))
    # the plan of a selection read back says why each was selected, as the selection did
    edit(repo, override_sm("sm90", gpus=["H100", "H200", "GH200", "H20"]))
    generate(run, repo)
    saved.write_text(run("ci", "--root", repo, "--changed-since", "HEAD").stdout)
    read_back = plan_of(run, repo, tmp_path / "read-back", "--selection", saved, "--organisation", "acme")
    assert read_back == plan_of(run, repo, tmp_path / "made", "--changed-since", "HEAD", "--organisation", "acme")
    assert {entry["why"] for entry in read_back["builds"] if entry["metadata_only"]} == {ci_.REASONS[ci_.WRAPPER]}
    assert {entry["why"] for entry in read_back["builds"] if not entry["metadata_only"]} == {ci_.REASONS[ci_.BUILD]}
    saved.write_text('{"include": [{"name": "pytorch-gone"}]}')
    result = run("ci", "--root", repo, "--selection", saved)
    assert result.exit_code == 2 and "not a selection printed by `gen-matrix ci`" in result.stderr


def test_a_selection_nested_thousands_deep_is_an_error_not_a_traceback(project, run):
    saved = project / "selection.json"
    saved.write_text("[" * 100_000 + "]" * 100_000)
    result = run("ci", "--root", project, "--selection", saved)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.stderr.splitlines() == [
        f"error: {saved}: not a selection printed by `gen-matrix ci`: nested thousands of levels deep",
        "  hint: write it with `gen-matrix ci [--changed-since REF] > FILE` from this matrix"]


@needs_nix
def test_a_tarballs_store_path_does_not_depend_on_the_hash_given_for_it(tmp_path):
    """What the fix above rests on: fetchTarball names the unpacked tree by its content
    ("source"), so the pin's store path is one whether sha256 is given or not."""
    import tarfile

    tree = tmp_path / "nixpkgs-x"
    tree.mkdir()
    (tree / "default.nix").write_text("{ ... }: { }\n")
    archive = tmp_path / "x.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(tree, arcname="nixpkgs-x")
    url = f"file://{archive}"
    without = nix_eval(f'builtins.fetchTarball {{ url = "{url}"; }}')
    sha256 = subprocess.run(["nix-hash", "--type", "sha256", "--base32", without], capture_output=True, text=True,
                            check=True).stdout.strip()
    with_hash = nix_eval(f'builtins.fetchTarball {{ url = "{url}"; sha256 = "{sha256}"; }}')
    assert with_hash == without and without.startswith("/nix/store/")


@needs_git
def test_a_removed_variant_is_listed_as_deleted_not_built(repo, run):
    before = variant_names(repo, on_sm("sm120"))
    edit(repo, lambda data: data["gpu"]["sm"].remove("sm120"))
    generate(run, repo)
    commit(repo, "Drop the consumer Blackwell variants")
    document = ci(run, repo, "--changed-since", "HEAD~1")
    assert (document["include"], document["deleted"]) == ([], before)
    assert before


@needs_git
def test_a_revision_without_a_state_file_makes_every_variant_new(project, run):
    git(project, "init", "-q", "-b", "main")
    git(project, "config", "user.name", "Test")
    git(project, "config", "user.email", "test@example.invalid")
    commit(project, "Only the matrix")
    generate(run, project)
    document = ci(run, project, "--changed-since", "HEAD")
    assert names(document) == variant_names(project)
    assert metadata_only(document) == []


@needs_git
def test_the_base_revisions_recipes_are_read_whatever_their_archive_weighs(repo, run, tmp_path, monkeypatch):
    """At 50,000 variants the recipes archive to more than gen-matrix reads of a program's
    output: the base revision's tree goes through a file, and comes out whole."""
    from generator.commands import sandbox

    edit(repo, override_sm("sm61", cudnn=True))
    generate(run, repo)
    commit(repo, "sm61 with cuDNN")
    edit(repo, override_sm("sm86", cudnn=True))
    generate(run, repo)  # the working tree differs from HEAD and from HEAD~1
    monkeypatch.setattr(sandbox, "OUTPUT_BYTES", 2048)  # well under either archive
    for ref in ("HEAD", "HEAD~1"):
        listed = subprocess.run(["git", "ls-tree", "-r", "-z", ref, "--", PKGS_DIR, "nix"], cwd=repo,
                                capture_output=True, check=True).stdout.decode().strip("\0").split("\0")
        blobs = {line.split("\t", 1)[1]: line.split()[2] for line in listed}
        assert len(blobs) > 60
        tree = tmp_path / ref.replace("~", "-")
        tree.mkdir()
        assert ci_._tree_at(repo, ref, tree)
        found = sorted(str(path.relative_to(tree)) for path in tree.rglob("*") if path.is_file())
        assert found == sorted(blobs)  # every file, and nothing besides (no archive left behind)
        for name, blob in blobs.items():
            shown = subprocess.run(["git", "cat-file", "blob", blob], cwd=repo, capture_output=True, check=True)
            assert (tree / name).read_bytes() == shown.stdout


@needs_git
@needs_nix
def test_by_derivations_a_revision_without_recipes_makes_every_variant_new(project, run):
    git(project, "init", "-q", "-b", "main")
    git(project, "config", "user.name", "Test")
    git(project, "config", "user.email", "test@example.invalid")
    commit(project, "Only the matrix")
    assert not (project / ".flox/pkgs").exists()
    generate(run, project)
    document = by_derivations(run, project, "HEAD")
    assert document["why"] == dict.fromkeys(variant_names(project), ci_.NEW)
    assert names(document) == variant_names(project) and document["by_text"] == []


@needs_git
def test_a_companion_follows_its_torch(repo, run):
    expansion = expansion_of(repo)
    companions = [v for v in expansion.variants if v.package != "pytorch"]
    if not companions:
        pytest.skip("the shipped matrix has no torchvision/torchaudio companions to follow a torch")
    torch = {v.name: v for v in expansion.variants if v.package == "pytorch"}
    assert all(torch[v.torch].combination == v.combination for v in companions)
    companion = companions[0]
    sm = companion.sm.name if companion.sm else None
    assert sm is not None, "the check edits the companion's SM"
    edit(repo, override_sm(sm, cudnn=not companion.sm.cudnn))
    generate(run, repo)
    commit(repo, "Change one SM's build")
    selected = set(names(ci(run, repo, "--changed-since", "HEAD~1")))
    for variant in companions:
        assert (variant.name in selected) == (variant.torch in selected), variant.name
    assert companion.name in selected


@needs_git
def test_a_bad_revision_is_a_clear_error(repo, run):
    result = run("ci", "--root", repo, "--changed-since", "origin/no-such-branch")
    assert result.exit_code == 2
    assert "--changed-since origin/no-such-branch: no such commit" in result.stderr
    assert "fetch-depth: 0" in result.stderr
    assert result.stdout == ""
    assert "Traceback" not in result.output


def test_an_option_in_place_of_a_revision_is_refused(project, run):
    result = run("ci", "--root", project, "--changed-since", "--output=x")
    assert result.exit_code == 2
    assert "not a git revision" in result.stderr
    assert not (project / "x").exists()


@needs_git
def test_a_folder_outside_git_is_a_clear_error(project, run):
    result = run("ci", "--root", project, "--changed-since", "HEAD")
    assert result.exit_code == 2
    assert "no such commit" in result.stderr and "not a git repository" in result.stderr


SHIPPED = expansion_of(REPO)
NOW = state.parse(generator_run.outputs(locate(str(REPO / "matrix.yaml"), str(REPO)), SHIPPED, state.read(REPO))[state.STATE_FILE],
                  state.STATE_FILE)
HOW = st.sampled_from(["new", "same", "build", "metadata", "wrapper"])


@settings(max_examples=200, deadline=None)
@given(how=st.fixed_dictionaries({name: HOW for name in NOW}),
       gone=st.sets(st.from_regex(r"pytorch-gone-[a-z0-9]{1,8}", fullmatch=True), max_size=5),
       size=st.integers(1, 256))
def test_selection_is_exactly_what_differs_and_shards_partition_it(how, gone, size):
    before = {name: state.Entry("b", "m", "w", 3) for name in gone}
    for name, entry in NOW.items():
        if how[name] == "same":
            before[name] = state.Entry(entry.build, entry.metadata, entry.wrapper, entry.revision)
        elif how[name] == "build":
            before[name] = state.Entry("old" + entry.build, "old" + entry.metadata, entry.wrapper, entry.revision)
        elif how[name] == "metadata":
            before[name] = state.Entry(entry.build, "old" + entry.metadata, entry.wrapper, entry.revision)
        elif how[name] == "wrapper":  # the wrapper's code changed: republished, torch not rebuilt
            before[name] = state.Entry(entry.build, entry.metadata, "old" + entry.wrapper, entry.revision)
    selection = ci_.select(SHIPPED, ci_.changes_by_text(SHIPPED, NOW, before), tuple(set(before) - set(NOW)))
    built = [name for job in selection.jobs for name in job.builds]
    assert sorted(built) == sorted(n for n in NOW if how[n] != "same")
    assert len(set(built)) == len(built)  # each torch and companion in one job only
    assert {name for job in selection.jobs for name in job.metadata_only} == \
        {n for n in NOW if how[n] in ("metadata", "wrapper")}
    for job in selection.jobs:  # a job is one torch's group, the torch first when it is built
        assert all(SHIPPED.by_name[name].torch in (None, job.name) for name in job.builds)
        assert all(SHIPPED.by_name[name].is_companion for name in job.builds[1:])
    assert selection.deleted == tuple(sorted(gone))
    shards = selection.shards(size)
    assert sorted(job.name for shard in shards for job in shard) == [job.name for job in selection.jobs]
    assert all(0 < len(shard) <= size for shard in shards)
    assert all(len({(job.runner, job.gpu) for job in shard}) == 1 for shard in shards)  # one runner a shard
    # no more shards than the whole matrix, each runner's torches in shards of `size`, would fill
    per_runner = collections.Counter(SHIPPED.matrix.ci.placement(v) for v in SHIPPED.variants if not v.is_companion)
    assert len(shards) <= sum(-(-count // size) for count in per_runner.values())


# --- sharding ----------------------------------------------------------------------------



CACHIX = """\
  cache:
    type: cachix
    substituter: https://acme.cachix.org
    public_key: acme.cachix.org-1:AAAA
    name: acme
    secret: CACHIX_AUTH_TOKEN
"""
ATTIC = "  cache: {type: attic, substituter: 'https://attic.example/acme', name: acme, secret: ATTIC_TOKEN}\n"
S3 = "  cache: {type: s3, substituter: 's3://acme-nix?region=eu-west-1', name: 's3://acme-nix?region=eu-west-1', secret: NIX_SIGNING_KEY}\n"


@pytest.fixture
def big(tmp_path, run) -> Path:
    (tmp_path / "matrix.yaml").write_text(SYNTHETIC)
    generate(run, tmp_path)
    return tmp_path


def test_300_variants_make_2_shards_of_at_most_256(big, run):
    everything = names(ci(run, big))
    assert len(everything) == 300
    assert ci(run, big, "--shards") == [0, 1]
    first, second = (names(ci(run, big, "--shard", str(k))) for k in (0, 1))
    assert (len(first), len(second)) == (256, 44)
    assert first + second == everything
    assert ci(run, big, "--shard", "2") == {"include": []}
    assert set(ci(run, big, "--shard", "0")) == {"include"}  # every other key would be a matrix axis


def test_the_build_job_is_one_matrix_of_calls_to_the_build_workflow(big, run):
    jobs = workflow(big)["jobs"]
    assert sorted(jobs) == ["build", "mark-published", "plan"]
    assert jobs["mark-published"]["needs"] == ["plan", "build"]
    build = jobs["build"]
    assert build["uses"] == "./" + WORKFLOW_BUILD_FILE
    assert build["if"] == "needs.plan.outputs.build == 'true'"
    assert build["strategy"]["matrix"] == "${{ fromJSON(needs.plan.outputs.shards) }}"
    assert build["with"] == {"shard": "${{ matrix.shard }}", "runner": "${{ toJSON(matrix.runner) }}",
                             "slots": "${{ toJSON(matrix.slots) }}",
                             "publish": "${{ needs.plan.outputs.publish == 'true' }}"}
    called = build_job(big)
    assert called["runs-on"] == "${{ fromJSON(inputs.runner) }}"
    assert called["strategy"]["matrix"] == {"slot": "${{ fromJSON(inputs.slots) }}"}
    assert sorted(jobs["plan"]["outputs"]) == ["build", "move_marker", "publish", "shards"]
    # one gen-matrix run selects for every shard; its outputs are what the shards read
    select = steps(jobs["plan"])["Select the variants whose build inputs changed"]["run"]
    assert len(re.findall(r"^\s*gen-matrix ", select, re.M)) == 1 and "--plan" in select and "--shard" not in select
    plan = big / "plan"
    assert run("ci", "--root", big, "--plan", plan).exit_code == 0
    lines = dict(line.split("=", 1) for line in (plan / "github-output").read_text().splitlines())
    assert sorted(lines) == ["build", "shards"] and lines["build"] == "true"
    matrix = json.loads(lines["shards"])["include"]
    assert [entry["shard"] for entry in matrix] == ci(run, big, "--shards") == [0, 1]
    # each entry holds a shard's runner and slots; each slot's job is in the plan's JSON
    shards = json.loads((plan / "plan.json").read_text())["shards"]
    for k in (0, 1):
        jobs = ci(run, big, "--shard", str(k))["include"]
        assert matrix[k] == {"shard": k, "runner": jobs[0]["runner"], "gpu": jobs[0]["gpu"],
                             "slots": list(range(len(jobs)))}
        assert shards[k] == jobs
    assert len(lines["shards"]) < 4_000  # 300 jobs: the slots and the runners, whatever they build


def test_shard_size_from_the_command_line_and_from_the_matrix(big, run):
    assert ci(run, big, "--shard-size", "100", "--shards") == [0, 1, 2]
    (big / "matrix.yaml").write_text(SYNTHETIC + "ci: {shard_size: 50}\n")
    generate(run, big)
    assert ci(run, big, "--shards") == [0, 1, 2, 3, 4, 5]
    plan = big / "plan"
    assert run("ci", "--root", big, "--plan", plan).exit_code == 0
    outputs = dict(line.split("=", 1) for line in (plan / "github-output").read_text().splitlines())
    assert [len(entry["slots"]) for entry in json.loads(outputs["shards"])["include"]] == [50] * 6


def test_shard_and_shards_exclude_each_other(big, run):
    result = run("ci", "--root", big, "--shards", "--shard", "0")
    assert result.exit_code == 2 and "exclude each other" in result.output


# --- settings and validation -----------------------------------------------------------


def test_ci_settings_reach_the_workflow(tmp_path, run):
    (tmp_path / "matrix.yaml").write_text(SYNTHETIC + """\
build: {jobs: 12}
ci:
  organisation_variable: PYTORCH_ORG
  organisation: acme
  main_branch: trunk
  timeout_minutes: 2880
  plan_runner: [self-hosted, small]
  runners:
    x86_64-linux: [self-hosted, linux, x64, big]
  gpu_runners:
    - labels: [self-hosted, linux, x64, h100]
      system: x86_64-linux
      sm: [sm90]
""")
    generate(run, tmp_path)
    document = workflow(tmp_path)
    assert document[True]["push"]["branches"] == ["trunk"]  # PyYAML reads the key `on` as true
    assert document["jobs"]["plan"]["runs-on"] == ["self-hosted", "small"]
    build = build_job(tmp_path)
    assert build["timeout-minutes"] == 2880
    assert build["strategy"]["fail-fast"] is False
    # build.jobs caps the compile jobs through the builder's cores, not through the recipes
    assert steps(build)["Build"]["env"]["JOBS"] == "12"
    assert 'export NIX_CONFIG="cores = $cores' in steps(build)["Build"]["run"]
    assert "NIX_CONFIG" not in steps(build)["Build"]["env"]  # no ci.cache: no substituter
    publish = steps(build)["Publish to the Flox catalog"]
    assert publish["env"]["ORGANISATION"] == "${{ vars.PYTORCH_ORG }}"
    assert publish["env"]["ORGANISATION_DEFAULT"] == "acme"
    assert publish["env"]["FLOX_FLOXHUB_TOKEN"] == "${{ secrets.FLOX_FLOXHUB_TOKEN }}"
    assert 'flox publish -o "$organisation" "$name"' in publish["run"]
    # every build job smoke-tests what it built, on a GPU runner or not, before it publishes
    names_ = [step.get("name") for step in build["steps"]]
    smoke = steps(build)["Smoke-test every build before it is published"]
    assert "if" not in smoke
    assert names_.index("Build") < names_.index(smoke["name"]) < names_.index("Publish to the Flox catalog")
    assert 'nix-build ".flox/pkgs/$name.nix" -A pythonEnv -o "$RUNNER_TEMP/python-$name"' in smoke["run"]
    assert ('gen-matrix smoke "$name" --builder --python "$RUNNER_TEMP/python-$name/bin/python" --result "result-$name"'
            in smoke["run"])
    # the plan stops on a recipe that does not evaluate before it ends, and so before any
    # build job; the selection evaluated them, and nothing evaluates them again
    plan = [step.get("name") for step in document["jobs"]["plan"]["steps"]]
    assert plan.index("Select the variants whose build inputs changed") < plan.index(
        "Stop where a selected recipe does not evaluate, before anything builds") == len(plan) - 1
    assert "gen-matrix" not in steps(document["jobs"]["plan"])[plan[-1]]["run"]
    assert "eval-errors.txt" in steps(document["jobs"]["plan"])[plan[-1]]["run"]
    assert document["jobs"]["build"]["needs"] == "plan"

    entries = {entry["name"]: entry for entry in ci(run, tmp_path)["include"]}
    on_gpu = {name for name, entry in entries.items() if entry["gpu"]}
    assert on_gpu == {n for n in entries if "-sm90-" in n} and len(on_gpu) == 30
    assert {tuple(entries[n]["runner"]) for n in on_gpu} == {("self-hosted", "linux", "x64", "h100")}
    # the other CUDA builds go to the built-in labels for GPU builders, not to `runners`
    assert {tuple(e["runner"]) for n, e in entries.items() if n not in on_gpu} == \
        {("self-hosted", "linux", "x64", "pytorch-builder")}


PINNED = "github:acme/gen-matrix/" + "0123456789abcdef" * 2 + "01234567"


def test_a_matrix_repository_runs_the_gen_matrix_its_flox_environment_pins(tmp_path, run):
    """Both files put the Flox environment's gen-matrix (ci.gen_matrix, fixed by its lock) on
    PATH before any step runs it; nothing is installed by a name from a package index."""
    (tmp_path / "matrix.yaml").write_text(SYNTHETIC + f"ci: {{gen_matrix: '{PINNED}'}}\n")
    generate(run, tmp_path)
    for job in (workflow(tmp_path)["jobs"]["plan"], build_job(tmp_path)):
        names_ = [step.get("name") for step in job["steps"]]
        put = names_.index("Put the pinned gen-matrix on PATH")
        assert names_.index("Put Nix's commands on PATH, with the CA bundle its downloads need") < put
        first = min(i for i, step in enumerate(job["steps"])
                    if re.search(r"^\s*(gen-matrix |.*\bdo gen-matrix |\s+gen-matrix smoke)", step.get("run", ""), re.M))
        assert put < first
        assert "flox activate -- bash -c 'command -v gen-matrix'" in job["steps"][put]["run"]
    assert not any("pip install" in step.get("run", "") for step in every_step(tmp_path))
    assert not any("setup-python" in step.get("uses", "") for step in workflow(tmp_path)["jobs"]["plan"]["steps"])
    manifest = (tmp_path / ".flox/env/manifest.toml").read_text()
    assert f'gen-matrix.flake = "{PINNED}"' in manifest


@needs_posix("the step runs with bash and stand-ins for flox and gen-matrix")
def test_the_pinned_gen_matrix_step_puts_the_environments_program_on_path(tmp_path, run):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "matrix.yaml").write_text(SYNTHETIC + f"ci: {{gen_matrix: '{PINNED}'}}\n")
    generate(run, repo)
    step = steps(build_job(repo))["Put the pinned gen-matrix on PATH"]
    store = tmp_path / "store" / "bin"
    store.mkdir(parents=True)
    (store / "gen-matrix").write_text("#!/bin/sh\necho pinned\n")
    (store / "gen-matrix").chmod(0o755)
    env_bin = tmp_path / "env" / "bin"
    env_bin.mkdir(parents=True)
    (env_bin / "gen-matrix").symlink_to(store / "gen-matrix")
    shims = tmp_path / "shims"
    shims.mkdir()
    # flox activate -- CMD: runs CMD with the environment's bin first on PATH, after a message
    (shims / "flox").write_text(f"""#!/usr/bin/env bash
[ "$1" = activate ] && [ "$2" = -- ] || exit 64
shift 2
echo "activating" >&2
PATH="{env_bin}:$PATH" "$@"
""")
    (shims / "flox").chmod(0o755)
    github_path = tmp_path / "github-path"
    env = {"PATH": f"{shims}:/usr/bin:/bin", "GITHUB_PATH": str(github_path), **step["env"]}
    done = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=repo, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert github_path.read_text() == f"{store}\n"  # the store path, not the environment's link
    (env_bin / "gen-matrix").unlink()
    done = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=repo, capture_output=True, text=True, env=env)
    assert done.returncode == 1 and "::error file=.flox/env/manifest.toml::the Flox environment gives no gen-matrix" in done.stdout


@pytest.mark.parametrize("pyproject, checkout", [
    ('[project]\nname = "gen-matrix"\n', True),  # the gen-matrix repository: this commit's generator
    ('[project]\nname = "something-else"\n', False),  # a repository of its own
    (None, False),  # a matrix repository made by `gen-matrix init`: no pyproject
])
def test_only_gen_matrix_s_own_checkout_installs_itself(tmp_path, run, pyproject, checkout):
    (tmp_path / "matrix.yaml").write_text(SYNTHETIC + f"ci: {{gen_matrix: '{PINNED}'}}\n")
    if pyproject is not None:
        (tmp_path / "pyproject.toml").write_text(pyproject)
    generate(run, tmp_path)
    for job in (workflow(tmp_path)["jobs"]["plan"], build_job(tmp_path)):
        named = steps(job)
        assert ("Install gen-matrix from this checkout" in named) is checkout
        assert ("Put the pinned gen-matrix on PATH" in named) is not checkout
        if checkout:
            assert named["Install gen-matrix from this checkout"]["run"] == "python -m pip install ."


def test_where_nothing_pins_gen_matrix_the_workflow_stops_first_and_says_what_to_set(tmp_path, run):
    (tmp_path / "matrix.yaml").write_text(SYNTHETIC)
    result = generate(run, tmp_path)
    assert "ci.gen_matrix is not set" in result.stderr
    plan = workflow(tmp_path)["jobs"]["plan"]["steps"]
    stop = next(i for i, step in enumerate(plan) if step.get("name") == "Stop, as nothing pins gen-matrix")
    assert stop < next(i for i, step in enumerate(plan) if step.get("run") == "gen-matrix check")
    done = subprocess.run(["bash", "-e", "-c", plan[stop]["run"]], capture_output=True, text=True)
    assert done.returncode == 1 and "set ci.gen_matrix to a flake reference pinned to a commit" in done.stdout


# The steps that publish, push, or fetch the organisation's own builds: the only ones a secret reaches.
SECRET_STEPS = {"Fetch the unchanged heavy builds from the organisation's catalog", "Publish to the Flox catalog",
                "Push what was built to the binary cache"}
# `${{ secrets.NAME != '' }}` gives a step whether a secret is set, never its value
SECRET_PRESENCE = re.compile(r"\$\{\{\s*secrets\.[A-Za-z0-9_]+\s*[!=]=\s*''\s*\}\}")


def holds_secret(value) -> bool:
    """Whether a step or job, as YAML gives it, hands on a secret's value."""
    return "secrets." in SECRET_PRESENCE.sub("", json.dumps(value))


@pytest.mark.parametrize("cache", ["", CACHIX, ATTIC, S3])
def test_no_secret_reaches_a_step_that_installs_or_runs_gen_matrix_or_the_build(tmp_path, run, cache):
    (tmp_path / "matrix.yaml").write_text(SYNTHETIC + f"ci:\n  gen_matrix: '{PINNED}'\n" + cache)
    generate(run, tmp_path)
    given = [step.get("name") for step in every_step(tmp_path) if holds_secret(step)]
    assert set(given) <= SECRET_STEPS and "Publish to the Flox catalog" in given
    for step in every_step(tmp_path):
        assert "secrets." not in step.get("run", "")  # only through env:, and only the steps above
    caller = workflow(tmp_path)["jobs"]
    assert [name for name, job in caller.items() if holds_secret(job)] == ["build"]
    assert all("${{ secrets." in value for value in caller["build"]["secrets"].values())


def test_runners_per_kind_come_before_runners_per_system(tmp_path, run):
    (tmp_path / "matrix.yaml").write_text(SYNTHETIC + """\
cpu: {python: ["3.13"], isa: [avx2]}
ci:
  runners:
    x86_64-linux: [ubuntu-latest]
  kind_runners:
    gpu:
      x86_64-linux: [self-hosted, cuda, 64-cores]
""")
    generate(run, tmp_path)
    runners = {entry["name"].split("-")[2]: tuple(entry["runner"]) for entry in ci(run, tmp_path)["include"]}
    assert runners == {"cuda12_8": ("self-hosted", "cuda", "64-cores"), "cuda12_9": ("self-hosted", "cuda", "64-cores"),
                       "cpu": ("ubuntu-latest",)}


def test_shipped_workflow_builds_on_pull_requests_and_publishes_on_main_without_overlap():
    document = yaml.safe_load((REPO / WORKFLOW_FILE).read_text())
    assert set(document[True]) == {"pull_request", "push", "workflow_dispatch"}
    assert document[True]["push"]["branches"] == ["main"]
    assert document["concurrency"]["cancel-in-progress"] == "${{ github.event_name == 'pull_request' }}"
    assert document["concurrency"]["group"] == "${{ github.workflow }}-${{ github.ref }}"
    plan, build = document["jobs"]["plan"], build_job(REPO)
    assert steps(plan)["actions/checkout@v4"]["with"]["fetch-depth"] == 0
    assert "gen-matrix check" in [step.get("run") for step in plan["steps"]]
    assert steps(build)["actions/checkout@v4"]["with"]["fetch-depth"] == 0
    assert "flox/install-flox-action@v2" in steps(build)
    assert build["runs-on"] == "${{ fromJSON(inputs.runner) }}"
    assert steps(build)["Publish to the Flox catalog"]["if"] == "inputs.publish"
    assert yaml.safe_load((REPO / WORKFLOW_BUILD_FILE).read_text())[True] == {"workflow_call": mock.ANY}
    assert document["jobs"]["mark-published"]["permissions"] == {"contents": "write"}
    assert document["permissions"] == {"contents": "read"}
    assert "Smoke test on the GPU" not in steps(build)  # the shipped matrix names no GPU runner


@pytest.mark.parametrize("ci_section, where, words", [
    ("ci: {shard_size: 300}\n", "matrix.yaml:8:", "ci.shard_size must be at most 256"),
    ("ci:\n  gpu_runners:\n    - {labels: [gpu], system: x86_64-linux, sm: [sm9O]}\n",
     "matrix.yaml:10:", "did you mean 'sm90'"),
    ("ci:\n  gpu_runners:\n    - {labels: [a], system: x86_64-linux, sm: [sm90]}\n"
     "    - {labels: [b], system: x86_64-linux, sm: [sm80, sm90]}\n",
     "matrix.yaml:11:", "sm90 on x86_64-linux already has a GPU runner, ci.gpu_runners[0]"),
    ("ci: {organisation_variable: GITHUB_ORG}\n", "matrix.yaml:8:", "organisation_variable"),
    ("ci: {runners: {x86_64-linux: ['${{ secrets.TOKEN }}']}}\n", "matrix.yaml:8:", "not valid"),
    ("ci: {runners: {riscv64-linux: [rv]}}\n", "matrix.yaml:8:", "unknown key 'riscv64-linux'"),
    ("ci: {cache: {type: cachix}}\n", "matrix.yaml:8:", "ci.cache of type cachix needs 'name'"),
    ("ci: {cache: {type: nfs}}\n", "matrix.yaml:8:", "ci.cache.type"),
    ("ci: {cache: {type: attic, name: acme, secret: T}}\n", "matrix.yaml:8:", "needs 'substituter'"),
    ("ci: {kind_runners: {companion: {x86_64-linux: [big]}}}\n", "matrix.yaml:8:", "unknown key 'companion'"),
    ("ci: {gen_matrix: 'gen-matrix; curl example.org | sh'}\n", "matrix.yaml:8:", "ci.gen_matrix"),
])
def test_bad_ci_settings_are_located_errors_and_write_nothing(tmp_path, run, ci_section, where, words):
    (tmp_path / "matrix.yaml").write_text(SYNTHETIC + ci_section)
    result = run("generate", "--root", tmp_path)
    assert result.exit_code == 2, result.output
    assert where in result.stderr and words in result.stderr, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["matrix.yaml"]


# --- the shipped workflow, checked as GitHub would ---------------------------------------


def actionlint(root: Path) -> subprocess.CompletedProcess:
    """actionlint with shellcheck, which checks every run: script; without shellcheck actionlint
    skips those checks silently, so a missing one fails the test rather than passing it."""
    found = {name: shutil.which(name, path=str(BIN)) or shutil.which(name) for name in ("actionlint", "shellcheck")}
    missing = [name for name, path in found.items() if path is None]
    assert not missing, f"{', '.join(missing)} not found: install the test extra (pip install -e '.[test]')"
    return subprocess.run([found["actionlint"], "-no-color", "-shellcheck", found["shellcheck"], WORKFLOW_FILE,
                           WORKFLOW_BUILD_FILE], cwd=root, capture_output=True, text=True)


def test_shipped_workflow_passes_actionlint_with_shellcheck():
    result = actionlint(REPO)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("schema", ["vendor.github-workflows", "custom.github-workflows-require-timeout"])
def test_shipped_workflow_matches_the_github_workflow_schema(schema):
    result = subprocess.run([tool("check-jsonschema"), "--builtin-schema", schema, WORKFLOW_FILE, WORKFLOW_BUILD_FILE],
                            cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


# Two Nix remote builders, with their secrets.
BUILDERS = ("  builders:\n"
            "    - {url: 'ssh-ng://nix@a.example.org', systems: [x86_64-linux], features: [big-parallel], max_jobs: 8,\n"
            "       ssh_key_secret: A_KEY, known_hosts_secret: A_HOST}\n"
            "    - {url: 'ssh://b.example.org', systems: [x86_64-linux, aarch64-linux], ssh_key_secret: B_KEY,\n"
            "       known_hosts_secret: B_HOST}\n")


@pytest.mark.parametrize("cache", ["", CACHIX, ATTIC, S3, "  cache: {type: flox}\n", CACHIX + BUILDERS])
def test_sharded_workflow_with_a_gpu_runner_and_a_cache_passes_actionlint_with_shellcheck(tmp_path, run, cache):
    (tmp_path / "matrix.yaml").write_text(SYNTHETIC + "ci:\n  shard_size: 100\n  gpu_runners:\n"
                                          "    - {labels: [self-hosted, h100], system: x86_64-linux, sm: [sm90]}\n"
                                          + cache)
    generate(run, tmp_path)
    (tmp_path / ".github" / "actionlint.yaml").write_text("self-hosted-runner:\n  labels: [h100]\n")
    result = actionlint(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    # 270 torches on the builders' runner in 3 shards, the 30 of sm90 on the GPU runner in one
    assert ci(run, tmp_path, "--shards") == [0, 1, 2, 3]


@pytest.mark.parametrize("schema", ["vendor.github-workflows", "custom.github-workflows-require-timeout"])
def test_a_300_variant_workflow_passes_actionlint_and_the_github_workflow_schema(big, schema):
    result = actionlint(big)
    assert result.returncode == 0, result.stdout + result.stderr
    result = subprocess.run([tool("check-jsonschema"), "--builtin-schema", schema, WORKFLOW_FILE, WORKFLOW_BUILD_FILE],
                            cwd=big, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_cache_reaches_the_build_jobs(tmp_path, run):
    (tmp_path / "matrix.yaml").write_text(SYNTHETIC + "ci:\n" + CACHIX)
    generate(run, tmp_path)
    build = build_job(tmp_path)
    assert steps(build)["Build"]["env"]["NIX_CONFIG"] == (
        "extra-substituters = https://acme.cachix.org\n"
        "extra-trusted-public-keys = acme.cachix.org-1:AAAA")
    push = steps(build)["Push what was built to the binary cache"]
    assert push["env"]["CACHE_TOKEN"] == "${{ secrets.CACHIX_AUTH_TOKEN }}"
    assert 'CACHIX_AUTH_TOKEN="$CACHE_TOKEN" "$client/bin/cachix" push "$CACHE_NAME" "${paths[@]}"' in push["run"]
    summary = run("ci", "--root", tmp_path, "--summary")
    assert "Estimated build time: 900.0 runner-hours" in summary.stdout and "estimate" in summary.stdout


def test_the_workflow_is_owned_like_every_output(tmp_path, run):
    (tmp_path / "matrix.yaml").write_text(SYNTHETIC)
    generate(run, tmp_path)
    path = tmp_path / WORKFLOW_FILE
    assert path.read_text().startswith("# Generated from matrix.yaml by gen-matrix")
    path.write_text(path.read_text().replace("fail-fast: false", "fail-fast: true"))
    result = run("check", "--root", tmp_path)
    assert result.exit_code == 1 and "-      fail-fast: true" in result.stdout


# --- pre-commit ---------------------------------------------------------------------------


def test_pre_commit_hook_runs_check_on_the_files_it_reads():
    (hook,) = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert hook["entry"] == "gen-matrix check"
    assert hook["language"] == "python" and hook["pass_filenames"] is False
    files = re.compile(hook["files"])
    for path in ("matrix.yaml", "templates/torch.nix.j2", "generator/knowledge.yaml", "matrix.state.json",
                 ".flox/pkgs/pytorch-python313-cpu-avx2.nix", "nix/pins.nix", "nix/lib/torch.nix",
                 "nix/fixes/avx-only-kernels.nix", WORKFLOW_FILE, "docs/reference.md"):
        assert files.search(path), path
    for path in ("tests/test_ci.py", "docs/matrix.yaml.md", "pyproject.toml"):
        assert not files.search(path), path


def test_a_selection_reads_back_as_it_was_printed():
    """The plan job prints the selection; the shard jobs read it back: every job's name,
    system, runner, builds, metadata-only builds and GPU flag, what is deleted, how it was
    selected and which recipes were compared by text."""
    import dataclasses

    gpu = next(v for v in SHIPPED.variants if v.kind == "gpu" and not v.is_companion)
    cpu = next(v for v in SHIPPED.variants if v.kind == "cpu" and not v.is_companion)
    companion = next(v for v in SHIPPED.variants if v.is_companion)
    changes = {gpu.name: ci_.BUILD, cpu.name: ci_.WRAPPER, companion.name: ci_.WRAPPER}
    selection = ci_.select(SHIPPED, changes, ("pytorch-gone",), ci_.DERIVATIONS, (cpu.name,))
    # a job on a GPU runner of its SM, as a matrix with ci.gpu_runners places it
    selection = dataclasses.replace(selection, jobs=(dataclasses.replace(selection.jobs[0], gpu=True), *selection.jobs[1:]))
    back = ci_.read_selection(SHIPPED, json.dumps(selection.as_json()), "selection.json")
    assert (back.jobs, back.deleted, back.selected_by, back.by_text, dict(back.why)) == \
        (selection.jobs, ("pytorch-gone",), ci_.DERIVATIONS, (cpu.name,), changes)


def a_selection(**changes) -> dict:
    """A selection of the shipped matrix as `gen-matrix ci` prints it: a GPU torch with its
    companions, and a CPU torch whose wrapper alone changed; `changes` replaces top-level fields."""
    torch = next(v for v in SHIPPED.variants if v.torch is None and any(c.torch == v.name for c in SHIPPED.variants))
    companions = sorted(v.name for v in SHIPPED.variants if v.torch == torch.name)
    cpu = next(v for v in SHIPPED.variants if v.kind == "cpu" and not v.is_companion)
    changes_ = {name: ci_.BUILD for name in (torch.name, *companions)} | {cpu.name: ci_.WRAPPER}
    document = ci_.select(SHIPPED, changes_, ("pytorch-gone",), ci_.TEXT).as_json()
    document.update(changes)
    return document


def with_job(index: int | None = None, **fields) -> dict:
    """The selection with `fields` of its job `index` changed [default: the job with companions]."""
    document = a_selection()
    document["include"][GROUP if index is None else index].update(fields)
    return document


def refusal(document) -> str:
    from generator.errors import GenMatrixError

    text = document if isinstance(document, str) else json.dumps(document)
    with pytest.raises(GenMatrixError) as error:
        ci_.read_selection(SHIPPED, text, "selection.json")
    (problem,) = error.value.problems
    assert problem.hint == "write it with `gen-matrix ci [--changed-since REF] > FILE` from this matrix"
    return f"{problem.where}: {problem.message}"


def test_the_selection_these_tests_alter_is_read_back_as_it_is():
    document = a_selection()
    assert len(document["include"]) == 2 and len(document["include"][GROUP]["builds"].split()) > 1
    assert ci_.read_selection(SHIPPED, json.dumps(document), "selection.json").as_json() == document


NOT_ONE = "selection.json: not a selection printed by `gen-matrix ci`: "
GROUP = next(index for index, job in enumerate(a_selection()["include"]) if " " in job["builds"])
OTHER = 1 - GROUP
TORCH = a_selection()["include"][GROUP]["name"]
COMPANION = a_selection()["include"][GROUP]["builds"].split()[1]
AT = f"include[{GROUP}]"


@pytest.mark.parametrize("document, message", [
    ("{", "selection.json:1:2: not a selection printed by `gen-matrix ci`: not JSON: Expecting property name "
          "enclosed in double quotes"),
    ("[1]", NOT_ONE + "the file must be an object, not a list"),
    ({k: v for k, v in a_selection().items() if k != "selected_by"}, NOT_ONE + "the file lacks 'selected_by'"),
    (a_selection(extra=1), NOT_ONE + "the file has the unknown field 'extra'"),
    (a_selection(include={}), NOT_ONE + "include must be a list of jobs, not an object"),
    (with_job(name="pytorch-nowhere"), NOT_ONE + f"{AT}.name: 'pytorch-nowhere' is not a variant of the matrix"),
    (with_job(name=COMPANION), NOT_ONE + f"{AT}.name: '{COMPANION}' is a companion; a job is named after its torch"),
    (with_job(system="../../etc"), NOT_ONE + f"{AT}.system: '../../etc' is not a system gen-matrix builds for "
                                             "(x86_64-linux, aarch64-linux, x86_64-darwin, aarch64-darwin)"),
    (with_job(system="aarch64-darwin"), NOT_ONE + f"{AT}.system: '{TORCH}' builds on x86_64-linux, not aarch64-darwin"),
    (with_job(system=["x86_64-linux"]), NOT_ONE + f"{AT}.system must be a system, not a list"),
    (with_job(runner=[["self-hosted"]]), NOT_ONE + f"{AT}.runner[0] must be a string, not a list"),
    (with_job(runner="self-hosted"), NOT_ONE + f"{AT}.runner must be a list, not a string"),
    (with_job(runner=["self hosted; rm -rf /"]), NOT_ONE + f"{AT}.runner[0]: 'self hosted; rm -rf /' is not valid"),
    (with_job(runner=[]), NOT_ONE + f"{AT}.runner is empty"),
    (with_job(builds=""), NOT_ONE + f"{AT}.builds is empty; the job builds {TORCH} or its companions"),
    (with_job(builds=[TORCH, COMPANION]), NOT_ONE + f"{AT}.builds must be a string of variant names separated by "
                                                    "spaces, not a list"),
    (with_job(OTHER, builds=7), NOT_ONE + f"include[{OTHER}].builds must be a string of variant names separated by "
                                          "spaces, not a number"),
    (with_job(builds=f"{COMPANION} {TORCH}"), NOT_ONE + f"{AT}.builds[1]: '{TORCH}' is not built in this "
                                                        f"job, which builds {TORCH} (first) and its companions"),
    (with_job(OTHER, builds=f"{a_selection()['include'][OTHER]['name']} {COMPANION}"),
     NOT_ONE + f"include[{OTHER}].builds[1]: '{COMPANION}' is not built in this job, which builds "
               f"{a_selection()['include'][OTHER]['name']} (first) and its companions"),
    (with_job(builds="pytorch-<b>gone</b>"), NOT_ONE + f"{AT}.builds[0]: 'pytorch-<b>gone</b>' is not a variant "
                                                       "of the matrix"),
    (with_job(metadata_only="pytorch-python313-cpu-avx2"),
     NOT_ONE + f"{AT}.metadata_only[0]: 'pytorch-python313-cpu-avx2' is not among the job's builds"),
    (with_job(metadata_only=5), NOT_ONE + f"{AT}.metadata_only must be a string of variant names separated by "
                                          "spaces, not a number"),
    (with_job(gpu="false"), NOT_ONE + f"{AT}.gpu must be true or false, not a string"),
    (with_job(surprise=1), NOT_ONE + f"{AT} has the unknown field 'surprise'"),
    (a_selection(include=a_selection()["include"] * 2),
     NOT_ONE + f"include[2].builds: '{a_selection()['include'][0]['builds'].split()[0]}' is built by an earlier "
               "job too"),
    (a_selection(deleted=["<img src=x onerror=alert(1)>"]), NOT_ONE + "deleted[0]: '<img src=x onerror=alert(1)>' is "
                                                                      "not a safe package name: use lower-case "
                                                                      "letters, digits, _ and -, starting with a "
                                                                      "letter or digit"),
    (a_selection(deleted=["**bold** | x |"]), NOT_ONE + "deleted[0]: '**bold** | x |' is not a safe package name: "
                                                        "use lower-case letters, digits, _ and -, starting with a "
                                                        "letter or digit"),
    (a_selection(deleted=[TORCH]), NOT_ONE + f"deleted[0]: '{TORCH}' is still a variant of the matrix"),
    (a_selection(deleted="pytorch-gone"), NOT_ONE + "deleted must be a list of variant names, not a string"),
    (a_selection(selected_by="luck"), NOT_ONE + "selected_by: 'luck' is not one of every, text, derivations"),
    (a_selection(by_text=["pytorch-gone"]), NOT_ONE + "by_text[0]: 'pytorch-gone' is not a variant of the matrix"),
    (a_selection(by_text=[True]), NOT_ONE + "by_text[0] must be a variant name, not a boolean"),
    (a_selection(why=a_selection()["why"] | {"pytorch-python313-cpu-avx2": "build"}),
     NOT_ONE + "why.pytorch-python313-cpu-avx2: not built by any job"),
    (a_selection(why=a_selection()["why"] | {TORCH: "because"}),
     NOT_ONE + f"why.{TORCH}: 'because' is not a reason for a build ('build', 'wrapper', 'new', 'every', "
               "'not evaluated')"),
    (a_selection(why={k: v for k, v in a_selection()["why"].items() if k != COMPANION}),
     NOT_ONE + f"why: no reason given for '{COMPANION}'"),
])
def test_each_field_of_a_selection_is_checked_and_a_refusal_names_it(document, message):
    assert refusal(document) == message


@pytest.mark.parametrize("option", ["--summary", "--shards", "--names"])
def test_a_selection_that_puts_markup_in_the_summary_or_a_list_in_runs_on_exits_2(run, tmp_path, option):
    saved = tmp_path / "selection.json"
    for document, field in ((a_selection(deleted=["<img src=x onerror=alert(1)>"]), "deleted[0]"),
                            (with_job(runner=[["self-hosted"]]), f"{AT}.runner[0]")):
        saved.write_text(json.dumps(document))
        result = run("ci", "--root", REPO, "--selection", saved, option)
        assert result.exit_code == 2 and "Traceback" not in result.output and result.stdout == ""
        assert result.stderr.startswith(f"error: {saved}: not a selection printed by `gen-matrix ci`: {field}")


PLAN_FILES = ["eval-errors.txt", "eval.txt", "github-output", "plan.json", "summary.md"]


def test_a_plan_folder_is_made_and_rewritten_but_no_folder_of_other_files_is_taken(project, run, tmp_path):
    generate(run, project)
    plan = tmp_path / "out" / "plan"
    for _ in range(2):  # a folder it wrote before is rewritten
        assert run("ci", "--root", project, "--plan", plan).exit_code == 0
        assert sorted(path.name for path in plan.iterdir()) == sorted(PLAN_FILES + [ci_.PLAN_MARKER])
    library = sorted((project / "nix" / "lib").iterdir())
    result = run("ci", "--root", project, "--plan", project / "nix" / "lib")
    assert result.exit_code == 2
    assert f"error: --plan {project / 'nix' / 'lib'}: the folder holds files of its own" in result.stderr
    assert sorted((project / "nix" / "lib").iterdir()) == library
    assert run("check", "--root", project).exit_code == 0
    (plan / "notes.txt").write_text("mine")
    result = run("ci", "--root", project, "--plan", plan)
    assert result.exit_code == 2 and f"error: {plan / 'notes.txt'}: a file gen-matrix's plan does not write" in result.stderr


@needs_posix("symbolic links and FIFOs as any user makes them")
@pytest.mark.parametrize("marked", [False, True], ids=["new folder", "plan folder"])
def test_a_plan_is_never_written_through_a_link_nor_into_a_fifo(project, run, tmp_path, marked):
    plan, elsewhere = tmp_path / "plan", tmp_path / "elsewhere.md"
    plan.mkdir()
    elsewhere.write_text("mine\n")
    if marked:
        (plan / ci_.PLAN_MARKER).write_text(ci_.PLAN_MARKER_TEXT)
    (plan / "summary.md").symlink_to(elsewhere)
    os.mkfifo(plan / "plan.json")
    result = run("ci", "--root", REPO, "--plan", plan)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert elsewhere.read_text() == "mine\n"
    assert sorted(path.name for path in plan.iterdir()) == sorted(["summary.md", "plan.json"]
                                                                  + [ci_.PLAN_MARKER] * marked)
    assert ("this is not a regular file (a link, a folder, a FIFO or a device), but the plan writes a file here"
            if marked else "the folder holds files of its own (plan.json, summary.md)") in result.stderr
    linked = tmp_path / "linked"
    linked.symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    result = run("ci", "--root", REPO, "--plan", linked)
    assert result.exit_code == 2 and "this is a symbolic link; gen-matrix never writes through one" in result.stderr
    assert not (tmp_path / "elsewhere").exists()


def test_a_plan_folder_under_a_file_is_invalid_input(run, tmp_path):
    (tmp_path / "file").write_text("")
    result = run("ci", "--root", REPO, "--plan", tmp_path / "file" / "plan")
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"error: --plan {tmp_path / 'file' / 'plan'}: cannot make or read the folder" in result.stderr


def test_the_full_plan_names_each_build_its_job_and_why_and_the_shards_have_their_runner(tmp_path):
    gpu = next(v for v in SHIPPED.variants if v.kind == "gpu" and not v.is_companion)
    selection = ci_.select(SHIPPED, {gpu.name: ci_.BUILD}, ("pytorch-gone",), ci_.TEXT)
    ci_.write_plan(SHIPPED, selection, tmp_path / "plan" / "here", 256, compared_with="abc123")
    plan = json.loads((tmp_path / "plan" / "here" / "plan.json").read_text())
    (job,) = selection.jobs
    assert {key: value for key, value in plan.items() if key not in ("estimated_minutes", "shards")} == {
        "compared_with": "abc123", "selected_by": ci_.TEXT, "heavy_source": None, "jobs": 1,
        "builds": [{"name": gpu.name, "job": gpu.name, "why": ci_.REASONS[ci_.BUILD], "metadata_only": False,
                    "builds": "full", "builder": None}],
        "deleted": ["pytorch-gone"], "by_text": [], "out_of_time": [], "not_evaluated": [],
        "estimated_from": {"own": 0, "kind": 0, "guessed": 1}, "past_time_limit": [],
        "cuda_libraries": {"for_sm": 0, "defaults": 1, "substituters": 0}}
    assert plan["shards"] == [[job.as_json()]]
    assert (tmp_path / "plan" / "here" / "github-output").read_text() == (
        'build=true\nshards={"include":[{"shard":0,"runner":' + json.dumps(list(job.runner), separators=(",", ":"))
        + ',"gpu":false,"slots":[0]}]}\n')


TORCH = "pytorch-python313-"
GPU_ = TORCH + "cuda12_8-"
# Of the shipped matrix: three GPU and two CPU torches whose heavy build changed, three
# companions (two beside their torch, one alone), two GPU torches whose wrapper alone changed.
MIXED = {GPU_ + "sm61-avx": ci_.BUILD, GPU_ + "sm100-avx": ci_.BUILD, GPU_ + "sm100-avx2": ci_.BUILD,
         TORCH + "cpu-armv8_2": ci_.BUILD, TORCH + "cpu-avx2": ci_.BUILD,
         "torchaudio-python313-cuda12_8-sm61-avx": ci_.BUILD, "torchvision-python313-cuda12_8-sm61-avx": ci_.BUILD,
         "torchvision-python313-cuda12_8-sm75-avx": ci_.BUILD,
         GPU_ + "sm100-armv9": ci_.WRAPPER, GPU_ + "sm100-avx512": ci_.WRAPPER}


# What the summary says of MIXED's CUDA libraries: sm61 (capability scope nixpkgs) and the
# pin's defaults that sm100 builds with.
MIXED_CUDA_LIBRARIES = """\
CUDA libraries (magma, NCCL and the rest of a pin's CUDA release, built before torch where no cache holds them),
each set once however many variants share it:
- 1 set(s) built for one SM (capability scope nixpkgs): no public cache builds a single
  capability, so each is built in the first job that needs it;
- 1 set(s) of the pins' default capabilities, built: cache.nixos.org holds nothing unfree, and
  ci.substituters lists no cache that carries CUDA (gen-matrix's reference of ci.substituters names some).
These are not in the estimate below.

"""


def summary_head(text: str) -> str:
    """The summary above its table of build costs."""
    head, found, _ = text.partition("\n| kind | minutes per build |")
    assert found, text
    return head


def test_the_summary_counts_torches_companions_wrapper_only_builds_and_deleted_ones_and_names_them(tmp_path):
    selection = ci_.select(SHIPPED, MIXED, ("pytorch-gone-b", "pytorch-gone-a"), ci_.TEXT)
    # 8 jobs: sm61-avx with its two companions, the sm75-avx torchvision alone, and one per other torch
    assert summary_head(ci_.summary(SHIPPED, selection, "acme", "v1.2")) == f"""\
### Plan of this run

Compared with v1.2.

Selected by text identity: the build identities in matrix.state.json at the base revision and now,
without evaluating the recipes (the offline comparison).

| builds | count |
|---|---|
| torch, gpu | 3 |
| torch, cpu | 2 |
| torch, darwin | 0 |
| torch, rocm | 0 |
| companions (torchvision, torchaudio), after their torch in its job | 3 |
| wrapper only (metadata changed, the heavy build did not) | 2 |
| no longer in the matrix (not built, not unpublished) | 2 |
| jobs | 8 |

{MIXED_CUDA_LIBRARIES}**Estimated build time: 12.6 runner-hours**, the sum of each build's minutes:
0 measured for that very build (`--measured`), 0 the mean of the
measured builds of its kind, 10 guessed from knowledge.build_costs (below).
2 metadata-only build(s) fetch their unchanged heavy build from the Flox catalog of
acme, in the closure of the wrapper published there, and build only the wrapper.

| group | count | first names |
|---|---|---|
| companions | 3 | torchaudio-python313-cuda12_8-sm61-avx torchvision-python313-cuda12_8-sm61-avx \
torchvision-python313-cuda12_8-sm75-avx |
| no longer in the matrix | 2 | pytorch-gone-a pytorch-gone-b |
| torch, cpu | 2 | {TORCH}cpu-armv8_2 {TORCH}cpu-avx2 |
| torch, gpu | 3 | {GPU_}sm100-avx {GPU_}sm100-avx2 {GPU_}sm61-avx |
| wrapper only | 2 | {GPU_}sm100-armv9 {GPU_}sm100-avx512 |
"""
    # 3 GPU torches of 180 minutes, 2 CPU ones of 60, 3 companions of 30, 2 wrappers of 3
    assert ci_.plan_json(SHIPPED, selection, 256, "acme")["estimated_minutes"] == 3 * 180 + 2 * 60 + 3 * 30 + 2 * 3


def test_without_a_source_for_heavy_builds_wrapper_only_changes_count_as_torch_builds_and_the_summary_says_how_to_set_one():
    selection = ci_.select(SHIPPED, MIXED, (), ci_.TEXT)
    assert summary_head(ci_.summary(SHIPPED, selection)) == f"""\
### Plan of this run

Selected by text identity: the build identities in matrix.state.json at the base revision and now,
without evaluating the recipes (the offline comparison).

| builds | count |
|---|---|
| torch, gpu | 5 |
| torch, cpu | 2 |
| torch, darwin | 0 |
| torch, rocm | 0 |
| companions (torchvision, torchaudio), after their torch in its job | 3 |
| wrapper only (metadata changed, the heavy build did not) | 0 |
| no longer in the matrix (not built, not unpublished) | 0 |
| jobs | 8 |

{MIXED_CUDA_LIBRARIES}**Estimated build time: 18.5 runner-hours**, the sum of each build's minutes:
0 measured for that very build (`--measured`), 0 the mean of the
measured builds of its kind, 10 guessed from knowledge.build_costs (below).
**No source for the heavy builds of 2 metadata-only build(s):** no Flox organisation
(repository variable FLOX_ORG or ci.organisation) and no binary cache (ci.cache) is set, so
they compile their heavy build again, and the estimate counts them as full builds.

| group | count | first names |
|---|---|---|
| companions | 3 | torchaudio-python313-cuda12_8-sm61-avx torchvision-python313-cuda12_8-sm61-avx \
torchvision-python313-cuda12_8-sm75-avx |
| torch, cpu | 2 | {TORCH}cpu-armv8_2 {TORCH}cpu-avx2 |
| torch, gpu | 5 | {GPU_}sm100-armv9 {GPU_}sm100-avx {GPU_}sm100-avx2 {GPU_}sm100-avx512 {GPU_}sm61-avx |
"""


def evaluated(changes: dict, *failing: str) -> tuple:
    """The evaluation of the changed recipes as `--by derivations` hands it on:
    each recipe's derivations, or for those named in `failing` Nix's error."""
    from generator.commands import eval as eval_command

    return tuple(eval_command.Result(name, eval_command.kind_of(SHIPPED.by_name[name]), None, None,
                                     f"attribute 'cudnn' missing in {name}.nix")
                 if name in failing else
                 eval_command.Result(name, eval_command.kind_of(SHIPPED.by_name[name]),
                                     f"/nix/store/{index:032d}-{name}.drv",
                                     f"/nix/store/{index + 100:032d}-heavy.drv"
                                     if name.startswith(TORCH) else f"/nix/store/{index + 200:032d}-companion.drv",
                                     None)
                 for index, name in enumerate(sorted(changes)))


def test_the_plan_folder_holds_the_evaluation_its_errors_and_the_summary_and_may_exist_already_empty(tmp_path):
    import dataclasses

    broken = (TORCH + "cpu-avx2", "torchvision-python313-cuda12_8-sm75-avx")
    results = evaluated(MIXED, *broken)
    selection = dataclasses.replace(ci_.select(SHIPPED, MIXED, (), ci_.DERIVATIONS), evaluated=results)
    plan = tmp_path / "plan"
    plan.mkdir()  # empty, as a runner's temporary folder may be
    ci_.write_plan(SHIPPED, selection, plan, 256, "acme", compared_with="0123abc")
    lines = (plan / "eval.txt").read_text().splitlines(keepends=True)
    assert len(lines) == len(MIXED) + 1
    for line, result in zip(lines, results):
        assert line == (f"{result.name}  error: attribute 'cudnn' missing in {result.name}.nix\n" if result.name in broken
                        else f"{result.name}  {result.heavy_drv}  {result.drv}\n")
    # 7 torches, 5 of which evaluated, each to its own heavy build
    assert lines[-1] == "gen-matrix: 10 recipes, 8 evaluated, 2 failed, 6 distinct torch builds\n"
    assert (plan / "eval-errors.txt").read_text() == "".join(
        f"{name}  error: attribute 'cudnn' missing in {name}.nix\n" for name in broken)
    summary = (plan / "summary.md").read_text()
    assert summary.startswith("### Plan of this run\n\nCompared with 0123abc.\n\nSelected by derivations: ")
    assert "\n**2 recipe(s) do not evaluate: nothing is built.** First:\n\n" + "".join(
        f"- `{name}`: attribute 'cudnn' missing in {name}.nix\n" for name in broken) in summary
    written = (plan / "plan.json").read_text()
    # one key a line, indented by one space, as `jq` and a reader of the artifact take it
    assert written.startswith('{\n "compared_with": "0123abc",\n "selected_by": "derivations",\n')
    assert written.endswith('\n  }\n ]\n}\n')
    assert json.loads(written)["not_evaluated"] == [
        {"name": name, "error": f"attribute 'cudnn' missing in {name}.nix"} for name in broken]


def test_without_an_evaluation_the_evaluation_files_are_empty(tmp_path):
    ci_.write_plan(SHIPPED, ci_.select(SHIPPED, MIXED, (), ci_.TEXT), tmp_path / "a" / "b", 256)
    assert (tmp_path / "a" / "b" / "eval.txt").read_text() == ""
    assert (tmp_path / "a" / "b" / "eval-errors.txt").read_text() == ""
    assert "do not evaluate" not in (tmp_path / "a" / "b" / "summary.md").read_text()


def test_the_summary_names_the_first_recipes_that_do_not_evaluate_and_counts_them_all():
    import dataclasses

    failing = sorted(v.name for v in SHIPPED.variants if v.kind == "gpu")
    changes = dict.fromkeys(failing, ci_.UNEVALUATED)
    selection = dataclasses.replace(ci_.select(SHIPPED, changes, (), ci_.DERIVATIONS),
                                    evaluated=evaluated(changes, *failing))
    summary = ci_.summary(SHIPPED, selection)
    assert f"\n**{len(failing)} recipe(s) do not evaluate: nothing is built.** First:\n\n" in summary
    shown = [name for name in failing if f"- `{name}`: attribute 'cudnn' missing in {name}.nix\n" in summary]
    assert shown == failing[:ci_.FIRST_NAMES] and len(failing) > ci_.FIRST_NAMES


def test_an_evaluation_error_is_written_into_the_summary_as_plain_text():
    """Nix's message is the user's text (an attribute, a path): a `|`, `*`, backtick or `<` in
    it must not become a table cell, emphasis, code or HTML in the summary."""
    import dataclasses

    from generator.commands import eval as eval_command

    names = sorted(v.name for v in SHIPPED.variants if v.kind == "gpu")[:2]
    changes = dict.fromkeys(names, ci_.UNEVALUATED)
    errors = {names[0]: "attribute 'a|b' missing at *x*", names[1]: "cannot coerce `<lambda>` to a string"}
    results = tuple(eval_command.Result(name, eval_command.kind_of(SHIPPED.by_name[name]), None, None, errors[name])
                    for name in names)
    summary = ci_.summary(SHIPPED, dataclasses.replace(ci_.select(SHIPPED, changes, (), ci_.DERIVATIONS),
                                                       evaluated=results))
    assert f"- `{names[0]}`: attribute 'a\\|b' missing at \\*x\\*\n" in summary
    assert f"- `{names[1]}`: cannot coerce \\`\\<lambda\\>\\` to a string\n" in summary


def test_the_plan_folder_is_utf_8_whatever_the_runners_locale(tmp_path):
    """A Nix error or a branch name may be non-ASCII; a runner in the C locale, without
    Python's UTF-8 mode, still writes the summary and the evaluation files, as UTF-8."""
    import os

    script = f"""
import dataclasses, pathlib, sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
from conftest import REPO, expansion_of
from generator.commands import ci, eval as eval_command
shipped = expansion_of(REPO)
name = {GPU_ + "sm61-avx"!r}
failed = eval_command.Result(name, "gpu", None, None, {"attribute ‘cudnn’ missing"!a})
selection = dataclasses.replace(ci.select(shipped, {{name: ci.BUILD}}, (), ci.DERIVATIONS), evaluated=(failed,))
ci.write_plan(shipped, selection, pathlib.Path(sys.argv[1]), 256, compared_with={"über"!a})
"""  # ASCII itself (`!a`): the C locale reads the command line as ASCII
    env = {**os.environ, "LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path)], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    line = f"{GPU_}sm61-avx  error: attribute ‘cudnn’ missing\n"
    assert (tmp_path / "eval-errors.txt").read_text(encoding="utf-8") == line
    assert (tmp_path / "eval.txt").read_text(encoding="utf-8").startswith(line)
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert "Compared with über." in summary and f"- `{GPU_}sm61-avx`: attribute ‘cudnn’ missing\n" in summary


def test_by_derivations_each_variant_is_selected_for_what_its_derivations_say():
    """New where the revision had no state for it; not evaluated where it fails now; by its
    text identity where it failed at the revision; a build or its wrapper alone where the
    heavy drvPath or only the wrapper's changed; nothing where neither did."""
    from generator.commands import eval as eval_command

    def result(name, heavy="same", drv="same", error=None):
        kind = eval_command.kind_of(SHIPPED.by_name[name])
        if error:
            return eval_command.Result(name, kind, None, None, error)
        return eval_command.Result(name, kind, f"/nix/store/{drv}-{name}.drv", f"/nix/store/{heavy}-{name}.drv", None)

    names_ = sorted(SHIPPED.by_name)
    new, failing, was_failing, was_missing, heavy, wrapper = names_[:6]
    before = dict.fromkeys(name for name in names_ if name != new)
    now_drvs = {name: result(name) for name in names_}
    now_drvs[failing] = result(failing, error="boom")
    now_drvs[heavy] = result(heavy, heavy="other")
    now_drvs[wrapper] = result(wrapper, drv="other")
    before_drvs = {name: result(name) for name in names_ if name != was_missing}
    before_drvs[was_failing] = result(was_failing, error=eval_command.NOT_EVALUATED)
    changes, fallback = ci_.changes_by_derivations(SHIPPED, {was_failing: ci_.WRAPPER}, before, now_drvs, before_drvs)
    assert changes == {new: ci_.NEW, failing: ci_.UNEVALUATED, was_failing: ci_.WRAPPER, heavy: ci_.BUILD,
                       wrapper: ci_.WRAPPER}
    assert fallback == tuple(sorted((was_failing, was_missing)))


@needs_git
@needs_nix
def test_by_derivations_a_recipe_missing_at_the_revision_is_new(repo, run):
    # The base's state file lists the variant, but its recipe was deleted by hand there: nothing
    # built it from that revision, so it is built now whatever its text identity says.
    name = variant_names(repo, on_sm("sm90"))[0]
    (repo / ".flox/pkgs" / f"{name}.nix").unlink()
    commit(repo, "A recipe deleted by hand")
    generate(run, repo)  # writes it back
    assert ci(run, repo, "--changed-since", "HEAD")["include"] == []  # the state file is the same
    document = by_derivations(run, repo, "HEAD")
    assert document["why"] == {name: ci_.NEW}
    assert names(document) == [name]


def test_the_plan_counts_each_cuda_library_set_once_and_says_which_a_cache_may_serve(tmp_path):
    """Variants that differ only in their ISA share their CUDA libraries: one set per pin and
    CUDA release at the pin's defaults, one per pin, release and SM where the scope is nixpkgs."""
    gpu = [v for v in SHIPPED.variants if v.kind == "gpu" and not v.is_companion]
    selection = ci_.select(SHIPPED, {v.name: ci_.BUILD for v in gpu}, (), ci_.TEXT)
    found = ci_.plan(SHIPPED, selection).cuda_libraries
    matrix = SHIPPED.matrix
    for_sm = {(v.pin, v.cuda.name, v.sm.name) for v in gpu if matrix.capability_scope_of(v) == "nixpkgs"}
    defaults = {(v.pin, v.cuda.name) for v in gpu if matrix.capability_scope_of(v) == "torch"}
    assert (found.for_sm, found.defaults) == (len(for_sm), len(defaults)) == (1, 1)
    assert len(gpu) > 40  # many variants, two sets
    assert "1 set(s) of the pins' default capabilities, built: cache.nixos.org holds nothing unfree" in \
        ci_.summary(SHIPPED, selection)
    cached = dataclasses.replace(SHIPPED, matrix=dataclasses.replace(
        matrix, ci=dataclasses.replace(matrix.ci, substituters=(("https://cache.example.org", "example:key"),))))
    text = ci_.summary(cached, ci_.select(cached, {v.name: ci_.BUILD for v in gpu}, (), ci_.TEXT))
    assert "fetched where one of the 1\n  cache(s) of ci.substituters built that pin" in text
    cpu = [v for v in SHIPPED.variants if v.kind == "cpu"]
    none = ci_.plan(SHIPPED, ci_.select(SHIPPED, {v.name: ci_.BUILD for v in cpu}, (), ci_.TEXT))
    assert (none.cuda_libraries.for_sm, none.cuda_libraries.defaults) == (0, 0)
    assert "CUDA libraries" not in ci_.summary(SHIPPED, ci_.select(SHIPPED, {v.name: ci_.BUILD for v in cpu}, (), ci_.TEXT))


@pytest.mark.parametrize("given", ["nan", "inf", "-inf", "0", "-1", "NaN", "1e999", "soon"])
def test_a_time_limit_is_a_finite_number_of_minutes_above_zero(run, tmp_path, given):
    result = run("ci", "--root", tmp_path, "--changed-since", "HEAD", "--by", "derivations", "--time-limit", given)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "Invalid value for '--time-limit'" in result.stderr and repr(given) in result.stderr, result.stderr


# A flake reference pinned to nothing: the registry's nixpkgs, a branch, a repository's head.
UNPINNED_RUN = re.compile(r"\bnix\s+(?:run|shell)\s+(?!/nix/store/)(?P<ref>\S+)")
# Text a step runs that may hand a token to a command line: $NAME of a secret's variable as a
# word of a command other than the shell's own printf and test, or an environment assignment.
TOKEN_USE = re.compile(r"\$\{?(?P<name>[A-Z_]+)\}?")


def _secret_variables(step: dict) -> set[str]:
    return {name for name, value in (step.get("env") or {}).items() if holds_secret(value)}


@pytest.mark.parametrize("cache", [CACHIX, ATTIC, S3, ""], ids=["cachix", "attic", "s3", "none"])
@pytest.mark.parametrize("compiler_cache", [False, True])
def test_no_secret_reaches_a_step_that_runs_unpinned_code_or_puts_it_on_a_command_line(run, tmp_path, cache,
                                                                                       compiler_cache):
    text = SYNTHETIC + (f"ci:\n{cache}" if cache else "") + ("build: {compiler_cache: ccache, compiler_cache_runners: dedicated}\n" if compiler_cache else "")
    (tmp_path / "matrix.yaml").write_text(text)
    generate(run, tmp_path)
    found = every_step(tmp_path)
    with_secrets = [step for step in found if _secret_variables(step)]
    assert len(with_secrets) >= (3 if cache else 2)  # the catalog's fetch and publish, and the push
    for step in with_secrets:
        script = step.get("run", "")
        pinned_nothing = [m["ref"] for m in UNPINNED_RUN.finditer(script)]
        assert pinned_nothing == [], (step["name"], pinned_nothing)
        for line in script.splitlines():
            for name in _secret_variables(step) & {m["name"] for m in TOKEN_USE.finditer(line)}:
                words = line.strip()
                assert (words.startswith((f'if [ -z "${name}" ]', "case ", "(umask 077 && ", '"${CACHE_SUBSTITUTER')) or
                        re.match(rf'^[A-Z_]+="\${name}" ', words)), (step["name"], line)
    # No step writes $GITHUB_ENV from what a build made: every later step, the secret ones
    # too, would run with it.
    for step in found:
        script = step.get("run", "")
        built = set(re.findall(r"\b([A-Za-z_]+)=\$\((?:nix-build|nix build|flox build)\b", script))
        for line in script.splitlines():
            if "GITHUB_ENV" in line:
                assert not any(f"${name}" in line or f"${{{name}" in line for name in built), (step["name"], line)
