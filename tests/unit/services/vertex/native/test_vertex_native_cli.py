"""Native Vertex configs through the command line: ``validate`` and ``submit --dry-run`` with
``--service vertex`` check them and print the request that sends them as written; every other
service says it cannot use them; submit's flags mean what gcloud's mean."""

from __future__ import annotations

import json
import re

from fakes.discovery import request_violations
from vertex_native_configs import SPEC, TUNING

URL = "https://{region}-aiplatform.googleapis.com/v1/projects/PROJECT/locations/{region}/{what}"
TOKEN = re.compile(r"[0-9]{8}-[0-9]{6}-[0-9]{6}-[0-9a-f]{8}")


def test_validate_checks_a_native_config_for_vertex(cli, write):
    good = write(SPEC, "spec.yaml")
    bad = write(SPEC.replace("acceleratorCount: 2", "acceleratorCount: 3"), "bad.yaml")
    result = cli("validate", "--service", "vertex", good, bad)
    assert result.code == 1
    assert result.out == (
        f"{bad}:5:25: workerPoolSpecs[0].machineSpec.acceleratorCount: n1-standard-8 takes 1, "
        "2 or 4 × NVIDIA_TESLA_T4, not 3 [vertex.machine]\n"
        "  hint: `gpujob gpus --service vertex --gpu t4` lists the machine types that take it "
        "and their counts\n")
    assert result.err == "2 files checked: 1 valid, 1 invalid (1 error, 0 warnings)\n"


def test_another_service_says_it_cannot_use_a_native_config(cli, write):
    spec = write(SPEC, "spec.yaml")
    for command in (["validate", spec], ["submit", spec, "--dry-run"]):
        result = cli(*command, "--service", "ai-platform")
        assert result.code == 1
        assert (f"{spec}:1:1: this is a native Vertex AI config (a CustomJobSpec), which "
                "--service ai-platform cannot use [native.service]\n"
                "  hint: check and submit it with --service vertex (the default)") in \
            result.out + result.err


def test_a_spec_dry_runs_as_a_custom_job_named_after_its_file(cli, write):
    spec = write(SPEC, "train-t4.yaml")
    result = cli("submit", spec, "--service", "vertex", "--region", "europe-west4",
                 "--dry-run")
    assert result.code == 0, result.err
    first, cost, worst, _ = result.err.splitlines()  # (no warning: it has an output dir)
    assert first == (
        "Dry run: would POST this CustomJob to "
        f"{URL.format(region='europe-west4', what='customJobs')} (nothing sent); no project "
        "given (--project or GPUJOB_PROJECT)")
    assert cost.startswith("cost: $1.90/hour Spot in europe-west4 (1 × n1-standard-8 with 2 × "
                           "NVIDIA_TESLA_T4 + 3 × n1-highmem-8); on-demand $3.12/hour")
    assert worst == "worst case: at most $3.81, if it runs until its timeout of 2 hours"
    body = json.loads(result.out)
    assert list(body) == ["displayName", "labels", "jobSpec"]
    assert body["displayName"] == "train-t4"
    assert TOKEN.fullmatch(body["labels"]["gpujob-submission"])
    pools = body["jobSpec"]["workerPoolSpecs"]
    assert [p.get("replicaCount") for p in pools] == ["1", None, "3"]
    assert request_violations("aiplatform.v1", body, "projects", "locations", "customJobs",
                              "create") == []


def test_the_command_line_applies_as_gcloud_s_flags_do(cli, write):
    spec = write(SPEC, "spec.yaml")
    result = cli("submit", spec, "--service", "vertex", "--region", "us-central1",
                 "--display-name", "nightly", "--labels", "team=ml",
                 "--job-dir", "gs://b/run-2", "--set", "workerPoolSpecs[2].replicaCount=5",
                 "--dry-run", "--", "--epochs", "9")
    assert result.code == 0, result.err
    body = json.loads(result.out)
    assert body["displayName"] == "nightly"
    assert body["labels"]["team"] == "ml"
    job = body["jobSpec"]
    assert job["baseOutputDirectory"] == {"outputUriPrefix": "gs://b/run-2"}
    assert [p.get("containerSpec", {}).get("args") for p in job["workerPoolSpecs"]] == [
        ["--epochs", "9"], None, ["--epochs", "9"]]
    assert job["workerPoolSpecs"][2]["replicaCount"] == "5"


