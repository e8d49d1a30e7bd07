"""gcloud's Vertex command lines as gpujob's (issue 32 items 1-3): ``gcloud ai custom-jobs
create``'s --worker-pool-spec, --args, --command, --python-package-uris (with or without
--config), ``gcloud ai hp-tuning-jobs create``'s trial counts and algorithm, and a job from flags
alone: the body on stdout is what gcloud would send (plus gpujob's submission label), and every
check of gpujob's runs on it."""

from __future__ import annotations

import json
import re

import pytest

pytestmark = pytest.mark.default_service

LABEL = re.compile(r"[0-9]{8}-[0-9]{6}-[0-9]{6}-[0-9a-f]{8}")
T4_POOL = ("--worker-pool-spec=machine-type=n1-standard-8,replica-count=1,"
           "accelerator-type=NVIDIA_TESLA_T4,accelerator-count=1,container-image-uri=IMAGE")
SPEC = """\
workerPoolSpecs:
  machineSpec: {machineType: n1-standard-4}
  replicaCount: 1
  pythonPackageSpec:
    executorImageUri: us-central1-docker.pkg.dev/demo/train/exec:1
    packageUris: [gs://b/file.tar.gz]
    pythonModule: trainer.task
"""
TUNING = """\
displayName: hp
studySpec:
  metrics: [{metricId: acc, goal: MAXIMIZE}]
  parameters:
  - parameterId: lr
    doubleValueSpec: {minValue: 0.001, maxValue: 0.1}
trialJobSpec:
  workerPoolSpecs:
  - machineSpec: {machineType: n1-standard-4}
    replicaCount: 1
    containerSpec: {imageUri: us-central1-docker.pkg.dev/demo/train/img:1}
"""


def body_of(result) -> dict:
    assert result.code == 0, result.err
    body = json.loads(result.out)
    assert LABEL.fullmatch(body["labels"].pop("gpujob-submission"))
    if not body["labels"]:
        del body["labels"]
    return body


def test_the_issue_s_command_line_prints_the_body_gcloud_sends(cli):
    result = cli("submit", "--region", "us-central1", "--display-name", "x", T4_POOL,
                 "--dry-run", "--service", "vertex")
    assert body_of(result) == {"displayName": "x", "jobSpec": {"workerPoolSpecs": [{
        "machineSpec": {"machineType": "n1-standard-8", "acceleratorType": "NVIDIA_TESLA_T4",
                        "acceleratorCount": 1},
        "replicaCount": "1", "containerSpec": {"imageUri": "IMAGE"}}]}}
    assert result.err.splitlines()[1].startswith(
        "cost: $0.84/hour on-demand in us-central1 (1 × n1-standard-8 with 1 × NVIDIA_TESLA_T4)")


def test_pools_args_and_command_as_gcloud_builds_them(cli):
    result = cli("submit", "--region", "us-central1", "--display-name", "two pools", T4_POOL,
                 "--worker-pool-spec", "", "--worker-pool-spec",
                 "machine-type=n1-standard-4,replica-count=2,container-image-uri=IMG",
                 "--args=--epochs=3,--lr=0.1", "--command", "python,run.py",
                 "--enable-dashboard-access", "--dry-run", "--service", "vertex")
    code = {"args": ["--epochs=3", "--lr=0.1"], "command": ["python", "run.py"]}
    assert body_of(result)["jobSpec"] == {"enableDashboardAccess": True, "workerPoolSpecs": [
        {"machineSpec": {"machineType": "n1-standard-8", "acceleratorType": "NVIDIA_TESLA_T4",
                         "acceleratorCount": 1},
         "replicaCount": "1", "containerSpec": {"imageUri": "IMAGE", **code}},
        {},
        {"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "2",
         "containerSpec": {"imageUri": "IMG", **code}}]}


def test_with_config_the_pools_replace_the_file_s(cli, write):
    path = write(SPEC, "spec.yaml")
    replaced = cli("submit", path, "--region", "us-central1", "--dry-run", "--service",
                   "vertex", "--worker-pool-spec", "machine-type=n1-standard-8,"
                   "container-image-uri=IMG", "--args", "--a=1")
    assert body_of(replaced)["jobSpec"]["workerPoolSpecs"] == [
        {"machineSpec": {"machineType": "n1-standard-8"}, "replicaCount": "1",
         "containerSpec": {"imageUri": "IMG", "args": ["--a=1"]}}]


def test_args_twice_is_a_usage_error(cli):
    result = cli("submit", "--region", "us-central1", "--display-name", "x", T4_POOL,
                 "--args", "--a=1", "--dry-run", "--", "--b=2")
    assert result.code == 2
    assert result.err.splitlines() == [
        "error: --args and -- ARGS both give the trainer's arguments",
        "  hint: give them once: -- ARGS keeps arguments that hold commas"]


