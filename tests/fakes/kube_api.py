"""The API server's side of the fake cluster that is not JobSets': ``Status`` answers,
discovery (the group versions served, as kubectl reads them), and the store of other objects
(``FakeKubernetes.objects``, by their API path): what a preflight reads, and the objects a
create makes beside a JobSet (a ComputeDomain), with server-side dry run (``?dryRun=All``:
checked as a create is, stored nowhere; Kubernetes API concepts, "Dry-run")."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

# the collections a preflight reads besides JobSets (objects: FakeKubernetes.objects)
COLLECTIONS = {"localqueues", "clusterqueues", "resourceflavors", "csidrivers", "deployments",
               "networks", "gkenetworkparamsets", "computedomains"}
# namespaced custom objects a create makes beside a JobSet (a ComputeDomain), when the cluster
# serves their API (``served``): stored in ``objects`` under their path
MADE = re.compile(r"/apis/([^/]+/[^/]+)/namespaces/([^/]+)/(computedomains)")
# what discovery says each group version serves (name, kind, namespaced): kubectl reads it,
# and caches none of it while one group version lists nothing
RESOURCES = {
    "jobset.x-k8s.io/v1alpha2": [("jobsets", "JobSet", True)],
    "kueue.x-k8s.io/v1beta1": [("localqueues", "LocalQueue", True),
                               ("clusterqueues", "ClusterQueue", False),
                               ("resourceflavors", "ResourceFlavor", False),
                               ("workloads", "Workload", True)],
    "networking.gke.io/v1": [("networks", "Network", False),
                             ("gkenetworkparamsets", "GKENetworkParamSet", False)],
    "resource.nvidia.com/v1beta1": [("computedomains", "ComputeDomain", True)],
}
DNS_1123 = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
JSON = "application/json"


def status(code: int, reason: str, message: str, **details: Any) -> dict[str, Any]:
    """A ``Status`` object as the API server answers errors."""
    out = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
           "message": message, "reason": reason, "code": code}
    if details:
        out["details"] = details
    return out


def selected(obj: dict[str, Any], query: dict[str, list[str]]) -> bool:
    """Whether ``obj``'s labels match the query's ``labelSelector`` (``k=v,…``)."""
    selector = query.get("labelSelector", [""])[0]
    labels = (obj.get("metadata") or {}).get("labels") or {}
    return all(labels.get(k) == v for k, _, v in
               (term.partition("=") for term in selector.split(",") if term))


def read(fake: Any, path: str) -> Any:
    """The answer to a GET of a served group version, an object, a collection of them, the
    nodes (None: none of these)."""
    if path == "/api/v1/nodes":
        return lambda c: {"apiVersion": "v1", "kind": "NodeList", "metadata": {},
                          "items": [n for n in fake.nodes if selected(n, c.query)]}
    if path == "/api":  # discovery, as kubectl reads it (legacy, not aggregated)
        return lambda c: {"kind": "APIVersions", "versions": ["v1"]}
    if path == "/api/v1":
        return lambda c: {"kind": "APIResourceList", "groupVersion": "v1", "resources": [
            {"name": name, "singularName": name[:-1], "namespaced": name == "pods",
             "kind": name[:-1].title(), "verbs": ["get", "list"]}
            for name in ("nodes", "pods")]}
    if path == "/apis":
        return lambda c: {"kind": "APIGroupList", "apiVersion": "v1", "groups": [
            {"name": gv.split("/")[0], "versions": [{"groupVersion": gv,
                                                     "version": gv.split("/")[1]}],
             "preferredVersion": {"groupVersion": gv, "version": gv.split("/")[1]}}
            for gv in sorted(fake.served)]}
    if path.startswith("/apis/") and path[6:] in fake.served:
        resources = [{"name": name, "singularName": name[:-1], "namespaced": scoped,
                      "kind": kind, "verbs": ["create", "delete", "get", "list"]}
                     for name, kind, scoped in RESOURCES.get(path[6:], ())]
        return lambda c: {"kind": "APIResourceList", "apiVersion": "v1",
                          "groupVersion": path[6:], "resources": resources}
    if path in fake.objects:
        return lambda c: fake.objects[path]
    if path.rsplit("/", 1)[-1] in COLLECTIONS and any(
            path.startswith(f"/apis/{v}/") for v in fake.served):
        return lambda c: {"kind": "List", "apiVersion": "v1", "metadata": {}, "items": [
            o for k, o in fake.objects.items() if k.rsplit("/", 1)[0] == path]}
    return None


def domain_causes(obj: Any) -> list[dict[str, str]]:
    """What the ComputeDomain CRD's schema refuses (resource.nvidia.com/v1beta1: a DNS-1123
    name, ``spec.numNodes`` an integer, ``spec.channel.resourceClaimTemplate.name``)."""
    causes = []
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    name = str((meta or {}).get("name", ""))
    if not DNS_1123.fullmatch(name) or len(name) > 253:
        causes.append({"reason": "FieldValueInvalid", "field": "metadata.name",
                       "message": f"{name!r}: a DNS-1123 subdomain is required"})
    spec = obj.get("spec") if isinstance(obj, dict) else None
    nodes = (spec or {}).get("numNodes")
    if not isinstance(nodes, int) or isinstance(nodes, bool) or nodes < 0:
        causes.append({"reason": "FieldValueRequired", "field": "spec.numNodes",
                       "message": "Required value: an integer >= 0"})
    template = (((spec or {}).get("channel") or {}).get("resourceClaimTemplate") or {})
    if not template.get("name"):
        causes.append({"reason": "FieldValueRequired",
                       "field": "spec.channel.resourceClaimTemplate.name",
                       "message": "Required value"})
    return causes


def make(fake: Any, body: Any, query: dict[str, list[str]], path: str) -> tuple[int, Any, str]:
    """Create an object of the collection at ``path``; with ``dryRun=All`` checked the same
    way (an invalid body, a name taken) and answered as made, but not stored."""
    obj = json.loads(json.dumps(body))
    kind = path.rsplit("/", 1)[-1]
    name = str(((obj.get("metadata") if isinstance(obj, dict) else None) or {}).get("name", ""))
    causes = domain_causes(obj) if kind == "computedomains" else []
    if causes:
        return 422, status(422, "Invalid", f'ComputeDomain.resource.nvidia.com "{name}" is '
                           "invalid: " + "; ".join(f"{c['field']}: {c['message']}"
                                                   for c in causes),
                           name=name, kind="ComputeDomain", causes=causes), JSON
    if f"{path}/{name}" in fake.objects:
        return 409, status(409, "AlreadyExists", f'{kind} "{name}" already exists',
                           name=name, kind=kind), JSON
    obj["metadata"].update(uid=str(uuid.uuid4()), resourceVersion="1",
                           creationTimestamp="2026-11-26T12:00:00Z")
    if query.get("dryRun") != ["All"]:
        fake.objects[f"{path}/{name}"] = obj
    return 201, obj, JSON