def test_a_tuning_job_goes_to_its_own_collection(cli, write):
    text = TUNING.replace("algorithm: GRID_SEARCH", "algorithm: RANDOM_SEARCH").replace(
        "- parameterId: lr\n      integer", "- parameterId: batch\n      integer").replace(
        "  medianAutomatedStoppingSpec: {}\n", "")
    result = cli("submit", write(text, "tune.yaml"), "--service", "vertex", "--region",
                 "us-central1", "--dry-run")
    assert result.code == 0, result.err
    assert URL.format(region="us-central1", what="hyperparameterTuningJobs") in result.err
    body = json.loads(result.out)
    assert body["displayName"] == "tune" and "trialJobSpec" in body
    assert request_violations("aiplatform.v1", body, "projects", "locations",
                              "hyperparameterTuningJobs", "create") == []


def test_what_a_native_config_cannot_take(cli, write):
    spec = write(SPEC, "spec.yaml")
    vertex = ("--service", "vertex", "--region", "us-central1")
    cases = {
        ("--service", "vertex", "--dry-run"): ("error: no region for the job", 2),
        ("--worker-count", "2", *vertex, "--dry-run"): (
            "error: --worker-count: the config is a native Vertex config, and this flag sets AI "
            "Platform's fields (trainingInput)\n  hint: set its own fields with --set, e.g. "
            "--set workerPoolSpecs[1].replicaCount=VALUE", 2),
        ("--strategy", "flex_start", *vertex, "--dry-run"): (
            "error: --strategy: the config is a native Vertex config, and this flag is for AI "
            "Platform configs\n  hint: set its own fields with --set, e.g. "
            "--set scheduling.strategy=VALUE", 2),
        ("--executor-image-uri", "x/y:1", "--strategy", "SPOT", *vertex): (
            "error: --executor-image-uri, --strategy: the config is a native Vertex config, and "
            "these flags are for AI Platform configs\n  hint: set its own fields with --set, "
            "e.g. --set workerPoolSpecs[0].pythonPackageSpec.executorImageUri=VALUE", 2),
        ("--package-path", "trainer", *vertex, "--dry-run"): (
            "error: --package-path stages a package into an AI Platform config's packageUris; "
            "a native Vertex config names its packages itself", 2),
        ("--region", "us-centrl1", "--service", "vertex", "--dry-run"): (
            "command line (--region): 'us-centrl1' is not a region Vertex AI custom training "
            "runs in [vertex.region]", 1),
    }
    for args, (said, code) in cases.items():
        result = cli("submit", spec, *args)
        assert result.code == code, (args, result.err)
        assert said in result.err, (args, result.err)
        assert result.out == ""
    local = cli("local", spec, "--service", "vertex")
    assert local.code == 2
    assert "error: a native Vertex config does not run here: gpujob local runs AI Platform " \
           "configs" in local.err


def test_no_region_check_leaves_out_the_gpu_zone_warning_as_for_an_ai_platform_config(cli,
                                                                                       write):
    spec = write("workerPoolSpecs:\n  - machineSpec: {machineType: a3-highgpu-1g, "
                 "acceleratorType: NVIDIA_H100_80GB, acceleratorCount: 1}\n"
                 "    replicaCount: 1\n    containerSpec: {imageUri: 'gcr.io/p/i:1'}\n",
                 "a3.yaml")
    args = ("submit", spec, "--service", "vertex", "--region", "us-west2", "--dry-run")
    checked = cli(*args)
    assert checked.code == 0, checked.err
    assert (f"{spec}:2:64: workerPoolSpecs[0].machineSpec.acceleratorType: warning: "
            "a3-highgpu-1g machines (H100 GPUs), asked for by worker pool 0, are not listed in "
            "any zone of us-west2") in checked.err
    unchecked = cli(*args, "--no-region-check")
    assert unchecked.code == 0, unchecked.err
    assert "warning" not in unchecked.err
    assert unchecked.out == checked.out.replace(
        TOKEN.search(checked.out).group(), TOKEN.search(unchecked.out).group())