def test_a_retired_executor_image_in_a_pool_spec_is_refused_with_its_date(cli):
    result = cli("submit", "--region", "us-central1", "--display-name", "x",
                 "--worker-pool-spec=machine-type=n1-standard-8,executor-image-uri="
                 "gcr.io/cloud-aiplatform/training/tf-gpu.2-1:latest,python-module=trainer.task",
                 "--python-package-uris", "gs://b/t.tar.gz", "--dry-run", "--service", "vertex")
    assert result.code == 1 and result.out == ""
    assert result.err.splitlines()[0] == (
        "command line (--worker-pool-spec): jobSpec.workerPoolSpecs[0].pythonPackageSpec."
        "executorImageUri: the prebuilt image tf-gpu.2-1 reached its end of availability on "
        "2024-09-01 (gcr.io/cloud-aiplatform/training is an older location of "
        "us-docker.pkg.dev/vertex-ai/training) [vertex.executor-image]")


@pytest.mark.parametrize("spec, lines", [
    ("machine-type=n1-standard-8,disk-size=100",
     ["error: --worker-pool-spec 1: gcloud ai custom-jobs create does not take disk-size (it "
      "is --resource-pool-spec's, in gcloud ai persistent-resources create)",
      "  hint: set a pool's disk in a --config file: workerPoolSpecs[N].diskSpec."
      "bootDiskSizeGb"]),
    ("machine-type=n1-standard-8,replica-count=two",
     ["error: --worker-pool-spec 1: replica-count=two is not an integer",
      "  hint: write a whole number: replica-count=1"]),
    ("machine-type=n1-standard-8,gpu=1",
     ["error: --worker-pool-spec 1: unknown key 'gpu'",
      "  hint: valid keys: accelerator-count, accelerator-type, container-image-uri, "
      "executor-image-uri, extra-dirs, extra-packages, local-package-path, machine-type, "
      "output-image-uri, python-module, replica-count, requirements, script"]),
    ("container-image-uri=IMG",
     ["error: --worker-pool-spec 1: machine-type is required", "  hint: add machine-type=TYPE"]),
    ("machine-type=n1-standard-8,accelerator-count=2,container-image-uri=IMG",
     ["error: --worker-pool-spec 1: accelerator-count needs accelerator-type",
      "  hint: add accelerator-type=TYPE (NVIDIA_TESLA_T4, …)"]),
    ("machine-type=n1-standard-8,container-image-uri=IMG,executor-image-uri=E",
     ["error: --worker-pool-spec 1: give exactly one of executor-image-uri and "
      "container-image-uri",
      "  hint: container-image-uri runs an image; executor-image-uri runs python-module from "
      "the packages"]),
    ("machine-type=n1-standard-8,executor-image-uri=E",
     ["error: --worker-pool-spec 1: executor-image-uri needs python-module",
      "  hint: add python-module=trainer.task"]),
    ("",
     ["error: --worker-pool-spec 1: the first pool may not be empty (it runs the primary "
      "replica)", "  hint: only later pools may be empty placeholders"]),
])
def test_pool_specs_gcloud_refuses_are_usage_errors(cli, spec, lines):
    result = cli("submit", "--region", "us-central1", "--display-name", "x",
                 "--worker-pool-spec", spec, "--dry-run", "--service", "vertex")
    assert result.code == 2 and result.out == ""
    assert result.err.splitlines() == lines


def test_pool_specs_without_a_display_name_are_refused_as_gcloud_does(cli):
    result = cli("submit", "--region", "us-central1", T4_POOL, "--dry-run")
    assert result.code == 2
    assert result.err.splitlines() == [
        "error: --worker-pool-spec needs --display-name, as in gcloud ai custom-jobs create",
        "  hint: add --display-name NAME"]


def test_tuning_flags_replace_the_file_s_counts_and_algorithm(cli, write):
    path = write(TUNING, "hp.yaml")
    result = cli("submit", path, "--region", "us-central1", "--max-trial-count", "6",
                 "--parallel-trial-count", "2", "--algorithm", "random-search", "--dry-run",
                 "--service", "vertex")
    body = body_of(result)
    assert (body["maxTrialCount"], body["parallelTrialCount"]) == (6, 2)
    assert body["studySpec"]["algorithm"] == "RANDOM_SEARCH"
    assert "trial-counts-default" not in result.err


def test_a_tuning_file_without_counts_sends_1_and_1_with_a_note(cli, write):
    path = write(TUNING, "hp.yaml")
    result = cli("submit", path, "--region", "us-central1", "--dry-run", "--service", "vertex")
    body = body_of(result)
    assert (body["maxTrialCount"], body["parallelTrialCount"]) == (1, 1)
    assert result.err.splitlines()[0] == (
        f"{path}:1:1: maxTrialCount: note: maxTrialCount is not given: 1 is sent, as gcloud "
        "ai hp-tuning-jobs create sends it [vertex.trial-counts-default]")


def test_a_count_set_with_set_has_no_note(cli, write):
    path = write(TUNING, "hp.yaml")
    result = cli("submit", path, "--region", "us-central1", "--set", "maxTrialCount=5",
                 "--dry-run", "--service", "vertex")
    body = body_of(result)
    assert (body["maxTrialCount"], body["parallelTrialCount"]) == (5, 1)
    assert [line for line in result.err.splitlines() if "trial-counts-default" in line] == [
        f"{path}:1:1: parallelTrialCount: note: parallelTrialCount is not given: 1 is sent, as "
        "gcloud ai hp-tuning-jobs create sends it [vertex.trial-counts-default]"]


