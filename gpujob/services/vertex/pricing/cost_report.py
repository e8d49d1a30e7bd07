"""The job's $/hour as the commands show it (``validate``, ``submit --dry-run``, ``convert``):
a line per job on stderr (and one with its worst case, over its timeout) and one saying where
the prices come from and what they leave out; the figures for ``--format json``; and
``--max-hourly-cost``, which refuses a job over budget (or one whose cost cannot be told) with
an error finding, before anything is built, uploaded or sent (``--max-cost``, the cap on the
whole job, is ``cost_cap``).

Only Vertex AI jobs are priced: gpujob's table holds Vertex AI's prices."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from gpujob.findings import Finding, Location, error, warning

if TYPE_CHECKING:
    from gpujob.services.vertex.pricing.cost import Estimate
    from gpujob.services.vertex.records import Scheduling
    from gpujob.services.vertex.request import Job

BUDGET_FLAG = "--max-hourly-cost"
BUDGET_ENV = "GPUJOB_MAX_HOURLY_COST"
# gpujob's own bound, not Google's (docs/cost.md): past it a job's scale is more likely a typo
# (workerCount: 100000) than meant, and the check says so with what an hour of it costs
SCALE_GPUS = 4096
SCALE_MACHINES = 1024


def estimate(body: dict[str, Any], region: str | None, facts: Scheduling | None) -> Estimate:
    """The cost of the Vertex request ``body`` in ``region``, at the freshest prices gpujob
    has (the table is read on the first call), with its timeout for the worst case (Vertex
    AI's default from ``facts``, the catalog's scheduling section, when it sets none)."""
    from gpujob.services.vertex.pricing import cost

    return cost.with_timeout(cost.estimate(body, region), body, facts)


def lines(estimates: Sequence[tuple[str | None, Estimate]]) -> list[str]:
    """``cost: [LABEL: ]…`` per job, then one ``prices:`` line for them all."""
    from gpujob.services.vertex.pricing.cost import describe, sources_line
    from gpujob.terminal import printable

    if not estimates:
        return []
    from gpujob.services.vertex.pricing.cost_cap import worst_line

    out = []
    for label, est in estimates:
        named = printable(label) + ": " if label else ""
        out.append(f"cost: {named}{describe(est)}")
        worst = worst_line(est)
        if worst is not None:
            out.append(f"worst case: {named}{worst}")
    refs = sorted({r for _, est in estimates for r in est.refs})
    dates = [est.as_of for _, est in estimates if est.as_of]
    out.append(sources_line(estimates[0][1].table, refs, min(dates) if dates else ""))
    return out


def priced(job: Job | None, findings: list[Finding], budget: float | None,
           location: Location, max_cost: float | None = None, *,
           facts: Scheduling | None, recover: int = 0) -> Estimate | None:
    """What the checked ``job`` costs an hour where it runs, and at most (None: it has errors,
    or no region, which its request then asks for); over ``budget`` (or unpriced under one),
    an error joins ``findings``, so that the job is refused before anything is built, uploaded
    or sent; ``max_cost`` (``--max-cost``) caps the whole job (``cost_cap.cap``: it may set the
    job's timeout); a Spot or flex-start job with nowhere to checkpoint to is warned about.
    ``facts``: the scheduling section of the catalog in use (its default and flex-start
    timeouts); ``recover``: ``--recover N``, whose attempts then each start from scratch."""
    from gpujob.services.vertex.pricing import cost_cap

    if job is None or job.region is None or any(f.is_error for f in findings):
        return None
    est = estimate(job.body, job.region, facts)
    for found in (budget_finding(est, budget, location), scale_finding(est, location)):
        if found is not None:
            findings.append(found)
    est, capped = cost_cap.cap(job, est, max_cost, location)
    findings += capped + cost_cap.risks(job, est, location, facts, recover)
    return est


def scale_finding(est: Estimate, location: Location) -> Finding | None:
    """A warning when the job asks for more than ``SCALE_GPUS`` GPUs or ``SCALE_MACHINES``
    machines at once (its trials in parallel counted), naming what an hour of it costs."""
    from gpujob.services.vertex.pricing.cost import NAMES, dollars

    machines = sum(p.replicas for p in est.pools) * est.parallel
    gpus = sum(p.replicas * p.accelerator_count for p in est.pools) * est.parallel
    if gpus <= SCALE_GPUS and machines <= SCALE_MACHINES:
        return None
    total = est.total
    costs = (f"{dollars(total)}/hour {NAMES[est.strategy]}" if total is not None
             and est.strategy else "a cost gpujob cannot tell")
    return warning("cost.scale", f"the job asks for {gpus:,} GPUs on {machines:,} machines at "
                   f"once, at {costs}: more than {SCALE_GPUS:,} GPUs or {SCALE_MACHINES:,} "
                   "machines, the scale gpujob asks about", (), location,
                   "check the replica counts (workerCount, replicaCount) and GPU counts; if "
                   f"the scale is meant, {BUDGET_FLAG} USD holds it to a budget")


def budget_finding(est: Estimate, budget: float | None, location: Location) -> Finding | None:
    """An error when the job costs more than ``budget`` an hour, or when its cost cannot be
    told; None within budget (or without one)."""
    from gpujob.services.vertex.pricing.cost import NAMES, dollars

    if budget is None:
        return None
    flag = f"{BUDGET_FLAG} {dollars(budget)}"
    total = est.total
    if total is None:
        why = "; ".join(est.unknown) or "no price for its strategy"
        return error("cost.unknown", f"the job's cost per hour cannot be told ({why}), so "
                     f"{flag} cannot be held", (), location,
                     f"leave out {BUDGET_FLAG} (and {BUDGET_ENV}) to send it unpriced, or "
                     "choose a machine type and region that gpujob has prices for (gpujob gpus "
                     "--region REGION shows them)")
    if total <= budget:
        return None
    cheaper = [f"{NAMES[s]} {dollars(v)}/hour" for s, v in est.hourly.items()
               if v is not None and v < total and s != est.strategy]
    hint = ("use fewer replicas, fewer GPUs or a smaller machine type"
            + (f", or another strategy ({', '.join(cheaper)}; --strategy)" if cheaper else "")
            + f"; or raise {BUDGET_FLAG} ({BUDGET_ENV})")
    assert est.strategy is not None
    return error("cost.budget", f"the job costs {dollars(total)}/hour {NAMES[est.strategy]}"
                 f"{' in ' + est.region if est.region else ''}, over {flag}", (), location, hint)
