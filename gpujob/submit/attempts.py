"""How the attempts of a recovered job (``--recover``) read, in a submit's or a wait's lines
(``submit.recover``) and in ``describe``: one line per attempt (where, how it ended, how long
it ran, what it cost) and the sum."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpujob.numbers import dollars, span_in_words
from gpujob.terminal import printable

if TYPE_CHECKING:
    from gpujob.services.base import JobStatus
    from gpujob.services.recovery import Ended


def span(seconds: float | None) -> str:
    """``3720`` -> ``1 h 2 min``; None -> ``no time (it never ran)``."""
    return "no time (it never ran)" if seconds is None else span_in_words(seconds, short=True)


def money(value: float | None) -> str:
    return dollars(value, "cost unknown")


def attempt_dict(number: int, status: JobStatus, ended: Ended) -> dict[str, Any]:
    """An attempt for ``--format json``: its number, job, REGION/STRATEGY, state, run time
    and cost (an estimate at the attempt's own region and strategy's price)."""
    return {"attempt": number, "id": status.id, "where": ended.where, "state": status.state,
            "seconds": ended.seconds,
            "cost": status.cost.get("amount") if status.cost else None}


def attempt_line(number: int, status: JobStatus, ended: Ended) -> str:
    """``attempt 2: job ID in REGION/STRATEGY FAILED after 1 h 0 min, $0.41 (an
    estimate)``: one attempt, as recovery and ``describe`` say it."""
    cost = status.cost.get("amount") if status.cost else None
    cost_words = "" if not status.cost else f", {money(cost)} (an estimate)"
    ran = f"after {span(ended.seconds)}" if status.done else \
        f"for {span(ended.seconds)}" if ended.seconds is not None else "(it has not run yet)"
    return f"attempt {number}: job {printable(status.id)} in {ended.where} {status.state} " \
           f"{ran}{cost_words}"


def total(attempts: list[dict[str, Any]]) -> float | None:
    """What the attempts cost in all (``attempt_dict``'s costs); None when one is unknown."""
    costs = [a["cost"] for a in attempts]
    return None if None in costs else sum(costs)


def summed(attempts: list[dict[str, Any]]) -> str:
    """``3 attempts, $1.23 in all (an estimate)``."""
    count = f"{len(attempts)} attempt{'s' if len(attempts) != 1 else ''}"
    return f"{count}, {money(total(attempts))} in all (an estimate)"
