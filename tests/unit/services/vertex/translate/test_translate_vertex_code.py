"""What each Vertex pool runs for a Python package job: the prebuilt image ``runtimeVersion``
maps to (only within its availability window), an ``--executor-image-uri``, or any other image
with a command that installs the package and runs the module; and hyperparameter tuning."""

from __future__ import annotations

import os
import subprocess
from datetime import date
from pathlib import Path

import pytest
from vertex_translation import PYTORCH, pools, problems, run, shown

PACKAGE = """\
trainingInput:
  scaleTier: CUSTOM
  region: {region}
  masterType: n1-standard-8
  masterConfig:
    acceleratorConfig: {{type: NVIDIA_TESLA_T4, count: 1}}
  workerCount: 2
  workerType: n1-standard-8
  runtimeVersion: '{version}'
  packageUris: [gs://b/trainer-0.1.tar.gz]
  pythonModule: trainer.task
  args: [--epochs, '2']
"""


def package(version: str = "2.11", region: str = "us-central1", extra: str = "") -> str:
    return PACKAGE.format(version=version, region=region) + extra


def test_runtime_version_maps_to_the_same_numbered_image_within_its_window():
    t = run(package("2.17", "europe-west4"), today=date(2025, 6, 1))
    uri = "europe-docker.pkg.dev/vertex-ai/training/tf-gpu.2-17.py310:latest"
    assert [p["pythonPackageSpec"] for p in t.body["jobSpec"]["workerPoolSpecs"]] == [
        {"executorImageUri": uri, "packageUris": ["gs://b/trainer-0.1.tar.gz"],
         "pythonModule": "trainer.task", "args": ["--epochs", "2"]}] * 2
    assert shown(t) == [f"9:19 note runtime-version: runtimeVersion '2.17' became the executor "
                        f"image {uri} (Python 3.10, available until 2026-07-11)"]
    assert problems(t) == []


def test_a_cpu_job_gets_the_cpu_image_and_an_image_past_support_a_warning():
    text = package("2.17").replace("    acceleratorConfig: {type: NVIDIA_TESLA_T4, count: 1}\n",
                                   "    diskConfig: {bootDiskSizeGb: 200}\n")
    t = run(text, today=date(2026, 1, 1))
    assert t.body["jobSpec"]["workerPoolSpecs"][0]["pythonPackageSpec"]["executorImageUri"] == (
        "us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-17.py310:latest")
    (finding,) = t.findings
    assert finding.severity == "warning"
    assert finding.message.endswith("the prebuilt image tf-cpu.2-17.py310 is past its end of "
                                    "support (2025-07-11: no more fixes) and can be used until "
                                    "2026-07-11")


def test_an_image_past_its_end_of_availability_is_an_error_naming_both_fixes():
    t = run(package("2.17"), today=date(2026, 7, 11))
    assert shown(t) == ["9:19 error runtime-version: runtimeVersion '2.17' maps to the prebuilt "
                        "image tf-gpu.2-17.py310, which reached its end of availability on "
                        "2026-07-11"]
    assert t.findings[0].hint == (
        "pass --executor-image-uri IMAGE (a prebuilt image still available, or any image with "
        "Python: gpujob then installs the package from /gcs/ and runs the module), or set a newer "
        "runtimeVersion (none in gpujob's image table is available on 2026-07-11)")
    earlier = run(package("2.11"), today=date(2025, 1, 1))
    assert earlier.findings[0].hint.endswith("or set a newer runtimeVersion (one of 2.12, 2.13, "
                                             "2.14, 2.15, 2.16, 2.17)")


def test_a_runtime_version_without_an_image():
    t = run(package("2.10"))
    assert shown(t) == ["9:19 error runtime-version: there is no Vertex prebuilt GPU image for "
                        "runtimeVersion '2.10'"]
    t = run(package("2.11", extra="  pythonVersion: '3.5'\n"), today=date(2024, 1, 1))
    assert shown(t) == ["13:18 error runtime-version: there is no Vertex prebuilt GPU image for "
                        "runtimeVersion '2.11' with Python 3.5 (its images run Python 3.10 or "
                        "3.7)"]


