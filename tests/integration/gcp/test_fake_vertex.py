"""The fake Vertex AI answers and refuses as the service does: the client and backend tests will
rely on these checks having teeth. Driven with google-api-python-client's own aiplatform v1
client (bundled document), google-auth credentials from a key made here. Logs and faults:
test_fake_vertex_faults.py."""

from __future__ import annotations

import re
from typing import Any

import httplib2
import pytest
from conftest import ACCOUNT, PROJECT, PROJECT_NUMBER, REGION
from fakes.errors import insufficient_resources, quota_failure
from fakes.vertex import Step, trial
from vertex_calls import (
    NAME,
    PARENT,
    T4,
    custom_jobs,
    fields,
    id_of,
    refusal,
    tuning_jobs,
)
from vertex_jobs import custom_job, tuning_job

# -- who may call ------------------------------------------------------------------------------

def test_calls_without_a_token_the_fake_issued_are_unauthenticated(discovery_client, vertex):
    from google.oauth2.credentials import Credentials
    from google_auth_httplib2 import AuthorizedHttp

    anonymous = discovery_client("aiplatform", "v1", httplib2.Http())
    status, error = refusal(custom_jobs(anonymous).create(parent=PARENT, body=custom_job()))
    assert (status, error["status"]) == (401, "UNAUTHENTICATED")
    forged = AuthorizedHttp(Credentials("ya29.forged"), refresh_status_codes=())
    client = discovery_client("aiplatform", "v1", forged)
    assert refusal(custom_jobs(client).list(parent=PARENT))[0] == 401
    assert vertex.jobs == {}


def test_the_caller_is_the_key_account_and_ml_and_vertex_share_the_server(google, aiplatform,
                                                                          discovery_client):
    custom_jobs(aiplatform).create(parent=PARENT, body=custom_job()).execute()
    (call,) = google.calls("customJobs.create")
    assert call.principal == ACCOUNT
    assert call.path == f"/v1/{PARENT}/customJobs"
    ml = discovery_client("ml", "v1")
    assert ml.projects().jobs().list(parent=f"projects/{PROJECT}").execute() == {"jobs": []}
    (listed,) = google.calls("jobs.list")  # same port, same token
    assert listed.headers["authorization"] == call.headers["authorization"]


def test_an_unknown_project_is_refused_naming_the_permission(aiplatform, vertex):
    status, error = refusal(custom_jobs(aiplatform).create(
        parent=f"projects/other/locations/{REGION}", body=custom_job()))
    assert (status, error["message"]) == (403, (
        "Permission 'aiplatform.customJobs.create' denied on resource '//aiplatform.googleapis"
        f".com/projects/other/locations/{REGION}' (or it may not exist)."))
    mars = f"projects/{PROJECT}/locations/mars1"
    status, error = refusal(custom_jobs(aiplatform).list(parent=mars))
    assert (status, fields(error)) == (400, ["parent"])
    assert vertex.jobs == {}


# -- create ------------------------------------------------------------------------------------

def test_create_assigns_a_numeric_id_and_names_the_job_by_project_number(google, aiplatform):
    sent = custom_job("train", {"gpujob-request": "r1", "team": "vision"})
    job = custom_jobs(aiplatform).create(parent=PARENT, body=sent).execute()
    assert NAME.fullmatch(job["name"])
    assert job["state"] == "JOB_STATE_PENDING"
    assert job["createTime"] == job["updateTime"] and "startTime" not in job
    assert (job["displayName"], job["labels"]) == ("train", sent["labels"])
    (pool,) = job["jobSpec"]["workerPoolSpecs"]
    assert pool["replicaCount"] == "1" and pool["machineSpec"]["acceleratorCount"] == 1
    assert pool["diskSpec"] == {"bootDiskType": "pd-ssd", "bootDiskSizeGb": 100}
    assert google.calls("customJobs.create")[0].body == sent
    other = custom_jobs(aiplatform).create(parent=f"projects/{PROJECT_NUMBER}/locations/{REGION}",
                                       body=custom_job()).execute()
    assert id_of(other) != id_of(job) and NAME.fullmatch(other["name"])
    assert custom_jobs(aiplatform).get(name=f"{PARENT}/customJobs/{id_of(job)}").execute() == job
    assert google.rejected == []


