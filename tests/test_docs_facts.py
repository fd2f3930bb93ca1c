"""What the docs list, read from `docs.facts` for a matrix of several Pythons, CUDA releases
and SMs: every count and order a reader of BUILD_MATRIX.md or the README tables relies on,
worked out here from the variants themselves."""

from __future__ import annotations

from collections import Counter

import pytest

from generator.knowledge import version_key
from generator.outputs import docs
from generator.pipeline import render

from conftest import expansion_of

MATRIX = """\
pytorch: {version: "2.8.0"}
nixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}
gpu:
  python: ["3.13", "3.11", "3.12"]
  cuda: ["12.9", "12.8"]
  sm: [sm90, sm61, sm120, sm75]
  isa: [avx2, avx]
cpu:
  python: ["3.12", "3.11"]
  isa: [avx512, avx2]
companions:
  - packages: [torchvision]
    when: {sm: [sm75], isa: avx2}
"""


@pytest.fixture(scope="module")
def expansion(tmp_path_factory):
    root = tmp_path_factory.mktemp("docs")
    (root / "matrix.yaml").write_text(MATRIX)
    return expansion_of(root)


@pytest.fixture
def context(expansion, tmp_path):
    return docs.facts(expansion, render.recipes(expansion, {}, tmp_path))


def gpu_torches(expansion):
    return [v for v in expansion.variants if v.kind == "gpu" and not v.is_companion]


def test_the_summary_counts_each_cuda_and_sm_in_order(expansion, context):
    counts = Counter((v.cuda.name, v.sm.name) for v in gpu_torches(expansion))
    capability = {v.sm.name: v.sm.capability for v in gpu_torches(expansion)}
    gpu_rows = [(row["cuda"], row["sm"], row["count"]) for row in context["summary"] if row["cuda"]]
    assert gpu_rows == sorted(((c, s, n) for (c, s), n in counts.items()),
                              key=lambda r: (version_key(r[0]), version_key(capability[r[1]])))
    assert sum(n for _, _, n in gpu_rows) == len(gpu_torches(expansion)) > 0
    assert {row["sm"] for row in context["summary"]} >= {"sm61", "sm75", "sm90", "sm120"}
    cpu = [row for row in context["summary"] if row["kind"] == "CPU only"]
    assert cpu == [{"kind": "CPU only", "cuda": None, "sm": None, "count": 4}]


def test_each_sm_lists_its_cuda_releases_in_version_order(expansion, context):
    for sm in context["sms"]:
        group = [v for v in gpu_torches(expansion) if v.sm.name == sm["name"]]
        assert sm["variants"] == len(group)
        assert sm["cudas"] == sorted({v.cuda.name for v in group}, key=version_key)
        assert sm["capability"] == group[0].sm.capability
    assert [sm["name"] for sm in context["sms"]] == ["sm61", "sm75", "sm90", "sm120"]
    assert any(len(sm["cudas"]) == 2 for sm in context["sms"])


def test_isas_are_listed_by_architecture_then_name_with_their_counts(expansion, context):
    torches = [v for v in expansion.variants if not v.is_companion and v.isa]
    assert [(i["name"], i["variants"]) for i in context["isas"]] == sorted(
        Counter(v.isa.name for v in torches).items())
    assert [i["name"] for i in context["isas"]] == ["avx", "avx2", "avx512"]


def test_each_kinds_rows_are_in_python_cuda_capability_isa_order(expansion, context):
    kinds = {k["kind"]: k for k in context["kinds"]}
    gpu = [row.name for row in kinds["gpu"]["variants"]]
    by_name = expansion.by_name
    assert gpu == sorted(gpu, key=lambda n: (version_key(by_name[n].python.name), version_key(by_name[n].cuda.name),
                                             version_key(by_name[n].sm.capability), by_name[n].isa.name))
    assert gpu[0] == "pytorch-python311-cuda12_8-sm61-avx"
    assert gpu[1] == "pytorch-python311-cuda12_8-sm61-avx2"
    cpu = [row.name for row in kinds["cpu"]["variants"]]
    assert cpu == ["pytorch-python311-cpu-avx2", "pytorch-python311-cpu-avx512",
                   "pytorch-python312-cpu-avx2", "pytorch-python312-cpu-avx512"]


def test_a_torch_row_names_its_companions_and_a_companion_row_its_torch(expansion, context):
    torch = "pytorch-python312-cuda12_9-sm75-avx2"
    rows = {row.name: row for kind in context["kinds"] for row in kind["variants"]}
    assert rows[torch].companions == ["torchvision-python312-cuda12_9-sm75-avx2"]
    assert rows[torch].package == "pytorch" and rows[torch].torch is None
    assert rows["pytorch-python312-cuda12_9-sm90-avx2"].companions == []
    companion = {row.name: row for row in context["companions"]}["torchvision-python312-cuda12_9-sm75-avx2"]
    assert companion.torch == torch and companion.package == "torchvision"
    assert companion.revision == 0 and companion.description
    assert len(context["companions"]) == sum(v.is_companion for v in expansion.variants) == 6




def test_a_description_field_a_variant_has_no_value_for_is_empty(tmp_path):
    """A pattern may name any field: a CPU variant has no GPUs, a GPU variant no Apple GPU."""
    fields = "cuda '{cuda}' sm '{sm}' isa '{isa}' accelerator '{accelerator}' family '{family}' gpus '{gpus}' " \
             "capability '{capability}' cpus '{cpus}'"
    (tmp_path / "matrix.yaml").write_text(
        'pytorch: {version: "2.8.0"}\nnixpkgs: {rev: fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3}\n'
        'gpu: {python: ["3.13"], cuda: ["12.8"], sm: [sm90], isa: [avx2]}\ncpu: {python: ["3.13"], isa: [avx2]}\n'
        'darwin: {python: ["3.13"], accelerator: [mps]}\n'
        f'description: {{gpu: "{fields}", cpu: "{fields}", darwin: "{fields}"}}\n')
    expansion = expansion_of(tmp_path)
    described = {v.kind: render.describe(expansion, v) for v in expansion.variants}
    assert described["cpu"] == ("cuda '' sm '' isa 'avx2' accelerator '' family '' gpus '' capability '' "
                                "cpus '" + ", ".join(expansion.by_name["pytorch-python313-cpu-avx2"].isa.cpus) + "'")
    assert described["darwin"].startswith("cuda '' sm '' isa '' accelerator 'mps' family '' gpus '' capability '' cpus ''")
    assert described["gpu"].startswith("cuda '12.8' sm 'sm90' isa 'avx2' accelerator '' family 'Hopper' gpus '")
    assert described["gpu"].endswith("' capability '9.0' cpus '" + ", ".join(
        expansion.by_name["pytorch-python313-cuda12_8-sm90-avx2"].isa.cpus) + "'")
