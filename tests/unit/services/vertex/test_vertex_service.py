"""The ``vertex`` service registered: it builds the create request from the checked config's
translation (regional URL, gpujob's submission label), its catalog loads through the registry
(the built-in one, or a user's --catalog), and every command takes --service vertex."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from fakes.discovery import request_violations
from jobs import CONTAINER_JOB

from gpujob import catalog, services
from gpujob.checks.engine import CheckOptions, CommandLine, check_job
from gpujob.config.job import TI
from gpujob.config.load import loads
from gpujob.config.overrides import Override, flag_origin
from gpujob.errors import InvalidConfig, UsageError
from gpujob.gcp.settings import GcpSettings
from gpujob.services.base import Request
from gpujob.services.vertex import catalog as vertex_data
from gpujob.settings import JobOptions

pytestmark = pytest.mark.default_service  # they name their service; the default is not set

HP_JOB = CONTAINER_JOB + """\
  hyperparameters:
    goal: MAXIMIZE
    hyperparameterMetricTag: accuracy
    maxTrials: 4
    params:
      - {parameterName: lr, type: DOUBLE, minValue: 0.001, maxValue: 0.1}
"""
TOKEN = re.compile(r"[0-9]{8}-[0-9]{6}-[0-9]{6}-[0-9a-f]{8}")


def body_of(text: str) -> str:
    return "jobId: my_job_1\n" + text


def request_of(config: str | dict, gcp: GcpSettings | None = None, project: str | None = "p",
               options: JobOptions | None = None, cat: object = None,
               region: str | None = None) -> Request:
    """The request ``submit`` would send for ``config`` (YAML text, or a native body): checked,
    then built from the check's job; ``InvalidConfig`` when the check refuses it. ``region``:
    as ``--region`` gives it."""
    text = json.dumps(config) if isinstance(config, dict) else config
    doc = loads(text.encode("utf-8"), "config.yaml").document
    options = options or JobOptions()
    vertex = services.get("vertex")
    line = CommandLine(overrides=(Override((TI, "region"), region, flag_origin("--region")),)
                       if region else ())
    checked = check_job(doc, CheckOptions(vertex, catalog=cat, job=options, command_line=line))
    if checked.job is None:
        raise InvalidConfig(next(f.message for f in checked.findings if f.is_error))
    return vertex.request(checked.job, gcp or GcpSettings(), project, options)


def test_the_service_is_vertex_ai_custom_training():
    vertex = services.get("vertex")
    assert (vertex.name, vertex.title) == ("vertex", "Vertex AI custom training")
    assert vertex.unsupported_flags == {}


def test_the_request_creates_a_custom_job_in_the_jobs_region():
    request = request_of(body_of(CONTAINER_JOB), project="proj-a")
    assert (request.method, request.noun, request.job_id) == ("POST", "CustomJob", None)
    assert request.url == ("https://us-central1-aiplatform.googleapis.com/v1/projects/proj-a/"
                           "locations/us-central1/customJobs")
    assert list(request.body) == ["displayName", "labels", "jobSpec"]
    assert request.body["displayName"] == "my_job_1"
    assert TOKEN.fullmatch(request.body["labels"]["gpujob-submission"])
    assert request.body["jobSpec"]["workerPoolSpecs"] == [{
        "machineSpec": {"machineType": "n1-highcpu-16", "acceleratorType": "NVIDIA_TESLA_T4",
                        "acceleratorCount": 4},
        "replicaCount": "1",
        "containerSpec": {"imageUri": "gcr.io/p/trainer:1", "args": ["--from-file"]}}]
    assert request_violations("aiplatform.v1", request.body, "projects", "locations",
                              "customJobs", "create") == []


def test_every_request_has_a_submission_label_of_its_own_beside_the_jobs_labels():
    body = body_of(CONTAINER_JOB + "labels: {team: vision}\n")
    first = request_of(body).body["labels"]
    second = request_of(body).body["labels"]
    assert first["team"] == second["team"] == "vision"
    assert first["gpujob-submission"] != second["gpujob-submission"]
    for token in (first["gpujob-submission"], second["gpujob-submission"]):
        assert len(token) <= 63 and re.fullmatch(r"[a-z0-9_-]+", token)
    assert "gpujob-submission" not in body  # the config is left alone


def test_a_tuning_job_goes_to_hyperparameter_tuning_jobs_and_the_endpoint_can_be_replaced():
    gcp = GcpSettings(api_endpoint="http://127.0.0.1:8123")
    request = request_of(body_of(HP_JOB), gcp, None)
    assert request.noun == "HyperparameterTuningJob"
    assert request.url == ("http://127.0.0.1:8123/v1/projects/PROJECT/locations/us-central1/"
                           "hyperparameterTuningJobs")
    assert request_violations("aiplatform.v1", request.body, "projects", "locations",
                              "hyperparameterTuningJobs", "create") == []


def test_the_request_uses_the_executor_image_and_catalog_given(tmp_path):
    runtime = CONTAINER_JOB.replace("    imageUri: gcr.io/p/trainer:1\n", "").replace(
        "  args:", "  runtimeVersion: '2.11'\n  packageUris: [gs://b/t.tar.gz]\n"
        "  pythonModule: trainer.task\n  args:")
    with pytest.raises(InvalidConfig, match="end of availability"):
        request_of(body_of(runtime))
    options = JobOptions(executor_image_uri="python:3.11")
    spec = request_of(body_of(runtime), options=options).body["jobSpec"]
    assert spec["workerPoolSpecs"][0]["containerSpec"]["imageUri"] == "python:3.11"

    def available(data):  # TensorFlow 2.11's images, usable for longer
        for image in data["prebuilt_images"]["images"].values():
            if image["version"] == "2.11":
                image["end_of_availability"] = "2099-01-01"

    later = catalog.load("vertex", str(vertex_catalog(tmp_path, available)))
    spec = request_of(body_of(runtime), cat=later).body["jobSpec"]
    assert spec["workerPoolSpecs"][0]["pythonPackageSpec"]["executorImageUri"] == (
        "us-docker.pkg.dev/vertex-ai/training/tf-gpu.2-11:latest")


def test_a_native_body_is_sent_in_gclouds_order():
    pools = [{"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1",
              "containerSpec": {"imageUri": "gcr.io/p/trainer:1"}}]
    body = {"jobSpec": {"workerPoolSpecs": pools},
            "encryptionSpec": {"kmsKeyName": "projects/p/locations/us-central1/keyRings/r/"
                                             "cryptoKeys/k"},
            "displayName": "train"}
    request = request_of(body, region="europe-west4")
    assert list(request.body) == ["displayName", "labels", "encryptionSpec", "jobSpec"]
    assert request.url.endswith("/v1/projects/p/locations/europe-west4/customJobs")


def test_a_job_without_a_region_has_no_request():
    with pytest.raises(UsageError, match="no region for the job"):
        request_of(body_of(CONTAINER_JOB.replace("  region: us-central1\n", "")))


def test_a_native_job_without_a_region_is_told_to_pass_one():
    body = {"displayName": "train", "jobSpec": {"workerPoolSpecs": [{
        "machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1",
        "containerSpec": {"imageUri": "gcr.io/p/trainer:1"}}]}}
    with pytest.raises(UsageError) as caught:
        request_of(body)
    assert (caught.value.message, caught.value.hint) == (
        "no region for the job", "pass --region REGION (or set GPUJOB_REGION): a native Vertex "
        "config does not name its region")


# -- the catalog ---------------------------------------------------------------------------------

def test_the_catalog_registry_loads_the_vertex_catalog():
    assert "vertex" in services.SERVICES
    assert catalog.load("vertex") is catalog.load("vertex")  # the built-in one: read once
    assert catalog.load("vertex").accepts("g2-standard-4", "NVIDIA_L4", 1)
    assert catalog.data_file("vertex") == Path(vertex_data.__file__).parent / "catalog.json"


def vertex_catalog(tmp_path: Path, edit) -> Path:
    data = json.loads(catalog.data_file("vertex").read_text(encoding="utf-8"))
    edit(data)
    path = tmp_path / "vertex-catalog.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_catalog_flag_reads_a_vertex_catalog_for_the_vertex_service(cli, write, tmp_path):
    config = write(CONTAINER_JOB)
    assert cli("validate", "--service", "vertex", config).code == 0
    fewer = vertex_catalog(tmp_path, lambda d: d["training_regions"]["regions"].remove(
        "us-central1"))
    assert catalog.load("vertex", str(fewer)).is_training_region("us-central1") is False
    result = cli("validate", "--service", "vertex", "--catalog", fewer, config)
    assert result.code == 1
    assert ("config.yaml:3:11: trainingInput.region: 'us-central1' is not a region Vertex AI "
            "custom training runs in [vertex.region]") in result.out


def test_a_catalog_of_another_service_is_refused(cli, write, user_catalog):
    ai_platform = user_catalog(lambda d: None)
    result = cli("validate", "--service", "vertex", "--catalog", ai_platform, write(CONTAINER_JOB))
    assert result.code == 2
    assert f"error: --catalog {ai_platform} is the catalog of service 'ai-platform', not of " \
           "'vertex'" in result.err
    assert ("hint: pass a catalog of vertex (`gpujob gpus --service vertex --export-catalog` "
            "prints the built-in one)") in result.err


def test_a_broken_vertex_catalog_is_one_usage_error(cli, write, tmp_path):
    broken = vertex_catalog(tmp_path, lambda d: d.pop("zones"))
    result = cli("validate", "--service", "vertex", "--catalog", broken, write(CONTAINER_JOB),
                 write(CONTAINER_JOB, "other.yaml"))
    assert result.code == 2
    assert result.err.count("is not a valid Vertex catalog") == 1
    assert "missing required key 'zones' [schema.required]" in result.err


# -- the command line ----------------------------------------------------------------------------

@pytest.mark.parametrize("command", [["validate"], ["submit", "--dry-run"], ["rules"],
                                     ["submit", "--dry-run", "--project", "p"]])
def test_the_commands_take_vertex_from_the_flag_and_the_environment(cli, write, command):
    args = [command[0], *([write(CONTAINER_JOB)] if command[0] != "rules" else []),
            *command[1:]]
    by_flag = cli(*args, "--service", "vertex")
    by_env = cli(*args, env={"GPUJOB_SERVICE": "vertex"})
    assert by_flag.code == by_env.code == 0, by_flag.err
    strip = re.compile(r'"gpujob-submission": "[^"]+"|_[0-9]{8}_[0-9]{6}_[0-9]{3}_[0-9a-f]{6}')
    assert strip.sub("…", by_flag.out) == strip.sub("…", by_env.out)
    if command[0] == "submit":
        assert "would POST this CustomJob to https://us-central1-aiplatform" in by_flag.err


def test_executor_image_uri_is_vertex_only(cli, write):
    config = write(CONTAINER_JOB)
    for command in (["validate", config], ["submit", config, "--dry-run"]):
        result = cli(*command, "--service", "ai-platform", "--executor-image-uri", "python:3")
        assert result.code == 2
        assert ("error: --executor-image-uri is not supported by the ai-platform service (AI "
                "Platform Training)") in result.err


@pytest.mark.parametrize("command", [["validate"], ["submit", "--dry-run"], ["local"]])
def test_strategy_is_vertex_only(cli, write, command):
    result = cli(command[0], write(CONTAINER_JOB), *command[1:], "--service", "ai-platform",
                 "--strategy", "SPOT")
    assert (result.code, result.out) == (2, "")
    assert result.err == ("error: --strategy is not supported by the ai-platform service (AI "
                          "Platform Training): AI Platform has no scheduling strategy; submit "
                          "to Vertex AI (--service vertex, the default)\n  hint: leave it out, "
                          "or choose another service with --service\n")
