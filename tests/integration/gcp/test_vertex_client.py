"""The aiplatform v1 client (vertex.jobs.api) against the fake Vertex AI: the request it
sends, the regional address, reads, and one job per submission whatever the network does (a
late second job, which a create without a request ID cannot rule out, is named for cancelling)."""

from __future__ import annotations

import pytest
from conftest import ACCOUNT, PROJECT, PROJECT_NUMBER, REGION
from fakes.errors import (
    error_body,
    field_violations,
    insufficient_resources,
    rate_limited,
    unavailable,
    vertex_quota_exceeded,
)
from fakes.faults import Drop, Garbled, Late, Reply, Stall
from jobs import CONTAINER_JOB
from vertex_calls import T4
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
LONG_STATUS_LINE = b"HTTP/1.1 200 " + b"x" * 70_000 + b"\r\n\r\n"  # http.client's LineTooLong


@pytest.fixture
def client(google, key, clock) -> aiplatform.VertexClient:
    return aiplatform.VertexClient(Session(GcpSettings(api_endpoint=google.url,
                                                       endpoints={"logging": google.url})))


def _body(token: str = TOKEN, **labels: str) -> dict:
    return custom_job("train", {aiplatform.SUBMISSION_LABEL: token, **labels})


def _url(google, region: str = REGION, noun: str = "CustomJob") -> str:
    return vertex_api.jobs_url(GcpSettings(api_endpoint=google.url), PROJECT, region, noun)


def test_create_posts_the_body_once_to_the_url(google, vertex, client):
    created = create(client, _url(google), _body())
    (call,) = google.calls("customJobs.create")
    assert call.path == f"/v1/projects/{PROJECT}/locations/{REGION}/customJobs"
    assert call.body == _body()
    assert not created.recovered
    assert created.job["name"].startswith(f"projects/{PROJECT_NUMBER}/locations/{REGION}/")
    assert len(vertex.jobs) == 1


def test_503_429_then_success_makes_one_job(google, vertex, client, clock):
    google.inject("customJobs.create", Reply(503, unavailable()),
                  Reply(429, rate_limited(), {"Retry-After": "7"}))
    created = create(client, _url(google), _body())
    assert not created.recovered and len(vertex.jobs) == 1
    assert len(google.calls("customJobs.create")) == 3
    assert clock.sleeps == [0.75, 7.0]
    lists = google.calls("customJobs.list")  # before each resend, and once after the last
    assert [c.query["filter"] for c in lists] == [[f'labels.gpujob-submission="{TOKEN}"']] * 3


def test_a_lost_answer_is_not_resent_and_the_job_is_adopted(google, vertex, client, clock):
    google.inject("customJobs.create", Drop())
    created = create(client, _url(google), _body())
    assert created.recovered and len(vertex.jobs) == 1
    assert len(google.calls("customJobs.create")) == 1
    assert created.job == next(iter(vertex.jobs.values()))


def test_an_error_after_the_job_was_made_is_adopted(google, vertex, client, clock):
    google.inject("customJobs.create", Reply(503, unavailable(), handled=True))
    created = create(client, _url(google), _body())
    assert created.recovered and len(vertex.jobs) == 1
    assert len(google.calls("customJobs.create")) == 1 and clock.sleeps == [0.75]


def test_a_create_that_times_out_is_adopted(google, key, vertex, clock):
    settings = GcpSettings(api_endpoint=google.url, request_timeout=0.3)
    client = aiplatform.VertexClient(Session(settings))
    google.inject("customJobs.create", Stall(1.0))
    created = create(client, _url(google), _body())
    assert created.recovered and len(vertex.jobs) == 1
    assert len(google.calls("customJobs.create")) == 1


