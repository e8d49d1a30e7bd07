"""``gpujob submit --service vertex`` against the fake Vertex AI: one create whatever the network
does, access checked before anything is built or uploaded, the service's refusals as one line
pointing at the config, and what is printed after a submit."""

from __future__ import annotations

import json

import pytest
from conftest import ACCOUNT, PROJECT, PROJECT_NUMBER, REGION
from fakes.errors import field_violations, rate_limited, unavailable, vertex_quota_exceeded
from fakes.faults import Drop, Reply
from jobs import RUNTIME_JOB_WITHOUT_PACKAGES
from vertex_calls import T4
from vertex_native_configs import SPEC

VERTEX = ("--service", "vertex")
IMAGE = "us-docker.pkg.dev/proj-a/images/python:3.11"  # any image with Python


def _job(vertex):
    (job,) = vertex.jobs.values()
    return job


def _id(job) -> str:
    return job["name"].rsplit("/", 1)[1]


def test_submit_is_a_token_and_one_create_and_says_what_next(cli, google, key, config, vertex,
                                                             clock):
    dry = cli("submit", config, *VERTEX, "--job-id", "j1", "--dry-run", "--project", PROJECT)
    result = cli("submit", config, *VERTEX, "--job-id", "j1")
    assert result.code == 0, result.err
    (create,) = google.calls("customJobs.create")
    sent, shown = create.body, json.loads(dry.out)
    assert sent["labels"].pop("gpujob-submission") != shown["labels"].pop("gpujob-submission")
    assert sent == shown  # the dry-run's body, but for the submission's own label
    # nothing to upload: no access check, the create is the only request (issue 20)
    assert [r.route for r in google.requests] == ["token", "customJobs.create"]
    job = _job(vertex)
    job_id = job["name"].rsplit("/", 1)[1]
    assert result.out == f"{job_id}\n"
    # what it costs an hour and at most, before the create (as the dry-run says it)
    said = [line for line in dry.err.splitlines() if line.startswith(("cost:", "worst case:"))]
    assert said[0] == ("cost: $2.26/hour on-demand in us-central1 (1 × n1-highcpu-16 with 4 × "
                       "NVIDIA_TESLA_T4); Spot $1.16/hour, flex-start no price")
    assert result.err.splitlines() == [
        *said,
        f"Job [{job_id}] (j1) submitted to project [{PROJECT}], region [{REGION}]; state: "
        "PENDING.",
        f"  console: https://console.cloud.google.com/vertex-ai/locations/{REGION}/training/"
        f"{job_id}/cpu?project={PROJECT}",
        "  logs:    https://console.cloud.google.com/logs/query;query=resource.type%3D%22ml_job"
        f"%22%0Aresource.labels.job_id%3D%22{job_id}%22?project={PROJECT}",
        "Follow it with:",
        f"  gpujob describe {job_id} --service vertex --project {PROJECT} --region {REGION}",
        f"  gpujob wait {job_id} --service vertex --project {PROJECT} --region {REGION}",
        f"  gpujob logs {job_id} --service vertex --project {PROJECT} --region {REGION} "
        "--follow"]


def test_503_then_429_then_success_is_one_job(cli, google, key, config, vertex, clock):
    google.inject("customJobs.create", Reply(503, unavailable()),
                  Reply(429, rate_limited(), {"Retry-After": "7"}))
    result = cli("submit", config, *VERTEX)
    assert result.code == 0, result.err
    assert len(vertex.jobs) == 1 and len(google.calls("customJobs.create")) == 3
    assert clock.sleeps == [0.75, 7.0]
    assert "retrying in 7.0 s unless the job turns out to have been made (attempt 3 of 5)" \
        in result.err


@pytest.mark.parametrize("fault", [Drop(), Reply(503, unavailable(), handled=True)],
                         ids=["lost answer", "error after the job was made"])
