"""Retries of a create, and why they never make a second job.

Waits are recorded by the fake clock (jitter fixed at 0.5, so backoff waits are 0.75 s, 1.5 s,
3 s, …); the HTTP underneath is real.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from fakes.google import (
    Drop,
    Reply,
    Stall,
    now_text,
    quota_exceeded,
    unavailable,
)


def _bodies(google):
    return [r.body for r in google.calls("jobs.create")]


def test_503_then_429_then_success(cli, google, key, config, clock):
    google.inject("jobs.create", Reply(503, unavailable()),
                  Reply(429, quota_exceeded(), {"Retry-After": "7"}))
    result = cli("submit", config, "--job-id", "j1")
    assert result.code == 0, result.err
    bodies = _bodies(google)
    assert len(bodies) == 3 and bodies[0] == bodies[1] == bodies[2]
    assert clock.sleeps == [0.75, 7.0]  # backoff, then what Retry-After asked for
    assert ("note: submitting job j1: 503 Service Unavailable; retrying in 0.8 s (attempt 2 of 5)"
            in result.err)
    assert ("note: submitting job j1: 429 Too Many Requests; retrying in 7.0 s (attempt 3 of 5)"
            in result.err)
    assert len(google.jobs) == 1
    assert "Job [j1] submitted" in result.err


def test_retry_after_as_an_http_date(cli, google, key, config, clock):
    google.inject("jobs.create", Reply(503, unavailable(),
                                       {"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}))
    result = cli("submit", config, "--job-id", "j1")
    assert result.code == 0, result.err
    assert clock.sleeps == [0.0]  # a date in the past: try again at once


def test_connection_dropped_after_the_job_was_stored(cli, google, key, config, clock):
    """The first create is stored, then the connection closes without a response. httplib2
    resends it by itself (its stale-connection rule, for any method): the service answers 409
    ALREADY_EXISTS, gpujob reads the job, sees the job it sent, and reports success."""
    google.inject("jobs.create", Drop(after=True))
    result = cli("submit", config, "--job-id", "j1", "--format", "json")
    assert result.code == 0, result.err
    assert len(_bodies(google)) == 2  # the second one was httplib2's, not gpujob's
    assert clock.sleeps == []  # gpujob itself did not retry
    assert [r.route for r in google.requests] == ["token", "jobs.create", "jobs.create",
                                                  "jobs.get"]
    assert list(google.jobs) == [("proj-a", "j1")]
    assert ("note: job j1 was already created by an earlier attempt of this submission whose "
            "answer was lost; it was not submitted twice") in result.err
    assert '"jobId": "j1"' in result.out


def test_both_sends_dropped_then_gpujob_retries_and_recognises_its_job(cli, google, key, config,
                                                                       clock):
    google.inject("jobs.create", Drop(after=True), Drop(after=True))
    result = cli("submit", config, "--job-id", "j1")
    assert result.code == 0, result.err
    assert len(_bodies(google)) == 3
    assert clock.sleeps == [0.75]
    assert "connection closed without a response; retrying in 0.8 s" in result.err
    assert "already created by an earlier attempt" in result.err
    assert len(google.jobs) == 1


def test_connection_dropped_before_anything_was_stored(cli, google, key, config, clock):
    google.inject("jobs.create", Drop(after=False))
    result = cli("submit", config, "--job-id", "j1")
    assert result.code == 0, result.err
    assert len(_bodies(google)) == 2
    assert google.calls("jobs.get") == []
    assert "already created" not in result.err


def test_a_timeout_after_the_job_was_stored(cli, google, key, config, clock):
    google.inject("jobs.create", Stall(3.0))
    result = cli("submit", config, "--job-id", "j1", "--request-timeout", "0.3")
    assert result.code == 0, result.err
    assert "submitting job j1: timed out; retrying in 0.8 s (attempt 2 of 5)" in result.err
    assert len(_bodies(google)) == 2
    assert "already created by an earlier attempt" in result.err
    assert len(google.jobs) == 1


def test_a_job_id_taken_by_a_different_job_is_an_error(cli, google, key, config, submitted):
    submitted("j1", state="RUNNING")
    result = cli("submit", config, "--job-id", "j1")
    assert result.code == 3
    assert result.out == ""
    assert result.err.startswith(
        "error: job ID j1 is already taken in project proj-a by a different job (created ")
    assert "state RUNNING); nothing was submitted" in result.err
    assert "hint: job IDs are unique in a project and cannot be reused: pass a new --job-id" \
        in result.err
    assert len(_bodies(google)) == 1


def test_the_same_job_submitted_earlier_is_not_claimed_as_this_submission(cli, google, key,
                                                                          config):
    sent = cli("submit", config, "--job-id", "old", "--dry-run").out
    google.add_job("proj-a", json.loads(sent), created=now_text(-timedelta(hours=2)),
                   state="SUCCEEDED")
    result = cli("submit", config, "--job-id", "old")
    assert result.code == 3
    assert ("error: job old already exists in project proj-a with this same config, from before "
            "this submission") in result.err
    assert "hint: to run it again, pass a new --job-id" in result.err


@pytest.mark.parametrize("offset", [timedelta(hours=-1), timedelta(hours=1)])
def test_a_lost_answer_is_recognised_whatever_the_services_clock_says(cli, google, key, config,
                                                                     offset):
    """"Created during this submission" is judged on the service's clock (its Date header)."""
    google.clock_offset = offset
    google.inject("jobs.create", Drop(after=True))
    result = cli("submit", config, "--job-id", "j1")
    assert result.code == 0, result.err
    assert "already created by an earlier attempt" in result.err


