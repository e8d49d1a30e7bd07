"""Following Vertex AI jobs from the command line: every command by ID, resource name and display
name, the region, tuning jobs' trials, how jobs end, and no token in any output."""

from __future__ import annotations

import pytest
from conftest import PROJECT, PROJECT_NUMBER, REGION
from fakes.errors import insufficient_resources, unavailable
from fakes.faults import Reply
from fakes.vertex import Step

VERTEX = ("--service", "vertex")


def _id(job) -> str:
    return job["name"].rsplit("/", 1)[1]


@pytest.mark.parametrize("how", ["id", "resource name", "display name"])
def test_every_command_takes_every_name(cli, google, key, vertex, vertex_job, clock, how):
    job = vertex_job("nightly", "JOB_STATE_RUNNING")
    job_id = _id(job)
    name = {"id": job_id, "resource name": job["name"], "display name": "nightly"}[how]
    region = () if how == "resource name" else ("--region", REGION)
    project = PROJECT_NUMBER if how == "resource name" else PROJECT  # as the name gives it
    vertex.add_log(job_id, "epoch 1")
    described = cli("describe", name, *VERTEX, *region)
    assert described.code == 0, described.err
    assert f"training/{job_id}/cpu?project={project}" in described.err
    logs = cli("logs", name, *VERTEX, *region)
    assert logs.code == 0 and logs.out.endswith(" INFO workerpool0-0: epoch 1\n")
    cancelled = cli("cancel", name, *VERTEX, *region)
    assert cancelled.code == 0, cancelled.err
    assert cancelled.err.splitlines() == [
        f"Cancellation of job [{job_id}] requested; it ends CANCELLED shortly.",
        f"  gpujob wait {job_id} --service vertex --project {project} --region {REGION}"]
    waited = cli("wait", name, *VERTEX, *region)
    assert waited.code == 4
    assert waited.err.splitlines()[-3].startswith("cost: about $")  # (what it ran, issue 31)
    assert [line for line in waited.err.splitlines() if not line.startswith("cost:")][-3:] == [
        f"job {job_id}: CANCELLED",
        f"error: job {job_id} ended CANCELLED: CANCELED",
        f"  hint: gpujob logs {job_id} --service vertex --project {project} --region {REGION} "
        "shows what it wrote"]
    assert {c.path.split("/")[5] for c in google.calls("customJobs.get")} == {REGION}


def test_a_resource_name_in_another_project_and_region(cli, google, key, vertex, vertex_job):
    google.add_project("proj-b", "222")
    job = vertex_job(location="europe-west4", project="proj-b")
    result = cli("describe", job["name"], *VERTEX, "--region", REGION)
    assert result.code == 0, result.err
    (call,) = google.calls("customJobs.get")
    assert call.path == f"/v1/projects/222/locations/europe-west4/customJobs/{_id(job)}"
    assert "locations/europe-west4/training/" in result.err and "project=222" in result.err


def test_a_job_id_without_a_region_is_a_usage_error(cli, google):
    """Said before credentials are looked for (there are none here)."""
    result = cli("describe", "1234", *VERTEX)
    assert result.code == 2
    assert result.err.splitlines() == [
        "error: which region is Vertex AI job '1234' in?",
        "  hint: give --region REGION (or GPUJOB_REGION), or the job's full name "
        "projects/PROJECT/locations/REGION/customJobs/ID"]
    assert [r.route for r in google.requests if r.route != "token"] == []


def test_list_shows_names_and_needs_a_region(cli, google, key, vertex_job):
    job = vertex_job("nightly", "JOB_STATE_SUCCEEDED")
    result = cli("list", *VERTEX, "--region", REGION)
    assert result.code == 0, result.err
    assert [line.split() for line in result.out.splitlines()] == [
        ["JOB_ID", "STATE", "CREATED", "COST", "NAME"],
        [_id(job), "SUCCEEDED", job["createTime"], "-", "nightly"]]  # (it never ran)
    assert cli("list", *VERTEX).code == 2


def test_list_by_label_and_display_name(cli, google, key, vertex_job):
    vertex_job("a", labels={"team": "vision"})
    b = vertex_job("b", labels={"team": "audio"})
    result = cli("list", *VERTEX, "--region", REGION, "--filter",
                 'labels.team=audio AND display_name="b"', "--format", "json")
    assert result.code == 0, result.err
    import json

    assert [e["job"]["id"] for e in json.loads(result.out)["jobs"]] == [_id(b)]


