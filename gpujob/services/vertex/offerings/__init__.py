"""``gpujob gpus --service vertex``: Vertex AI's GPUs, the machine types that take them, how many,
and where, from the Vertex catalog (``catalog.json``), filtered; ``offerings_report`` prints them.

One record (``Offering``: one GPU on one machine type, a cell of Vertex's machine × GPU × count
table) feeds the table and the JSON. Where comes from the catalog's ``zones`` section: the
Compute Engine zones that list the GPU or machine type, a proxy for Vertex AI's availability,
which every output says, with its date. The filters and their messages are those of the AI
Platform ``gpujob gpus`` (``gpujob.services.ai_platform.offerings``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from gpujob.catalog import offer
from gpujob.errors import InvalidConfig
from gpujob.services.offerings import Filters, with_one_filter_fewer
from gpujob.services.vertex.catalog import VertexCatalog
from gpujob.services.vertex.records import Accelerator, region_of
from gpujob.suggest import describe_list, did_you_mean, or_list

if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from gpujob.tuples import NamedTuple


class Offering(NamedTuple):
    """One GPU on one machine type: the counts of it the machine takes and the zones that list
    it (None: the proxy has no data for that machine type)."""

    gpu: str  # NVIDIA_H100_80GB
    name: str  # H100
    machine_type: str  # a3-highgpu-8g
    family: str  # a3-high
    counts: tuple[int, ...]
    built_in: bool  # the GPUs come with the machine type: a job states exactly them
    zones: tuple[str, ...] | None

    @property
    def regions(self) -> dict[str, list[str]] | None:
        if self.zones is None:
            return None
        out: dict[str, list[str]] = {}
        for zone in self.zones:
            out.setdefault(region_of(zone), []).append(zone)
        return out

    def as_dict(self) -> dict[str, object]:
        return {**self._asdict(), "regions": self.regions}


def _key(name: str) -> str:
    """A GPU name as users spell it, any case and separators: h100-mega, H100 Mega, …"""
    return name.replace(" ", "").replace("_", "").replace("-", "").lower()


def gpu_types(cat: VertexCatalog) -> list[Accelerator]:
    """The catalog's GPU types (not TPUs), in its order (the API's enum), the retired included."""
    return [a for a in cat.accelerators.values() if a.kind == "gpu"]


def all_offerings(cat: VertexCatalog) -> list[Offering]:
    """Every (GPU, machine type) cell the catalog offers, GPU by GPU."""
    out = []
    for acc in gpu_types(cat):
        for name in cat.machines_for(acc.api_name):
            m = cat.machine_types[name]
            out.append(Offering(acc.api_name, acc.name, name, m.family,
                                m.accelerators[acc.api_name], m.built_in,
                                cat.zones_for(name, acc.api_name)))
    return out


def _narrow(o: Offering, f: Filters) -> Offering | None:
    """The offering as far as the filters keep it (a region or zone keeps what the zone proxy
    lists there: not the offerings it has no data for)."""
    if (f.gpu and o.gpu != f.gpu) or (f.machine_type and o.machine_type != f.machine_type):
        return None
    if f.count is not None:
        if f.count not in o.counts:
            return None
        o = o._replace(counts=(f.count,))
    if f.region or f.zone:
        regions = regions_of(f)
        zones = tuple(z for z in o.zones or () if (not regions or region_of(z) in regions)
                      and (not f.zone or z == f.zone))
        if not zones:
            return None
        o = o._replace(zones=zones)
    return o


def regions_of(f: Filters) -> list[str]:
    """The regions ``--region`` names: one, or a comma list (none: every region)."""
    return f.region.split(",") if f.region else []


def query(cat: VertexCatalog, f: Filters) -> list[Offering]:
    """The offerings that pass every filter."""
    return [n for n in (_narrow(o, f) for o in all_offerings(cat)) if n is not None]


def unlisted(cat: VertexCatalog, f: Filters) -> list[Offering]:
    """The offerings that pass every filter but the region and zone, which the zone proxy has
    no data for (so no place can be said to list them)."""
    if not (f.region or f.zone):
        return []
    return [o for o in query(cat, replace(f, region=None, zone=None)) if o.zones is None]


def proxy_zones(cat: VertexCatalog) -> list[str]:
    """Every zone the proxy lists, sorted."""
    return sorted({z for zs in cat.machine_zones.values() for z in zs}
                  | {z for _, zs in cat.gpu_zones.values() for z in zs})


def resolve_filters(cat: VertexCatalog, gpu: str | None, machine_type: str | None,
                    count: int | None, region: str | None, zone: str | None) -> Filters:
    """Names as users write them -> catalog names; an unknown name is a miss (exit 1) with a
    did-you-mean or the names there are."""
    found = cat.find_gpu(gpu) if gpu is not None else None
    if gpu is not None and (found is None or found.kind != "gpu"):
        names = [a.name for a in gpu_types(cat)]
        guess = did_you_mean(gpu, names + [a.api_name for a in gpu_types(cat)])
        what = f"{found.name} is a TPU; " if found else ""
        raise InvalidConfig(f"no GPU type {gpu!r}", what + (
            f"did you mean {guess!r}?" if guess else f"GPU types: {', '.join(names)}"))
    if machine_type is not None and machine_type not in cat.machine_types:
        legacy = cat.legacy_machine_types.get(machine_type)
        if legacy is not None:
            accel = (f" with {legacy.accelerator.count} × {legacy.accelerator.type}"
                     if legacy.accelerator else "")
            raise InvalidConfig(f"{machine_type} is an AI Platform machine type, not one of "
                                "Vertex AI's",
                                f"gpujob sends it to Vertex as {legacy.machine_type}{accel}: "
                                f"--machine-type {legacy.machine_type}")
        _unknown("machine type", machine_type, list(cat.machine_types))
    regions = list(dict.fromkeys(r.strip() for r in (region or "").split(",") if r.strip()))
    for one in regions:
        if one in cat.training_regions:
            continue
        if one in cat.endpoint_only_regions:
            raise InvalidConfig(f"{one} is not a Vertex AI training region",
                                "it has an aiplatform endpoint, but gcloud's list of training "
                                "regions does not name it; training regions: "
                                f"{describe_list(list(cat.training_regions), 12)}")
        _unknown("region", one, list(cat.training_regions))
    region = ",".join(regions) or None
    if zone is not None and zone not in proxy_zones(cat):
        _unknown("zone", zone, proxy_zones(cat))
    if zone and regions and region_of(zone) not in regions:
        raise InvalidConfig(f"zone {zone} is not in region {region}")
    return Filters(found.api_name if found else None, machine_type, count, region, zone)


def _unknown(what: str, value: str, known: list[str]) -> None:
    guess = did_you_mean(value, known)
    raise InvalidConfig(f"no {what} {value!r} in the Vertex catalog",
                        f"did you mean {guess!r}?" if guess else
                        f"{what}s: {describe_list(known, 12)}")


def _reasons(cat: VertexCatalog, f: Filters) -> list[str]:
    """Why the filters leave nothing, in the catalog's words."""
    acc = cat.accelerators.get(f.gpu or "")
    if acc is not None and acc.retired:
        instead = cat.legacy_accelerators.get(acc.api_name, {}).get("suggest")
        return [f"{acc.name} is retired: {acc.retired}"
                + (f"; use {cat.accelerators[instead].name} ({instead})" if instead else "")]
    out = []
    where = f.zone or f.region
    if where:
        here = query(cat, Filters(zone=f.zone, region=f.region))
        if not any(o.zones for o in here):
            out.append(f"the zone proxy lists no GPUs in {where}")
        elif acc is not None and not any(o.zones and o.gpu == acc.api_name for o in here):
            regions = sorted({region_of(z) for o in query(cat, Filters(gpu=acc.api_name))
                              for z in o.zones or ()})
            out.append(f"the zone proxy lists no {acc.name} in {where}" + (
                f" (regions with it: {describe_list(regions, 6)})" if regions else ""))
    missing = unlisted(cat, f)
    if missing:
        out.append(f"the zone proxy has no data for {machines_by_gpu(missing)}")
    if acc is not None and f.machine_type:
        counts = cat.counts(f.machine_type, acc.api_name)
        if not counts or (f.count is not None and f.count not in counts):
            out.append(cat.problem(f.machine_type, acc.api_name,
                                   f.count if counts and f.count is not None else 1) or "")
    elif f.machine_type and not any(cat.accelerators[a].kind == "gpu" for a in
                                    cat.machine_types[f.machine_type].accelerators):
        out.append(f"{f.machine_type} takes no GPUs")
    elif acc is not None and f.count is not None:
        offered = sorted({n for o in query(cat, Filters(gpu=acc.api_name)) for n in o.counts})
        if f.count not in offered:
            out.append(f"{acc.name} GPUs come {or_list(offered)} per machine")
    return [line for line in out if line]


