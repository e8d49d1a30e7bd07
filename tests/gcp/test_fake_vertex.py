"""The fake Vertex AI answers and refuses as the service does: the client and backend tests will
rely on these checks having teeth. Driven with google-api-python-client's own aiplatform v1 and
logging v2 clients (bundled documents), google-auth credentials from a key made here."""

from __future__ import annotations

import http.client
import json
import re
import time
from typing import Any

import httplib2
import pytest
from conftest import ACCOUNT, PROJECT, PROJECT_NUMBER, REGION
from fakes.errors import (
    field_violations,
    insufficient_resources,
    quota_failure,
    rate_limited,
    unavailable,
    vertex_disabled,
    vertex_quota_exceeded,
)
from fakes.faults import Drop, Reply, Stall, Trickle
from fakes.vertex import Step, trial
from googleapiclient.errors import HttpError
from vertex_jobs import custom_job, tuning_job

PARENT = f"projects/{PROJECT}/locations/{REGION}"
NAME = re.compile(rf"projects/{PROJECT_NUMBER}/locations/{REGION}/customJobs/(\d{{19}})")
T4 = "aiplatform.googleapis.com/custom_model_training_nvidia_t4_gpus"


def _custom(client):
    return client.projects().locations().customJobs()


def _tuning(client):
    return client.projects().locations().hyperparameterTuningJobs()


def _refusal(call) -> tuple[int, dict[str, Any]]:
    with pytest.raises(HttpError) as caught:
        call.execute()
    return caught.value.resp.status, json.loads(caught.value.content)["error"]


def _fields(error: dict[str, Any]) -> list[str]:
    (bad,) = [d for d in error["details"] if d["@type"].endswith("google.rpc.BadRequest")]
    return [v["field"] for v in bad["fieldViolations"]]


def _id(job: dict[str, Any]) -> str:
    return job["name"].rsplit("/", 1)[1]


# -- who may call ------------------------------------------------------------------------------

def test_calls_without_a_token_the_fake_issued_are_unauthenticated(discovery_client, vertex):
    from google.oauth2.credentials import Credentials
    from google_auth_httplib2 import AuthorizedHttp

    anonymous = discovery_client("aiplatform", "v1", httplib2.Http())
    status, error = _refusal(_custom(anonymous).create(parent=PARENT, body=custom_job()))
    assert (status, error["status"]) == (401, "UNAUTHENTICATED")
    forged = AuthorizedHttp(Credentials("ya29.forged"), refresh_status_codes=())
    client = discovery_client("aiplatform", "v1", forged)
    assert _refusal(_custom(client).list(parent=PARENT))[0] == 401
    assert vertex.jobs == {}


def test_the_caller_is_the_key_account_and_ml_and_vertex_share_the_server(google, aiplatform,
                                                                          discovery_client):
    _custom(aiplatform).create(parent=PARENT, body=custom_job()).execute()
    (call,) = google.calls("customJobs.create")
    assert call.principal == ACCOUNT
    assert call.path == f"/v1/{PARENT}/customJobs"
    ml = discovery_client("ml", "v1")
    assert ml.projects().jobs().list(parent=f"projects/{PROJECT}").execute() == {"jobs": []}
    (listed,) = google.calls("jobs.list")  # same port, same token
    assert listed.headers["authorization"] == call.headers["authorization"]


def test_an_unknown_project_is_refused_naming_the_permission(aiplatform, vertex):
    status, error = _refusal(_custom(aiplatform).create(
        parent=f"projects/other/locations/{REGION}", body=custom_job()))
    assert (status, error["message"]) == (403, (
        "Permission 'aiplatform.customJobs.create' denied on resource '//aiplatform.googleapis"
        f".com/projects/other/locations/{REGION}' (or it may not exist)."))
    status, error = _refusal(_custom(aiplatform).list(parent=f"projects/{PROJECT}/locations/mars1"))
    assert (status, _fields(error)) == (400, ["parent"])
    assert vertex.jobs == {}


# -- create ------------------------------------------------------------------------------------

