"""What a JobSet's pods carry for the cluster: ``--service-account KSA`` as serviceAccountName,
``--priority`` as priorityClassName, ``--topology`` as Kueue's topology-aware placement
annotations, the master and workers in one podset group (GKE-RUNS.md §12: Kueue's
topology_aware_scheduling.md, the AI Hypercomputer recipes' values, xpk's workload.py)."""

from __future__ import annotations

import yaml
from fakes.kubernetes import refusals
from gke_cluster import T4_JOB

from gpujob.services.gke import jobset

CONFIG = T4_JOB


def dry_run(cli, path: str, *args: str) -> dict:
    result = cli("submit", path, "--service", "gke", "--dry-run", *args)
    assert result.code == 0, result.err
    return yaml.safe_load(result.out)


def templates(body: dict) -> dict[str, dict]:
    return {r["name"]: r["template"]["spec"]["template"] for r in body["spec"]["replicatedJobs"]}


def test_service_account_and_priority_reach_every_pod(cli, write):
    body = dry_run(cli, write(CONFIG), "--service-account", "trainer", "--priority", "high")
    for template in templates(body).values():
        assert template["spec"]["serviceAccountName"] == "trainer"
        assert template["spec"]["priorityClassName"] == "high"
    assert jobset.requirements(body) == [] and refusals(body) == []


def test_a_native_configs_service_account_is_the_pods(cli, write):
    native = """\
workerPoolSpecs:
  - machineSpec: {machineType: n1-standard-8}
    replicaCount: 1
    containerSpec: {imageUri: us-docker.pkg.dev/p/r/trainer:1}
serviceAccount: trainer
"""
    body = dry_run(cli, write(native))
    assert templates(body)["master"]["spec"]["serviceAccountName"] == "trainer"


def test_a_google_service_account_is_a_note_with_the_fix(cli, write):
    result = cli("submit", write(CONFIG), "--service", "gke", "--dry-run",
                 "--service-account", "sa@p.iam.gserviceaccount.com")
    assert result.code == 0
    assert "note: serviceAccount sa@p.iam.gserviceaccount.com is a Google service account: " \
           "GKE pods run as a Kubernetes service account" in result.err
    assert "give --service-account KSA" in result.err
    body = yaml.safe_load(result.out)
    assert all("serviceAccountName" not in t["spec"] for t in templates(body).values())


def test_topology_places_master_and_workers_in_one_group(cli, write):
    body = dry_run(cli, write(CONFIG), "--queue", "team-a", "--topology",
                   "kubernetes.io/hostname")
    groups = set()
    for template in templates(body).values():
        annotations = template["metadata"]["annotations"]
        assert annotations["kueue.x-k8s.io/podset-preferred-topology"] == \
            "kubernetes.io/hostname"
        groups.add(annotations["kueue.x-k8s.io/podset-group-name"])
    assert groups == {"run-1"}
    required = dry_run(cli, write(CONFIG), "--queue", "team-a", "--topology",
                       "required:cloud.google.com/gce-topology-block")
    annotations = templates(required)["worker"]["metadata"]["annotations"]
    assert annotations["kueue.x-k8s.io/podset-required-topology"] == \
        "cloud.google.com/gce-topology-block"
    assert "kueue.x-k8s.io/podset-preferred-topology" not in annotations
    assert refusals(required) == []


def test_topology_without_a_queue_and_bad_names_are_usage_errors(cli, write):
    path = write(CONFIG)
    result = cli("submit", path, "--service", "gke", "--dry-run", "--topology",
                 "kubernetes.io/hostname")
    assert result.code == 2
    assert "--topology asks Kueue to place the pods" in result.err
    assert "give --queue LOCALQUEUE" in result.err
    result = cli("submit", path, "--service", "gke", "--dry-run", "--priority", "High_1")
    assert result.code == 2
    assert "--priority High_1: cannot name a PriorityClass" in result.err
    result = cli("submit", path, "--service", "gke", "--dry-run", "--queue", "q",
                 "--topology", "not a label")
    assert result.code == 2
    assert "is not a node label of a topology level" in result.err
    assert cli("submit", path, "--service", "vertex", "--dry-run", "--priority",
               "high").code == 2  # GKE's own flag
