"""describe, list, cancel and wait against the fake API; the fake clock records each poll."""

from __future__ import annotations

import json

import pytest
import yaml
from fakes.google import Reply, unavailable


def test_describe_prints_the_job_as_yaml_and_links_to_it(cli, google, key, submitted):
    stored = submitted("j1", state="RUNNING", labels={"team": "vision"})
    result = cli("describe", "j1")
    assert result.code == 0, result.err
    assert yaml.safe_load(result.out) == stored
    assert result.err.splitlines() == [
        "console: https://console.cloud.google.com/mlengine/jobs/j1?project=proj-a",
        "logs:    https://console.cloud.google.com/logs?resource=ml_job%2Fjob_id%2Fj1"
        "&project=proj-a"]


def test_describe_json_and_a_full_job_name(cli, google, key, submitted):
    stored = submitted("j1", project="proj-z")
    result = cli("describe", "projects/proj-z/jobs/j1", "--format", "json")
    assert result.code == 0, result.err
    assert json.loads(result.out) == {
        "version": 1, "service": "ai-platform",
        "job": {"id": "j1", "state": "QUEUED", "done": False, "succeeded": False, "message": "",
                "createTime": stored["createTime"]},
        "raw": stored}
    (get,) = google.calls("jobs.get")
    assert get.path == "/v1/projects/proj-z/jobs/j1"


@pytest.mark.parametrize("command", ["describe", "cancel", "wait", "logs"])
def test_a_malformed_job_id_is_a_usage_error(cli, google, key, command):
    result = cli(command, "1-bad")
    assert result.code == 2
    assert "error: '1-bad' is not a job ID" in result.err
    assert google.requests == []


def test_list_prints_a_table(cli, google, key, submitted):
    submitted("first", state="SUCCEEDED")
    submitted("second", state="RUNNING")
    result = cli("list")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0].split() == ["JOB_ID", "STATE", "CREATED"]
    assert [line.split()[:2] for line in lines[1:]] == [["second", "RUNNING"],
                                                         ["first", "SUCCEEDED"]]


def test_list_passes_the_filter_and_pages(cli, google, key, submitted):
    for i in range(130):
        submitted(f"job{i:03}", state="RUNNING" if i % 2 else "SUCCEEDED")
    result = cli("list", "--filter", "state=RUNNING", "--format", "json")
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert (report["version"], report["service"], report["project"]) == (1, "ai-platform",
                                                                         "proj-a")
    jobs = [envelope["raw"] for envelope in report["jobs"]]
    assert len(jobs) == 65 and {j["state"] for j in jobs} == {"RUNNING"}
    assert {(e["version"], e["service"], e["job"]["state"], e["job"]["done"])
            for e in report["jobs"]} == {(1, "ai-platform", "RUNNING", False)}
    assert [e["job"]["id"] for e in report["jobs"]] == [j["jobId"] for j in jobs]
    pages = google.calls("jobs.list")
    assert [p.query.get("pageToken") for p in pages] == [None]  # 65 fit in a page of 100
    assert pages[0].query["filter"] == ["state=RUNNING"]

    result = cli("list", "--format", "json")
    assert len(json.loads(result.out)["jobs"]) == 130
    assert [p.query["pageSize"] for p in google.calls("jobs.list")[1:]] == [["100"], ["100"]]


def test_list_limit_asks_for_no_more_than_it_shows(cli, google, key, submitted):
    for i in range(10):
        submitted(f"job{i}")
    result = cli("list", "--limit", "3")
    assert len(result.out.splitlines()) == 4
    (page,) = google.calls("jobs.list")
    assert page.query["pageSize"] == ["3"]


def test_list_of_no_jobs(cli, google, key):
    result = cli("list", "--filter", "labels.team=none")
    assert (result.code, result.out) == (0, "")
    assert result.err == "no jobs in project proj-a match labels.team=none\n"


def test_cancel_then_cancel_again(cli, google, key, submitted):
    submitted("j1", state="RUNNING")
    result = cli("cancel", "j1")
    assert result.code == 0, result.err
    (call,) = google.calls("jobs.cancel")
    assert call.path == "/v1/projects/proj-a/jobs/j1:cancel" and call.body == {}
    assert result.err.startswith("Cancellation of job [j1] requested; it ends CANCELLED shortly.")
    assert google.jobs[("proj-a", "j1")]["state"] == "CANCELLING"

    again = cli("cancel", "j1")  # refused by the service (FAILED_PRECONDITION), then read
    assert again.code == 0
    assert again.err == "Job [j1] is already CANCELLED.\n"
    assert len(google.calls("jobs.cancel")) == 2


