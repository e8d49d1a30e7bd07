"""The price table of ``gpujob gpus`` (Vertex AI): every region and machine type that offers the
GPUs asked for, at each count, with what one machine with its GPUs costs an hour there on
demand, on Spot and with flex-start (Vertex AI's management fee included), cheapest first
(``--sort``). One run, no network: the regions are the catalog's zone proxy's, the prices
gpujob's table (``gpujob.services.vertex.pricing.prices``), priced as a one-replica job
(``gpujob.services.vertex.pricing.cost``). A figure the table lacks is "no price", never a guess."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from gpujob.services.vertex.pricing.prices import STRATEGIES

if TYPE_CHECKING:
    from typing import NamedTuple

    from gpujob.services.offerings import Filters
    from gpujob.services.vertex.offerings import Offering
    from gpujob.services.vertex.pricing.cost import Estimate
    from gpujob.services.vertex.pricing.prices import PriceTable
    from gpujob.services.vertex.quota.advice import Availability
else:
    from gpujob.tuples import NamedTuple

SORTS = ("price", "region", "name")
HEADER = ("REGION", "MACHINE TYPE", "GPUS", "ON-DEMAND $/HOUR", "SPOT $/HOUR",
          "FLEX-START $/HOUR")


class PriceAsk(NamedTuple):
    """How ``gpujob gpus`` was asked for prices: the order (``--sort``) and whether
    ``--region all`` (every region, as no ``--region`` with a price table)."""

    sort: str = "price"
    every: bool = False
    # --availability: Compute Engine's capacity advice for the rows shown (offerings_advice)
    advise: Callable[[Sequence[PriceRow]], Availability] | None = None

    def wanted(self, f: Filters) -> bool:
        """The price table is shown once the filters narrow the offerings enough: a count, a
        machine type, regions or a zone (a GPU alone can be hundreds of rows)."""
        return self.every or bool(f.count is not None or f.machine_type or f.region or f.zone)


DEFAULT_ASK = PriceAsk()


class PriceRow(NamedTuple):
    """One machine type with ``count`` GPUs in one region, and its $/hour by strategy (None:
    the table has no price)."""

    region: str
    machine_type: str
    gpu: str  # NVIDIA_L4
    name: str  # L4
    count: int  # type: ignore[assignment]  # the field hides tuple.count
    estimate: Estimate

    @property
    def hourly(self) -> dict[str, float | None]:
        return self.estimate.hourly

    def as_dict(self) -> dict[str, Any]:
        from gpujob.services.vertex.pricing.cost import money

        return {"region": self.region, "machine_type": self.machine_type, "gpu": self.gpu,
                "name": self.name, "count": self.count,
                **{s: money(v) for s, v in self.hourly.items()},
                "unknown": list(self.estimate.unknown)}


def _natural(text: str) -> tuple[object, ...]:
    """g2-standard-4 before g2-standard-12."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text))


def _price_key(row: PriceRow) -> tuple[float, ...]:
    """Cheapest on demand first; then Spot, then flex-start; no price last."""
    return tuple(math.inf if row.hourly[s] is None else row.hourly[s]  # type: ignore[misc]
                 for s in STRATEGIES)


def sort_key(sort: str) -> Any:
    def key(row: PriceRow) -> tuple[object, ...]:
        name = (row.name, _natural(row.machine_type), row.count)
        if sort == "region":
            return (row.region, *_price_key(row), *name)
        if sort == "name":
            return (*name, *_price_key(row), row.region)
        return (*_price_key(row), row.region, *name)
    return key


def price_rows(offerings: Sequence[Offering], count: int | None, sort: str = "price",
               table: PriceTable | None = None) -> tuple[PriceTable, list[PriceRow]]:
    """A row per region the zone proxy lists each offering in (as far as the filters keep
    them) and per count (``count``: only that one), sorted by ``sort``."""
    from gpujob.services.vertex.offerings.prices import one_estimate
    from gpujob.services.vertex.pricing import prices

    table = table or prices.load()
    rows = [PriceRow(region, o.machine_type, o.gpu, o.name, n, one_estimate(table, region, o, n))
            for o in offerings for region in (o.regions or {})
            for n in o.counts if count is None or n == count]
    return table, sorted(rows, key=sort_key(sort))


