"""Expansion: the product of the axes, less what cannot work, plus includes."""

from __future__ import annotations

import textwrap

import pytest

from generator import model
from generator.pipeline import expand, load, validate
from generator.errors import GenMatrixError

from conftest import REPO, expansion_of, reference_names

BASE = """\
pytorch: {version: "2.8.0"}
nixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}
"""


def expand_text(text: str):
    doc = load.parse(BASE + textwrap.dedent(text), "matrix.yaml")
    return expand.expand(validate.validate(doc))


def names(text: str) -> list[str]:
    return [v.name for v in expand_text(text).variants]


def test_shipped_matrix_reproduces_the_reference_torch_names():
    variants = expansion_of(REPO).variants
    assert [v.name for v in variants] == reference_names()
    kinds = [v.kind for v in variants if not v.is_companion]
    assert (kinds.count("gpu"), kinds.count("cpu"), kinds.count("darwin")) == (51, 6, 1)
    companions = {v.name: v.torch for v in variants if v.is_companion}
    assert companions == {
        f"{package}-python313-cuda12_8-{sm}-avx": f"pytorch-python313-cuda12_8-{sm}-avx"
        for package in ("torchvision", "torchaudio") for sm in ("sm61", "sm75")
    }


def test_shipped_tree_holds_exactly_the_reference_recipes():
    assert sorted(p.stem for p in (REPO / ".flox" / "pkgs").glob("*.nix")) == reference_names()


def test_sm_dropped_after_its_last_cuda():
    result = names("""
        gpu: {python: ["3.13"], cuda: ["12.9", "13.0"], sm: [sm61, sm90], isa: [avx2]}
    """)
    assert result == [
        "pytorch-python313-cuda12_9-sm61-avx2",
        "pytorch-python313-cuda12_9-sm90-avx2",
        "pytorch-python313-cuda13_0-sm90-avx2",
    ]


def test_sm_dropped_before_its_first_cuda_with_reason():
    result = expand_text("""
        gpu: {python: ["3.13"], cuda: ["12.6", "12.8"], sm: [sm120], isa: [avx2]}
    """)
    assert [v.name for v in result.variants] == ["pytorch-python313-cuda12_8-sm120-avx2"]
    (dropped,) = result.dropped
    assert dropped.rule == "knowledge"
    assert "needs CUDA >= 12.8" in dropped.reason and "12.6" in dropped.reason


def test_aarch64_only_gpus_only_pair_with_arm_isas():
    result = names("""
        gpu: {python: ["3.13"], cuda: ["13.0"], sm: [sm110, sm121], isa: [avx2, armv9]}
    """)
    assert result == ["pytorch-python313-cuda13_0-sm110-armv9", "pytorch-python313-cuda13_0-sm121-armv9"]


def test_several_cudas_and_pythons_side_by_side():
    result = names("""
        gpu: {python: ["3.12", "3.13"], cuda: ["12.8", "12.9", "13.0", "13.1"], sm: [sm90], isa: [avx512]}
    """)
    assert len(result) == 8
    assert "pytorch-python312-cuda13_1-sm90-avx512" in result


def test_restrict_limits_one_value_to_some_others():
    result = names("""
        gpu:
          python: ["3.13"]
          cuda: ["12.8"]
          sm: [sm61, sm90]
          isa: [avx, avx2, avx512, armv9]
          restrict:
            - when: {sm: sm61}
              only: {isa: [avx, avx2]}
            - when: {isa: armv9}
              only: {sm: sm90}
    """)
    assert result == [
        "pytorch-python313-cuda12_8-sm61-avx", "pytorch-python313-cuda12_8-sm61-avx2",
        "pytorch-python313-cuda12_8-sm90-armv9", "pytorch-python313-cuda12_8-sm90-avx",
        "pytorch-python313-cuda12_8-sm90-avx2", "pytorch-python313-cuda12_8-sm90-avx512",
    ]


def test_exclude_and_include():
    result = names("""
        cpu:
          python: ["3.13"]
          isa: [avx2, avx512]
          exclude:
            - {isa: avx512}
          include:
            - {python: "3.12", isa: avx512}
    """)
    assert result == ["pytorch-python312-cpu-avx512", "pytorch-python313-cpu-avx2"]