@pytest.mark.parametrize(("change", "paths"), [
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
def test_bodies_the_discovery_document_refuses(google, aiplatform, vertex, change, paths):
    body = custom_job()
    change(body)
    status, error = refusal(custom_jobs(aiplatform).create(parent=PARENT, body=body))
    assert (status, error["status"]) == (400, "INVALID_ARGUMENT")
    assert fields(error) == paths
    assert error["message"].startswith("List of found errors:\t1.Field: " + paths[0] + "; ")
    assert vertex.jobs == {} and [r for r, _ in google.rejected] == ["customJobs.create"]


@pytest.mark.parametrize(("change", "paths"), [
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
def test_bodies_the_service_refuses_beyond_the_types(aiplatform, vertex, change, paths):
    body = custom_job()
    change(body)
    status, error = refusal(custom_jobs(aiplatform).create(parent=PARENT, body=body))
    assert (status, fields(error)) == (400, paths)
    assert vertex.jobs == {}


def test_a_pool_after_the_first_may_be_empty(aiplatform):
    body = custom_job()
    body["jobSpec"]["workerPoolSpecs"] += [{}, custom_job()["jobSpec"]["workerPoolSpecs"][0]]
    job = custom_jobs(aiplatform).create(parent=PARENT, body=body).execute()
    assert [bool(p) for p in job["jobSpec"]["workerPoolSpecs"]] == [True, False, True]


def test_tuning_jobs_are_created_and_their_trials_are_output_only(aiplatform, vertex):
    job = tuning_jobs(aiplatform).create(parent=PARENT, body=tuning_job()).execute()
    assert re.fullmatch(rf"projects/{PROJECT_NUMBER}/locations/{REGION}/"
                        r"hyperparameterTuningJobs/\d{19}", job["name"])
    assert (job["maxTrialCount"], job["state"], "trials" in job) == (4, "JOB_STATE_PENDING", False)
    body = tuning_job()
    body["trials"] = [trial("1", {"lr": 0.01})]
    body["maxTrialCount"] = "4"
    status, error = refusal(tuning_jobs(aiplatform).create(parent=PARENT, body=body))
    assert (status, fields(error)) == (400, ["max_trial_count", "trials"])
    # a tuning job is not found among custom jobs, nor by a custom job's name
    assert custom_jobs(aiplatform).list(parent=PARENT).execute() == {}
    status, _ = refusal(custom_jobs(aiplatform).get(name=f"{PARENT}/customJobs/{id_of(job)}"))
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
    answer = custom_jobs(client).list(parent=PARENT, **query).execute()
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
    status, error = refusal(custom_jobs(aiplatform).list(parent=PARENT, filter=text))
    assert (status, error["status"], fields(error)) == (400, "INVALID_ARGUMENT", ["filter"])


def test_list_pages_with_opaque_tokens_tied_to_the_filter(aiplatform, listed, vertex):
    jobs, seen, request = custom_jobs(aiplatform), [], None
    request = jobs.list(parent=PARENT, pageSize=2)
    tokens = []
    while request is not None:
        answer = request.execute()
        seen += [j["name"] for j in answer["customJobs"]]
        tokens.append(answer.get("nextPageToken"))
        request = jobs.list_next(request, answer)
    assert seen == [j["name"] for j in reversed(listed)]
    assert len(tokens) == 3 and tokens[-1] is None and not any(t.isdigit() for t in tokens[:2])
    status, error = refusal(jobs.list(parent=PARENT, pageSize=2, pageToken=tokens[0],
                                       filter="labels.team=vision"))
    assert (status, fields(error)) == (400, ["page_token"])
    vertex.page_size = 3
    assert len(_names(aiplatform)) == 3
    assert custom_jobs(aiplatform).list(parent=f"projects/{PROJECT}/locations/europe-west4"
                                    ).execute() == {}


def test_list_applies_the_read_mask(aiplatform, listed):
    answer = custom_jobs(aiplatform).list(parent=PARENT, filter='display_name="c"',
                                      readMask="name,display_name,state").execute()
    (job,) = answer["customJobs"]
    assert job == {"name": listed[2]["name"], "displayName": "c", "state": "JOB_STATE_FAILED"}


# -- states ------------------------------------------------------------------------------------

def _states(client, name: str, reads: int) -> list[dict[str, Any]]:
    return [custom_jobs(client).get(name=name).execute() for _ in range(reads)]


def test_gets_move_a_scripted_job_through_its_states(aiplatform, vertex, vertex_job):
    job_id = id_of(vertex_job())
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
    job_id = id_of(vertex_job(state="JOB_STATE_RUNNING"))
    vertex.script(job_id, step)
    job = custom_jobs(aiplatform).get(name=f"{PARENT}/customJobs/{job_id}").execute()
    assert job["state"] == "JOB_STATE_FAILED" and job["error"]["code"] == code
    assert job["error"]["message"].startswith(message)


def test_cancel_goes_through_cancelling_to_cancelled(aiplatform, vertex, vertex_job):
    job_id = id_of(vertex_job(state="JOB_STATE_RUNNING"))
    vertex.script(job_id, "SUCCEEDED")
    name = f"{PARENT}/customJobs/{job_id}"
    assert custom_jobs(aiplatform).cancel(name=name).execute() == {}
    reads = _states(aiplatform, name, 3)
    assert [r["state"] for r in reads] == ["JOB_STATE_CANCELLING", "JOB_STATE_CANCELLED",
                                           "JOB_STATE_CANCELLED"]
    assert reads[1]["error"] == {"code": 1, "message": "CANCELED"} and "endTime" in reads[1]
    status, error = refusal(custom_jobs(aiplatform).cancel(name=name))
    assert (status, error["status"]) == (400, "FAILED_PRECONDITION")


def test_get_of_a_missing_job(aiplatform, vertex_job):
    job_id = id_of(vertex_job(location="europe-west4"))
    assert refusal(custom_jobs(aiplatform).get(name=f"{PARENT}/customJobs/{job_id}"))[0] == 404
    assert refusal(custom_jobs(aiplatform).get(name=f"{PARENT}/customJobs/1234"))[0] == 404
    status, error = refusal(custom_jobs(aiplatform).get(name=f"{PARENT}/customJobs/train"))
    assert (status, fields(error)) == (400, ["name"])
    assert custom_jobs(aiplatform).get(name=f"projects/{PROJECT_NUMBER}/locations/europe-west4/"
                                        f"customJobs/{job_id}").execute()["displayName"] == "train"


def test_a_tuning_job_reports_its_trials(aiplatform, vertex, vertex_job):
    job_id = id_of(vertex_job("tune", tuning=True))
    vertex.script(job_id, "RUNNING", "SUCCEEDED",
                  Step("SUCCEEDED", trials=[trial("7", {"lr": 0.01}, {"accuracy": 0.9})]))
    name = f"{PARENT}/hyperparameterTuningJobs/{job_id}"
    running, done, given = (tuning_jobs(aiplatform).get(name=name).execute() for _ in range(3))
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
