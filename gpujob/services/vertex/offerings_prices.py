"""``gpujob gpus --region REGION`` (Vertex AI): what each offering costs an hour there, the
machine type with its GPUs, at each count it takes, on-demand and Spot (the management fee
included), from gpujob's price table (``gpujob.services.vertex.prices``) priced as a one-replica job
(``gpujob.services.vertex.cost``). Without a region no price is shown: prices differ by region."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpujob.services.offerings import Filters
    from gpujob.services.vertex.cost import Estimate
    from gpujob.services.vertex.offerings import Offering
    from gpujob.services.vertex.prices import PriceTable


def region_of_filters(f: Filters) -> str | None:
    from gpujob.services.vertex.records import region_of

    if f.region and "," in f.region:  # a list of regions: the price table has them
        return None
    return f.region or (region_of(f.zone) if f.zone else None)


def one_estimate(table: PriceTable, region: str, o: Offering, count: int) -> Estimate:
    from gpujob.services.vertex.cost import estimate

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
    from gpujob.services.vertex import prices

    table = prices.load()
    return table, region, [(o, {n: one_estimate(table, region, o, n) for n in o.counts
                                if f.count is None or n == f.count}) for o in offerings]


def _money(values: list[float | None]) -> str:
    from gpujob.services.vertex.cost import dollars

    return ", ".join(dollars(v) for v in values)


def rows(found: list[tuple[Offering, dict[int, Estimate]]]) -> list[tuple[str, ...]]:
    """MACHINE TYPE, GPUS, ON-DEMAND, SPOT: one row per offering, the prices in the order of
    the counts."""
    out: list[tuple[str, ...]] = []
    for o, by_count in found:
        ests = list(by_count.values())
        out.append((o.machine_type, f"{', '.join(map(str, by_count))} × {o.name}",
                    _money([e.hourly["on_demand"] for e in ests]),
                    _money([e.hourly["spot"] for e in ests])))
    return out


def notes(table: PriceTable, region: str, found: list[tuple[Offering, dict[int, Estimate]]]
          ) -> list[str]:
    from gpujob.services.vertex.cost import NOT_COUNTED

    ests = [e for _, by_count in found for e in by_count.values()]
    dates = [e.as_of for e in ests if e.as_of]
    refs = sorted({r for e in ests for r in e.refs})
    urls = " ".join(c["url"] for c in table.cite(refs) if c.get("url"))
    out = [f"ON-DEMAND, SPOT: what one machine with its GPUs costs an hour in {region}, at each "
           "count in GPUS (Spot with Vertex AI's management fee): Vertex AI list prices in "
           f"{table.currency}" + (f" as of {min(dates)}" if dates else "")
           + (f" ({urls})" if urls else "") + f"; not counted: {', '.join(NOT_COUNTED)}."]
    missing = sorted({m for e in ests for m in e.unknown})
    if missing:
        out.append(f"no price: {'; '.join(missing)}.")
    return out


def as_json(table: PriceTable, region: str, found: list[tuple[Offering, dict[int, Estimate]]]
            ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The prices' sources for the report, and each offering's figures by count."""
    from gpujob.services.vertex.cost import money, prices_dict

    ests = [e for _, by_count in found for e in by_count.values()]
    dates = [e.as_of for e in ests if e.as_of]
    about = {"region": region, "currency": table.currency, "per": "hour",
             "what": "one machine with its GPUs; spot and flex_start include Vertex AI's "
                     "management fee",
             **prices_dict(table, sorted({r for e in ests for r in e.refs}),
                           min(dates) if dates else "")}
    return about, [{str(n): {s: money(v) for s, v in e.hourly.items()}
                    for n, e in by_count.items()} for _, by_count in found]