def test_exclude_that_matches_nothing_warns():
    result = expand_text("""
        cpu:
          python: ["3.13"]
          isa: [avx2]
          exclude:
            - {isa: avx512}
    """)
    (warning,) = result.warnings
    assert "matches no variant" in warning.message and warning.where.line > 0


def test_include_that_cannot_work_is_an_error():
    with pytest.raises(GenMatrixError) as error:
        expand_text("""
            gpu:
              python: ["3.13"]
              cuda: ["12.8"]
              sm: [sm90]
              isa: [avx2]
              include:
                - {python: "3.13", cuda: "12.6", sm: sm120, isa: avx2}
        """)
    (problem,) = error.value.problems
    assert "sm120 (Blackwell consumer) needs CUDA >= 12.8; this asks for 12.6" in problem.message
    assert problem.where.line == 10


def test_knowledge_rows_from_the_matrix_add_a_gpu_generation():
    result = names("""
        knowledge:
          sm:
            sm130:
              capability: "13.0"
              family: Future
              min_cuda: "13.1"
              hosts: [x86_64]
        gpu: {python: ["3.13"], cuda: ["13.0", "13.1"], sm: [sm130], isa: [avx2]}
    """)
    assert result == ["pytorch-python313-cuda13_1-sm130-avx2"]


def test_expansion_is_sorted_and_independent_of_axis_order():
    a = names('gpu: {python: ["3.13"], cuda: ["12.8"], sm: [sm90, sm80], isa: [avx512, avx2]}')
    b = names('gpu: {python: ["3.13"], cuda: ["12.8"], sm: [sm80, sm90], isa: [avx2, avx512]}')
    assert a == b == sorted(a)


GPU_AND_CPU = """\
gpu: {python: ["3.13"], cuda: ["12.8"], sm: [sm90], isa: [avx2]}
cpu: {python: ["3.13"], isa: [avx2]}
"""


def test_a_companion_rule_can_name_the_kind():
    expansion = expand_text(GPU_AND_CPU + "companions: [{packages: [torchvision], when: {kind: cpu, isa: avx2}}]\n")
    assert {v.name: v.torch for v in expansion.variants if v.is_companion} == {
        "torchvision-python313-cpu-avx2": "pytorch-python313-cpu-avx2"}


def test_a_pin_rule_can_name_the_kind():
    text = BASE.replace("nixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}\n", """\
nixpkgs:
  pins:
    - {name: cpu, rev: 0182a361324364ae3f436a63005877674cf45efb, when: {kind: cpu}}
    - {name: main, rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}
""") + GPU_AND_CPU
    expansion = expand.expand(validate.validate(load.parse(text, "matrix.yaml")))
    assert {v.name: v.pin for v in expansion.variants} == {
        "pytorch-python313-cuda12_8-sm90-avx2": "main", "pytorch-python313-cpu-avx2": "cpu"}



def test_each_variant_builds_on_a_gpu_runner_for_its_sm_else_its_kinds_runner_else_its_systems():
    expansion = expand_text(GPU_AND_CPU.replace("sm: [sm90]", "sm: [sm90, sm120]") + """\
ci:
  gpu_runners: [{labels: [h100], system: x86_64-linux, sm: [sm90]}, {labels: [arm-h100], system: aarch64-linux, sm: [sm120]}]
  runners: {x86_64-linux: [big]}
""")
    placed = {v.name: expansion.matrix.ci.placement(v) for v in expansion.variants}
    assert placed == {
        "pytorch-python313-cuda12_8-sm90-avx2": (("h100",), True),
        # the GPU runner for sm120 is of another system
        "pytorch-python313-cuda12_8-sm120-avx2": (("self-hosted", "linux", "x64", "pytorch-builder"), False),
        "pytorch-python313-cpu-avx2": (("big",), False),
    }


