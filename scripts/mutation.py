"""Mutation testing of gen-matrix's modules, Nix files and templates, one at a time.

A Python module is mutated by mutmut. A Nix file or a template, which mutmut cannot mutate,
gets the hand-written mutants of scripts/text_mutants.py: each is put into a scratch copy of
the repository (.mutation/<name>/), the file's tests are run with pytest -x, and the mutant
is killed when they fail (after checking that they pass on the file as it is).

Each Python module is mutated in a scratch copy of the repository (.mutation/<module>/, ignored by
git) whose [tool.mutmut] names that module and the test files that guard it, so that a run
reads only the tests that can kill its mutants and fits a small machine. The shared settings
are pyproject.toml's [tool.mutmut]; the module -> tests table is MODULES below.

    .venv/bin/python scripts/mutation.py                  # every module
    .venv/bin/python scripts/mutation.py nixtext lock     # some of them
    .venv/bin/python scripts/mutation.py fix-cccl-include tpl-torch   # a Nix file, a template
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
import json
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

from text_mutants import MUTANTS

REPO = Path(__file__).resolve().parent.parent
SCRATCH = REPO / ".mutation"

# module -> (source file, the test files that exercise it). Every Python module of generator/,
# every Nix file (nix/, and the two generator/ reads) and every template is here, or in
# NO_LOGIC; tests/test_mutation_table.py holds the table to that. A .py source is mutated by
# mutmut; a .nix or .j2 one by this script, with the hand-written mutants of text_mutants.py.
# The tests are run in the order given, stopping at the first failure: the quickest that can
# kill a mutant come first.
MODULES: dict[str, tuple[str, tuple[str, ...]]] = {
    # the pipeline
    "nixtext": ("generator/pipeline/nixtext.py", ("tests/test_nixtext.py", "tests/test_identity.py")),
    "state": ("generator/pipeline/state.py", ("tests/test_state.py", "tests/test_revisions.py")),
    "lock": ("generator/pipeline/lock.py", ("tests/test_lock.py",)),
    "load": ("generator/pipeline/load.py", ("tests/test_load.py",)),
    "records": ("generator/records.py", ("tests/test_records.py",)),
    "kept": ("generator/kept.py", ("tests/test_records.py", "tests/test_load.py")),
    "schema": ("generator/pipeline/schema.py", ("tests/test_schema_code.py", "tests/test_validation.py",
                                                "tests/test_reference.py", "tests/test_rocm.py")),
    "validate": ("generator/pipeline/validate.py", ("tests/test_validation.py", "tests/test_input_bounds.py", "tests/test_rocm.py")),
    "expand": ("generator/pipeline/expand.py", ("tests/test_expand.py", "tests/test_companions.py",
                                                "tests/test_pin_facts.py", "tests/test_validation.py",
                                                "tests/test_rocm.py")),
    "pinned": ("generator/pipeline/pinned.py", ("tests/test_pin_facts.py", "tests/test_expand.py", "tests/test_rocm.py")),
    "write": ("generator/pipeline/write.py", ("tests/test_write.py", "tests/test_write_failure.py")),
    "digest": ("generator/pipeline/digest.py", ("tests/test_state.py", "tests/test_identity.py",
                                                "tests/test_revisions.py", "tests/test_write.py")),
    # test_build_identity.py guards identity.py and render.py too, against real derivations; it
    # is left out because it takes a minute a mutant on two cores (mutmut runs a mutant's tests
    # in no set order, so most mutants would pay for it, killed or not).
    "identity": ("generator/pipeline/identity.py", ("tests/test_identity.py", "tests/test_input_bounds.py",
                                                    "tests/test_revisions.py", "tests/test_rebuild_two_pins.py")),
    "nixvalue": ("generator/pipeline/nixvalue.py", ("tests/test_escaping.py", "tests/test_golden.py",
                                                    "tests/test_input_bounds.py")),
    "render": ("generator/pipeline/render.py", ("tests/test_golden.py", "tests/test_docs_facts.py",
                                                "tests/test_identity.py", "tests/test_revisions.py",
                                                "tests/test_rebuild_two_pins.py", "tests/test_nvidia_gaps.py",
                                                "tests/test_release_nix.py", "tests/test_flake_nix.py",
                                                "tests/test_rocm.py")),
    # the modules around it
    "run": ("generator/run.py", ("tests/test_cli.py", "tests/test_write_failure.py", "tests/test_revisions.py")),
    "cli": ("generator/cli.py", ("tests/test_cli.py", "tests/test_no_matrix.py", "tests/test_list_show.py")),
    # `python -m generator` (test_cli.py) and the installed `gen-matrix` script (test_package.py)
    "main": ("generator/__main__.py", ("tests/test_cli.py", "tests/test_package.py")),
    "errors": ("generator/errors.py", ("tests/test_cli.py", "tests/test_load.py", "tests/test_validation.py")),
    "layout": ("generator/layout.py", ("tests/test_write.py", "tests/test_ownership.py", "tests/test_golden.py")),
    "escape": ("generator/escape.py", ("tests/test_escaping.py", "tests/test_docs.py", "tests/test_golden.py")),
    # test_pin_source.py tests the default pin and its records; the rest test what init, the
    # workflow and the manifest make of a Source (the flake line, the warning, the next steps)
    "pin": ("generator/pin.py", ("tests/test_pin_source.py", "tests/test_pin_several.py",
                                 "tests/test_workflow_output.py", "tests/test_init.py",
                                 "tests/test_golden.py", "tests/test_manifest.py")),
    "templating": ("generator/templating.py", ("tests/test_templating.py", "tests/test_golden.py", "tests/test_input_bounds.py")),
    "knowledge": ("generator/knowledge.py", ("tests/test_knowledge_rules.py", "tests/test_validation.py",
                                             "tests/test_version_ranges.py",
                                             "tests/test_explain.py", "tests/test_env.py",
                                             "tests/test_wheels.py", "tests/test_wheels_several.py",
                                             "tests/test_nvidia_gaps.py", "tests/test_rocm.py")),
    # knowledge's compatibility rules alone (FUNCTIONS below), against the test files that call
    # those rules themselves (13 s quiet in all). test_validation.py (95 s), test_explain.py,
    # test_detect.py, test_env.py and test_rocm.py (94 s together) reach them only through whole
    # commands: every survivor and mutmut's first, traced run would pay for them (that run alone
    # took 30 minutes on a loaded machine), and a rule they alone guard wants a test of the rule.
    "knowledge-rules": ("generator/knowledge.py", ("tests/test_knowledge_rules.py", "tests/test_version_ranges.py",
                                                   "tests/test_releases.py", "tests/test_expand.py",
                                                   "tests/test_wheels.py", "tests/test_wheels_several.py",
                                                   "tests/test_nvidia_gaps.py")),
    "model": ("generator/model.py", ("tests/test_expand.py", "tests/test_validation.py", "tests/test_explain.py",
                                     "tests/test_list_show.py", "tests/test_compiler_cache_order.py",
                                     "tests/test_compiler_cache_nix.py", "tests/test_remote_builders.py",
                                     "tests/test_rocm.py")),
    # the outputs
    "splice": ("generator/outputs/splice.py", ("tests/test_splice.py", "tests/test_docs.py",
                                               "tests/test_gitattributes.py")),
    "docs": ("generator/outputs/docs.py", ("tests/test_docs_facts.py", "tests/test_docs.py", "tests/test_golden.py",
                                           "tests/test_measured_several.py", "tests/test_wheels.py", "tests/test_rocm.py")),
    "gitattributes": ("generator/outputs/gitattributes.py", ("tests/test_gitattributes.py",)),
    "reference": ("generator/outputs/reference.py", ("tests/test_reference.py",)),
    "manifest": ("generator/outputs/manifest.py", ("tests/test_manifest.py", "tests/test_splice.py",
                                                   "tests/test_input_bounds.py")),
    "workflow": ("generator/outputs/workflow.py", ("tests/test_workflow_output.py", "tests/test_golden.py",
                                                   "tests/test_remote_builders.py")),
    # the commands
    # test_workflow_logic.py, which runs the workflow's steps over the plan, guards ci.py too;
    # it is left out for its time, as test_build_identity.py is above.
    "ci": ("generator/commands/ci.py", ("tests/test_ci.py", "tests/test_ci_time_limit.py",
                                        "tests/test_compiler_cache_order.py", "tests/test_measured_several.py",
                                        "tests/test_plan_shards.py", "tests/test_hosted_limit.py")),
    "measured": ("generator/commands/measured.py", ("tests/test_measured.py", "tests/test_measured_several.py",
                                                    "tests/test_ci.py")),
    # test_pin_source.py tests init.pinned: the pin init writes into the new matrix's ci block
    "init": ("generator/commands/init.py", ("tests/test_init.py", "tests/test_no_matrix.py", "tests/test_pin_source.py")),
    "adopt": ("generator/commands/adopt/__init__.py", ("tests/test_adopt.py",)),
    "adopt-reading": ("generator/commands/adopt/reading.py", ("tests/test_adopt.py", "tests/test_adopt_reading.py")),
    "adopt-inferring": ("generator/commands/adopt/inferring.py", ("tests/test_adopt.py",)),
    "adopt-reporting": ("generator/commands/adopt/reporting.py", ("tests/test_adopt.py", "tests/test_adopt_evaluated.py")),
    "smoke": ("generator/commands/smoke.py", ("tests/test_smoke.py", "tests/test_rocm.py")),
    "smoke-probe": ("generator/commands/smoke_probe.py", ("tests/test_smoke.py", "tests/test_rocm.py")),
    "promise": ("generator/commands/promise.py", ("tests/test_smoke_cuobjdump.py", "tests/test_smoke_handbuild.py",
                                                  "tests/test_smoke.py", "tests/test_rocm.py")),
    "cuobjdump": ("generator/commands/cuobjdump.py", ("tests/test_smoke_cuobjdump.py", "tests/test_wheels.py",
                                                      "tests/test_toolchain_fatbin.py")),
    "handbuild": ("generator/commands/handbuild.py", ("tests/test_smoke_handbuild.py", "tests/test_wheels.py",
                                                      "tests/test_env.py")),
    "eval": ("generator/commands/eval.py", ("tests/test_eval.py", "tests/test_ci_time_limit.py",
                                            "tests/test_evaljobs.py")),
    "evaljobs": ("generator/commands/evaljobs.py", ("tests/test_evaljobs.py",)),
    "sandbox": ("generator/commands/sandbox.py", ("tests/test_sandbox.py", "tests/test_sandbox_several.py",
                                                  "tests/test_eval.py", "tests/test_bounded.py")),
    "buildenv": ("generator/commands/buildenv.py", ("tests/test_env.py", "tests/test_escaping.py",
                                                    "tests/test_nvidia_gaps.py", "tests/test_toolchain_arch_flags.py")),
    "host": ("generator/commands/host.py", ("tests/test_host.py", "tests/test_detect.py", "tests/test_other_gpus.py")),
    "detect": ("generator/commands/detect.py", ("tests/test_detect.py", "tests/test_host.py",
                                                "tests/test_other_gpus.py", "tests/test_rocm.py")),
    "explain": ("generator/commands/explain.py", ("tests/test_explain.py", "tests/test_nvidia_gaps.py",
                                                  "tests/test_other_gpus.py", "tests/test_rocm.py")),
    "listing": ("generator/commands/listing.py", ("tests/test_list_show.py", "tests/test_nvidia_gaps.py", "tests/test_rocm.py")),
    "wheels": ("generator/commands/wheels.py", ("tests/test_wheels.py", "tests/test_explain.py",
                                                "tests/test_detect.py", "tests/test_nvidia_gaps.py")),
    # the Nix library
    "nix-compile": ("nix/lib/compile.nix", ("tests/test_compile_nix.py", "tests/test_fixes_behaviour.py")),
    "nix-companion": ("nix/lib/companion.nix", ("tests/test_companions.py", "tests/test_nix.py",
                                                "tests/test_overlays.py", "tests/test_rocm.py")),
    # test_examples.py (about 15 s quiet) evaluates the examples whose pins need fixes
    # (allow-broken-cuda13's config): the one file that sees fixes reach the package set
    "nix-default": ("nix/lib/default.nix", ("tests/test_nix.py", "tests/test_companions.py", "tests/test_overlays.py",
                                            "tests/test_examples.py")),
    "nix-nixpkgs": ("nix/lib/nixpkgs.nix", ("tests/test_overlays.py", "tests/test_fake_nixpkgs.py", "tests/test_nix.py",
                                            "tests/test_pin_facts.py", "tests/test_rocm.py")),
    "nix-refuse": ("nix/lib/refuse.nix", ("tests/test_eval.py", "tests/test_nix.py")),
    "nix-smoke": ("nix/lib/smoke.nix", ("tests/test_flake_nix.py",)),
    # test_overlays.py: a pytorch.source, fetched with its submodules
    "nix-torch": ("nix/lib/torch.nix", ("tests/test_nix.py", "tests/test_fixes_behaviour.py",
                                        "tests/test_patch_phase.py", "tests/test_rocm.py", "tests/test_overlays.py")),
    "nix-wrapper": ("nix/lib/wrapper.nix", ("tests/test_nix.py", "tests/test_companions.py",
                                            "tests/test_torch_closure.py")),
    # the repository's own pins, generated from matrix.yaml by pins.nix.j2
    # a hand edit of it is what `gen-matrix check` reports (test_cli.py, about 19 s quiet, checks
    # the shipped repository): the test package sets take no revision, hash or config from it
    "nix-pins": ("nix/pins.nix", ("tests/test_examples.py", "tests/test_nix.py", "tests/test_cli.py")),
    "nix-eval": ("generator/commands/eval.nix", ("tests/test_eval.py", "tests/test_sandbox.py")),
    "nix-evaljobs": ("generator/commands/evaljobs.nix", ("tests/test_evaljobs.py",)),
    "nix-adopt": ("generator/commands/adopt/adopt.nix", ("tests/test_adopt_reading.py", "tests/test_adopt.py")),
    # the build fixes
    "fix-allow-broken-cuda13": ("nix/fixes/allow-broken-cuda13.nix", ("tests/test_fixes_keep_nixpkgs.py",
                                                                      "tests/test_examples.py")),
    "fix-avx-only-kernels": ("nix/fixes/avx-only-kernels.nix", ("tests/test_fixes_keep_nixpkgs.py",
                                                                "tests/test_fixes_behaviour.py")),
    "fix-cccl-include": ("nix/fixes/cccl-include.nix", ("tests/test_fixes_keep_nixpkgs.py",
                                                        "tests/test_fixes_behaviour.py")),
    # test_compiler_cache_nix.py compares with gen-matrix before the fix, from git history,
    # which the scratch copy has not: there it skips that test
    "fix-compiler-cache-ccache": ("nix/fixes/compiler-cache-ccache.nix", ("tests/test_fixes_keep_nixpkgs.py",
                                                                          "tests/test_compiler_cache_nixbuild.py",
                                                                          "tests/test_compiler_cache_nix.py")),
    "fix-findcudatoolkit-stub": ("nix/fixes/findcudatoolkit-stub.nix", ("tests/test_fixes_keep_nixpkgs.py",
                                                                        "tests/test_fixes_behaviour.py")),
    "fix-magma-cuda13-clockrate": ("nix/fixes/magma-cuda13-clockrate.nix", ("tests/test_fixes_keep_nixpkgs.py",)),
    "fix-torch-source-patches": ("nix/fixes/torch-source-patches.nix", ("tests/test_fixes_keep_nixpkgs.py",
                                                                        "tests/test_patch_phase.py")),
    "fix-torch-source-version": ("nix/fixes/torch-source-version.nix", ("tests/test_fixes_keep_nixpkgs.py",
                                                                        "tests/test_fixes_behaviour.py",
                                                                        "tests/test_patch_phase.py")),
    # the templates
    "tpl-build-matrix": ("templates/BUILD_MATRIX.md.j2", ("tests/test_docs_facts.py", "tests/test_docs.py",
                                                          "tests/test_golden.py", "tests/test_rocm.py")),
    # test_ci_time_limit.py: `ci --time-limit` run to its end with no time left, the summary's note
    "tpl-ci-summary": ("templates/ci-summary.md.j2", ("tests/test_ci_time_limit.py", "tests/test_compiler_cache_order.py",
                                                     "tests/test_hosted_limit.py", "tests/test_ci.py")),
    "tpl-companion": ("templates/companion.nix.j2", ("tests/test_golden.py", "tests/test_identity.py",
                                                     "tests/test_companions.py", "tests/test_nix.py")),
    "tpl-env-bash": ("templates/env.bash.j2", ("tests/test_env.py", "tests/test_escaping.py")),
    "tpl-env-cmd": ("templates/env.cmd.j2", ("tests/test_env.py", "tests/test_escaping.py")),
    "tpl-env-comments": ("templates/env.comments.j2", ("tests/test_env.py", "tests/test_escaping.py")),
    "tpl-env-powershell": ("templates/env.powershell.j2", ("tests/test_env.py", "tests/test_escaping.py")),
    "tpl-flox-env": ("templates/flox-env.json.j2", ("tests/test_manifest.py", "tests/test_golden.py")),
    "tpl-flox-gitignore": ("templates/flox-gitignore.j2", ("tests/test_manifest.py", "tests/test_golden.py")),
    "tpl-manifest-hook": ("templates/manifest-hook.sh.j2", ("tests/test_manifest.py", "tests/test_golden.py")),
    "tpl-manifest": ("templates/manifest.toml.j2", ("tests/test_manifest.py", "tests/test_golden.py")),
    "tpl-release-nix": ("templates/release.nix.j2", ("tests/test_release_nix.py", "tests/test_flake_nix.py",
                                                      "tests/test_golden.py")),
    "tpl-flake-nix": ("templates/flake.nix.j2", ("tests/test_flake_nix.py",)),
    "tpl-workflow": ("templates/flox-variants.yml.j2", ("tests/test_workflow_output.py", "tests/test_golden.py",
                                                        "tests/test_workflow_size.py", "tests/test_workflow_steps.py")),
    "tpl-workflow-build": ("templates/flox-variants-build.yml.j2", ("tests/test_workflow_output.py",
                                                                    "tests/test_golden.py",
                                                                    "tests/test_workflow_size.py",
                                                                    "tests/test_compiler_cache_nix.py",
                                                                    "tests/test_remote_builders.py",
                                                                    "tests/test_workflow_build.py")),
    "tpl-workflow-steps": ("templates/workflow-steps.j2", ("tests/test_workflow_output.py", "tests/test_golden.py",
                                                           "tests/test_workflow_size.py", "tests/test_workflow_steps.py")),
    "tpl-init-readme": ("templates/init-readme.md.j2", ("tests/test_init.py",)),
    "tpl-pins": ("templates/pins.nix.j2", ("tests/test_golden.py", "tests/test_identity.py", "tests/test_nix.py",
                                           "tests/test_pin_facts.py")),
    "tpl-readme-gpus": ("templates/readme-gpus.md.j2", ("tests/test_golden.py", "tests/test_docs.py", "tests/test_rocm.py")),
    "tpl-readme-variants": ("templates/readme-variants.md.j2", ("tests/test_golden.py", "tests/test_docs.py")),
    "tpl-reference": ("templates/reference.md.j2", ("tests/test_reference.py",)),
    "tpl-show": ("templates/show.txt.j2", ("tests/test_list_show.py",)),
    "tpl-torch": ("templates/torch.nix.j2", ("tests/test_golden.py", "tests/test_identity.py", "tests/test_nix.py")),
    "othergpus": ("generator/commands/othergpus.py", ("tests/test_other_gpus.py", "tests/test_rocm.py")),
    "terminal": ("generator/commands/terminal.py", ("tests/test_terminal.py",)),
}

# An entry of MODULES that mutates only some functions of its module: entry -> their names
# (a method as Class.method). knowledge.py holds the table's loading, the compatibility rules
# and the wheel choice; its rules are which combinations can work and which wheels run where.
FUNCTIONS: dict[str, tuple[str, ...]] = {
    "knowledge-rules": ("in_range", "Sm.pytorch_problem", "Release.cuda_support", "Release.cuda_source_problem",
                        "Release.python_support", "LibraryGap.lacks_capability", "OtherWheels.serves",
                        "Knowledge.why_not", "why_not_rows", "disabled_features", "switches", "sm_cuda_problem",
                        "incompatibility", "findings", "_target", "code_runs", "serves", "WheelFit.driver_for",
                        "_branch", "driver_need", "gap_text", "driver_meets", "_compat", "wheels_for", "best_wheel",
                        "upstream_rocm_for", "upstream_for"),
}

# Python files with nothing to mutate: why.
NO_LOGIC: dict[str, str] = {
    "generator/__init__.py": "the package's docstring",
    "generator/commands/__init__.py": "empty",
    "generator/outputs/__init__.py": "empty",
    "generator/pipeline/__init__.py": "the package's docstring",
    "generator/pipeline/schema_code.py": "generated by scripts/schema_code.py from matrix.schema.json: its "
                                         "logic is fastjsonschema's, held to jsonschema's judgement by "
                                         "tests/test_schema_code.py",
}

# module -> {mutant name: why no test can tell it from the original}. Only these survivors
# leave the score's denominator; every other survivor counts against it.
EQUIVALENT: dict[str, dict[str, str]] = {
    # hand-written mutants of Nix files (text_mutants.py), by number and what they do
    "fix-compiler-cache-ccache": {
        "6: another package's extensions replaced": "no other fix, and no pin of the shipped knowledge, adds a "
                                                    "pythonPackagesExtensions entry: the list the fix appends to is empty",
    },
    "fix-findcudatoolkit-stub": {
        "4: found again when already found": "PyTorch's CMake finds CUDAToolkit once; a second include of CMake's own "
                                             "FindCUDAToolkit sets the same results",
    },
    "templating": {
        "generator.templating.x_stamp_of__mutmut_5": "the stamp's word for a Jinja without __version__ (None for "
                                                     "'unknown'): any constant word keys the same",
        "generator.templating.x_stamp_of__mutmut_11": "the same word, 'XXunknownXX'",
        "generator.templating.x_stamp_of__mutmut_12": "the same word, 'UNKNOWN'",
        "generator.templating.x__named__mutmut_3": "the module's word for a function without __module__ (None for ''): "
                                                   "any constant word names the same",
        "generator.templating.x__named__mutmut_9": "the same word, 'XXXX'",
        "generator.templating.x_new_environment__mutmut_7": "autoescape=None for False: Jinja escapes nothing either way",
        "generator.templating.x_new_environment__mutmut_14": "autoescape left out: Jinja's default is False",
        "generator.templating.xǁ_Compiledǁ__init____mutmut_8": "the separator between the functions' names in the "
                                                               "digest: each name is one line either way",
        "generator.templating.xǁ_Compiledǁ__init____mutmut_9": "17 hex digits of the digest for 16: as unique",
    },
    "escape": {
        "generator.escape.x_argument__mutmut_25": "argument's ValueError(None) for a text no cmd prompt can quote: its "
                                                  "one caller (handbuild._command) catches it and drops the message",
        "generator.escape.x_yaml__mutmut_18": "rstrip() of all whitespace instead of the newline: a double-quoted "
                                              "scalar PyYAML dumps ends in its closing quote and one newline",
    },
    "identity": {
        "generator.pipeline.identity.x_canonical__mutmut_9": "the C encoder's indent level 1 instead of 0: it is "
                                                              "read only where the encoder indents, and canonical "
                                                              "JSON does not",
    },
    "pin": {
        "generator.pin.x__release__mutmut_7": "release.json read in the locale's encoding instead of UTF-8: the "
                                             "release workflow writes it in ASCII (a repository name and a 40-hex "
                                             "commit, which the record must be to be read), the same text in either",
        "generator.pin.x_home__mutmut_34": "a Project-URL split at its last comma instead of its first: a label "
                                           "has no comma, and a URL _GITHUB takes has none, so both split alike",
    },
    "sandbox": {
        "generator.commands.sandbox.x__confinement__mutmut_13": "find_library('c') and 'libc.so.6' loads glibc's "
                                                                "libc.so.6, as find_library('c') names it (or, where it "
                                                                "finds none, CDLL(None), the program's own symbols, "
                                                                "libc's prctl among them): the same prctl",
    },
    "init": {
        "generator.commands.init.x_detected_text__mutmut_40": "unreachable: detect recommends a gpu or cpu variant only "
                                                              "where it knows the CPU's flags (host.cpu is set), and a "
                                                              "darwin variant takes no ISA neighbour",
    },
    "digest": {
        "generator.pipeline.digest.x_sha256__mutmut_7": "'UTF-8' and 'utf-8' are the same codec",
    },
    "ci": {
        "generator.commands.ci.x_selection__mutmut_60": "the revision's temporary folder named tmp* instead of "
                                                        "gen-matrix-*: mkdtemp adds a random suffix to either, the "
                                                        "folder is removed on return, and no output, error or "
                                                        "derivation reads its name",
    },
    "cuobjdump": {
        "generator.commands.cuobjdump.x_read__mutmut_23": "errors='REPLACE' is an unknown handler, looked up only when "
                                                         "cuobjdump writes bytes that are not UTF-8: its listings are ASCII",
    },
    "tpl-env-comments": {
        "1: the name not commented": "`comment` only folds whitespace, and a script's name holds none: a matrix's "
                                     "variant names match ^[a-z0-9][a-z0-9_-]*$, and env's own are made of a "
                                     "version, the knowledge table's Python, CUDA, SM and ISA names, which match it too",
        "5: the PyTorch version not commented": "as 1: a matrix's version matches the schema's pattern, and "
                                                "`env --pytorch` takes only digits and dots (handbuild._VERSION)",
    },
    "fix-torch-source-patches": {
        "3: postPatch set where nixpkgs has none": "nixpkgs' torch has a postPatch at every pin of the shipped knowledge "
                                                  "(without one, the mutant stops evaluation: old.postPatch is missing)",
    },
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
    "knowledge-rules": {
        "generator.knowledge.x__target__mutmut_14": "an arch list's entry ends in a digit, a or f before any +PTX (the schema's wheelRow pattern), never in X",
        "generator.knowledge.x_findings__mutmut_19": "incompatibility weighs an SM against an ISA only when both are given: an SM or an ISA alone is never ruled out",
        "generator.knowledge.x_incompatibility__mutmut_17": "ROCm's and an ISA's arch are x86_64 or aarch64 (schema), so a ROCm release the ISA's arch is not a host of has one host: a join without separator",
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
    # a git repository of its own, its files committed: tests that ask git what the checkout
    # holds (conftest.copy_checkout, `git ls-files`) see this copy, not the enclosing
    # repository, in which .mutation/ is ignored and holds nothing
    for command in (["init", "-q"], ["add", "-A"], ["-c", "user.name=mutation", "-c", "user.email=mutation@localhost",
                                                    "commit", "-q", "--no-verify", "--no-gpg-sign", "-m", "scratch copy"]):
        subprocess.run(["git", *command], cwd=root, check=True, capture_output=True)
    pyproject = tomlkit.parse((root / "pyproject.toml").read_text())
    config = pyproject["tool"]["mutmut"]
    config["only_mutate"] = [source]
    config["pytest_add_cli_args_test_selection"] = present(root, tests)
    (root / "pyproject.toml").write_text(tomlkit.dumps(pyproject))
    return root


def present(root: Path, tests: tuple[str, ...]) -> list[str]:
    """The tests of `tests` whose file `root` holds: files, or single tests named as pytest
    names them ("tests/test_ci.py::test_x", a narrower --tests selection)."""
    return [test for test in tests if (root / test.split("::", 1)[0]).is_file()]


def results(root: Path, mutmut: Path) -> dict[str, str]:
    """Each mutant's status, as `mutmut results --all true` prints it ("    name: status")."""
    listing = subprocess.run([str(mutmut), "results", "--all", "true"], cwd=root, check=True,
                             capture_output=True, text=True).stdout
    return dict(line.strip().rsplit(": ", 1) for line in listing.splitlines() if ": " in line)