def test_tuning_flags_on_a_custom_job_are_refused(cli, write):
    path = write(SPEC, "spec.yaml")
    result = cli("submit", path, "--max-trial-count", "3", "--dry-run", "--service", "vertex")
    assert result.code == 2
    assert result.err.splitlines()[0] == (
        "error: --max-trial-count, --parallel-trial-count and --algorithm are gcloud ai "
        f"hp-tuning-jobs create's: {path} is a CustomJobSpec, not a tuning job")


def test_an_ai_platform_job_from_flags_alone_in_gcloud_s_form(cli):
    result = cli("submit", "training", "job_3", "--region", "us-central1",
                 "--master-image-uri", "IMAGE", "--dry-run", "--service", "ai-platform")
    assert result.code == 0, result.err
    assert json.loads(result.out) == {"jobId": "job_3", "trainingInput": {
        "region": "us-central1", "masterConfig": {"imageUri": "IMAGE"}}}


def test_an_ai_platform_job_from_flags_alone_goes_to_vertex_too(cli):
    result = cli("submit", "training", "job_3", "--region", "us-central1",
                 "--master-image-uri", "IMAGE", "--dry-run", "--service", "vertex")
    assert body_of(result) == {"displayName": "job_3", "jobSpec": {"workerPoolSpecs": [{
        "machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1",
        "containerSpec": {"imageUri": "IMAGE"}}]}}


def test_a_config_is_still_needed_when_the_flags_describe_no_job(cli):
    result = cli("submit", "--region", "us-central1", "--dry-run")
    assert result.code == 2
    assert "Error: Missing argument 'CONFIG'." in result.err


def test_a_retired_prebuilt_image_as_the_master_s_image_is_refused(cli):
    result = cli("submit", "training", "job_3", "--region", "us-central1", "--master-image-uri",
                 "us.gcr.io/cloud-aiplatform/training/tf-gpu.2-1", "--dry-run", "--service",
                 "vertex")
    assert result.code == 1 and result.out == ""
    assert result.err.splitlines()[2:4] == [
        "command line (--master-image-uri): trainingInput.masterConfig.imageUri: us.gcr.io/"
        "cloud-aiplatform/training/tf-gpu.2-1 is the prebuilt image tf-gpu.2-1, which reached "
        "its end of availability on 2024-09-01: Vertex AI no longer runs it for new jobs "
        "[vertex-translate.executor-image]",
        "  hint: run an image of your own with tensorflow installed"]


def test_local_runs_an_ai_platform_job_from_flags_alone(cli, trainer, tmp_path):
    package = trainer({"trainer/task.py": "import sys\nprint('args', sys.argv[1:])\n"})
    result = cli("local", "--module-name", "trainer.task", "--package-path", str(package),
                 "--runtime-version", "2.11", "--python-version", "3.7", "--job-dir",
                 str(tmp_path / "out"), "--service", "ai-platform", "--", "--epochs", "1")
    assert result.code == 0, result.err
    assert f"master-replica-0 | args ['--epochs', '1', '--job-dir', '{tmp_path / 'out'}']" \
        in result.out.splitlines()


def test_every_other_custom_jobs_create_flag_lands_where_gcloud_puts_it(cli):
    result = cli("submit", "--region", "us-central1", "--display-name", "x", T4_POOL,
                 "--labels", "team=ml,env=dev", "--service-account",
                 "sa@p.iam.gserviceaccount.com", "--network", "projects/123/global/networks/n",
                 "--enable-web-access", "--enable-dashboard-access", "--persistent-resource-id",
                 "pr1", "--kms-key", "k", "--kms-keyring", "r", "--kms-location", "us-central1",
                 "--kms-project", "p", "--dry-run", "--service", "vertex")
    body = body_of(result)
    assert body["labels"] == {"team": "ml", "env": "dev"}
    assert body["encryptionSpec"] == {
        "kmsKeyName": "projects/p/locations/us-central1/keyRings/r/cryptoKeys/k"}
    spec = body["jobSpec"]
    del spec["workerPoolSpecs"]
    assert spec == {"enableDashboardAccess": True, "serviceAccount": "sa@p.iam.gserviceaccount.com",
                    "network": "projects/123/global/networks/n", "enableWebAccess": True,
                    "persistentResourceId": "pr1"}


def test_local_package_path_only_in_the_first_pool(cli):
    result = cli("submit", "--region", "us-central1", "--display-name", "x", T4_POOL,
                 "--worker-pool-spec", "machine-type=n1-standard-8,local-package-path=app",
                 "--dry-run", "--service", "vertex")
    assert result.code == 2
    assert result.err.splitlines() == [
        "error: --worker-pool-spec 2: local-package-path not allowed here: only the first "
        "--worker-pool-spec runs a local package", "  hint: leave out local-package-path"]
