"""Compute Engine's capacity advice in ``gpujob gpus --availability`` (issue 33 item 2), against
the fake's ``advice.capacity`` on 127.0.0.1, whose requests and answers are checked against
the compute v1 document bundled with google-api-python-client."""

from __future__ import annotations

import json

import pytest
from conftest import PROJECT
from fakes.errors import permission_denied, service_disabled
from fakes.faults import Reply

from gpujob.gcp.discovery import document

L4 = ("gpus", "--gpu", "L4", "--count", "4", "--region", "us-central1,europe-west4",
      "--project", PROJECT, "--availability")


@pytest.fixture
def compute(google, key, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("GPUJOB_COMPUTE_ENDPOINT", google.url)
    return google


def test_the_installed_compute_document_has_the_advice_methods():
    """The floor in pyproject.toml (2.201): its compute v1 document has both methods."""
    assert {"capacity", "calendarMode"} <= set(document("compute", "v1")["resources"]["advice"]
                                               ["methods"])


@pytest.mark.default_service
def test_availability_adds_the_advice_columns(cli, compute):
    compute.advice.score("us-central1", 0.9, zones=("us-central1-a",), model="STANDARD")
    compute.advice.score("us-central1", 0.5, uptime_s=3600, zones=("us-central1-b",),
                         model="SPOT")
    compute.advice.score("europe-west4", 0.2, uptime_s=600)
    compute.advice.history("us-central1", "g2-standard-48", [("2026-11-26", 0.3),
                                                             ("2026-11-27", 0.12)])
    result = cli(*L4)
    assert result.code == 0, result.err
    header = next(line for line in result.out.splitlines() if line.startswith("REGION "))
    assert "OBTAINABLE ON-DEMAND" in header and "SPOT UPTIME" in header
    central = next(line for line in result.out.splitlines()
                   if line.startswith("us-central1 ") and "g2-standard-48" in line)
    assert "0.9 (us-central1-a)" in central and "0.5 (us-central1-b)" in central
    assert "1 h" in central and central.endswith("12%")  # the newest day's rate
    europe = next(line for line in result.out.splitlines()
                  if line.startswith("europe-west4 ") and "g2-standard-48" in line)
    assert "0.2" in europe and "10 min" in europe and europe.endswith("-")  # no history
    history = compute.calls("advice.capacityHistory")
    assert sorted(c.path.split("/")[6] for c in history if "g2-standard-48" in json.dumps(
        c.body)) == ["europe-west4", "us-central1"]
    assert "a proxy for Vertex AI" in " ".join(result.out.split())  # (wrapped to the width)
    calls = compute.calls("advice.capacity")
    assert compute.rejected == []
    sent = {(c.path.split("/")[6], c.body["instanceProperties"]["scheduling"]
             ["provisioningModel"]) for c in calls if "g2-standard-48" in json.dumps(c.body)}
    assert sent == {("us-central1", "STANDARD"), ("us-central1", "SPOT"),
                    ("europe-west4", "STANDARD"), ("europe-west4", "SPOT")}
    assert len(calls) == len({json.dumps([c.path, c.body], sort_keys=True) for c in calls})
    assert all(c.body["size"] == 1 for c in calls)
    assert "warning" not in result.err


@pytest.mark.default_service
@pytest.mark.parametrize("refusal", [
    permission_denied("compute.advice.capacity", f"projects/{PROJECT}"),
    service_disabled("123456789012", "compute.googleapis.com"),
], ids=["no-permission", "not-enabled"])
def test_a_refusal_is_one_warning_and_nothing_more_is_asked(cli, compute, refusal):
    compute.inject("advice.capacity", Reply(403, refusal))
    result = cli(*L4)
    assert result.code == 0, result.err
    assert len(compute.calls("advice.capacity")) == 1
    assert compute.calls("advice.capacityHistory") == []  # nothing sent after the refusal
    warnings = [line for line in result.err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "capacity advice could not be had" in warnings[0]
    assert "nothing more was asked" in warnings[0]
    assert "no answer" in result.out  # the rows are there, without advice
    assert "$" in result.out


@pytest.mark.default_service
def test_json_rows_carry_the_advice(cli, compute):
    compute.advice.score("us-central1", 0.7, uptime_s=600)
    result = cli(*L4, "--format", "json")
    assert result.code == 0, result.err
    table = json.loads(result.out)["price_table"]
    assert table["advice"]["source"] == "compute.advice.capacity"
    row = next(r for r in table["rows"] if r["region"] == "us-central1")
    assert row["advice"]["spot"]["obtainability"] == 0.7
    assert row["advice"]["spot"]["estimated_uptime_s"] == 600
    assert row["advice"]["spot_preemption_rate"] is None


# 10 replicas (a master and 9 workers) of n1-standard-8 with 4 T4s each
FORTY_T4 = """\
trainingInput:
  region: us-central1
  scaleTier: CUSTOM
  masterType: n1-standard-8
  masterConfig:
    acceleratorConfig: {count: 4, type: NVIDIA_TESLA_T4}
    imageUri: us-docker.pkg.dev/proj-a/trainers/trainer:1
  workerCount: 9
  workerType: n1-standard-8
  workerConfig:
    acceleratorConfig: {count: 4, type: NVIDIA_TESLA_T4}
    imageUri: us-docker.pkg.dev/proj-a/trainers/trainer:1
"""
T4 = "aiplatform.googleapis.com/custom_model_training_nvidia_t4_gpus"
T4_SPOT = "aiplatform.googleapis.com/custom_model_training_preemptible_nvidia_t4_gpus"


def test_preflight_availability_asks_each_choice_once(cli, compute, write, preflight):
    compute.quota.set(T4, {}, default=-1)
    compute.quota.set(T4_SPOT, {}, default=-1)
    compute.advice.score("us-central1", 0.9, zones=("us-central1-a",), model="STANDARD")
    compute.advice.score("us-east4", 0.4, uptime_s=3600, model="SPOT")
    result = cli("preflight", write(FORTY_T4), "--service", "vertex", "--region",
                 "us-central1,us-east4", "--strategy", "standard,spot", "--availability")
    assert result.code == 0, result.err
    assert "a proxy for Vertex AI" in result.err
    assert ("capacity advice: 1 × n1-standard-8 in us-central1/STANDARD: obtainable 0.9 "
            "(us-central1-a)") in result.err
    assert ("capacity advice: 9 × n1-standard-8 in us-east4/SPOT: obtainable 0.4, Spot uptime "
            "about 1 h") in result.err
    calls = compute.calls("advice.capacity")
    assert compute.rejected == []
    assert len(calls) == 8  # 4 choices × 2 pools (master, workers), none twice
    accelerators = {json.dumps(c.body["instanceFlexibilityPolicy"]["instanceSelections"]
                               ["job"]["guestAccelerators"]) for c in calls}
    assert accelerators == {json.dumps([{"acceleratorType": "nvidia-tesla-t4",
                                         "acceleratorCount": 4}])}
    assert "warning" not in result.err


def test_preflight_availability_refused_is_one_warning(cli, compute, write, preflight):
    compute.quota.set(T4, {}, default=-1)
    compute.inject("advice.capacity", Reply(403, permission_denied(
        "compute.advice.capacity", f"projects/{PROJECT}")))
    result = cli("preflight", write(FORTY_T4), "--service", "vertex", "--region",
                 "us-central1,us-east4", "--availability")
    assert result.code == 0, result.err
    assert len(compute.calls("advice.capacity")) == 1
    warnings = [line for line in result.err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "capacity advice could not be had" in warnings[0]


def test_preflight_without_availability_asks_nothing(cli, compute, write, preflight):
    compute.quota.set(T4, {}, default=-1)
    result = cli("preflight", write(FORTY_T4), "--service", "vertex")
    assert result.code == 0, result.err
    assert compute.calls("advice.capacity") == []


@pytest.mark.parametrize("service", ["ai-platform", "gke"])
def test_availability_without_vertex_prices_is_a_usage_error(cli, compute, service):
    result = cli("gpus", "--gpu", "T4", "--count", "4", "--service", service, "--availability",
                 "--project", PROJECT)
    assert result.code == 2
    assert "--availability adds Compute Engine's capacity advice to the price table, and " \
           "gpujob has no prices for" in result.err
    # where the service's own advice is: a GKE cluster's VMs are the user's (preflight)
    assert ("hint: gpujob preflight CONFIG --service gke --availability asks it for the "
            "cluster's own VMs" in result.err) == (service == "gke")
    assert compute.calls("advice.capacity") == []


@pytest.mark.default_service
def test_a_zone_is_asked_about_alone(cli, compute):
    compute.advice.score("us-central1", 0.6, zones=("us-central1-b",))
    result = cli("gpus", "--gpu", "L4", "--count", "4", "--zone", "us-central1-b",
                 "--project", PROJECT, "--availability")
    assert result.code == 0, result.err
    calls = compute.calls("advice.capacity")
    assert calls and compute.rejected == []
    assert all(c.body["distributionPolicy"]["zones"] == [{"zone": "zones/us-central1-b"}]
               for c in calls)
    assert "in zone us-central1-b:" in " ".join(result.out.split())
