"""``gpujob preflight --service gke``: the config checked as submit checks it, then the fake
cluster on 127.0.0.1 read through the ``kubernetes`` client: every piece the JobSet would wait
for is one line with its fix, exit 1; a cluster that has them all, exit 0; nothing is sent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakes import kube_cluster
from fakes.faults import Reply
from fakes.kubernetes import FakeKubernetes, status
from gke_cluster import CONTEXT, T4_JOB, connect

CONFIG = T4_JOB


@pytest.fixture
def cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeKubernetes]:
    with FakeKubernetes() as fake:
        connect(fake, tmp_path, monkeypatch)
        yield fake


@pytest.fixture
def preflight(cli, write):
    def run(*flags: str, config: str = CONFIG):
        return cli("preflight", write(config), "--service", "gke", *flags)

    return run


def lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if line]


def test_a_cluster_with_everything_is_ready(cluster, preflight):
    kube_cluster.ready(cluster)
    result = preflight("--queue", "team-a")
    assert result.code == 0, result.out + result.err
    assert lines(result.out) == [f"ready: context {CONTEXT}, namespace default: "
                                 "n1-standard-8 with nvidia-tesla-t4; "
                                 "n1-standard-8 with nvidia-tesla-t4"]
    assert "nothing was sent" in result.err
    assert not cluster.route_calls("POST", "jobsets") and not cluster.jobsets


def test_every_missing_piece_is_one_line_with_its_fix(cluster, preflight):
    kube_cluster.no_jobset(cluster)
    kube_cluster.queue(cluster, "team-b")  # Kueue is there, the job's LocalQueue is not
    result = preflight("--queue", "team-a")
    assert result.code == 1
    assert lines(result.out) == [
        "missing: JobSet: the cluster does not serve jobset.x-k8s.io/v1alpha2 (JobSet is not "
        "installed); fix: kubectl apply --server-side -f https://github.com/kubernetes-sigs/"
        "jobset/releases/download/v0.10.1/manifests.yaml",
        "missing: LocalQueue team-a: not in namespace default; fix: create it (kind "
        "LocalQueue, namespace default, spec.clusterQueue naming a ClusterQueue), or give "
        "--queue team-b",
        "check: node pool: no n1-standard-8 with nvidia-tesla-t4 node now; a node pool of "
        "that machine that scales from zero, or node auto-provisioning, adds one when the pods "
        "wait (the Kubernetes API shows neither); check with gcloud container node-pools list "
        "--cluster CLUSTER --location LOCATION (a pool of that machine with autoscaling), else "
        "gcloud container node-pools create POOL --cluster CLUSTER --location LOCATION "
        "--machine-type n1-standard-8 --accelerator type=nvidia-tesla-t4,count=2,"
        "gpu-driver-version=latest",
    ]
    assert f"Preflight: 2 missing pieces on context {CONTEXT}, namespace default: the JobSet " \
           "would wait; 1 thing the cluster cannot show (check: lines); nothing was sent" \
        in result.err
    assert not cluster.route_calls("POST", "jobsets")


def test_gpus_without_their_driver_and_a_queue_without_their_flavor(cluster, preflight):
    kube_cluster.jobset(cluster)
    kube_cluster.node(cluster, "gke-t4-0", "n1-standard-8", "nvidia-tesla-t4", 2, ready=False)
    kube_cluster.queue(cluster, "team-a", gpu="nvidia-l4")
    result = preflight("--queue", "team-a")
    assert result.code == 1
    out = lines(result.out)
    assert out[0] == ("missing: ClusterQueue cq: no flavor for nvidia.com/gpu matches "
                      "n1-standard-8 with nvidia-tesla-t4 nodes (flavors: nvidia-l4-flavor); "
                      "fix: add a ResourceFlavor with nodeLabels cloud.google.com/"
                      "gke-accelerator: nvidia-tesla-t4 to its nvidia.com/gpu resourceGroup")
    assert out[1].startswith("missing: drivers: no n1-standard-8 with nvidia-tesla-t4 node has "
                             "2 allocatable nvidia.com/gpu (1 node): its driver or device "
                             "plugin is not ready; fix: kubectl apply -f https://raw."
                             "githubusercontent.com/GoogleCloudPlatform/container-engine-"
                             "accelerators/")
    assert len(out) == 2


def test_an_old_jobset_and_no_kueue(cluster, preflight):
    kube_cluster.ready(cluster, with_queue=None)
    kube_cluster.jobset(cluster, "v0.5.2")
    result = preflight("--queue", "team-a")
    assert result.code == 1
    assert lines(result.out) == [
        "missing: JobSet: v0.5.2 is installed; the JobSet needs v0.6.0 or newer (RANK is read "
        "from its job-global-index annotation); fix: kubectl apply --server-side -f "
        "https://github.com/kubernetes-sigs/jobset/releases/download/v0.10.1/manifests.yaml",
        "missing: Kueue: the cluster does not serve kueue.x-k8s.io, so a JobSet queued in "
        "team-a stays suspended; fix: kubectl apply --server-side -f https://github.com/"
        "kubernetes-sigs/kueue/releases/download/v0.17.1/manifests.yaml (or submit without "
        "--queue)"]


def test_a_package_job_needs_the_cloud_storage_fuse_driver(cluster, preflight):
    kube_cluster.ready(cluster, with_queue=None)
    del cluster.objects[kube_cluster.FUSE]
    config = CONFIG.replace("    imageUri: us-docker.pkg.dev/p/r/trainer:1\n", "").replace(
        "  scaleTier: CUSTOM\n", "  scaleTier: CUSTOM\n  pythonModule: trainer.task\n"
        "  packageUris: [gs://bucket/trainer-0.1.tar.gz]\n")
    result = preflight("--executor-image-uri", "us-docker.pkg.dev/p/r/py:1", config=config)
    assert result.code == 1, result.err
    assert lines(result.out) == [
        "missing: Cloud Storage FUSE: the CSI driver is not enabled (the job mounts its "
        "packages' bucket with it); fix: gcloud container clusters update CLUSTER --location "
        "LOCATION --update-addons GcsFuseCsiDriver=ENABLED (the pods' service account needs "
        "Workload Identity access to the bucket)"]


def test_a_tpu_slice_needs_nodes_of_its_topology(cluster, preflight):
    kube_cluster.ready(cluster, with_queue=None)
    config = """\
