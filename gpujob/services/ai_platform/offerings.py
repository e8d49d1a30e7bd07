"""``gpujob gpus``: what can I use? GPU offerings from the catalog, filtered, as a table or JSON.

One record type (``Offering``) feeds both outputs: a GPU type, the counts of it a group of machine
types takes, those machine types, and the zones that offer the GPU.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from gpujob.catalog.offer import Accelerator, Offer, size
from gpujob.console import CONSOLE, dumps
from gpujob.errors import InvalidConfig
from gpujob.services.ai_platform import vertex_only
from gpujob.services.ai_platform.records import Catalog, GpuType
from gpujob.services.offerings import Filters, report_miss, table_width, with_one_filter_fewer
from gpujob.suggest import describe_list, did_you_mean, same_name

REPORT_VERSION = 1


@dataclass(frozen=True)
class Offering:
    gpu: str  # NVIDIA_TESLA_T4
    name: str  # T4
    gcloud_name: str  # nvidia-tesla-t4
    counts: tuple[int, ...]
    machine_types: tuple[str, ...]
    built_in: bool  # the GPUs come with the machine type (legacy types, a2)
    zones: tuple[str, ...]
    deprecated: str | None

    @property
    def regions(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for zone in self.zones:
            out.setdefault(zone.rsplit("-", 1)[0], []).append(zone)
        return out

    def as_dict(self) -> dict[str, object]:
        return {**asdict(self), "regions": self.regions}


def all_offerings(cat: Catalog) -> list[Offering]:
    """Every GPU type grouped by the counts machine types take, then legacy built-in GPUs."""
    out = []
    for gpu in cat.gpu_types.values():
        if gpu.kind != "gpu":
            continue
        zones = tuple(z for r in cat.regions for z in cat.zones_with(r, gpu.api_name))
        groups: dict[tuple[int, ...], list[str]] = {}
        for m in cat.compute_engine_types():
            counts = m.gpus.get(gpu.api_name)
            if counts:
                groups.setdefault(tuple(counts), []).append(m.name)
        legacy: dict[tuple[int, ...], list[str]] = {}
        for m in cat.machine_types.values():
            if m.category == "legacy" and m.built_in and m.built_in[0] == gpu.api_name:
                legacy.setdefault((m.built_in[1],), []).append(m.name)
        for built_in, grouped in ((gpu.built_in_only, groups), (True, legacy)):
            for counts, machines in sorted(grouped.items(), key=lambda kv: kv[0]):
                out.append(Offering(gpu.api_name, gpu.name, gpu.gcloud_name, counts,
                                    tuple(machines), built_in, zones, gpu.deprecated))
    return out


def _narrow(offer: Offering, f: Filters) -> Offering | None:
    if f.gpu and offer.gpu != f.gpu:
        return None
    if f.machine_type:
        if f.machine_type not in offer.machine_types:
            return None
        offer = replace(offer, machine_types=(f.machine_type,))
    if f.count is not None:
        if f.count not in offer.counts:
            return None
        offer = replace(offer, counts=(f.count,))
    zones = offer.zones
    if f.region:
        zones = tuple(z for z in zones if z.rsplit("-", 1)[0] == f.region)
    if f.zone:
        zones = tuple(z for z in zones if z == f.zone)
    if (f.region or f.zone) and not zones:
        return None
    return replace(offer, zones=zones)


def query(cat: Catalog, f: Filters) -> list[Offering]:
    """The offerings that pass every filter; rows the filters made alike are merged."""
    merged: dict[tuple[str, tuple[int, ...], bool], Offering] = {}
    for offer in all_offerings(cat):
        narrowed = _narrow(offer, f)
        if narrowed is None:
            continue
        key = (narrowed.gpu, narrowed.counts, narrowed.built_in)
        if key in merged:
            narrowed = replace(narrowed, machine_types=merged[key].machine_types
                               + narrowed.machine_types)
        merged[key] = narrowed
    return list(merged.values())


def resolve_filters(cat: Catalog, gpu: str | None, machine_type: str | None, count: int | None,
                    region: str | None, zone: str | None) -> Filters:
    """Names as users write them (t4, nvidia-tesla-t4, NVIDIA_TESLA_T4) -> catalog names; an
    unknown name is a miss (exit 1) with a did-you-mean."""
    found: GpuType | None = None
    if gpu is not None:
        found = cat.find_gpu(gpu)
        if found is None or found.kind != "gpu":
            names = [g.name for g in cat.gpu_types.values() if g.kind == "gpu"]
            guess = did_you_mean(gpu, names + [g.api_name for g in cat.gpu_types.values()])
            elsewhere = (vertex_only.accelerator_hint(gpu, cat.gpu_types) if found is None
                         else None)
            raise InvalidConfig(f"no GPU type {gpu!r}", elsewhere or (
                f"did you mean {guess!r}?" if guess else f"GPU types: {', '.join(names)}"))
    for value, known, what in ((machine_type, list(cat.machine_types), "machine type"),
                               (region, list(cat.regions), "region"),
                               (zone, [z for r in cat.regions.values() for z in r], "zone")):
        if value is not None and value not in known:
            guess = did_you_mean(value, known)
            elsewhere = (vertex_only.machine_hint(value) if what == "machine type"
                         and not same_name(value, known) else None)
            raise InvalidConfig(f"no {what} {value!r} in the catalog", elsewhere or (
                f"did you mean {guess!r}?" if guess else f"{what}s: {describe_list(known, 12)}"))
    if zone and region and zone.rsplit("-", 1)[0] != region:
        raise InvalidConfig(f"zone {zone} is not in region {region}")
    return Filters(found.api_name if found else None, machine_type, count, region, zone)


def _reasons(cat: Catalog, f: Filters) -> list[str]:
    """Why the filters leave nothing, in the catalog's words."""
    gpu = cat.gpu_types.get(f.gpu or "")
    region = f.region or (f.zone.rsplit("-", 1)[0] if f.zone else None)
    out = []
    if region and not cat.region_gpus(region):
        out.append(f"{region} offers no GPUs for training")
    elif gpu and f.zone and region and gpu.api_name not in cat.regions[region].get(f.zone, ()):
        out.append(f"zone {f.zone} does not offer {gpu.name}")
    elif gpu and region and gpu.api_name not in cat.region_gpus(region):
        out.append(f"{region} does not offer {gpu.name} (regions with it: "
                   f"{describe_list(cat.regions_with(gpu.api_name), 6)})")
    if gpu and f.machine_type:
        counts = cat.counts(f.machine_type, gpu.api_name)
        builtin = cat.machine_types[f.machine_type].built_in
        if builtin:
            counts = (builtin[1],) if builtin[0] == gpu.api_name else ()
        if not counts:
            why = cat.explain(f.machine_type, gpu.api_name, max(gpu.counts, default=0))
            out.append(f"{f.machine_type} takes no {gpu.name}" + (f": {why}" if why else ""))
        elif f.count is not None and f.count not in counts:
            why = cat.explain(f.machine_type, gpu.api_name, f.count)
            out.append(f"{f.machine_type} takes {', '.join(map(str, counts))} × {gpu.name}, "
                       f"not {f.count}" + (f": {why}" if why else ""))
    elif gpu and f.count is not None and f.count not in gpu.counts:
        out.append(f"{gpu.name} GPUs come {', '.join(map(str, gpu.counts))} per machine")
    return out


