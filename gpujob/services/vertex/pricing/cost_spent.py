"""What a Vertex AI job has cost, an estimate from the job as the API reports it: the time its
machines ran (``startTime`` to ``endTime``, or to now while it runs: queued and pending time
is not billed) × its machines and GPUs (its ``workerPoolSpecs``) × the dated list price of its
scheduling strategy in its region (``cost``). A tuning job counts its trials' own run times.
``describe``, ``wait`` and ``list`` show it (``JobStatus.cost``); a price gpujob does not have
is said, not guessed.

Vertex AI's bill can differ: Google does not publish how it rounds the time billed, a job it
restarted keeps its first ``startTime``, and what ``cost.NOT_COUNTED`` lists is left out."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpujob.services.vertex.pricing.cost import Estimate


def run_seconds(start: Any, end: Any, now: datetime) -> float | None:
    """Seconds from ``start`` to ``end`` (RFC 3339), or to ``now`` without an end; None when
    there is no start."""
    from gpujob.gcp.proto3 import parse_time

    began = parse_time(start)
    if began is None:
        return None
    ended = parse_time(end) or now
    return max((ended - began).total_seconds(), 0.0)


def _ran(raw: dict[str, Any], now: datetime) -> tuple[float | None, bool]:
    """The machine time to bill, in seconds of the job's hourly figure (a tuning job: its
    trials' run times over its parallel trials), and whether that is known from trials."""
    trials = raw.get("trials") if "trialJobSpec" in raw else None
    if isinstance(trials, list) and trials:
        times = [run_seconds(t.get("startTime"), t.get("endTime") or raw.get("endTime"), now)
                 for t in trials if isinstance(t, dict)]
        known = [t for t in times if t is not None]
        if known:
            return sum(known), True
    return run_seconds(raw.get("startTime"), raw.get("endTime"), now), False


def spent(raw: dict[str, Any], now: datetime | None = None) -> dict[str, Any] | None:
    """The job's cost so far, for ``--format json`` and the lines (``line``, ``cell``); None
    for what is not a job gpujob can price (no pools)."""
    from gpujob.services.vertex.jobs.api import JobName
    from gpujob.services.vertex.pricing.cost import estimate, money, prices_dict

    name = JobName.parse(str(raw.get("name", "")))
    est = estimate(raw, name.location if name else None)
    if not est.pools:
        return None
    now = now or datetime.now(timezone.utc)
    seconds, by_trials = _ran(raw, now)
    hourly = est.total
    per_run = hourly / est.parallel if by_trials and hourly is not None else hourly
    amount = None if seconds is None or per_run is None else per_run * seconds / 3600
    if seconds is None:
        amount = 0.0  # it never ran: nothing billed for its machines
    return {"estimate": True, "currency": est.table.currency,
            "amount": money(amount), "seconds": seconds,
            "running": seconds is not None and not raw.get("endTime"),
            "startTime": raw.get("startTime"), "endTime": raw.get("endTime"),
            "hourly": money(per_run), "strategy": est.strategy, "region": est.region,
            "trials": by_trials, "unknown": list(est.unknown) if amount is None else [],
            "prices": prices_dict(est.table, est.refs, est.as_of),
            "line": _line(est, seconds, amount, per_run, by_trials, bool(raw.get("endTime")))}


def _line(est: Estimate, seconds: float | None, amount: float | None,
          per_run: float | None, by_trials: bool, ended: bool) -> str:
    from gpujob.numbers import span_in_words as span
    from gpujob.services.vertex.pricing.cost import NAMES, describe, dollars, machines, unpriced

    if seconds is None and ended:
        return ("cost: nothing: the job ended without having run (no startTime), and time "
                "queued or pending is not billed")
    if seconds is None:
        return (f"cost: nothing yet: the job has not run, and time queued or pending is not "
                f"billed; {describe(est).split(';')[0]}")
    strategy = NAMES.get(est.strategy or "", "its strategy")
    took = (f"its trials ran {span(seconds)} in all" if by_trials
            else f"it ran {span(seconds)}" if ended else f"it has run {span(seconds)} so far")
    if amount is None or per_run is None:
        why = "; ".join(est.unknown or unpriced(est)) or f"gpujob has no {strategy} price"
        return f"cost: not estimated: {took}, and {why}"
    dated = f"list prices as of {est.as_of}" if est.as_of else "list prices"
    where = f" in {est.region}" if est.region else ""
    each = f"{' per trial' if by_trials else ''} {strategy}{where}"
    preempted = ("; time its Spot VMs were preempted, which is not billed, is counted"
                 if est.strategy == "spot" and not by_trials else "")
    return (f"cost: about {dollars(amount)}, an estimate: {took} × {dollars(per_run)}/hour"
            f"{each} ({machines(est, parallel=not by_trials)}), {dated}{preempted}")