def test_create_assigns_a_numeric_id_and_names_the_job_by_project_number(google, aiplatform):
    sent = custom_job("train", {"gpujob-request": "r1", "team": "vision"})
    job = _custom(aiplatform).create(parent=PARENT, body=sent).execute()
    assert NAME.fullmatch(job["name"])
    assert job["state"] == "JOB_STATE_PENDING"
    assert job["createTime"] == job["updateTime"] and "startTime" not in job
    assert (job["displayName"], job["labels"]) == ("train", sent["labels"])
    (pool,) = job["jobSpec"]["workerPoolSpecs"]
    assert pool["replicaCount"] == "1" and pool["machineSpec"]["acceleratorCount"] == 1
    assert pool["diskSpec"] == {"bootDiskType": "pd-ssd", "bootDiskSizeGb": 100}
    assert google.calls("customJobs.create")[0].body == sent
    other = _custom(aiplatform).create(parent=f"projects/{PROJECT_NUMBER}/locations/{REGION}",
                                       body=custom_job()).execute()
    assert _id(other) != _id(job) and NAME.fullmatch(other["name"])
    assert _custom(aiplatform).get(name=f"{PARENT}/customJobs/{_id(job)}").execute() == job
    assert google.rejected == []


@pytest.mark.parametrize(("change", "fields"), [
    (lambda b: b.update(state="JOB_STATE_RUNNING", name="x"), ["state", "name"]),
    (lambda b: b.pop("displayName"), ["display_name"]),
    (lambda b: b["jobSpec"]["workerPoolSpecs"][0].update(replicaCount=1),
     ["job_spec.worker_pool_specs[0].replica_count"]),
    (lambda b: b["jobSpec"]["workerPoolSpecs"][0]["machineSpec"].update(
        acceleratorType="nvidia-tesla-t4", acceleratorCount="1", gpus=2),
     ["job_spec.worker_pool_specs[0].machine_spec.accelerator_type",
      "job_spec.worker_pool_specs[0].machine_spec.accelerator_count",
      "job_spec.worker_pool_specs[0].machine_spec.gpus"]),
    (lambda b: b["jobSpec"].update(baseOutputDirectory="gs://b/out"),
     ["job_spec.base_output_directory"]),
])
def test_bodies_the_discovery_document_refuses(google, aiplatform, vertex, change, fields):
    body = custom_job()
    change(body)
    status, error = _refusal(_custom(aiplatform).create(parent=PARENT, body=body))
    assert (status, error["status"]) == (400, "INVALID_ARGUMENT")
    assert _fields(error) == fields
    assert error["message"].startswith("List of found errors:\t1.Field: " + fields[0] + "; ")
    assert vertex.jobs == {} and [r for r, _ in google.rejected] == ["customJobs.create"]


@pytest.mark.parametrize(("change", "fields"), [
    (lambda b: b["jobSpec"]["workerPoolSpecs"][0]["machineSpec"].pop("acceleratorCount"),
     ["job_spec.worker_pool_specs[0].machine_spec.accelerator_type"]),
    (lambda b: b.update(labels={"Team": "vision", "ok": "Bad Value"}), ["labels", "labels"]),
    (lambda b: b["jobSpec"]["workerPoolSpecs"].insert(0, {}),
     ["job_spec.worker_pool_specs[0]"]),
    (lambda b: b["jobSpec"]["workerPoolSpecs"][0].pop("replicaCount"),
     ["job_spec.worker_pool_specs[0].replica_count"]),
    (lambda b: b["jobSpec"]["workerPoolSpecs"][0].update(
        pythonPackageSpec={"executorImageUri": "x", "packageUris": ["gs://b/p.tar.gz"],
                           "pythonModule": "trainer.task"}),
     ["job_spec.worker_pool_specs[0].task"]),
    (lambda b: b.update(displayName="x" * 129), ["display_name"]),
])
def test_bodies_the_service_refuses_beyond_the_types(aiplatform, vertex, change, fields):
    body = custom_job()
    change(body)
    status, error = _refusal(_custom(aiplatform).create(parent=PARENT, body=body))
    assert (status, _fields(error)) == (400, fields)
    assert vertex.jobs == {}


def test_a_pool_after_the_first_may_be_empty(aiplatform):
    body = custom_job()
    body["jobSpec"]["workerPoolSpecs"] += [{}, custom_job()["jobSpec"]["workerPoolSpecs"][0]]
    job = _custom(aiplatform).create(parent=PARENT, body=body).execute()
    assert [bool(p) for p in job["jobSpec"]["workerPoolSpecs"]] == [True, False, True]


