"""BigQuery ``jobs.query`` and ``jobs.getQueryResults`` over a Cloud Billing export, in the fake
Google (reached as ``fake.bigquery``): the tables the test made (``add_table``), each a list of
the export's line items (``add_line``: a label, a cost, credits, the hourly usage window).

The fake is not a SQL engine: it answers the one query gpujob sends (``gpujob.gcp.bigquery``),
which it recognises by its parts (GoogleSQL, the table in backquotes, the label and the
submissions as named parameters), and refuses anything else with the 400 BigQuery gives an
invalid query. It sums each submission's lines as that query does. A table that is not there is
BigQuery's 404 ``notFound``. ``pending`` makes the next queries answer ``jobComplete: false``
first, to be read again with ``getQueryResults``. Every answer is checked against the
``QueryResponse`` / ``GetQueryResultsResponse`` type of the bundled discovery document before
it is sent."""

from __future__ import annotations

import re
import secrets
from typing import TYPE_CHECKING, Any

from fakes.discovery import method, violations
from fakes.errors import Refused
from fakes.routing import Answer, Call, Route

if TYPE_CHECKING:
    from fakes.google import FakeGoogle

DOC = "bigquery.v2"
SCOPES = frozenset({"https://www.googleapis.com/auth/bigquery",
                    "https://www.googleapis.com/auth/cloud-platform",
                    "https://www.googleapis.com/auth/cloud-platform.read-only"})
FIELDS = [("submission", "STRING"), ("cost", "FLOAT"), ("credits", "FLOAT"),
          ("currency", "STRING"), ("usage_start", "TIMESTAMP"), ("usage_end", "TIMESTAMP"),
          ("exported", "TIMESTAMP"), ("line_items", "INTEGER")]


class BillingTables:
    def __init__(self) -> None:
        self.tables: dict[str, list[dict[str, Any]]] = {}  # PROJECT.DATASET.TABLE -> lines
        self.pending = 0  # queries answered jobComplete: false before their rows
        self.results: dict[str, dict[str, Any]] = {}  # job id -> its finished answer

    def add_table(self, name: str) -> None:
        self.tables.setdefault(name, [])

    def add_line(self, table: str, labels: dict[str, str], cost: float,
                 usage: tuple[str, str], credits: tuple[float, ...] = (),
                 exported: str = "2026-11-27T06:00:00Z", currency: str = "USD") -> None:
        """One line item of the export: a SKU's usage in one hourly window."""
        self.tables[table].append({"labels": labels, "cost": cost, "credits": list(credits),
                                   "usage": usage, "exported": exported,
                                   "currency": currency})


def _refuse(status: int, reason: str, message: str) -> Refused:
    names = {400: "INVALID_ARGUMENT", 404: "NOT_FOUND"}
    return Refused(status, {"error": {"code": status, "message": message, "status": names[status],
                                      "errors": [{"message": message, "domain": "global",
                                                  "reason": reason}]}})


def _parameters(body: dict[str, Any]) -> dict[str, Any]:
    found = {}
    for p in body.get("queryParameters") or []:
        value = p.get("parameterValue") or {}
        found[p.get("name")] = ([v.get("value") for v in value.get("arrayValues") or []]
                                if "arrayValues" in value else value.get("value"))
    return found


def _query(fake: FakeGoogle, call: Call) -> Answer:
    body = call.body or {}
    query = str(body.get("query", ""))
    if body.get("useLegacySql", True) is not False:
        raise _refuse(400, "invalidQuery", "Invalid table name: `…` [Try using standard SQL "
                      "(https://cloud.google.com/bigquery/docs/reference/standard-sql/"
                      "enabling-standard-sql)].")
    table = re.search(r"FROM `([^`]+)`, UNNEST\(labels\) AS label", query)
    params = _parameters(body)
    if (table is None or body.get("parameterMode") != "NAMED" or "@label" not in query
            or "IN UNNEST(@submissions)" not in query or set(params) != {"label", "submissions"}):
        raise _refuse(400, "invalidQuery", "Syntax error: the fake knows only gpujob's query")
    with fake.lock:
        lines = fake.bigquery.tables.get(table.group(1))
        if lines is None:
            project, _, rest = table.group(1).partition(".")
            raise _refuse(404, "notFound", f"Not found: Table {project}:{rest} was not found "
                          "in location US")
        lines = list(lines)
    wanted = set(params["submissions"] or [])
    sums: dict[str, dict[str, Any]] = {}
    for line in lines:
        value = line["labels"].get(params["label"])
        if value not in wanted:
            continue
        one = sums.setdefault(value, {"cost": 0.0, "credits": 0.0, "currency": line["currency"],
                                      "start": line["usage"][0], "end": line["usage"][1],
                                      "exported": line["exported"], "n": 0})
        one["cost"] += line["cost"]
        one["credits"] += sum(line["credits"])
        one["start"] = min(one["start"], line["usage"][0])
        one["end"] = max(one["end"], line["usage"][1])
        one["exported"] = max(one["exported"], line["exported"])
        one["n"] += 1
    rows = [{"f": [{"v": v} for v in (s, repr(o["cost"]), repr(o["credits"]), o["currency"],
                                      o["start"], o["end"], o["exported"], str(o["n"]))]}
            for s, o in sorted(sums.items())]
    job = {"projectId": call.params["project"], "jobId": "job_" + secrets.token_hex(8),
           "location": "US"}
    done = {"kind": "bigquery#queryResponse", "jobReference": job, "jobComplete": True,
            "schema": {"fields": [{"name": n, "type": t, "mode": "NULLABLE"} for n, t in FIELDS]},
            "totalRows": str(len(rows)), "totalBytesProcessed": "1024", "cacheHit": False}
    if rows:
        done["rows"] = rows
    with fake.lock:
        waiting = fake.bigquery.pending > 0
        if waiting:
            fake.bigquery.pending -= 1
            fake.bigquery.results[job["jobId"]] = done
    if waiting:
        return _answer(("jobs", "query"), {"kind": "bigquery#queryResponse",
                                           "jobReference": job, "jobComplete": False})
    return _answer(("jobs", "query"), done)


def _results(fake: FakeGoogle, call: Call) -> Answer:
    with fake.lock:
        done = fake.bigquery.results.get(call.params["job"])
    if done is None:
        raise _refuse(404, "notFound", f"Not found: Job {call.params['job']}")
    return _answer(("jobs", "getQueryResults"),
                   {**done, "kind": "bigquery#getQueryResultsResponse"})


def _answer(path: tuple[str, ...], answer: dict[str, Any]) -> Answer:
    schema = method(DOC, *path)["response"]
    problems = violations(answer, schema, DOC)
    assert problems == [], f"the fake's {'.'.join(path)} answer is not valid: {problems}"
    return 200, answer, {}


ROUTES = [
    Route("POST", r"/bigquery/v2/projects/(?P<project>[^/]+)/queries", "jobs.query", _query,
          DOC, ("jobs", "query"), strict=True, scopes=SCOPES),
    Route("GET", r"/bigquery/v2/projects/(?P<project>[^/]+)/queries/(?P<job>[^/]+)",
          "jobs.getQueryResults", _results, DOC, ("jobs", "getQueryResults"), scopes=SCOPES),
]
