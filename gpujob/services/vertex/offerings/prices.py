"""Vertex AI offerings priced an hour (the management fee included) from gpujob's price table
(``vertex.pricing.prices``), each machine type with its GPUs priced as a one-replica job
(``vertex.pricing.cost``): ``one_estimate`` for ``gpujob gpus``' price table and
``gpujob reserve``; ``priced`` and ``as_json`` for ``gpujob gpus --region REGION --format json``.
Without a region no price is given: prices differ by region."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpujob.services.offerings import Filters
    from gpujob.services.vertex.offerings import Offering
    from gpujob.services.vertex.pricing.cost import Estimate
    from gpujob.services.vertex.pricing.prices import PriceTable


def region_of_filters(f: Filters) -> str | None:
    from gpujob.services.vertex.records import region_of

    if f.region and "," in f.region:  # a list of regions: the price table has them
        return None
    return f.region or (region_of(f.zone) if f.zone else None)


def one_estimate(table: PriceTable, region: str, o: Offering, count: int) -> Estimate:
    from gpujob.services.vertex.pricing.cost import estimate

    spec = {"machineType": o.machine_type, "acceleratorType": o.gpu, "acceleratorCount": count}
    return estimate({"workerPoolSpecs": [{"machineSpec": spec, "replicaCount": "1"}]}, region,
                    table)


def priced(offerings: Sequence[Offering], f: Filters
           ) -> tuple[PriceTable, str, list[tuple[Offering, dict[int, Estimate]]]] | None:
    """Each offering's estimates by count (the counts ``--count`` keeps) in the filters'
    region; None without a region."""
    region = region_of_filters(f)
    if region is None:
        return None
    from gpujob.services.vertex.pricing import prices

    table = prices.load()
    return table, region, [(o, {n: one_estimate(table, region, o, n) for n in o.counts
                                if f.count is None or n == f.count}) for o in offerings]


def as_json(table: PriceTable, region: str, found: list[tuple[Offering, dict[int, Estimate]]]
            ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The prices' sources for the report, and each offering's figures by count."""
    from gpujob.services.vertex.pricing.cost import money, prices_dict

    ests = [e for _, by_count in found for e in by_count.values()]
    dates = [e.as_of for e in ests if e.as_of]
    about = {"region": region, "currency": table.currency, "per": "hour",
             "what": "one machine with its GPUs; spot and flex_start include Vertex AI's "
                     "management fee",
             **prices_dict(table, sorted({r for e in ests for r in e.refs}),
                           min(dates) if dates else "")}
    return about, [{str(n): {s: money(v) for s, v in e.hourly.items()}
                    for n, e in by_count.items()} for _, by_count in found]