def test_a_try_the_service_acts_on_late_is_found_and_named_for_cancelling(
        google, key, vertex, clock, capsys, cli):
    settings = GcpSettings(api_endpoint=google.url, request_timeout=0.3)
    client = aiplatform.VertexClient(Session(settings))
    # the first create times out unanswered; the service makes its job only as the resend comes
    google.inject("customJobs.create", Late(30.0, until="customJobs.create"))
    created = create(client, _url(google), _body())
    assert not created.recovered and len(google.calls("customJobs.create")) == 2
    (extra,) = [j["name"] for j in vertex.jobs.values() if j["name"] != created.job["name"]]
    assert len(google.calls("customJobs.list")) == 2  # before the resend, and after it
    assert capsys.readouterr().err.splitlines()[1:] == [
        f"warning: 2 jobs carry this submission's label gpujob-submission={TOKEN} (more than "
        f"one try of the create was acted on); gpujob keeps {created.job['name']}",
        f"  cancel the extra one: gpujob cancel {extra} --service vertex"]
    assert cli("cancel", extra, "--service", "vertex").code == 0
    assert vertex.jobs[extra.rsplit("/", 1)[1]]["state"] == "JOB_STATE_CANCELLING"


def test_when_the_look_after_a_resend_fails_the_job_stands_and_the_user_is_told_to_look(
        google, vertex, client, clock, capsys):
    google.inject("customJobs.create", Reply(503, unavailable()))
    google.inject("customJobs.list", None, *[Reply(500, unavailable())] * 5)
    created = create(client, _url(google), _body())
    assert not created.recovered and len(vertex.jobs) == 1
    assert capsys.readouterr().err.splitlines()[-1] == (
        "warning: whether an earlier try of this submission made a job too could not be "
        "checked: listing the custom jobs of project proj-a in us-central1 failed: 500 "
        "UNAVAILABLE: The service is currently unavailable. (gave up after 5 attempts); look "
        f"with: {FIND}")


def test_two_jobs_found_by_the_look_up_keep_the_first_and_name_the_other(
        google, vertex, vertex_job, client, clock, capsys):
    first = vertex_job(labels={aiplatform.SUBMISSION_LABEL: TOKEN},
                       created="2026-11-23T10:10:11Z")
    second = vertex_job(labels={aiplatform.SUBMISSION_LABEL: TOKEN},
                        created="2026-11-23T10:10:12Z")
    google.inject("customJobs.create", Reply(503, unavailable()))
    created = create(client, _url(google), _body())
    assert created.recovered and created.job["name"] == first["name"]
    assert capsys.readouterr().err.splitlines()[1:] == [
        f"warning: 2 jobs carry this submission's label gpujob-submission={TOKEN} (more than "
        f"one try of the create was acted on); gpujob keeps {first['name']}",
        f"  cancel the extra one: gpujob cancel {second['name']} --service vertex"]


def test_an_unreadable_success_is_adopted_never_created_again(google, vertex, client, clock):
    google.inject("customJobs.create", Reply(200, {"name": 5}, handled=True))
    created = create(client, _url(google), _body())
    assert created.recovered and len(vertex.jobs) == 1
    assert clock.sleeps == []


def test_an_unreadable_answer_of_any_kind_is_looked_for_not_taken_for_a_refusal(
        google, vertex, client, clock):
    google.inject("customJobs.create", Garbled(LONG_STATUS_LINE))
    created = create(client, _url(google), _body())
    assert created.recovered and len(vertex.jobs) == 1
    assert created.job == next(iter(vertex.jobs.values()))
    assert len(google.calls("customJobs.create")) == 1 and clock.sleeps == []


def test_an_unreadable_answer_with_no_job_found_is_not_resent_and_says_how_to_look(
        google, vertex, client, clock):
    google.inject("customJobs.create", Garbled(LONG_STATUS_LINE, handled=False))
    with pytest.raises(RemoteError) as caught:
        create(client, _url(google), _body())
    assert caught.value.message == ("submitting custom job train failed: network error: got "
                                    "more than 65536 bytes when reading status line")
    assert caught.value.hint == (
        "the request may have reached the service; no job carried its label when gpujob "
        f"looked: look again before submitting again: {FIND}")
    assert len(google.calls("customJobs.create")) == 1 and vertex.jobs == {}
    assert len(google.calls("customJobs.list")) == 1 and clock.sleeps == []