def run(name: str, children: int, timeout: int, again: bool = True, sample: int = 0,
        only: tuple[str, ...] = ()) -> dict:
    source, tests = MODULES[name]
    tests = only or tests
    if not source.endswith(".py"):
        return run_text(name, timeout, again, sample, only)
    mutmut = Path(sys.executable).with_name("mutmut")
    drawn_file = SCRATCH / name / "sample.txt"
    if not again:  # the figures of the last run, read from its scratch copy
        drawn = drawn_file.read_text().split() if drawn_file.is_file() else None
        return summary(name, source, _only(_restrict(name, results(SCRATCH / name, mutmut)), drawn), 0, True,
                       sampled=bool(drawn))
    root = scratch_copy(name, source, tests)
    started = time.monotonic()
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")

    def mutmut_run(*args: str, seconds: float) -> bool:
        # its own session, so that a timeout stops mutmut's workers too
        process = subprocess.Popen([str(mutmut), "run", *args], cwd=root, env=env, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, start_new_session=True)
        return _wait(process, max(1, seconds - (time.monotonic() - started)))

    drawn = None
    if sample or name in FUNCTIONS:
        # a name no mutant has: mutmut makes every mutant and times the tests, then stops
        mutmut_run("--max-children", str(children), "no-such-mutant", seconds=timeout)
        drawn = sorted(_restrict(name, results(root, mutmut)))
        if sample:
            drawn = sorted(random.Random(name).sample(drawn, min(sample, len(drawn))))
            drawn_file.write_text("\n".join(drawn) + "\n")
    finished = mutmut_run("--max-children", str(children), *(drawn or ()), seconds=timeout)
    timed_out = [mutant for mutant, status in _only(results(root, mutmut), drawn).items() if status == "timeout"]
    if finished and timed_out:  # once more, one at a time, in what is left of the time
        finished = mutmut_run("--max-children", "1", *timed_out, seconds=timeout)
    return summary(name, source, _only(results(root, mutmut), drawn), time.monotonic() - started, finished,
                   sampled=bool(sample))


