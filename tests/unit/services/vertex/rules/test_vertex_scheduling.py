"""Issue 22 item 1: how Vertex AI will schedule a job, checked offline (flex-start, reservations,
reservation-only GPUs, MIG partitions, RDMA set-up), and the flags for what Vertex offers that
AI Platform had no field for, written into the request as the discovery document defines it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fakes.discovery import request_violations

from gpujob.catalog import data_file

CONTAINER = "us-central1-docker.pkg.dev/demo/train/img:1"
AI_PLATFORM = f"""\
jobId: train
trainingInput:
  region: us-central1
  scaleTier: CUSTOM
  masterType: n1-standard-8
  masterConfig:
    acceleratorConfig: {{count: 1, type: NVIDIA_TESLA_T4}}
    imageUri: {CONTAINER}
"""
H100 = f"""\
jobId: train
trainingInput:
  region: us-central1
  scaleTier: CUSTOM
  masterType: a3-highgpu-8g
  masterConfig:
    acceleratorConfig: {{count: 8, type: NVIDIA_H100_80GB}}
    imageUri: {CONTAINER}
"""


def native(machine: str, *, scheduling: str = "", spec: str = "") -> str:
    return (f"workerPoolSpecs:\n- machineSpec: {machine}\n  replicaCount: 1\n"
            f"  containerSpec: {{imageUri: {CONTAINER}}}\n{scheduling}{spec}")


def dry_run(cli, path: str, *flags: str) -> tuple[Any, dict[str, Any] | None]:
    result = cli("submit", path, "--dry-run", "--project", "demo-proj", "--service", "vertex",
                 *flags)
    body = json.loads(result.out) if result.code == 0 else None
    return result, body


# -- flex-start -------------------------------------------------------------------------------

def test_flex_start_from_the_command_line_is_refused_for_t4s_at_the_gpu(cli, write):
    result = cli("validate", "--service", "vertex", write(AI_PLATFORM), "--strategy",
                 "flex_start")
    assert result.code == 1
    assert ("config.yaml:7:41: trainingInput.masterConfig.acceleratorConfig.type: the "
            "FLEX_START strategy (Dynamic Workload Scheduler) takes only A100, A100 80GB, L4, "
            "H100, H100 Mega, H200 and B200 GPUs, and worker pool 0 has T4 GPUs "
            "(n1-standard-8) [vertex.flex-start]") in result.out
    # the same job on Spot VMs is no one's business here
    assert cli("validate", "--service", "vertex", write(AI_PLATFORM), "--strategy",
               "spot").code == 0


def test_submit_refuses_a_flex_start_job_vertex_would_refuse_before_sending(cli, write):
    config = write(H100 + "  scheduling: {maxRunningTime: 864000s}\n")
    result, body = dry_run(cli, config, "--strategy", "FLEX_START")
    assert result.code == 1 and body is None
    assert ("trainingInput.scheduling.maxRunningTime: the FLEX_START strategy (Dynamic "
            "Workload Scheduler) runs a job for at most 7 days (604800s), and its timeout is "
            "864000s (10 days)") in result.err


def test_the_flex_start_gpus_are_the_catalogs_data(cli, write, tmp_path):
    """Drop L4 from the catalog's list: an L4 flex-start job is refused, no code changed."""
    data = json.loads(data_file("vertex").read_text(encoding="utf-8"))
    data["scheduling"]["flex_start"]["accelerators"].remove("NVIDIA_L4")
    catalog = tmp_path / "vertex.json"
    catalog.write_text(json.dumps(data), encoding="utf-8")
    config = write(native("{machineType: g2-standard-8, acceleratorType: NVIDIA_L4, "
                          "acceleratorCount: 1}", scheduling="scheduling: {strategy: "
                          "FLEX_START}\n"))
    assert cli("validate", "--service", "vertex", config).code == 0
    refused = cli("validate", "--service", "vertex", config, "--catalog", str(catalog))
    assert refused.code == 1
    assert "worker pool 0 has L4 GPUs (g2-standard-8) [vertex.flex-start]" in refused.out


# -- reservations and the other Vertex flags --------------------------------------------------