def test_giving_up_after_the_last_look_finds_no_job(google, vertex, client, clock, capsys):
    google.inject("customJobs.create", *[Reply(503, unavailable())] * 5)
    with pytest.raises(RemoteError) as caught:
        create(client, _url(google), _body())
    assert caught.value.message == (
        "submitting custom job train failed: 503 UNAVAILABLE: The service is currently "
        "unavailable. (gave up after 5 attempts); no job was made (none carries this "
        "submission's label)")
    assert len(google.calls("customJobs.create")) == 5
    assert len(google.calls("customJobs.list")) == 5 and vertex.jobs == {}
    assert capsys.readouterr().err.splitlines()[0] == (
        "note: submitting custom job train: 503 Service Unavailable; retrying in 0.8 s unless "
        "the job turns out to have been made (attempt 2 of 5)")


def test_a_wait_past_the_deadline_says_why_it_gave_up(google, vertex, client, clock):
    google.inject("customJobs.create", Reply(503, unavailable(), {"Retry-After": "600"}))
    with pytest.raises(RemoteError) as caught:
        create(client, _url(google), _body())
    assert caught.value.message == (
        "submitting custom job train failed: 503 UNAVAILABLE: The service is currently "
        "unavailable. (gave up after 1 attempt: the retry deadline of 120 s would pass (the "
        "server asked to wait 600 s)); no job was made (none carries this submission's label)")
    assert len(google.calls("customJobs.create")) == 1 and clock.sleeps == []
    assert len(google.calls("customJobs.list")) == 1 and vertex.jobs == {}


def test_when_the_look_up_fails_nothing_is_sent_again(google, vertex, client, clock):
    google.inject("customJobs.create", Drop())
    google.inject("customJobs.list", *[Reply(500, unavailable())] * 5)
    with pytest.raises(RemoteError) as caught:
        create(client, _url(google), _body())
    assert caught.value.message.startswith(
        "submitting custom job train failed: network error: the connection closed before the "
        "answer came")
    assert "; whether the job was made could not be checked: listing the custom jobs of " \
           "project proj-a in us-central1 failed: 500 UNAVAILABLE" in caught.value.message
    assert caught.value.hint == f"do not submit again before looking for it: {FIND}"
    assert len(google.calls("customJobs.create")) == 1 and len(vertex.jobs) == 1


def test_a_resource_quota_is_not_retried_and_names_metric_and_region(google, vertex, client,
                                                                     clock):
    google.inject("customJobs.create", Reply(429, vertex_quota_exceeded(T4, REGION, limit=2)))
    with pytest.raises(RemoteError) as caught:
        create(client, _url(google), _body())
    assert caught.value.message == ("submitting custom job train failed: quota exhausted: 429 "
                                    f"RESOURCE_EXHAUSTED: The following quota metrics exceed "
                                    f"quota limits: {T4}")
    assert caught.value.hint == (
        f"the project's quota {T4} in us-central1 is used up (limit 2): ask for more at "
        "https://console.cloud.google.com/iam-admin/quotas (filter on that metric), or use "
        "another region, machine or GPU")
    assert len(google.calls("customJobs.create")) == 1 and clock.sleeps == []


def test_a_quota_answer_without_details_still_names_the_metric(google, client, clock):
    google.inject("customJobs.create",
                  Reply(429, vertex_quota_exceeded(T4, REGION, details=False)))
    with pytest.raises(RemoteError) as caught:
        create(client, _url(google), _body())
    assert caught.value.hint.startswith(f"the project's quota {T4} in us-central1 is used up: ")


def test_a_quota_failure_in_other_words_is_still_a_quota(google, client, clock):
    body = vertex_quota_exceeded(T4, REGION, limit=2)
    body["error"]["message"] = "Quota exceeded."
    google.inject("customJobs.create", Reply(429, body))
    with pytest.raises(RemoteError) as caught:
        create(client, _url(google), _body())
    assert caught.value.hint.startswith(f"the project's quota {T4} in us-central1 is used up "
                                        "(limit 2): ")
    assert len(google.calls("customJobs.create")) == 1 and clock.sleeps == []


def test_capacity_refused_at_create(google, client, clock):
    google.inject("customJobs.create", Reply(400, error_body(
        400, "FAILED_PRECONDITION", insufficient_resources(REGION)["message"])))
    with pytest.raises(RemoteError) as caught:
        create(client, _url(google), _body())
    assert caught.value.hint.startswith("Vertex AI had too few of these machines or GPUs free "
                                        "in us-central1 (capacity, not quota)")


