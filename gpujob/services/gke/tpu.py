"""TPU slices on GKE: a Vertex TPU machine type (``machineSpec.machineType`` ct5lp-hightpu-4t)
with its ``machineSpec.tpuTopology`` (2x2) runs as one slice, one pod per host, as xpk runs
it: ``parallelism = completions = hosts``, each pod selecting the slice's nodes by
``cloud.google.com/gke-tpu-accelerator`` and ``cloud.google.com/gke-tpu-topology``, taking the
host's chips as ``google.com/tpu`` and tolerating the ``google.com/tpu`` taint of TPU node
pools. The machine types, their labels, chips per host and the topologies GKE offers are the
catalog's ``tpus`` section (with its sources)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

if TYPE_CHECKING:
    from gpujob.config.job import Replica

ACCELERATOR_LABEL = "cloud.google.com/gke-tpu-accelerator"
TOPOLOGY_LABEL = "cloud.google.com/gke-tpu-topology"
RESOURCE = "google.com/tpu"
TOPOLOGY = re.compile(r"[1-9][0-9]*(x[1-9][0-9]*){1,2}")
CUBE_SIDE, LONGEST_SIDE = 4, 256  # xpk's generate_tpu_topologies
INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index"  # the pod's host in its slice


class TpuMachine(NamedTuple):
    name: str
    generation: str  # v5e
    label: str  # tpu-v5-lite-podslice: the value of cloud.google.com/gke-tpu-accelerator
    chips_per_host: int
    topologies: tuple[str, ...]  # the slices GKE offers (and, with max_cubes, 3-D ones)
    max_cubes: int | None = None

    def offers(self, topology: str) -> bool:
        if topology in self.topologies:
            return True
        sides = _sides(topology)
        if self.max_cubes is None or sides is None or len(sides) != 3:
            return False
        return (all(s % CUBE_SIDE == 0 and s <= LONGEST_SIDE for s in sides)
                and list(sides) == sorted(sides)
                and math.prod(s // CUBE_SIDE for s in sides) <= self.max_cubes)

    def listed(self) -> str:
        """The topologies it offers, as a user reads them."""
        more = (f", and 3-D ones of up to {self.max_cubes} 4x4x4 cubes (sides multiples of 4, "
                "smallest first)") if self.max_cubes else ""
        return ", ".join(self.topologies) + more


class Catalog(Protocol):
    """What of the GKE catalog (``catalog.GkeCatalog``, which reads this module) is used here."""

    @property
    def tpus(self) -> Mapping[str, TpuMachine]: ...


class Slice(NamedTuple):
    machine: TpuMachine
    topology: str

    @property
    def chips(self) -> int:
        return math.prod(_sides(self.topology) or (1,))

    @property
    def hosts(self) -> int:
        return max(self.chips // self.machine.chips_per_host, 1)


def _sides(topology: str) -> tuple[int, ...] | None:
    if not TOPOLOGY.fullmatch(topology):
        return None
    return tuple(int(s) for s in topology.split("x"))


def read(data: Mapping[str, Any]) -> dict[str, TpuMachine]:
    """The TPU machine types of a catalog file (its optional ``tpus`` section)."""
    types = (data.get("tpus") or {}).get("types") or {}
    return {k: TpuMachine(k, t["generation"], t["label"], t["chips_per_host"],
                          tuple(t["topologies"]), t.get("max_cubes"))
            for k, t in types.items()}


def integrity(data: Mapping[str, Any]) -> list[str]:
    """Each topology a TPU machine type lists fills whole hosts."""
    return [f"tpus.types.{m.name}: topology {t} is not a whole number of "
            f"{m.chips_per_host}-chip hosts"
            for m in read(data).values() for t in m.topologies
            if math.prod(_sides(t) or (1,)) % m.chips_per_host]


def topology_of(replica: Replica) -> str | None:
    value = replica.config.get("tpuTopology")
    return str(value) if value is not None else None


def slice_of(cat: Catalog, replica: Replica) -> Slice | None:
    """The TPU slice a replica runs on (None: not a TPU machine type, or no topology GKE
    offers on it: the rules say which)."""
    machine = cat.tpus.get(replica.machine or "")
    topology = topology_of(replica)
    if machine is None or topology is None or not machine.offers(topology):
        return None
    return Slice(machine, topology)


def hosts(cat: Catalog, replica: Replica) -> int:
    """The pods of one of the replica's Jobs: a TPU slice's hosts, else 1."""
    found = slice_of(cat, replica)
    return found.hosts if found is not None else 1


def problem(cat: Catalog, replica: Replica) -> tuple[str, str] | None:
    """Why a replica on a TPU machine type has no GKE slice, and the fix (None: it has)."""
    machine = cat.tpus[replica.machine or ""]
    topology = topology_of(replica)
    if topology is None:
        return (f"{machine.name} is a TPU {machine.generation} machine type: a GKE TPU slice "
                "needs its topology", f"set machineSpec.tpuTopology, one of: {machine.listed()}")
    if not machine.offers(topology):
        return (f"GKE offers no TPU {machine.generation} slice of topology {topology} on "
                f"{machine.name}", f"use one of: {machine.listed()}")
    return None


def place(found: Slice, spec: dict[str, Any], container: dict[str, Any]) -> None:
    """Make ``spec`` (a pod's) one host of the slice: its node selector, ``google.com/tpu``
    limit and toleration (the launcher variables that count the hosts are translate's)."""
    selector = spec.setdefault("nodeSelector", {})
    selector[ACCELERATOR_LABEL] = found.machine.label
    selector[TOPOLOGY_LABEL] = found.topology
    container["resources"] = {"limits": {RESOURCE: str(found.machine.chips_per_host)}}
    spec["tolerations"] = [{"key": RESOURCE, "operator": "Exists", "effect": "NoSchedule"}]
