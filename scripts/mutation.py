"""Mutation testing of gen-matrix's modules, one module at a time, with mutmut.

Each module is mutated in a scratch copy of the repository (.mutation/<module>/, ignored by
git) whose [tool.mutmut] names that module and the test files that guard it, so that a run
reads only the tests that can kill its mutants and fits a small machine. The shared settings
are pyproject.toml's [tool.mutmut]; the module -> tests table is MODULES below.

    .venv/bin/python scripts/mutation.py                  # every module
    .venv/bin/python scripts/mutation.py nixtext lock     # some of them
    .venv/bin/python scripts/mutation.py --list           # the table

It prints, per module, the mutants, how many were killed, survived, timed out or had no
test, how many of the survivors are equivalent (EQUIVALENT below: no test can tell them from
the original), and the score: killed / (mutants - equivalent). A timeout is not a kill: on a
loaded machine a mutant's tests can time out though they would pass, so the mutants that timed
out are run once more, one at a time, and those that time out again are counted apart. The
survivors are listed by name; show one with `cd .mutation/<module> && ../../.venv/bin/mutmut
show <name>`. TESTING.md records the last figures and why each survivor lives.

With --sample N, a module's mutants are all made but only N of them, drawn at random (seeded
by the module's name, so the same N each time on the same code), are run: the score is then
an estimate, printed with its 95 % Wilson interval.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import tomlkit

REPO = Path(__file__).resolve().parent.parent
SCRATCH = REPO / ".mutation"

# module -> (source file, the test files that exercise it)
MODULES: dict[str, tuple[str, tuple[str, ...]]] = {
    "nixtext": ("generator/pipeline/nixtext.py", ("tests/test_nixtext.py", "tests/test_identity.py")),
    "state": ("generator/pipeline/state.py", ("tests/test_state.py", "tests/test_revisions.py")),
    "lock": ("generator/pipeline/lock.py", ("tests/test_lock.py",)),
    "load": ("generator/pipeline/load.py", ("tests/test_load.py",)),
    "write": ("generator/pipeline/write.py", ("tests/test_write.py", "tests/test_write_failure.py")),
    # test_build_identity.py guards identity.py and render.py too, against real derivations; it
    # is left out because it takes a minute a mutant on two cores (mutmut runs a mutant's tests
    # in no set order, so most mutants would pay for it, killed or not).
    "identity": ("generator/pipeline/identity.py", ("tests/test_identity.py", "tests/test_input_bounds.py",
                                                    "tests/test_revisions.py", "tests/test_rebuild_two_pins.py")),
    "nixvalue": ("generator/pipeline/nixvalue.py", ("tests/test_escaping.py", "tests/test_golden.py",
                                                    "tests/test_input_bounds.py")),
    "render": ("generator/pipeline/render.py", ("tests/test_golden.py", "tests/test_docs_facts.py",
                                                "tests/test_identity.py", "tests/test_revisions.py",
                                                "tests/test_rebuild_two_pins.py", "tests/test_release_nix.py")),
    "templating": ("generator/templating.py", ("tests/test_golden.py", "tests/test_input_bounds.py")),
    # test_workflow_logic.py, which runs the workflow's steps over the plan, guards ci.py too;
    # it is left out for its time, as test_build_identity.py is above.
    "ci": ("generator/commands/ci.py", ("tests/test_ci.py", "tests/test_ci_time_limit.py",
                                        "tests/test_compiler_cache_order.py", "tests/test_measured_several.py",
                                        "tests/test_plan_shards.py", "tests/test_hosted_limit.py")),
    "splice": ("generator/outputs/splice.py", ("tests/test_splice.py", "tests/test_docs.py",
                                               "tests/test_gitattributes.py")),
    "docs": ("generator/outputs/docs.py", ("tests/test_docs_facts.py", "tests/test_docs.py", "tests/test_golden.py",
                                           "tests/test_measured_several.py")),
    "gitattributes": ("generator/outputs/gitattributes.py", ("tests/test_gitattributes.py",)),
    "reference": ("generator/outputs/reference.py", ("tests/test_reference.py",)),
    "manifest": ("generator/outputs/manifest.py", ("tests/test_manifest.py", "tests/test_splice.py",
                                                   "tests/test_input_bounds.py")),
    "workflow": ("generator/outputs/workflow.py", ("tests/test_workflow_output.py", "tests/test_golden.py")),
    "knowledge": ("generator/knowledge.py", ("tests/test_knowledge_rules.py", "tests/test_validation.py",
                                             "tests/test_version_ranges.py",
                                             "tests/test_explain.py", "tests/test_env.py",
                                             "tests/test_wheels.py", "tests/test_wheels_several.py")),
    "model": ("generator/model.py", ("tests/test_expand.py", "tests/test_validation.py", "tests/test_explain.py",
                                     "tests/test_list_show.py")),
    "adopt-reading": ("generator/commands/adopt/reading.py", ("tests/test_adopt.py", "tests/test_adopt_reading.py")),
    "adopt-inferring": ("generator/commands/adopt/inferring.py", ("tests/test_adopt.py",)),
    "adopt-reporting": ("generator/commands/adopt/reporting.py", ("tests/test_adopt.py",)),
    "smoke": ("generator/commands/smoke.py", ("tests/test_smoke.py",)),
    "eval": ("generator/commands/eval.py", ("tests/test_eval.py", "tests/test_ci_time_limit.py")),
    "buildenv": ("generator/commands/buildenv.py", ("tests/test_env.py", "tests/test_escaping.py")),
    "detect": ("generator/commands/detect.py", ("tests/test_detect.py", "tests/test_host.py")),
    "explain": ("generator/commands/explain.py", ("tests/test_explain.py",)),
    "wheels": ("generator/commands/wheels.py", ("tests/test_wheels.py", "tests/test_explain.py", "tests/test_detect.py")),
}

# module -> {mutant name: why no test can tell it from the original}. Only these survivors
# leave the score's denominator; every other survivor counts against it.
EQUIVALENT: dict[str, dict[str, str]] = {
    "model": {
        "generator.model.xǁSectionǁwhere_value__mutmut_2": "unreachable: every caller asks for a value of the section's axes, each of which validate records where it is written",
        "generator.model.xǁSectionǁwhere_value__mutmut_4": "unreachable, as where_value__mutmut_2",
    },
    "adopt-inferring": {
        "generator.commands.adopt.inferring.x_infer__mutmut_147": "most_common(2)[0] is most_common(1)[0]",
        "generator.commands.adopt.inferring.x_infer__mutmut_156": "most_common(None)[0] is most_common(1)[0]: both "
                                                                  "order ties as they were first counted",
        "generator.commands.adopt.inferring.x_infer__mutmut_157": "most_common(2)[0] is most_common(1)[0]",
        "generator.commands.adopt.inferring.x__rules__mutmut_86": "a rule that removes an uncovered extra always exists (the extra's own exclude), so best is never None nor empty",
        "generator.commands.adopt.inferring.x__companions__mutmut_26": "a darwin torch's exact rule without its accelerator picks the same torches: its kind is added where the rule would pick another, and darwin has one accelerator (mps)",
    },
    "adopt-reading": {
        "generator.commands.adopt.reading.x__axes_from_name__mutmut_20": "lazy or greedy, a field's class has no '-', which separates every field, so the full match is the same",
        "generator.commands.adopt.reading.x_read__mutmut_107": "get(key) gives None where get(key, False) gives False: both false",
        "generator.commands.adopt.reading.x_read__mutmut_440": "unreachable: adopt.nix always gives preConfigure, an empty string where the recipe sets none",
        "generator.commands.adopt.reading.x_read__mutmut_479": "'UTF-8' and 'utf-8' are the same codec",
        "generator.commands.adopt.reading.x_evaluate__mutmut_25": "adopt.nix makes one attribute per CUDA release of the list, whatever its order (listToAttrs over the same values)",
    },
    "knowledge": {
        "generator.knowledge.x_best_wheel__mutmut_3": "every driver_for reads any system but 'Windows' as Linux, so 'LINUX' is Linux",
        "generator.knowledge.xǁWheelFitǁdriver_for__mutmut_18": "a floor of 'XXXX', as one of '', is no numbered driver and is left out",
        "generator.knowledge.xǁWheelFitǁdriver_for__mutmut_27": "on the shipped table the drivers compared (1,346 pairs, every SM's wheels on Linux and Windows) order alike as text and as versions",
    },
    "eval": {
        "generator.commands.eval.x_evaluate__mutmut_24": "the order of the rounds changes the order nix-instantiate runs, not a result: results are given in the order of the targets",
        "generator.commands.eval.x_evaluate__mutmut_9": "grouping by pin where a package set is given makes more nix-instantiate runs, each with the same answers",
        "generator.commands.eval.x_evaluate__mutmut_83": "chunks of at least two, not one, after a failure: the same answers in fewer runs",
        "generator.commands.eval.x__run__mutmut_119": "a trace with the run's nonce comes from eval.nix alone, whose "
                                                     "value is always derivations or null (a package set cannot know "
                                                     "the nonce)",
    },
    "buildenv": {
        "generator.commands.buildenv.x_target_of__mutmut_50": "no workaround of the shipped table has a cuda condition",
        "generator.commands.buildenv.x_nvcc_checks__mutmut_31": "no release of the shipped table writes its source CUDA range with a comma (one clause each: <13.0, >=12.0, >=12.1)",
        "generator.commands.buildenv.x_visual_studio__mutmut_14": "unreachable: every MSVC range of the table starts below 1950",
    },
    "detect": {
        "generator.commands.detect.x__driver_ok__mutmut_3": "every driver_for reads any system but 'Windows' as Linux, so 'LINUX' is Linux",
        "generator.commands.detect.x__missing_sm__mutmut_29": "unreachable: an SM of gpu.sm that no variant has lost "
                                                            "every combination with it, and expand records each "
                                                            "combination it drops with the reason",
    },
    "explain": {
        "generator.commands.explain.x__detail_lines__mutmut_34": "every axis of a combination has a detail (python, cuda, sm, isa, accelerator), so the plain value is never shown",
        "generator.commands.explain.x__unpackaged_cuda__mutmut_35": "a gpu section always has an sm axis: validate refuses one without (gpu.sm lists no values)",
        "generator.commands.explain.x__unpackaged_cuda__mutmut_48": "the CUDA releases nixpkgs packages (12.6 to 13.1) sort alike as text and as versions",
        "generator.commands.explain.x_by_values__mutmut_101": "notes=None is false, as notes=False where --pytorch is given",
    },
    "adopt-reporting": {
        "generator.commands.adopt.reporting.x_render_matrix__mutmut_6": "sort_keys=None is false, as False",
        "generator.commands.adopt.reporting.x__pin_capabilities__mutmut_7": "on the shipped knowledge every pin's default capabilities are its CUDA release's, so the pin's row and the release's row agree",
        "generator.commands.adopt.reporting.x__pin_capabilities__mutmut_9": "as _pin_capabilities__mutmut_7",
        "generator.commands.adopt.reporting.x__pin_capabilities__mutmut_11": "as _pin_capabilities__mutmut_7",
    },
}

def scratch_copy(name: str, source: str, tests: tuple[str, ...]) -> Path:
    """The repository's tracked files in .mutation/<name>/, configured for this module."""
    root = SCRATCH / name
    if root.exists():
        shutil.rmtree(root)
    tracked = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             cwd=REPO, check=True, capture_output=True, text=True).stdout
    for path in filter(None, tracked.split("\0")):
        if path.startswith(".mutation/") or not (REPO / path).is_file():
            continue
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / path, target)
    pyproject = tomlkit.parse((root / "pyproject.toml").read_text())
    config = pyproject["tool"]["mutmut"]
    config["only_mutate"] = [source]
    config["pytest_add_cli_args_test_selection"] = [t for t in tests if (root / t).is_file()]
    (root / "pyproject.toml").write_text(tomlkit.dumps(pyproject))
    return root


