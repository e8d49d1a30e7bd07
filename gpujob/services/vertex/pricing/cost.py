"""What a Vertex AI job costs an hour, from its request body and a price table
(``prices``): every pool's replicas x (machine + GPUs x count), plus the management
fee under Spot and flex-start, by scheduling strategy; a tuning job runs ``parallelTrialCount``
trials at once. A figure the table does not have is said, not guessed.

Used by ``validate``, ``submit`` and ``convert`` (the job's $/hour and ``--max-hourly-cost``) and
``gpus`` (each offering's). Reads no Google library.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpujob.numbers import dollars as dollars  # the pricing modules import it from here
from gpujob.services.vertex.paths import count_of, spec_of
from gpujob.services.vertex.pricing.prices import STRATEGIES

if TYPE_CHECKING:
    from typing import NamedTuple

    from gpujob.services.vertex.pricing.prices import Price, PriceTable
    from gpujob.services.vertex.records import Scheduling
else:
    from gpujob.tuples import NamedTuple

NAMES = {"on_demand": "on-demand", "spot": "Spot", "flex_start": "flex-start"}
# scheduling.strategy -> the figures it is billed at (LOW_COST, deprecated, is not known here)
BILLED_AS = {None: "on_demand", "": "on_demand", "STRATEGY_UNSPECIFIED": "on_demand",
             "STANDARD": "on_demand", "ON_DEMAND": "on_demand", "SPOT": "spot",
             "FLEX_START": "flex_start"}
NOT_COUNTED = ("committed-use and negotiated discounts", "boot disks and other storage",
               "network", "taxes")


class PoolCost(NamedTuple):
    index: int  # type: ignore[assignment]  # the pool's index in workerPoolSpecs
    replicas: int
    machine_type: str
    accelerator_type: str | None
    accelerator_count: int
    hourly: dict[str, float | None]  # per replica, by strategy
    missing: tuple[str, ...]  # the prices it lacks, said as "no price for X in R"
    unpriced: dict[str, tuple[str, ...]]  # by strategy: what has no figure for it


class Estimate(NamedTuple):
    """A job's cost per hour. ``strategy``: the figures it is billed at (None: a strategy
    gpujob has no prices for). ``hourly``: by strategy, None where a price is missing."""

    region: str | None
    strategy: str | None
    pools: tuple[PoolCost, ...]
    parallel: int  # trials at once (1 for a custom job)
    hourly: dict[str, float | None]
    unknown: tuple[str, ...]  # why a figure is missing
    refs: tuple[str, ...]
    as_of: str  # the oldest date of the figures used
    table: PriceTable
    timeout_s: float | None = None  # the longest one run lasts (``with_timeout``); None: unknown
    timeout_from: str = "job"  # whose timeout: the job's, Vertex AI's "default", "--max-cost"
    trials: int = 1  # the runs of the spec at most (a tuning job's maxTrialCount)

    @property
    def total(self) -> float | None:
        """The job's $/hour at its own strategy."""
        return self.hourly.get(self.strategy) if self.strategy else None

    @property
    def timeout_default(self) -> bool:
        """The timeout is Vertex AI's default: the job sets none."""
        return self.timeout_from == "default"

    @property
    def runs(self) -> float:
        """How many times over the job's hourly figure runs its timeout at worst: 1 for a
        custom job; a tuning job's trials over the ones that run at once."""
        return max(self.trials, 1) / max(self.parallel, 1) if self.trials > 1 else 1.0

    @property
    def worst(self) -> float | None:
        """The most the job costs: its $/hour for its whole timeout (each trial's)."""
        if self.total is None or self.timeout_s is None:
            return None
        return self.total * self.timeout_s / 3600 * self.runs

    def as_dict(self) -> dict[str, Any]:
        """The figures for ``--format json``."""
        return {
            "currency": self.table.currency, "per": "hour", "region": self.region,
            "strategy": self.strategy, "hourly": money(self.total),
            "by_strategy": {s: money(v) for s, v in self.hourly.items()},
            "parallel_trials": self.parallel,
            "pools": [{"pool": p.index, "replicas": p.replicas, "machine_type": p.machine_type,
                       "accelerator_type": p.accelerator_type,
                       "accelerator_count": p.accelerator_count,
                       "hourly_per_replica": {s: money(v) for s, v in p.hourly.items()}}
                      for p in self.pools],
            "unknown": list(self.unknown),
            "timeout_s": self.timeout_s, "timeout_from": self.timeout_from,
            "worst_case": money(self.worst),
            "prices": prices_dict(self.table, self.refs, self.as_of),
            "not_counted": list(NOT_COUNTED),
        }