def test_the_same_config_created_seconds_before_this_submission_is_not_ours(cli, google, key,
                                                                            config):
    sent = json.loads(cli("submit", config, "--job-id", "j1", "--dry-run").out)
    google.clock_offset = timedelta(hours=3)  # by our clock it would look recent
    google.add_job("proj-a", sent, created=google.now(-timedelta(seconds=20)))
    result = cli("submit", config, "--job-id", "j1")
    assert result.code == 3
    assert "already exists in project proj-a with this same config, from before" in result.err


def test_429_until_the_attempts_run_out(cli, google, key, config, clock):
    google.inject("jobs.create", *[Reply(429, quota_exceeded())] * 3)
    result = cli("submit", config, "--job-id", "j1", "--max-attempts", "3")
    assert result.code == 3
    assert len(_bodies(google)) == 3
    assert clock.sleeps == [0.75, 1.5]
    assert ("error: submitting job j1 failed: quota exhausted: 429 RESOURCE_EXHAUSTED: Quota "
            "exceeded for quota metric 'Job create requests'") in result.err
    assert "(gave up after 3 attempts)" in result.err
    assert ("hint: the ml.googleapis.com quota of project proj-a stayed exhausted through 3 "
            "attempts; wait and retry, or ask for more at "
            "https://console.cloud.google.com/iam-admin/quotas?project=proj-a") in result.err
    assert google.jobs == {}


def test_the_retry_deadline_bounds_the_waiting(cli, google, key, config, clock):
    google.inject("jobs.create", *[Reply(500, unavailable())] * 5)
    result = cli("submit", config, "--job-id", "j1", "--retry-deadline", "2")
    assert result.code == 3
    assert clock.sleeps == [0.75]  # the next wait, 1.5 s, would end past 2 s
    assert len(_bodies(google)) == 2
    assert "gave up after 2 attempts: the retry deadline of 2 s would pass" in result.err


def test_a_retry_after_beyond_the_deadline_stops_at_once(cli, google, key, config, clock):
    google.inject("jobs.create", Reply(503, unavailable(), {"Retry-After": "600"}))
    result = cli("submit", config, "--job-id", "j1")
    assert result.code == 3
    assert clock.sleeps == []
    assert "(the server asked to wait 600 s)" in result.err


def test_settings_from_the_environment(cli, google, key, config, clock):
    google.inject("jobs.create", *[Reply(502, unavailable())] * 2)
    result = cli("submit", config, "--job-id", "j1", env={"GPUJOB_MAX_ATTEMPTS": "2"})
    assert result.code == 3
    assert len(_bodies(google)) == 2


def test_other_client_errors_are_never_retried(cli, google, key, config, clock):
    google.inject("jobs.create", Reply(404, {"error": {"code": 404, "status": "NOT_FOUND",
                                                       "message": "Project not found."}}))
    result = cli("submit", config, "--job-id", "j1")
    assert result.code == 3
    assert len(_bodies(google)) == 1 and clock.sleeps == []
    assert "error: submitting job j1 failed: 404 NOT_FOUND: Project not found." in result.err
    assert "hint: check --project (now proj-a)" in result.err


def test_connection_refused_is_retried_then_explained(cli, key, config, clock):
    result = cli("submit", config, "--job-id", "j1", "--api-endpoint", "http://127.0.0.1:9/",
                 "--max-attempts", "2")
    assert result.code == 3
    assert clock.sleeps == [0.75]
    assert "connection refused; retrying" in result.err
    assert "error: submitting job j1 failed: network error:" in result.err
    assert "(gave up after 2 attempts)" in result.err


def test_ctrl_c_while_submitting_says_the_job_may_exist(cli, google, key, config, clock):
    google.inject("jobs.create", Reply(503, unavailable()))
    clock.interrupt_at = 1  # during the wait before the retry
    result = cli("submit", config, "--job-id", "j1")
    assert result.code == 130
    assert result.out == ""
    assert result.err.splitlines()[-2:] == [
        "Interrupted while submitting job j1: it may or may not have been created.",
        "Check with: gpujob describe j1 --service ai-platform --project proj-a"]