workerPoolSpecs:
  - machineSpec: {machineType: ct5lp-hightpu-4t, tpuTopology: 2x4}
    replicaCount: 1
    containerSpec: {imageUri: us-docker.pkg.dev/p/r/trainer:1}
"""
    result = preflight(config=config)
    assert result.code == 0, "a node pool at zero nodes is not said to be missing"
    assert lines(result.out) == [
        "check: node pool: no ct5lp-hightpu-4t with tpu-v5-lite-podslice (2x4) node now; a "
        "node pool of that machine that scales from zero, or node auto-provisioning, adds one "
        "when the pods wait (the Kubernetes API shows neither); check with gcloud container "
        "node-pools list --cluster CLUSTER --location LOCATION (a pool of that machine with "
        "autoscaling), else gcloud container node-pools create POOL --cluster CLUSTER "
        "--location LOCATION --machine-type ct5lp-hightpu-4t --tpu-topology 2x4"]
    assert f"Preflight: nothing is missing on context {CONTEXT}, namespace default; 1 thing " \
        "the cluster cannot show (check: lines): the JobSet waits if they are not there; " \
        "nothing was sent" in result.err


def test_json_lists_what_is_missing(cluster, preflight):
    kube_cluster.ready(cluster)
    kube_cluster.no_jobset(cluster)
    result = preflight("--queue", "team-a", "--format", "json")
    assert result.code == 1
    answer = json.loads(result.out)
    assert answer["ready"] is False and answer["context"] == CONTEXT
    assert [m["what"].split(":")[0] for m in answer["missing"]] == ["JobSet"]
    assert answer["check"] == []


def test_json_lists_a_machine_with_no_node_now_apart_from_what_is_missing(cluster, preflight):
    kube_cluster.jobset(cluster)
    kube_cluster.fuse(cluster)
    result = preflight("--format", "json")
    assert result.code == 0, result.err
    answer = json.loads(result.out)
    assert answer["ready"] is True and answer["missing"] == []
    assert [c["what"].split(";")[0] for c in answer["check"]] == [
        "node pool: no n1-standard-8 with nvidia-tesla-t4 node now"]


def test_an_invalid_config_is_reported_before_the_cluster_is_read(cluster, preflight):
    result = preflight(config=CONFIG.replace("count: 2, type", "count: 3, type"))
    assert result.code == 1
    assert "takes 1, 2, 4 × T4, not 3" in result.err
    assert cluster.calls == []


def test_what_the_user_may_not_read_is_a_note_not_a_missing_piece(cluster, preflight):
    kube_cluster.ready(cluster)
    forbidden = Reply(403, status(403, "Forbidden", 'clusterqueues.kueue.x-k8s.io "cq" is '
                                  'forbidden: User "dev" cannot get resource "clusterqueues"'))
    cluster.inject(f"GET {kube_cluster.KUEUE}/clusterqueues/cq", forbidden)
    cluster.inject("GET /api/v1/nodes", forbidden)
    result = preflight("--queue", "team-a")
    assert result.code == 0, result.out + result.err
    assert lines(result.out)[0].startswith("ready: ")
    assert f"note: not checked: {kube_cluster.KUEUE}/clusterqueues/cq (403 Forbidden: the " \
           "kubeconfig's user may not read it)" in result.err
    assert "note: not checked: /api/v1/nodes (403 Forbidden" in result.err


MEGA = """\
jobId: run_1
trainingInput:
  scaleTier: CUSTOM
  masterType: a3-megagpu-8g
  masterConfig:
    imageUri: us-docker.pkg.dev/p/r/trainer:1
    containerCommand: [torchrun, train.py]
  workerCount: 1
  workerType: a3-megagpu-8g
