"""``gpujob preflight --service gke --availability`` (issue 33 item 2, GKE): Compute Engine's
capacity advice for the JobSet's nodes, asked in the cluster's own project and location (from
--project and --region, else the kubeconfig context's name), against the fake cluster and the
fake Google's ``advice.capacity`` on 127.0.0.1 (requests checked against the compute v1
document). Advice only: a refusal is one warning, nothing is sent twice, the exit code is the
cluster's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import PROJECT
from fakes import kube_cluster
from fakes.errors import permission_denied, service_disabled
from fakes.faults import Reply
from fakes.kubernetes import FakeKubernetes
from gke_cluster import T4_JOB, connect, custom_job, kubeconfig

from gpujob.services.gke.advice import Where, where

CONTEXT = f"gke_{PROJECT}_us-central1_train"
T4 = T4_JOB
L4 = custom_job("run_2", "g2-standard-8", "NVIDIA_L4", count=1, workers=1)


@pytest.fixture
def cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeKubernetes]:
    with FakeKubernetes() as fake:
        connect(fake, tmp_path, monkeypatch, CONTEXT)
        yield fake


@pytest.fixture
def compute(google, key, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("GPUJOB_COMPUTE_ENDPOINT", google.url)
    for name in ("GPUJOB_PROJECT", "GOOGLE_CLOUD_PROJECT", "CLOUDSDK_CORE_PROJECT"):
        monkeypatch.delenv(name, raising=False)
    return google


@pytest.fixture
def preflight(cli, write):
    def run(*flags: str, config: str = T4):
        return cli("preflight", write(config), "--service", "gke", *flags)

    return run


def _sent(call) -> tuple[str, str, str]:
    parts = call.path.split("/")  # /compute/v1/projects/P/regions/R/advice/capacity
    return parts[4], parts[6], call.body["instanceProperties"]["scheduling"]["provisioningModel"]


def _warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("warning:")]


def test_the_nodes_are_asked_about_in_the_contexts_project_and_region(cluster, compute,
                                                                       preflight):
    kube_cluster.ready(cluster)
    compute.advice.score("us-central1", 0.9, zones=("us-central1-a",), model="STANDARD")
    result = preflight("--queue", "team-a", "--availability")
    assert result.code == 0, result.err
    calls = compute.calls("advice.capacity")
    assert compute.rejected == []
    assert [_sent(c) for c in calls] == [(PROJECT, "us-central1", "STANDARD")]  # once
    assert calls[0].body["size"] == 3  # the master's node and the 2 workers' (one pod a node)
    assert calls[0].body["instanceFlexibilityPolicy"]["instanceSelections"]["job"][
        "guestAccelerators"] == [{"acceleratorType": "nvidia-tesla-t4", "acceleratorCount": 2}]
    assert compute.calls("advice.capacityHistory") == []  # not Spot (nor for N1 with GPUs)
    err = " ".join(result.err.split())
    assert f"in project {PROJECT}" in err and "your cluster's own node pools" in err
    assert "proxy" not in err
    assert ("capacity advice: 3 × n1-standard-8 in us-central1/STANDARD: obtainable 0.9 "
            "(us-central1-a)") in result.err
    assert "--availability is not asked" not in result.err
    assert _warnings(result.err) == []
    assert result.out.startswith("ready: ")  # the advice is on stderr, stdout unchanged


def test_spot_is_asked_as_spot_with_its_preemption_rate_and_the_exit_code_is_the_clusters(
        cluster, compute, preflight):
    kube_cluster.no_jobset(cluster)  # a missing piece: exit 1 whatever the advice
    compute.advice.score("us-central1", 0.4, uptime_s=3600, zones=("us-central1-b",),
                         model="SPOT")
    compute.advice.history("us-central1", "g2-standard-8", [("2026-11-26", 0.3),
                                                            ("2026-11-27", 0.12)])
    result = preflight("--strategy", "spot", "--availability", config=L4)
    assert result.code == 1
    assert [_sent(c) for c in compute.calls("advice.capacity")] == [
        (PROJECT, "us-central1", "SPOT")]
    assert compute.calls("advice.capacity")[0].body["size"] == 2
    assert len(compute.calls("advice.capacityHistory")) == 1
    assert compute.rejected == []
    assert ("capacity advice: 2 × g2-standard-8 in us-central1/SPOT: obtainable 0.4 "
            "(us-central1-b), Spot uptime about 1 h, 12% of Spot VMs preempted on 2026-11-27"
            ) in result.err
    assert "check: node pool" in result.out


def test_project_and_region_given_are_where_it_is_asked(cluster, compute, preflight):
    kube_cluster.ready(cluster)
    compute.advice.score("europe-west4", 0.7)
    result = preflight("--queue", "team-a", "--project", PROJECT, "--region", "europe-west4",
                       "--availability")
    assert result.code == 0, result.err
    assert [_sent(c) for c in compute.calls("advice.capacity")] == [
        (PROJECT, "europe-west4", "STANDARD")]
    assert "3 × n1-standard-8 in europe-west4/STANDARD: obtainable 0.7" in result.err


def test_without_availability_project_is_still_refused_and_nothing_is_asked(cluster, compute,
                                                                             preflight):
    kube_cluster.ready(cluster)
    result = preflight("--queue", "team-a", "--project", PROJECT)
    assert result.code == 2
    assert "--project is not supported by the gke service" in result.err
    result = preflight("--queue", "team-a")
    assert result.code == 0, result.err
    assert compute.calls("advice.capacity") == []


def test_a_zonal_clusters_zone_is_asked_about_alone(cluster, compute, preflight, tmp_path):
    kube_cluster.ready(cluster)
    kubeconfig(tmp_path / "kubeconfig", cluster.url, {"token": cluster.token},
               context=f"gke_{PROJECT}_us-central1-c_train")
    compute.advice.score("us-central1", 0.6, zones=("us-central1-c",))
    result = preflight("--queue", "team-a", "--availability")
    assert result.code == 0, result.err
    calls = compute.calls("advice.capacity")
    assert [_sent(c) for c in calls] == [(PROJECT, "us-central1", "STANDARD")]
    assert calls[0].body["distributionPolicy"]["zones"] == [{"zone": "zones/us-central1-c"}]
    assert "3 × n1-standard-8 in us-central1-c/STANDARD: obtainable 0.6" in result.err


def test_a_context_that_names_no_project_is_one_warning_saying_what_to_pass(
        cluster, compute, preflight, tmp_path):
    kube_cluster.ready(cluster)
    kubeconfig(tmp_path / "kubeconfig", cluster.url, {"token": cluster.token},
               context="my-cluster")
    result = preflight("--queue", "team-a", "--availability")
    assert result.code == 0, result.err
    warnings = _warnings(result.err)
    assert len(warnings) == 1
    assert "context my-cluster does not name the cluster's project and location" in warnings[0]
    assert "give --project and --region" in warnings[0]
    assert compute.calls("advice.capacity") == []


@pytest.mark.parametrize("refusal", [
    permission_denied("compute.advice.capacity", f"projects/{PROJECT}"),
    service_disabled("123456789012", "compute.googleapis.com"),
], ids=["no-permission", "not-enabled"])
def test_a_refusal_is_one_warning_never_a_block_and_nothing_more_is_sent(
        cluster, compute, preflight, refusal):
    kube_cluster.ready(cluster)
    compute.inject("advice.capacity", Reply(403, refusal))
    result = preflight("--queue", "team-a", "--strategy", "spot", "--availability")
    assert result.code == 0, result.err
    assert len(compute.calls("advice.capacity")) == 1
    assert compute.calls("advice.capacityHistory") == []
    warnings = _warnings(result.err)
    assert len(warnings) == 1 and "capacity advice could not be had" in warnings[0]
    assert "nothing more was asked" in warnings[0]
    assert "3 × n1-standard-8 in us-central1/SPOT: no answer" in result.err


def test_no_answer_is_said_as_no_answer(cluster, compute, preflight):
    kube_cluster.ready(cluster)  # the fake has no score for the region: no recommendation
    result = preflight("--queue", "team-a", "--availability", "--format", "json")
    assert result.code == 0, result.err
    assert json.loads(result.out)["ready"] is True  # stdout: the cluster's answer alone
    assert "3 × n1-standard-8 in us-central1/STANDARD: no answer" in result.err
    assert len(compute.calls("advice.capacity")) == 1


@pytest.mark.parametrize(("context", "project", "region", "expected"), [
    ("gke_proj-a_us-central1_train", None, None, Where("proj-a", "us-central1", None)),
    ("gke_proj-a_europe-west4-b_c-1", None, None, Where("proj-a", "europe-west4",
                                                        "europe-west4-b")),
    ("gke_example.com:proj_us-east4_c", None, None, Where("example.com:proj", "us-east4",
                                                          None)),
    ("gke_proj-a_us-central1-c_train", "other", "us-east1", Where("other", "us-east1", None)),
    ("kind-dev", "p", "us-east1", Where("p", "us-east1", None)),
])
def test_where_the_advice_is_asked(context, project, region, expected):
    assert where(context, project, region) == expected


def test_a_region_alone_without_a_project_says_to_give_the_project():
    found = where("kind-dev", None, "us-east1")
    assert isinstance(found, str) and "give --project (" in found


def test_flex_start_is_asked_as_flex_start(cluster, compute, preflight):
    kube_cluster.ready(cluster)
    compute.advice.score("us-central1", 0.8, model="FLEX_START")
    result = preflight("--strategy", "flex_start", "--availability")
    assert [_sent(c) for c in compute.calls("advice.capacity")] == [
        (PROJECT, "us-central1", "FLEX_START")]
    assert compute.calls("advice.capacityHistory") == []  # Spot's alone
    assert "3 × n1-standard-8 in us-central1/FLEX_START: obtainable 0.8" in result.err


TPU = """\
workerPoolSpecs:
  - machineSpec:
      machineType: ct5lp-hightpu-4t
      tpuTopology: 2x4
    replicaCount: 1
    containerSpec:
      imageUri: us-docker.pkg.dev/p/r/trainer:1
"""


def test_a_tpu_slice_is_not_asked_about_and_says_so(cluster, compute, preflight):
    kube_cluster.no_jobset(cluster)
    result = preflight("--availability", config=TPU)
    assert result.code == 1  # no JobSet: the cluster's answer
    assert "capacity advice: 2 TPU slice pods: not asked" in result.err
    assert compute.calls("advice.capacity") == []