def test_tuning_jobs_are_created_and_their_trials_are_output_only(aiplatform, vertex):
    job = _tuning(aiplatform).create(parent=PARENT, body=tuning_job()).execute()
    assert re.fullmatch(rf"projects/{PROJECT_NUMBER}/locations/{REGION}/"
                        r"hyperparameterTuningJobs/\d{19}", job["name"])
    assert (job["maxTrialCount"], job["state"], "trials" in job) == (4, "JOB_STATE_PENDING", False)
    body = tuning_job()
    body["trials"] = [trial("1", {"lr": 0.01})]
    body["maxTrialCount"] = "4"
    status, error = _refusal(_tuning(aiplatform).create(parent=PARENT, body=body))
    assert (status, _fields(error)) == (400, ["max_trial_count", "trials"])
    # a tuning job is not found among custom jobs, nor by a custom job's name
    assert _custom(aiplatform).list(parent=PARENT).execute() == {}
    status, _ = _refusal(_custom(aiplatform).get(name=f"{PARENT}/customJobs/{_id(job)}"))
    assert status == 404
    assert len(vertex.jobs) == 1


# -- list --------------------------------------------------------------------------------------

@pytest.fixture
def listed(vertex_job, google):
    """Five jobs, oldest first: a (vision, running), b (vision, r2), c (audio, failed), a again
    (no labels, succeeded), d (vision, with the request label, pending)."""
    made = []
    for i, (name, state, labels) in enumerate([
            ("a", "JOB_STATE_RUNNING", {"team": "vision"}),
            ("b", "JOB_STATE_PENDING", {"team": "vision", "gpujob-request": "r2"}),
            ("c", "JOB_STATE_FAILED", {"team": "audio"}),
            ("a", "JOB_STATE_SUCCEEDED", None),
            ("d", "JOB_STATE_PENDING", {"team": "vision", "gpujob-request": "r5"})]):
        made.append(vertex_job(name, state, labels, created=f"2026-11-2{i}T10:00:00.000000Z"))
    return made


def _names(client, **query) -> list[str]:
    answer = _custom(client).list(parent=PARENT, **query).execute()
    return [j["displayName"] + j["createTime"][9] for j in answer.get("customJobs", [])]


@pytest.mark.parametrize(("text", "expected"), [
    ("", ["d4", "a3", "c2", "b1", "a0"]),
    ('labels.gpujob-request="r2"', ["b1"]),
    ("labels.gpujob-request=r5", ["d4"]),
    ('labels.team="vision" AND state=JOB_STATE_PENDING', ["d4", "b1"]),
    ('display_name="a"', ["a3", "a0"]),
    ('displayName="a" AND state="JOB_STATE_SUCCEEDED"', ["a3"]),
    ("state=JOB_STATE_RUNNING", ["a0"]),
    ('state!="JOB_STATE_PENDING"', ["a3", "c2", "a0"]),
    ('create_time>"2026-11-22T00:00:00Z"', ["d4", "a3", "c2"]),
    ('display_name:"a*" OR labels.team=audio', ["a3", "c2", "a0"]),
    ("labels.gpujob-request:* AND NOT labels.gpujob-request=r2", ["d4"]),
    ('labels.team="nobody"', []),
])
def test_list_filters_as_the_service_documents(aiplatform, listed, text, expected):
    assert _names(aiplatform, filter=text) == expected


@pytest.mark.parametrize("text", [
    'name="a"', "state=RUNNING", 'display_name>"a"', "labels.team:vision", "state=",
    "(state=JOB_STATE_RUNNING", 'create_time>"yesterday"', "state=JOB_STATE_RUNNING AND",
    'labels.team="vision" and state=JOB_STATE_RUNNING',
])
def test_filters_the_service_would_not_take_are_refused(aiplatform, listed, text):
    status, error = _refusal(_custom(aiplatform).list(parent=PARENT, filter=text))
    assert (status, error["status"], _fields(error)) == (400, "INVALID_ARGUMENT", ["filter"])


def test_list_pages_with_opaque_tokens_tied_to_the_filter(aiplatform, listed, vertex):
    jobs, seen, request = _custom(aiplatform), [], None
    request = jobs.list(parent=PARENT, pageSize=2)
    tokens = []
    while request is not None:
        answer = request.execute()
        seen += [j["name"] for j in answer["customJobs"]]
        tokens.append(answer.get("nextPageToken"))
        request = jobs.list_next(request, answer)
    assert seen == [j["name"] for j in reversed(listed)]
    assert len(tokens) == 3 and tokens[-1] is None and not any(t.isdigit() for t in tokens[:2])
    status, error = _refusal(jobs.list(parent=PARENT, pageSize=2, pageToken=tokens[0],
                                       filter="labels.team=vision"))
    assert (status, _fields(error)) == (400, ["page_token"])
    vertex.page_size = 3
    assert len(_names(aiplatform)) == 3
    assert _custom(aiplatform).list(parent=f"projects/{PROJECT}/locations/europe-west4"
                                    ).execute() == {}


