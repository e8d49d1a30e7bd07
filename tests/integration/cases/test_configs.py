"""The example configs users copy: each is valid, says when to use it, and dry-runs, for the
default service (Vertex AI) as it is, and for AI Platform."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

CONFIGS = sorted((Path(__file__).resolve().parents[3] / "configs").glob("*.yaml"))


def test_there_are_examples_for_each_kind_of_job():
    names = {p.stem for p in CONFIGS}
    assert {"t4-compute-engine", "legacy-complex-model-m-gpu", "basic-gpu-quickstart",
            "a100-single-node", "custom-container", "hyperparameter-tuning"} <= names


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_example_is_valid(cli, path: Path):
    result = cli("validate", path)
    assert result.code == 0, result.out


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_example_says_when_to_use_it(path: Path):
    header = path.read_text(encoding="utf-8").split("\n\n")[0].lower()
    assert "# use it" in header or "use it " in header, "the comment should say when to use it"


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_example_dry_runs_to_a_job_body(cli, path: Path):
    result = cli("submit", path, "--dry-run", "--job-id", "example")
    assert result.code == 0, result.err
    body = json.loads(result.out)
    assert body["jobId"] == "example" and "scaleTier" in body["trainingInput"]


@pytest.mark.default_service
@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_example_is_valid_for_the_default_service(cli, path: Path):
    """`gpujob validate configs/x.yaml`, as a new user types it: no flag needed."""
    result = cli("validate", path)
    assert result.code == 0, result.out + result.err
    assert "1 valid, 0 invalid" in result.err and ": warning:" not in result.out


@pytest.mark.default_service
@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_example_dry_runs_for_the_default_service(cli, path: Path):
    result = cli("submit", path, "--dry-run", "--project", "demo-proj")
    assert result.code == 0, result.err
    body = json.loads(result.out)
    spec = body.get("jobSpec") or body["trialJobSpec"]
    assert spec["workerPoolSpecs"][0]["containerSpec"]["imageUri"], body
    assert "/projects/demo-proj/locations/" in result.err