def test_reservation_flags_write_every_pools_reservation_affinity(cli, write):
    name = "projects/demo-proj/zones/us-central1-a/reservations/h100-pool"
    result, body = dry_run(cli, write(H100), "--reservation", name)
    assert result.code == 0, result.err
    machine = body["jobSpec"]["workerPoolSpecs"][0]["machineSpec"]
    assert machine["reservationAffinity"] == {
        "reservationAffinityType": "SPECIFIC_RESERVATION",
        "key": "compute.googleapis.com/reservation-name", "values": [name]}
    assert request_violations("aiplatform.v1", body, "projects", "locations", "customJobs",
                              "create") == []
    assert ("note: the machines must match the reservation exactly (machine type, GPU type "
            "and count, in a zone of the job's region: pool 0: a3-highgpu-8g with 8 × "
            "NVIDIA_H100_80GB); gpujob cannot see the reservation offline") in result.err
    result, body = dry_run(cli, write(H100), "--reservation", "any")
    assert body["jobSpec"]["workerPoolSpecs"][0]["machineSpec"]["reservationAffinity"] == {
        "reservationAffinityType": "ANY_RESERVATION"}


def test_the_other_vertex_flags_become_the_discovery_documents_fields(cli, write):
    tensorboard = "projects/demo-proj/locations/us-central1/tensorboards/7"
    experiment = "projects/demo-proj/locations/us-central1/metadataStores/default/contexts/e1"
    result, body = dry_run(cli, write(H100), "--persistent-resource-id", "pool-1",
                           "--disable-retries", "--tensorboard", tensorboard,
                           "--experiment", experiment)
    assert result.code == 0, result.err
    spec = body["jobSpec"]
    assert spec["persistentResourceId"] == "pool-1"
    assert spec["scheduling"] == {"disableRetries": True}
    assert (spec["tensorboard"], spec["experiment"]) == (tensorboard, experiment)
    assert request_violations("aiplatform.v1", body, "projects", "locations", "customJobs",
                              "create") == []


def test_conflicting_vertex_flags_are_refused_at_the_flag(cli, write):
    config = write(H100)
    result = cli("validate", "--service", "vertex", config, "--reservation", "any",
                 "--strategy", "FLEX_START")
    assert result.code == 1
    assert ("config.yaml (--reservation): the job draws on a reservation (ANY_RESERVATION), "
            "and its strategy is FLEX_START: Vertex does not combine the two "
            "[vertex.reservation]") in result.out
    result = cli("validate", "--service", "vertex", config, "--reservation", "any",
                 "--persistent-resource-id", "pool-1")
    assert result.code == 1
    assert "and it runs on a persistent resource (pool-1)" in result.out
    result = cli("validate", "--service", "vertex", config, "--disable-retries",
                 "--restart-job-on-worker-restart")
    assert result.code == 0
    assert ("config.yaml (--restart-job-on-worker-restart): warning: restartJobOnWorkerRestart "
            "does nothing with disableRetries, which sets it to false [vertex.retries]"
            ) in result.out


def test_a_reservation_named_short_draws_a_warning(cli, write):
    result = cli("validate", "--service", "vertex", write(H100), "--reservation", "h100-pool")
    assert result.code == 0
    assert ("warning: reservation 'h100-pool' is not a reservation's resource name, which the "
            "API asks for [vertex.reservation]\n  hint: give projects/PROJECT/zones/ZONE/"
            "reservations/h100-pool") in result.out


def test_tensorboard_and_experiment_take_resource_names(cli, write):
    result = cli("validate", "--service", "vertex", write(H100), "--experiment", "e1")
    assert result.code == 2
    assert result.err == (
        "error: --experiment e1: Vertex AI takes the resource's full name, projects/PROJECT/"
        "locations/REGION/metadataStores/default/contexts/NAME\n  hint: e.g. --experiment "
        "projects/PROJECT/locations/REGION/metadataStores/default/contexts/e1\n")


@pytest.mark.parametrize("flags", [["--reservation", "any"], ["--disable-retries"],
                                   ["--persistent-resource-id", "p"], ["--tensorboard", "t"]])
def test_ai_platform_refuses_the_vertex_flags(cli, write, flags):
    result = cli("submit", write(AI_PLATFORM), "--dry-run", "--service", "ai-platform", *flags)
    assert result.code == 2
    owners = "gke and vertex services" if flags[0] == "--reservation" else "vertex service"
    assert result.err.splitlines() == [
        f"error: {flags[0]} (a flag of the {owners}): not a flag of the ai-platform service",
        "  hint: leave it out, or choose its service with --service"]


