"""``gpujob cost JOB... --billing-export PROJECT.DATASET.TABLE``: what Vertex AI jobs were
billed, from the user's Cloud Billing export to BigQuery (``gcp.bigquery``: the lines that
carry each job's submission label), beside gpujob's estimate (``cost_spent``). The export lags
hours behind, sometimes more than a day: a job without lines yet is said so. Results on stdout
(a table, or JSON), notes on stderr."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpujob.console import CONSOLE
from gpujob.errors import EXIT_OK

if TYPE_CHECKING:
    from gpujob.settings import RemoteSettings

LAG = ("the export lags hours behind, sometimes more than a day "
       "(https://cloud.google.com/billing/docs/how-to/export-data-bigquery-tables)")


def execute(s: RemoteSettings) -> int:
    from gpujob import services
    from gpujob.gcp.bigquery import BillingExport, table_name
    from gpujob.services.base import SUBMISSION_LABEL
    from gpujob.services.capabilities import Capability

    SERVICE = services.get(services.DEFAULT_SERVICE)  # the one whose prices gpujob has
    SERVICE.require(Capability.COSTS, "gpujob cost")
    SERVICE.require(Capability.JOBS, "gpujob cost")
    table_name(s.table)  # a usage error before any call
    client = SERVICE.client(s.gcp)
    session = client.session
    assert session is not None  # a client of Google's APIs
    jobs = []
    for job in s.jobs:
        raw = client.get(client.resolve(SERVICE.parse_ref(job)))
        given = raw.get("labels")
        labels = given if isinstance(given, dict) else {}
        jobs.append((SERVICE.status(raw), labels.get(SUBMISSION_LABEL)))
    tokens = sorted({str(t) for _, t in jobs if t})
    export = BillingExport(session, s.table)
    found = {b.submission: b for b in export.billed(SUBMISSION_LABEL, tokens)} if tokens else {}
    out: list[dict[str, Any]] = []
    for status, token in jobs:
        billed = found.get(str(token)) if token else None
        if not token:
            CONSOLE.err(f"note: job {status.id} carries no {SUBMISSION_LABEL} label (gpujob did "
                        "not submit it): its lines in the export cannot be told apart")
        elif billed is None:
            CONSOLE.err(f"note: job {status.id}: no lines in {s.table} yet; {LAG}")
        out.append({"id": status.id, "submission": token, "estimate": status.cost,
                    "billed": None if billed is None else {
                        **billed._asdict(), "net": round(billed.net, 6)}})
    if s.output_format == "json":
        CONSOLE.json({"version": 1, "table": s.table, "jobs": out})
    else:
        CONSOLE.out(_table(out))
    if found:
        newest = max(b.exported for b in found.values())
        CONSOLE.err(f"billed: the lines of {s.table} that carry each job's {SUBMISSION_LABEL} "
                    f"label, as invoiced (your discounts and credits included; NET = BILLED + "
                    f"CREDITS), exported up to {newest}; ESTIMATE: gpujob's, at list prices")
    return EXIT_OK


def _table(jobs: list[dict[str, Any]]) -> str:
    def money(value: float | None, currency: str = "USD") -> str:
        if value is None:
            return "-"
        sign = "-" if value < 0 else ""
        return f"{sign}{'$' if currency == 'USD' else currency + ' '}{abs(value):,.2f}"

    rows = [("JOB_ID", "BILLED", "CREDITS", "NET", "ESTIMATE", "USAGE")]
    for job in jobs:
        b, est = job["billed"], job["estimate"] or {}
        cur = b["currency"] if b else "USD"
        rows.append((job["id"], money(b and b["cost"], cur), money(b and b["credits"], cur),
                     money(b and b["net"], cur),
                     money(est.get("amount")) if est.get("seconds") is not None else "-",
                     f"{b['usage_start']} … {b['usage_end']}" if b else "-"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return "".join("  ".join(f"{c:<{w}}" for c, w in zip(row[:-1], widths, strict=True))
                   + f"  {row[-1]}\n" for row in rows)
