"""The fake's Cloud Logging API (``logging v2`` ``entries.list``), holding the log entries of
training jobs: AI Platform's (task names like ``master-replica-0``) and Vertex AI's (numeric job
ids; tasks ``workerpool0-0``, ``service``), both under ``resource.type="ml_job"``.

The filter is read as a conjunction (`` AND ``) of these clauses, each at most once; anything
else is refused with 400 INVALID_ARGUMENT, so a client sending another filter notices:

- ``resource.type="ml_job"``, or ``(resource.type="ml_job" OR resource.type="cloudml_job")``
- ``resource.labels.job_id="ID"`` (required: the fake serves one job's logs per call)
- ``resource.labels.task_name="TASK"``, ``labels."ml.googleapis.com/trial_id"="N"``
- ``timestamp>="T"`` (also ``>``, ``<``, ``<=``), ``severity>=LEVEL``

``orderBy`` is ``timestamp asc`` or ``timestamp desc``; paging as the API does it.
"""

from __future__ import annotations

import re
import secrets
from collections import defaultdict
from typing import TYPE_CHECKING, Any

from fakes.errors import Refused, invalid_field
from fakes.routing import Answer, Call, Route
from fakes.times import parse_time

if TYPE_CHECKING:
    from fakes.google import FakeGoogle

SEVERITIES = ["DEFAULT", "DEBUG", "INFO", "NOTICE", "WARNING", "ERROR", "CRITICAL", "ALERT",
              "EMERGENCY"]
_CLAUSES = {
    "type": r'resource\.type="ml_job"|\(resource\.type="ml_job" OR '
            r'resource\.type="cloudml_job"\)',
    "job": r'resource\.labels\.job_id="(?P<job>[\w-]+)"',
    "task": r'resource\.labels\.task_name="(?P<task>[\w-]+)"',
    "trial": r'labels\."ml\.googleapis\.com/trial_id"="(?P<trial>\w+)"',
    "time": r'timestamp\s*(?P<op><=|>=|<|>)\s*"(?P<time>[^"]+)"',
    "severity": r'severity\s*>=\s*"?(?P<severity>[A-Z]+)"?',
}


class JobLogs:
    """Log entries by job id, in the order written."""

    def __init__(self, fake: FakeGoogle) -> None:
        self.fake = fake
        self.logs: dict[str, list[dict[str, Any]]] = defaultdict(list)

    def add(self, job_id: str, message: str | dict[str, Any], severity: str = "INFO",
            task: str = "master-replica-0", project: str = "p",
            labels: dict[str, str] | None = None) -> dict[str, Any]:
        """An entry written now: text, or a JSON payload when ``message`` is a dict."""
        payload = {"jsonPayload": message} if isinstance(message, dict) else \
            {"textPayload": message}
        now = self.fake.now()
        entry = {
            "insertId": secrets.token_hex(6), "timestamp": now, "receiveTimestamp": now,
            "severity": severity, "logName": f"projects/{project}/logs/{task}", **payload,
            "resource": {"type": "ml_job", "labels": {"job_id": job_id, "task_name": task,
                                                      "project_id": project}}}
        if labels:
            entry["labels"] = dict(labels)
        with self.fake.lock:
            self.logs[job_id].append(entry)
        return entry


def _conditions(text: str) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for clause in (c.strip() for c in text.split(" AND ")):
        kind, match = next(((k, m) for k, p in _CLAUSES.items()
                            if (m := re.fullmatch(p, clause))), ("", None))
        if match is None:
            raise Refused(400, invalid_field("filter", f"unsupported filter clause {clause!r}"))
        if kind in found:
            raise Refused(400, invalid_field("filter", f"{kind} given twice in {text!r}"))
        found[kind] = match.groupdict()
        if kind == "time" and parse_time(match["time"]) is None:
            raise Refused(400, invalid_field("filter", f"invalid timestamp {match['time']!r}"))
        if kind == "severity" and match["severity"] not in SEVERITIES:
            raise Refused(400, invalid_field("filter", f"unknown severity {match['severity']}"))
    if "type" not in found or "job" not in found:
        raise Refused(400, invalid_field("filter", f"unexpected filter {text!r}: the fake "
                                                   "serves the logs of one ml_job"))
    return found


def _matches(entry: dict[str, Any], found: dict[str, Any], project: str,
             known: dict[str, set[str]]) -> bool:
    labels = entry["resource"]["labels"]
    if project not in known.get(labels["project_id"], {project}):
        return False  # an entry of a registered project is found under its id or number only
    if "task" in found and labels.get("task_name") != found["task"]["task"]:
        return False
    if "trial" in found and \
            entry.get("labels", {}).get("ml.googleapis.com/trial_id") != found["trial"]["trial"]:
        return False
    if "severity" in found and SEVERITIES.index(entry["severity"]) < \
            SEVERITIES.index(found["severity"]["severity"]):
        return False
    if "time" in found:
        have, want = parse_time(entry["timestamp"]), parse_time(found["time"]["time"])
        assert have is not None and want is not None
        op = found["time"]["op"]
        return {"<": have < want, "<=": have <= want, ">": have > want, ">=": have >= want}[op]
    return True


def _entries_list(fake: FakeGoogle, call: Call) -> Answer:
    body = call.body
    names = body.get("resourceNames") or []
    found_name = re.fullmatch(r"projects/([^/]+)", names[0]) if len(names) == 1 else None
    if not found_name:
        raise Refused(400, invalid_field("resource_names", "one project is expected"))
    order = body.get("orderBy")
    if order not in ("timestamp asc", "timestamp desc"):
        raise Refused(400, invalid_field("order_by", f"unexpected order {order!r}"))
    found = _conditions(body.get("filter", ""))
    with fake.lock:
        entries = list(fake.job_logs.logs.get(found["job"]["job"], []))
        known = {p: {p, n} for p, n in fake.projects.items()}
    entries = [e for e in entries if _matches(e, found, found_name[1], known)]
    if order == "timestamp desc":
        entries.reverse()
    size = body.get("pageSize", 50)
    start = int(body.get("pageToken", "0"))
    page: dict[str, Any] = {"entries": entries[start:start + size]}
    if start + size < len(entries):
        page["nextPageToken"] = str(start + size)
    return 200, page, {}


ROUTES = [Route("POST", r"/v2/entries:list", "entries.list", _entries_list, "logging.v2",
                ("entries", "list"))]
