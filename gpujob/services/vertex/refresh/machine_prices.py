"""Machine types' prices from Cloud Billing's per-family Core and RAM SKUs: a machine type's
figure = guestCpus x the family's per-vCPU-hour rate + memoryMb/1024 x its per-GiB-hour rate,
with guestCpus and memoryMb from Compute Engine's ``machineTypes.aggregatedList``. How a SKU's
description names a family, and which machine types belong to it, is data (``machines`` in
``billing-skus.json``, with its sources). A machine type with built-in GPUs (a3-highgpu-*) is
priced whole, its GPUs at the refreshed per-GPU price in the same region, and marked
``includes_accelerators`` as the price table's rule says; where that GPU price is not known,
the machine type is not written and the shipped figure stands.
https://cloud.google.com/vertex-ai/pricing#custom-trained_models
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from fnmatch import fnmatchcase
from typing import Any

KINDS = ("on_demand", "spot", "flex_start", "management_fee")
Rates = dict[tuple[str, str], dict[str, dict[str, Any]]]  # (region, FAMILY) -> kind -> ...


def rates(skus: Mapping[str, Iterable[Mapping[str, Any]]], spec: Mapping[str, Any],
          hourly: Callable[[Mapping[str, Any]], tuple[float, str] | None]) -> Rates:
    """Per region and family, per kind: ``{"core": $, "ram": $, "skus": [...], "time": ...}``
    from the SKUs whose whole description matches one of the family patterns; ``hourly``
    reads a SKU's price (``prices.Refusals.hourly``)."""
    machines = spec["machines"]
    families = set(machines["families"])
    found: Rates = {}
    for kind, pattern in machines["patterns"].items():
        described = re.compile(pattern["description"], re.IGNORECASE)
        for sku in skus.get(pattern["service"], ()):
            text = " ".join(str(sku.get("description", "")).split())
            match = described.fullmatch(text)
            family = match["family"].upper() if match else ""
            price = hourly(sku) if family in families else None
            if match is None or price is None:
                continue
            for region in sku.get("serviceRegions") or []:
                entry = found.setdefault((region, family), {}).setdefault(
                    kind, {"skus": [], "time": "", "service": pattern["service"]})
                entry[match["resource"].lower()] = price[0]
                entry["skus"].append(str(sku.get("skuId", "")))
                if price[1] and (not entry["time"] or price[1] < entry["time"]):
                    entry["time"] = price[1]
    return found


def family_of(name: str, spec: Mapping[str, Any]) -> str | None:
    for family, names in spec["machines"]["families"].items():
        if any(fnmatchcase(name, n) for n in names):
            return family
    return None


def machine_filter(spec: Mapping[str, Any]) -> str:
    """``machineTypes.aggregatedList``'s filter (its regular-expression form, whole names) for
    the machine types of the families the SKUs are read for."""
    names = [n.replace("*", "[a-z0-9-]+") for f in spec["machines"]["families"].values()
             for n in f]
    return "name eq (" + "|".join(names) + ")"


def shapes(listed: Iterable[tuple[str, Mapping[str, Any]]], gpu_names: Mapping[str, str]
           ) -> dict[str, dict[str, tuple[int, float, str | None, int]]]:
    """region -> machine type -> (vCPUs, GiB, built-in GPU's Vertex name, its count), from the
    (zone, MachineType) pairs of the listing; obsolete or deleted types left out."""
    found: dict[str, dict[str, tuple[int, float, str | None, int]]] = {}
    for zone, item in listed:
        deprecated = item.get("deprecated")
        if isinstance(deprecated, dict) and deprecated.get("state") in ("OBSOLETE", "DELETED"):
            continue
        cpus, memory = item.get("guestCpus"), item.get("memoryMb")
        if not isinstance(cpus, int) or not isinstance(memory, int) or cpus <= 0:
            continue
        gpus = item.get("accelerators") or []
        gpu = gpu_names.get(str(gpus[0].get("guestAcceleratorType"))) if gpus else None
        count = int(gpus[0].get("guestAcceleratorCount") or 0) if gpus else 0
        if gpus and (gpu is None or count <= 0):
            continue  # a built-in GPU gpujob cannot name cannot be priced
        region = zone.rsplit("-", 1)[0]
        found.setdefault(region, {})[str(item["name"])] = (cpus, memory / 1024, gpu, count)
    return found


def add(regions: dict[str, dict[str, Any]], found: Rates,
        machines: Mapping[str, Mapping[str, tuple[int, float, str | None, int]]],
        spec: Mapping[str, Any]) -> int:
    """Write each machine type whose on-demand figure is known into ``regions`` (the price
    table's); returns how many were written."""
    written = 0
    for region, named in sorted(machines.items()):
        for name, (cpus, gib, gpu, count) in sorted(named.items()):
            family = family_of(name, spec)
            by_kind = found.get((region, family or ""), {})
            gpu_entry = (regions.get(region, {}).get("accelerators", {}).get(gpu)
                         if gpu else None)
            entry: dict[str, Any] = {}
            skus: dict[str, list[str]] = {}
            refs: set[str] = set()
            times: list[str] = []
            for kind in KINDS:
                rate = by_kind.get(kind, {})
                figure = None
                if "core" in rate and "ram" in rate:
                    figure = cpus * rate["core"] + gib * rate["ram"]
                    if gpu is not None:
                        each = (gpu_entry or {}).get(kind)
                        figure = None if each is None else figure + count * each
                if figure is None:
                    entry[kind] = None
                    continue
                entry[kind] = round(figure, 9)
                skus[kind] = sorted(rate["skus"])
                refs.add(f"CB-{rate['service'].upper()}")
                times += [rate["time"]] if rate["time"] else []
                if gpu is not None and gpu_entry is not None:
                    skus[kind] += gpu_entry["source"]["skus"].get(kind, [])
                    refs.update(gpu_entry["source"]["refs"])
                    if gpu_entry["source"].get("effective_time"):
                        times.append(gpu_entry["source"]["effective_time"])
            if entry.get("on_demand") is None:
                continue
            source: dict[str, Any] = {"refs": sorted(refs), "as_of": min(times)[:10]
                                      if times else "", "skus": skus}
            if times:
                source["effective_time"] = min(times)
            if gpu is not None:
                entry["includes_accelerators"] = True
                source["notes"] = (f"the whole VM: {cpus} vCPUs, {gib:g} GiB and "
                                   f"{count} x {gpu} at the per-GPU SKUs")
            entry["source"] = source
            regions.setdefault(region, {"machine_types": {}, "accelerators": {}}
                               )["machine_types"][name] = entry
            written += 1
    return written
