"""The clean-up after a create refused for quota or capacity, which may have made its job all
the same (``submit --service vertex``): a job it finds is cancelled, in every choice, the last
and the only one too; one it cannot cancel or name stops the submit and is named, alive, with
the command that cancels it; an interrupt during it says what it found."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest
from conftest import REGION
from fakes.errors import error_body, permission_denied, vertex_quota_exceeded
from fakes.faults import Late, Reply
from test_preflight import FORTY_T4, T4

VERTEX = ("--service", "vertex")
EAST = "us-east4"
LIVE = {"JOB_STATE_QUEUED", "JOB_STATE_PENDING", "JOB_STATE_RUNNING"}


def _live(vertex) -> list[dict]:
    return [job for job in vertex.jobs.values() if job["state"] in LIVE]


def _quota_after_making_it(region: str = REGION) -> Reply:
    return Reply(429, vertex_quota_exceeded(T4, region, 16), handled=True)


@pytest.mark.parametrize("rename", [lambda name: name + "/",
                                    lambda name: "https://us-central1-aiplatform.googleapis.com"
                                                 "/v1/" + name,
                                    lambda name: ""],
                         ids=["a trailing slash", "a full URL", "empty"])
def test_a_found_job_whose_name_cannot_be_read_stops_the_submit_and_is_named(
        cli, google, key, write, vertex, rename):
    """It was skipped without a word, and the next region's job made: two live jobs."""
    google.inject("customJobs.create", _quota_after_making_it())
    vertex.listed_name = rename
    result = cli("submit", write(FORTY_T4), *VERTEX, "--region", f"{REGION},{EAST}")
    assert result.code == 3 and result.out == ""
    (alive,) = _live(vertex)
    assert f"/locations/{REGION}/" in alive["name"]
    assert len(google.calls("customJobs.create")) == 1  # us-east4 was not tried
    error, hint = result.err.splitlines()[-2:]
    assert error.startswith("error: submitting custom job ")
    assert (f"; a job carrying this submission's label was made after all and is alive (state "
            f"JOB_STATE_PENDING), but the service names it \"{rename(alive['name'])}\", which "
            "is not a job's resource name: gpujob could not cancel it, so no other region or "
            "strategy was tried") in error
    assert hint.startswith(f"  hint: it is listed by: gpujob list --service vertex --project "
                           f"proj-a --region {REGION} --filter 'labels.gpujob-submission=")


@pytest.mark.parametrize("answers", [
    [Reply(403, permission_denied("aiplatform.customJobs.cancel",
                                  f"projects/proj-a/locations/{REGION}/customJobs"))],
    [Reply(500, error_body(500, "INTERNAL", "backend error"))] * 5],
    ids=["403", "500 until the retries run out"])
def test_a_found_job_that_cannot_be_cancelled_is_named_alive(cli, google, key, write, vertex,
                                                             clock, answers):
    """It was reported as "could not be checked", with a hint to submit again."""
    google.inject("customJobs.create", _quota_after_making_it())
    google.inject("customJobs.cancel", *answers)
    result = cli("submit", write(FORTY_T4), *VERTEX, "--region", f"{REGION},{EAST}")
    assert result.code == 3 and result.out == ""
    (alive,) = _live(vertex)
    job_id = alive["name"].rsplit("/", 1)[1]
    assert "could not be checked" not in result.err
    error, hint = result.err.splitlines()[-2:]
    assert (f"; job {job_id} ({alive['name']}), which the refused create made after all, is "
            f"alive (state JOB_STATE_PENDING): cancelling custom job {job_id} failed: ") in error
    assert error.endswith(", so no other region or strategy was tried")
    assert hint == (f"  hint: cancel it before submitting again: gpujob cancel {alive['name']} "
                    "--service vertex")
    assert len(google.calls("customJobs.create")) == 1


@pytest.mark.parametrize("refusal", [
    lambda region: Reply(429, vertex_quota_exceeded(T4, region, 16), handled=True),
    lambda region: Reply(400, error_body(400, "FAILED_PRECONDITION",
                                         f"Resources are insufficient in region: {region}."),
                         handled=True)], ids=["quota", "capacity"])