def test_list_applies_the_read_mask(aiplatform, listed):
    answer = _custom(aiplatform).list(parent=PARENT, filter='display_name="c"',
                                      readMask="name,display_name,state").execute()
    (job,) = answer["customJobs"]
    assert job == {"name": listed[2]["name"], "displayName": "c", "state": "JOB_STATE_FAILED"}


# -- states ------------------------------------------------------------------------------------

def _states(client, name: str, reads: int) -> list[dict[str, Any]]:
    return [_custom(client).get(name=name).execute() for _ in range(reads)]


def test_gets_move_a_scripted_job_through_its_states(aiplatform, vertex, vertex_job):
    job_id = _id(vertex_job())
    vertex.script(job_id, "QUEUED", "RUNNING", ("JOB_STATE_RUNNING", ["epoch 1"]),
                  Step("SUCCEEDED", logs=[("service", "Job completed successfully.")]))
    reads = _states(aiplatform, f"{PARENT}/customJobs/{job_id}", 5)
    assert [r["state"] for r in reads] == ["JOB_STATE_QUEUED", "JOB_STATE_RUNNING",
                                           "JOB_STATE_RUNNING", "JOB_STATE_SUCCEEDED",
                                           "JOB_STATE_SUCCEEDED"]
    assert "startTime" not in reads[0] and reads[1]["startTime"] == reads[3]["startTime"]
    assert "endTime" not in reads[2] and reads[3]["endTime"] >= reads[3]["startTime"]
    assert reads[3]["updateTime"] == reads[3]["endTime"] and "error" not in reads[3]
    assert [(e["resource"]["labels"]["task_name"], e["textPayload"])
            for e in vertex.fake.logs[job_id]] == [("workerpool0-0", "epoch 1"),
                                                    ("service", "Job completed successfully.")]


@pytest.mark.parametrize(("step", "code", "message"), [
    (Step("FAILED"), 3, "The replica workerpool0-0 exited with a non-zero status of 1. To find "
                        "out more about why your job exited please check the logs: "),
    (Step("FAILED", error=insufficient_resources("us-central1")), 8,
     "Resources are insufficient in region: us-central1. Please try a different region."),
    (Step("FAILED", error=quota_failure(T4)), 8,
     f"The following quota metrics exceed quota limits: {T4}"),
])
def test_a_failed_job_says_why(aiplatform, vertex, vertex_job, step, code, message):
    job_id = _id(vertex_job(state="JOB_STATE_RUNNING"))
    vertex.script(job_id, step)
    job = _custom(aiplatform).get(name=f"{PARENT}/customJobs/{job_id}").execute()
    assert job["state"] == "JOB_STATE_FAILED" and job["error"]["code"] == code
    assert job["error"]["message"].startswith(message)


def test_cancel_goes_through_cancelling_to_cancelled(aiplatform, vertex, vertex_job):
    job_id = _id(vertex_job(state="JOB_STATE_RUNNING"))
    vertex.script(job_id, "SUCCEEDED")
    name = f"{PARENT}/customJobs/{job_id}"
    assert _custom(aiplatform).cancel(name=name).execute() == {}
    reads = _states(aiplatform, name, 3)
    assert [r["state"] for r in reads] == ["JOB_STATE_CANCELLING", "JOB_STATE_CANCELLED",
                                           "JOB_STATE_CANCELLED"]
    assert reads[1]["error"] == {"code": 1, "message": "CANCELED"} and "endTime" in reads[1]
    status, error = _refusal(_custom(aiplatform).cancel(name=name))
    assert (status, error["status"]) == (400, "FAILED_PRECONDITION")


def test_get_of_a_missing_job(aiplatform, vertex_job):
    job_id = _id(vertex_job(location="europe-west4"))
    assert _refusal(_custom(aiplatform).get(name=f"{PARENT}/customJobs/{job_id}"))[0] == 404
    assert _refusal(_custom(aiplatform).get(name=f"{PARENT}/customJobs/1234"))[0] == 404
    status, error = _refusal(_custom(aiplatform).get(name=f"{PARENT}/customJobs/train"))
    assert (status, _fields(error)) == (400, ["name"])
    assert _custom(aiplatform).get(name=f"projects/{PROJECT_NUMBER}/locations/europe-west4/"
                                        f"customJobs/{job_id}").execute()["displayName"] == "train"