def cells(rows: Sequence[PriceRow]) -> list[tuple[str, ...]]:
    from gpujob.services.vertex.pricing.cost import dollars

    return [(r.region, r.machine_type, f"{r.count} × {r.name}",
             *(dollars(r.hourly[s]) for s in STRATEGIES)) for r in rows]


def _missing(table: PriceTable, rows: Sequence[PriceRow]) -> list[str]:
    """``no flex-start price for NVIDIA_L4 in any of the 18 regions shown``: what each
    strategy has no figure for, and where (with why, where the table says)."""
    from gpujob.services.vertex.pricing.cost import NAMES
    from gpujob.suggest import describe_list

    shown = sorted({r.region for r in rows})
    where: dict[tuple[str, str, str], list[str]] = {}  # (strategy, name, why): regions
    for r in rows:
        for pool in r.estimate.pools:
            for s, names in pool.unpriced.items():
                for name in names:
                    regions = where.setdefault((s, name, table.left_out(name, r.region) or ""),
                                               [])
                    if r.region not in regions:
                        regions.append(r.region)
    grouped: dict[tuple[str, str, tuple[str, ...]], list[str]] = {}
    for (s, name, why), regions in where.items():
        grouped.setdefault((name, why, tuple(sorted(regions))), []).append(NAMES[s])
    out = []
    for (name, why, covered), strategies in grouped.items():
        others = [r for r in shown if r not in covered]
        place = describe_list(list(covered), 6)
        if len(shown) > 1 and not others:
            place = f"any of the {len(shown)} regions shown"
        elif len(covered) > 6 and len(others) <= 3:
            place = f"any region shown but {', '.join(others)}"
        out.append(f"no {'/'.join(strategies)} price for {name} in {place}"
                   + (f" ({why})" if why else ""))
    return out


def notes(table: PriceTable, rows: Sequence[PriceRow], sort: str,
          unzoned: Sequence[Offering]) -> list[str]:
    from gpujob.services.vertex.pricing.cost import NOT_COUNTED

    dates = [r.estimate.as_of for r in rows if r.estimate.as_of]
    refs = sorted({ref for r in rows for ref in r.estimate.refs})
    urls = " ".join(c["url"] for c in table.cite(refs) if c.get("url"))
    order = {"price": "cheapest on-demand first", "region": "by region, cheapest first",
             "name": "by GPU and machine type"}[sort]
    out = [f"$/HOUR: what one machine with its GPUs costs an hour in each region the zone proxy "
           "lists it in (Spot and flex-start with Vertex AI's management fee), "
           f"{order} (--sort price|region|name): Vertex AI list prices in {table.currency}"
           + (f" as of {min(dates)}" if dates else "") + (f" ({urls})" if urls else "")
           + f"; not counted: {', '.join(NOT_COUNTED)}."]
    out += [line + "." for line in _missing(table, rows)]
    if unzoned:
        out.append(unzoned_note(unzoned))
    return out


def unzoned_note(unzoned: Sequence[Offering]) -> str:
    return ("Not priced, as the zone proxy has no data on where they are: "
            + "; ".join(f"{o.name} on {o.machine_type}" for o in unzoned) + ".")


def as_json(table: PriceTable, rows: Sequence[PriceRow], sort: str,
            unzoned: Sequence[Offering]) -> dict[str, Any]:
    """``price_table``: the rows in their order, and where the prices come from."""
    from gpujob.services.vertex.pricing.cost import NOT_COUNTED, prices_dict

    dates = [r.estimate.as_of for r in rows if r.estimate.as_of]
    return {"sort": sort, "currency": table.currency, "per": "hour",
            "what": "one machine with its GPUs; spot and flex_start include Vertex AI's "
                    "management fee; null: no price",
            "not_counted": list(NOT_COUNTED),
            **prices_dict(table, sorted({ref for r in rows for ref in r.estimate.refs}),
                          min(dates) if dates else ""),
            "rows": [r.as_dict() for r in rows],
            "not_priced": [{"gpu": o.gpu, "machine_type": o.machine_type,
                            "why": "the zone proxy has no data on where it is offered"}
                           for o in unzoned]}
