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
     "error: --worker-pool-spec builds a Vertex AI CustomJob, named by --display-name, which "
     "--to gke does not take"),
    (("--display-name", "x", POOLS[0], "--package-path", "trainer"),
     "error: --package-path stages a package into an AI Platform config's packageUris"),
    ((POOLS[0],), "error: --worker-pool-spec needs --display-name"),
])
def test_usage_errors(cli, flags, said):
    result = cli("convert", *flags)
    assert result.code == 2
    assert said in result.err
