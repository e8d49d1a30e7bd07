"""The CPU and memory a GPU pod requests: what GKE leaves to pods on one node of its machine type
(the node's allocatable: the machine's vCPUs and memory, ``machine_types``, less what GKE
reserves, ``pod_settings.node_reserve``), less a margin for GKE's own pods. A GPU pod has its node
to itself, so it asks for the node; Kueue's quotas then count its CPU and memory too. The
recipes and xpk set no CPU or memory limits, and neither does gpujob (a limit below what the
pod's ``/dev/shm`` holds would kill it)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from gpujob.services.gke.catalog import GkeCatalog

MIB_PER_GIB = 1024


class Node(NamedTuple):
    """One node of a machine type: its size and what its one GPU pod requests."""

    vcpus: int
    memory_gib: float
    allocatable_cpu_m: int  # millicores
    allocatable_memory_mib: int
    cpu_m: int  # the pod's request
    memory_mib: int


def _reserved(amount: float, tiers: Sequence[Mapping[str, Any]]) -> float:
    """The share each tier of ``amount`` keeps back, summed (tiers in order, ``upto`` where
    each ends; null: no end)."""
    total, start = 0.0, 0.0
    for tier in tiers:
        end = amount if tier["upto"] is None else min(amount, float(tier["upto"]))
        if end > start:
            total += (end - start) * float(tier["share"])
        if tier["upto"] is None or amount <= float(tier["upto"]):
            break
        start = float(tier["upto"])
    return total


def node(cat: GkeCatalog, machine: str | None) -> Node | None:
    """The node of ``machine``; None when the catalog has no size for it (or no reservation)."""
    reserve = cat.pod_settings.get("node_reserve")
    found = cat.machine_types.get(machine or "")
    if not reserve or found is None or found.vcpus is None or found.memory_gib is None:
        return None
    cpu_m = math.floor(found.vcpus * 1000 - _reserved(found.vcpus, reserve["cpu"]) * 1000
                       + 1e-6)
    reserved_mib = _reserved(found.memory_gib, reserve["memory_gib"]) * MIB_PER_GIB
    memory_mib = math.floor(found.memory_gib * MIB_PER_GIB - reserved_mib
                            - float(reserve["eviction_mib"]) + 1e-6)
    system = reserve["system_pods"]
    return Node(found.vcpus, found.memory_gib, cpu_m, memory_mib,
                cpu_m - int(system["cpu_m"]), memory_mib - int(system["memory_mib"]))


def request(container: dict[str, Any], cat: GkeCatalog, machine: str | None) -> bool:
    """Give the GPU container the CPU and memory requests of its node (False: no size known,
    no requests)."""
    found = node(cat, machine)
    if found is None:
        return False
    requests = container.setdefault("resources", {}).setdefault("requests", {})
    requests.update({"cpu": f"{found.cpu_m}m", "memory": f"{found.memory_mib}Mi"})
    return True


_SUFFIXES = {"": 1.0, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15,
             "Ki": 2.0 ** 10, "Mi": 2.0 ** 20, "Gi": 2.0 ** 30, "Ti": 2.0 ** 40, "Pi": 2.0 ** 50}


def quantity(text: object) -> float | None:
    """A Kubernetes quantity (``7910m``, ``8``, ``27000Mi``, ``1.5Gi``) as a plain number (cores,
    bytes); None for one it cannot read."""
    value = str(text or "").strip()
    digits = value.rstrip("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    suffix = value[len(digits):]
    if suffix not in _SUFFIXES:
        return None
    try:
        return float(digits) * _SUFFIXES[suffix]
    except ValueError:
        return None