def test_a_tuning_job_reports_its_trials(aiplatform, vertex, vertex_job):
    job_id = _id(vertex_job("tune", tuning=True))
    vertex.script(job_id, "RUNNING", "SUCCEEDED",
                  Step("SUCCEEDED", trials=[trial("7", {"lr": 0.01}, {"accuracy": 0.9})]))
    name = f"{PARENT}/hyperparameterTuningJobs/{job_id}"
    running, done, given = (_tuning(aiplatform).get(name=name).execute() for _ in range(3))
    assert [(t["id"], t["state"], "finalMeasurement" in t) for t in running["trials"]] == [
        ("1", "ACTIVE", False), ("2", "ACTIVE", False)]
    assert [t["state"] for t in done["trials"]] == ["SUCCEEDED"] * 4
    first = done["trials"][0]
    assert first["parameters"] == [{"parameterId": "lr", "value": 0.0208},
                                   {"parameterId": "batch", "value": 38.0},
                                   {"parameterId": "opt", "value": "adam"}]
    assert first["finalMeasurement"] == {"stepCount": "1",
                                         "metrics": [{"metricId": "accuracy", "value": 0.5}]}
    assert given["trials"] == [{"id": "7", "state": "SUCCEEDED",
                                "parameters": [{"parameterId": "lr", "value": 0.01}],
                                "finalMeasurement": {"stepCount": "1", "metrics": [
                                    {"metricId": "accuracy", "value": 0.9}]}}]


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
    job_id = _id(vertex_job())
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
            _custom(aiplatform).create(parent=PARENT, body=custom_job()).execute()
        assert caught.value.resp.status == expected
        waits.append(caught.value.resp["retry-after"])
    assert waits == ["7", "3"] and vertex.jobs == {}
    _custom(aiplatform).create(parent=PARENT, body=custom_job()).execute()
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
    found = _custom(aiplatform).list(parent=PARENT,
                                     filter='labels.gpujob-request="r1"').execute()
    assert [j["name"] for j in found["customJobs"]] == [made["name"]]


def test_httplib2_resends_a_create_whose_answer_was_lost_making_two_jobs(google, aiplatform,
                                                                          vertex):
    """The trap a Vertex client must guard against: httplib2 resends any request whose
    connection closed before the status line, and create has no idempotency key."""
    google.inject("customJobs.create", Drop())
    job = _custom(aiplatform).create(parent=PARENT, body=custom_job()).execute()
    assert len(google.calls("customJobs.create")) == 2 and len(vertex.jobs) == 2
    assert job["name"] in [j["name"] for j in vertex.jobs.values()]


def test_an_error_after_the_job_was_made(google, aiplatform, vertex):
    google.inject("customJobs.create", Reply(503, unavailable(), handled=True))
    assert _refusal(_custom(aiplatform).create(parent=PARENT, body=custom_job()))[0] == 503
    assert len(vertex.jobs) == 1


def test_a_disabled_api_refuses_everything_with_its_error_info(google, aiplatform, vertex):
    vertex.disabled = True
    for call in (_custom(aiplatform).list(parent=PARENT, pageSize=1),
                 _custom(aiplatform).create(parent=PARENT, body=custom_job())):
        status, error = _refusal(call)
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
    assert _custom(aiplatform).list(parent=PARENT, pageSize=1).execute() == {}
    status, error = _refusal(_custom(aiplatform).create(parent=PARENT, body=custom_job()))
    assert status == 403 and error["message"].startswith(
        "Permission 'aiplatform.customJobs.create' denied on resource")
    (info,) = error["details"]
    assert (info["reason"], info["metadata"]["permission"]) == (
        "IAM_PERMISSION_DENIED", "aiplatform.customJobs.create")
    vertex.denied.clear()
    vertex.deny("aiplatform.customJobs.create", principal="someone-else@x.iam.gserviceaccount.com")
    assert NAME.fullmatch(_custom(aiplatform).create(parent=PARENT, body=custom_job()).execute()[
        "name"])  # denied to another account only


def test_injected_field_violations_and_quota_answers_keep_their_details(google, aiplatform):
    path = "job_spec.worker_pool_specs[0].machine_spec.accelerator_type"
    google.inject("customJobs.create",
                  Reply(400, field_violations([(path, "Accelerator NVIDIA_TESLA_T4 is not "
                                                      "supported in region us-central1.")])),
                  Reply(429, vertex_quota_exceeded(T4, REGION, limit=2)))
    status, error = _refusal(_custom(aiplatform).create(parent=PARENT, body=custom_job()))
    assert (status, _fields(error)) == (400, [path])
    status, error = _refusal(_custom(aiplatform).create(parent=PARENT, body=custom_job()))
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
    assert _custom(aiplatform).get(name=job["name"]).execute() == job
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
        _custom(impatient).create(parent=PARENT, body=custom_job()).execute()
    assert len(vertex.jobs) == 1 and len(google.calls("customJobs.create")) == 1