def test_a_prebuilt_executor_image_runs_the_package():
    uri = "us-docker.pkg.dev/vertex-ai/training/pytorch-gpu.2-4.py310:latest"
    t = run(package(), today=date(2025, 6, 1), executor_image_uri=uri)
    spec = t.body["jobSpec"]["workerPoolSpecs"][1]["pythonPackageSpec"]
    assert spec["executorImageUri"] == uri and spec["pythonModule"] == "trainer.task"
    assert shown(t) == [f"9:19 note runtime-version: runtimeVersion '2.11' is not sent: the "
                        f"package runs on {uri} (--executor-image-uri)"]
    assert problems(t) == []
    late = run(package(), today=date(2026, 7, 24), executor_image_uri=uri)
    assert shown(late)[0] == (f"--executor-image-uri error executor-image: {uri}: the prebuilt "
                              "image pytorch-gpu.2-4.py310 reached its end of availability on "
                              "2026-07-24")
    assert late.findings[0].hint == (
        "no pytorch prebuilt image in gpujob's table is available on 2026-07-24: give any "
        "image with Python (--executor-image-uri): gpujob then installs the package from /gcs/ "
        "and runs the module")
    older = "us-docker.pkg.dev/vertex-ai/training/pytorch-gpu.1-13.py310:latest"
    early = run(package(), today=date(2025, 6, 1), executor_image_uri=older)
    assert early.findings[0].hint.startswith(
        "choose one still available (pytorch-gpu.2-4.py310, pytorch-gpu.2-3.py310, ")
    unknown = run(package(), executor_image_uri="us-docker.pkg.dev/vertex-ai/training/"
                  "pytorch-gpu.2-5.py310:latest")
    assert "is not among the prebuilt training images gpujob knows (as of 2026-11-23)" in (
        shown(unknown)[0])