def test_unsetting_what_makes_the_file_native_is_a_usage_error(cli, write):
    """It was ``internal error: ValueError: not a native Vertex config`` (exit 70). A spec of
    workerPoolSpecs alone is nothing without them; one with other CustomJobSpec fields is still
    a spec, that lacks its pools (``test_a_spec_without_its_pools_says_so``)."""
    pools = SPEC.split("scheduling:")[0]
    spec = write(pools, "spec.yaml")
    job = write("displayName: j\njobSpec:\n" + "".join(f"  {line}\n" for line in
                                                      SPEC.splitlines()), "job.yaml")
    for config, flag, inside in ((spec, "workerPoolSpecs", ""), (job, "jobSpec", "jobSpec.")):
        result = cli("submit", config, "--service", "vertex", "--region", "us-central1",
                     "--dry-run", "--unset", flag)
        assert result.code == 2, result.err
        kind = "CustomJobSpec" if config == spec else "CustomJob"
        assert result.err == (
            f"error: --unset {flag}: without it the config is no longer a {kind} (a native "
            "Vertex config is known by its workerPoolSpecs, jobSpec or trialJobSpec), so there "
            "is nothing to submit\n"
            f"  hint: --unset a field inside it instead (e.g. --unset {inside}"
            "workerPoolSpecs[1]), or edit the file\n")
        assert result.out == ""


def test_a_spec_without_its_pools_says_so(cli, write):
    """--unset workerPoolSpecs on a spec that has other CustomJobSpec fields (scheduling,
    baseOutputDirectory) leaves a CustomJobSpec without pools: the schema says so, exit 1."""
    result = cli("submit", write(SPEC, "spec.yaml"), "--service", "vertex", "--region",
                 "us-central1", "--dry-run", "--unset", "workerPoolSpecs")
    assert result.code == 1, result.err
    assert "spec.yaml:1:1: missing required key 'workerPoolSpecs' [schema.required]" in result.err
    assert result.out == ""


def test_labels_from_the_command_line_are_checked_as_the_files_are(cli, write):
    """A dry-run passed 'Team Name=Vision Lab', which the service then refused at create."""
    spec = write(SPEC, "spec.yaml")
    result = cli("submit", spec, "--service", "vertex", "--region", "us-central1",
                 "--dry-run", "--labels", "Team Name=Vision Lab,team=ok")
    assert result.code == 1, result.err
    assert result.out == ""
    labelled = write("displayName: j\nlabels:\n  Team Name: Vision Lab\njobSpec:\n" + "".join(
        f"  {line}\n" for line in SPEC.splitlines()), "job.yaml")
    in_file = cli("submit", labelled, "--service", "vertex", "--region", "us-central1",
                  "--dry-run")
    assert in_file.code == 1

    problems = [
        ("labels[\"Team Name\"]: 'Team Name' is not a valid label key [schema.pattern]",
         "  hint: label keys start with a lowercase letter and hold up to 64 lowercase letters, "
         "digits, '_' and '-'"),
        ("labels[\"Team Name\"]: 'Vision Lab' is not a valid label value [schema.pattern]",
         "  hint: label values hold up to 64 lowercase letters, digits, '_' and '-' (quote "
         "numbers: '1')")]
    assert result.err.splitlines()[:4] == [
        line for problem, hint in problems
        for line in (f"command line (--labels): {problem}", hint)]
    assert in_file.err.splitlines()[:4] == [
        line for (problem, hint), col in zip(problems, (3, 14), strict=True)
        for line in (f"{labelled}:3:{col}: {problem}", hint)]
    good = cli("submit", spec, "--service", "vertex", "--region", "us-central1", "--dry-run",
               "--labels", "team=vision")
    assert good.code == 0, good.err
    assert json.loads(good.out)["labels"]["team"] == "vision"


def test_labels_from_the_command_line_replace_a_custom_jobs_own(cli, write):
    """As for an AI Platform config: the flag's labels are the ones sent, and the ones checked."""
    labelled = write("displayName: j\nlabels:\n  Team Name: Vision Lab\njobSpec:\n" + "".join(
        f"  {line}\n" for line in SPEC.splitlines()), "job.yaml")
    args = ("submit", labelled, "--service", "vertex", "--region", "us-central1", "--dry-run",
            "--labels")
    good = cli(*args, "team=vision")
    assert good.code == 0, good.err
    assert {k: v for k, v in json.loads(good.out)["labels"].items()
            if k != "gpujob-submission"} == {"team": "vision"}
    bad = cli(*args, "Team=vision")
    assert bad.code == 1
    assert bad.err.splitlines()[0] == ("command line (--labels): labels.Team: 'Team' is not a "
                                       "valid label key [schema.pattern]")
