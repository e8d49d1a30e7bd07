"""A native Vertex config (CustomJobSpec, CustomJob) for ``--service gke``: checked and dry-run
as the JobSet of the cluster it describes, each finding at the native file's own line."""

from __future__ import annotations

import yaml

SPEC = """\
workerPoolSpecs:
  - machineSpec:
      machineType: n1-standard-8
      acceleratorType: NVIDIA_TESLA_T4
      acceleratorCount: 2
    replicaCount: 1
    containerSpec:
      imageUri: us-docker.pkg.dev/p/r/trainer:1
      args: [--epochs, "3"]
  - machineSpec:
      machineType: n1-standard-8
      acceleratorType: NVIDIA_TESLA_T4
      acceleratorCount: {count}
    replicaCount: 2
    containerSpec:
      imageUri: us-docker.pkg.dev/p/r/trainer:1
baseOutputDirectory:
  outputUriPrefix: gs://b/out
"""


def jobset(cli, path: str, *args: str) -> dict:
    result = cli("submit", path, "--service", "gke", "--dry-run", *args)
    assert result.code == 0, result.err
    return yaml.safe_load(result.out)


def test_a_custom_job_spec_becomes_a_jobset(cli, write):
    body = jobset(cli, write(SPEC.format(count=2)), "--job-id", "nat_1")
    assert body["metadata"]["name"] == "nat-1"
    rjobs = {r["name"]: r for r in body["spec"]["replicatedJobs"]}
    assert {n: r["replicas"] for n, r in rjobs.items()} == {"master": 1, "worker": 2}
    master = rjobs["master"]["template"]["spec"]["template"]["spec"]
    assert master["containers"][0]["args"] == ["--epochs", "3"]
    assert master["containers"][0]["resources"]["limits"] == {"nvidia.com/gpu": "2"}
    assert master["nodeSelector"]["cloud.google.com/gke-accelerator"] == "nvidia-tesla-t4"
    env = {e["name"]: e.get("value") for e in master["containers"][0]["env"]}
    assert env["AIP_MODEL_DIR"] == "gs://b/out/model/"


def test_the_trainers_arguments_after_dashes_reach_every_pool(cli, write):
    body = jobset(cli, write(SPEC.format(count=2)), "--", "--lr", "0.1")
    for r in body["spec"]["replicatedJobs"]:
        assert r["template"]["spec"]["template"]["spec"]["containers"][0]["args"] == [
            "--lr", "0.1"]


def test_a_count_gke_nodes_cannot_have_is_reported_at_the_native_line(cli, write):
    result = cli("validate", "--service", "gke", write(SPEC.format(count=3)))
    assert result.code == 1
    assert "config.yaml:11:7: workerPoolSpecs[1].machineSpec: n1-standard-8 takes 1, 2, 4 × T4, " \
           "not 3 [gke.machine]" in result.out


def test_a_package_job_runs_in_its_executor_image(cli, write):
    spec = """\
workerPoolSpecs:
  - machineSpec: {machineType: n1-standard-8}
    replicaCount: 1
    pythonPackageSpec:
      executorImageUri: us-docker.pkg.dev/vertex-ai/training/pytorch-xla.2-4.py310:latest
      packageUris: [gs://bucket/trainer-0.1.tar.gz]
      pythonModule: trainer.task
"""
    body = jobset(cli, write(spec))
    container = body["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"][
        "containers"][0]
    assert container["image"].startswith("us-docker.pkg.dev/vertex-ai/training/")
    assert "exec python3 -m trainer.task" in container["command"][2]


def test_a_custom_job_is_named_after_its_display_name(cli, write):
    job = {"displayName": "nightly_run", "labels": {"team": "ml"},
           "jobSpec": yaml.safe_load(SPEC.format(count=2))}
    body = jobset(cli, write(yaml.safe_dump(job)))
    assert body["metadata"]["name"].startswith("nightly-run-")
    assert body["metadata"]["labels"]["team"] == "ml"


def test_a_tuning_job_is_refused(cli, write):
    job = {"displayName": "t", "studySpec": {"metrics": [], "parameters": []},
           "maxTrialCount": 2, "trialJobSpec": yaml.safe_load(SPEC.format(count=2))}
    result = cli("validate", "--service", "gke", write(yaml.safe_dump(job)))
    assert result.code == 1
    assert "GKE has no hyperparameter tuning service" in result.out


def test_a_later_pools_own_package_is_an_error_not_lost(cli, write):
    """A JobSet runs the master's package in every pod: a worker pool's other module or
    arguments would be dropped without a word, so they are refused at their line."""
    pool = ("- machineSpec: {{machineType: n1-standard-8}}\n  replicaCount: {count}\n"
            "  pythonPackageSpec: {{executorImageUri: us-docker.pkg.dev/p/r/i:1, "
            "packageUris: [gs://b/t.tar.gz], pythonModule: {module}, args: [{args}]}}\n")
    same = pool.format(count=1, module="trainer.task", args="--lr, '0.1'")
    result = cli("submit", write("workerPoolSpecs:\n" + same + pool.format(
        count=2, module="trainer.task", args="--lr, '0.1'")), "--service", "gke", "--dry-run")
    assert result.code == 0, result.err  # the same package in every pool: one JobSet
    result = cli("submit", write("workerPoolSpecs:\n" + same + pool.format(
        count=2, module="trainer.worker", args="--role, worker")), "--service", "gke",
        "--dry-run")
    assert result.code == 1 and result.out == ""
    said = [line.split(": ", 1)[1] for line in result.err.splitlines() if "pool-package" in line]
    assert said == [
        "workerPoolSpecs[1].pythonPackageSpec.pythonModule: pythonModule of worker pool 1 is "
        "not the master's: on GKE every pod of a package job runs the master's package, module "
        "and arguments [gke.pool-package]",
        "workerPoolSpecs[1].pythonPackageSpec.args: args of worker pool 1 is not the master's: "
        "on GKE every pod of a package job runs the master's package, module and arguments "
        "[gke.pool-package]"]