class Group(NamedTuple):
    """The machine types on which a GPU comes in the same counts, listed in the same zones."""

    gpu: str
    name: str
    counts: tuple[int, ...]
    zones: tuple[str, ...] | None
    machine_types: tuple[str, ...]


def groups(offerings: list[Offering]) -> list[Group]:
    """Offerings merged by GPU, counts and zones: GPU by GPU, each by its counts."""
    merged: dict[tuple[str, tuple[int, ...], tuple[str, ...] | None], Group] = {}
    for o in offerings:
        key = (o.gpu, o.counts, o.zones)
        found = merged.get(key, Group(o.gpu, o.name, o.counts, o.zones, ()))
        merged[key] = found._replace(machine_types=(*found.machine_types, o.machine_type))
    order = list(dict.fromkeys(o.gpu for o in offerings))
    return sorted(merged.values(), key=lambda g: (order.index(g.gpu), g.counts))


def alternatives(cat: VertexCatalog, f: Filters) -> list[str]:
    """For an empty result: why, and what matches with one filter fewer."""
    return _reasons(cat, f) + with_one_filter_fewer(f, lambda g: groups(query(cat, g)),
                                                    _summary)


def _summary(g: Group, f: Filters) -> str:
    where = ""
    if g.zones is None:
        where = " (no zone data)"
    elif f.region or f.zone:
        where = f" in {', '.join(g.zones)}"
    else:
        where = f" in {describe_list(list(dict.fromkeys(map(region_of, g.zones))), 4)}"
    return (f"{g.name} × {', '.join(map(str, g.counts))} on "
            f"{describe_list(list(g.machine_types), 3)}{where}")


