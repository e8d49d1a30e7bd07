"""``gpujob preflight --service gke``: with the config checked as submit checks it, the cluster
of the kubeconfig's context read (nothing is changed) for what the JobSet needs to run rather
than wait for ever: JobSet installed and new enough, with ``--queue`` Kueue's LocalQueue and a
ClusterQueue flavor that covers the accelerator, nodes of the machine type with the GPU (or TPU
slice) and their drivers ready (allocatable ``nvidia.com/gpu``), the Cloud Storage FUSE CSI
driver for a job that mounts a bucket, and with GPUDirect the Network and GKENetworkParamSet
objects of each network its pods attach. Every missing piece is one line with its fix (stdout),
exit 1. What is read: ``docs/gke.md``; sources: the Kubernetes, Kueue and JobSet APIs, GKE's
GPU, TPU and Cloud Storage FUSE pages.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from gpujob.console import CONSOLE
from gpujob.services.gke import capacity, domains, sizes, tpu, translate
from gpujob.services.gke import networks as networks_
from gpujob.services.gke.reads import Cluster

if TYPE_CHECKING:
    from gpujob.gcp.settings import GcpSettings

# JobSet writes the jobset.sigs.k8s.io/job-global-index annotation RANK is read from from
# v0.6.0 (kubernetes-sigs/jobset release notes; GKE-RUNS.md §10)
JOBSET_MIN = (0, 6, 0)
JOBSET_INSTALL = ("kubectl apply --server-side -f https://github.com/kubernetes-sigs/jobset/"
                  "releases/download/v0.10.1/manifests.yaml")
KUEUE_INSTALL = ("kubectl apply --server-side -f https://github.com/kubernetes-sigs/kueue/"
                 "releases/download/v0.17.1/manifests.yaml")
DRIVER_INSTALL = ("kubectl apply -f https://raw.githubusercontent.com/GoogleCloudPlatform/"
                  "container-engine-accelerators/master/nvidia-driver-installer/cos/"
                  "daemonset-preloaded.yaml")
FUSE_DRIVER = "gcsfuse.csi.storage.gke.io"
KUEUE_VERSIONS = ("v1beta2", "v1beta1")


class Gap(NamedTuple):
    what: str
    fix: str
    sure: bool = True  # False: what the cluster cannot show (a pool at zero nodes): to check


class Pods(NamedTuple):
    """What one ReplicatedJob's pods ask of the nodes."""

    rjob: str
    selector: dict[str, str]
    resource: str | None  # nvidia.com/gpu, google.com/tpu
    count: int  # type: ignore[assignment]  # the field hides tuple.count
    requests: dict[str, str]  # the CPU and memory a GPU pod requests (``sizes``)

    @property
    def machine(self) -> str:
        return self.selector.get(translate.MACHINE_LABEL, "?")

    @property
    def accelerator(self) -> str | None:
        return self.selector.get(translate.ACCELERATOR_LABEL) or \
            self.selector.get(tpu.ACCELERATOR_LABEL)

    def shown(self) -> str:
        topology = self.selector.get(tpu.TOPOLOGY_LABEL)
        what = f" with {self.accelerator}" if self.accelerator else ""
        return self.machine + what + (f" ({topology})" if topology else "")


def pods_of(body: dict[str, Any]) -> list[Pods]:
    out = []
    for rjob in body["spec"]["replicatedJobs"]:
        spec = rjob["template"]["spec"]["template"]["spec"]
        resources = spec["containers"][0].get("resources", {})
        limits = resources.get("limits", {})
        resource = next(iter(limits), None)
        out.append(Pods(rjob["name"], dict(spec.get("nodeSelector") or {}), resource,
                        int(limits[resource]) if resource else 0,
                        dict(resources.get("requests") or {})))
    return out


def _version(image: str) -> tuple[int, ...] | None:
    found = re.search(r":v?(\d+)\.(\d+)\.(\d+)", image)
    return tuple(int(n) for n in found.groups()) if found else None


def jobset(cluster: Cluster) -> Iterator[Gap]:
    code, _ = cluster.get(f"/apis/{translate.GROUP}/{translate.VERSION}")
    if code == 404:
        yield Gap(f"JobSet: the cluster does not serve {translate.GROUP}/{translate.VERSION} "
                  "(JobSet is not installed)", JOBSET_INSTALL)
        return
    code, deployment = cluster.get("/apis/apps/v1/namespaces/jobset-system/deployments/"
                                   "jobset-controller-manager")
    template = ((deployment.get("spec") or {}).get("template") or {}) if code == 200 else {}
    containers = (template.get("spec") or {}).get("containers") or [{}]
    version = _version(str(containers[0].get("image") or ""))
    if version is None:
        if code != 403:  # (a 403 is said already)
            cluster.notes.append("JobSet's version was not read (no jobset-controller-manager "
                                 "with a versioned image in jobset-system)")
    elif version < JOBSET_MIN:
        need = ".".join(map(str, JOBSET_MIN))
        yield Gap(f"JobSet: v{'.'.join(map(str, version))} is installed; the JobSet needs "
                  f"v{need} or newer (RANK is read from its job-global-index annotation)",
                  JOBSET_INSTALL)


