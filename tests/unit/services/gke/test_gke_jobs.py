"""``--service gke`` against a fake Kubernetes API server on 127.0.0.1, through the official
``kubernetes`` client and a kubeconfig written here: submit (exactly one JobSet, even when its
create answer is lost), describe, list, wait, logs, cancel; Kueue's word on a queued job;
credentials that fail."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from fakes.clock import FakeClock
from fakes.faults import Drop, Reply
from fakes.kubernetes import FakeKubernetes, refusals, status
from gke_cluster import CONTEXT, fake_clock, kubeconfig, point_kubeconfig

CONFIG = """\
jobId: {job_id}
trainingInput:
  scaleTier: CUSTOM
  masterType: n1-standard-8
  masterConfig:
    imageUri: us-docker.pkg.dev/p/r/trainer:1
    acceleratorConfig: {{count: 2, type: NVIDIA_TESLA_T4}}
  workerCount: 2
  workerType: n1-standard-8
  workerConfig:
    acceleratorConfig: {{count: 2, type: NVIDIA_TESLA_T4}}
"""


@pytest.fixture
def cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeKubernetes]:
    with FakeKubernetes() as fake:
        point_kubeconfig(fake, tmp_path, monkeypatch)
        yield fake


@pytest.fixture(autouse=True)
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    return fake_clock(monkeypatch)


@pytest.fixture
def submit(cli, write):
    def run(*flags: str, job_id: str = "run_1"):
        return cli("submit", write(CONFIG.format(job_id=job_id)), "--service", "gke", *flags,
                   "--", "--epochs", "2")

    return run


def gke(cli, *args: str):
    return cli(*args, "--service", "gke")


def test_submit_creates_one_jobset_and_says_how_to_follow_it(cluster, submit):
    result = submit()
    assert result.code == 0, result.err
    assert result.out == "run-1\n"
    assert list(cluster.jobsets) == [("default", "run-1")]
    assert len(cluster.route_calls("POST", "/jobsets")) == 1
    stored = cluster.jobsets[("default", "run-1")]
    assert stored["spec"]["replicatedJobs"][1]["replicas"] == 2
    assert stored["metadata"]["labels"]["gpujob-submission"]
    assert f"Job [run-1] submitted to context [{CONTEXT}], namespace [default]; state: " \
        in result.err
    assert f"  status:  kubectl --context {CONTEXT} get jobset run-1" in result.err.splitlines()
    assert f"gpujob wait run-1 --service gke --context {CONTEXT}" in result.err
    assert refusals(cluster.received[0]) == []


def test_a_lost_create_answer_makes_no_second_jobset(cluster, submit, clock):
    cluster.inject("POST jobsets", Drop(after=True))
    result = submit()
    assert result.code == 0, result.err
    assert len(cluster.route_calls("POST", "/jobsets")) == 2  # sent again, met AlreadyExists
    assert list(cluster.jobsets) == [("default", "run-1")]
    assert "was already created by an earlier attempt of this submission" in result.err
    assert clock.sleeps  # it waited before sending again


@pytest.mark.parametrize("fault", [Reply(429, status(429, "TooManyRequests", "slow down")),
                                   Reply(500, status(500, "InternalError", "etcd timeout"))])
def test_429_and_500_are_tried_again(cluster, submit, fault):
    cluster.inject("POST jobsets", fault)
    result = submit()
    assert result.code == 0, result.err
    assert len(cluster.route_calls("POST", "/jobsets")) == 2
    assert len(cluster.jobsets) == 1


def test_the_retry_flags_bound_the_tries_as_for_google(cluster, submit):
    cluster.inject("POST jobsets", Reply(429, status(429, "TooManyRequests", "slow down")))
    cluster.inject("POST jobsets", Reply(429, status(429, "TooManyRequests", "slow down")))
    result = submit("--max-attempts", "2")
    assert result.code == 3
    assert len(cluster.route_calls("POST", "/jobsets")) == 2
    assert "note: creating JobSet run-1 in namespace default: 429 Too Many Requests; " \
           "retrying in" in result.err
    assert "(gave up after 2 attempts)" in result.err
    assert cluster.jobsets == {}


def test_a_500_after_the_jobset_was_made_adopts_it(cluster, submit):
    cluster.inject("POST jobsets", Reply(500, status(500, "InternalError", "x"), handled=True))
    result = submit()
    assert result.code == 0, result.err
    assert len(cluster.jobsets) == 1
    assert "already created by an earlier attempt" in result.err


def test_someone_elses_jobset_of_the_same_name_is_not_adopted(cluster, submit):
    assert submit().code == 0
    again = submit()  # a new submission (another label), same name
    assert again.code == 3
    assert "a JobSet named run-1 already exists in namespace default (made by another " \
           "submission); nothing was created" in again.err
    assert len(cluster.jobsets) == 1


def test_wait_exits_0_when_the_jobset_completes(cluster, submit, cli):
    assert submit().code == 0
    cluster.script("run-1", "running", "completed")
    result = gke(cli, "wait", "run-1")
    assert result.code == 0, result.err
    assert "job run-1: RUNNING" in result.err and "job run-1: COMPLETED" in result.err


def test_wait_exits_4_when_it_fails(cluster, submit, cli):
    assert submit().code == 0
    cluster.script("run-1", "failed")
    result = gke(cli, "wait", "run-1")
    assert result.code == 4
    assert "job run-1 ended FAILED: jobset failed due to one or more job failures" in result.err
    assert "gpujob logs run-1 --service gke" in result.err


def test_logs_prints_each_line_with_its_replica(cluster, submit, cli):
    assert submit().code == 0
    cluster.add_log("run-1", "master", 0, "epoch 1", "epoch 2")
    cluster.add_log("run-1", "worker", 1, "ready")
    result = gke(cli, "logs", "run-1")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0].endswith("DEFAULT master-0: epoch 1")
    assert any(line.endswith("DEFAULT worker-1: ready") for line in lines)
    assert len(lines) == 3  # pods not started yet have no log


def test_cancel_deletes_the_jobset_and_wait_says_it_ended_cancelled(cluster, submit, cli):
    assert submit().code == 0
    result = gke(cli, "cancel", "run-1")
    assert result.code == 0, result.err
    assert result.err.splitlines() == [
        "JobSet run-1 deleted (its Jobs and pods go with it).",
        f"  gpujob list --service gke --context {CONTEXT} shows what is left"]
    assert cluster.route_calls("DELETE", "/jobsets/run-1")[0].query == {
        "propagationPolicy": ["Foreground"]}
    waited = gke(cli, "wait", "run-1")
    assert waited.code == 4
    assert "job run-1 ended CANCELLED: the JobSet is being deleted" in waited.err
    assert cluster.jobsets == {}
    again = gke(cli, "cancel", "run-1")
    assert again.code == 3  # gone


def test_describe_says_why_kueue_has_not_admitted_the_job(cluster, submit, cli):
    assert submit("--queue", "team-a").code == 0
    cluster.add_workload("run-1", "default", {
        "type": "QuotaReserved", "status": "False", "reason": "Inadmissible",
        "message": "LocalQueue team-a doesn't exist"})
    result = gke(cli, "describe", "run-1")
    assert result.code == 0, result.err
    assert "Kueue: QuotaReserved False (Inadmissible): LocalQueue team-a doesn't exist" \
        in result.err
    assert yaml.safe_load(result.out)["spec"]["suspend"] is True


def test_list_shows_the_namespaces_jobsets(cluster, submit, cli):
    assert submit().code == 0
    assert submit(job_id="run_2").code == 0
    result = gke(cli, "list")
    assert result.code == 0, result.err
    assert [line.split()[0] for line in result.out.splitlines()] == ["JOB_ID", "run-1", "run-2"]


def test_a_namespace_flag_reaches_every_call(cluster, submit, cli):
    assert submit("--namespace", "ml").code == 0
    assert list(cluster.jobsets) == [("ml", "run-1")]
    result = gke(cli, "describe", "run-1", "--namespace", "ml")
    assert result.code == 0, result.err


def test_credentials_the_cluster_refuses_are_a_remote_error(cluster, submit, tmp_path,
                                                             monkeypatch):
    monkeypatch.setenv("KUBECONFIG", str(kubeconfig(tmp_path / "bad", cluster.url,
                                                    {"token": "wrong-secret-token"})))
    result = submit()
    assert result.code == 3
    assert f"refused the credentials of context {CONTEXT} (401 Unauthorized)" in result.err
    assert "wrong-secret-token" not in result.err + result.out
    assert cluster.jobsets == {}


def test_an_exec_plugin_gives_the_token(cluster, submit, tmp_path, monkeypatch):
    """As gke-gcloud-auth-plugin does: the kubeconfig runs a command that prints an
    ExecCredential."""
    credential = json.dumps({"apiVersion": "client.authentication.k8s.io/v1beta1",
                             "kind": "ExecCredential", "status": {
                                 "token": cluster.token,
                                 "expirationTimestamp": "2999-01-01T00:00:00Z"}})
    plugin = {"exec": {"apiVersion": "client.authentication.k8s.io/v1beta1",
                       "command": sys.executable,
                       "args": ["-c", f"print({credential!r})"], "provideClusterInfo": True}}
    monkeypatch.setenv("KUBECONFIG", str(kubeconfig(tmp_path / "exec", cluster.url, plugin)))
    result = submit()
    assert result.code == 0, result.err
    assert len(cluster.jobsets) == 1
    assert cluster.token not in result.err + result.out


def test_an_expired_plugin_token_is_renewed_for_the_request(cluster, submit, tmp_path,
                                                            monkeypatch):
    """gke-gcloud-auth-plugin's tokens last an hour: once one has expired (here the first is
    expired at once), the plugin runs again and the request carries its new token (the
    client's own kubeconfig loader put the old one back before every request: 401)."""
    runs = tmp_path / "runs"

    def credential(token: str, expires: str) -> str:
        return json.dumps({"apiVersion": "client.authentication.k8s.io/v1beta1",
                           "kind": "ExecCredential",
                           "status": {"token": token, "expirationTimestamp": expires}})

    script = (f"import pathlib\np = pathlib.Path({str(runs)!r})\n"
              "n = int(p.read_text()) if p.exists() else 0\np.write_text(str(n + 1))\n"
              f"print({credential('stale-token', '2000-01-01T00:00:00Z')!r} if n == 0 else "
              f"{credential(cluster.token, '2999-01-01T00:00:00Z')!r})\n")
    plugin = {"exec": {"apiVersion": "client.authentication.k8s.io/v1beta1",
                       "command": sys.executable, "args": ["-c", script]}}
    monkeypatch.setenv("KUBECONFIG", str(kubeconfig(tmp_path / "exec", cluster.url, plugin)))
    result = submit()
    assert result.code == 0, result.err
    assert list(cluster.jobsets) == [("default", "run-1")]
    assert runs.read_text() == "2"  # the expired token, then the one sent
    assert "stale-token" not in result.err + result.out


def test_an_exec_plugin_that_fails_is_a_clear_error(cluster, submit, tmp_path, monkeypatch):
    plugin = {"exec": {"apiVersion": "client.authentication.k8s.io/v1beta1",
                       "command": sys.executable,
                       "args": ["-c", "import sys; sys.stderr.write('You do not currently have "
                                "an active account selected.'); sys.exit(1)"]}}
    monkeypatch.setenv("KUBECONFIG", str(kubeconfig(tmp_path / "exec", cluster.url, plugin)))
    result = submit()
    assert result.code == 3
    assert f"the credentials of context {CONTEXT} could not be obtained" in result.err
    assert "You do not currently have an active account selected." in result.err
    assert "Traceback" not in result.err
    assert cluster.calls == []  # nothing was sent without credentials


def test_an_unknown_context_is_a_usage_error(cluster, submit):
    result = submit("--context", "nope")
    assert result.code == 2
    assert "--context nope: no such context in the kubeconfig" in result.err
    assert CONTEXT in result.err


def test_the_fake_refuses_what_jobset_would_and_gpujob_says_so(cluster, tmp_path):
    """The fake's own checks can fail: a JobSet whose pods' names pass 63 characters, with
    a fractional GPU, is refused 422 as JobSet's webhook refuses it, and gpujob reports the
    Status' message."""
    from kubernetes.client.exceptions import ApiException

    from gpujob.services.gke.api import Api, connect, remote_error

    api = Api(connect(None))
    body = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": "a" * 50}, "spec": {"replicatedJobs": [{
                "name": "worker", "replicas": 2, "template": {"spec": {"template": {"spec": {
                    "restartPolicy": "Never", "containers": [{
                        "name": "c", "image": "i",
                        "resources": {"limits": {"nvidia.com/gpu": "0.5"}}}]}}}}}]}}
    with pytest.raises(ApiException) as caught:
        api.custom.create_namespaced_custom_object("jobset.x-k8s.io", "v1alpha2", "default",
                                                   "jobsets", body)
    assert caught.value.status == 422
    error = remote_error(caught.value, "creating JobSet x", CONTEXT)
    assert "job names generated for this JobSet will exceed 63 characters" in str(error)
    assert "must be a whole-number quantity" in str(error)
    assert cluster.jobsets == {}