def results(root: Path, mutmut: Path) -> dict[str, str]:
    """Each mutant's status, as `mutmut results --all true` prints it ("    name: status")."""
    listing = subprocess.run([str(mutmut), "results", "--all", "true"], cwd=root, check=True,
                             capture_output=True, text=True).stdout
    return dict(line.strip().rsplit(": ", 1) for line in listing.splitlines() if ": " in line)


def run(name: str, children: int, timeout: int, again: bool = True, sample: int = 0) -> dict:
    source, tests = MODULES[name]
    mutmut = Path(sys.executable).with_name("mutmut")
    drawn_file = SCRATCH / name / "sample.txt"
    if not again:  # the figures of the last run, read from its scratch copy
        drawn = drawn_file.read_text().split() if drawn_file.is_file() else None
        return summary(name, source, _only(results(SCRATCH / name, mutmut), drawn), 0, True, sampled=bool(drawn))
    root = scratch_copy(name, source, tests)
    started = time.monotonic()
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")

    def mutmut_run(*args: str, seconds: float) -> bool:
        # its own session, so that a timeout stops mutmut's workers too
        process = subprocess.Popen([str(mutmut), "run", *args], cwd=root, env=env, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, start_new_session=True)
        return _wait(process, max(1, seconds - (time.monotonic() - started)))

    drawn = None
    if sample:
        # a name no mutant has: mutmut makes every mutant and times the tests, then stops
        mutmut_run("--max-children", str(children), "no-such-mutant", seconds=timeout)
        names = sorted(results(root, mutmut))
        drawn = sorted(random.Random(name).sample(names, min(sample, len(names))))
        drawn_file.write_text("\n".join(drawn) + "\n")
    finished = mutmut_run("--max-children", str(children), *(drawn or ()), seconds=timeout)
    timed_out = [mutant for mutant, status in _only(results(root, mutmut), drawn).items() if status == "timeout"]
    if finished and timed_out:  # once more, one at a time, in what is left of the time
        finished = mutmut_run("--max-children", "1", *timed_out, seconds=timeout)
    return summary(name, source, _only(results(root, mutmut), drawn), time.monotonic() - started, finished,
                   sampled=drawn is not None)


