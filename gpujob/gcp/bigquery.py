"""BigQuery (``bigquery v2``) ``jobs.query``, for one read: what the user's Cloud Billing
export to BigQuery says gpujob's jobs were billed, found by gpujob's submission label
(``gpujob-submission``), which Vertex AI passes on to the export's ``labels``.

The query is GoogleSQL (``useLegacySql: false``: the API's default is legacy SQL) with named
parameters, run in the user's project (it needs ``bigquery.jobs.create`` there, and read access
to the export's table). A query not finished within ``timeoutMs`` is read again with
``jobs.getQueryResults``. Net cost = ``SUM(cost)`` + the credits (negative amounts), as Google's
billing examples sum them. https://cloud.google.com/billing/docs/how-to/export-data-bigquery-tables
"""

from __future__ import annotations

import re
import uuid
from functools import partial
from typing import TYPE_CHECKING, Any

from gpujob.errors import RemoteError, UsageError
from gpujob.gcp.session import Session
from gpujob.gcp.settings import api_endpoint

if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from gpujob.tuples import NamedTuple

SERVICE = "bigquery.googleapis.com"
ROLE = "roles/bigquery.jobUser"  # bigquery.jobs.create; the table also needs a data viewer
TABLE = re.compile(r"(?P<project>[a-z][a-z0-9.:-]{4,61}[a-z0-9])\.(?P<dataset>[A-Za-z0-9_]{1,1024})"
                   r"\.(?P<table>[\w$-]{1,1024})")
WAIT_MS = 30000  # how long one call waits for the query (the API's default is 10 s)
MAX_READS = 10  # getQueryResults calls after jobs.query, at WAIT_MS each
QUERY = """\
SELECT label.value AS submission, SUM(cost) AS cost,
  SUM(IFNULL((SELECT SUM(c.amount) FROM UNNEST(credits) AS c), 0)) AS credits,
  ANY_VALUE(currency) AS currency, MIN(usage_start_time) AS usage_start,
  MAX(usage_end_time) AS usage_end, MAX(export_time) AS exported, COUNT(*) AS line_items
FROM `{table}`, UNNEST(labels) AS label
WHERE label.key = @label AND label.value IN UNNEST(@submissions)
GROUP BY submission"""


class Billed(NamedTuple):
    """One submission's lines in the export, summed."""

    submission: str
    cost: float  # before credits
    credits: float  # their sum: 0 or negative
    currency: str
    usage_start: str
    usage_end: str
    exported: str  # the newest line's export_time
    line_items: int

    @property
    def net(self) -> float:
        return self.cost + self.credits


def table_name(text: str) -> str:
    """``PROJECT.DATASET.TABLE`` checked (``UsageError`` otherwise), as the query names it."""
    if not TABLE.fullmatch(text):
        raise UsageError(f"--billing-export {text!r} is not PROJECT.DATASET.TABLE",
                         "name the table Cloud Billing exports to, e.g. my-proj.billing."
                         "gcp_billing_export_v1_012345_6789AB_CDEF01 (Billing > Billing "
                         "export in the console shows it)")
    return text


class BillingExport:
    """The export's table ``table``, queried in the session's project."""

    def __init__(self, session: Session, table: str) -> None:
        from gpujob.gcp.discovery import base, service

        self.session = session
        self.table = table_name(table)
        root = api_endpoint(session.settings, "bigquery")  # GPUJOB_BIGQUERY_ENDPOINT
        self._jobs = service("bigquery", "v2", session.http, base("bigquery", "v2", root)).jobs()

    def billed(self, label: str, submissions: list[str]) -> list[Billed]:
        """The summed lines of each submission (by ``label``'s value) that has any."""
        project = self.session.project
        action = self.session.action(
            f"reading the billing export {self.table}", "bigquery.jobs.create", role=ROLE,
            service=SERVICE, retry_safe=True,
            not_found_hint=f"check --billing-export {self.table}: the table, its dataset and "
                           "project must exist, and the account must be able to read it")
        # requestId: a retry of a query whose answer was lost is the same query job, not a
        # second one billed apart (QueryRequest.requestId: "idempotent behavior for queries")
        body = {"query": QUERY.format(table=self.table), "useLegacySql": False,
                "requestId": str(uuid.uuid4()),
                "parameterMode": "NAMED", "timeoutMs": WAIT_MS,
                "formatOptions": {"timestampOutputFormat": "ISO8601_STRING"},
                "queryParameters": [
                    {"name": "label", "parameterType": {"type": "STRING"},
                     "parameterValue": {"value": label}},
                    {"name": "submissions", "parameterType": {
                        "type": "ARRAY", "arrayType": {"type": "STRING"}},
                     "parameterValue": {"arrayValues": [{"value": s} for s in submissions]}}]}
        answer = self.session.execute(action, lambda: self._jobs.query(projectId=project,
                                                                        body=body))
        for _ in range(MAX_READS):
            if answer.get("jobComplete") is not False:
                break
            ref = answer.get("jobReference") or {}
            answer = self.session.execute(action, partial(self._results, project, ref))
        else:
            raise RemoteError(f"the query of {self.table} did not finish in "
                              f"{MAX_READS * WAIT_MS // 1000} s", "try again later")
        return rows(answer)

    def _results(self, project: str, ref: dict[str, Any]) -> Any:
        """The request reading a query's results (``jobs.getQueryResults``) by its reference."""
        return self._jobs.getQueryResults(
            projectId=ref.get("projectId", project), jobId=ref.get("jobId", ""),
            location=ref.get("location"), timeoutMs=WAIT_MS,
            formatOptions_timestampOutputFormat="ISO8601_STRING")


def rows(answer: dict[str, Any]) -> list[Billed]:
    """The answer's rows by the names of its schema's fields (``rows[].f[].v``, strings)."""
    fields = [f.get("name") for f in (answer.get("schema") or {}).get("fields") or []]
    found = []
    for row in answer.get("rows") or []:
        cells = {name: (cell or {}).get("v") for name, cell in zip(fields, row.get("f") or [],
                                                                   strict=False)}
        try:
            found.append(Billed(str(cells["submission"]), float(cells["cost"] or 0),
                                float(cells["credits"] or 0), str(cells["currency"] or ""),
                                str(cells["usage_start"] or ""), str(cells["usage_end"] or ""),
                                str(cells["exported"] or ""), int(cells["line_items"] or 0)))
        except (KeyError, TypeError, ValueError) as exc:
            raise RemoteError(f"BigQuery's answer has a row gpujob cannot read ({exc})",
                              "check --billing-export: a Cloud Billing export table") from None
    return found