def test_submit_wait_follows_the_jobset_to_its_end(cluster, submit):
    cluster.script("run-1", "running", "running", "completed")
    result = submit("--wait")
    assert result.code == 0, result.err
    assert "job run-1: COMPLETED" in result.err


def test_logs_follow_prints_the_lines_until_the_job_ends(cluster, submit, cli):
    assert submit().code == 0
    cluster.add_log("run-1", "master", 0, "step 1", "step 2")
    cluster.script("run-1", "running", "completed")
    result = gke(cli, "logs", "run-1", "--follow")
    assert result.code == 0, result.err
    assert [line.split(" ", 2)[2] for line in result.out.splitlines()] == [
        "master-0: step 1", "master-0: step 2"]  # each line once, however often read
    assert "job run-1 ended COMPLETED" in result.err


def test_a_cluster_without_jobset_says_to_install_it(cluster, submit):
    cluster.inject("POST jobsets", Reply(404, status(404, "NotFound", "the server could not "
                                                     "find the requested resource")))
    result = submit()
    assert result.code == 3
    assert "the cluster does not serve jobset.x-k8s.io/v1alpha2" in result.err
    assert "https://jobset.sigs.k8s.io/docs/installation/" in result.err


def test_a_read_that_meets_429_is_tried_again(cluster, submit, cli):
    assert submit().code == 0
    cluster.inject("GET jobset", Reply(429, status(429, "TooManyRequests", "slow down")))
    result = gke(cli, "describe", "run-1")
    assert result.code == 0, result.err
    assert len(cluster.route_calls("GET", "/jobsets/run-1")) == 2


