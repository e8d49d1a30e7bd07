"""The fake Vertex AI's log entries (through logging v2) and its faults (through aiplatform v1),
as google-api-python-client meets them."""

from __future__ import annotations

import http.client
import json
import time

import httplib2
import pytest
from conftest import ACCOUNT, PROJECT, PROJECT_NUMBER, REGION
from fakes.errors import (
    field_violations,
    rate_limited,
    unavailable,
    vertex_disabled,
    vertex_quota_exceeded,
)
from fakes.faults import Drop, Reply, Stall, Trickle
from googleapiclient.errors import HttpError
from vertex_calls import NAME, PARENT, T4, custom_jobs, fields, id_of, refusal
from vertex_jobs import custom_job

# -- logs --------------------------------------------------------------------------------------

@pytest.fixture
def logging_client(discovery_client):
    return discovery_client("logging", "v2")


def _read(client, text: str, project: str = PROJECT) -> list[str]:
    answer = client.entries().list(body={"resourceNames": [f"projects/{project}"],
                                         "filter": text, "orderBy": "timestamp asc"}).execute()
    return [e.get("textPayload") or e["jsonPayload"]["message"] for e in answer.get("entries", [])]


def test_vertex_log_entries_are_found_as_gcloud_asks_for_them(logging_client, vertex,
                                                               vertex_job, google):
    job_id = id_of(vertex_job())
    vertex.add_log(job_id, "Job is running.", task="service")
    first = vertex.add_log(job_id, {"message": "epoch 1"})
    vertex.add_log(job_id, "trial says hi", task="workerpool0-0", trial="3")
    vertex.add_log(job_id, "oops", severity="ERROR", task="workerpool1-0")
    assert first["resource"] == {"type": "ml_job", "labels": {
        "job_id": job_id, "task_name": "workerpool0-0", "project_id": PROJECT}}
    base = f'resource.type="ml_job" AND resource.labels.job_id="{job_id}"'
    assert _read(logging_client, base) == ["Job is running.", "epoch 1", "trial says hi", "oops"]
    assert _read(logging_client, base, PROJECT_NUMBER) == _read(logging_client, base)
    assert _read(logging_client, base, "proj-b") == []
    assert _read(logging_client, base + ' AND resource.labels.task_name="service"') == [
        "Job is running."]
    assert _read(logging_client, base + ' AND labels."ml.googleapis.com/trial_id"="3"') == [
        "trial says hi"]
    assert _read(logging_client, base + " AND severity>=WARNING") == ["oops"]
    assert _read(logging_client, base + f' AND timestamp>"{first["timestamp"]}"') == [
        "trial says hi", "oops"]
    with pytest.raises(HttpError) as caught:
        _read(logging_client, 'resource.type="ml_job" AND jsonPayload.message:"epoch"')
    assert caught.value.resp.status == 400


# -- faults ------------------------------------------------------------------------------------

def test_429_and_503_carry_retry_after_and_make_no_job(google, aiplatform, vertex):
    google.inject("customJobs.create", Reply(429, rate_limited(), {"Retry-After": "7"}),
                  Reply(503, unavailable(), {"Retry-After": "3"}))
    waits = []
    for expected in (429, 503):
        with pytest.raises(HttpError) as caught:
            custom_jobs(aiplatform).create(parent=PARENT, body=custom_job()).execute()
        assert caught.value.resp.status == expected
        waits.append(caught.value.resp["retry-after"])
    assert waits == ["7", "3"] and vertex.jobs == {}
    custom_jobs(aiplatform).create(parent=PARENT, body=custom_job()).execute()
    assert len(vertex.jobs) == 1 and len(google.calls("customJobs.create")) == 3