def test_cancelling_a_finished_job_is_refused(cli, google, key, submitted):
    submitted("j1", state="SUCCEEDED")
    result = cli("cancel", "j1")
    assert result.code == 3
    assert ("error: cancelling job j1 failed: 400 FAILED_PRECONDITION: Cannot cancel job j1 in "
            "state SUCCEEDED.") in result.err


def test_wait_tells_state_changes_and_exits_0_on_success(cli, google, key, submitted, clock):
    submitted("j1")
    google.script("j1", "QUEUED", "PREPARING", "RUNNING", "RUNNING", "SUCCEEDED")
    result = cli("wait", "j1", "--poll-interval", "30")
    assert result.code == 0, result.err
    assert result.err.splitlines() == ["job j1: QUEUED", "job j1: PREPARING", "job j1: RUNNING",
                                       "job j1: SUCCEEDED"]
    assert clock.sleeps == [30.0] * 4
    assert len(google.calls("jobs.get")) == 5
    assert result.out == ""


@pytest.mark.parametrize("state, message", [
    ("FAILED", "The replica master 0 exited with a non-zero status of 1."),
    ("CANCELLED", "Job was cancelled by user."),
])
def test_wait_exits_4_with_the_jobs_error_message(cli, google, key, submitted, clock, state,
                                                  message):
    submitted("j1", state="RUNNING")
    google.script("j1", "RUNNING", state)
    result = cli("wait", "j1", "--format", "json")
    assert result.code == 4
    assert f"error: job j1 ended {state}: {message}" in result.err
    assert ("hint: gpujob logs j1 --service ai-platform --project proj-a shows what it wrote"
            in result.err)
    envelope = json.loads(result.out)
    assert envelope["raw"]["state"] == state
    assert envelope["job"] == {"id": "j1", "state": state, "done": True, "succeeded": False,
                               "message": message,
                               "createTime": google.jobs[("proj-a", "j1")]["createTime"]}


def test_wait_gives_up_at_the_timeout_and_leaves_the_job_running(cli, google, key, submitted,
                                                                 clock):
    submitted("j1", state="RUNNING")
    result = cli("wait", "j1", "--poll-interval", "10", "--timeout", "25")
    assert result.code == 3
    assert clock.sleeps == [10.0, 10.0, 5.0]
    assert "error: job j1 is still RUNNING after waiting 25 s (--timeout); it keeps running" \
        in result.err
    assert google.calls("jobs.cancel") == []


def test_wait_rides_out_a_transient_error(cli, google, key, submitted, clock):
    submitted("j1", state="SUCCEEDED")
    google.inject("jobs.get", Reply(503, unavailable()))
    result = cli("wait", "j1")
    assert result.code == 0, result.err
    assert "note: reading job j1: 503 Service Unavailable; retrying" in result.err


def test_ctrl_c_while_waiting_never_cancels(cli, google, key, submitted, clock):
    submitted("j1", state="RUNNING")
    clock.interrupt_at = 2
    result = cli("wait", "j1")
    assert result.code == 130
    assert result.err.splitlines()[-2:] == [
        "Stopped waiting for job j1; the job keeps running (nothing was cancelled).",
        "Resume with: gpujob wait j1 --service ai-platform --project proj-a"]
    assert google.calls("jobs.cancel") == []
    assert google.jobs[("proj-a", "j1")]["state"] == "RUNNING"


def test_submit_wait_follows_the_job_to_its_end(cli, google, key, config, clock):
    google.script("j1", "RUNNING", "FAILED")
    result = cli("submit", config, "--job-id", "j1", "--wait", "--poll-interval", "5")
    assert result.code == 4
    assert result.out == "j1\n"
    err = result.err.splitlines()
    assert err[0] == "Job [j1] submitted to project [proj-a]; state: QUEUED."
    assert err[3:5] == ["job j1: RUNNING", "job j1: FAILED"]
    assert "error: job j1 ended FAILED: The replica master 0 exited" in result.err
    assert clock.sleeps == [5.0]


def test_ctrl_c_during_submit_wait_keeps_the_job(cli, google, key, config, clock):
    clock.interrupt_at = 1
    result = cli("submit", config, "--job-id", "j1", "--wait")
    assert result.code == 130
    assert result.out == "j1\n"  # what was submitted is still said
    assert "Resume with: gpujob wait j1 --service ai-platform --project proj-a" in result.err
    assert google.calls("jobs.cancel") == []
    assert ("proj-a", "j1") in google.jobs