def _kueue_version(cluster: Cluster) -> str | None:
    for version in KUEUE_VERSIONS:
        if cluster.get(f"/apis/kueue.x-k8s.io/{version}")[0] == 200:
            return version
    return None


def kueue(cluster: Cluster, queue: str, ns: str, pods: list[Pods]) -> Iterator[Gap]:
    version = _kueue_version(cluster)
    if version is None:
        yield Gap(f"Kueue: the cluster does not serve kueue.x-k8s.io, so a JobSet queued in "
                  f"{queue} stays suspended", f"{KUEUE_INSTALL} (or submit without --queue)")
        return
    base = f"/apis/kueue.x-k8s.io/{version}"
    code, local = cluster.get(f"{base}/namespaces/{ns}/localqueues/{queue}")
    if code == 403:
        return
    if code != 200:
        _, listed = cluster.get(f"{base}/namespaces/{ns}/localqueues")
        names = [str(i["metadata"]["name"]) for i in (listed or {}).get("items") or []]
        others = f", or give --queue {' or '.join(names)}" if names else ""
        yield Gap(f"LocalQueue {queue}: not in namespace {ns}",
                  f"create it (kind LocalQueue, namespace {ns}, spec.clusterQueue naming a "
                  f"ClusterQueue){others}")
        return
    cq_name = str((local.get("spec") or {}).get("clusterQueue") or "")
    code, cq = cluster.get(f"{base}/clusterqueues/{cq_name}")
    if code == 403:  # a namespace's user often may not read cluster-scoped objects
        return
    if code != 200:
        yield Gap(f"ClusterQueue {cq_name} (of LocalQueue {queue}): not in the cluster",
                  f"create ClusterQueue {cq_name} with a flavor for the job's nodes")
        return
    groups = (cq.get("spec") or {}).get("resourceGroups") or []
    for wanted in {p.resource: p for p in pods if p.resource}.values():
        covering = [g for g in groups if wanted.resource in (g.get("coveredResources") or [])]
        if not covering:
            yield Gap(f"ClusterQueue {cq_name}: covers no {wanted.resource}, so the job is "
                      "never admitted", f"add {wanted.resource} to a resourceGroup's "
                      "coveredResources with a flavor for "
                      f"{wanted.accelerator or wanted.machine} nodes and its nominalQuota")
            continue
        flavors = [str(f.get("name")) for g in covering for f in g.get("flavors") or []]
        if not any(_fits(cluster, base, f, wanted.selector) for f in flavors):
            label = translate.ACCELERATOR_LABEL if wanted.resource == translate.GPU_RESOURCE \
                else tpu.ACCELERATOR_LABEL
            yield Gap(f"ClusterQueue {cq_name}: no flavor for {wanted.resource} matches "
                      f"{wanted.shown()} nodes (flavors: {', '.join(flavors) or 'none'})",
                      f"add a ResourceFlavor with nodeLabels {label}: {wanted.accelerator} "
                      f"to its {wanted.resource} resourceGroup")


def _fits(cluster: Cluster, base: str, flavor: str, selector: dict[str, str]) -> bool:
    """Whether Kueue may give the pods ``flavor``: its node labels agree with their selector."""
    code, found = cluster.get(f"{base}/resourceflavors/{flavor}")
    if code != 200:
        return code == 403  # not read: not said to be missing
    labels = (found.get("spec") or {}).get("nodeLabels") or {}
    return all(selector.get(k, v) == v for k, v in labels.items())


def nodes(cluster: Cluster, pods: list[Pods]) -> Iterator[Gap]:
    seen: set[str] = set()
    for p in pods:
        if p.shown() in seen:
            continue
        seen.add(p.shown())
        selector = ",".join(f"{k}={v}" for k, v in p.selector.items()
                            if k != capacity.SPOT_LABEL)
        code, listed = cluster.get("/api/v1/nodes", labelSelector=selector)
        if code == 403:
            return
        found = (listed or {}).get("items") or []
        if not found:  # the Kubernetes API lists nodes, not node pools (GKE-RUNS.md §13.3)
            yield Gap(f"node pool: no {p.shown()} node now; a node pool of that machine that "
                      "scales from zero, or node auto-provisioning, adds one when the pods "
                      "wait (the Kubernetes API shows neither)", "check with gcloud container "
                      "node-pools list --cluster CLUSTER --location LOCATION (a pool of that "
                      f"machine with autoscaling), else {_pool_fix(p)}", sure=False)
            continue
        if p.resource and not any(int(str((n.get("status") or {}).get("allocatable", {}).get(
                p.resource, "0")) or 0) >= p.count for n in found):
            yield Gap(f"drivers: no {p.shown()} node has {p.count} allocatable {p.resource} "
                      f"({len(found)} node{'s' if len(found) != 1 else ''}): its driver or "
                      "device plugin is not ready",
                      DRIVER_INSTALL if p.resource == translate.GPU_RESOURCE else
                      "check the node pool's TPU device plugin (kubectl describe node)")
            continue
        gap = _room(p, found)
        if gap is not None:
            yield gap


