"""The vertex service's job client (gpujob.services.vertex.jobs over its api module)
against the fake Vertex AI: how jobs read, how users name them, reads, lists, cancels, logs,
tuning jobs' trials."""

from __future__ import annotations

import pytest
from conftest import PROJECT, PROJECT_NUMBER, REGION
from fakes.errors import insufficient_resources, quota_failure
from fakes.faults import Drop, Reply
from fakes.vertex import Step, trial
from vertex_calls import T4, id_of
from vertex_requests import TOKEN, request

from gpujob.errors import RemoteError, UsageError
from gpujob.gcp.session import Session
from gpujob.gcp.settings import GcpSettings
from gpujob.services.base import CreateInterrupted, JobRef
from gpujob.services.vertex import jobs as vertex_jobs


@pytest.fixture
def settings(google) -> GcpSettings:
    return GcpSettings(api_endpoint=google.url, endpoints={"logging": google.url}, region=REGION)


@pytest.fixture
def jobs(settings, key, clock) -> vertex_jobs.VertexJobs:
    return vertex_jobs.client(settings, Session(settings))


# -- how a job reads ---------------------------------------------------------------------------

@pytest.mark.parametrize(("state", "done", "succeeded"), [
    ("JOB_STATE_QUEUED", False, False), ("JOB_STATE_PENDING", False, False),
    ("JOB_STATE_RUNNING", False, False), ("JOB_STATE_CANCELLING", False, False),
    ("JOB_STATE_SUCCEEDED", True, True), ("JOB_STATE_FAILED", True, False),
    ("JOB_STATE_CANCELLED", True, False), ("JOB_STATE_EXPIRED", True, False),
])
def test_states_read_without_their_prefix(state, done, succeeded):
    name = f"projects/{PROJECT_NUMBER}/locations/{REGION}/customJobs/4126800986851246080"
    status = vertex_jobs.status({"name": name, "displayName": "train", "state": state,
                                 "createTime": "2026-11-23T10:00:00Z"})
    assert (status.id, status.state, status.done, status.succeeded) == (
        "4126800986851246080", state.removeprefix("JOB_STATE_"), done, succeeded)
    assert (status.location, status.display_name, status.created, status.summary) == (
        REGION, "train", "2026-11-23T10:00:00Z", ())
    assert status.as_dict()["id"] == "4126800986851246080"


def test_a_job_that_failed_for_capacity_says_what_to_do():
    status = vertex_jobs.status({"name": f"projects/1/locations/{REGION}/customJobs/7",
                                 "state": "JOB_STATE_FAILED",
                                 "error": insufficient_resources(REGION)})
    assert status.message == ("Resources are insufficient in region: us-central1. Please try a "
                              "different region.")
    assert status.hint == ("Vertex AI had too few of these machines or GPUs free in us-central1 "
                           "(capacity, not quota): submit again later, or in another region or "
                           "with another GPU (gpujob gpus --service vertex shows where each is)")


def test_a_job_that_failed_on_quota_names_the_metric():
    status = vertex_jobs.status({"name": f"projects/1/locations/{REGION}/customJobs/7",
                                 "state": "JOB_STATE_FAILED", "error": quota_failure(T4)})
    assert status.hint == (f"the project's quota {T4} in us-central1 is used up: ask for more at "
                           "https://console.cloud.google.com/iam-admin/quotas (filter on that "
                           "metric), or use another region, machine or GPU")


def test_links_and_commands_name_the_region():
    links = vertex_jobs.links("42", PROJECT, REGION)
    assert links.console == ("https://console.cloud.google.com/vertex-ai/locations/us-central1/"
                             "training/42/cpu?project=proj-a")
    assert links.logs == ("https://console.cloud.google.com/logs/query;query=resource.type%3D"
                          "%22ml_job%22%0Aresource.labels.job_id%3D%2242%22?project=proj-a")
    commands = vertex_jobs.commands("42", PROJECT, REGION)
    assert commands.wait == "gpujob wait 42 --service vertex --project proj-a --region us-central1"
    assert commands.follow_logs.endswith("--region us-central1 --follow")


