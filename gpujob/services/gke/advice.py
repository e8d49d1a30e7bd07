"""``gpujob preflight --service gke --availability``: Compute Engine's capacity advice
(``gpujob.gcp.advice``) for the JobSet's nodes, asked in the cluster's own project and location.
A node pool's nodes are Compute Engine VMs of the user's own project, so the advice is about the
very VMs GKE would create (for Vertex AI it is only a proxy).

Where: --project and --region when given, else the kubeconfig context's name as
``gcloud container clusters get-credentials`` writes it (``gke_PROJECT_LOCATION_CLUSTER``; a
zonal cluster's location is its zone, asked about alone). What: each machine type of the
JobSet's pods (with an N1 machine's attached GPUs) and how many nodes of it the pods take (one
pod a node), in the provisioning model of the job's strategy; for Spot also the newest day's
preemption rate (``advice.capacityHistory``, none for N1 with attached GPUs). TPU slices are
not asked about. Advice only: a refusal or no answer is one warning, nothing is sent twice,
and the exit code is the cluster's."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from gpujob.gcp import advice_text as text
from gpujob.services.gke import capacity, translate

if TYPE_CHECKING:
    from gpujob.gcp.advice import AdviceClient
    from gpujob.gcp.settings import GcpSettings

# gke_PROJECT_LOCATION_CLUSTER: a project id has no "_" (a domain-scoped one has a ":"), nor a
# location or a cluster name
CONTEXT = re.compile(r"gke_([^_]+)_([a-z]+-[a-z]+\d+)(-[a-z])?_([^_]+)")
WHOSE = "the VMs of your cluster's own node pools, in your project"


class Where(NamedTuple):
    """The project and region the advice is asked in; ``zone``: a zonal cluster's."""

    project: str
    region: str
    zone: str | None


def where(context: str, project: str | None, region: str | None) -> Where | str:
    """The cluster's project and location: ``project`` and ``region`` (--project, --region)
    where given, else the context's name; the warning that says what to pass when neither
    names one."""
    found = CONTEXT.fullmatch(context)
    zone = found.group(2) + found.group(3) if found and found.group(3) else None
    project = project or (found.group(1) if found else None)
    if region:
        zone = None
    region = region or (found.group(2) if found else None)
    if project and region:
        return Where(project, region, zone)
    missing = " and ".join(f for f, v in (("--project", project), ("--region", region))
                           if not v)
    return (f"warning: Compute Engine's capacity advice was not asked: context {context} does "
            "not name the cluster's project and location as gcloud container clusters "
            f"get-credentials names it (gke_PROJECT_LOCATION_CLUSTER); give {missing} "
            "(the advice never blocks)")


class Nodes(NamedTuple):
    """The nodes of one machine type the JobSet's pods take (one pod a node)."""

    machine: str
    accelerator: tuple[str, int] | None  # an N1 machine's attached GPU, as Compute Engine
    vms: int


def strategy_of(body: dict[str, Any]) -> str:
    """The provisioning model the JobSet's nodes come in (``gpujob.gcp.advice.MODELS``)."""
    selectors = [r["template"]["spec"]["template"]["spec"].get("nodeSelector") or {}
                 for r in body["spec"]["replicatedJobs"]]
    if any(capacity.SPOT_LABEL in s for s in selectors):
        return "spot"
    if any(capacity.FLEX_LABEL in s for s in selectors) or capacity.MAX_RUN in (
            body["metadata"].get("annotations") or {}):
        return "flex-start"
    return "on-demand"


def nodes_of(body: dict[str, Any]) -> tuple[list[Nodes], int]:
    """The GPU and CPU nodes of each machine type, in the JobSet's order, and the TPU slices'
    pods left out."""
    found: dict[tuple[str, tuple[str, int] | None], int] = {}
    tpu_pods = 0
    for rjob in body["spec"]["replicatedJobs"]:
        job = rjob["template"]["spec"]
        pod = job["template"]["spec"]
        pods = int(rjob.get("replicas") or 1) * int(job.get("parallelism") or 1)
        limits = (pod["containers"][0].get("resources") or {}).get("limits") or {}
        selector = pod.get("nodeSelector") or {}
        machine = selector.get(translate.MACHINE_LABEL)
        if not machine or any(k != translate.GPU_RESOURCE and k.endswith("/tpu")
                              for k in limits):
            tpu_pods += pods
            continue
        gpu = selector.get(translate.ACCELERATOR_LABEL)
        attached = (str(gpu), int(limits.get(translate.GPU_RESOURCE) or 0)) \
            if gpu and machine.startswith("n1-") else None
        found[(machine, attached)] = found.get((machine, attached), 0) + pods
    return [Nodes(m, a, n) for (m, a), n in found.items()], tpu_pods


def lines(body: dict[str, Any], place: Where, gcp: GcpSettings,
          client_of: Callable[[Any], AdviceClient] | None = None) -> list[str]:
    """The preflight's advice lines for stderr: the header, one line per machine type, and
    the one warning when it could not (all) be had; never raises for what Google answers."""
    from dataclasses import replace

    from gpujob.errors import RemoteError
    from gpujob.gcp.advice import MODELS, AdviceClient
    from gpujob.gcp.session import Session

    wanted, tpu_pods = nodes_of(body)
    strategy = strategy_of(body)
    out = [f"  capacity advice: {tpu_pods} TPU slice pod{'s' if tpu_pods != 1 else ''}: not "
           "asked (gpujob asks it for GPU and CPU machines)"] if tpu_pods else []
    if not wanted:
        return out
    try:
        client = (client_of or AdviceClient)(Session(replace(gcp, project=place.project)))
    except RemoteError as exc:
        return [*out, text.warning(str(exc))]
    location = place.zone or place.region
    out.insert(0, text.header(client.session.project, WHOSE))
    for n in wanted:
        got = client.capacity(place.region, n.machine, n.vms, strategy, n.accelerator,
                              place.zone)
        rate = client.preemption(place.region, n.machine) \
            if strategy == "spot" and n.accelerator is None and got is not None else None
        out.append(text.line(f"{n.vms} × {n.machine} in {location}/{MODELS[strategy]}",
                             got, rate))
    if client.failure is not None:
        out.append(text.warning(str(client.failure), client.stopped))
    return out
