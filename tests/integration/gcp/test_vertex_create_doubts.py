"""Vertex AI creates whose outcome is in doubt (issue 19: E01, E02, E08, E09, E17, E18): an
answer that names no job, a 401, a number too long to read, a listing that ignores the label
filter or never ends, Ctrl-C. Each ends in one job, or in an error that says whether one may
exist and how to look; never in a second job, never in another job passed off as this one."""

from __future__ import annotations

import shlex

import pytest
from conftest import PROJECT, REGION
from fakes.errors import error_body, unavailable
from fakes.faults import Drop, Reply
from vertex_jobs import custom_job

from gpujob.errors import RemoteError
from gpujob.gcp.session import Session
from gpujob.gcp.settings import GcpSettings
from gpujob.services.vertex import paths as vertex_api
from gpujob.services.vertex.jobs import api as aiplatform
from gpujob.services.vertex.jobs.create import create

TOKEN = "20261123-101010-123456-abcd"
FIND = ("gpujob list --service vertex --project proj-a --region us-central1 --filter "
        f"'labels.gpujob-submission=\"{TOKEN}\"'")
UNAUTHENTICATED = error_body(401, "UNAUTHENTICATED", "Request had invalid authentication "
                             "credentials.")


@pytest.fixture
def client(google, key, clock) -> aiplatform.VertexClient:
    return aiplatform.VertexClient(Session(GcpSettings(api_endpoint=google.url,
                                                       endpoints={"logging": google.url})))


def _body() -> dict:
    return custom_job("train", {aiplatform.SUBMISSION_LABEL: TOKEN})


def _url(google) -> str:
    return vertex_api.jobs_url(GcpSettings(api_endpoint=google.url), PROJECT, REGION,
                               "CustomJob")


# -- E01: a 2xx that names no job ----------------------------------------------------------------

@pytest.mark.parametrize("answer", [{}, {"name": "7"}, {"displayName": "train"}])
def test_an_answer_that_names_no_job_is_looked_up_and_adopted(google, vertex, client, clock,
                                                              answer):
    google.inject("customJobs.create", Reply(200, answer, handled=True))
    created = create(client, _url(google), _body())
    assert created.recovered and created.job == next(iter(vertex.jobs.values()))
    assert len(google.calls("customJobs.create")) == 1 and clock.sleeps == []


def test_an_answer_that_names_no_job_and_no_job_found_says_it_was_probably_made(
        google, vertex, client, clock):
    google.inject("customJobs.create", Reply(200, {}))
    with pytest.raises(RemoteError) as caught:
        create(client, _url(google), _body())
    assert caught.value.message == ("submitting custom job train failed: the service's answer "
                                    "has no job name")
    assert caught.value.hint == ("the service answered, so the job was probably made: "
                                 f"{FIND} shows it")
    assert len(google.calls("customJobs.create")) == 1


def test_submit_with_an_answer_that_names_no_job_reports_the_job_made(cli, google, key,
                                                                      config, vertex, clock):
    google.inject("customJobs.create", Reply(200, {}, handled=True))
    result = cli("submit", config, "--service", "vertex")
    assert result.code == 0, result.err
    (job,) = vertex.jobs.values()
    job_id = job["name"].rsplit("/", 1)[1]
    assert result.out == f"{job_id}\n"
    assert "Job [?]" not in result.err and f"Job [{job_id}]" in result.err


# -- E02: the look-up checks the label of what it finds ----------------------------------------

def test_a_listing_that_ignores_the_filter_does_not_pass_another_job_off(
        google, vertex, vertex_job, client, clock, capsys):
    other = vertex_job("someone-elses-job", "JOB_STATE_RUNNING", labels={"team": "other"})
    same_label_other_token = vertex_job(labels={aiplatform.SUBMISSION_LABEL: "another"})
    google.inject("customJobs.create", Reply(503, unavailable()))
    google.inject("customJobs.list", *[Reply(200, {"customJobs": [other, same_label_other_token]})]
                  * 2)
    created = create(client, _url(google), _body())
    assert not created.recovered
    assert created.job["name"] not in (other["name"], same_label_other_token["name"])
    assert created.job["labels"][aiplatform.SUBMISSION_LABEL] == TOKEN
    assert len(google.calls("customJobs.create")) == 2 and len(vertex.jobs) == 3
    assert "warning" not in capsys.readouterr().err  # the look after the resend: no extras


