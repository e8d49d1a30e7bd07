"""How jobs are shown: the formats of the job commands, and the JSON envelope.

``--format json`` of submit, describe and wait prints one envelope per job::

    {"version": 1, "service": "ai-platform", "job": JOB, "raw": API_OBJECT}

``job`` is the normalised status (``base.JobStatus.as_dict``: id, state, done, succeeded, message,
createTime), the same for every service; ``raw`` is the service's own object, as it answered.
``list`` prints ``{"version": 1, "service", "project", "jobs": [ENVELOPE, …]}``.
"""

from __future__ import annotations

from typing import Any

from gpujob.backends.base import Backend

ENVELOPE_VERSION = 1
# The --format choices of the job commands: text for people (YAML, a table, the job ID, as the
# command shows it), json for programs (the envelope).
FORMATS = ("text", "json")


def envelope(backend: Backend, raw: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """One job in the versioned JSON shape; ``extra`` adds keys (submit's ``findings``)."""
    return {"version": ENVELOPE_VERSION, "service": backend.name,
            "job": backend.status(raw).as_dict(), "raw": raw, **extra}


def job_list(backend: Backend, project: str, jobs: list[dict[str, Any]]) -> dict[str, Any]:
    """``list --format json``: the project's jobs, each in its envelope."""
    return {"version": ENVELOPE_VERSION, "service": backend.name, "project": project,
            "jobs": [envelope(backend, raw) for raw in jobs]}


def job_table(backend: Backend, jobs: list[dict[str, Any]]) -> str:
    """``list``'s table: JOB_ID, STATE, CREATED, aligned."""
    statuses = [backend.status(raw) for raw in jobs]
    rows = [("JOB_ID", "STATE", "CREATED")] + [
        (s.id, s.state, s.created or "-") for s in statuses]
    widths = [max(len(row[i]) for row in rows) for i in range(2)]
    return "".join(f"{a:<{widths[0]}}  {b:<{widths[1]}}  {c}\n" for a, b, c in rows)