def test_a_native_config_takes_the_flags_as_its_own_fields(cli, write):
    config = write(native("{machineType: a3-highgpu-8g, acceleratorType: NVIDIA_H100_80GB, "
                          "acceleratorCount: 8}", scheduling="scheduling: {strategy: SPOT}\n"))
    result, body = dry_run(cli, config, "--region", "us-central1", "--reservation", "any",
                           "--restart-job-on-worker-restart")
    assert result.code == 0, result.err
    assert body["jobSpec"]["scheduling"] == {"strategy": "SPOT",
                                             "restartJobOnWorkerRestart": True}
    assert body["jobSpec"]["workerPoolSpecs"][0]["machineSpec"]["reservationAffinity"] == {
        "reservationAffinityType": "ANY_RESERVATION"}
    config = write(native("{machineType: a3-highgpu-8g, acceleratorType: NVIDIA_H100_80GB, "
                          "acceleratorCount: 8}", scheduling="scheduling: {strategy: "
                          "FLEX_START}\n"))
    result, _ = dry_run(cli, config, "--region", "us-central1", "--reservation", "any")
    assert result.code == 1
    refused = ("config.yaml (--reservation): workerPoolSpecs[0].machineSpec.reservationAffinity: "
               "the job draws on a reservation")
    assert refused in result.err
    validated = cli("validate", "--service", "vertex", config, "--reservation", "any")
    assert validated.code == 1 and refused in validated.out  # the same verdict


# -- capacity, MIG and RDMA -------------------------------------------------------------------

def test_gb200_needs_a_reservation_and_b200_gets_a_note(cli, write):
    gb200 = write(native("{machineType: a4x-highgpu-4g, acceleratorType: NVIDIA_GB200, "
                         "acceleratorCount: 4}"))
    result = cli("validate", "--service", "vertex", gb200)
    assert result.code == 1
    assert ("workerPoolSpecs[0].machineSpec.acceleratorType: GB200 capacity (a4x-highgpu-4g) "
            "comes only through a reservation, and worker pool 0 draws on none "
            "[vertex.capacity]") in result.out
    assert "set_nccl_env.sh" in result.out  # [vertex.rdma]: GB200 machines have RDMA
    b200 = write(native("{machineType: a4-highgpu-8g, acceleratorType: NVIDIA_B200, "
                        "acceleratorCount: 8}"), "b200.yaml")
    result = cli("validate", "--service", "vertex", b200)
    assert result.code == 0
    assert ("note: B200 machines (a4-highgpu-8g) are usually had through a reservation or as "
            "Spot VMs; on demand, the job may wait long for them [vertex.capacity]") in result.out
    assert ("note: a4-highgpu-8g machines (B200 GPUs) have GPUDirect-RDMA: the training "
            "command needs `source /usr/local/gib/scripts/set_nccl_env.sh` run before it, for "
            "NCCL to use it [vertex.rdma]") in result.out
    reserved = cli("validate", "--service", "vertex", b200, "--reservation", "any")
    assert reserved.code == 0 and "usually had through a reservation" not in reserved.out


@pytest.mark.parametrize(("machine", "finding"), [
    ("{machineType: a2-highgpu-2g, acceleratorType: NVIDIA_TESLA_A100, acceleratorCount: 2, "
     "gpuPartitionSize: 1g.5gb}",
     "workerPoolSpecs[0].machineSpec.acceleratorCount: worker pool 0 partitions its GPUs "
     "(gpuPartitionSize 1g.5gb), and then takes one GPU, not 2 [vertex.gpu-partition]"),
    ("{machineType: a3-highgpu-8g, acceleratorType: NVIDIA_H100_80GB, acceleratorCount: 8, "
     "reservationAffinity: {reservationAffinityType: SPECIFIC_RESERVATION}}",
     "workerPoolSpecs[0].machineSpec.reservationAffinity: a SPECIFIC_RESERVATION names its "
     "reservation: key compute.googleapis.com/reservation-name and values [its resource name] "
     "[vertex.reservation]"),
], ids=["a MIG-partitioned machine takes one GPU", "a specific reservation names it"])
def test_a_machine_spec_vertex_refuses_is_refused_at_its_field(cli, write, machine, finding):
    result = cli("validate", "--service", "vertex", write(native(machine)))
    assert result.code == 1
    assert finding in result.out


