"""``--service gke`` when the API server, the kubeconfig or the user do what the happy path does
not: logs with progress bars and bytes that are not UTF-8, answers gpujob cannot read, answers
that never come or trickle in, token files ending with a newline, credential plugins that
never finish, and SIGTERM or SIGHUP while gpujob waits."""

from __future__ import annotations

import base64
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakes.clock import FakeClock
from fakes.faults import Reply, Stall, Trickle
from fakes.kubernetes import FakeKubernetes, status
from gke_cluster import CONTEXT, fake_clock, kubeconfig, point_kubeconfig

from gpujob import redact

CONFIG = """\
{job_id}trainingInput:
  scaleTier: CUSTOM
  masterType: n1-standard-8
  masterConfig:
    imageUri: us-docker.pkg.dev/p/r/trainer:1
    acceleratorConfig: {{count: 2, type: NVIDIA_TESLA_T4}}
"""
STAMP = "2026-11-26T12:00:05.123456789Z"


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
    def run(*flags: str, job_id: str | None = "run_1"):
        text = CONFIG.format(job_id=f"jobId: {job_id}\n" if job_id else "")
        return cli("submit", write(text), "--service", "gke", *flags)

    return run


def gke(cli, *args: str):
    return cli(*args, "--service", "gke")


def payloads(out: str) -> list[str]:
    return [line.split(": ", 1)[1] for line in out.splitlines() if ": " in line]


# -- logs (F04, F05, F06) -----------------------------------------------------------------------

def test_a_progress_bar_stays_in_its_line_and_follow_ends_with_the_job(cluster, submit, cli):
    """tqdm's ``\\r`` is not a line end: the bar is printed once, in its place, and --follow
    ends once the JobSet completed (it read a timestampless fragment as new at each poll)."""
    assert submit().code == 0
    cluster.add_log("run-1", "master", 0, "epoch 1 start", " 10%|#  | 1/10\r 20%|## | 2/10",
                    "epoch 1 done")
    cluster.script("run-1", "running", "running", "completed")
    result = gke(cli, "logs", "run-1", "--follow")
    assert result.code == 0, result.err
    assert [p.replace("\r", "\\r") for p in payloads(result.out)] == [
        "epoch 1 start", " 10%|#  | 1/10\\r 20%|## | 2/10", "epoch 1 done"]


def test_lines_of_one_time_keep_their_order(cluster, submit, cli):
    """A 12-line traceback written at one instant: line 10 after line 9, not after line 1."""
    assert submit().code == 0
    traceback = ["Traceback (most recent call last):", *(
        f'  File "train.py", line {i}, in step{i}' for i in range(1, 11)),
        "RuntimeError: CUDA out of memory"]
    cluster.logs["run-1-master-0-0-abcde"] = [f"{STAMP} {line}" for line in traceback]
    result = gke(cli, "logs", "run-1")
    assert result.code == 0, result.err
    assert payloads(result.out) == traceback


def test_a_byte_that_is_not_utf8_is_replaced_and_the_other_lines_shown(cluster, submit, cli):
    assert submit().code == 0
    cluster.add_log("run-1", "master", 0, "epoch 1 loss 0.5")
    cluster.logs["run-1-master-0-0-abcde"].append(f"{STAMP} shard ".encode() + b"\xff\xfe ok")
    result = gke(cli, "logs", "run-1")
    assert result.code == 0, result.err
    assert "epoch 1 loss 0.5" in payloads(result.out)
    assert "shard \ufffd\ufffd ok" in payloads(result.out)


def test_an_unknown_charset_is_read_as_utf8(cluster, submit, cli):
    assert submit().code == 0
    cluster.add_log("run-1", "master", 0, "hello")
    cluster.inject("GET log", Reply(200, f"{STAMP} héllo\n".encode(), handled=True,
                                    headers={"Content-Type": "text/plain; charset=utf8mb4"}))
    result = gke(cli, "logs", "run-1")
    assert result.code == 0, result.err
    assert payloads(result.out) == ["héllo"]


# -- a create whose answer cannot be read (F07) -----------------------------------------------

@pytest.mark.parametrize(("body", "content_type"), [
    ("created!", "application/json"), ("[]", "application/json"),
    (b'{"kind": "JobSet", "x": "\xff"}', "application/json"),
    ('{"kind": "JobSet"}', "application/json; charset=latin-9x")],
    ids=["not-json", "a-list", "not-utf8", "unknown-charset"])