def test_a_job_made_by_the_last_choices_refused_create_is_cancelled(cli, google, key, write,
                                                                    vertex, refusal):
    """The clean-up ran only when there was a next choice: the last one's job stayed alive,
    unnamed, with a hint to submit again."""
    vertex.refusals[REGION] = (429, vertex_quota_exceeded(T4, REGION, 16))
    google.inject("customJobs.create", None, refusal(EAST))
    result = cli("submit", write(FORTY_T4), *VERTEX, "--region", f"{REGION},{EAST}")
    assert result.code == 3 and result.out == ""
    assert _live(vertex) == []
    (made,) = vertex.jobs.values()
    assert f"/locations/{EAST}/" in made["name"]
    assert (f"note: job {made['name'].rsplit('/', 1)[1]} of the refused create was made after "
            "all; cancelled it") in result.err.splitlines()
    assert result.err.splitlines()[-2].startswith("error: submitting custom job ")


@pytest.mark.parametrize("preflight_on", [True, False], ids=["preflight", "no preflight"])
def test_a_job_made_by_the_only_choices_refused_create_is_cancelled(
        cli, google, key, write, vertex, monkeypatch, preflight_on):
    """One region: through the preflight's submit and through the plain one."""
    if preflight_on:
        monkeypatch.delenv("GPUJOB_NO_PREFLIGHT")
        google.quota.set(T4, {REGION: 64})
        google.quota.set("aiplatform.googleapis.com/custom_model_training_cpus", {},
                         default=-1)
    google.inject("customJobs.create", _quota_after_making_it())
    result = cli("submit", write(FORTY_T4), *VERTEX)
    assert result.code == 3, result.err
    assert _live(vertex) == []
    (made,) = vertex.jobs.values()
    assert (f"note: job {made['name'].rsplit('/', 1)[1]} of the refused create was made after "
            "all; cancelled it") in result.err.splitlines()
    assert result.err.splitlines()[-2].startswith("error: submitting custom job ")
    assert "quota exhausted: 429 RESOURCE_EXHAUSTED" in result.err.splitlines()[-2]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP],
                         ids=["SIGINT", "SIGTERM", "SIGHUP"])
def test_an_interrupt_while_cancelling_the_refused_creates_job_names_it(
        google, key, write, vertex, signum):
    """gpujob ended without a word (exit 130, or killed by the signal) while that job lived."""
    google.inject("customJobs.create", _quota_after_making_it())
    google.inject("customJobs.cancel", Late(30))  # no answer, and the job is not cancelled
    proc = subprocess.Popen([sys.executable, "-m", "gpujob", "submit", write(FORTY_T4),
                             *VERTEX, "--region", f"{REGION},{EAST}"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not google.calls("customJobs.cancel") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert google.calls("customJobs.cancel"), "the clean-up never cancelled"
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and out == "", err
    (alive,) = _live(vertex)
    job_id = alive["name"].rsplit("/", 1)[1]
    lines = err.splitlines()
    assert "Interrupted while making sure the refused create left no job alive." in lines
    assert (f"Job {job_id} ({alive['name']}), which the refused create made after all, may "
            f"still be alive: cancel it with: gpujob cancel {alive['name']} --service vertex"
            ) in lines
    assert len(google.calls("customJobs.create")) == 1


def test_an_interrupt_while_looking_for_the_refused_creates_job_says_how_to_look(
        google, key, write, vertex):
    google.inject("customJobs.create", _quota_after_making_it())
    google.inject("customJobs.list", Late(30))  # the clean-up's listing gets no answer
    proc = subprocess.Popen([sys.executable, "-m", "gpujob", "submit", write(FORTY_T4),
                             *VERTEX, "--region", f"{REGION},{EAST}"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not google.calls("customJobs.list") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert google.calls("customJobs.list"), "the clean-up never looked"
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and out == "", err
    lines = err.splitlines()
    assert "Interrupted while making sure the refused create left no job alive." in lines
    assert any(line.startswith("A job the refused create may have made carries its label: "
                               f"gpujob list --service vertex --project proj-a --region {REGION}"
                               " --filter 'labels.gpujob-submission=") for line in lines), err
    assert len(google.calls("customJobs.create")) == 1