def test_one_partitioned_gpu_is_accepted(cli, write):
    config = write(native("{machineType: a2-highgpu-1g, acceleratorType: NVIDIA_TESLA_A100, "
                          "acceleratorCount: 1, gpuPartitionSize: 1g.5gb}"))
    result = cli("validate", "--service", "vertex", config)
    assert result.code == 0 and "gpu-partition" not in result.out


# -- the values of --reservation and --persistent-resource-id ---------------------------------

@pytest.mark.parametrize("flag", ["--reservation", "--persistent-resource-id", "--tensorboard"])
def test_an_empty_value_is_refused_at_the_flag(cli, write, flag):
    result, body = dry_run(cli, write(H100), flag, "")  # a script's unset "$VARIABLE"
    assert (result.code, body) == (2, None)
    assert result.err.startswith(f"error: {flag} '': ")


@pytest.mark.parametrize("value", ["\x1b[2J\x1b]0;x\x07", "my reservation", "$(id)", "H100-pool",
                                   "projects/$(id)/zones/us-central1-a/reservations/r1",
                                   "projects/p/zones/us-central1-a/reservations/r 1"])
def test_a_reservation_that_is_not_a_reservations_name_is_refused_at_the_flag(cli, write,
                                                                              value):
    result, _ = dry_run(cli, write(H100), "--reservation", value)
    assert result.code == 2
    assert result.err.splitlines()[0].endswith(
        ": not a reservation: give its resource name, projects/PROJECT/zones/ZONE/reservations/"
        "NAME (NAME: up to 63 lowercase letters, digits and hyphens, starting with a letter), "
        "or any")
    assert result.err.splitlines()[1].startswith(
        "  hint: `gcloud compute reservations list --project PROJECT` lists them")


def test_a_reservation_in_another_regions_zone_is_refused(cli, write):
    name = "projects/demo-proj/zones/europe-west4-a/reservations/r1"
    result, body = dry_run(cli, write(H100), "--reservation", name)
    assert (result.code, body) == (1, None)
    assert (f"config.yaml (--reservation): reservation {name} is in zone europe-west4-a, and the "
            "job runs in us-central1: a reservation is zonal, and Vertex AI draws on it from its "
            "own region alone [vertex.reservation]\n  hint: run the job in europe-west4 "
            "(--region), or name a reservation in a zone of us-central1") in result.err
    for fine in ("projects/demo-proj/zones/us-central1-c/reservations/r1/reservationBlocks/b1",
                 "ANY"):
        assert dry_run(cli, write(H100), "--reservation", fine)[0].code == 0


def test_a_native_configs_reservation_is_checked_as_the_flags_is(cli, write):
    affinity = ("reservationAffinity: {reservationAffinityType: SPECIFIC_RESERVATION, key: "
                "compute.googleapis.com/reservation-name, values: [VALUE]}")
    machine = ("{machineType: a3-highgpu-8g, acceleratorType: NVIDIA_H100_80GB, "
               f"acceleratorCount: 8, {affinity}}}")
    refused, _ = dry_run(cli, write(native(machine.replace("VALUE", "'my pool'"))),
                         "--region", "us-central1")
    assert refused.code == 1
    assert "reservation 'my pool' is not a reservation's name [vertex.reservation]" in refused.err
    elsewhere, _ = dry_run(cli, write(native(machine.replace(
        "VALUE", "projects/p/zones/asia-east1-a/reservations/r1"))), "--region", "us-central1")
    assert elsewhere.code == 1
    assert "is in zone asia-east1-a, and the job runs in us-central1" in elsewhere.err


@pytest.mark.parametrize("value, example", [
    ("pr/../x", "ID"), ("PR 1", "ID"), ("pool-", "ID"), ("1pool", "ID"), ("a" * 64, "ID"),
    ("projects/demo-proj/locations/us-central1/persistentResources/pool-1", "pool-1")])
def test_a_persistent_resource_id_is_checked_against_its_format(cli, write, value, example):
    result, _ = dry_run(cli, write(H100), "--persistent-resource-id", value)
    assert result.code == 2
    assert result.err.splitlines() == [
        f"error: --persistent-resource-id {value}: not a persistent resource's ID: up to 63 "
        "lowercase letters, digits and hyphens, starting with a letter and not ending with a "
        "hyphen",
        f"  hint: give the ID alone, e.g. --persistent-resource-id {example} (`gcloud ai "
        "persistent-resources list --region REGION` lists them)"]