# -- naming a job ------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "ref"), [
    ("4126800986851246080", JobRef("4126800986851246080")),
    ("projects/p/locations/europe-west4/customJobs/12",
     JobRef("12", "p", "europe-west4", "customJobs")),
    ("projects/123/locations/us-east1/hyperparameterTuningJobs/9",
     JobRef("9", "123", "us-east1", "hyperparameterTuningJobs")),
    ("my training run", JobRef("my training run")),
])
def test_a_job_is_named_by_id_resource_name_or_display_name(text, ref):
    assert vertex_jobs.parse_ref(text) == ref


@pytest.mark.parametrize("text", ["projects/p/jobs/j1", "projects/p/locations/r/customJobs/abc",
                                  "", "x" * 129])
def test_what_cannot_name_a_vertex_job_is_a_usage_error(text):
    with pytest.raises(UsageError):
        vertex_jobs.parse_ref(text)


def test_an_id_is_a_custom_jobs_else_a_tuning_jobs(jobs, vertex_job, google):
    custom, tuning = id_of(vertex_job()), id_of(vertex_job("tune", tuning=True))
    assert jobs.resolve(JobRef(custom)) == JobRef(custom, None, REGION, "customJobs")
    assert jobs.resolve(JobRef(tuning)) == JobRef(tuning, None, REGION,
                                                  "hyperparameterTuningJobs")
    assert [c.route for c in google.requests if c.route != "token"] == [
        "customJobs.get", "customJobs.get", "hyperparameterTuningJobs.get"]
    # the job read while resolving is not read again at once
    assert jobs.get(JobRef(tuning))["displayName"] == "tune"
    assert len(google.calls("hyperparameterTuningJobs.get")) == 1


def test_an_unknown_id(jobs, vertex_job):
    vertex_job(location="europe-west4")
    with pytest.raises(RemoteError) as caught:
        jobs.resolve(JobRef("1234"))
    assert caught.value.message == "no Vertex AI job 1234 in project proj-a, region us-central1"
    assert caught.value.hint == ("gpujob list --service vertex --project proj-a --region "
                                 "us-central1 shows its jobs; check --project and --region")


def test_an_id_without_a_region_is_a_usage_error(settings, key, google):
    from dataclasses import replace

    no_region = replace(settings, region=None)
    jobs = vertex_jobs.client(no_region, Session(no_region))
    with pytest.raises(UsageError) as caught:
        jobs.get(JobRef("1234"))
    assert caught.value.message == "which region is Vertex AI job '1234' in?"
    assert "--region REGION (or GPUJOB_REGION)" in caught.value.hint
    assert [r for r in google.requests if r.route != "token"] == []


def test_a_display_name_is_its_newest_job_and_the_others_are_listed(jobs, vertex_job, capsys):
    old = vertex_job("train", "JOB_STATE_SUCCEEDED", created="2026-11-20T10:00:00.000000Z")
    tuning = vertex_job("train", "JOB_STATE_FAILED", tuning=True,
                        created="2026-11-21T10:00:00.000000Z")
    new = vertex_job("train", "JOB_STATE_RUNNING", created="2026-11-22T10:00:00.000000Z")
    vertex_job("other")
    ref = jobs.resolve(JobRef("train"))
    assert ref == JobRef(id_of(new), None, REGION, "customJobs")
    assert capsys.readouterr().err.splitlines() == [
        f"note: 3 jobs are named 'train'; this is the newest, {id_of(new)} (created "
        "2026-11-22T10:00:00.000000Z); the others:",
        f"  {id_of(tuning)}  FAILED  created 2026-11-21T10:00:00.000000Z",
        f"  {id_of(old)}  SUCCEEDED  created 2026-11-20T10:00:00.000000Z"]


