"""How jobs are shown: the formats of the job commands, and the JSON envelope.

``--format json`` of submit, describe and wait prints one envelope per job::

    {"version": 1, "service": "ai-platform", "job": JOB, "raw": API_OBJECT}

``job`` is the normalised status (``base.JobStatus.as_dict``: id, state, done, succeeded, message,
createTime; and ``waiting``, what a job that has not started waits for, where the service
says: Vertex AI; and ``cost``, what the job cost so far, an estimate: Vertex AI), the same for
every service; ``raw`` is the service's own object, as it answered.
``list`` prints ``{"version": 1, "service", "project", "jobs": [ENVELOPE, …]}``.

The output is strict JSON (``console.dumps``): a NaN or infinity in an answer, which JSON has no
number for, is written as the string ``"NaN"``, ``"Infinity"`` or ``"-Infinity"``, as the
protocol buffers' JSON mapping writes such a float.
"""

from __future__ import annotations

from typing import Any

from gpujob.services.base import Service
from gpujob.terminal import printable

ENVELOPE_VERSION = 1
# The --format choices of the job commands: text for people (YAML, a table, the job ID, as the
# command shows it), json for programs (the envelope).
FORMATS = ("text", "json")


def envelope(service: Service, raw: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """One job in the versioned JSON shape; ``extra`` adds keys (submit's ``findings``)."""
    return {"version": ENVELOPE_VERSION, "service": service.name,
            "job": service.status(raw).as_dict(), "raw": raw, **extra}


def job_list(service: Service, project: str, jobs: list[dict[str, Any]]) -> dict[str, Any]:
    """``list --format json``: the project's jobs, each in its envelope."""
    return {"version": ENVELOPE_VERSION, "service": service.name, "project": project,
            "jobs": [envelope(service, raw) for raw in jobs]}


def job_table(service: Service, jobs: list[dict[str, Any]]) -> str:
    """``list``'s table: JOB_ID, STATE, CREATED, aligned; COST where the service estimates
    what its jobs cost (Vertex AI: ``-`` for a job that has not run); ATTEMPT and LINEAGE
    when a job is an attempt of a recovered one (``--recover``); and NAME last when the
    service's jobs have display names apart from their IDs (Vertex AI). Every cell is the service's
    text (a display name, anyone's in the project): one line, control characters escaped."""
    statuses = [service.status(raw) for raw in jobs]
    named = any(s.display_name for s in statuses)
    priced = any(s.cost is not None for s in statuses)
    linked = any(s.lineage for s in statuses)  # attempts of a recovered job (--recover)
    rows = [("JOB_ID", "STATE", "CREATED") + (("COST",) if priced else ())
            + (("ATTEMPT", "LINEAGE") if linked else ())
            + (("NAME",) if named else ())] + [
        tuple(printable(cell) for cell in (s.id, s.state, s.created or "-")
              + ((_cost_cell(s.cost),) if priced else ())
              + ((str(s.lineage.attempt), s.lineage.id) if s.lineage
                 else ("-", "-") if linked else ())
              + ((s.display_name or "-",) if named else ()))
        for s in statuses]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return "".join("  ".join(f"{cell:<{width}}" for cell, width in zip(row[:-1], widths,
                                                                        strict=True))
                   + f"  {row[-1]}\n" for row in rows)


def _cost_cell(cost: dict[str, Any] | None) -> str:
    """``$12.34`` (an estimate), ``-`` (not run, or not priced by its service), ``no price``."""
    if not cost or cost.get("seconds") is None:
        return "-"
    amount = cost.get("amount")
    if amount is None:
        return "no price"
    return f"${amount:,.2f}"