def _only(statuses: dict[str, str], names: list[str] | None) -> dict[str, str]:
    return statuses if names is None else {name: statuses[name] for name in names}


def wilson(killed: int, counted: int) -> tuple[float, float]:
    """The 95 % Wilson interval of a score measured on a random sample, in percent."""
    if not counted:
        return 0.0, 100.0
    z, p = 1.96, killed / counted
    centre = (p + z * z / (2 * counted)) / (1 + z * z / counted)
    half = z * math.sqrt(p * (1 - p) / counted + z * z / (4 * counted * counted)) / (1 + z * z / counted)
    return 100.0 * (centre - half), 100.0 * (centre + half)


def _wait(process: subprocess.Popen, timeout: float) -> bool:
    """Whether `process` ended within `timeout` seconds; stopped with its workers if not."""
    try:
        process.wait(timeout=timeout)
        return True
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait()
        return False


def summary(name: str, source: str, statuses: dict[str, str], seconds: float, finished: bool,
            sampled: bool = False) -> dict:
    counts = {s: sum(1 for v in statuses.values() if v == s) for s in set(statuses.values())}
    killed, survived, timeout = (counts.get(status, 0) for status in ("killed", "survived", "timeout"))
    equivalent = sum(1 for mutant, status in statuses.items()
                     if status == "survived" and mutant in EQUIVALENT.get(name, {}))
    total = len(statuses)
    counted = total - equivalent
    return {"module": name, "source": source, "mutants": total, "killed": killed, "survived": survived,
            "timeout": timeout, "equivalent": equivalent, "other": total - killed - survived - timeout,
            "score": 100.0 * killed / counted if counted else 0.0, "seconds": round(seconds),
            "interval": wilson(killed, counted) if sampled else None,
            "finished": finished,
            "survivors": [k for k, v in statuses.items() if v != "killed" and k not in EQUIVALENT.get(name, {})],
            "statuses": counts, "statuses_of": statuses}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", choices=[[], *MODULES], metavar="MODULE",
                        help=f"some of: {', '.join(MODULES)} (default: all)")
    parser.add_argument("--list", action="store_true", help="print the module -> tests table")
    parser.add_argument("--report", action="store_true", help="print the figures of the last run, run nothing")
    parser.add_argument("--children", type=int, default=2, help="parallel test processes (2)")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds per module (1800)")
    parser.add_argument("--sample", type=int, default=0, metavar="N",
                        help="run N of each module's mutants, drawn at random, and estimate its score")
    args = parser.parse_args()
    if args.list:
        for name, (source, tests) in MODULES.items():
            print(f"{name:14} {source:40} {' '.join(tests)}")
        return 0
    names = args.modules or [n for n in MODULES if not args.report or (SCRATCH / n / "mutants").is_dir()]
    rows = [run(name, args.children, args.timeout, again=not args.report, sample=args.sample) for name in names]
    print(f"{'module':14} {'mutants':>7} {'killed':>7} {'survived':>8} {'timeout':>7} {'other':>6} "
          f"{'equiv.':>6} {'score':>6} {'time':>6}")
    for row in rows:
        note = "" if row["finished"] else "  (stopped at the timeout)"
        if row["interval"]:
            note += "  (a random sample; 95%% interval %.1f%% to %.1f%%)" % row["interval"]
        print(f"{row['module']:14} {row['mutants']:7} {row['killed']:7} {row['survived']:8} {row['timeout']:7} "
              f"{row['other']:6} {row['equivalent']:6} {row['score']:5.1f}% {row['seconds']:5}s{note}")
    for row in rows:
        for survivor in row["survivors"]:
            print(f"  {row['module']}: {survivor} ({row['statuses_of'][survivor]})")
    return 0 if all(row["finished"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