def alternatives(cat: Catalog, f: Filters) -> list[str]:
    """For an empty result: why, and what matches with one filter fewer."""
    return _reasons(cat, f) + with_one_filter_fewer(f, lambda g: query(cat, g), _summary)


def _summary(o: Offering, f: Filters) -> str:
    where = ""
    if f.region or f.zone:
        where = f" in {', '.join(o.zones)}"
    elif o.regions:
        where = f" in {describe_list(list(o.regions), 4)}"
    return (f"{o.name} × {', '.join(map(str, o.counts))} on "
            f"{describe_list(list(o.machine_types), 3)}{where}")


def render_json(offerings: Sequence[Offering], f: Filters, cat: Catalog) -> str:
    return dumps({
        "version": REPORT_VERSION,
        "filters": f.given(),
        "catalog": {"path": cat.path, "as_of": {k: v["as_of"] for k, v in cat.sources.items()}},
        "offerings": [o.as_dict() for o in offerings],
    }, ensure_ascii=True) + "\n"


def render_table(offerings: Sequence[Offering], f: Filters) -> str:
    width = table_width()
    zoned = bool(f.region or f.zone)
    header = ("GPU", "COUNT", "MACHINE TYPES", "ZONES" if zoned else "REGIONS")
    rows: list[tuple[str, str, str, str] | None] = []  # None: a blank line between GPUs
    for i, o in enumerate(offerings):
        first = i == 0 or offerings[i - 1].gpu != o.gpu  # where and * once per GPU
        if first and i:
            rows.append(None)
        gpu = o.name + (" *" if o.deprecated else "") if first else ""
        kind = " (built in)" if o.built_in else ""
        where = (" ".join(o.zones if zoned else o.regions) or "-") if first else ""
        rows.append((gpu, ", ".join(map(str, o.counts)), " ".join(o.machine_types) + kind,
                     where))
    real = [r for r in rows if r is not None]
    w0 = max(len(header[0]), *(len(r[0]) for r in real))
    w1 = max(len(header[1]), *(len(r[1]) for r in real))
    rest = width - w0 - w1 - 6
    w2 = max(24, rest * 11 // 20)
    w3 = max(20, rest - w2 - 2)
    lines = []
    for row in [header, *rows]:
        if row is None:
            lines.append("")
            continue
        left = textwrap.wrap(row[2], w2, break_on_hyphens=False) or [""]
        right = textwrap.wrap(row[3], w3, break_on_hyphens=False) or [""]
        for i in range(max(len(left), len(right))):
            cells = (row[0] if i == 0 else "", row[1] if i == 0 else "",
                     left[i] if i < len(left) else "", right[i] if i < len(right) else "")
            lines.append(f"{cells[0]:<{w0}}  {cells[1]:<{w1}}  {cells[2]:<{w2}}  "
                         f"{cells[3]}".rstrip())
    notes = []
    if any(o.deprecated for o in offerings):
        notes.append("* past its end of support: " + next(o.deprecated for o in offerings
                                                            if o.deprecated))
    notes.append("Use the API name (NVIDIA_TESLA_T4) in configs, the gcloud name "
                 "(nvidia-tesla-t4) or either in --*-accelerator flags.")
    return "\n".join(lines) + "\n\n" + "\n".join(notes) + "\n"


def run(cat: Catalog, f: Filters, fmt: str) -> int:
    """Print the offerings that match; exit 1 (with the closest alternatives) when none do."""
    found = query(cat, f)
    if fmt == "json":
        CONSOLE.json_text(render_json(found, f, cat))
    elif found:
        CONSOLE.out(render_table(found, f))
    return 0 if found else report_miss(f, alternatives(cat, f))


# -- for shell completion ----------------------------------------------------------------

def completions(cat: Any) -> Offer:
    """What the AI Platform catalog (``gpujob.catalog.Catalog``) offers."""
    accelerators = tuple(Accelerator(g.api_name, g.name, g.kind, g.counts)
                         for g in cat.gpu_types.values() if g.counts)

    def gpus(types: Any) -> str:
        return ", ".join(sorted(cat.short(t) for t in types)) or "no GPUs"

    def counts(machine: str, api_name: str) -> tuple[int, ...]:
        m, acc = cat.machine_types.get(machine), cat.gpu_types.get(api_name)
        if m is not None and m.category == "tpu" and acc is not None and acc.kind == "tpu":
            return tuple(acc.counts)  # cloud_tpu takes a TPU, in the counts the TPU allows
        return tuple(cat.counts(machine, api_name))

    return Offer(
        accelerators,
        {m.name: size(m.vcpus, m.memory_gb, m.category) for m in cat.machine_types.values()},
        {r: gpus(cat.region_gpus(r)) for r in cat.regions},
        {z: gpus(types) for zones in cat.regions.values() for z, types in zones.items()},
        counts)