def _room(p: Pods, found: list[dict[str, Any]]) -> Gap | None:
    """Whether a node's allocatable CPU and memory hold what the pods request (gpujob reckons
    it from the machine's size and GKE's reservation: a GKE that keeps more back leaves a pod
    that never schedules)."""
    wanted = {k: sizes.quantity(v) for k, v in p.requests.items() if k in ("cpu", "memory")}
    if not wanted or None in wanted.values():
        return None
    largest: dict[str, float] = {}
    for n in found:
        allocatable = (n.get("status") or {}).get("allocatable") or {}
        have = {k: sizes.quantity(allocatable.get(k)) for k in wanted}
        if any(v is None for v in have.values()):
            return None  # a node whose allocatable is not read: not said to be missing
        if all((have[k] or 0) >= (wanted[k] or 0) for k in wanted):
            return None
        for k, v in have.items():
            largest[k] = max(largest.get(k, 0.0), v or 0.0)
    asked = ", ".join(f"{p.requests[k]} {k}" for k in wanted)
    has = ", ".join(f"{_shown(k, v)} {k}" for k, v in largest.items())
    return Gap(f"CPU and memory: no {p.shown()} node has the {asked} each pod requests (the "
               f"most allocatable: {has}), so the pods never schedule",
               "give --catalog FILE with a larger pod_settings.node_reserve.system_pods (gpujob "
               "gpus --service gke --export-catalog prints the built-in catalog)")


def _shown(kind: str, value: float) -> str:
    return f"{int(value * 1000)}m" if kind == "cpu" else f"{int(value // 2 ** 20)}Mi"


def _pool_fix(p: Pods) -> str:
    fix = (f"gcloud container node-pools create POOL --cluster CLUSTER --location LOCATION "
           f"--machine-type {p.machine}")
    topology = p.selector.get(tpu.TOPOLOGY_LABEL)
    if topology:
        return f"{fix} --tpu-topology {topology}"
    if p.resource == translate.GPU_RESOURCE:
        return f"{fix} --accelerator type={p.accelerator},count={p.count}," \
               "gpu-driver-version=latest"
    return fix


def fuse(cluster: Cluster, body: dict[str, Any]) -> Iterator[Gap]:
    mounts = any((((r["template"]["spec"]["template"].get("metadata") or {}).get(
        "annotations") or {}).get("gke-gcsfuse/volumes")) for r in body["spec"][
        "replicatedJobs"])
    if mounts and cluster.get(f"/apis/storage.k8s.io/v1/csidrivers/{FUSE_DRIVER}")[0] == 404:
        yield Gap("Cloud Storage FUSE: the CSI driver is not enabled (the job mounts its "
                  "packages' bucket with it)", "gcloud container clusters update CLUSTER "
                  "--location LOCATION --update-addons GcsFuseCsiDriver=ENABLED (the pods' "
                  "service account needs Workload Identity access to the bucket)")


NETWORKS = networks_.GROUP


def networks(attached: dict[str, tuple[str, str]], found: dict[str, str]) -> Iterator[Gap]:
    """GPUDirect's networks: a Network and its GKENetworkParamSet (``networking.gke.io/v1``,
    cluster-scoped) for each one the pods attach (``attached``), as ``networks.read`` found
    them; a pod naming a Network the cluster lacks is refused (GKE-RUNS.md §7, after xpk's
    network.py)."""
    shown = networks_.shown(list(attached))
    if networks_.OFF in found.values():
        yield Gap(f"GPUDirect networks: the cluster does not serve {NETWORKS} (multi-networking "
                  f"is off), so pods attached to {shown} are refused",
                  "gcloud container clusters update CLUSTER --location LOCATION "
                  "--enable-multi-networking (Dataplane V2), then create a Network and a "
                  f"GKENetworkParamSet for each of {shown} (or submit with --gpudirect off)")
        return
    for name, (interface, machine) in attached.items():
        # RDMA NICs (rdma-N) are deviceMode RDMA, the others NetDevice (GKE-RUNS.md §7)
        mode = "RDMA" if name.startswith("rdma-") else "NetDevice"
        params_fix = (f"create GKENetworkParamSet {name} (spec.vpc and spec.vpcSubnet: its VPC "
                      f"and subnet, spec.deviceMode: {mode})")
        if found[name] == networks_.NO_NETWORK:
            yield Gap(f"GPUDirect network {name}: no Network {name} ({NETWORKS}), which the "
                      f"{machine} pods' {interface} attaches to",
                      f"create Network {name} (spec.type: Device, spec.parametersRef: "
                      f"GKENetworkParamSet {name}) and {params_fix[7:]}")
        elif found[name] == networks_.NO_PARAMS:
            yield Gap(f"GPUDirect network {name}: Network {name} has no GKENetworkParamSet "
                      f"{name} (its VPC and subnet)", params_fix)