@pytest.mark.parametrize("name, why", [
    ("Torch", "'Torch' is not a safe package name: use lower-case letters, digits, _ and -, starting with a letter "
              "or digit"),
    ("-torch", "'-torch' is not a safe package name: use lower-case letters, digits, _ and -, starting with a letter "
               "or digit"),
    ("t" * 201, f"'{'t' * 40}...' is 201 characters long; a package name may have at most {model.MAX_NAME} (a file "
                "name, with .nix and the prefixes Flox and Nix add, must stay under 255 bytes)"),
    ("pytorch-python313-cpu-avx2", None),
])
def test_a_name_that_cannot_be_a_package_and_file_name_says_why(name, why):
    assert model.check_name(name) == why


def narrowed(result) -> list[tuple[str, str]]:
    return [(str(w.where), w.message) for w in result.warnings if "has no variant with" in w.message]


def test_a_gpu_the_knowledge_table_narrows_gets_one_warning_with_the_reason():
    """A keeper adds sm70 beside CUDA 12.8 to 13.1: its 13.x half is dropped, said once at
    sm70 with the releases and the reason; sm90, with all of them, and the CUDA values get none."""
    result = expand_text("""
        gpu: {python: ["3.12", "3.13"], cuda: ["12.8", "12.9", "13.0"], sm: [sm70, sm90], isa: [avx2]}
    """)
    assert [v.name for v in result.variants if "sm70" in v.name] == [
        f"pytorch-python{p}-cuda{c}-sm70-avx2" for p in ("312", "313") for c in ("12_8", "12_9")]
    assert narrowed(result) == [("matrix.yaml:4:70", "gpu.sm sm70 has no variant with cuda 13.0 (sm70 (Volta) was "
                                 "dropped after CUDA 12.9); `gen-matrix explain --sm sm70` says more")]


def test_a_jetson_part_beside_x86_instruction_sets_is_said_with_each_axis_it_loses():
    result = expand_text("""
        gpu: {python: ["3.13"], cuda: ["12.9", "13.0"], sm: [sm90, sm110], isa: [avx2, avx512, armv9]}
    """)
    assert narrowed(result) == [(
        "matrix.yaml:4:60", "gpu.sm sm110 has no variant with cuda 12.9 (sm110 (Blackwell Thor) needs CUDA >= 13.0); "
        "isa avx2, avx512 (sm110 (Blackwell Thor) is a Jetson part, found only on aarch64 hosts); `gen-matrix "
        "explain --sm sm110` says more")]


def test_what_a_users_rule_also_keeps_out_or_a_barren_value_is_not_said_as_narrowed():
    ruled = expand_text("""
        gpu:
          python: ["3.13"]
          cuda: ["12.9", "13.0"]
          sm: [sm70, sm90, sm110]
          isa: [avx2, armv9]
          restrict:
            - {when: {sm: sm70}, only: {cuda: "12.9"}}
            - {when: {sm: sm110}, only: {isa: armv9, cuda: "13.0"}}
    """)
    assert narrowed(ruled) == []
    barren = expand_text("""
        gpu: {python: ["3.13"], cuda: ["12.8", "13.0"], sm: [sm61], isa: [avx2]}
    """)
    assert narrowed(barren) == [] and any("gpu.cuda 13.0 yields no variant" in w.message for w in barren.warnings)


OLDER, NEWER = "6a030d535719c5190187c4cec156f335e95e3211", "0182a361324364ae3f436a63005877674cf45efb"


