"""``--max-hourly-cost`` against the fake Vertex AI: a job over budget is refused (exit 1)
before any request, build or upload; one within it is created once, its envelope carrying the
cost."""

from __future__ import annotations

import json

import pytest
from jobs import RUNTIME_JOB_WITHOUT_PACKAGES

VERTEX = ("--service", "vertex")
IMAGE = "us-docker.pkg.dev/proj-a/images/python:3.11"


def test_over_budget_nothing_is_built_uploaded_or_sent(cli, google, key, gcs, write, trainer,
                                                       vertex):
    config = write(RUNTIME_JOB_WITHOUT_PACKAGES)  # 1 x n1-standard-4, about $0.22 an hour
    result = cli("submit", config, *VERTEX, "--package-path", trainer(),
                 "--executor-image-uri", IMAGE, "--staging-bucket", f"gs://{gcs.bucket}",
                 env={"GPUJOB_MAX_HOURLY_COST": "0.1"})
    assert result.code == 1
    assert (f"{config}:1:1: the job costs $0.22/hour on-demand in us-central1, over "
            "--max-hourly-cost $0.10 [cost.budget]") in result.err.splitlines()
    assert result.err.splitlines()[-1] == f"error: {config}: 1 problem; nothing was submitted"
    assert "Built " not in result.err
    assert google.requests == []  # not even a token
    assert gcs.emulator.objects(gcs.bucket) == {} and gcs.requests() == []
    assert vertex.jobs == {}


def test_within_budget_the_job_is_created_once_with_its_cost(cli, google, key, config, vertex,
                                                             clock):
    result = cli("submit", config, *VERTEX, "--format", "json", "--max-hourly-cost", "100")
    assert result.code == 0, result.err
    assert len(google.calls("customJobs.create")) == 1 and len(vertex.jobs) == 1
    envelope = json.loads(result.out)
    assert envelope["cost"]["strategy"] == "on_demand"
    assert envelope["cost"]["hourly"] == pytest.approx(2.261807)  # n1-highcpu-16 + 4 × T4
    assert envelope["cost"]["currency"] == "USD"
    assert envelope["cost"]["prices"]["as_of"] == "2026-05-20"


def test_a_submit_says_what_the_job_costs_before_it_is_sent(cli, google, key, config, vertex,
                                                            clock):
    result = cli("submit", config, *VERTEX)
    assert result.code == 0, result.err
    costs = [line for line in result.err.splitlines() if line.startswith("cost:")]
    assert costs == ["cost: $2.26/hour on-demand in us-central1 (1 × n1-highcpu-16 with 4 × "
                     "NVIDIA_TESLA_T4); Spot $1.16/hour, flex-start no price"]
    assert result.err.splitlines()[0].startswith("cost:")  # before the job is made
    assert len(vertex.jobs) == 1
    as_json = cli("submit", config, *VERTEX, "--format", "json")
    assert "cost:" not in as_json.err  # the envelope has it
