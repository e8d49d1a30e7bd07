"""gcloud ai custom-jobs create's and hp-tuning-jobs create's command line for ``gpujob
validate`` (issue 32 item 1) and ``gpujob local``: the flags build the job submit would send,
from a file or alone, and every check runs on it; a problem is reported at the flag."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.default_service

CASES = Path(__file__).resolve().parents[2] / "cases" / "gcloud"
IMAGE = "us-central1-docker.pkg.dev/demo/train/img:1"
T4_POOL = ("--worker-pool-spec=machine-type=n1-standard-8,replica-count=1,"
           f"accelerator-type=NVIDIA_TESLA_T4,accelerator-count=1,container-image-uri={IMAGE}")
L4_POOL = ("--worker-pool-spec=machine-type=n1-standard-8,accelerator-type=NVIDIA_TESLA_L4,"
           f"container-image-uri={IMAGE}")
RETIRED = ("--worker-pool-spec=machine-type=n1-standard-4,executor-image-uri=us-docker.pkg.dev/"
           "vertex-ai/training/tf-gpu.2-1:latest,python-module=trainer.task")
AI_PLATFORM = """\
trainingInput:
  scaleTier: CUSTOM
  masterType: n1-standard-8
  masterConfig:
    imageUri: gcr.io/demo/trainer:1
    acceleratorConfig: {count: 1, type: NVIDIA_TESLA_T4}
  region: us-central1