def test_a_create_answer_that_cannot_be_read_is_read_back(cluster, submit, body, content_type):
    """The JobSet was made: it is read back by its name and this submission's label, and
    reported, never an internal error; nothing is sent twice."""
    cluster.inject("POST jobsets", Reply(201, body, handled=True,
                                         headers={"Content-Type": content_type}))
    result = submit(job_id=None)
    assert result.code == 0, result.err
    [(_, name)] = list(cluster.jobsets)
    assert result.out == f"{name}\n"
    assert f"JobSet {name} was created (read back from the cluster)" in result.err
    assert len(cluster.route_calls("POST", "/jobsets")) == 1


def test_a_created_jobset_that_cannot_be_read_back_may_exist(cluster, submit):
    cluster.inject("POST jobsets", Reply(201, "created!", handled=True))
    cluster.inject("GET jobset", Reply(500, status(500, "InternalError", "etcd")))
    result = submit("--max-attempts", "1")
    assert result.code == 3
    assert "error: the JobSet may have been created: run-1 (namespace default); creating " \
           "JobSet run-1 in namespace default: the API server's answer is not JSON" in result.err
    assert f"hint: look before submitting again: gpujob describe run-1 --service gke " \
           f"--context {CONTEXT}" in result.err
    assert len(cluster.route_calls("POST", "/jobsets")) == 1


# -- answers of the wrong shape (F13) -----------------------------------------------------------

BASE = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
        "metadata": {"name": "run-1", "uid": "u-1"}, "spec": {}}


@pytest.mark.parametrize(("command", "route", "body", "said"), [
    ("describe", "GET jobset", [], "is a JSON list, not an object"),
    ("describe", "GET jobset", "not json", "is not JSON: 'not json'"),
    ("wait", "GET jobset", {**BASE, "metadata": ["run-1"]},
     "has metadata that is a list, not an object"),
    ("wait", "GET jobset", {**BASE, "status": {"replicatedJobsStatus": [{"active": "two"}]}},
     "has status.replicatedJobsStatus[0].active that is a str, not an integer"),
    ("cancel", "GET jobset", None, "is a JSON NoneType, not an object"),
    ("list", "GET jobsets", {"items": [5]}, "has items[0] that is a int, not an object"),
    ("logs", "GET pods", {"kind": "PodList", "items": [{"spec": {}}]},
     "has items[0].metadata that is null, not an object"),
])
def test_an_answer_gpujob_cannot_read_is_a_remote_error(cluster, submit, cli, command, route,
                                                         body, said):
    assert submit().code == 0
    cluster.inject(route, Reply(200, json.dumps(body) if body != "not json" else body))
    result = gke(cli, command, *([] if command == "list" else ["run-1"]))
    assert result.code == 3, result.err
    assert f"the API server's answer {said}" in result.err
    assert "internal error" not in result.err


def test_a_workload_list_gpujob_cannot_read_is_a_remote_error(cluster, submit, cli):
    assert submit("--queue", "team-a").code == 0
    cluster.inject("GET workloads", Reply(200, {"items": [{"status": {"conditions": [5]}}]}))
    result = gke(cli, "describe", "run-1")
    assert result.code == 3
    assert "reading Kueue's Workloads in namespace default: the API server's answer has " \
           "items[0].status.conditions[0] that is a int, not an object" in result.err


# -- --request-timeout bounds every request (F14) -------------------------------------------------

@pytest.mark.parametrize(("command", "route", "fault"), [
    ("describe", "GET jobset", Trickle(120, 1000)),  # a byte now and then: never a read timeout
    ("cancel", "DELETE jobset", Stall(120)),
])
def test_request_timeout_bounds_the_whole_answer(cluster, submit, cli, command, route, fault):
    assert submit().code == 0
    cluster.inject(route, fault)
    started = time.monotonic()
    result = gke(cli, command, "run-1", "--request-timeout", "1", "--max-attempts", "1")
    assert time.monotonic() - started < 60  # the fault lasts 120 s
    assert result.code == 3, result.err
    assert "gave no complete answer within --request-timeout" in result.err


def test_a_create_whose_answer_comes_too_late_is_adopted_not_doubled(cluster, submit):
    """The JobSet is made, its answer stalls past --request-timeout: the create is sent again,
    meets 409, and the JobSet with this submission's label is the one reported."""
    cluster.inject("POST jobsets", Stall(120))
    result = submit("--request-timeout", "1")
    assert result.code == 0, result.err
    assert "note: creating JobSet run-1 in namespace default: no complete answer in time; " \
           "retrying in" in result.err
    assert "was already created by an earlier attempt of this submission" in result.err
    assert len(cluster.route_calls("POST", "/jobsets")) == 2
    assert list(cluster.jobsets) == [("default", "run-1")]


