"""``gpujob submit --dry-run --service vertex``: the method and regional URL on stderr with the
translation's notes and warnings at their file:line:col, the CustomJob (or
HyperparameterTuningJob) body on stdout, accepted by the aiplatform v1 discovery document that
google-api-python-client bundles (every field and type, strict encodings); a config Vertex
cannot run exits 1 with no body and says why."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from fakes.discovery import request_violations
from jobs import CONTAINER_JOB

pytestmark = pytest.mark.default_service  # they name their service; the default is not set

ROOT = Path(__file__).resolve().parents[3]
CONFIGS = sorted((ROOT / "configs").glob("*.yaml"))
SEEDS = ROOT / "tests" / "seeds"  # package jobs, as AI Platform had them
PYTORCH = "pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime"
URL = "https://{region}-aiplatform.googleapis.com/v1/projects/{project}/locations/{region}/{what}"
LABEL = re.compile(r"[0-9]{8}-[0-9]{6}-[0-9]{6}-[0-9a-f]{8}")


def dry_run(cli, config, *flags: str):
    return cli("submit", str(config), "--dry-run", "--service", "vertex", *flags)


def accepted(body: dict, collection: str) -> list:
    """The body against the create method of the bundled discovery document, plus Vertex's rule
    that every pool runs exactly one kind of code."""
    found = request_violations("aiplatform.v1", body, "projects", "locations", collection,
                               "create")
    spec = body.get("jobSpec") or body.get("trialJobSpec")
    for i, pool in enumerate(spec["workerPoolSpecs"]):
        if pool and ("containerSpec" in pool) == ("pythonPackageSpec" in pool):
            found.append((f"workerPoolSpecs[{i}]", "needs exactly one kind of code"))
    return found


def pools(body: dict) -> list[tuple]:
    spec = body.get("jobSpec") or body["trialJobSpec"]
    return [(p["machineSpec"]["machineType"], p["machineSpec"].get("acceleratorType"),
             p["machineSpec"].get("acceleratorCount"), p["replicaCount"]) if p else ()
            for p in spec["workerPoolSpecs"]]


def test_method_and_url_on_stderr_body_on_stdout(cli, write):
    result = dry_run(cli, write(CONTAINER_JOB), "--project", "proj-a", "--job-id", "j1")
    assert result.code == 0, result.err
    first, cost, worst, prices = result.err.splitlines()
    assert first == (
        "Dry run: would POST this CustomJob to "
        + URL.format(region="us-central1", project="proj-a", what="customJobs")
        + " (nothing sent)")
    assert cost.startswith("cost: $2.26/hour on-demand in us-central1 (1 × n1-highcpu-16 with "
                           "4 × NVIDIA_TESLA_T4)")
    assert worst == ("worst case: at most $379.98, if it runs until its timeout of 7 days "
                     "(Vertex AI's default: the job sets none)")
    assert prices.startswith("prices: Vertex AI list prices in USD as of 2026-05-20 (")
    body = json.loads(result.out)
    assert body["displayName"] == "j1"
    assert LABEL.fullmatch(body["labels"]["gpujob-submission"])
    assert accepted(body, "customJobs") == []


def test_without_a_project_the_url_says_project(cli, write):
    result = dry_run(cli, write(CONTAINER_JOB))
    assert result.code == 0
    assert ("would POST this CustomJob to https://us-central1-aiplatform.googleapis.com/v1/"
            "projects/PROJECT/locations/us-central1/customJobs (nothing sent); no project given "
            "(--project or GPUJOB_PROJECT)") in result.err


def test_a_tuning_job_goes_to_hyperparameter_tuning_jobs(cli):
    result = dry_run(cli, SEEDS / "hyperparameter-tuning.yaml", "--project", "p",
                     "--executor-image-uri", PYTORCH)
    assert result.code == 0, result.err
    assert ("Dry run: would POST this HyperparameterTuningJob to "
            + URL.format(region="us-central1", project="p", what="hyperparameterTuningJobs")
            + " (nothing sent)") in result.err
    body = json.loads(result.out)
    assert body["studySpec"]["metrics"] == [{"metricId": "accuracy", "goal": "MAXIMIZE"}]
    assert accepted(body, "hyperparameterTuningJobs") == []


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_every_config_dry_runs_into_a_body_the_discovery_document_accepts(cli, path):
    result = dry_run(cli, path, "--project", "p", "--executor-image-uri", PYTORCH)
    assert result.code == 0, result.err
    body = json.loads(result.out)
    collection = "hyperparameterTuningJobs" if "studySpec" in body else "customJobs"
    assert accepted(body, collection) == []
    where = rf"{re.escape(str(path))}(:\d+:\d+: \S+| \(--[a-z-]+\)): (note|warning): "
    for line in result.err.splitlines():  # every note and warning says where
        if ": note: " in line or ": warning: " in line:
            assert re.match(where, line), line


@pytest.mark.parametrize("path", [*CONFIGS, *sorted(SEEDS.glob("*.yaml"))], ids=lambda p: p.name)
def test_every_config_dry_runs_as_it_is_or_says_why_vertex_cannot_run_it(cli, path):
    """As of the image table's dates no prebuilt image of a legacy runtimeVersion is available:
    such a config is refused at its runtimeVersion with both fixes, and no body is printed."""
    result = dry_run(cli, path, "--project", "p")
    if "runtimeVersion" not in yaml.safe_load(path.read_text(encoding="utf-8"))["trainingInput"]:
        assert result.code == 0, result.err
        body = json.loads(result.out)
        collection = "hyperparameterTuningJobs" if "studySpec" in body else "customJobs"
        assert accepted(body, collection) == []
        return
    assert (result.code, result.out) == (1, "")
    (line,) = [line for line in result.err.splitlines()
               if "[vertex-translate" in line and ": note: " not in line]
    assert re.fullmatch(rf"{re.escape(str(path))}:\d+:19: trainingInput.runtimeVersion: "
                        r"runtimeVersion '2.11' maps to the prebuilt image tf-gpu.2-11, which "
                        r"reached its end of availability on 2024-11-15 "
                        r"\[vertex-translate.runtime-version\]", line)
    assert "hint: pass --executor-image-uri IMAGE" in result.err
    assert result.err.rstrip().endswith("problem; nothing was submitted")
    validated = cli("validate", "--service", "vertex", str(path))
    assert validated.code == 1 and line in validated.out


def test_the_t4_cluster_of_the_seed(cli):
    result = dry_run(cli, SEEDS / "t4-compute-engine.yaml",
                     "--executor-image-uri", PYTORCH)
    assert result.code == 0, result.err
    assert pools(json.loads(result.out)) == [
        ("n1-highcpu-16", "NVIDIA_TESLA_T4", 4, "1"), ("n1-highcpu-16", "NVIDIA_TESLA_T4", 4, "9"),
        ("n1-highmem-8", None, None, "3")]


def test_the_legacy_cluster_of_the_seed_says_what_each_legacy_machine_type_became(cli):
    path = SEEDS / "legacy-complex-model-m-gpu.yaml"
    result = dry_run(cli, path, "--executor-image-uri", PYTORCH)
    assert result.code == 0, result.err
    assert pools(json.loads(result.out)) == [
        ("n1-standard-16", "NVIDIA_TESLA_T4", 4, "1"),
        ("n1-standard-16", "NVIDIA_TESLA_T4", 4, "9"),
        ("n1-highmem-8", None, None, "3")]
    became = [line for line in result.err.splitlines() if "[vertex-translate.machine-type]" in line]
    k80 = ("note: complex_model_m_gpu became n1-standard-16 with 4 × NVIDIA_TESLA_T4 instead of "
           "4 × NVIDIA_TESLA_K80: Vertex no longer offers K80; T4 replaces it "
           "[vertex-translate.machine-type]")
    assert became == [f"{path}:11:15: trainingInput.masterType: {k80}",
                      f"{path}:14:15: trainingInput.workerType: {k80}",
                      f"{path}:17:24: trainingInput.parameterServerType: note: large_model became "
                      "n1-highmem-8 [vertex-translate.machine-type]"]


def test_a_config_vertex_refuses_prints_no_body(cli, write):
    k80 = CONTAINER_JOB.replace("NVIDIA_TESLA_T4", "NVIDIA_TESLA_K80")
    result = dry_run(cli, write(k80))
    assert (result.code, result.out) == (1, "")
    assert ("NVIDIA_TESLA_K80: Vertex no longer offers K80 GPUs (end of support) "
            "[vertex-translate.accelerator]") in result.err
    assert "would POST" not in result.err


def test_flags_are_translated_and_say_where_they_came_from(cli, write):
    result = dry_run(cli, write(CONTAINER_JOB), "--job-dir", "gs://my-bucket/out",
                     "--use-chief-in-tf-config", "--worker-count", "2",
                     "--worker-machine-type", "g2-standard-8",
                     "--worker-accelerator", "count=1,type=nvidia-l4", "--", "--epochs", "3")
    assert result.code == 0, result.err
    assert ("command line (--use-chief-in-tf-config): trainingInput.useChiefInTfConfig: "
            "warning: useChiefInTfConfig is not sent") in result.err
    assert "command line (--job-dir): trainingInput.jobDir: note: jobDir became " \
           "baseOutputDirectory gs://my-bucket/out" in result.err
    body = json.loads(result.out)
    assert pools(body)[1] == ("g2-standard-8", "NVIDIA_L4", 1, "2")
    assert body["jobSpec"]["workerPoolSpecs"][1]["containerSpec"]["args"] == [
        "--epochs", "3", "--job-dir", "gs://my-bucket/out"]
    assert body["jobSpec"]["baseOutputDirectory"] == {"outputUriPrefix": "gs://my-bucket/out"}


# (on L4s: the Dynamic Workload Scheduler takes no T4s: test_vertex_scheduling.py)
WAITS = CONTAINER_JOB.replace("n1-highcpu-16", "g2-standard-48").replace(
    "NVIDIA_TESLA_T4", "NVIDIA_L4") + "  scheduling: {maxWaitTime: 3600s}\n"
NO_WAIT_HINT = ("  hint: remove maxWaitTime, or choose the FLEX_START strategy (Dynamic Workload "
                "Scheduler) with --strategy FLEX_START\n")


def test_max_wait_time_is_sent_with_the_flex_start_strategy_flag(cli, write):
    result = dry_run(cli, write(WAITS), "--strategy", "FLEX_START")
    assert result.code == 0, result.err
    body = json.loads(result.out)
    assert body["jobSpec"]["scheduling"] == {"strategy": "FLEX_START",
                                             "maxWaitDuration": "3600s"}
    assert accepted(body, "customJobs") == []
    assert ("trainingInput.scheduling.maxWaitTime: note: maxWaitTime became maxWaitDuration "
            "3600s: with the FLEX_START strategy Vertex waits this long for the resources "
            "[vertex-translate.scheduling]") in result.err


def test_max_wait_time_without_the_strategy_flag_names_the_flag(cli, write):
    config = write(WAITS)
    result = dry_run(cli, config)
    assert (result.code, result.out) == (1, "")
    assert (f"{config}:9:29: trainingInput.scheduling.maxWaitTime: Vertex bounds the wait for "
            "resources (maxWaitDuration) only with the FLEX_START scheduling strategy "
            "[vertex-translate.scheduling]\n" + NO_WAIT_HINT) in result.err
    assert "would POST" not in result.err
    # the hint's way forward works where it was given, validate included
    checked = cli("validate", config, "--service", "vertex", "--strategy", "FLEX_START")
    assert checked.code == 0, checked.out
    assert cli("validate", config, "--service", "vertex").code == 1


@pytest.mark.parametrize("given, strategy", [("spot", "SPOT"), ("Standard", "STANDARD")])
def test_the_strategy_flag_is_the_jobs_scheduling_strategy(cli, write, given, strategy):
    result = dry_run(cli, write(CONTAINER_JOB), "--strategy", given)
    assert result.code == 0, result.err
    body = json.loads(result.out)
    assert body["jobSpec"]["scheduling"] == {"strategy": strategy}
    assert accepted(body, "customJobs") == []


GCLOUD_FORMS = """\
trainingInput:
  masterConfig: {imageUri: gcr.io/p/t:1}
  hyperparameters:
    goal: MAXIMIZE
    hyperparameterMetricTag: accuracy
    params:
      - parameterName: first-layer-size
        type: INTEGER
        discreteValues:
        minValue: '50'
        maxValue: '500'
      - parameterName: learning-rate
        type: DOUBLE
        minValue: '0.0001'
        maxValue: 0.1
      - parameterName: use-residual
        type: DISCRETE
        discreteValues: [False, True]
"""


def test_a_study_written_as_gcloud_takes_it_becomes_a_study_vertex_accepts(cli, write):
    """No scaleTier (BASIC), hyphenated names, numbers as strings, an empty key, booleans in a
    double field: each the form gcloud sends, each in the body as Vertex AI takes it."""
    result = dry_run(cli, write(GCLOUD_FORMS), "--project", "p", "--region", "us-central1")
    assert result.code == 0, result.err
    body = json.loads(result.out)
    assert body["studySpec"]["parameters"] == [
        {"parameterId": "first-layer-size",
         "integerValueSpec": {"minValue": "50", "maxValue": "500"}},
        {"parameterId": "learning-rate", "doubleValueSpec": {"minValue": 0.0001, "maxValue": 0.1}},
        {"parameterId": "use-residual", "discreteValueSpec": {"values": [0.0, 1.0]}}]
    assert pools(body) == [("n1-standard-4", None, None, "1")]
    assert accepted(body, "hyperparameterTuningJobs") == []