def test_a_disabled_api_is_found_by_the_access_check(google, vertex, client):
    vertex.disabled = True
    with pytest.raises(RemoteError) as caught:
        client.check_access(client.place(REGION))
    assert caught.value.message.startswith(
        "checking access to Vertex AI in project proj-a, region us-central1 failed: 403 "
        "PERMISSION_DENIED: Vertex AI API has not been used in project 123456789012")
    assert caught.value.hint.startswith(
        "enable the API: gcloud services enable aiplatform.googleapis.com --project proj-a")
    (call,) = google.calls("customJobs.list")
    assert call.query["pageSize"] == ["1"]


def test_a_missing_permission_names_role_and_identity(google, vertex, client):
    vertex.deny("aiplatform.customJobs.create")
    with pytest.raises(RemoteError) as caught:
        create(client, _url(google), _body())
    assert caught.value.hint == (f"{ACCOUNT} needs the aiplatform.customJobs.create permission "
                                 "on project proj-a, for example through the "
                                 "roles/aiplatform.user role")


def test_a_region_without_an_endpoint_sends_nothing(google, key, clock):
    client = aiplatform.VertexClient(Session(GcpSettings()))
    with pytest.raises(RemoteError) as caught:
        client.check_access(client.place("us-centrall1"))
    assert caught.value.message == (
        "Vertex AI has no endpoint in region 'us-centrall1' "
        "(https://us-centrall1-aiplatform.googleapis.com/ is not one of its addresses)")
    assert caught.value.hint.startswith("did you mean us-central1? check the region")
    assert [r.route for r in google.requests] == []


def test_a_misspelt_region_is_guessed_among_the_regions_that_train(google, key, clock):
    """us-centrall is spelt closest to us-central2, which has an endpoint but no training:
    the guess is us-central1."""
    client = aiplatform.VertexClient(Session(GcpSettings()))
    with pytest.raises(RemoteError) as caught:
        client.check_access(client.place("us-centrall"))
    assert caught.value.hint.startswith("did you mean us-central1? check the region")
    assert [r.route for r in google.requests] == []


def test_a_region_the_endpoint_refuses(google, client):
    with pytest.raises(RemoteError) as caught:
        client.check_access(client.place("mars1"))
    assert caught.value.hint == ("Vertex AI does not offer training in mars1: choose another "
                                 "region (gpujob gpus --service vertex lists them)")


def test_field_violations_point_at_the_config(google, vertex, key, clock, tmp_path):
    from vertex_requests import translated

    from gpujob.services.vertex import jobs as vertex_jobs

    settings = GcpSettings(api_endpoint=google.url)
    jobs = vertex_jobs.client(settings, Session(settings))
    path = "job_spec.worker_pool_specs[0].machine_spec.accelerator_type"
    google.inject("customJobs.create", Reply(400, field_violations([
        (path, "Accelerator NVIDIA_TESLA_T4 is not supported in region us-central1."),
        ("job_spec.worker_pool_specs[0].task", "Exactly one of container_spec and "
                                               "python_package_spec must be set."),
        ("labels", "Label key is invalid.")])))
    with pytest.raises(RemoteError) as caught:
        jobs.create(translated(CONTAINER_JOB, google.url, source="config.yaml"))
    assert caught.value.message == (
        "submitting custom job config failed: the service refused 3 values of the config: "
        "config.yaml:7:41: trainingInput.masterConfig.acceleratorConfig.type: Accelerator "
        "NVIDIA_TESLA_T4 is not supported in region us-central1; "
        "jobSpec.workerPoolSpecs[0] (in the request): Exactly one of container_spec and "
        "python_package_spec must be set; labels (in the request): Label key is invalid")
    assert caught.value.hint == (
        f"fix it in the config, or with the flag that set it (the service named {path}, "
        "job_spec.worker_pool_specs[0].task, labels; gpujob submit --dry-run --service vertex "
        "prints the body gpujob sends)")
    assert vertex.jobs == {}
