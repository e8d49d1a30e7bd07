"""Issue 22 item 4: why a Vertex AI job is not running. ``wait`` and ``describe`` say what a
queued or pending job waits for (the flex-start queue and its deadline, Spot capacity, a
reservation, resources, a restart after preemption), from what the fake Vertex AI reports: the
job's state, its startTime and its own spec."""

from __future__ import annotations

import json

from conftest import PROJECT, REGION
from vertex_jobs import custom_job

VERTEX = ("--service", "vertex", "--region", REGION)
H100 = {"machineType": "a3-highgpu-8g", "acceleratorType": "NVIDIA_H100_80GB",
        "acceleratorCount": 8}
CREATED = "2026-11-26T10:00:00Z"


def _job(vertex, state: str = "JOB_STATE_PENDING", scheduling: dict | None = None,
         **machine) -> str:
    body = custom_job("train", **machine)
    if scheduling is not None:
        body["jobSpec"]["scheduling"] = scheduling
    stored = vertex.add_job(PROJECT, REGION, body, state=state, created=CREATED)
    return stored["name"].rsplit("/", 1)[1]


def test_wait_says_a_flex_start_job_is_queued_and_until_when(cli, google, key, vertex, clock):
    job_id = _job(vertex, scheduling={"strategy": "FLEX_START", "maxWaitDuration": "7200s"},
                  **H100)
    result = cli("wait", job_id, *VERTEX, "--timeout", "30", "--poll-interval", "10")
    assert result.code == 3  # still pending after --timeout
    line = ("  waiting in the Dynamic Workload Scheduler's queue (FLEX_START) for 1 × "
            "a3-highgpu-8g (8 × NVIDIA_H100_80GB each); it starts when all of them are free at "
            "once, and waits until about 2026-11-26T12:00:00Z (maxWaitDuration, 2 hours from its "
            "creation), then gives up")
    assert result.err.splitlines()[:2] == [f"job {job_id}: PENDING", line]
    assert result.err.count("Dynamic Workload Scheduler") == 2  # once, and in the error
    assert len(google.calls("customJobs.get")) > 1  # it polled, and said it once
    assert f"error: job {job_id} is still PENDING after waiting 30 s (--timeout); it keeps " \
           "running (waiting in the Dynamic Workload Scheduler's queue" in result.err


def test_describe_says_so_too_with_the_default_wait(cli, google, key, vertex):
    job_id = _job(vertex, scheduling={"strategy": "FLEX_START"}, **H100)
    result = cli("describe", job_id, *VERTEX)
    assert result.code == 0, result.err
    assert result.err.splitlines()[-1].endswith(
        "waits until about 2026-11-27T10:00:00Z (maxWaitDuration's default, 1 day from its "
        "creation), then gives up")
    # the job as the API gave it, its state shown as every state (docs/submit.md)
    assert "\nstate: PENDING\n" in result.out and "JOB_STATE_" not in result.out
    envelope = json.loads(cli("describe", job_id, *VERTEX, "--format", "json").out)
    assert envelope["raw"]["state"] == "JOB_STATE_PENDING"  # the API's word, kept
    assert envelope["job"]["waiting"].startswith("waiting in the Dynamic Workload Scheduler's")


def test_a_wait_past_the_calendars_end_is_said_without_a_date(cli, google, key, vertex):
    # the longest Duration the API's type allows: 10,000 years, past datetime's year 9999
    job_id = _job(vertex, scheduling={"strategy": "FLEX_START",
                                      "maxWaitDuration": "315576000000s"}, **H100)
    result = cli("describe", job_id, *VERTEX)
    assert result.code == 0, result.err
    assert result.err.splitlines()[-1].endswith(
        "it starts when all of them are free at once, and waits (maxWaitDuration, 3652500 days "
        "from its creation), then gives up")


def test_a_spot_job_preempted_is_waiting_to_run_again(cli, google, key, vertex, clock):
    job_id = _job(vertex, "JOB_STATE_RUNNING", scheduling={"strategy": "SPOT"})
    vertex.script(job_id, "JOB_STATE_PENDING", "JOB_STATE_RUNNING", "JOB_STATE_SUCCEEDED")
    result = cli("wait", job_id, *VERTEX, "--poll-interval", "1")
    assert result.code == 0, result.err
    started = vertex.job(job_id)["startTime"]
    assert result.err.splitlines() == [  # (each read moves the job one step)
        f"job {job_id}: PENDING",
        f"  waiting to run again: it first ran at {started}, and its Spot VMs were preempted; "
        "Vertex AI restarts it when Spot capacity returns (1 × n1-standard-4 (1 × "
        "NVIDIA_TESLA_T4 each))",
        f"job {job_id}: RUNNING", f"job {job_id}: SUCCEEDED",
        result.err.splitlines()[-1]]
    assert result.err.splitlines()[-1].startswith("cost: about $")  # (issue 31)


def test_a_queued_and_a_plain_pending_job(cli, google, key, vertex):
    queued = _job(vertex, "JOB_STATE_QUEUED")
    result = cli("describe", queued, *VERTEX)
    assert result.err.splitlines()[-1] == (
        f"waiting: Vertex AI has not begun processing the job yet (queued since {CREATED})")
    pending = _job(vertex)
    result = cli("describe", pending, *VERTEX)
    assert result.err.splitlines()[-1].startswith(
        "waiting for resources: Vertex AI is provisioning 1 × n1-standard-4 (1 × "
        "NVIDIA_TESLA_T4 each); a long wait usually means the region has no capacity")
    running = _job(vertex, "JOB_STATE_RUNNING")
    assert "waiting" not in cli("describe", running, *VERTEX).err


def test_a_job_on_a_reservation_waits_for_it(cli, google, key, vertex):
    name = "projects/proj-a/zones/us-central1-a/reservations/h100-pool"
    job_id = _job(vertex, **H100, reservationAffinity={
        "reservationAffinityType": "SPECIFIC_RESERVATION",
        "key": "compute.googleapis.com/reservation-name", "values": [name]})
    result = cli("describe", job_id, *VERTEX)
    assert result.err.splitlines()[-1] == (
        f"waiting for machines from {name} (1 × a3-highgpu-8g (8 × NVIDIA_H100_80GB each)); "
        "they must match the reservation exactly, and be free in it")


def test_following_the_logs_says_it_too(cli, google, key, vertex, clock):
    job_id = _job(vertex, "JOB_STATE_RUNNING", scheduling={"strategy": "SPOT"})
    # (the first read, before following, finds it RUNNING; the next PENDING)
    vertex.script(job_id, "JOB_STATE_RUNNING", "JOB_STATE_PENDING", "JOB_STATE_SUCCEEDED")
    result = cli("logs", job_id, *VERTEX, "--follow", "--poll-interval", "1")
    assert result.code == 0, result.err
    assert result.err.splitlines()[:2] == [
        f"job {job_id}: PENDING",
        f"  waiting to run again: it first ran at {vertex.job(job_id)['startTime']}, and its "
        "Spot VMs were preempted; Vertex AI restarts it when Spot capacity returns (1 × "
        "n1-standard-4 (1 × NVIDIA_TESLA_T4 each))"]
