"""The workflow at 50,000 variants, within what GitHub reads.

GitHub starts no run of a workflow file over 500,000 bytes, and gives no error; one `run:`
script of about 20,000 characters made a whole workflow unparseable. The build job's matrix
is the plan's output, so the files do not grow with the matrix: this renders them for the
benchmark's 50,000-variant matrix (benchmarks/bench.py), with every setting that adds text
(a GPU runner, a cache with every field, the compiler cache), and holds them under those limits with room left.
"""

from __future__ import annotations

import sys

import yaml

from generator import pin
from generator.outputs import workflow
from generator.pipeline import expand, load, validate

from conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))
from bench import synthetic_matrix  # noqa: E402

WORKFLOW_BYTES, RUN_CHARACTERS = 500_000, 18_000


def test_at_50000_variants_each_workflow_file_and_run_script_is_within_githubs_limits():
    data = synthetic_matrix(50_000)
    data["ci"] = {"gen_matrix": "github:acme/gen-matrix/" + "0123456789abcdef" * 2 + "01234567",
                  "gpu_runners": [{"labels": ["self-hosted", "h100"], "system": "x86_64-linux", "sm": ["sm90"]}],
                  "cache": {"type": "attic", "substituter": "https://attic.example/acme",
                            "public_key": "acme:AAAA", "name": "acme", "secret": "ATTIC_TOKEN"}}
    data["build"]["compiler_cache"] = "ccache"
    data["build"]["compiler_cache_runners"] = "dedicated"  # the self-hosted h100s
    data["ci"]["substituters"] = [{"url": f"https://cache{i}.example.org", "key": f"cache{i}:{'A' * 43}="}
                                  for i in range(16)]
    expansion = expand.expand(validate.validate(load.parse(yaml.safe_dump(data), "matrix.yaml")))
    assert len(expansion.variants) >= 50_000
    files = workflow.render(expansion, pin.of(REPO / "tests", expansion.matrix.ci.gen_matrix))
    for path, text in files.items():
        assert len(text.encode("utf-8")) < WORKFLOW_BYTES, path
        document = yaml.safe_load(text)
        for job in document["jobs"].values():
            for step in job.get("steps", ()):
                assert len(step.get("run", "")) < RUN_CHARACTERS, (path, step.get("name"))
