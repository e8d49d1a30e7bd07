"""describe, list, cancel, wait, logs, submit --wait and --stream-logs, for every service through
one fixture (``service``): the same commands, the same exit codes, each against its fake API."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import pytest
import yaml
from conftest import PROJECT, PROJECT_NUMBER, REGION

LINE = re.compile(r"\d{4}-\d\d-\d\dT[\d:.]+Z (\w+) ([\w-]+): (.*)")


@dataclass
class Service:
    """A service as the tests drive it: its flags, its fake, its names for things."""

    name: str
    args: tuple[str, ...]
    google: Any
    add_job: Any  # (name, state, labels) -> the stored job
    task: str  # the task of a replica's log lines
    collection: str  # the fake's route prefix: "jobs" or "customJobs"

    def add(self, name: str = "train", state: str = "RUNNING",
            labels: dict[str, str] | None = None) -> str:
        """A job in the fake; its ID."""
        job = self.add_job(name, state, labels)
        return job["jobId"] if self.name == "ai-platform" else job["name"].rsplit("/", 1)[1]

    def script(self, job_id: str, *steps: Any) -> None:
        if self.name == "ai-platform":
            self.google.script(job_id, *steps)
        else:
            self.google.vertex.script(job_id, *steps)

    def log(self, job_id: str, text: str) -> None:
        if self.name == "ai-platform":
            self.google.add_log(job_id, text)
        else:
            self.google.vertex.add_log(job_id, text)

    def calls(self, verb: str) -> list[Any]:
        return self.google.calls(f"{self.collection}.{verb}")

    def names(self, job_id: str, name: str) -> list[str]:
        """Every way the command line can name the job."""
        if self.name == "ai-platform":
            return [job_id, f"projects/{PROJECT}/jobs/{job_id}"]
        return [job_id, f"projects/{PROJECT_NUMBER}/locations/{REGION}/customJobs/{job_id}",
                name]

    def run(self, cli, *args: str, **kw: Any):
        return cli(*args, *self.args, **kw)


@pytest.fixture(params=["ai-platform", "vertex"])
def service(request, google, key, clock, submitted, vertex_job) -> Service:
    if request.param == "ai-platform":
        return Service("ai-platform", ("--service", "ai-platform"), google,
                       lambda name, state, labels: submitted(name, state=state,
                                                             **({"labels": labels} if labels
                                                                else {})),
                       "master-replica-0", "jobs")
    return Service("vertex", ("--service", "vertex", "--region", REGION), google,
                   lambda name, state, labels: vertex_job(name, f"JOB_STATE_{state}", labels),
                   "workerpool0-0", "customJobs")


def _logs(out: str) -> list[tuple[str, ...]]:
    return [LINE.fullmatch(line).groups() for line in out.splitlines()]


def test_describe_by_every_name(cli, service):
    job_id = service.add("train", "RUNNING", {"team": "vision"})
    for name in service.names(job_id, "train"):
        result = service.run(cli, "describe", name)
        assert result.code == 0, result.err
        shown = yaml.safe_load(result.out)
        assert shown["state"] in ("RUNNING", "JOB_STATE_RUNNING")
        assert shown["labels"] == {"team": "vision"}
        console, logs, *cost = result.err.splitlines()
        assert len(cost) == (service.name == "vertex")  # what it cost so far (issue 31)
        assert console.startswith("console: https://console.cloud.google.com/") and job_id in \
            console and logs.startswith("logs:    https://console.cloud.google.com/logs")
        envelope = json.loads(service.run(cli, "describe", name, "--format", "json").out)
        assert (envelope["service"], envelope["job"]["id"], envelope["job"]["state"]) == (
            service.name, job_id, "RUNNING")


def test_list_filters_by_state_and_limits(cli, service):
    first = service.add("first", "SUCCEEDED")
    second = service.add("second", "RUNNING")
    result = service.run(cli, "list")
    assert result.code == 0, result.err
    rows = [line.split()[:2] for line in result.out.splitlines()]
    assert rows[0] == ["JOB_ID", "STATE"]
    assert rows[1:] == [[second, "RUNNING"], [first, "SUCCEEDED"]]
    running = service.run(cli, "list", "--filter", "state=RUNNING", "--format", "json")
    assert [e["job"]["id"] for e in json.loads(running.out)["jobs"]] == [second]
    limited = service.run(cli, "list", "--limit", "1")
    assert len(limited.out.splitlines()) == 2


def test_cancel_then_wait_exits_4(cli, service):
    job_id = service.add("train", "RUNNING")
    result = service.run(cli, "cancel", job_id)
    assert result.code == 0, result.err
    assert result.err.startswith(f"Cancellation of job [{job_id}] requested")
    assert len(service.calls("cancel")) == 1
    waited = service.run(cli, "wait", job_id)
    assert waited.code == 4
    assert f"error: job {job_id} ended CANCELLED: " in waited.err
    again = service.run(cli, "cancel", job_id)
    assert (again.code, again.err) == (0, f"Job [{job_id}] is already CANCELLED.\n")


def test_wait_tells_each_state_and_exits_0(cli, service, clock):
    job_id = service.add("train", "QUEUED")
    service.script(job_id, "QUEUED", "RUNNING", "RUNNING", "SUCCEEDED")  # a step per read
    result = service.run(cli, "wait", job_id, "--poll-interval", "30")
    assert result.code == 0, result.err
    lines = result.err.splitlines()
    if service.name == "vertex":  # it says what a queued job waits for (test_vertex_pending.py)
        assert lines.pop(1).startswith("  waiting: Vertex AI has not begun processing the job")
        assert lines.pop().startswith("cost: about $")  # and what it cost (test_vertex_cost.py)
    assert lines == [f"job {job_id}: QUEUED", f"job {job_id}: RUNNING",
                     f"job {job_id}: SUCCEEDED"]
    assert clock.sleeps == [30.0] * 3 and result.out == ""


def test_wait_on_a_failed_job_exits_4_with_its_message(cli, service):
    job_id = service.add("train", "RUNNING")
    service.script(job_id, "FAILED")
    result = service.run(cli, "wait", job_id)
    assert result.code == 4
    assert f"error: job {job_id} ended FAILED: The replica " in result.err
    assert f"hint: gpujob logs {job_id} " in result.err


def test_logs_once_and_followed(cli, service, clock):
    job_id = service.add("train", "RUNNING")
    service.log(job_id, "starting")
    service.script(job_id, "RUNNING", ("RUNNING", ["epoch 1"]), ("SUCCEEDED", ["done"]))
    result = service.run(cli, "logs", job_id)
    assert result.code == 0, result.err
    assert _logs(result.out) == [("INFO", service.task, "starting")]
    followed = service.run(cli, "logs", job_id, "--follow", "--poll-interval", "5")
    assert followed.code == 0, followed.err
    assert [m for _, _, m in _logs(followed.out)] == ["starting", "epoch 1", "done"]
    assert followed.err.splitlines()[-1] == f"job {job_id} ended SUCCEEDED"


@pytest.fixture
def script_new_job(service, clock, monkeypatch):
    """Script the job the command is about to create: before it exists for ai-platform (its
    ID is chosen by the client), at the first poll for vertex (the service chooses it)."""

    def script(job_id: str, *steps: Any) -> None:
        if service.name == "ai-platform":
            service.script(job_id, *steps)
            return
        sleep = clock.sleep

        def first_sleep(seconds: float) -> None:
            if not clock.sleeps:
                (made,) = service.google.vertex.jobs
                service.script(made, *steps)
            sleep(seconds)

        monkeypatch.setattr(clock, "sleep", first_sleep)

    return script


@pytest.mark.parametrize(("follow", "end", "code"), [
    ("--wait", "SUCCEEDED", 0), ("--wait", "FAILED", 4), ("--stream-logs", "SUCCEEDED", 0),
    ("--stream-logs", "CANCELLED", 4)])
def test_submit_follows_the_job_to_its_end(cli, service, config, clock, script_new_job, follow,
                                           end, code):
    script_new_job("j1", ("RUNNING", ["epoch 1"]), (end, ["bye"]))
    result = service.run(cli, "submit", config, "--job-id", "j1", follow, "--poll-interval", "5")
    assert result.code == code, result.err
    job_id, *lines = result.out.splitlines()
    assert [m for _, _, m in _logs("\n".join(lines))] == (
        ["epoch 1", "bye"] if follow == "--stream-logs" else [])
    assert f"job {job_id}: {end}" in result.err.splitlines()
    assert len(service.calls("create")) == 1
    if code:
        assert f"error: job {job_id} ended {end}: " in result.err
