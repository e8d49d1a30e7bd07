"""A Spot JobSet on a fake cluster whose node is preempted mid-run: the cluster applies the
JobSet's own policies as the Job and JobSet controllers do (Kubernetes' pod failure policy:
https://kubernetes.io/docs/concepts/workloads/controllers/job/#pod-failure-policy; JobSet's
``pkg/controllers/failure_policy.go``: the first rule whose ``onJobFailureReasons`` holds the
Job's reason gives the action, else ``RestartJobSet``; a counted restart past ``maxRestarts``
fails it), so what gpujob sent is what decides: the JobSet restarts, the restart is counted apart
from failures, and the job completes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes.clock import FakeClock
from fakes.kubernetes import FakeKubernetes
from gke_cluster import custom_job, fake_clock, point_kubeconfig

CONFIG = custom_job("spot_1", count=1, workers=1, worker_gpus=False)


class JobSetCluster(FakeKubernetes):
    """The fake cluster, with a state ``preempted``: a pod of the master's Job is lost with its
    node (condition ``DisruptionTarget``), and the JobSet's policies say what follows."""

    def advance(self, js: dict[str, Any]) -> None:
        steps = self.scripts.get(js["metadata"]["name"])
        if not steps or steps[0]["state"] != "preempted":
            restarts = (js.get("status") or {}).get("restarts", 0)
            counted = (js.get("status") or {}).get("restartsCountTowardsMax", 0)
            super().advance(js)
            if not (js.get("status") or {}).get("terminalState") or \
                    js["status"]["terminalState"] == "Completed":
                js["status"].update(restarts=restarts, restartsCountTowardsMax=counted)
            return
        steps.popleft()
        st = js.setdefault("status", {})
        job = js["spec"]["replicatedJobs"][0]["template"]["spec"]
        matches = any(rule["action"] == "FailJob" and
                      any(c["type"] == "DisruptionTarget" for c in rule.get("onPodConditions", []))
                      for rule in (job.get("podFailurePolicy") or {}).get("rules", []))
        reason = "PodFailurePolicy" if matches else "BackoffLimitExceeded"
        policy = js["spec"].get("failurePolicy")
        if policy is None:
            action = "FailJobSet"
        else:
            action = next((r["action"] for r in policy.get("rules", [])
                           if not r.get("onJobFailureReasons") or
                           reason in r["onJobFailureReasons"]), "RestartJobSet")
        counted = st.get("restartsCountTowardsMax", 0)
        if action == "RestartJobSet" and counted >= policy.get("maxRestarts", 0):
            action = "FailJobSet"
        if action == "FailJobSet":
            st.update(terminalState="Failed", conditions=[{
                "type": "Failed", "status": "True", "reason": "ReachedMaxRestarts",
                "message": "jobset failed due to reaching max number of restarts",
                "lastTransitionTime": "2026-11-26T12:05:00Z"}])
            self.scripts[js["metadata"]["name"]].clear()
            self.scripts[js["metadata"]["name"]].append({"state": "failed"})
            return
        st["restarts"] = st.get("restarts", 0) + 1
        if action == "RestartJobSet":
            st["restartsCountTowardsMax"] = counted + 1


@pytest.fixture
def cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[JobSetCluster]:
    with JobSetCluster() as fake:
        point_kubeconfig(fake, tmp_path, monkeypatch)
        yield fake


@pytest.fixture(autouse=True)
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    return fake_clock(monkeypatch)


def test_a_preempted_spot_jobset_restarts_uncounted_and_completes(cluster, cli, write):
    result = cli("submit", write(CONFIG), "--service", "gke", "--strategy", "spot")
    assert result.code == 0, result.err
    cluster.script("spot-1", "running", "preempted", "running", "completed")
    result = cli("wait", "spot-1", "--service", "gke")
    assert result.code == 0, result.err
    assert "job spot-1: COMPLETED" in result.err
    st = cluster.jobsets[("default", "spot-1")]["status"]
    assert (st["restarts"], st["restartsCountTowardsMax"]) == (1, 0)


def test_a_preempted_standard_jobset_spends_its_restarts(cluster, cli, write):
    """Without Spot the JobSet has no disruption rule: the lost node counts as a failure,
    which --max-restarts 0 does not restart."""
    assert cli("submit", write(CONFIG), "--service", "gke").code == 0
    cluster.script("spot-1", "running", "preempted", "running", "completed")
    result = cli("wait", "spot-1", "--service", "gke")
    assert result.code == 4
    assert "jobset failed due to reaching max number of restarts" in result.err