def test_the_read_after_a_409_is_bounded_too(cluster, submit):
    assert submit().code == 0
    cluster.inject("GET jobset", Stall(120))
    result = submit("--request-timeout", "1", "--max-attempts", "1")  # 409: another submission
    assert result.code == 3
    assert "reading JobSet run-1: the API server at" in result.err
    assert "gave no complete answer within --request-timeout" in result.err


# -- tokens (F12) and missing JobSets (L5) -----------------------------------------------------

def test_a_token_file_ending_with_a_newline_is_trimmed(cluster, submit, cli, tmp_path,
                                                       monkeypatch):
    assert submit().code == 0
    (tmp_path / "token").write_text(cluster.token + "\n")
    monkeypatch.setenv("KUBECONFIG", str(kubeconfig(tmp_path / "kc", cluster.url,
                                                    {"tokenFile": "token"})))  # relative
    result = gke(cli, "describe", "run-1")
    assert result.code == 0, result.err
    assert cluster.calls[-1].authorization == f"Bearer {cluster.token}"


@pytest.mark.parametrize("debug", ["", "1"])
def test_a_kubeconfig_token_is_never_printed(cluster, submit, cli, tmp_path, monkeypatch,
                                             debug):
    secret = "Xk9:pa55-w0rd-s3cr3t!"
    monkeypatch.setenv("KUBECONFIG", str(kubeconfig(tmp_path / "kc", cluster.url,
                                                    {"token": secret + "\n"})))
    result = cli("describe", "run-1", "--service", "gke", env={"GPUJOB_DEBUG": debug})
    assert result.code == 3  # the cluster refuses it (401): no internal error
    assert "401 Unauthorized" in result.err
    assert "pa55-w0rd" not in result.err + result.out
    assert redact.mask(f"Bearer {secret}") == "Bearer [redacted]"  # in any message


def test_wait_on_a_deleted_jobset_says_so_with_the_list_command(cluster, cli):
    result = gke(cli, "wait", "gone-1")
    assert result.code == 3
    assert "error: reading JobSet gone-1 in namespace default: it is not there" in result.err
    assert f"hint: no JobSet gone-1 in namespace default: it may have been deleted (gpujob " \
           f"cancel deletes it); gpujob list --service gke --context {CONTEXT} shows the " \
           "namespace's JobSets" in result.err


# -- credential plugins and signals (F10, F03) ---------------------------------------------------

def _plugin(tmp_path: Path, body: str) -> dict:
    script = tmp_path / "plugin.py"
    script.write_text(body)
    return {"exec": {"apiVersion": "client.authentication.k8s.io/v1beta1",
                     "command": sys.executable, "args": [str(script)]}}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_plugin_that_never_finishes_is_stopped_at_the_request_timeout(cluster, cli, tmp_path,
                                                                        monkeypatch):
    pidfile = tmp_path / "pid"
    user = _plugin(tmp_path, f"import os, time\nopen({str(pidfile)!r}, 'w').write("
                             "str(os.getpid()))\ntime.sleep(300)\n")
    monkeypatch.setenv("KUBECONFIG", str(kubeconfig(tmp_path / "kc", cluster.url, user)))
    result = gke(cli, "describe", "run-1", "--request-timeout", "1")
    assert result.code == 3
    assert f"the credentials of context {CONTEXT} could not be obtained: its exec plugin " \
           f"{sys.executable} gave no answer within 1 s (--request-timeout); it was stopped" \
           in result.err
    assert not _alive(int(pidfile.read_text()))
    assert cluster.calls == []


def test_a_failing_plugin_is_said_in_its_first_meaningful_line(cluster, cli, tmp_path,
                                                               monkeypatch):
    """gke-gcloud-auth-plugin without a gcloud login: glog's header and gcloud's many lines
    are left out; the hint names the fix."""
    said = ("F1129 02:13:14.123456   4242 cred.go:145] print credential failed with error: "
            "Failed to retrieve access token:: failure while executing gcloud\\n\\n"
            "ERROR: (gcloud.auth.print-access-token) You do not currently have an active "
            "account selected.\\nPlease run:\\n\\n  $ gcloud auth login\\n")
    user = _plugin(tmp_path, f"import sys\nsys.stderr.write('{said}')\nsys.exit(1)\n")
    monkeypatch.setenv("KUBECONFIG", str(kubeconfig(tmp_path / "kc", cluster.url, user)))
    result = gke(cli, "list")
    assert result.code == 3
    assert result.err.splitlines() == [
        f"error: the credentials of context {CONTEXT} could not be obtained: "
        f"{os.path.basename(sys.executable)} exited 1: print credential failed with error: "
        "Failed to retrieve access token:: failure while executing gcloud",
        "  hint: run gcloud auth login (and gcloud auth application-default login)"]