def test_describe_of_a_jobset_that_is_not_there(cluster, cli):
    result = gke(cli, "describe", "nope")
    assert result.code == 3
    assert 'jobsets.jobset.x-k8s.io "nope" not found' in result.err


def test_the_next_commands_keep_a_context_whose_name_has_a_slash():
    from gpujob.services.gke.jobs import commands

    eks = "arn:aws:eks:us-east-1:123:cluster/train"
    assert commands("run-1", f"{eks}/ml").describe == \
        f"gpujob describe run-1 --service gke --context {eks} --namespace ml"
    assert commands("run-1", f"{eks}/default").wait == \
        f"gpujob wait run-1 --service gke --context {eks}"


@pytest.mark.parametrize("text", ["apiVersion: v1\nclusters: [\n", '"just a string"\n'])
def test_a_file_that_is_no_kubeconfig_is_a_remote_error(cli, tmp_path, monkeypatch, text):
    (tmp_path / "config").write_text(text)
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "config"))
    result = gke(cli, "list")
    assert result.code == 3
    assert result.err.startswith(f"error: cannot read the kubeconfig: {tmp_path / 'config'} "
                                 "is not a kubeconfig gpujob can read (")
    assert len(result.err.splitlines()) == 2 and "Traceback" not in result.err


@pytest.mark.parametrize("user, context, said", [
    ({"exec": "gke-gcloud-auth-plugin"}, {}, f"user {CONTEXT}: exec is not a mapping"),
    ({"token": "t"}, {"cluster": [CONTEXT]}, f"context {CONTEXT}: cluster is not a string"),
    ({"token": "t"}, {"user": {"name": CONTEXT}}, f"context {CONTEXT}: user is not a string"),
    ({"exec": {"command": "gke-gcloud-auth-plugin", "args": 5,
               "apiVersion": "client.authentication.k8s.io/v1beta1"}}, {},
     f"user {CONTEXT}: exec args is not a list"),
    ({"exec": {"command": "gke-gcloud-auth-plugin", "env": {"A": "b"},
               "apiVersion": "client.authentication.k8s.io/v1beta1"}}, {},
     f"user {CONTEXT}: exec env is not a list"),
])
def test_a_kubeconfig_value_of_the_wrong_type_is_a_remote_error(cli, tmp_path, monkeypatch,
                                                                 user, context, said):
    path = kubeconfig(tmp_path / "config", "https://127.0.0.1:9", user)
    data = yaml.safe_load(path.read_text())
    data["contexts"][0]["context"].update(context)
    path.write_text(yaml.safe_dump(data))
    monkeypatch.setenv("KUBECONFIG", str(path))
    result = gke(cli, "list")
    assert result.code == 3
    assert result.err.splitlines()[0] == (f"error: cannot read the kubeconfig: {path} is not a "
                                          f"kubeconfig gpujob can read ({said})")
    assert len(result.err.splitlines()) == 2 and "internal error" not in result.err