def _raw_create(google, labels: dict[str, str]) -> http.client.HTTPResponse:
    token = google.issue_token(ACCOUNT)
    conn = http.client.HTTPConnection(google.url.split("/")[2], timeout=5)
    conn.request("POST", f"/v1/{PARENT}/customJobs", json.dumps(custom_job(labels=labels)),
                 {"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    return conn.getresponse()


def test_a_lost_answer_after_create_leaves_the_job_made_and_findable(google, aiplatform, vertex):
    google.inject("customJobs.create", Drop())
    with pytest.raises(http.client.RemoteDisconnected):
        _raw_create(google, {"gpujob-request": "r1"})
    (made,) = vertex.jobs.values()
    found = custom_jobs(aiplatform).list(parent=PARENT,
                                     filter='labels.gpujob-request="r1"').execute()
    assert [j["name"] for j in found["customJobs"]] == [made["name"]]


def test_httplib2_resends_a_create_whose_answer_was_lost_making_two_jobs(google, aiplatform,
                                                                          vertex):
    """The trap a Vertex client must guard against: httplib2 resends any request whose
    connection closed before the status line, and create has no idempotency key."""
    google.inject("customJobs.create", Drop())
    job = custom_jobs(aiplatform).create(parent=PARENT, body=custom_job()).execute()
    assert len(google.calls("customJobs.create")) == 2 and len(vertex.jobs) == 2
    assert job["name"] in [j["name"] for j in vertex.jobs.values()]


def test_an_error_after_the_job_was_made(google, aiplatform, vertex):
    google.inject("customJobs.create", Reply(503, unavailable(), handled=True))
    assert refusal(custom_jobs(aiplatform).create(parent=PARENT, body=custom_job()))[0] == 503
    assert len(vertex.jobs) == 1


def test_a_disabled_api_refuses_everything_with_its_error_info(google, aiplatform, vertex):
    vertex.disabled = True
    for call in (custom_jobs(aiplatform).list(parent=PARENT, pageSize=1),
                 custom_jobs(aiplatform).create(parent=PARENT, body=custom_job())):
        status, error = refusal(call)
        assert (status, error["status"]) == (403, "PERMISSION_DENIED")
        (info,) = [d for d in error["details"] if d["@type"].endswith("ErrorInfo")]
        assert info["reason"] == "SERVICE_DISABLED"
        assert info["metadata"]["service"] == "aiplatform.googleapis.com"
        assert info["metadata"]["consumer"] == f"projects/{PROJECT_NUMBER}"
    assert "aiplatform.googleapis.com/overview?project=123456789012" in error["message"]
    assert vertex.jobs == {}
    assert vertex_disabled(PROJECT_NUMBER) == {"error": error}


def test_a_missing_permission_is_named(google, aiplatform, vertex):
    vertex.deny("aiplatform.customJobs.create")
    assert custom_jobs(aiplatform).list(parent=PARENT, pageSize=1).execute() == {}
    status, error = refusal(custom_jobs(aiplatform).create(parent=PARENT, body=custom_job()))
    assert status == 403 and error["message"].startswith(
        "Permission 'aiplatform.customJobs.create' denied on resource")
    (info,) = error["details"]
    assert (info["reason"], info["metadata"]["permission"]) == (
        "IAM_PERMISSION_DENIED", "aiplatform.customJobs.create")
    vertex.denied.clear()
    vertex.deny("aiplatform.customJobs.create", principal="someone-else@x.iam.gserviceaccount.com")
    job = custom_jobs(aiplatform).create(parent=PARENT, body=custom_job()).execute()
    assert NAME.fullmatch(job["name"])  # denied to another account only


def test_injected_field_violations_and_quota_answers_keep_their_details(google, aiplatform):
    path = "job_spec.worker_pool_specs[0].machine_spec.accelerator_type"
    google.inject("customJobs.create",
                  Reply(400, field_violations([(path, "Accelerator NVIDIA_TESLA_T4 is not "
                                                      "supported in region us-central1.")])),
                  Reply(429, vertex_quota_exceeded(T4, REGION, limit=2)))
    status, error = refusal(custom_jobs(aiplatform).create(parent=PARENT, body=custom_job()))
    assert (status, fields(error)) == (400, [path])
    status, error = refusal(custom_jobs(aiplatform).create(parent=PARENT, body=custom_job()))
    assert (status, error["status"]) == (429, "RESOURCE_EXHAUSTED")
    assert error["message"] == f"The following quota metrics exceed quota limits: {T4}"
    (quota,) = error["details"]
    (violation,) = quota["violations"]
    assert (violation["quotaMetric"], violation["quotaDimensions"], violation["quotaValue"]) == (
        T4, {"region": REGION}, "2")


def test_an_answer_that_trickles_in_arrives_whole(google, aiplatform, vertex_job):
    job = vertex_job()
    google.inject("customJobs.get", Trickle(0.6, pieces=6))
    started = time.monotonic()
    assert custom_jobs(aiplatform).get(name=job["name"]).execute() == job
    assert time.monotonic() - started >= 0.5


def test_a_stalled_create_times_out_with_the_job_made(google, key, vertex, discovery_client):
    from google.oauth2 import service_account
    from google_auth_httplib2 import AuthorizedHttp

    credentials = service_account.Credentials.from_service_account_info(
        key.info, scopes=["https://www.googleapis.com/auth/cloud-platform"])
    impatient = discovery_client("aiplatform", "v1",
                                 AuthorizedHttp(credentials, http=httplib2.Http(timeout=0.3)))
    google.inject("customJobs.create", Stall(1.0))
    with pytest.raises(TimeoutError):
        custom_jobs(impatient).create(parent=PARENT, body=custom_job()).execute()
    assert len(vertex.jobs) == 1 and len(google.calls("customJobs.create")) == 1
