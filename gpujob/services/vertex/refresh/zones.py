"""The zones section from Compute Engine's listings: the zones of each GPU (Vertex AI's name for
it, through the catalog's ``compute_names``) and of each GPU machine type Vertex AI offers, and
the most of each GPU one VM takes.

Attachable GPUs (N1's) take up to ``maximumCardsPerInstance``; a machine type with built-in
GPUs (a2, a3, a4, g2, g4) states its own count (``accelerators[].guestAcceleratorCount``): the
most is the largest of these. Types Compute Engine marks OBSOLETE or DELETED are left out.
https://cloud.google.com/compute/docs/reference/rest/v1/acceleratorTypes
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

GONE = frozenset({"OBSOLETE", "DELETED"})


def _gone(item: Mapping[str, Any]) -> bool:
    deprecated = item.get("deprecated")
    return isinstance(deprecated, dict) and deprecated.get("state") in GONE


def gpu_machine_types(data: Mapping[str, Any]) -> list[str]:
    """The machine types of the catalog whose GPUs are built in (those the zones section
    lists)."""
    return sorted(name for name, m in data["machine_types"]["types"].items()
                  if m.get("built_in") and any(
                      data["accelerator_types"]["types"].get(a, {}).get("kind") == "gpu"
                      for a in m["accelerators"]))


def machine_filter(data: Mapping[str, Any]) -> str:
    """The ``filter`` of ``machineTypes.aggregatedList`` that selects those machine types (the
    API's regular-expression form, which must match the whole name; machine type names hold
    only lowercase letters, digits and hyphens, none special there)."""
    return "name eq (" + "|".join(gpu_machine_types(data)) + ")"


def section(data: Mapping[str, Any], accelerators: Iterable[tuple[str, Mapping[str, Any]]],
            machines: Iterable[tuple[str, Mapping[str, Any]]]) -> dict[str, Any]:
    """``{"gpus": {TYPE: {"max_count", "zones"}}, "machine_types": {NAME: zones}}`` from the
    (zone, AcceleratorType) and (zone, MachineType) pairs of the two listings."""
    names: Mapping[str, str] = data["zones"]["compute_names"]
    wanted = set(gpu_machine_types(data))
    most: dict[str, int] = {}
    gpu_zones: dict[str, set[str]] = {}
    machine_zones: dict[str, set[str]] = {}

    def found(gpu: str | None, zone: str, count: Any) -> None:
        if gpu is None:
            return
        gpu_zones.setdefault(gpu, set()).add(zone)
        if isinstance(count, int) and not isinstance(count, bool) and count > 0:
            most[gpu] = max(most.get(gpu, 0), count)

    for zone, item in accelerators:
        if not _gone(item):
            found(names.get(str(item.get("name"))), zone, item.get("maximumCardsPerInstance"))
    for zone, item in machines:
        name = str(item.get("name"))
        if name not in wanted or _gone(item):
            continue
        machine_zones.setdefault(name, set()).add(zone)
        for gpu in item.get("accelerators") or []:
            found(names.get(str(gpu.get("guestAcceleratorType"))), zone,
                  gpu.get("guestAcceleratorCount"))
    return {
        "gpus": {gpu: {"max_count": most[gpu], "zones": sorted(gpu_zones[gpu])}
                 for gpu in sorted(gpu_zones) if gpu in most},
        "machine_types": {name: sorted(zones) for name, zones in sorted(machine_zones.items())},
    }