def test_variants_that_share_facts_share_fixes_and_the_others_get_their_own():
    """The fixes are chosen once for each set of a variant's facts (its CUDA, ISA, system,
    kind, pin...) and handed to every variant with the same: each variant must still get the
    fixes of its own facts, on its own pin's nixpkgs (NEWER carries magma-cuda13-clockrate)."""
    doc = load.parse(textwrap.dedent(f"""\
        pytorch: {{version: "2.9.1"}}
        nixpkgs:
          pins:
            - {{name: older, rev: {OLDER}, when: {{sm: sm90}}}}
            - {{name: newer, rev: {NEWER}}}
        gpu: {{python: ["3.12", "3.13"], cuda: ["12.8", "13.0"], sm: [sm75, sm90], isa: [avx, avx2]}}
        cpu: {{python: ["3.12", "3.13"], isa: [avx, avx2]}}
        companions:
          - {{packages: [torchvision], when: {{sm: [sm90]}}}}
    """), "matrix.yaml")
    result = expand.expand(validate.validate(doc))
    knowledge = result.matrix.knowledge
    seen = set()
    for variant in result.variants:
        if variant.is_companion:
            assert variant.fixes == result.by_name[variant.torch].fixes, variant.name
            continue
        rev = {"older": OLDER, "newer": NEWER}[variant.pin]
        carried = set(knowledge.pins[rev].carries) if rev in knowledge.pins else set()
        facts = {"pytorch": "2.9.1", "cuda": variant.cuda.name if variant.cuda else None, "source": False,
                 "isa": variant.isa.name, "system": variant.system, "kind": variant.kind, "pin": variant.pin,
                 "compiler_cache": None}
        wanted = tuple(sorted(fix.name for fix in knowledge.fixes.values()
                              if fix.applies(facts) and fix.name not in carried))
        assert variant.fixes == wanted, variant.name
        seen.add(wanted)
    # several sets of fixes, among them one that only the pin tells apart
    assert len(seen) >= 4, seen
    cuda13 = [v for v in result.variants if v.cuda and v.cuda.name == "13.0" and not v.is_companion]
    assert {v.pin for v in cuda13 if "magma-cuda13-clockrate" in v.fixes} == {"older"}
    assert {v.pin for v in cuda13 if "magma-cuda13-clockrate" not in v.fixes} == {"newer"}


@pytest.mark.parametrize("head, said", [
    # PyTorch 2.8's source takes CUDA below 13.0 and Python 3.9 to 3.13: warnings
    ('pytorch: {version: "2.8.0"}\nnixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}\n',
     {("warning", "13.0"): "PyTorch 2.8's source does not build with CUDA 13.0 (it takes CUDA >=11.0,<13.0)",
      ("warning", "13.1"): "PyTorch 2.8's source does not build with CUDA 13.1 (it takes CUDA >=11.0,<13.0)",
      ("warning", "3.14"): "PyTorch 2.8 supports Python 3.9 to 3.13; 3.14 is outside"}),
    # PyTorch 2.9's own wheels leave out CUDA 12.9 and 13.1, which its source builds: notes
    ('pytorch: {version: "2.9.1"}\nnixpkgs: {rev: 6a030d535719c5190187c4cec156f335e95e3211}\n',
     {("note", "12.9"): "PyTorch 2.9's own wheels are built for CUDA 12.6, 12.8 (experimental: 13.0), not 12.9: "
                        "a build from source with it is untested upstream",
      ("note", "13.1"): "PyTorch 2.9's own wheels are built for CUDA 12.6, 12.8 (experimental: 13.0), not 13.1: "
                        "a build from source with it is untested upstream"}),
])
def test_each_cuda_and_python_the_release_leaves_out_is_said_once_where_the_matrix_writes_it(head, said):
    """Several CUDA releases and Pythons of the release's range, each in many variants and in
    two sections: each value outside it is said once, at the value, whatever variant has it."""
    axes = '["3.12", "3.13", "3.14"]'
    text = (f'{head}gpu: {{python: {axes}, cuda: ["12.6", "12.8", "12.9", "13.0", "13.1"], sm: [sm90, sm120], '
            f'isa: [avx2, avx512]}}\ncpu: {{python: {axes}, isa: [avx2, avx512]}}\n')
    result = expand.expand(validate.validate(load.parse(text, "matrix.yaml")))
    found = {}
    for kind, problems in (("warning", result.warnings), ("note", result.notes)):
        for problem in problems:
            if "PyTorch" in problem.message and "wheels leave out" not in problem.message:
                value = problem.hint.split("--")[1].split("`")[0].split()[1]
                assert (kind, value) not in found, problem
                found[(kind, value)] = problem
    assert {key: problem.message for key, problem in found.items()} == said
    columns = {key: text.splitlines()[problem.where.line - 1][problem.where.column - 1:].split('"')[1]
               for key, problem in found.items()}
    assert columns == {key: key[1] for key in said}