@pytest.mark.parametrize(("end", "error", "code", "hint"), [
    ("SUCCEEDED", None, 0, None),
    ("EXPIRED", None, 4, "gpujob logs"),
    ("FAILED", insufficient_resources(REGION), 4,
     "Vertex AI had too few of these machines or GPUs free in us-central1"),
])
def test_wait_exit_codes(cli, key, vertex, vertex_job, clock, end, error, code, hint):
    job_id = _id(vertex_job(state="JOB_STATE_RUNNING"))
    vertex.script(job_id, "RUNNING", Step(end, error=error))
    result = cli("wait", job_id, *VERTEX, "--region", REGION)
    assert result.code == code, result.err
    if hint:
        assert result.err.splitlines()[-1].startswith(f"  hint: {hint}")


def test_a_tuning_job_shows_its_trials_and_the_best(cli, key, vertex, vertex_job, clock):
    job_id = _id(vertex_job("tune", tuning=True))
    vertex.script(job_id, "RUNNING", "SUCCEEDED")
    described = cli("describe", job_id, *VERTEX, "--region", REGION)
    assert described.err.splitlines()[-2] == "trials: 2 of 4 (2 ACTIVE)"
    assert described.err.splitlines()[-1].startswith("cost: about $")  # its trials' run time
    waited = cli("wait", job_id, *VERTEX, "--region", REGION)
    assert waited.code == 0, waited.err
    assert waited.err.splitlines()[-3:-1] == [
        "trials: 4 of 4 (4 SUCCEEDED)",
        "best trial: 4, accuracy=0.8 (lr=0.0802, batch=106, opt=sgd)"]


@pytest.mark.parametrize("env", [{}, {"GPUJOB_DEBUG": "1"}])
def test_no_token_in_any_output(cli, google, key, config, vertex, vertex_job, clock, leaked,
                                env):
    google.inject("customJobs.create", Reply(503, unavailable()))
    runs = [cli("submit", config, *VERTEX, "--verbose", env=env)]
    job_id = _id(next(iter(vertex.jobs.values())))
    vertex.add_log(job_id, "epoch 1")
    for command in (("describe",), ("logs",), ("wait", "--timeout", "10"), ("cancel",)):
        runs.append(cli(command[0], job_id, *command[1:], *VERTEX, "--region", REGION,
                        "--verbose", env=env))
    google.inject("customJobs.get", *[Reply(500, unavailable())] * 5)
    runs.append(cli("describe", job_id, *VERTEX, "--region", REGION, "--verbose", env=env))
    assert [r.code for r in runs] == [0, 0, 0, 3, 0, 3]  # wait: --timeout; then the 500s
    text = "".join(r.out + r.err for r in runs)
    assert leaked(text) == [] and google.issued
    assert f"> POST {google.url}v1/projects/{PROJECT}/locations/{REGION}/customJobs" in text
    assert ("Traceback" in text) == bool(env)
    assert PROJECT_NUMBER in text


def test_list_in_a_misspelt_region_guesses_a_region_that_trains(cli, google, key, monkeypatch):
    """us-centrall: spelt closest to us-central2, an address where Vertex AI runs no training;
    the guess is us-central1, and nothing is sent."""
    monkeypatch.delenv("GPUJOB_API_ENDPOINT")
    result = cli("list", *VERTEX, "--region", "us-centrall")
    assert result.code == 3
    assert result.err.splitlines()[:2] == [
        "error: Vertex AI has no endpoint in region 'us-centrall' "
        "(https://us-centrall-aiplatform.googleapis.com/ is not one of its addresses)",
        "  hint: did you mean us-central1? check the region (trainingInput.region, or --region); "
        "gpujob gpus --service vertex lists the regions that train"]
    assert [r.route for r in google.requests if r.route != "token"] == []


def test_a_misspelt_region_is_guessed_with_an_endpoint_override_too(cli, google, key):
    """GPUJOB_API_ENDPOINT (set here: the fake) stands in for the region's address, but the
    region is still in every request's path: a typo is refused before anything is sent."""
    result = cli("list", *VERTEX, "--region", "us-centrall")
    assert result.code == 3
    assert result.err.splitlines()[:2] == [
        "error: Vertex AI has no region 'us-centrall'",
        "  hint: did you mean us-central1? check the region (trainingInput.region, or --region); "
        "gpujob gpus --service vertex lists the regions that train"]
    assert [r.route for r in google.requests if r.route != "token"] == []
    # a region gpujob does not know, and nothing like one: sent, for the endpoint to judge
    unknown = cli("list", *VERTEX, "--region", "mars-north9")
    assert "does not offer training in mars-north9" in unknown.err  # the fake's answer
    assert any("/locations/mars-north9/" in r.path for r in google.requests)