"""


def mega_nodes(cluster: FakeKubernetes, cpu: str = "207410m", memory: str = "1871567Mi"
               ) -> None:
    """2 A3 Mega nodes; allocatable by default as GKE's reservation leaves it (208 vCPU,
    1872 GiB: test_gke_sizes.py works it out)."""
    kube_cluster.jobset(cluster)
    for i in range(2):
        kube_cluster.node(cluster, f"gke-mega-{i}", "a3-megagpu-8g", "nvidia-h100-mega-80gb", 8,
                          cpu=cpu, memory=memory)


def test_gpudirect_needs_each_network_its_pods_attach(cluster, preflight):
    """2 A3 Mega nodes: GPUDirect-TCPXO attaches eth1..eth8 to vpc1..vpc8, each a Network
    with its GKENetworkParamSet (networking.gke.io/v1); one line for each that is missing."""
    mega_nodes(cluster)
    for i in range(1, 9):
        if i != 3:
            kube_cluster.network(cluster, f"vpc{i}", params=i != 5)
    result = preflight("--gpudirect", "on", config=MEGA)
    assert result.code == 1, result.out + result.err
    assert lines(result.out) == [
        "missing: GPUDirect network vpc3: no Network vpc3 (networking.gke.io/v1), which the "
        "a3-megagpu-8g pods' eth3 attaches to; fix: create Network vpc3 (spec.type: Device, "
        "spec.parametersRef: GKENetworkParamSet vpc3) and GKENetworkParamSet vpc3 (spec.vpc "
        "and spec.vpcSubnet: its VPC and subnet, spec.deviceMode: NetDevice)",
        "missing: GPUDirect network vpc5: Network vpc5 has no GKENetworkParamSet vpc5 (its "
        "VPC and subnet); fix: create GKENetworkParamSet vpc5 (spec.vpc and spec.vpcSubnet: "
        "its VPC and subnet, spec.deviceMode: NetDevice)"]
    # --gpudirect auto (the default): a submit sends the JobSet without GPUDirect, so the
    # networks are notes, each with its fix, and nothing is missing
    result = preflight(config=MEGA)
    assert result.code == 0, result.out + result.err
    assert ("note: GPUDirect network vpc3: no Network vpc3 (networking.gke.io/v1), which the "
            "a3-megagpu-8g pods' eth3 attaches to; fix: create Network vpc3") in result.err
    assert ("note: --gpudirect auto: until the cluster has the networks, a submit sends the "
            "JobSet without GPUDirect-TCPXO (slower between nodes); with --gpudirect on they "
            "are missing pieces") in result.err
    kube_cluster.network(cluster, "vpc3")
    kube_cluster.network(cluster, "vpc5")
    result = preflight(config=MEGA)
    assert result.code == 0, result.out + result.err
    assert lines(result.out)[0].startswith(f"ready: context {CONTEXT}, namespace default: "
                                           "a3-megagpu-8g with nvidia-h100-mega-80gb")


def test_gpudirect_on_a_cluster_without_multi_networking(cluster, preflight):
    mega_nodes(cluster)
    result = preflight("--gpudirect", "on", config=MEGA)
    assert result.code == 1
    assert lines(result.out) == [
        "missing: GPUDirect networks: the cluster does not serve networking.gke.io/v1 "
        "(multi-networking is off), so pods attached to vpc1..vpc8 are refused; fix: gcloud "
        "container clusters update CLUSTER --location LOCATION --enable-multi-networking "
        "(Dataplane V2), then create a Network and a GKENetworkParamSet for each of "
        "vpc1..vpc8 (or submit with --gpudirect off)"]
    # without GPUDirect the pods attach no network: nothing to check
    assert preflight("--gpudirect", "off", config=MEGA).code == 0


def test_nodes_that_keep_back_more_than_gpujob_reckons_cannot_take_the_pods(cluster,
                                                                            preflight):
    """Each pod requests its node's allocatable as gpujob reckons it, less 500m and 1 GiB for
    GKE's own pods (206910m, 1870543Mi): nodes with less allocatable never take it."""
    mega_nodes(cluster, cpu="206", memory="1800Gi")
    for name in ("vpc1", "vpc2", "vpc3", "vpc4", "vpc5", "vpc6", "vpc7", "vpc8"):
        kube_cluster.network(cluster, name)
    result = preflight(config=MEGA)
    assert result.code == 1
    assert lines(result.out) == [
        "missing: CPU and memory: no a3-megagpu-8g with nvidia-h100-mega-80gb node has the "
        "206910m cpu, 1870543Mi memory each pod requests (the most allocatable: 206000m cpu, "
        "1843200Mi memory), so the pods never schedule; fix: give --catalog FILE with a larger "
        "pod_settings.node_reserve.system_pods (gpujob gpus --service gke --export-catalog "
        "prints the built-in catalog)"]


def test_an_exec_plugin_that_hangs_is_stopped_at_the_request_timeout(cluster, preflight,
                                                                     tmp_path, monkeypatch):
    import sys

    import yaml

    script = tmp_path / "plugin.py"
    script.write_text("import time\ntime.sleep(300)\n")
    path = tmp_path / "kubeconfig"
    data = yaml.safe_load(path.read_text())
    data["users"][0]["user"] = {"exec": {"apiVersion": "client.authentication.k8s.io/v1beta1",
                                         "command": sys.executable, "args": [str(script)]}}
    path.write_text(yaml.safe_dump(data))
    result = preflight("--request-timeout", "1")
    assert result.code == 3
    assert f"the credentials of context {CONTEXT} could not be obtained: its exec plugin " \
           f"{sys.executable} gave no answer within 1 s (--request-timeout); it was stopped" \
           in result.err
    assert cluster.calls == []