def test_any_other_image_installs_the_package_from_gcs_and_runs_the_module():
    t = run(package(extra="  jobDir: gs://b/out\n"), executor_image_uri=PYTORCH)
    pool = t.body["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]
    assert pool == {
        "imageUri": PYTORCH,
        "command": ["sh", "-c", "pip install --upgrade pip && pip3 install -q --user "
                    "/gcs/b/trainer-0.1.tar.gz && exec python3 -m trainer.task \"$@\"", "sh"],
        "args": ["--epochs", "2", "--job-dir", "gs://b/out"]}
    assert [f.rule for f in t.findings] == ["vertex-translate.runtime-version",
                                            "vertex-translate.executor-image",
                                            "vertex-translate.job-dir"]
    assert t.findings[1].message == (
        f"the package runs on {PYTORCH} (--executor-image-uri), which is not a Vertex prebuilt "
        "image: each replica installs /gcs/b/trainer-0.1.tar.gz from the /gcs/ mount and runs "
        "python3 -m trainer.task with the job's arguments, as the Vertex SDK does")
    assert problems(t) == []


def test_a_package_outside_cloud_storage_cannot_be_installed_from_gcs():
    t = run(package().replace("gs://b/trainer-0.1.tar.gz", "https://x/t.tar.gz"),
            executor_image_uri=PYTORCH)
    assert "10:17 error package: https://x/t.tar.gz is not in Cloud Storage: a replica installs "\
           "the package from the /gcs/ mount" in shown(t)


HOSTILE = ["; touch pwned #", "$(touch pwned)", "`touch pwned`", "a b", "'", '"', "\\",
           "line\nbreak", "--home=$HOME", "*", "&& touch pwned", "--x=|touch pwned", ""]


def test_hostile_arguments_reach_the_module_unchanged(tmp_path: Path):
    """The command Vertex would run (``command`` + ``args``), run here by a real shell with
    pip and python replaced by recorders: the module gets exactly the job's arguments, and
    nothing the arguments, module or package names say is executed."""
    text = package().replace("gs://b/trainer-0.1.tar.gz", "gs://b/t$(touch pwned).tar.gz")
    text = text.replace("pythonModule: trainer.task", "pythonModule: 'trainer.task;touch pwned'")
    loaded = run(text, executor_image_uri=PYTORCH, source="job.yaml")
    spec = loaded.body["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("pip", "pip3", "python3"):
        shim = bin_dir / tool
        shim.write_text(f'#!/bin/sh\nprintf "%s\\0" "$@" >> "$RECORD/{tool}"\n')
        shim.chmod(0o755)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "RECORD": str(tmp_path), "HOME": "/home/x"}
    subprocess.run([*spec["command"], *HOSTILE], cwd=tmp_path, env=env, check=True)

    def recorded(tool: str) -> list[str]:
        return (tmp_path / tool).read_text().split("\0")[:-1]

    assert recorded("python3") == ["-m", "trainer.task;touch pwned", *HOSTILE]
    assert recorded("pip3") == ["install", "-q", "--user", "/gcs/b/t$(touch pwned).tar.gz"]
    assert sorted(os.listdir(tmp_path)) == ["bin", "pip", "pip3", "python3"]  # no "pwned"


def test_hyperparameter_tuning_becomes_a_tuning_job():
    t = run(package(extra="""\
  hyperparameters:
    goal: MINIMIZE
    maxTrials: 10
    maxParallelTrials: '2'
    maxFailedTrials: 3
    algorithm: RANDOM_SEARCH
    hyperparameterMetricTag: loss
    params:
      - {parameterName: layers, type: INTEGER, minValue: 1, maxValue: 8, scaleType: NONE}
      - {parameterName: optimizer, type: CATEGORICAL, categoricalValues: [adam, sgd],
         scaleType: UNIT_LINEAR_SCALE}
      - {parameterName: batch, type: DISCRETE, discreteValues: [32, 64.5]}
"""), executor_image_uri=PYTORCH)
    assert t.kind == "HyperparameterTuningJob" and t.collection == "hyperparameterTuningJobs"
    assert list(t.body) == ["displayName", "studySpec", "maxTrialCount", "parallelTrialCount",
                            "maxFailedTrialCount", "trialJobSpec"]
    assert t.body["studySpec"] == {
        "metrics": [{"metricId": "loss", "goal": "MINIMIZE"}],
        "parameters": [
            {"parameterId": "layers", "integerValueSpec": {"minValue": "1", "maxValue": "8"},
             "scaleType": "SCALE_TYPE_UNSPECIFIED"},
            {"parameterId": "optimizer", "categoricalValueSpec": {"values": ["adam", "sgd"]}},
            {"parameterId": "batch", "discreteValueSpec": {"values": [32, 64.5]}}],
        "algorithm": "RANDOM_SEARCH"}
    assert (t.body["maxTrialCount"], t.body["parallelTrialCount"],
            t.body["maxFailedTrialCount"]) == (10, 2, 3)
    assert pools(t)[0] == ("n1-standard-8", "NVIDIA_TESLA_T4", 1, "1")
    assert "23:21 warning dropped: scaleType is not sent: Vertex wants none on a CATEGORICAL " \
           "parameter" in shown(t)
    assert problems(t) == []


def test_tuning_defaults_and_what_cannot_be_resumed():
    t = run(package(extra="  hyperparameters:\n    resumePreviousJobId: old_job\n    params: "
                    "[{parameterName: lr, type: DOUBLE, minValue: 0.1, maxValue: 1}]\n"),
            executor_image_uri=PYTORCH)
    assert t.body["studySpec"]["metrics"] == [{"metricId": "training/hptuning/metric",
                                               "goal": "MAXIMIZE"}]
    assert (t.body["maxTrialCount"], t.body["parallelTrialCount"]) == (1, 1)
    lines = [line for line in shown(t) if "hyperparameters" in line]
    assert lines == [
        "13:3 note hyperparameters: goal is not set: MAXIMIZE, AI Platform's default, is sent "
        "(Vertex requires a goal)",
        "13:3 warning hyperparameters: hyperparameterMetricTag is not set: the metric sent is AI "
        "Platform's default 'training/hptuning/metric', and whether Vertex accepts '/' in a "
        "metric id is unverified",
        "14:26 error hyperparameters: Vertex cannot resume a previous hyperparameter tuning job: "
        "it has no resumePreviousJobId"]


@pytest.mark.parametrize("missing", ["packageUris", "pythonModule"])
def test_a_package_job_needs_its_package(missing: str):
    text = "\n".join(line for line in package().splitlines()
                     if not line.startswith(f"  {missing}:")) + "\n"
    t = run(text, executor_image_uri=PYTORCH)
    assert any(f.rule == "vertex-translate.package" and f.is_error for f in t.findings)
