"""GPUDirect's networks on the cluster (GKE multi-networking): a pod's extra interfaces attach
to cluster-scoped ``Network`` objects (``networking.gke.io/v1``), each with the
``GKENetworkParamSet`` of its VPC and subnet; a pod naming a Network the cluster lacks is refused
(GKE-RUNS.md §7, after xpk's ``core/network.py``). ``--gpudirect auto`` (the default) is decided
here on a submit: the JobSet goes with the machine's GPUDirect when the cluster has every network
its pods attach, without it (the body ``--gpudirect off`` gives) and a warning when it has not.
A dry run reads no cluster: it assumes the networks are there (``run_rules``)."""

from __future__ import annotations

import json
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


def lacking(cluster: Cluster, names: tuple[str, ...]) -> list[str] | str:
    """The networks of ``names`` the cluster lacks (no Network, or no GKENetworkParamSet of
    its name); a str: why they were not read."""
    try:
        code, _ = cluster.get(f"/apis/{GROUP}")
        if code == 404:  # multi-networking is off: no Network at all
            return list(names)
        missing = []
        for name in names:
            for kind in ("networks", "gkenetworkparamsets"):
                code, _ = cluster.get(f"/apis/{GROUP}/{kind}/{name}")
                if code == 403:
                    return f"403 Forbidden on {kind}.networking.gke.io"
                if code == 404:
                    missing.append(name)
                    break
        return missing
    except RemoteError as exc:
        return exc.message


def choose(api: Api, body: dict[str, Any], auto: Auto) -> dict[str, Any]:
    """The JobSet a submit sends for ``--gpudirect auto``: ``body`` (with GPUDirect) when the
    cluster has the networks, else ``auto.body``; what was found is said on stderr."""
    from gpujob.services.gke.reads import Cluster

    found = lacking(Cluster(api), auto.networks)
    nets = shown(auto.networks)
    if isinstance(found, str):
        api.echo(f"note: --gpudirect auto: the cluster's networks were not read ({found}): "
                 f"{auto.name} stays on, as a dry run assumes; the pods are refused if the "
                 f"cluster lacks the networks {nets}")
        return body
    if not found:
        api.echo(f"note: --gpudirect auto: the cluster has the networks {nets} (a Network and "
                 f"a GKENetworkParamSet each): {auto.name} is on for the {auto.nodes} "
                 f"{auto.machine} nodes")
        return body
    api.echo(f"warning: --gpudirect auto: the cluster lacks the networks {shown(found)} (a "
             f"Network and a GKENetworkParamSet each): the JobSet goes without {auto.name}, "
             f"so its {auto.nodes} {auto.machine} nodes talk over one network interface each "
             f"instead of their {auto.nics} GPU NICs, a small part of the bandwidth the machine "
             "is built for, and collective operations between nodes slow the training down")
    api.echo(f"  hint: create a Network and a GKENetworkParamSet for each of {nets} (gpujob "
             "preflight --service gke says how; multi-networking must be on) and submit "
             "again; --gpudirect on sends GPUDirect without looking")
    return auto.body