def test_a_display_name_is_checked_again_whatever_the_listing_holds(jobs, vertex_job, google,
                                                                    capsys):
    """E03: a listing that ignores the display_name filter (it answers every job of the
    region) must not make the newest job, of another name, the one named."""
    nightly = vertex_job("nightly", "JOB_STATE_RUNNING", created="2026-11-21T10:00:00.000000Z")
    prod = vertex_job("prod-training", "JOB_STATE_RUNNING",
                      created="2026-11-22T10:00:00.000000Z")
    google.inject("customJobs.list", Reply(200, {"customJobs": [prod, nightly]}))
    assert jobs.resolve(JobRef("nightly")) == JobRef(id_of(nightly), None, REGION, "customJobs")
    assert capsys.readouterr().err == ""  # no "2 jobs are named 'nightly'"
    google.inject("customJobs.list", Reply(200, {"customJobs": [prod]}))
    with pytest.raises(RemoteError) as caught:
        jobs.resolve(JobRef("nightly-2"))
    assert caught.value.message == ("no Vertex AI job is named 'nightly-2' in project proj-a, "
                                    "region us-central1")


def test_a_display_name_no_job_has(jobs, vertex_job, google):
    vertex_job("train")
    with pytest.raises(RemoteError) as caught:
        jobs.resolve(JobRef('say "hi"'))
    assert caught.value.message == ("no Vertex AI job is named 'say \"hi\"' in project proj-a, "
                                    "region us-central1")
    assert {c.query["filter"][0] for c in google.calls("customJobs.list")} == {
        'display_name="say \\"hi\\""'}


# -- reads, lists, cancels ---------------------------------------------------------------------

def test_list_merges_both_kinds_newest_first_and_completes_state_names(jobs, vertex_job,
                                                                       google):
    a = vertex_job("a", "JOB_STATE_RUNNING", created="2026-11-20T10:00:00.000000Z")
    b = vertex_job("b", "JOB_STATE_RUNNING", tuning=True, created="2026-11-21T10:00:00.000000Z")
    vertex_job("c", "JOB_STATE_SUCCEEDED", created="2026-11-22T10:00:00.000000Z")
    listed = list(jobs.list("state=RUNNING", None))
    assert [j["name"] for j in listed] == [b["name"], a["name"]]
    assert {c.query["filter"][0] for c in google.calls("customJobs.list")} == {
        'state="JOB_STATE_RUNNING"'}
    assert [j["displayName"] for j in jobs.list(None, 2)] == ["c", "b"]


def test_list_follows_page_tokens(jobs, vertex_job, vertex, google):
    vertex.max_page_size = 2
    for i in range(5):
        vertex_job(f"j{i}", created=f"2026-11-2{i}T10:00:00.000000Z")
    assert [j["displayName"] for j in jobs.list(None, None)] == ["j4", "j3", "j2", "j1", "j0"]
    assert len(google.calls("customJobs.list")) == 3


def test_cancel_then_cancel_again(jobs, vertex_job):
    job_id = id_of(vertex_job(state="JOB_STATE_RUNNING"))
    assert jobs.cancel(JobRef(job_id)) is None
    assert vertex_jobs.status(jobs.get(JobRef(job_id))).state == "CANCELLING"
    assert vertex_jobs.status(jobs.get(JobRef(job_id))).state == "CANCELLED"
    assert jobs.cancel(JobRef(job_id)) == "CANCELLED"


def test_cancelling_a_job_that_ended_is_an_error(jobs, vertex_job):
    job_id = id_of(vertex_job(state="JOB_STATE_SUCCEEDED"))
    with pytest.raises(RemoteError) as caught:
        jobs.cancel(JobRef(job_id))
    assert caught.value.message.startswith(f"cancelling custom job {job_id} failed: 400 "
                                           "FAILED_PRECONDITION: Cannot cancel ")


def test_log_entries_are_the_jobs_with_their_tasks(jobs, vertex_job, vertex, google):
    from gpujob.gcp.logs import format_entry

    job_id = id_of(vertex_job())
    other = id_of(vertex_job("other"))
    vertex.add_log(job_id, "Job is running.", task="service")
    vertex.add_log(job_id, "epoch 1")
    vertex.add_log(other, "not mine")
    lines = [format_entry(e) for e in jobs.log_entries(JobRef(job_id), None)]
    assert [line.split(" ", 2)[2] for line in lines] == ["service: Job is running.",
                                                         "workerpool0-0: epoch 1"]
    (call,) = google.calls("entries.list")
    assert call.body["filter"] == (f'resource.type="ml_job" AND resource.labels.job_id='
                                   f'"{job_id}"')


# -- tuning jobs -------------------------------------------------------------------------------