def test_a_create_whose_answer_was_lost_is_one_job_and_exit_0(cli, google, key, config, vertex,
                                                              clock, fault):
    google.inject("customJobs.create", fault)
    result = cli("submit", config, *VERTEX, "--format", "json")
    assert result.code == 0, result.err
    assert len(vertex.jobs) == 1 and len(google.calls("customJobs.create")) == 1
    job_id = _job(vertex)["name"].rsplit("/", 1)[1]
    assert (f"note: job {job_id} was already created by an earlier attempt of this submission "
            "whose answer was lost; it was not submitted twice") in result.err.splitlines()
    assert json.loads(result.out)["job"]["id"] == job_id


def test_a_disabled_api_fails_before_anything_is_built_or_uploaded(cli, google, key, gcs,
                                                                     write, trainer, vertex):
    vertex.disabled = True
    config = write(RUNTIME_JOB_WITHOUT_PACKAGES)
    result = cli("submit", config, *VERTEX, "--package-path", trainer(),
                 "--executor-image-uri", IMAGE, "--staging-bucket", f"gs://{gcs.bucket}")
    assert result.code == 3
    errors = [line for line in result.err.splitlines() if line.startswith("error:")]
    assert errors == [
        f"error: checking access to Vertex AI in project {PROJECT}, region {REGION} failed: 403 "
        f"PERMISSION_DENIED: Vertex AI API has not been used in project {PROJECT_NUMBER} before "
        "or it is disabled. Enable it by visiting https://console.developers.google.com/apis/api"
        f"/aiplatform.googleapis.com/overview?project={PROJECT_NUMBER} then retry. If you "
        "enabled this API recently, wait a few minutes for the action to propagate to our "
        "systems and retry."]
    assert ("  hint: enable the API: gcloud services enable aiplatform.googleapis.com --project "
            f"{PROJECT}") in result.err
    assert "Built " not in result.err  # nothing was built
    assert gcs.emulator.objects(gcs.bucket) == {} and gcs.requests() == []
    assert google.calls("customJobs.create") == []


@pytest.mark.slow
def test_a_package_job_is_staged_then_created(cli, google, key, gcs, write, trainer, vertex,
                                              offline_builds, clock):
    config = write(RUNTIME_JOB_WITHOUT_PACKAGES)
    result = cli("submit", config, *VERTEX, "--package-path", trainer(),
                 "--executor-image-uri", IMAGE, "--staging-bucket", f"gs://{gcs.bucket}")
    assert result.code == 0, result.err
    (pool,) = google.calls("customJobs.create")[0].body["jobSpec"]["workerPoolSpecs"]
    (staged,) = gcs.emulator.objects(gcs.bucket)  # installed from /gcs/BUCKET/NAME by the image
    assert f"/gcs/{gcs.bucket}/{staged} " in pool["containerSpec"]["command"][2]
    assert [r.route for r in google.requests if r.route != "token"] == [
        "customJobs.list", "customJobs.create"]


def test_field_violations_name_the_configs_line(cli, google, key, write, vertex, clock):
    config = write("trainingInput:\n"
                   "  scaleTier: CUSTOM\n"
                   "  region: us-central1\n"
                   "  masterType: n1-standard-8\n"
                   "  masterConfig:\n"
                   "    imageUri: us-docker.pkg.dev/p/t/trainer:1\n"
                   "    acceleratorConfig:\n"
                   "      count: 1\n"
                   "      type: NVIDIA_TESLA_T4\n")
    google.inject("customJobs.create", Reply(400, field_violations([
        ("job_spec.worker_pool_specs[0].machine_spec.accelerator_type",
         "Accelerator NVIDIA_TESLA_T4 is not supported in region us-central1.")])))
    result = cli("submit", config, *VERTEX, "--job-id", "j1")
    assert result.code == 3
    assert result.err.splitlines()[-2:] == [
        "error: submitting custom job j1 failed: the service refused a value of the config: "
        f"{config}:9:13: trainingInput.masterConfig.acceleratorConfig.type: Accelerator "
        "NVIDIA_TESLA_T4 is not supported in region us-central1",
        "  hint: fix it in the config, or with the flag that set it (the service named "
        "job_spec.worker_pool_specs[0].machine_spec.accelerator_type; gpujob submit --dry-run "
        "--service vertex prints the body gpujob sends)"]
    assert vertex.jobs == {}


