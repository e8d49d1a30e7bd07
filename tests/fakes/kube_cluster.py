"""What a GKE cluster holds for a preflight to read, arranged on a ``FakeKubernetes``: JobSet's
controller (its image names its version), Kueue's LocalQueue, ClusterQueue and ResourceFlavor
(``kueue.x-k8s.io/v1beta1``), nodes with GKE's labels and allocatable GPUs, the Cloud Storage
FUSE CSI driver, GPUDirect's Network and GKENetworkParamSet objects (``networking.gke.io/v1``,
cluster-scoped, as xpk's ``core/network.py`` writes them). Shapes: the Kubernetes and Kueue API
references."""

from __future__ import annotations

from typing import Any

from fakes.kubernetes import FakeKubernetes

KUEUE = "/apis/kueue.x-k8s.io/v1beta1"
JOBSET_DEPLOYMENT = "/apis/apps/v1/namespaces/jobset-system/deployments/jobset-controller-manager"
FUSE = "/apis/storage.k8s.io/v1/csidrivers/gcsfuse.csi.storage.gke.io"
NETWORKS = "/apis/networking.gke.io/v1"
COMPUTE_DOMAINS = "resource.nvidia.com/v1beta1"


def jobset(fake: FakeKubernetes, version: str = "v0.10.1") -> None:
    fake.served.add("jobset.x-k8s.io/v1alpha2")
    fake.objects[JOBSET_DEPLOYMENT] = {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "jobset-controller-manager", "namespace": "jobset-system"},
        "spec": {"template": {"spec": {"containers": [
            {"name": "manager", "image": f"registry.k8s.io/jobset/jobset:{version}"}]}}}}


def no_jobset(fake: FakeKubernetes) -> None:
    fake.served.discard("jobset.x-k8s.io/v1alpha2")
    fake.objects.pop(JOBSET_DEPLOYMENT, None)


def node(fake: FakeKubernetes, name: str, machine: str, gpu: str | None = None,
         count: int = 0, ready: bool = True, cpu: str = "7910m",
         memory: str = "27000Mi") -> None:
    """A node; ``cpu`` and ``memory``: its allocatable (by default an n1-standard-8's)."""
    labels = {"node.kubernetes.io/instance-type": machine,
              "cloud.google.com/gke-nodepool": f"{machine}-pool"}
    allocatable: dict[str, Any] = {"cpu": cpu, "memory": memory}
    if gpu:
        labels["cloud.google.com/gke-accelerator"] = gpu
        if ready:
            allocatable["nvidia.com/gpu"] = str(count)
    fake.nodes.append({"apiVersion": "v1", "kind": "Node",
                       "metadata": {"name": name, "labels": labels},
                       "status": {"allocatable": allocatable}})


def queue(fake: FakeKubernetes, name: str, cluster_queue: str = "cq", ns: str = "default",
          gpu: str | None = "nvidia-tesla-t4") -> None:
    """A LocalQueue ``name`` of ClusterQueue ``cluster_queue``, which covers cpu, memory and
    nvidia.com/gpu with one flavor (of ``gpu`` nodes)."""
    fake.served.add("kueue.x-k8s.io/v1beta1")
    fake.objects[f"{KUEUE}/namespaces/{ns}/localqueues/{name}"] = {
        "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue",
        "metadata": {"name": name, "namespace": ns}, "spec": {"clusterQueue": cluster_queue}}
    flavor = f"{gpu or 'cpu'}-flavor"
    fake.objects[f"{KUEUE}/clusterqueues/{cluster_queue}"] = {
        "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue",
        "metadata": {"name": cluster_queue}, "spec": {"namespaceSelector": {}, "resourceGroups": [
            {"coveredResources": ["cpu", "memory", "nvidia.com/gpu"], "flavors": [
                {"name": flavor, "resources": [
                    {"name": "cpu", "nominalQuota": 100}, {"name": "memory",
                                                           "nominalQuota": "400Gi"},
                    {"name": "nvidia.com/gpu", "nominalQuota": 16}]}]}]}}
    fake.objects[f"{KUEUE}/resourceflavors/{flavor}"] = {
        "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ResourceFlavor",
        "metadata": {"name": flavor},
        "spec": {"nodeLabels": {"cloud.google.com/gke-accelerator": gpu} if gpu else {}}}


def network(fake: FakeKubernetes, name: str, params: bool = True) -> None:
    """GPUDirect network ``name``: its Network and (``params``) its GKENetworkParamSet; the
    cluster then serves networking.gke.io/v1 (multi-networking on)."""
    fake.served.add("networking.gke.io/v1")
    fake.objects[f"{NETWORKS}/networks/{name}"] = {
        "apiVersion": "networking.gke.io/v1", "kind": "Network", "metadata": {"name": name},
        "spec": {"type": "Device", "parametersRef": {
            "group": "networking.gke.io", "kind": "GKENetworkParamSet", "name": name}}}
    if params:
        fake.objects[f"{NETWORKS}/gkenetworkparamsets/{name}"] = {
            "apiVersion": "networking.gke.io/v1", "kind": "GKENetworkParamSet",
            "metadata": {"name": name},
            "spec": {"vpc": f"{name}-vpc", "vpcSubnet": f"{name}-subnet",
                     "deviceMode": "RDMA" if name.startswith("rdma-") else "NetDevice"}}


def dra_driver(fake: FakeKubernetes) -> None:
    """NVIDIA's DRA driver for GPUs: the cluster serves ComputeDomains
    (``resource.nvidia.com/v1beta1``, namespaced)."""
    fake.served.add(COMPUTE_DOMAINS)


def fuse(fake: FakeKubernetes) -> None:
    fake.objects[FUSE] = {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver",
                          "metadata": {"name": "gcsfuse.csi.storage.gke.io"}, "spec": {}}


def ready(fake: FakeKubernetes, with_queue: str | None = "team-a") -> None:
    """A cluster that has all a T4 job on n1-standard-8 needs."""
    jobset(fake)
    for i in range(3):
        node(fake, f"gke-t4-{i}", "n1-standard-8", "nvidia-tesla-t4", 2)
    if with_queue:
        queue(fake, with_queue)
    fuse(fake)
