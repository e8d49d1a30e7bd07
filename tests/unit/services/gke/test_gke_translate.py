"""``--service gke``: an AI Platform config checked offline for GKE and dry-run as a JobSet."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from gpujob.services.gke import jobset

ROOT = Path(__file__).resolve().parents[4]
T4 = str(ROOT / "configs" / "t4-compute-engine.yaml")
# (the JobSet CRD, kubernetes-sigs/jobset, is not in this repository: it belongs to its authors;
# scripts/check_jobset_crd.py checks these JobSets against a copy of it)

CONTAINER = """\
jobId: {job_id}
trainingInput:
  scaleTier: CUSTOM
  masterType: {machine}
  masterConfig:
    imageUri: us-docker.pkg.dev/p/r/trainer:1
    acceleratorConfig: {{count: {count}, type: {gpu}}}
  workerCount: {workers}
  workerType: {machine}
  workerConfig:
    acceleratorConfig: {{count: {count}, type: {gpu}}}
"""


def config(job_id: str = "run_1", machine: str = "n1-standard-8", count: int = 2,
           gpu: str = "NVIDIA_TESLA_T4", workers: int = 1) -> str:
    return CONTAINER.format(job_id=job_id, machine=machine, count=count, gpu=gpu,
                            workers=workers)


def dry_run(cli, path: str, *args: str):
    result = cli("submit", path, "--service", "gke", "--dry-run", *args)
    assert result.code == 0, result.err
    return yaml.safe_load(result.out), result.err


def pods(body: dict) -> dict[str, dict]:
    return {r["name"]: r["template"]["spec"]["template"]["spec"]
            for r in body["spec"]["replicatedJobs"]}


def env_of(pod: dict) -> dict[str, object]:
    container = pod["containers"][0]
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container["env"]}


def test_the_t4_cluster_becomes_one_master_and_nine_workers_with_four_t4s_each(cli):
    body, err = dry_run(cli, T4, "--job-id", "t4_run", "--", "--epochs", "2")
    assert "would POST this JobSet to /apis/jobset.x-k8s.io/v1alpha2/namespaces/default/" \
           "jobsets (nothing sent)" in err
    assert "no project given" not in err
    assert body["apiVersion"] == "jobset.x-k8s.io/v1alpha2" and body["kind"] == "JobSet"
    assert body["metadata"]["name"] == "t4-run"
    replicated = {r["name"]: r["replicas"] for r in body["spec"]["replicatedJobs"]}
    assert replicated == {"master": 1, "worker": 9, "ps": 3}
    by_name = pods(body)
    for name in ("master", "worker"):
        pod = by_name[name]
        assert pod["nodeSelector"] == {"node.kubernetes.io/instance-type": "n1-highcpu-16",
                                       "cloud.google.com/gke-accelerator": "nvidia-tesla-t4"}
        # n1-highcpu-16 (16 vCPU, 14.4 GiB) less GKE's reservation and 500m / 1 GiB for its
        # own pods (test_gke_sizes.py works these out)
        assert pod["containers"][0]["resources"] == {
            "limits": {"nvidia.com/gpu": "4"},
            "requests": {"cpu": "15390m", "memory": "11123Mi"}}
        assert pod["containers"][0]["args"] == ["--epochs", "2",
                                                "--job-dir", "gs://my-bucket/jobs/t4"]
        assert pod["restartPolicy"] == "Never"
    assert "resources" not in by_name["ps"]["containers"][0]
    assert by_name["ps"]["nodeSelector"] == {"node.kubernetes.io/instance-type": "n1-highmem-8"}
    # the master's success ends the job (parameter servers never exit)
    assert body["spec"]["successPolicy"] == {"operator": "All", "targetReplicatedJobs": ["master"]}
    assert jobset.requirements(body) == []


def test_a_replica_sees_what_it_would_on_vertex(cli, write):
    body, _ = dry_run(cli, write(config(workers=2)))
    env = env_of(pods(body)["worker"])
    assert env["MASTER_ADDR"] == "run-1-master-0-0.run-1"
    assert env["MASTER_PORT"] == "2222" and env["WORLD_SIZE"] == "3"
    assert env["RANK"] == {"fieldRef": {
        "fieldPath": "metadata.annotations['jobset.sigs.k8s.io/job-global-index']"}}
    tf = json.loads(str(env["TF_CONFIG"]).replace("$(GPUJOB_REPLICA_INDEX)", "1"))
    assert tf["task"] == {"type": "worker", "index": 1}
    assert tf["cluster"]["chief"] == ["run-1-master-0-0.run-1:2222"]
    assert tf["cluster"]["worker"] == ["run-1-worker-0-0.run-1:2222",
                                       "run-1-worker-1-0.run-1:2222"]
    spec = json.loads(str(env["CLUSTER_SPEC"]).replace("$(GPUJOB_REPLICA_INDEX)", "0"))
    assert spec["task"] == {"type": "workerpool1", "index": 0}
    # the index variable is defined before the values that expand it
    names = [e["name"] for e in pods(body)["worker"]["containers"][0]["env"]]
    assert names.index("GPUJOB_REPLICA_INDEX") < names.index("TF_CONFIG")


def test_launchers_find_one_world_of_the_pytorch_replicas(cli, write):
    """torchrun reads PET_* (every argument defaults from PET_<ARG>), JAX its coordinator
    variables (Kubeflow Trainer v2's torch and jax plugins): the master and workers are the
    world, counted as gpujob's local runs count them; parameter servers have no rank."""
    text = config(workers=2) + "  parameterServerType: n1-highmem-8\n  parameterServerCount: 3\n"
    body, _ = dry_run(cli, write(text))
    rank = {"fieldRef": {"fieldPath":
                         "metadata.annotations['jobset.sigs.k8s.io/job-global-index']"}}
    for name in ("master", "worker"):
        env = env_of(pods(body)[name])
        assert {k: env[k] for k in ("WORLD_SIZE", "PET_NNODES", "PET_MASTER_ADDR",
                                    "PET_MASTER_PORT", "PET_NPROC_PER_NODE",
                                    "JAX_COORDINATOR_ADDRESS", "JAX_NUM_PROCESSES")} == {
            "WORLD_SIZE": "3", "PET_NNODES": "3", "PET_MASTER_ADDR": "run-1-master-0-0.run-1",
            "PET_MASTER_PORT": "2222", "PET_NPROC_PER_NODE": "2",
            "JAX_COORDINATOR_ADDRESS": "run-1-master-0-0.run-1:2222", "JAX_NUM_PROCESSES": "3"}
        assert env["RANK"] == env["PET_NODE_RANK"] == env["JAX_PROCESS_ID"] == rank
    ps = env_of(pods(body)["ps"])
    assert ps["WORLD_SIZE"] == "3"
    assert not {"RANK", "PET_NODE_RANK", "PET_NNODES", "JAX_PROCESS_ID"} & set(ps)


def test_queue_namespace_and_spot_reach_the_jobset(cli, write):
    body, err = dry_run(cli, write(config()), "--queue", "team-a", "--namespace", "ml",
                        "--strategy", "spot")
    assert body["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "team-a"
    assert body["metadata"]["namespace"] == "ml"
    assert body["spec"]["suspend"] is True
    assert pods(body)["master"]["nodeSelector"]["cloud.google.com/gke-spot"] == "true"
    assert "/namespaces/ml/jobsets" in err


def test_each_submission_carries_a_label_of_its_own(cli, write):
    path = write(config())
    first, _ = dry_run(cli, path)
    second, _ = dry_run(cli, path)
    token = first["metadata"]["labels"]["gpujob-submission"]
    assert token and token != second["metadata"]["labels"]["gpujob-submission"]


def test_the_generated_job_id_becomes_a_kubernetes_name(cli, write):
    path = write(config(job_id="x").replace("jobId: x\n", ""),
                 name="a_rather_long_config_file_name_for_a_job.yaml")
    body, _ = dry_run(cli, path)
    name = body["metadata"]["name"]
    assert "_" not in name and name.startswith("a-rather-long")
    assert len(name + "-worker-0-0-abcde") <= 63


@pytest.mark.parametrize(("job_id", "message", "hint"), [
    ("run_", "the JobSet would be named 'run-', which is not a Kubernetes name",
     "give --job-id run"),
    ("a" * 50, f"the JobSet name '{'a' * 50}' is 50 characters",
     "give a --job-id of at most 46 characters"),
])
def test_a_job_id_kubernetes_cannot_take_is_refused_with_a_fix(cli, write, job_id, message, hint):
    result = cli("validate", "--service", "gke", write(config(job_id=job_id)))
    assert result.code == 1
    assert message in result.out and hint in result.out
    assert "config.yaml:1:8: jobId:" in result.out


def test_a_kubernetes_name_given_as_job_id_names_the_jobset(cli, write):
    body, _ = dry_run(cli, write(config()), "--job-id", "nightly-run")
    assert body["metadata"]["name"] == "nightly-run"
    # one AI Platform's pattern alone refuses still is, and one Kubernetes refuses says why
    assert "is not a valid jobId" in cli("submit", write(config()), "--service", "gke",
                                         "--dry-run", "--job-id", "night.run").err
    result = cli("submit", write(config()), "--service", "gke", "--dry-run", "--job-id",
                 "nightly-")
    assert result.code == 1
    assert "the JobSet would be named 'nightly-', which is not a Kubernetes name" in result.err
    # Vertex AI and AI Platform keep their pattern
    assert cli("submit", write(config()), "--service", "vertex", "--dry-run", "--job-id",
               "nightly-run").code == 1


@pytest.mark.parametrize(("edit", "message", "where"), [
    ({"count": 3}, "n1-standard-8 takes 1, 2, 4 × T4, not 3", "masterConfig.acceleratorConfig"),
    ({"machine": "a2-highgpu-1g", "gpu": "NVIDIA_TESLA_T4"},
     "a2-highgpu-1g does not take T4 GPUs", "masterConfig.acceleratorConfig"),
    ({"machine": "complex_model_m_gpu"}, "complex_model_m_gpu is not a Compute Engine machine "
     "type", "masterType"),
])
def test_machine_gpu_and_count_are_checked(cli, write, edit, message, where):
    result = cli("validate", "--service", "gke", write(config(**edit)))
    assert result.code == 1, result.err
    assert message in result.out
    assert f"trainingInput.{where}:" in result.out


def test_a_gpu_gke_does_not_name_is_refused_by_the_schema(cli, write):
    result = cli("validate", "--service", "gke", write(config(gpu="NVIDIA_TESLA_K80")))
    assert result.code == 1
    assert "NVIDIA_TESLA_K80" in result.out


def test_a_package_job_names_its_image(cli, write):
    package = """\
trainingInput:
  scaleTier: CUSTOM
  masterType: n1-standard-8
  packageUris: [gs://bucket/pkg/trainer-0.1.tar.gz]
  pythonModule: trainer.task
"""
    path = write(package)
    refused = cli("submit", path, "--service", "gke", "--dry-run")
    assert refused.code == 1
    assert "a Python package job on GKE needs an image to run in" in refused.err
    assert "--executor-image-uri" in refused.err
    body, _ = dry_run(cli, path, "--executor-image-uri", "python:3.11")
    pod = pods(body)["master"]
    assert pod["containers"][0]["image"] == "python:3.11"
    assert "/gcs/bucket/pkg/trainer-0.1.tar.gz" in pod["containers"][0]["command"][2]
    assert pod["volumes"][0]["csi"]["volumeAttributes"]["bucketName"] == "bucket"


def test_configs_that_do_not_translate_say_why(cli):
    result = cli("validate", "--service", "gke", str(ROOT / "configs"))
    assert result.code == 1
    assert "scaleTier BASIC_GPU does not translate to GKE" in result.out
    assert "GKE has no hyperparameter tuning service" in result.out
    assert "8 files checked: 5 valid, 3 invalid" in result.err
    for ok in ("t4-compute-engine.yaml", "custom-container.yaml", "a100-single-node.yaml"):
        said = [line for line in result.out.splitlines() if f"{ok}:" in line]
        assert all(": note: " in line for line in said), said  # notes only (region: not used)
    # a replica's boot disk is the node pool's on GKE: a note says so
    assert "trainingInput.masterConfig.diskConfig: note: diskConfig is not used on GKE: a " \
           "pod has no boot disk of its own" in result.out


def test_flags_gke_cannot_honour_are_refused(cli, write):
    result = cli("submit", write(config()), "--service", "gke", "--dry-run",
                 "--display-name", "x")
    assert result.code == 2
    assert "--display-name is not supported by the gke service" in result.err


def test_a_namespace_kubernetes_cannot_take_is_a_usage_error(cli, write):
    result = cli("submit", write(config()), "--service", "gke", "--dry-run",
                 "--namespace", "My_NS")
    assert result.code == 2
    assert "--namespace My_NS: cannot name a namespace" in result.err
    # the same for a command that only reads: checked as the command line is read
    assert cli("list", "--service", "gke", "--namespace", "My_NS").err == result.err
    # and --queue is a submit's: a listing refuses it, as it refuses a Google Cloud project
    assert cli("list", "--service", "gke", "--queue", "q").code == 2
    listed = cli("list", "--service", "gke", "--project", "p")
    assert listed.code == 2
    assert listed.err.startswith("error: --project is not supported by the gke service")


def test_what_a_jobset_requires_is_stated_by_gpujob():
    good = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": "j"}, "spec": {"replicatedJobs": [{
                "name": "w", "replicas": 2, "template": {"spec": {"template": {"spec": {
                    "restartPolicy": "Never", "containers": [{
                        "name": "c", "image": "i",
                        "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}}}}}]}}
    assert jobset.requirements(good) == []
    bad = json.loads(json.dumps(good))
    rjob = bad["spec"]["replicatedJobs"][0]
    rjob["name"] = "W_1"
    rjob["template"]["spec"]["template"]["spec"]["restartPolicy"] = "Always"
    rjob["template"]["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"][
        "nvidia.com/gpu"] = "0.5"
    problems = dict(jobset.requirements(bad))
    assert set(problems) == {
        ("spec", "replicatedJobs", 0, "name"),
        ("spec", "replicatedJobs", 0, "template", "spec", "template", "spec", "restartPolicy"),
        ("spec", "replicatedJobs", 0, "template", "spec", "template", "spec", "containers", 0,
         "resources", "limits", "nvidia.com/gpu")}


def test_validate_and_the_dry_run_import_neither_kubernetes_nor_google(write):
    """Checking and printing a JobSet is offline work: the kubernetes client (with pydantic and
    aiohttp) and the Google libraries are imported only by the job commands."""
    import subprocess
    import sys

    path = write(config())
    probe = ("import sys; from gpujob.cli import main; code = main({args!r}); "
             "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
             "('kubernetes', 'googleapiclient', 'google', 'httplib2', 'pydantic')); "
             "print(code, heavy, file=sys.stderr)")
    for args in (["validate", "--service", "gke", path],
                 ["submit", path, "--service", "gke", "--dry-run"]):
        result = subprocess.run([sys.executable, "-c", probe.format(args=args)],
                                capture_output=True, text=True, timeout=60)
        assert result.stderr.strip().endswith("[]"), (args, result.stderr)


def test_a_jobset_too_large_to_store_is_refused_without_being_built(cli, write):
    """Every pod lists every replica: a million workers would make a JobSet of about 100 MiB,
    which the API server cannot store (and gpujob does not build)."""
    result = cli("validate", "--service", "gke", write(config(workers=10**12)))
    assert result.code == 1
    assert "replicas make a JobSet of about" in result.out
    assert "the API server stores at most 1536 KiB" in result.out
    assert "trainingInput.workerCount:" in result.out
    body, _ = dry_run(cli, write(config(workers=500)))
    assert len(json.dumps(body)) < 1536 * 1024


def test_counted_workers_name_their_machine_type(cli, write):
    text = config().replace("  workerType: n1-standard-8\n", "")
    result = cli("validate", "--service", "gke", write(text))
    assert result.code == 1
    assert "trainingInput.workerCount: workerCount 1 needs a workerType" in result.out
    assert "hint: set trainingInput.workerType, e.g. n1-standard-8" in result.out


def test_a_submit_stages_no_package_for_gke(cli, write, tmp_path):
    """The submit would name a package it never uploaded: gpujob stages with a Google session,
    and a GKE client has none."""
    package = tmp_path / "trainer"
    package.mkdir()
    (package / "__init__.py").write_text("")
    text = "trainingInput:\n  scaleTier: CUSTOM\n  masterType: n1-standard-8\n" \
           "  pythonModule: trainer.task\n"
    result = cli("submit", write(text), "--service", "gke", "--dry-run", "--package-path",
                 str(package), "--staging-bucket", "gs://my-bucket",
                 "--executor-image-uri", "python:3")
    assert result.code == 2
    assert "--package-path is not supported by the gke service for a submit" in result.err


@pytest.mark.parametrize("uris", ["1", "{a: b}"])
def test_package_uris_that_are_no_list_are_the_schemas_to_report(cli, write, uris):
    """Not an internal error: GKE's rules and translation read a list only."""
    path = write("trainingInput:\n  scaleTier: CUSTOM\n  masterType: n1-standard-8\n"
                 f"  pythonModule: trainer.task\n  packageUris: {uris}\n")
    result = cli("validate", "--service", "gke", path)
    assert result.code == 1
    assert "trainingInput.packageUris: expected a list, found " in result.out
    assert "internal error" not in result.err