def test_a_value_set_by_a_flag_is_named_by_its_flag(cli, google, key, config, vertex, clock):
    google.inject("customJobs.create", Reply(400, field_violations([
        ("job_spec.worker_pool_specs[0].machine_spec.machine_type",
         "Machine type n1-highcpu-16 is not supported.")])))
    result = cli("submit", config, *VERTEX, "--master-machine-type", "n1-highcpu-16")
    assert result.code == 3
    assert ("the service refused a value of the config: command line (--master-machine-type): "
            "trainingInput.masterType: Machine type n1-highcpu-16 is not supported") in result.err


def test_an_ai_platform_config_is_created_under_its_display_name(cli, google, key, config,
                                                                  vertex, clock):
    """--display-name names the job on Vertex AI (hyphens allowed), and it is how gpujob then
    shows it; the jobId is not sent."""
    result = cli("submit", config, *VERTEX, "--job-id", "j1", "--display-name", "nightly-run")
    assert result.code == 0, result.err
    (create,) = google.calls("customJobs.create")
    assert create.body["displayName"] == "nightly-run"
    assert _job(vertex)["displayName"] == "nightly-run"
    assert "(nightly-run) submitted to project" in result.err.splitlines()[2]  # after the costs


def test_a_quota_is_one_line_naming_metric_and_region(cli, google, key, config, vertex, clock):
    google.inject("customJobs.create", Reply(429, vertex_quota_exceeded(T4, REGION, limit=0)))
    result = cli("submit", config, *VERTEX, "--job-id", "j1")
    assert result.code == 3
    assert result.err.splitlines()[-2:] == [
        "error: submitting custom job j1 failed: quota exhausted: 429 RESOURCE_EXHAUSTED: The "
        f"following quota metrics exceed quota limits: {T4}",
        f"  hint: the project's quota {T4} in us-central1 is used up (limit 0): ask for more at "
        "https://console.cloud.google.com/iam-admin/quotas (filter on that metric), or use "
        "another region, machine or GPU"]
    assert len(google.calls("customJobs.create")) == 1


def test_a_missing_permission_names_the_role_and_who(cli, google, key, config, vertex, clock):
    vertex.deny("aiplatform.customJobs.create")
    result = cli("submit", config, *VERTEX)
    assert result.code == 3
    assert result.err.splitlines()[-1] == (
        f"  hint: {ACCOUNT} needs the aiplatform.customJobs.create permission on project "
        f"{PROJECT}, for example through the roles/aiplatform.user role")


def test_a_tuning_job_is_created_as_one(cli, google, key, write, vertex, clock):
    from jobs import CONTAINER_JOB

    config = write(CONTAINER_JOB + "  hyperparameters:\n"
                                   "    goal: MAXIMIZE\n"
                                   "    hyperparameterMetricTag: accuracy\n"
                                   "    maxTrials: 4\n"
                                   "    params:\n"
                                   "      - {parameterName: lr, type: DOUBLE, minValue: 0.001, "
                                   "maxValue: 0.1}\n")
    google.inject("hyperparameterTuningJobs.create", Drop())
    result = cli("submit", config, *VERTEX, "--job-id", "tune1")
    assert result.code == 0, result.err
    assert [r.route for r in google.requests if r.route != "token"] == [
        "hyperparameterTuningJobs.create", "hyperparameterTuningJobs.list"]
    job = _job(vertex)
    assert "/hyperparameterTuningJobs/" in job["name"] and job["maxTrialCount"] == 4
    assert f"Job [{_id(job)}] (tune1) submitted to project" in result.err


