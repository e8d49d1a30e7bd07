"""Why a Vertex AI job is not running yet, from what the API reports of it: its state (QUEUED:
not yet processed; PENDING: the service is preparing to run it), ``startTime`` (set when it
first ran: a PENDING job that has one is waiting to run again, as after a Spot VM was
preempted), and its own spec (the scheduling strategy and ``maxWaitDuration``, a reservation, a
persistent resource, the machines each pool asks for). A CustomJob carries no other word on its
wait (the v1 discovery document's CustomJob has no detail field), so this is read from those,
and says so where it guesses."""

from __future__ import annotations

from datetime import timedelta, timezone
from typing import Any

from gpujob.numbers import duration_seconds, seconds_in_words
from gpujob.services.vertex.paths import spec_of


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def machines(spec: dict[str, Any]) -> str:
    """What the pools ask for: ``2 × a3-highgpu-8g (8 × NVIDIA_H100_80GB each)``."""
    parts = []
    for pool in spec.get("workerPoolSpecs") or []:
        machine = _mapping(_mapping(pool).get("machineSpec"))
        if not machine.get("machineType"):
            continue
        gpus = (f" ({machine.get('acceleratorCount', 1)} × {machine['acceleratorType']} each)"
                if machine.get("acceleratorType") else "")
        parts.append(f"{_mapping(pool).get('replicaCount', '1')} × {machine['machineType']}"
                     f"{gpus}")
    return ", ".join(parts) or "its machines"


def _when(text: Any, plus: float) -> str | None:
    """``text`` (RFC 3339, nanoseconds as the API writes them) plus ``plus`` seconds, in RFC
    3339 (UTC); None if unreadable."""
    from gpujob.gcp.proto3 import parse_time

    start = parse_time(text)
    if start is None:
        return None
    try:
        end = (start + timedelta(seconds=plus)).astimezone(timezone.utc)
    except OverflowError:  # past year 9999: a wait without a date to say
        return None
    return end.strftime("%Y-%m-%dT%H:%M:%SZ")


def why(raw: dict[str, Any]) -> str:
    """What a QUEUED or PENDING job is waiting for, in a line ("" for another state)."""
    state = str(raw.get("state") or "").removeprefix("JOB_STATE_")
    if state == "QUEUED":
        return ("waiting: Vertex AI has not begun processing the job yet (queued since "
                f"{raw.get('createTime', '?')})")
    if state != "PENDING":
        return ""
    spec, _ = spec_of(raw)
    scheduling = _mapping(spec.get("scheduling"))
    strategy = scheduling.get("strategy") or "STANDARD"
    wanted = machines(spec)
    reservation = next((a for pool in spec.get("workerPoolSpecs") or [] if (a := _mapping(
        _mapping(_mapping(pool).get("machineSpec")).get("reservationAffinity")))
        .get("reservationAffinityType") in ("ANY_RESERVATION", "SPECIFIC_RESERVATION")), None)
    if raw.get("startTime"):
        cause = ("its Spot VMs were preempted; Vertex AI restarts it when Spot capacity "
                 "returns" if strategy == "SPOT" else "a machine was lost or restarted, and "
                 "Vertex AI is bringing the job back")
        return (f"waiting to run again: it first ran at {raw['startTime']}, and {cause} "
                f"({wanted})")
    if spec.get("persistentResourceId"):
        return (f"waiting for machines of persistent resource {spec['persistentResourceId']} "
                f"({wanted}); they are busy or still being made")
    if strategy == "FLEX_START":
        return _flex(raw, scheduling, wanted)
    if reservation is not None:
        named = ", ".join(reservation.get("values") or []) or "any matching reservation"
        return (f"waiting for machines from {named} ({wanted}); they must match the "
                "reservation exactly, and be free in it")
    if strategy == "SPOT":
        return (f"waiting for Spot capacity ({wanted}); Spot VMs are given when spare "
                "capacity exists, and the job waits until then")
    return (f"waiting for resources: Vertex AI is provisioning {wanted}; a long wait usually "
            "means the region has no capacity for them now (gpujob logs JOB shows the "
            "service's messages)")


def _flex(raw: dict[str, Any], scheduling: dict[str, Any], wanted: str) -> str:
    wait = duration_seconds(scheduling.get("maxWaitDuration"))
    queue = f"waiting in the Dynamic Workload Scheduler's queue (FLEX_START) for {wanted}"
    if wait == 0:
        return f"{queue}, without a deadline (maxWaitDuration 0s)"
    if wait is None:  # the default: the Vertex catalog's (dated, with its source)
        from gpujob.catalog import load

        facts = load("vertex").scheduling
        wait = float(facts.flex_default_wait_s) if facts is not None else None
        given = "maxWaitDuration's default"
    else:
        given = "maxWaitDuration"
    if wait is None:
        return f"{queue}; it starts when all of them are free at once"
    deadline = _when(raw.get("createTime"), wait)
    until = f" until about {deadline}" if deadline else ""
    return (f"{queue}; it starts when all of them are free at once, and waits{until} "
            f"({given}, {seconds_in_words(wait)} from its creation), then gives up")
