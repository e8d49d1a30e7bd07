"""gcloud's command line against the fake ml v1 API: one job, the body of gpujob's own form."""

from __future__ import annotations

import json


def test_a_gcloud_command_line_submits_the_same_job_once(cli, google, key, config, clock):
    dry = cli("submit", config, "--dry-run", "--job-id", "j1", "--project", "proj-a",
              "--job-dir", "gs://my-bucket/", "--", "--epochs", "3")
    result = cli("submit", "training", "j1", "--config", config, "--job-dir", "gs://my-bucket",
                 "--async", "--", "--epochs", "3")
    assert result.code == 0, result.err
    (create,) = google.calls("jobs.create")
    assert create.body == json.loads(dry.out)
    assert create.body["trainingInput"]["jobDir"] == "gs://my-bucket/"
    # --async: created, announced, not followed
    assert [r.route for r in google.requests] == ["token", "jobs.create"]
    assert clock.sleeps == []
    assert result.out == "j1\n"
    assert result.err.splitlines()[:2] == [
        "note: --job-dir gs://my-bucket is sent as gs://my-bucket/ (the bucket's root), as "
        "gcloud sends it",
        "Job [j1] submitted to project [proj-a]; state: QUEUED."]


def test_async_says_nothing_more_than_a_plain_submit(cli, google, key, config):
    plain = cli("submit", config, "--job-id", "j1")
    with_async = cli("submit", "j2", "--config", config, "--async")
    assert with_async.code == 0
    assert with_async.err == plain.err.replace("j1", "j2")