def test_a_job_that_does_not_exist(cli, google, key, vertex_job):
    name = f"projects/{PROJECT}/locations/{REGION}/customJobs/1234"
    result = cli("describe", name, *VERTEX)
    assert result.code == 3
    assert result.err.splitlines() == [
        f"error: reading custom job 1234 failed: 404 NOT_FOUND: The CustomJob {name} does not "
        "exist.",
        f"  hint: no custom job 1234 in project {PROJECT}, region {REGION}; gpujob list "
        f"--service vertex --region {REGION} --project {PROJECT} shows its jobs"]


def test_a_missing_staging_location_is_said_before_the_access_check(cli, google, key, write,
                                                                      trainer, vertex):
    vertex.disabled = True
    config = write(RUNTIME_JOB_WITHOUT_PACKAGES)
    result = cli("submit", config, *VERTEX, "--package-path", trainer(),
                 "--executor-image-uri", IMAGE)
    assert result.code == 2
    assert [r.route for r in google.requests] == []


def test_a_native_config_is_created_once_in_its_region(
        cli, google, key, write, vertex, clock):
    spec = write(SPEC, "train-t4.yaml")
    google.inject("customJobs.create", Reply(503, unavailable(), handled=True))
    result = cli("submit", spec, *VERTEX, "--region", "europe-west4")
    assert result.code == 0, result.err
    (create,) = google.calls("customJobs.create")
    (look_up,) = google.calls("customJobs.list")  # was the job made? (no access check before)
    assert create.path == look_up.path == f"/v1/projects/{PROJECT}/locations/europe-west4/" \
                                          "customJobs"
    job = _job(vertex)
    assert "/locations/europe-west4/customJobs/" in job["name"]
    assert f"Job [{_id(job)}] (train-t4) submitted to project [{PROJECT}], region " \
           "[europe-west4]" in result.err


def test_list_without_a_region_asks_for_one(cli, google, key):
    result = cli("list", *VERTEX, "--project", PROJECT)
    assert result.code == 2
    assert result.err.splitlines() == [
        "error: Vertex AI lists jobs region by region: which region?",
        "  hint: give --region REGION (or GPUJOB_REGION)"]
    assert [r.route for r in google.requests if r.route != "token"] == []


@pytest.mark.parametrize("preflight_on", [False, True], ids=["no preflight", "preflight"])
def test_no_access_token_says_nothing_was_sent(cli, google, config, vertex, clock, tmp_path,
                                               monkeypatch, preflight_on):
    """A token endpoint that cannot be reached (offline, a broken proxy): the create never left,
    yet gpujob said the job may have been made and not to submit again (newcomer M3)."""
    import socket

    from conftest import CPUS
    from fakes.keys import service_account_key

    with socket.socket() as closed:  # a port on 127.0.0.1 that refuses connections
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    made = service_account_key(ACCOUNT, PROJECT, f"http://127.0.0.1:{port}/token")
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", made.write(tmp_path / "sa.json"))
    if preflight_on:
        monkeypatch.delenv("GPUJOB_NO_PREFLIGHT")
        google.quota.set(CPUS, {}, default=-1)
    result = cli("submit", config, *VERTEX, "--max-attempts", "2")
    assert result.code == 3 and result.out == ""
    assert google.requests == [] and vertex.jobs == {}
    error, hint = result.err.splitlines()[-2:]
    assert error.startswith("error: submitting custom job ")
    assert (f"failed: no access token could be obtained, so nothing was sent: "
            f"http://127.0.0.1:{port}/token: [Errno 111] Connection refused (gave up after 2 "
            "attempts)") in error
    assert hint == ("  hint: check the network between this machine and the token endpoint "
                    "(and any proxy: HTTPS_PROXY), and the credentials (gcloud auth "
                    "application-default login, GOOGLE_APPLICATION_CREDENTIALS or "
                    "--credentials-file); nothing was sent, so running the command again is "
                    "safe")
    assert "may have" not in result.err and "do not submit again" not in result.err
    assert "unless the job turns out to have been made" not in result.err
