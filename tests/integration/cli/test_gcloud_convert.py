"""gcloud's command lines for ``gpujob convert`` (issue 32 item 1): gcloud ai custom-jobs
create's flags build the CustomJob submit would send, checked, and written as the file gcloud's
--config reads; gcloud ai-platform jobs submit training's flags alone an AI Platform job."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.default_service

CASES = Path(__file__).resolve().parents[2] / "cases" / "gcloud"
T4 = Path(__file__).resolve().parents[3] / "configs" / "t4-compute-engine.yaml"
LABEL = re.compile(r"[0-9]{8}-[0-9]{6}-[0-9]{6}-[0-9a-f]{8}")
IMAGE = "us-central1-docker.pkg.dev/demo/train/img:1"
POOLS = (f"--worker-pool-spec=machine-type=n1-standard-8,accelerator-type=NVIDIA_TESLA_T4,"
         f"container-image-uri={IMAGE}",
         f"--worker-pool-spec=machine-type=n1-standard-8,replica-count=2,"
         f"container-image-uri={IMAGE}")
LINE = ("--region", "us-central1", "--display-name", "run1", *POOLS, "--args=--epochs,3",
        "--service-account", "sa@demo.iam.gserviceaccount.com", "--persistent-resource-id", "pr")


def body(result) -> dict:
    assert result.code == 0, result.err
    sent = json.loads(result.out)
    assert LABEL.fullmatch(sent["labels"].pop("gpujob-submission"))
    return sent


def test_the_flags_become_the_custom_job_spec_submit_sends(cli, tmp_path):
    out = tmp_path / "spec.yaml"
    result = cli("convert", *LINE, "-o", out)
    assert result.code == 0, result.err
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# Vertex AI CustomJobSpec converted by gpujob from the command "
                           "line.\n")
    assert "#   gcloud ai custom-jobs create --config=" in text
    spec = yaml.safe_load(text)
    assert [p["replicaCount"] for p in spec["workerPoolSpecs"]] == [1, 2]  # numbers, as written
    assert spec["serviceAccount"] == "sa@demo.iam.gserviceaccount.com"
    assert spec["persistentResourceId"] == "pr"
    assert spec["workerPoolSpecs"][1]["containerSpec"]["args"] == ["--epochs", "3"]
    from_file = body(cli("submit", out, "--region", "us-central1", "--display-name", "run1",
                         "--dry-run"))
    assert from_file == body(cli("submit", *LINE, "--dry-run"))


def test_whole_job_keeps_the_name_and_labels(cli, tmp_path):
    out = tmp_path / "job.yaml"
    result = cli("convert", *LINE, "--labels", "team=ml", "--whole-job", "-o", out)
    assert result.code == 0, result.err
    job = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert (job["displayName"], job["labels"]) == ("run1", {"team": "ml"})
    from_file = body(cli("submit", out, "--region", "us-central1", "--dry-run"))
    assert from_file == body(cli("submit", *LINE, "--labels", "team=ml", "--dry-run"))


def test_a_problem_is_reported_at_the_flag_and_nothing_is_written(cli, tmp_path):
    out = tmp_path / "spec.yaml"
    result = cli("convert", "--display-name", "x", "-o", out,
                 f"--worker-pool-spec=machine-type=n1-standard-8,accelerator-type=NVIDIA_TESLA_L4,"
                 f"container-image-uri={IMAGE}")
    assert result.code == 1
    assert result.err.splitlines()[0] == (
        "command line (--worker-pool-spec): jobSpec.workerPoolSpecs[0].machineSpec."
        "acceleratorType: 'NVIDIA_TESLA_L4' is not a valid acceleratorType [schema.enum]")
    assert result.err.splitlines()[-1] == "error: command line: 1 problem; nothing was written"
    assert not out.exists()


def test_an_ai_platform_job_from_flags_alone_is_converted(cli):
    result = cli("convert", "--region", "us-central1", "--scale-tier", "custom",
                 "--master-machine-type", "n1-standard-8", "--master-image-uri", IMAGE)
    assert result.code == 0, result.err
    spec = yaml.safe_load(result.out)
    assert spec["workerPoolSpecs"][0]["containerSpec"]["imageUri"] == IMAGE
    assert spec["workerPoolSpecs"][0]["machineSpec"]["machineType"] == "n1-standard-8"


def test_a_native_file_is_still_refused_with_the_flags(cli, write):
    path = write(f"workerPoolSpecs:\n- machineSpec: {{machineType: n1-standard-8}}\n"
                 f"  replicaCount: 1\n  containerSpec: {{imageUri: {IMAGE}}}\n")
    result = cli("convert", path, "--args=--epochs,3")
    assert result.code == 1
    assert f"error: {path} is a native Vertex config already (a CustomJobSpec)" in result.err


def test_custom_jobs_flags_on_an_ai_platform_file_are_refused_as_submit_refuses_them(cli):
    config = Path(__file__).resolve().parents[3] / "configs" / "t4-compute-engine.yaml"
    result = cli("convert", config, "--command=python3")
    assert result.code == 2
    assert "are gcloud ai custom-jobs/hp-tuning-jobs flags, for a native Vertex config" \
           in result.err


@pytest.mark.parametrize(("flags", "said"), [
    ((), "Error: Missing argument 'CONFIG'."),
    (("--to", "gke", "--display-name", "x", POOLS[0]),
     "error: --display-name is not supported by the gke service (GKE (JobSet)): a JobSet is "
     "named by its jobId (--job-id; lower case, '-' for '_'); a job of gcloud's "
     "--worker-pool-spec: write it whole (gpujob convert --whole-job -o job.yaml …), then "
     "gpujob submit job.yaml --service gke --dry-run prints the JobSet it becomes\n"
     "  hint: leave it out, or choose another service with --to"),
    (("--to", "gke", T4, "--network", "projects/1/global/networks/n", "--labels", "a=b"),
     "error: --network is not supported by the gke service (GKE (JobSet)): pods use the "
     "cluster's network (the cluster's VPC is chosen when it is created)\n"),
    ((T4, "--config", T4), "Error: Got unexpected extra argument"),
    (("--display-name", "x", POOLS[0], "--package-path", "trainer"),
     "error: --package-path stages a package into an AI Platform config's packageUris"),
    ((POOLS[0],), "error: --worker-pool-spec needs --display-name"),
])
def test_usage_errors(cli, flags, said):
    """As submit says them: a flag the service (--to) does not take is refused with its
    reason (issue 29 item 4)."""
    result = cli("convert", *flags)
    assert result.code == 2
    assert said in result.err


def test_every_peer_case_validate_accepts_is_converted_to_the_job_submit_sends(
        cli, tmp_path, monkeypatch):
    """Each gcloud command line of tests/cases/gcloud that validate accepts (with or without
    --config, issue 32 item 1) is converted, and the file sends what the line sends."""
    monkeypatch.chdir(CASES)  # --config names a file here
    converted = []
    for case in json.loads((CASES / "cases.json").read_text(encoding="utf-8"))["cases"]:
        flags = case["gcloud"][3:]
        if cli("validate", *flags).code:
            continue
        out = tmp_path / f"{case['name']}.yaml"
        result = cli("convert", *flags, "--whole-job", "-o", out)
        assert result.code == 0, (case["name"], result.err)
        sent = body(cli("submit", *flags, "--dry-run"))
        assert body(cli("submit", out, "--region", "us-central1", "--dry-run")) == sent, \
            case["name"]
        converted.append(case["name"])
    assert {"config-file-with-flags", "hp-tuning-trial-counts",
            "hp-tuning-default-counts"} <= set(converted)
    assert len(converted) == 11


def test_config_names_an_ai_platform_config_as_config_does(cli):
    assert cli("convert", "--config", T4).out == cli("convert", T4).out


def test_int64_values_are_written_as_numbers(cli, write):
    """A tuning job's int64 fields (an integer parameter's bounds), sent as strings, are
    written as the numbers the file had."""
    path = write((CASES / "tuning.yaml").read_text(encoding="utf-8").replace(
        "- parameterId: batch_size\n", "- parameterId: layers\n"
        "    integerValueSpec: {minValue: 2, maxValue: 8}\n  - parameterId: batch_size\n"),
        name="tuning.yaml")
    result = cli("convert", "--config", path, "--region", "us-central1", "--display-name", "hp")
    assert result.code == 0, result.err
    job = yaml.safe_load(result.out)
    assert job["studySpec"]["parameters"][1] == {"parameterId": "layers", "integerValueSpec":
                                                 {"minValue": 2, "maxValue": 8}}
    assert job["trialJobSpec"]["workerPoolSpecs"][0]["replicaCount"] == 1