def test_a_tuning_job_shows_its_trials_and_the_best(jobs, vertex, vertex_job):
    pending = vertex_job("tune", tuning=True)
    assert vertex_jobs.status(pending).summary[:-1] == (
        "trials: none yet (4 to run, 2 at a time)",)
    assert vertex_jobs.status(pending).summary[-1].startswith("cost: nothing yet")
    job_id = id_of(pending)
    vertex.script(job_id, "RUNNING", "SUCCEEDED")
    ref = jobs.resolve(JobRef(job_id))  # reads it: RUNNING
    assert vertex_jobs.status(jobs.get(ref)).summary[:-1] == ("trials: 2 of 4 (2 ACTIVE)",)
    assert vertex_jobs.status(jobs.get(ref)).summary[:-1] == (
        "trials: 4 of 4 (4 SUCCEEDED)",
        "best trial: 4, accuracy=0.8 (lr=0.0802, batch=106, opt=sgd)")


def test_the_best_trial_of_a_study_that_minimizes(jobs, vertex, vertex_job):
    job = vertex_job("tune", tuning=True)
    job["studySpec"]["metrics"][0] = {"metricId": "loss", "goal": "MINIMIZE"}
    vertex.script(id_of(job), Step("SUCCEEDED", trials=[
        trial("1", {"lr": 0.1}, {"loss": 0.5}), trial("2", {"lr": 0.01}, {"loss": 0.2}),
        trial("3", {"lr": 0.001}, None, "INFEASIBLE")]))
    assert vertex_jobs.status(jobs.get(JobRef(id_of(job)))).summary[:-1] == (
        "trials: 3 of 4 (1 INFEASIBLE, 2 SUCCEEDED)", "best trial: 2, loss=0.2 (lr=0.01)")


# -- creates -----------------------------------------------------------------------------------

def test_create_returns_the_job_and_remembers_its_name(jobs, google, vertex):
    from vertex_jobs import custom_job

    made = jobs.create(request(custom_job(), google.url))
    assert not made.recovered
    status = vertex_jobs.status(made.raw)
    assert jobs.resolve(JobRef(status.id)) == JobRef(status.id, None, REGION, "customJobs")
    assert google.calls("customJobs.get") == []  # known from the create's answer


def test_a_trials_log_lines_say_which_trial(jobs, vertex_job, vertex):
    from gpujob.gcp.logs import format_entry

    job_id = id_of(vertex_job("tune", tuning=True))
    vertex.add_log(job_id, "lr=0.01", trial="3")
    (entry,) = jobs.log_entries(JobRef(job_id), None)
    assert format_entry(entry).split(" ", 2)[2] == "workerpool0-0 (trial 3): lr=0.01"


def test_a_full_name_is_read_as_it_is(jobs, vertex_job, google):
    job = vertex_job(location="europe-west4")
    ref = vertex_jobs.parse_ref(job["name"])
    assert jobs.resolve(ref) == ref  # nothing to look up
    assert jobs.get(ref) == job
    (call,) = google.calls("customJobs.get")
    assert call.path == f"/v1/{job['name']}"


@pytest.mark.parametrize(("given", "sent"), [
    ("state=RUNNING", 'state="JOB_STATE_RUNNING"'),
    ('state!="FAILED" AND labels.team=vision', 'state!="JOB_STATE_FAILED" AND labels.team=vision'),
    ('state="JOB_STATE_QUEUED"', 'state="JOB_STATE_QUEUED"'),
    ("labels.state=RUNNING", "labels.state=RUNNING"),
    (None, None),
])
def test_state_names_are_completed_in_filters(given, sent):
    assert vertex_jobs.state_filter(given) == sent


def test_ctrl_c_during_a_create_says_how_to_find_the_job(jobs, google, clock):
    from vertex_jobs import custom_job

    clock.interrupt_at = 1
    google.inject("customJobs.create", Drop())
    with pytest.raises(CreateInterrupted) as caught:
        jobs.create(request(custom_job(), google.url))
    assert caught.value.look == (
        "A job this submission made carries its label: gpujob list --service vertex "
        f"--project {PROJECT} --region {REGION} --filter "
        f"'labels.gpujob-submission=\"{TOKEN}\"'")
