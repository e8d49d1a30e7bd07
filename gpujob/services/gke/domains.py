"""NVLink across nodes for a multi-node GB200 job (``a4x-highgpu-4g``), as Google's A4X recipe
does it (the catalog's ``pod_settings.machines.*.compute_domain``, with its source): a
``ComputeDomain`` of NVIDIA's DRA driver for GPUs (``resource.nvidia.com/v1beta1``), of as many
nodes as the job has of the machine, whose channel ``ResourceClaimTemplate`` (named as the
JobSet) every pod of the machine claims (``spec.resourceClaims``, the trainer's
``resources.claims``). The ComputeDomain is a separate object: the dry run prints it before the
JobSet, a submit creates it after the JobSet, owned by it (deleted with it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from gpujob.errors import RemoteError

if TYPE_CHECKING:
    from gpujob.config.job import JobView
    from gpujob.services.gke.api import Api
    from gpujob.services.gke.catalog import GkeCatalog


class Domain(NamedTuple):
    machine: str
    nodes: int
    settings: Mapping[str, Any]  # the catalog's compute_domain


def wanted(job: JobView, cat: GkeCatalog) -> Domain | None:
    """The ComputeDomain the job needs: 2 or more nodes of a machine that has one."""
    from gpujob.services.gke.pods import machine_settings

    counts: dict[str, int] = {}
    for r in job.active():
        if machine_settings(cat, r.machine).get("compute_domain"):
            counts[r.machine or ""] = counts.get(r.machine or "", 0) + r.count
    machine = max(counts, key=lambda m: counts[m], default=None)
    if machine is None or counts[machine] < 2:
        return None
    return Domain(machine, counts[machine], machine_settings(cat, machine)["compute_domain"])


def claim(pod_spec: dict[str, Any], container: dict[str, Any], name: str,
          domain: Domain) -> None:
    """The pod claims the ComputeDomain's channel (its template is named ``name``)."""
    claim_name = domain.settings["claim"]
    pod_spec["resourceClaims"] = [{"name": claim_name, "resourceClaimTemplateName": name}]
    container.setdefault("resources", {})["claims"] = [{"name": claim_name}]


def body(name: str, namespace: str, domain: Domain) -> dict[str, Any]:
    """The ComputeDomain object, as the recipe writes it."""
    return {"apiVersion": domain.settings["api_version"], "kind": "ComputeDomain",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"numNodes": domain.nodes,
                     "channel": {"resourceClaimTemplate": {"name": name}}}}


def owned(obj: dict[str, Any], jobset: Mapping[str, Any]) -> dict[str, Any]:
    """``obj`` owned by the created ``jobset``: Kubernetes deletes it with the JobSet."""
    meta = jobset.get("metadata") or {}
    out = {**obj, "metadata": {**obj["metadata"], "ownerReferences": [{
        "apiVersion": str(jobset.get("apiVersion")), "kind": "JobSet",
        "name": str(meta.get("name")),
        "uid": str(meta.get("uid")), "blockOwnerDeletion": True}]}}
    return out


def _where(obj: Mapping[str, Any]) -> tuple[str, str, str]:
    group, _, version = str(obj["apiVersion"]).rpartition("/")
    return group, version, f"{str(obj['kind']).lower()}s"


def check_served(api: Api, companions: tuple[dict[str, Any], ...], name: str) -> None:
    """Before the JobSet is sent: the cluster serves each companion's API (a ComputeDomain:
    NVIDIA's DRA driver for GPUs is installed), else ``RemoteError`` and nothing is sent."""
    from gpujob.services.gke.reads import Cluster

    for obj in companions:
        if Cluster(api).get(f"/apis/{obj['apiVersion']}")[0] == 404:
            raise RemoteError(
                f"the cluster does not serve {obj['apiVersion']}: the {obj['kind']} that gives "
                f"the pods of JobSet {name} NVLink across nodes cannot be made (NVIDIA's DRA "
                "driver for GPUs is not installed); nothing was created",
                DRA_FIX)


def create(api: Api, companions: tuple[dict[str, Any], ...], jobset: Mapping[str, Any],
           namespace: str) -> None:
    """Create each companion owned by the created ``jobset``; one that is there already and is
    this JobSet's (a lost answer) is kept; a failure says the JobSet's pods wait for it."""
    from kubernetes.client.exceptions import ApiException

    from gpujob.services.gke.api import status_of

    name = str((jobset.get("metadata") or {}).get("name"))
    uid = str((jobset.get("metadata") or {}).get("uid"))
    for obj in companions:
        group, version, plural = _where(obj)
        made = owned(obj, jobset)
        what = f"creating {obj['kind']} {obj['metadata']['name']} in namespace {namespace}"

        def attempt(made: dict[str, Any] = made, group: str = group, version: str = version,
                    plural: str = plural) -> None:
            try:
                api.custom.create_namespaced_custom_object(
                    group, version, namespace, plural, made, _preload_content=False,
                    _request_timeout=api.timeout)
            except ApiException as exc:
                if exc.status != 409 or status_of(exc).get("reason", "") not in (
                        "AlreadyExists", ""):
                    raise
                found = api.custom.get_namespaced_custom_object(
                    group, version, namespace, plural, made["metadata"]["name"],
                    _request_timeout=api.timeout)
                owners = (found.get("metadata") or {}).get("ownerReferences") or []
                if not any(o.get("uid") == uid for o in owners):
                    raise RemoteError(f"a {made['kind']} named {made['metadata']['name']} "
                                      f"already exists in namespace {namespace} (not JobSet "
                                      f"{name}'s)", "delete it, or give another --job-id") \
                        from None

        try:
            api.call(what, attempt)
        except RemoteError as exc:
            raise RemoteError(f"JobSet {name} was created, but its {obj['kind']} was not: "
                              f"{exc.message}; its pods wait for it",
                              f"gpujob cancel {name} --service gke deletes the JobSet; "
                              f"{DRA_FIX}") from None


DRA_FIX = ("install NVIDIA's DRA driver for GPUs (its ComputeDomain CRD, "
           "https://github.com/NVIDIA/k8s-dra-driver-gpu) on the cluster, or submit the job on "
           "one a4x-highgpu-4g node")
