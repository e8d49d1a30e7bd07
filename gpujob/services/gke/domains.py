"""NVLink across nodes for a multi-node GB200 job (``a4x-highgpu-4g``), as Google's A4X recipe
does it (the catalog's ``pod_settings.machines.*.compute_domain``, with its source): a
``ComputeDomain`` of NVIDIA's DRA driver for GPUs (``resource.nvidia.com/v1beta1``), of as many
nodes as the job has of the machine, whose channel ``ResourceClaimTemplate`` (named as the
JobSet) every pod of the machine claims (``spec.resourceClaims``, the trainer's
``resources.claims``). The ComputeDomain is a separate object: the dry run prints it before the
JobSet. A submit first asks the cluster whether it would make it (``check``: its API served, then
a server-side dry-run create, which meets the same RBAC, name and admission checks), so that a
refusal sends nothing; then it creates the JobSet and the ComputeDomain owned by it (deleted with
it: ``create``), and deletes the JobSet again if the ComputeDomain still fails (``Jobs.create``):
a JobSet whose pods wait for a claim that never comes is never left behind."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from gpujob.errors import RemoteError

if TYPE_CHECKING:
    from gpujob.config.job import JobView
    from gpujob.services.gke.api import Api
    from gpujob.services.gke.catalog import GkeCatalog
    from gpujob.services.gke.reads import Cluster


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
    """``obj`` owned by the created ``jobset``: Kubernetes' garbage collector deletes it with
    the JobSet. No ``blockOwnerDeletion``: it only holds a foreground deletion of the owner
    until the dependent is gone, and setting it takes rights on the owner (``delete``, and where
    the OwnerReferencesPermissionEnforcement admission plugin is on, ``jobsets/finalizers``) that
    a user who may create JobSets need not have (Kubernetes: "Owners and Dependents",
    https://kubernetes.io/docs/concepts/overview/working-with-objects/owners-dependents/, and
    the OwnerReference API reference, meta/v1)."""
    meta = jobset.get("metadata") or {}
    return {**obj, "metadata": {**obj["metadata"], "ownerReferences": [{
        "apiVersion": str(jobset.get("apiVersion")), "kind": "JobSet",
        "name": str(meta.get("name")), "uid": str(meta.get("uid"))}]}}


def _where(obj: Mapping[str, Any]) -> tuple[str, str, str]:
    group, _, version = str(obj["apiVersion"]).rpartition("/")
    return group, version, f"{str(obj['kind']).lower()}s"


def unserved(cluster: Cluster, companions: tuple[dict[str, Any], ...]) -> list[dict[str, Any]]:
    """The companions whose API the cluster does not serve (404 on discovery), for ``check``
    and ``preflight`` alike."""
    return [o for o in companions if cluster.get(f"/apis/{o['apiVersion']}")[0] == 404]


def not_served(obj: Mapping[str, Any]) -> str:
    return (f"the cluster does not serve {obj['apiVersion']} (NVIDIA's DRA driver for GPUs is "
            f"not installed), so the {obj['kind']} that gives the pods NVLink across nodes "
            "cannot be made")


def refused(exc: Any, obj: Mapping[str, Any], namespace: str, what: str) -> RemoteError:
    """The API server's refusal of a companion's create, with the fix for its cause: the DRA
    driver only where the API is not served (a 404 that names no object)."""
    from gpujob.services.gke.api import status_of

    status = status_of(exc)
    message = str(status.get("message") or exc.reason or "no message")
    given = status.get("details")
    details = given if isinstance(given, dict) else {}
    group, _, plural = _where(obj)
    name = obj["metadata"]["name"]
    hint: str | None = None
    if exc.status == 403:
        hint = (f"ask the cluster's admin for RBAC rights to create {plural}.{group} in "
                f"namespace {namespace}")
    elif exc.status == 409:
        message = f"a {obj['kind']} named {name} already exists in namespace {namespace}"
        hint = f"delete it (kubectl delete {plural[:-1]} {name} -n {namespace}), or give " \
            "another --job-id"
    elif exc.status == 404 and not details.get("name"):
        message, hint = not_served(obj), DRA_FIX
    return RemoteError(f"{what}: {message} ({exc.status} {status.get('reason') or exc.reason})",
                       hint)


def check(api: Api, companions: tuple[dict[str, Any], ...], namespace: str) -> None:
    """Before the JobSet is sent: the cluster serves each companion's API and would create it
    (a dry run, not yet owned: its owner does not exist); else ``RemoteError`` and nothing is
    sent. A webhook that cannot take a dry run (400) leaves the create to tell."""
    from kubernetes.client.exceptions import ApiException

    from gpujob.services.gke.api import RETRIED, status_of
    from gpujob.services.gke.reads import Cluster

    for obj in unserved(Cluster(api), companions):
        raise RemoteError(f"{not_served(obj)}; nothing was created", DRA_FIX)
    for obj in companions:
        group, version, plural = _where(obj)
        what = (f"checking {obj['kind']} {obj['metadata']['name']} in namespace {namespace} "
                "(a dry-run create, before the JobSet)")

        def attempt(obj: dict[str, Any] = obj, group: str = group, version: str = version,
                    plural: str = plural, what: str = what) -> bool:
            try:
                api.custom.create_namespaced_custom_object(
                    group, version, namespace, plural, obj, dry_run="All",
                    _preload_content=False, _request_timeout=api.timeout)
            except ApiException as exc:
                if exc.status in RETRIED:
                    raise
                if exc.status == 400 and "does not support dry run" in str(
                        status_of(exc).get("message")):
                    return False
                error = refused(exc, obj, namespace, what)
                raise RemoteError(f"{error.message}; nothing was created", error.hint) \
                    from None
            return True

        if not api.call(what, attempt):
            api.echo(f"note: {what}: a webhook of the cluster takes no dry run; the create "
                     "after the JobSet tells")


def create(api: Api, companions: tuple[dict[str, Any], ...], jobset: Mapping[str, Any],
           namespace: str) -> None:
    """Create each companion owned by the created ``jobset``; one that is there already and is
    this JobSet's (a lost answer) is kept; a refusal: ``RemoteError`` (``refused``)."""
    from kubernetes.client.exceptions import ApiException

    from gpujob.services.gke.api import RETRIED, status_of

    uid = str((jobset.get("metadata") or {}).get("uid"))
    for obj in companions:
        group, version, plural = _where(obj)
        made = owned(obj, jobset)
        what = f"creating {obj['kind']} {obj['metadata']['name']} in namespace {namespace}"

        def attempt(made: dict[str, Any] = made, group: str = group, version: str = version,
                    plural: str = plural, what: str = what) -> None:
            try:
                api.custom.create_namespaced_custom_object(
                    group, version, namespace, plural, made, _preload_content=False,
                    _request_timeout=api.timeout)
                return
            except ApiException as exc:
                if exc.status in RETRIED:
                    raise
                if exc.status != 409 or status_of(exc).get("reason", "") not in (
                        "AlreadyExists", ""):
                    raise refused(exc, made, namespace, what) from None
                clash = refused(exc, made, namespace, what)
            found = api.custom.get_namespaced_custom_object(
                group, version, namespace, plural, made["metadata"]["name"],
                _request_timeout=api.timeout)
            owners = (found.get("metadata") or {}).get("ownerReferences") or []
            if not any(o.get("uid") == uid for o in owners):
                raise clash

        api.call(what, attempt)


DRA_FIX = ("install NVIDIA's DRA driver for GPUs (its ComputeDomain CRD, "
           "https://github.com/NVIDIA/k8s-dra-driver-gpu) on the cluster, or submit the job on "
           "one a4x-highgpu-4g node")