def function_of(mutant: str) -> str:
    """The function a mutmut mutant is of: "generator.knowledge.xǁWheelFitǁdriver_for__mutmut_3"
    -> "WheelFit.driver_for", "generator.knowledge.x_serves__mutmut_1" -> "serves"."""
    name = mutant.rsplit(".", 1)[-1].rsplit("__mutmut_", 1)[0]
    return ".".join(filter(None, name.split("ǁ")[1:])) if name.startswith("xǁ") else name.removeprefix("x_")


def _restrict(name: str, statuses: dict[str, str]) -> dict[str, str]:
    """The mutants of the functions FUNCTIONS names for entry `name`; all where it names none."""
    return {mutant: status for mutant, status in statuses.items()
            if name not in FUNCTIONS or function_of(mutant) in FUNCTIONS[name]}


def mutate(text: str, old: str, new: str) -> str:
    """`text` with its one `old` made `new`; a mutant whose text is not there once is refused."""
    if text.count(old) != 1:
        raise ValueError(f"the mutant's text occurs {text.count(old)} times, not once: {old!r}")
    return text.replace(old, new)


def run_text(name: str, timeout: int, again: bool = True, sample: int = 0, only: tuple[str, ...] = ()) -> dict:
    """The mutants of MUTANTS for a Nix file or a template, one at a time in a scratch copy:
    each is killed when its tests fail (pytest -x), survives when they pass."""
    source, tests = MODULES[name]
    tests = only or tests
    recorded = SCRATCH / name / "results.json"
    if not again:
        kept = json.loads(recorded.read_text()) if recorded.is_file() else {}
        return summary(name, source, kept.get("statuses", {}), kept.get("seconds", 0), kept.get("finished", False),
                       sampled=kept.get("sampled", False))
    root = scratch_copy(name, source, tests)
    started = time.monotonic()
    mutants = {f"{number}: {what}": (old, new) for number, (what, old, new) in enumerate(MUTANTS[source], 1)}
    drawn = sorted(random.Random(name).sample(sorted(mutants), min(sample, len(mutants)))) if sample else sorted(mutants)
    original = (root / source).read_text()
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=str(root))
    command = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-p", "no:randomly",
               *present(root, tests)]

    def tests_pass(seconds: float) -> bool | None:
        """Whether the tests pass in the scratch copy; None where they ran past `seconds`."""
        process = subprocess.Popen(command, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   start_new_session=True)
        return process.returncode == 0 if _wait(process, seconds) else None

    # the tests must pass on the file as it is, or no mutant can be said to be killed
    began = time.monotonic()
    if not tests_pass(timeout):
        raise SystemExit(f"{name}: the tests of {source} fail (or time out) without a mutant")
    # a mutant that makes the tests loop is stopped after five times their time unmutated
    limit = max(60.0, 5 * (time.monotonic() - began))
    statuses: dict[str, str] = {}
    finished = True
    for mutant in drawn:
        if time.monotonic() - started > timeout:
            finished = False
            break
        (root / source).write_text(mutate(original, *mutants[mutant]))
        passed = tests_pass(limit)
        statuses[mutant] = "timeout" if passed is None else "survived" if passed else "killed"
    (root / source).write_text(original)
    seconds = time.monotonic() - started
    recorded.write_text(json.dumps({"statuses": statuses, "seconds": seconds, "finished": finished,
                                    "sampled": bool(sample)}, indent=1) + "\n")
    return summary(name, source, statuses, seconds, finished, sampled=bool(sample))


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
    parser.add_argument("--tests", nargs="+", default=(), metavar="TEST",
                        help="run these test files, or single tests (FILE::NAME), instead of the table's "
                             "(a quicker, partial figure)")
    parser.add_argument("--sample", type=int, default=0, metavar="N",
                        help="run N of each module's mutants, drawn at random, and estimate its score")
    args = parser.parse_args()
    if args.list:
        for name, (source, tests) in MODULES.items():
            print(f"{name:26} {source:40} {' '.join(tests)}")
        for path, why in NO_LOGIC.items():
            print(f"{'-':26} {path:40} nothing to mutate: {why}")
        return 0
    names = args.modules or [n for n in MODULES if not args.report or (SCRATCH / n / "mutants").is_dir()]
    rows = [run(name, args.children, args.timeout, again=not args.report, sample=args.sample, only=tuple(args.tests))
            for name in names]
    print(f"{'module':26} {'mutants':>7} {'killed':>7} {'survived':>8} {'timeout':>7} {'other':>6} "
          f"{'equiv.':>6} {'score':>6} {'time':>6}")
    for row in rows:
        note = "" if row["finished"] else "  (stopped at the timeout)"
        if row["interval"]:
            note += "  (a random sample; 95%% interval %.1f%% to %.1f%%)" % row["interval"]
        print(f"{row['module']:26} {row['mutants']:7} {row['killed']:7} {row['survived']:8} {row['timeout']:7} "
              f"{row['other']:6} {row['equivalent']:6} {row['score']:5.1f}% {row['seconds']:5}s{note}")
    for row in rows:
        for survivor in row["survivors"]:
            print(f"  {row['module']}: {survivor} ({row['statuses_of'][survivor]})")
    return 0 if all(row["finished"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
