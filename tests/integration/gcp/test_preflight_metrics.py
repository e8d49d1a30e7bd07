"""The quota preflight of the newest accelerators (issue 33, item 5), against the fake Service
Usage and Vertex AI: a B200 job's preflight reads its metric (the catalog's ``quota`` data);
an accelerator with no metric known is said, not passed over in silence."""

from __future__ import annotations

import json

import pytest
from conftest import REGION

from gpujob.catalog import load
from gpujob.services.vertex.quota.preflight import needs, quota_data, unchecked

VERTEX = ("--service", "vertex")
B200 = "aiplatform.googleapis.com/custom_model_training_nvidia_b200_gpus"
IMAGE = "us-docker.pkg.dev/proj-a/trainers/trainer:1"


def native(machine: str, accelerator: str | None = None, count: int = 0,
           replicas: int = 2) -> str:
    gpus = f", acceleratorType: {accelerator}, acceleratorCount: {count}" if accelerator else ""
    return (f"workerPoolSpecs:\n  - machineSpec: {{machineType: {machine}{gpus}}}\n"
            f"    replicaCount: {replicas}\n    containerSpec: {{imageUri: {IMAGE}}}\n")


def test_a_b200_jobs_preflight_reads_its_metric_and_refuses_when_short(
        cli, google, key, write, vertex, preflight):
    google.quota.set(B200, {REGION: 8})
    config = write(native("a4-highgpu-8g", "NVIDIA_B200", 8), "b200.yaml")
    result = cli("preflight", config, *VERTEX, "--region", REGION)
    assert result.code == 1, result.err
    assert (f"error: not enough quota: {REGION}: the job needs 16 NVIDIA_B200 GPUs ({B200}); "
            "the project's limit there is 8") in result.err
    assert len(google.calls("consumerQuotaMetrics.list")) == 1  # every metric in one read
    assert "does not check their quota" not in result.err
    google.quota.set(B200, {REGION: 16})
    held = cli("preflight", config, *VERTEX, "--region", REGION)
    assert held.code == 0, held.err
    assert held.out == f"{REGION}/STANDARD\n"
    assert vertex.jobs == {} and google.calls("customJobs.create") == []


def test_a_gpu_with_no_metric_known_is_said_once_and_not_checked(
        cli, google, key, write, vertex, preflight):
    config = write(native("a4x-highgpu-4g", "NVIDIA_GB200", 4), "gb200.yaml")
    result = cli("preflight", config, *VERTEX, "--region", f"{REGION},us-east4",
                 "--reservation", "gb200-res", "--format", "json")
    assert result.code == 0, result.err
    notes = [line for line in result.err.splitlines() if "does not check" in line]
    assert notes == ["note: NVIDIA_GB200 GPUs: gpujob does not check their quota: no Vertex "
                     "AI quota metric for GB200 is published"]
    assert json.loads(result.out)["failover"]["chosen"]["region"] == REGION
    assert google.calls("consumerQuotaMetrics.get") == []  # no metric asked for one by one


def _body(machine: str, accelerator: str | None = None, count: int = 0,
          strategy: str | None = None) -> dict:
    spec: dict = {"machineType": machine}
    if accelerator:
        spec |= {"acceleratorType": accelerator, "acceleratorCount": count}
    job: dict = {"workerPoolSpecs": [{"machineSpec": spec, "replicaCount": "2"}]}
    if strategy:
        job["scheduling"] = {"strategy": strategy}
    return {"jobSpec": job}


@pytest.mark.parametrize(("body", "metric", "count", "what"), [
    (_body("a4-highgpu-8g", "NVIDIA_B200", 8, "SPOT"),
     "custom_model_training_preemptible_nvidia_b200_gpus", 16, "NVIDIA_B200 GPUs"),
    (_body("g4-standard-48", "NVIDIA_RTX_PRO_6000", 1),
     "custom_model_training_nvidia_rtx_pro_6000_gpus", 2, "NVIDIA_RTX_PRO_6000 GPUs"),
    (_body("ct5lp-hightpu-4t"), "custom_model_training_tpu_v5e", 8, "TPU v5e chips"),
    (_body("cloud-tpu", "TPU_V3", 8), "custom_model_training_tpu_v3", 16, "TPU_V3 TPUs"),
])
def test_the_newest_accelerators_draw_on_their_metric(body, metric, count, what):
    (need,) = needs(body)
    assert (need.metric, need.count, need.what) == (f"aiplatform.googleapis.com/{metric}",
                                                   count, what)
    assert unchecked(body) == []


@pytest.mark.parametrize(("body", "line"), [
    (_body("cloud-tpu", "TPU_V2", 8),
     "TPU_V2 TPUs: gpujob does not check their quota: no Vertex AI quota metric for TPU v2 is "
     "published"),
    (_body("ct6e-standard-4t"), "TPU v6e chips: gpujob does not check their quota: no Vertex "
     "AI quota metric for TPU v6e (Trillium) is published"),
    (_body("ct5lp-hightpu-4t", strategy="SPOT"),
     "TPU v5e chips: gpujob does not check their quota: gpujob knows no preemptible metric for "
     "them, which Spot and flex-start jobs draw on (only the on-demand "
     "aiplatform.googleapis.com/custom_model_training_tpu_v5e)"),
])
def test_an_accelerator_with_no_metric_says_why(body, line):
    assert needs(body) == []
    assert unchecked(body) == [line]


def test_every_accelerator_gpujob_accepts_has_a_metric_or_says_it_has_none():
    cat = load("vertex")
    data = quota_data()
    for name in cat.accelerators:
        assert (name in data["gpus"]) != (name in data["unchecked"]), name
    for kind in {m.tpu for m in cat.machine_types.values() if m.tpu}:
        assert (kind in data["tpus"]) != (kind in data["unchecked"]), kind
    with open(cat.path, encoding="utf-8") as fh:
        key = json.load(fh)["source_key"]
    assert {"MG-UTIL", "GCL-MG", "Q-SEARCH"} <= set(data["source"]["refs"]) <= set(key)
