"""Capacity as GKE gives it: Spot (selector, tolerations, a restart after a preemption that does
not spend --max-restarts), flex-start (GKE's selector, or Kueue's ProvisioningRequest with the
job's timeout on the JobSet's own annotations), reservations. Sources: GKE-RUNS.md §8-9 (JobSet's
host-maintenance example site/static/examples/failure-policy/host-maintenance-event-model.yaml,
Kueue's jobframework NewWorkload, which reads only the job object's own annotations)."""

from __future__ import annotations

from typing import Any

import crd
import yaml

CONFIG = """\
jobId: cap_run
trainingInput:
  scaleTier: CUSTOM
  masterType: a2-highgpu-1g
  masterConfig:
    imageUri: us-docker.pkg.dev/p/r/trainer:1
  workerType: a2-highgpu-1g
  workerCount: 1
{scheduling}"""


def dry_run(cli, write, *args: str, scheduling: str = "") -> tuple[dict[str, Any], str]:
    result = cli("submit", write(CONFIG.format(scheduling=scheduling)), "--service", "gke",
                 "--dry-run", *args)
    assert result.code == 0, result.err
    return yaml.safe_load(result.out), result.err


def pods(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [r["template"]["spec"]["template"]["spec"] for r in body["spec"]["replicatedJobs"]]


def test_spot_selects_and_tolerates_spot_nodes_and_restarts_after_a_preemption(cli, write):
    body, err = dry_run(cli, write, "--strategy", "spot", "--max-restarts", "2")
    for pod in pods(body):
        assert pod["nodeSelector"]["cloud.google.com/gke-spot"] == "true"
        assert {"key": "cloud.google.com/gke-spot", "operator": "Equal", "value": "true",
                "effect": "NoSchedule"} in pod["tolerations"]
        assert {"key": "cloud.google.com/impending-node-termination",
                "operator": "Exists"} in pod["tolerations"]
    for rjob in body["spec"]["replicatedJobs"]:  # a lost pod fails its Job at once
        assert rjob["template"]["spec"]["podFailurePolicy"] == {
            "rules": [{"action": "FailJob", "onPodConditions": [{"type": "DisruptionTarget"}]}]}
        assert rjob["template"]["spec"]["backoffLimit"] == 0
    # ... and the JobSet restarts without counting it; a failure gets --max-restarts
    assert body["spec"]["failurePolicy"] == {
        "maxRestarts": 2,
        "rules": [{"name": "RestartAfterDisruption",
                   "action": "RestartJobSetAndIgnoreMaxRestarts",
                   "onJobFailureReasons": ["PodFailurePolicy"]}]}
    assert "note: Spot: a pod lost with its node (preemption, maintenance) fails its Job at " \
           "once and the JobSet restarts without spending --max-restarts (2)" in err
    assert crd.problems(body) == []


def test_spot_says_the_preemption_restarts_have_no_cap_and_why(cli, write):
    """JobSet's failurePolicy caps only maxRestarts: a rule has no limit of its own (the CRD's
    rule fields: action, name, onJobFailureReasons, onJobFailureMessagePatterns,
    targetReplicatedJobs), so the restarts after a preemption cannot be capped at Vertex AI's
    six; the recipes (maxRestarts alone) and xpk (exit codes counted toward maxRestarts) count
    them with the failures instead. The note says so rather than invent a field."""
    body, err = dry_run(cli, write, "--strategy", "spot")
    rule_fields = set(crd.schema()["properties"]["spec"]["properties"]["failurePolicy"][
        "properties"]["rules"]["items"]["properties"])
    assert not any("max" in f.lower() or "limit" in f.lower() for f in rule_fields)
    assert set(body["spec"]["failurePolicy"]["rules"][0]) <= rule_fields
    text = " ".join(err.split())
    assert ("those restarts have no limit: JobSet's failure policy caps only maxRestarts, not "
            "a rule's restarts (Vertex AI retries a preempted job up to 6 times; Google's "
            "recipes and xpk count a preemption against maxRestarts instead) [gke.capacity]"
            ) in text
    assert "gpujob cancel stops a job that keeps being preempted" in text


def test_without_spot_a_failure_gets_max_restarts_and_nothing_else(cli, write):
    body, _ = dry_run(cli, write)
    assert body["spec"]["failurePolicy"] == {"maxRestarts": 0}
    assert all("cloud.google.com/gke-spot" not in p["nodeSelector"] for p in pods(body))
    assert all("podFailurePolicy" not in r["template"]["spec"]
               for r in body["spec"]["replicatedJobs"])
    body, _ = dry_run(cli, write, "--max-restarts", "3")
    assert body["spec"]["failurePolicy"] == {"maxRestarts": 3}
    result = cli("submit", write(CONFIG.format(scheduling="")), "--service", "gke",
                 "--dry-run", "--max-restarts", "-1")
    assert result.code == 2 and "--max-restarts -1: is not a whole number" in result.err


def test_flex_start_selects_flex_start_nodes(cli, write):
    body, err = dry_run(cli, write, "--strategy", "flex_start")
    assert all(p["nodeSelector"]["cloud.google.com/gke-flex-start"] == "true"
               for p in pods(body))
    assert "annotations" not in body["metadata"]
    assert "note: flex-start: the pods select nodes of a flex-start node pool" in err


def test_queued_flex_start_carries_its_run_duration_on_the_jobsets_own_annotations(cli, write):
    body, err = dry_run(cli, write, "--strategy", "flex_start", "--queue", "dws",
                        scheduling="  scheduling: {maxRunningTime: 7200s}\n")
    assert body["metadata"]["annotations"] == {
        "provreq.kueue.x-k8s.io/maxRunDurationSeconds": "7200"}
    assert body["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "dws"
    for pod in pods(body):  # Kueue's ProvisioningRequest chooses the nodes
        assert "cloud.google.com/gke-flex-start" not in pod["nodeSelector"]
    for rjob in body["spec"]["replicatedJobs"]:  # Kueue reads no pod-template copy
        assert "metadata" not in rjob["template"]["spec"]["template"]
    assert crd.problems(body) == []
    _, err = dry_run(cli, write, "--strategy", "flex_start", "--queue", "dws")
    assert "without a timeout (scheduling.maxRunningTime) the nodes are held for GKE's " \
           "default of 7 days" in err


def test_a_flex_start_timeout_past_seven_days_is_warned(cli, write):
    _, err = dry_run(cli, write, "--strategy", "flex_start",
                     scheduling="  scheduling: {maxRunningTime: 864000s}\n")
    assert "warning: flex-start runs a job for at most 7 days (604800s), not 864000s" in err


NATIVE = """\
workerPoolSpecs:
  - machineSpec:
      machineType: a2-highgpu-1g
      reservationAffinity:
        reservationAffinityType: SPECIFIC_RESERVATION
        key: compute.googleapis.com/reservation-name
        values: [projects/p/zones/us-central1-a/reservations/team-a100]
    replicaCount: 1
    containerSpec: {imageUri: us-docker.pkg.dev/p/r/trainer:1}
scheduling: {strategy: SPOT, timeout: 3600s}
"""


def test_a_native_configs_reservation_strategy_and_timeout_reach_the_jobset(cli, write):
    result = cli("submit", write(NATIVE), "--service", "gke", "--dry-run")
    assert result.code == 0, result.err
    body = yaml.safe_load(result.out)
    pod = pods(body)[0]
    assert pod["nodeSelector"]["cloud.google.com/reservation-name"] == "team-a100"
    assert pod["nodeSelector"]["cloud.google.com/gke-spot"] == "true"
    assert body["spec"]["failurePolicy"]["rules"][0]["action"] == \
        "RestartJobSetAndIgnoreMaxRestarts"
    assert body["spec"]["replicatedJobs"][0]["template"]["spec"]["activeDeadlineSeconds"] == 3600


def test_reservation_selects_the_reservations_nodes_and_is_a_flag_of_gke_and_vertex(cli, write):
    body, err = dry_run(cli, write, "--reservation",
                        "projects/p/zones/us-central1-a/reservations/team-a100")
    assert all(p["nodeSelector"]["cloud.google.com/reservation-name"] == "team-a100"
               for p in pods(body))
    assert "note: the pods select the reservation team-a100 (node label " \
           "cloud.google.com/reservation-name)" in err
    body, err = dry_run(cli, write, "--reservation", "any")
    assert all("cloud.google.com/reservation-name" not in p["nodeSelector"] for p in pods(body))
    assert "--reservation any: GKE nodes draw on any matching reservation" in err
    result = cli("submit", write(CONFIG.format(scheduling="")), "--service", "ai-platform",
                 "--dry-run", "--reservation", "x")
    assert result.code == 2
    assert "--reservation (a flag of the gke and vertex services): not a flag of the " \
           "ai-platform service" in result.err
    result = cli("submit", write(CONFIG.format(scheduling="")), "--service", "gke",
                 "--dry-run", "--reservation", "Team_A")
    assert result.code == 2 and "--reservation Team_A: is not a reservation's name" in result.err