def money(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def prices_dict(table: PriceTable, refs: tuple[str, ...] | list[str], as_of: str
                ) -> dict[str, Any]:
    """Where the figures come from, for JSON."""
    return {"as_of": as_of or None, "table": table.origin,
            "generated": table.generated or None, "sources": table.cite(refs)}


def estimate(body: dict[str, Any], region: str | None, table: PriceTable | None = None
             ) -> Estimate:
    """The cost an hour of the Vertex request ``body`` in ``region``."""
    if table is None:
        from gpujob.services.vertex.pricing import prices

        table = prices.load()
    spec, parallel = spec_of(body)
    scheduling = found if isinstance(found := spec.get("scheduling"), dict) else {}
    named = scheduling.get("strategy")
    strategy = BILLED_AS.get(named) if isinstance(named, (str, type(None))) else None
    pools: list[PoolCost] = []
    unknown: list[str] = []
    refs: set[str] = set()
    dates: set[str] = set()
    if region is None:
        unknown.append("the job's region is not known")
    for index, raw in enumerate(spec.get("workerPoolSpecs") or []):
        if not isinstance(raw, dict) or not raw:
            continue  # an empty pool is a skipped one
        machine = found if isinstance(found := raw.get("machineSpec"), dict) else {}
        name = str(machine.get("machineType") or "")
        gpu = machine.get("acceleratorType") or None
        count = count_of(machine.get("acceleratorCount"), 0) if gpu else 0
        pool = _pool(table, region, index, count_of(raw.get("replicaCount"), 1), name,
                     gpu if count else None, count, refs, dates)
        pools.append(pool)
        unknown += [m for m in pool.missing if m not in unknown]
    hourly: dict[str, float | None] = {}
    for s in STRATEGIES:
        parts = [p.hourly[s] for p in pools]
        hourly[s] = (None if region is None or not pools or None in parts
                     else parallel * sum(p.replicas * p.hourly[s] for p in pools))  # type: ignore[misc, operator]
    if strategy is None:
        unknown.append(f"gpujob has no prices for strategy {scheduling.get('strategy')}")
    return Estimate(region, strategy, tuple(pools), parallel, hourly, tuple(unknown),
                    tuple(sorted(refs)), min(dates) if dates else "", table)


def with_timeout(est: Estimate, body: dict[str, Any], facts: Scheduling | None) -> Estimate:
    """``est`` with the job's timeout (``scheduling.timeout``, else Vertex AI's default from
    ``facts``, the scheduling section of the catalog in use) and its trials, for the worst
    case."""
    from gpujob.numbers import as_count, duration_seconds

    spec, _ = spec_of(body)
    given = spec.get("scheduling")
    scheduling = given if isinstance(given, dict) else {}
    timeout = duration_seconds(scheduling.get("timeout"))
    default = timeout is None
    if default:
        timeout = float(facts.default_timeout_s) if facts and facts.default_timeout_s else None
    trials = as_count(body.get("maxTrialCount")) if "trialJobSpec" in body else 1
    return est._replace(timeout_s=timeout, timeout_from="default" if default else "job",
                        trials=trials or 1)


def _pool(table: PriceTable, region: str | None, index: int, replicas: int, name: str,
          gpu: str | None, count: int, refs: set[str], dates: set[str]) -> PoolCost:
    missing: list[str] = []
    parts: list[tuple[str, Price | None, int]] = []
    if region is not None:
        machine = table.machine(region, name)
        parts.append((name, machine, 1))
        if gpu and not (machine and machine.includes_accelerators):
            parts.append((gpu, table.accelerator(region, gpu), count))
        missing = [_no_price(table, n or "a pool without a machine type", region)
                   for n, price, _ in parts if price is None]
    for _, price, _ in parts:
        if price is not None:
            refs.update(price.source.refs)
            if price.source.as_of:
                dates.add(price.source.as_of)
    hourly: dict[str, float | None] = {}
    unpriced: dict[str, tuple[str, ...]] = {}
    for s in STRATEGIES:
        figures = [_figure(price, s, n) for _, price, n in parts]
        hourly[s] = None if not parts or None in figures else sum(figures)  # type: ignore[arg-type]
        unpriced[s] = tuple(n for (n, _, _), f in zip(parts, figures, strict=True) if f is None)
    return PoolCost(index, replicas, name, gpu, count, hourly, tuple(missing), unpriced)


def _figure(price: Price | None, strategy: str, count: int = 1) -> float | None:
    if price is None:
        return None
    one = price.for_strategy(strategy)
    return None if one is None else count * one


def _no_price(table: PriceTable, name: str, region: str) -> str:
    why = table.left_out(name, region)
    return f"no price for {name} in {region}" + (f" ({why})" if why else "")


def describe(est: Estimate) -> str:
    """One line: the job's $/hour at its strategy, the other strategies', and what is not
    priced. ``$12.34/hour on-demand in us-central1 (1 × a2-highgpu-1g); Spot $3.10/hour, …``"""
    where = f" in {est.region}" if est.region else ""
    pools = machines(est)
    shown = f" ({pools})" if pools else ""
    if not est.pools:
        return "no worker pool to price"
    if est.strategy is None:
        head = f"not estimated{where}{shown}"
    elif est.total is None:
        head = f"{NAMES[est.strategy]} price unknown{where}{shown}"
    else:
        head = f"{dollars(est.total)}/hour {NAMES[est.strategy]}{where}{shown}"
    others = [f"{NAMES[s]} {dollars(v)}" + ("/hour" if v is not None else "")
              for s, v in est.hourly.items() if s != est.strategy]
    if any(v is not None for v in est.hourly.values()):
        head += "; " + ", ".join(others)
    why = list(est.unknown) or unpriced(est)
    return head + (f": {'; '.join(why)}" if why and est.total is None else "")


def machines(est: Estimate, parallel: bool = True) -> str:
    """What the job's pools run: ``1 × a2-highgpu-1g with 1 × NVIDIA_TESLA_A100``, a tuning
    job's ``4 parallel trials × …`` (``parallel``)."""
    pools = " + ".join(f"{p.replicas} × {p.machine_type}"
                       + (f" with {p.accelerator_count} × {p.accelerator_type}"
                          if p.accelerator_type else "") for p in est.pools)
    if parallel and est.parallel > 1:
        pools = f"{est.parallel} parallel trials × " + (
            f"({pools})" if len(est.pools) > 1 else pools)
    return pools


def unpriced(est: Estimate) -> list[str]:
    if est.strategy is None:
        return []
    names = sorted({n for p in est.pools for n in p.unpriced.get(est.strategy, ())})
    return [f"no {NAMES[est.strategy]} price for {', '.join(names)} in {est.region}"] \
        if names else []


def sources_line(table: PriceTable, refs: tuple[str, ...] | list[str], as_of: str) -> str:
    """Where the prices come from and what they leave out: once per run."""
    cited = table.cite(refs)
    urls = ", ".join(c["url"] for c in cited if c.get("url"))
    dated = f" as of {as_of}" if as_of else ""
    origin = "" if table.origin == "built-in" else f" from {table.origin}"
    return (f"prices: Vertex AI list prices in {table.currency}{dated}{origin}"
            + (f" ({urls})" if urls else "")
            + f"; not counted: {', '.join(NOT_COUNTED)}")