"""


def test_a_job_from_the_flags_alone_is_checked(cli):
    result = cli("validate", "--region", "us-central1", "--display-name", "x", T4_POOL)
    assert result.code == 0, result.err
    assert result.out == ""
    assert "cost: $0.84/hour on-demand in us-central1 (1 × n1-standard-8 with 1 × " \
           "NVIDIA_TESLA_T4)" in result.err
    assert result.err.splitlines()[-1] == "1 file checked: 1 valid, 0 invalid"


def test_a_problem_is_reported_at_the_flag(cli):
    result = cli("validate", "--region", "us-central1", "--display-name", "x", L4_POOL)
    assert result.code == 1
    assert result.out.splitlines()[0] == (
        "command line (--worker-pool-spec): jobSpec.workerPoolSpecs[0].machineSpec."
        "acceleratorType: 'NVIDIA_TESLA_L4' is not a valid acceleratorType [schema.enum]")
    assert "did you mean 'NVIDIA_L4'? (L4: machine types g2-standard-4" in result.out


def test_json_names_the_command_line_and_the_flag(cli):
    result = cli("validate", "--format", "json", "--display-name", "x", L4_POOL)
    assert result.code == 1
    [entry] = json.loads(result.out)["files"]
    assert entry["path"] == "command line"
    [error] = entry["errors"]
    assert (error["flag"], error["line"], error["column"]) == ("--worker-pool-spec", None, None)
    assert error["rule"] == "schema.enum"


def test_a_retired_executor_image_in_a_pool_spec_is_refused_with_its_date(cli):
    result = cli("validate", "--display-name", "x", RETIRED,
                 "--python-package-uris", "gs://b/trainer-0.1.tar.gz")
    assert result.code == 1
    assert ("command line (--worker-pool-spec): jobSpec.workerPoolSpecs[0].pythonPackageSpec."
            "executorImageUri: the prebuilt image tf-gpu.2-1 reached its end of availability "
            "on 2024-09-01 [vertex.executor-image]") in result.out


def test_validate_and_submit_reach_the_same_verdict_on_gcloud_s_command_lines(cli, monkeypatch):
    """Each peer case (tests/cases/gcloud): validate with gcloud's flags accepts what submit
    --dry-run sends, and refuses what it refuses, with the same line."""
    monkeypatch.chdir(CASES)
    for case in json.loads((CASES / "cases.json").read_text(encoding="utf-8"))["cases"]:
        flags = case["gcloud"][3:]
        checked = cli("validate", *flags)
        sent = cli("submit", *flags, "--dry-run")
        assert checked.code == sent.code, (case["name"], checked.err, sent.err)
        if sent.code:
            assert checked.out.splitlines()[0] == sent.err.splitlines()[0], case["name"]


def test_the_flags_apply_to_a_file_as_submit_applies_them(cli, write):
    path = write((CASES / "tuning.yaml").read_text(encoding="utf-8"), name="tuning.yaml")
    assert cli("validate", path).code == 0
    result = cli("validate", path, "--max-trial-count", "4", "--algorithm", "grid-search",
                 "--labels", "Team=ml")
    assert result.code == 1
    lines = result.out.splitlines()
    assert lines[0] == ("command line (--labels): labels.Team: 'Team' is not a valid label key "
                        "[schema.pattern]")
    assert "studySpec.parameters[0].doubleValueSpec: GRID_SEARCH searches integer, " \
           "categorical and discrete parameters only [vertex.study]" in result.out
    # --max-trial-count given: only parallelTrialCount's default is noted
    assert "maxTrialCount is not given" not in result.out
    assert "parallelTrialCount is not given: 1 is sent" in result.out


def test_config_names_the_file_as_gcloud_does(cli, write):
    path = write((CASES / "spec.yaml").read_text(encoding="utf-8"), name="spec.yaml")
    result = cli("validate", "--region", "us-central1", "--display-name", "y", "--config",
                 path, "--args=--epochs,3", "--format", "json")
    assert result.code == 0, result.err
    assert [f["path"] for f in json.loads(result.out)["files"]] == [path]
    bad = cli("validate", "--config", path, "--kms-key", "my-key", "--region", "us-central1")
    assert bad.code == 2
    assert bad.err.startswith("error: --kms-key: encryption key not fully specified")


def test_flags_that_describe_no_job_still_need_a_file(cli):
    result = cli("validate", "--region", "us-central1", "--display-name", "x")
    assert result.code == 2
    assert "Missing argument 'FILE...': the flags describe no job of their own (give " \
           "--worker-pool-spec" in result.err
    assert cli("validate").code == 2


def test_pool_specs_need_a_display_name_as_in_gcloud(cli):
    result = cli("validate", T4_POOL)
    assert result.code == 2
    assert "error: --worker-pool-spec needs --display-name, as in gcloud ai custom-jobs " \
           "create" in result.err


def test_custom_jobs_flags_on_an_ai_platform_file_are_refused_as_submit_refuses_them(cli, write):
    path = write(AI_PLATFORM)
    for command in (["validate", path], ["submit", path, "--dry-run"]):
        result = cli(*command, "--args=--epochs,3")
        assert result.code == 2
        assert f"are gcloud ai custom-jobs/hp-tuning-jobs flags, for a native Vertex config; " \
               f"{path} is an AI Platform config" in result.err


def test_the_ai_platform_region_flag_reaches_an_ai_platform_file(cli, write):
    """--region is submit's --region: it overrides the file's, and the checks see it."""
    path = write(AI_PLATFORM)
    result = cli("validate", path, "--region", "europe-west9")
    assert result.code == 0
    assert "not listed in any zone of europe-west9" in result.out


def test_local_says_why_a_custom_job_does_not_run_here(cli):
    result = cli("local", "--display-name", "x", T4_POOL)
    assert result.code == 2
    assert "error: a native Vertex config does not run here: gpujob local runs AI Platform " \
           "configs" in result.err


def test_validate_with_the_flags_imports_no_google_library():
    probe = ("import sys; from gpujob.cli import main; code = main({args!r}); "
             "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
             "('googleapiclient', 'google', 'httplib2', 'google_auth_httplib2', 'requests', "
             "'kubernetes')); print(code, heavy, file=sys.stderr)")
    args = ["validate", "--region", "us-central1", "--display-name", "x", T4_POOL,
            "--labels", "a=b", "--args=--epochs,1"]
    result = subprocess.run([sys.executable, "-c", probe.format(args=args)],
                            capture_output=True, text=True, env=dict(os.environ), timeout=60)
    assert result.stderr.strip().endswith("0 []"), result.stderr


@pytest.mark.parametrize(("flags", "said"), [
    (("--service", "gke", "--display-name", "x", T4_POOL),
     "error: --display-name is not supported by the gke service (GKE (JobSet)): a JobSet is "
     "named by its jobId"),
    (("--service", "ai-platform", "--config", str(CASES.parents[2] / "configs" /
                                                  "t4-compute-engine.yaml"),
      "--display-name", "x"),
     "error: --display-name is not supported by the ai-platform service (AI Platform "
     "Training): an AI Platform job is named by its jobId alone"),
])
def test_a_flag_the_service_does_not_take_is_refused_as_submit_refuses_it(cli, flags, said):
    """Not a finding about the job it builds (validate said the displayName was missing)."""
    for command in (["validate"], ["submit", "--dry-run"]):
        result = cli(*command, *flags)
        assert result.code == 2, (command, result.out)
        assert result.err.startswith(said), (command, result.err)
        assert result.out == ""