# -- E08: a 401 is looked into, never resent blindly -------------------------------------------

@pytest.mark.parametrize("times", [1, 3])
def test_a_401_after_the_service_acted_is_one_job(google, vertex, client, clock, times):
    google.inject("customJobs.create", *[Reply(401, UNAUTHENTICATED, handled=True)] * times)
    created = create(client, _url(google), _body())
    assert created.recovered and len(vertex.jobs) == 1
    assert len(google.calls("customJobs.create")) == 1


def test_a_401_with_no_job_found_is_never_sent_again(google, vertex, client, clock):
    """A job made a moment before a 401 may not be listed yet: a resend could make a second
    one, so the create is not sent again; the error says how to look (E08)."""
    google.inject("customJobs.create", Reply(401, UNAUTHENTICATED))
    with pytest.raises(RemoteError) as caught:
        create(client, _url(google), _body())
    assert caught.value.message == (
        "submitting custom job train failed: 401 UNAUTHENTICATED: Request had invalid "
        "authentication credentials.")
    assert "look again before submitting again: gpujob list" in caught.value.hint
    assert [c.route for c in google.requests] == ["token", "customJobs.create",
                                                  "customJobs.list"]
    assert vertex.jobs == {}


# -- E09: the look-up's listing ends --------------------------------------------------------------

def test_a_look_up_whose_listing_never_ends_sends_nothing_again(google, vertex, vertex_job,
                                                                client, clock):
    other = vertex_job("other")
    google.inject("customJobs.create", Reply(503, unavailable(), handled=True))
    google.inject("customJobs.list", *[Reply(200, {"customJobs": [other],
                                                   "nextPageToken": f"t{i}"})
                                       for i in range(150)])
    with pytest.raises(RemoteError) as caught:
        create(client, _url(google), _body())
    assert caught.value.message == (
        "submitting custom job train failed: 503 UNAVAILABLE: The service is currently "
        "unavailable.; whether the job was made could not be checked: listing the custom jobs "
        "of project proj-a in us-central1 failed: the listing did not end after 100 pages; "
        "gpujob reads no more")
    assert caught.value.hint == f"do not submit again before looking for it: {FIND}"
    assert len(google.calls("customJobs.create")) == 1
    assert len(google.calls("customJobs.list")) == 100


# -- E18: a number too long to read ------------------------------------------------------------

LONG_NUMBER = ('{"name": "projects/1/locations/us-central1/customJobs/1", "futureField": '
               + "9" * 5000 + "}").encode()


def test_a_create_answer_with_a_number_too_long_to_read_is_looked_up(google, vertex, client,
                                                                     clock):
    google.inject("customJobs.create", Reply(200, LONG_NUMBER, handled=True))
    created = create(client, _url(google), _body())
    assert created.recovered and created.job == next(iter(vertex.jobs.values()))
    assert len(google.calls("customJobs.create")) == 1


@pytest.mark.parametrize("command", ["describe", "wait"])
def test_reading_a_job_with_a_number_too_long_to_read_is_exit_3(cli, google, key, vertex_job,
                                                                command):
    job_id = vertex_job()["name"].rsplit("/", 1)[1]
    google.inject("customJobs.get", Reply(200, LONG_NUMBER))
    result = cli(command, job_id, "--service", "vertex", "--region", REGION)
    assert result.code == 3, result.err
    assert result.err.splitlines()[0] == (f"error: reading custom job {job_id} failed: the "
                                          "service's answer holds a number too long to read")


# -- E17: Ctrl-C during the create -------------------------------------------------------------

def test_ctrl_c_during_a_create_gives_one_way_to_look_and_it_finds_the_job(
        cli, google, key, config, vertex, clock):
    clock.interrupt_at = 1  # in the wait after the lost answer, before the look-up
    google.inject("customJobs.create", Drop())
    result = cli("submit", config, "--service", "vertex")
    assert result.code == 130 and result.out == ""
    *_, said, look = result.err.splitlines()
    assert said == "Interrupted while submitting the job: it may or may not have been created."
    prefix = "A job this submission made carries its label: gpujob "
    assert look.startswith(prefix) and "Check with" not in result.err
    clock.interrupt_at = None
    found = cli(*shlex.split(look.removeprefix(prefix)), "--format", "json")
    assert found.code == 0, found.err
    (job,) = vertex.jobs.values()
    assert job["name"].rsplit("/", 1)[1] in found.out
