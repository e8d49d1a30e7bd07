"""TPU slices on GKE: a native Vertex TPU config (machineType with tpuTopology) dry-runs into a
JobSet of one pod per TPU host, selecting the slice's nodes as xpk does, checked against the
topologies the GKE catalog lists (with its sources)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from fakes.kubernetes import refusals

from gpujob.catalog import files
from gpujob.services.gke import catalog, jobset

TPU = """\
workerPoolSpecs:
  - machineSpec:
      machineType: {machine}
      tpuTopology: {topology}
    replicaCount: 1
    containerSpec:
      imageUri: us-docker.pkg.dev/p/r/trainer:1
      args: [--steps, "10"]
"""


def dry_run(cli, path: str, *args: str) -> dict:
    result = cli("submit", path, "--service", "gke", "--dry-run", *args)
    assert result.code == 0, result.err
    return yaml.safe_load(result.out)


def job_of(body: dict) -> dict:
    (rjob,) = body["spec"]["replicatedJobs"]
    assert rjob["replicas"] == 1  # one slice
    return rjob["template"]["spec"]


def test_a_v5e_2x2_config_becomes_a_one_host_tpu_jobset(cli, write):
    body = dry_run(cli, write(TPU.format(machine="ct5lp-hightpu-4t", topology="2x2")),
                   "--job-id", "tpu_run")
    job = job_of(body)
    assert (job["parallelism"], job["completions"]) == (1, 1)
    pod = job["template"]["spec"]
    # xpk's TPU JobSet (src/xpk/commands/workload.py): the accelerator and topology labels, the
    # host's chips as google.com/tpu, the google.com/tpu toleration
    assert pod["nodeSelector"] == {"node.kubernetes.io/instance-type": "ct5lp-hightpu-4t",
                                   "cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice",
                                   "cloud.google.com/gke-tpu-topology": "2x2"}
    assert pod["containers"][0]["resources"] == {"limits": {"google.com/tpu": "4"}}
    assert pod["tolerations"] == [{"key": "google.com/tpu", "operator": "Exists",
                                   "effect": "NoSchedule"}]
    assert "nvidia.com/gpu" not in json.dumps(body)
    assert pod["containers"][0]["args"] == ["--steps", "10"]
    # what the API server, JobSet's webhook (the fake's independent copy) and gpujob require
    assert jobset.requirements(body) == []
    assert refusals(body) == []


def test_a_multi_host_slice_runs_one_pod_per_host_and_counts_them(cli, write):
    body = dry_run(cli, write(TPU.format(machine="ct6e-standard-4t", topology="4x8")))
    job = job_of(body)
    assert (job["parallelism"], job["completions"]) == (8, 8)  # 32 chips, 4 per host
    pod = job["template"]["spec"]
    assert pod["nodeSelector"]["cloud.google.com/gke-tpu-accelerator"] == "tpu-v6e-slice"
    env = {e["name"]: e.get("value", e.get("valueFrom")) for e in pod["containers"][0]["env"]}
    assert env["WORLD_SIZE"] == "8"
    assert env["RANK"] == {"fieldRef": {
        "fieldPath": "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}
    assert jobset.requirements(body) == [] and refusals(body) == []


def test_every_launcher_of_a_multi_host_slice_counts_its_hosts(cli, write):
    """torchrun and JAX as well as RANK/WORLD_SIZE: 4 hosts, each its pod's completion index
    (JobSet's global index is 0 on every host of the one Job)."""
    body = dry_run(cli, write(TPU.format(machine="ct5lp-hightpu-4t", topology="4x4")))
    job = job_of(body)
    assert (job["parallelism"], job["completions"]) == (4, 4)
    env = job["template"]["spec"]["containers"][0]["env"]
    names = [e["name"] for e in env]
    assert len(names) == len(set(names))  # no variable said twice
    values = {e["name"]: e.get("value", e.get("valueFrom")) for e in env}
    host = {"fieldRef": {
        "fieldPath": "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}
    assert (values["WORLD_SIZE"], values["PET_NNODES"], values["JAX_NUM_PROCESSES"]) == \
        ("4", "4", "4")
    assert values["RANK"] == values["PET_NODE_RANK"] == values["JAX_PROCESS_ID"] == host


def test_the_jobset_name_leaves_room_for_the_hosts_index(cli, write):
    path = write(TPU.format(machine="ct5lp-hightpu-4t", topology="16x16"),
                 name="a_rather_long_config_file_name_for_a_tpu_job_on_gke.yaml")
    body = dry_run(cli, path)
    assert job_of(body)["completions"] == 64
    assert len(body["metadata"]["name"] + "-master-0-63-abcde") <= 63
    assert refusals(body) == []


@pytest.mark.parametrize(("topology", "hosts"), [("2x2x1", 1), ("4x4x8", 32)])
def test_v5p_takes_the_3d_topologies_gke_offers(cli, write, topology, hosts):
    body = dry_run(cli, write(TPU.format(machine="ct5p-hightpu-4t", topology=topology)))
    assert job_of(body)["completions"] == hosts
    assert job_of(body)["template"]["spec"]["nodeSelector"][
        "cloud.google.com/gke-tpu-accelerator"] == "tpu-v5p-slice"


@pytest.mark.parametrize(("machine", "topology", "message", "hint", "where"), [
    ("ct5lp-hightpu-4t", "3x3", "GKE offers no TPU v5e slice of topology 3x3 on "
     "ct5lp-hightpu-4t", "use one of: 2x2, 2x4, 4x4, 4x8, 8x8, 8x16, 16x16", "4:20"),
    ("ct5p-hightpu-4t", "4x4x6", "GKE offers no TPU v5p slice of topology 4x4x6",
     "and 3-D ones of up to 140 4x4x4 cubes", "4:20"),
    ("ct5p-hightpu-4t", "8x4x4", "GKE offers no TPU v5p slice of topology 8x4x4",
     "smallest first", "4:20"),
])
def test_a_topology_gke_does_not_offer_is_refused_at_its_line(cli, write, machine, topology,
                                                              message, hint, where):
    result = cli("validate", "--service", "gke", write(TPU.format(machine=machine,
                                                                  topology=topology)))
    assert result.code == 1
    assert f"config.yaml:{where}: workerPoolSpecs[0].machineSpec.tpuTopology: {message}" \
        in result.out
    assert hint in result.out


def test_a_tpu_machine_without_a_topology_says_which_to_give(cli, write):
    text = TPU.format(machine="ct5lp-hightpu-4t", topology="x").replace(
        "      tpuTopology: x\n", "")
    result = cli("validate", "--service", "gke", write(text))
    assert result.code == 1
    assert "config.yaml:3:20: workerPoolSpecs[0].machineSpec.machineType: ct5lp-hightpu-4t is " \
           "a TPU v5e machine type: a GKE TPU slice needs its topology [gke.machine]" in result.out
    assert "set machineSpec.tpuTopology, one of: 2x2, 2x4" in result.out


def test_a_misspelt_tpu_machine_type_is_suggested(cli, write):
    result = cli("validate", "--service", "gke",
                 write(TPU.format(machine="ct5lp-hightpu-4", topology="2x2")))
    assert result.code == 1
    assert "did you mean 'ct5lp-hightpu-4t'?" in result.out


def test_a_tpu_job_is_one_slice(cli, write):
    text = TPU.format(machine="ct5lp-hightpu-4t", topology="2x2") + """\
  - machineSpec: {machineType: n1-standard-8}
    replicaCount: 2
    containerSpec: {imageUri: us-docker.pkg.dev/p/r/trainer:1}
"""
    result = cli("validate", "--service", "gke", write(text))
    assert result.code == 1
    assert "workerPoolSpecs[1].replicaCount: a TPU job runs one slice, in one worker pool; " \
           "this one also runs 2 × n1-standard-8 [gke.tpu]" in result.out


def test_the_catalogs_tpu_slices_have_sources_and_fill_whole_hosts():
    data = json.loads(Path(files.data_file(catalog)).read_text(encoding="utf-8"))
    assert data["tpus"]["source"]["as_of"] and data["tpus"]["source"]["refs"]
    for ref in data["tpus"]["source"]["refs"]:
        assert ref in data["source_key"]
    cat = files.built_in(catalog)
    assert cat.tpus["ct5lp-hightpu-4t"].label == "tpu-v5-lite-podslice"
    data["tpus"]["types"]["ct5lp-hightpu-4t"]["topologies"].append("1x2")
    assert catalog.integrity(data) == [
        "tpus.types.ct5lp-hightpu-4t: topology 1x2 is not a whole number of 4-chip hosts"]
