"""Native Vertex configs read as gcloud reads them (``config.native_reading``): what a dry-run
sends for the shapes gcloud takes that the API's JSON does not (one value for a list, nulls,
snake_case keys), and the names a whole job gets from the command line."""

from __future__ import annotations

import json

from fakes.discovery import request_violations

VERTEX = ("--service", "vertex", "--region", "us-central1", "--dry-run")

ONE_POOL = """\
workerPoolSpecs:
  machineSpec: {machineType: n1-standard-8, acceleratorType: NVIDIA_TESLA_T4, acceleratorCount: 1}
  replicaCount: 1
  containerSpec:
    imageUri: us-central1-docker.pkg.dev/p/r/img:1
    command: python
    args: --epochs=3
network: null
"""


def test_one_pool_written_as_a_mapping_is_sent_as_a_list(cli, write):
    result = cli("submit", write(ONE_POOL, "one.yaml"), *VERTEX, "--display-name", "one")
    assert result.code == 0, result.err
    body = json.loads(result.out)
    assert body["jobSpec"] == {"workerPoolSpecs": [{
        "machineSpec": {"machineType": "n1-standard-8", "acceleratorType": "NVIDIA_TESLA_T4",
                        "acceleratorCount": 1},
        "replicaCount": "1",
        "containerSpec": {"imageUri": "us-central1-docker.pkg.dev/p/r/img:1",
                          "command": ["python"], "args": ["--epochs=3"]}}]}
    assert request_violations("aiplatform.v1", body, "projects", "locations", "customJobs",
                              "create") == []


def test_flags_reach_the_pool_written_as_a_mapping(cli, write):
    result = cli("submit", write(ONE_POOL, "one.yaml"), *VERTEX, "--set",
                 "workerPoolSpecs[0].replicaCount=2", "--", "--epochs=9")
    assert result.code == 0, result.err
    pool = json.loads(result.out)["jobSpec"]["workerPoolSpecs"][0]
    assert pool["replicaCount"] == "2"
    assert pool["containerSpec"]["args"] == ["--epochs=9"]


def test_a_problem_in_a_pool_written_as_a_mapping_is_at_its_line(cli, write):
    path = write(ONE_POOL.replace("acceleratorCount: 1", "acceleratorCount: 3"), "bad.yaml")
    result = cli("validate", "--service", "vertex", path)
    assert result.code == 1
    assert result.out.splitlines()[0] == (
        f"{path}:2:97: workerPoolSpecs[0].machineSpec.acceleratorCount: n1-standard-8 takes "
        "1, 2 or 4 × NVIDIA_TESLA_T4, not 3 [vertex.machine]")


def test_snake_case_keys_are_sent_by_their_names_with_a_note(cli, write):
    text = ("worker_pool_specs:\n- machine_spec: {machine_type: n1-standard-4}\n"
            "  replica_count: 1\n  container_spec: {image_uri: gcr.io/p/i:1}\n")
    path = write(text, "snake.yaml")
    result = cli("submit", path, *VERTEX)
    assert result.code == 0, result.err
    assert json.loads(result.out)["jobSpec"] == {"workerPoolSpecs": [{
        "machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1",
        "containerSpec": {"imageUri": "gcr.io/p/i:1"}}]}
    assert f"{path}:1:1: worker_pool_specs: note: worker_pool_specs is read as " \
           "workerPoolSpecs (5 more snake_case keys likewise)" in result.err


TUNING = """\
maxTrialCount: 2
parallelTrialCount: 1
studySpec:
  metrics: [{metricId: acc, goal: MAXIMIZE}]
  parameters:
  - parameterId: learning-rate
    doubleValueSpec: {minValue: 0.001, maxValue: 0.1}
trialJobSpec:
  workerPoolSpecs:
  - machineSpec: {machineType: n1-standard-4}
    replicaCount: 1
    containerSpec: {imageUri: gcr.io/p/i:1}
"""


def test_a_tuning_file_without_a_display_name_takes_the_flag_s(cli, write):
    path = write(TUNING, "tune.yaml")
    named = cli("submit", path, *VERTEX, "--display-name", "sweep-7")
    assert named.code == 0, named.err
    assert json.loads(named.out)["displayName"] == "sweep-7"
    unnamed = cli("submit", path, *VERTEX)
    assert unnamed.code == 0, unnamed.err
    assert json.loads(unnamed.out)["displayName"] == "tune"
    assert cli("validate", "--service", "vertex", path).code == 0


def test_a_file_of_spec_fields_alone_is_a_spec_that_lacks_its_pools(cli, write):
    """It was taken for an AI Platform Job (--display-name refused, exit 2, 'missing
    trainingInput'): it is a CustomJobSpec, and the schema says what it lacks."""
    path = write("baseOutputDirectory:\n  outputUriPrefix: gs://bucket/out\n", "out.yaml")
    result = cli("submit", path, *VERTEX, "--display-name", "x")
    assert result.code == 1
    assert result.out == ""
    assert f"{path}:1:1: missing required key 'workerPoolSpecs' [schema.required]" in result.err


def test_numbers_in_strings_are_taken_and_sent_as_numbers(cli, write):
    text = (TUNING.replace("maxTrialCount: 2", "maxTrialCount: '2'")
            .replace("{minValue: 0.001, maxValue: 0.1}", "{minValue: '1e-3', maxValue: '0.1'}")
            .replace("{machineType: n1-standard-4}", "{machineType: n1-standard-4, "
                     "acceleratorType: NVIDIA_TESLA_T4, acceleratorCount: '1'}"))
    result = cli("submit", write(text, "tune.yaml"), *VERTEX)
    assert result.code == 0, result.err
    body = json.loads(result.out)
    assert body["maxTrialCount"] == 2
    assert body["studySpec"]["parameters"][0]["doubleValueSpec"] == {"minValue": 0.001,
                                                                     "maxValue": 0.1}
    assert body["trialJobSpec"]["workerPoolSpecs"][0]["machineSpec"]["acceleratorCount"] == 1
    assert request_violations("aiplatform.v1", body, "projects", "locations",
                              "hyperparameterTuningJobs", "create") == []


def test_a_number_in_a_string_is_still_a_number(cli, write):
    path = write(TUNING.replace("maxValue: 0.1}", "maxValue: 'ten'}"), "tune.yaml")
    result = cli("validate", "--service", "vertex", path)
    assert result.code == 1
    assert result.out.splitlines() == [
        f"{path}:7:50: studySpec.parameters[0].doubleValueSpec.maxValue: expected a number, "
        "found the string 'ten' [schema.type]",
        "  hint: write a number such as 0.01 (a string holding one, such as '0.01', works too)"]