def _networks(cluster: Cluster, job: translate.Translation) -> list[Gap]:
    """The networks' gaps; with --gpudirect auto, notes: a submit then sends the JobSet
    without GPUDirect (``networks.choose``, from the same reads), which does not wait for
    them, as it does where they cannot be read."""
    attached = networks_.attached(job.body)
    if not attached:
        return []
    found = networks_.read(cluster, attached)
    gaps = list(networks(attached, found))
    if job.auto is None:
        return gaps
    cluster.notes += [f"{g.what}; fix: {g.fix}" for g in gaps]
    if gaps:
        cluster.notes.append(f"--gpudirect auto: until the cluster has the networks, a submit "
                             f"sends the JobSet without {job.auto.name} (slower between nodes); "
                             "with --gpudirect on they are missing pieces")
    elif networks_.UNREAD in found.values():
        cluster.notes.append(f"--gpudirect auto: while the networks cannot be read, a submit "
                             f"sends the JobSet without {job.auto.name} (slower between nodes); "
                             f"{networks_.RBAC}, or submit with --gpudirect on")
    return []


def run(job: translate.Translation, gcp: GcpSettings, extra: dict[str, str],
        output_format: str = "text",
        availability: tuple[str | None, str | None] | None = None) -> int:
    """Read the cluster for what ``job`` (checked) needs; 0 when nothing is missing, else 1.
    ``availability``: also Compute Engine's capacity advice for its nodes (``advice``), in
    the project and region given (None each: the context's), on stderr."""
    from gpujob.services.gke.api import Api, connect

    body = job.body
    conn = connect(extra.get("--context"), gcp.request_timeout)
    cluster = Cluster(Api(conn, gcp))
    pods = pods_of(body)
    queue = (body["metadata"].get("labels") or {}).get(translate.QUEUE_LABEL)
    gaps = [*jobset(cluster),
            *(kueue(cluster, queue, job.namespace, pods) if queue else ()),
            *nodes(cluster, pods), *_networks(cluster, job), *fuse(cluster, body),
            *(Gap(f"{o['kind']}: {domains.not_served(o)}", domains.DRA_FIX)
              for o in domains.unserved(cluster, job.companions))]
    where = f"context {conn.context}, namespace {job.namespace}"
    checks = [g for g in gaps if not g.sure]
    gaps = [g for g in gaps if g.sure]
    if output_format == "json":
        CONSOLE.json({"version": 1, "service": "gke", "context": conn.context,
                      "namespace": job.namespace, "ready": not gaps,
                      "missing": [{"what": g.what, "fix": g.fix} for g in gaps],
                      "check": [{"what": g.what, "fix": g.fix} for g in checks],
                      "notes": cluster.notes})
    else:
        for gap in gaps:
            CONSOLE.line(f"missing: {gap.what}; fix: {gap.fix}")
        for gap in checks:
            CONSOLE.line(f"check: {gap.what}; {gap.fix}")
        if not gaps and not checks:
            CONSOLE.line(f"ready: {where}: " + "; ".join(p.shown() for p in pods))
    for note in cluster.notes:
        CONSOLE.err(f"note: {note}")
    more = (f"; {len(checks)} thing{'s' if len(checks) > 1 else ''} the cluster cannot show "
            "(check: lines)") if checks else ""
    if gaps:
        CONSOLE.err(f"Preflight: {len(gaps)} missing piece{'s' if len(gaps) > 1 else ''} on "
                    f"{where}: the JobSet would wait{more}; nothing was sent")
    elif checks:
        CONSOLE.err(f"Preflight: nothing is missing on {where}{more}: the JobSet waits if "
                    "they are not there; nothing was sent")
    else:
        CONSOLE.err(f"Preflight: the cluster ({where}) has what the JobSet needs; nothing was "
                    "sent")
    if availability is not None:  # advice only: the exit code stays the cluster's
        from gpujob.services.gke import advice

        place = advice.where(conn.context, *availability)
        for line in advice.lines(body, place, gcp) if isinstance(place, advice.Where) \
                else [place]:
            CONSOLE.err(line)
    return 1 if gaps else 0