def _gpujob(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "gpujob", *args, "--service", "gke"],
                            env={**os.environ, **env}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)


def _until(done, what: str) -> None:
    deadline = time.monotonic() + 60
    while not done():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP],
                         ids=["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_stop_signal_ends_the_plugin_with_gpujob(cluster, tmp_path, signum):
    pidfile = tmp_path / "pid"
    user = _plugin(tmp_path, f"import os, time\nopen({str(pidfile)!r}, 'w').write("
                             "str(os.getpid()))\ntime.sleep(300)\n")
    config = kubeconfig(tmp_path / "kc", cluster.url, user)
    proc = _gpujob({"KUBECONFIG": str(config)}, "describe", "run-1")
    _until(lambda: pidfile.exists() and pidfile.read_text(), "the plugin never ran")
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    assert out == ""
    assert proc.returncode == 130, err
    assert err.strip().endswith("interrupted")
    assert not _alive(int(pidfile.read_text()))


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_stop_signal_leaves_no_copy_of_a_client_key(tmp_path, signum):
    """The kubernetes client copies a kubeconfig's client-key-data to a file in $TMPDIR,
    removed when the process exits normally: SIGTERM or SIGHUP now end gpujob as Ctrl-C does
    (exit 130), so the copy goes. The API server here refuses connections: gpujob retries,
    waiting between tries, and gets the signal while it waits."""
    key = b"-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----\n"
    pem = b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))  # bound, never listening: every connection is refused
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    try:
        config = kubeconfig(tmp_path / "kc", f"https://127.0.0.1:{closed.getsockname()[1]}",
                            {"client-certificate-data": base64.b64encode(pem).decode(),
                             "client-key-data": base64.b64encode(key).decode()},
                            {"insecure-skip-tls-verify": True})
        proc = _gpujob({"KUBECONFIG": str(config), "TMPDIR": str(tmp)}, "describe", "run-1",
                       "--max-attempts", "50", "--retry-deadline", "600")
        copies = lambda: [f for f in tmp.iterdir() if f.read_bytes() == key]  # noqa: E731
        _until(copies, "the client made no copy of the key")
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    finally:
        closed.close()
    assert proc.returncode == 130, err
    assert copies() == []


# -- words (L4, L8, L9) ----------------------------------------------------------------------------

def test_an_empty_namespace_names_the_context_and_namespace(cluster, cli):
    result = gke(cli, "list", "--namespace", "ml")
    assert result.code == 0, result.err
    assert result.err == f"no jobs in context [{CONTEXT}], namespace [ml]\n"


def test_the_files_region_and_the_region_flag_get_a_note(cli, write):
    config = write(CONFIG.format(job_id="") + "  region: europe-west4\n")
    for flags in ((), ("--region", "us-east1")):
        result = cli("submit", config, "--service", "gke", "--dry-run", *flags)
        assert result.code == 0, result.err
        assert "trainingInput.region: note: region is not used on GKE: the cluster decides " \
               "where the pods run (the kubeconfig's context names it: --context) " \
               "[gke.unused]" in result.err


def test_a_package_job_says_what_the_cluster_needs(cli, write):
    config = write(CONFIG.format(job_id="").replace("    imageUri: us-docker.pkg.dev/p/r/"
                                                    "trainer:1\n", "")
                   + "  packageUris: [gs://my-bucket/trainer-0.1.tar.gz]\n"
                   "  pythonModule: trainer.task\n")
    result = cli("submit", config, "--service", "gke", "--dry-run", "--executor-image-uri",
                 "us-docker.pkg.dev/p/r/base:1")
    assert result.code == 0, result.err
    assert "trainingInput.packageUris: note: the pods mount gs://my-bucket with the Cloud " \
           "Storage FUSE CSI driver: the cluster needs its GCS FUSE CSI add-on, and Workload " \
           "Identity with read access to the bucket" in result.err
    assert "hint: docs/gke.md (Package jobs) has the two gcloud commands" in result.err