def machines_by_gpu(offerings: list[Offering]) -> str:
    """``GB200 on a4x-highgpu-4g; RTX PRO 6000 on g4-standard-48 …``"""
    by_gpu: dict[str, list[str]] = {}
    for o in offerings:
        by_gpu.setdefault(o.name, []).append(o.machine_type)
    return "; ".join(f"{name} on {' '.join(m)}" for name, m in by_gpu.items())


def related(cat: VertexCatalog, api_name: str) -> list[Accelerator]:
    """Other GPU types whose name extends this one's or that this one's extends (H100 and
    H100 Mega, A100 and A100 80GB): worth a look by who asked for one of them."""
    name = _key(cat.accelerators[api_name].name)
    return [a for a in gpu_types(cat) if a.api_name != api_name and not a.retired
            and (_key(a.name).startswith(name) or name.startswith(_key(a.name)))]


# -- for shell completion ----------------------------------------------------------------

def completions(cat: Any) -> offer.Offer:
    """What the Vertex AI catalog (``gpujob.services.vertex.catalog.VertexCatalog``) offers: its
    machine types and the AI Platform ones a config may still name (they are translated)."""
    accelerators = tuple(
        offer.Accelerator(a.api_name, a.name, a.kind, tuple(sorted(
            {n for m in cat.machine_types.values() for n in m.accelerators.get(a.api_name, ())})))
        for a in cat.accelerators.values())
    machines = {m.name: m.family for m in cat.machine_types.values()}
    machines.update({name: f"AI Platform, as {legacy.machine_type}"
                     for name, legacy in cat.legacy_machine_types.items()})
    zones = sorted({z for zs in cat.machine_zones.values() for z in zs}
                   | {z for _, zs in cat.gpu_zones.values() for z in zs})
    return offer.Offer(tuple(a for a in accelerators if a.counts), machines,
                 dict.fromkeys(cat.training_regions, "training region"),
                 dict.fromkeys(zones, "zone"), cat.counts, frozenset(cat.legacy_machine_types))
