"""GPUDirect's networks on the cluster (GKE multi-networking): a pod's extra interfaces attach
to cluster-scoped ``Network`` objects (``networking.gke.io/v1``), each with the
``GKENetworkParamSet`` of its VPC and subnet; a pod naming a Network the cluster lacks is refused
(GKE-RUNS.md §7, after xpk's ``core/network.py``). ``--gpudirect auto`` (the default) is decided
here on a submit: the JobSet goes with the machine's GPUDirect when the cluster has every network
its pods attach, without it (the body ``--gpudirect off`` gives) and a warning when it has not
or they cannot be read (``read``: one reader for ``preflight`` and ``choose``).
A dry run reads no cluster: it assumes the networks are there (``run_rules``)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from gpujob.errors import RemoteError
from gpujob.services.gke import translate

if TYPE_CHECKING:
    from gpujob.services.gke.api import Api
    from gpujob.services.gke.pods import Auto
    from gpujob.services.gke.reads import Cluster

GROUP = "networking.gke.io/v1"
INTERFACES = "networking.gke.io/interfaces"


def shown(names: list[str] | tuple[str, ...]) -> str:
    return f"{names[0]}..{names[-1]}" if len(names) > 2 else ", ".join(names)


def attached(body: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """The networks the pods' interfaces annotation attaches (GPUDirect), in order: name ->
    (interface, machine); the pod network ``default`` is every cluster's."""
    found: dict[str, tuple[str, str]] = {}
    for rjob in body["spec"]["replicatedJobs"]:
        template = rjob["template"]["spec"]["template"]
        text = ((template.get("metadata") or {}).get("annotations") or {}).get(INTERFACES)
        try:
            listed = json.loads(text) if text else []
        except ValueError:
            listed = []
        machine = (template["spec"].get("nodeSelector") or {}).get(translate.MACHINE_LABEL, "?")
        for item in listed if isinstance(listed, list) else []:
            name = str(item.get("network") or "") if isinstance(item, dict) else ""
            if name and name != "default":
                found.setdefault(name, (str(item.get("interfaceName") or "?"), machine))
    return found


# a network's state on the cluster (``read``)
HAS = "has"  # its Network and its GKENetworkParamSet
OFF = "off"  # the cluster does not serve networking.gke.io/v1: multi-networking is off
NO_NETWORK = "no Network"
NO_PARAMS = "no GKENetworkParamSet"
UNREAD = "not read"  # 403: the kubeconfig's user may not read it (``Cluster.notes`` says which)
MISSING = (OFF, NO_NETWORK, NO_PARAMS)
RBAC = ("grant the kubeconfig's user get on networks and gkenetworkparamsets (networking.gke.io, "
        "cluster-scoped: a ClusterRole and its ClusterRoleBinding)")


def read(cluster: Cluster, names: Iterable[str]) -> dict[str, str]:
    """Each network's state on the cluster (``HAS``, ``OFF``, ``NO_NETWORK``, ``NO_PARAMS``,
    ``UNREAD``), for ``preflight`` and ``choose`` alike; a refusal other than 403 and 404, or
    no answer: ``RemoteError``."""
    names = list(names)
    if cluster.get(f"/apis/{GROUP}")[0] == 404:  # multi-networking is off: no Network at all
        return dict.fromkeys(names, OFF)
    found = {}
    for name in names:
        code = cluster.get(f"/apis/{GROUP}/networks/{name}")[0]
        if code == 404:
            found[name] = NO_NETWORK
            continue
        params = cluster.get(f"/apis/{GROUP}/gkenetworkparamsets/{name}")[0]
        found[name] = NO_PARAMS if params == 404 else UNREAD if 403 in (code, params) else HAS
    return found


def choose(api: Api, body: dict[str, Any], auto: Auto, off: Callable[[], dict[str, Any]]
           ) -> dict[str, Any]:
    """The JobSet a submit sends for ``--gpudirect auto``: ``body`` (with GPUDirect) when the
    cluster has the networks, else ``off()`` (as ``--gpudirect off`` gives it): where one is
    missing, and where they could not be read, since a pod naming a network the cluster lacks
    never starts (and holds its queue's quota meanwhile); what was found is said on stderr."""
    from gpujob.services.gke.reads import Cluster

    nets = shown(auto.networks)
    try:
        found = read(Cluster(api), auto.networks)
    except RemoteError as exc:
        why, hint = exc.message, "submit again, or pass --gpudirect on to send GPUDirect " \
            "without looking"
        found = {}
    else:
        why, hint = ("403 Forbidden: the kubeconfig's user may not read them",
                     f"{RBAC}, or pass --gpudirect on to send GPUDirect without looking")
    missing = [name for name, state in found.items() if state in MISSING]
    if found and not missing and UNREAD not in found.values():
        api.echo(f"note: --gpudirect auto: the cluster has the networks {nets} (a Network and "
                 f"a GKENetworkParamSet each): {auto.name} is on for the {auto.nodes} "
                 f"{auto.machine} nodes")
        return body
    cost = (f"so its {auto.nodes} {auto.machine} nodes talk over one network interface each "
            f"instead of their {auto.nics} GPU NICs, a small part of the bandwidth the machine "
            "is built for, and collective operations between nodes slow the training down")
    if missing:
        api.echo(f"warning: --gpudirect auto: the cluster lacks the networks {shown(missing)} "
                 f"(a Network and a GKENetworkParamSet each): the JobSet goes without "
                 f"{auto.name}, {cost}")
        api.echo(f"  hint: create a Network and a GKENetworkParamSet for each of {nets} (gpujob "
                 "preflight --service gke says how; multi-networking must be on) and submit "
                 "again; --gpudirect on sends GPUDirect without looking")
        return off()
    api.echo(f"warning: --gpudirect auto: the cluster's networks {nets} could not be read "
             f"({why}): the JobSet goes without {auto.name}, as pods attached to networks the "
             f"cluster may lack would never start; {cost}")
    api.echo(f"  hint: {hint}")
    return off()
