"""Issue 31 item 5: ``gpujob cost JOB... --billing-export PROJECT.DATASET.TABLE`` reads what the
jobs were billed from the Cloud Billing export in BigQuery (the fake BigQuery on 127.0.0.1,
whose answers are checked against the bundled discovery document), by gpujob's submission
label, and says when the export has no lines for a job yet."""

from __future__ import annotations

import json

import pytest
from conftest import PROJECT, REGION
from vertex_jobs import custom_job

TABLE = "billing-proj.billing.gcp_billing_export_v1_012345_6789AB_CDEF01"
VERTEX = ("--region", REGION, "--billing-export", TABLE)
LABEL = "gpujob-submission"


@pytest.fixture
def export(google, monkeypatch):
    monkeypatch.setenv("GPUJOB_BIGQUERY_ENDPOINT", google.url)
    google.bigquery.add_table(TABLE)
    return google.bigquery


def _job(vertex, token: str | None) -> str:
    body = custom_job("train", labels={LABEL: token} if token else {"team": "vision"})
    stored = vertex.add_job(PROJECT, REGION, body, state="JOB_STATE_SUCCEEDED")
    stored["startTime"], stored["endTime"] = "2026-11-26T10:00:00Z", "2026-11-26T12:00:00Z"
    return stored["name"].rsplit("/", 1)[1]


def test_cost_prints_the_billed_figure_of_a_labelled_job(cli, google, key, vertex, export):
    job_id = _job(vertex, "20261126-095959-000001-1a2b3c4d")
    other = _job(vertex, "20261126-095959-000002-ffffffff")  # billed, not asked for
    for hour, cost in (("10", 0.31), ("11", 0.31)):
        export.add_line(TABLE, {LABEL: "20261126-095959-000001-1a2b3c4d", "team": "x"}, cost,
                        (f"2026-11-26T{hour}:00:00Z", f"2026-11-26T{int(hour) + 1}:00:00Z"),
                        credits=(-0.05,))
    export.add_line(TABLE, {LABEL: "20261126-095959-000002-ffffffff"}, 9.0,
                    ("2026-11-26T10:00:00Z", "2026-11-26T11:00:00Z"))
    result = cli("cost", job_id, *VERTEX)
    assert result.code == 0, result.err
    header, row = result.out.splitlines()
    assert header.split() == ["JOB_ID", "BILLED", "CREDITS", "NET", "ESTIMATE", "USAGE"]
    assert row.split()[:4] == [job_id, "$0.62", "-$0.10", "$0.52"]
    assert row.split()[5:] == ["2026-11-26T10:00:00Z", "…", "2026-11-26T12:00:00Z"]
    described = cli("describe", job_id, "--service", "vertex", "--region", REGION, "--format",
                    "json")
    estimate = json.loads(described.out)["job"]["cost"]["amount"]  # 2 hours at list prices
    assert row.split()[4] == f"${estimate:,.2f}"
    assert "exported up to 2026-11-27T06:00:00Z" in result.err
    (sent,) = google.calls("jobs.query")
    assert sent.path == f"/bigquery/v2/projects/{PROJECT}/queries"
    assert sent.body["useLegacySql"] is False and f"FROM `{TABLE}`" in sent.body["query"]
    values = {p["name"]: p["parameterValue"] for p in sent.body["queryParameters"]}
    assert values["label"] == {"value": LABEL}
    assert values["submissions"] == {"arrayValues": [{"value": "20261126-095959-000001-"
                                                               "1a2b3c4d"}]}
    assert google.rejected == [] and other not in result.out
    as_json = json.loads(cli("cost", job_id, *VERTEX, "--format", "json").out)
    billed = as_json["jobs"][0]["billed"]
    assert (billed["cost"], billed["credits"], billed["net"], billed["line_items"]) == (
        pytest.approx(0.62), pytest.approx(-0.1), pytest.approx(0.52), 2)
    assert as_json["jobs"][0]["estimate"]["amount"] > 0


def test_no_rows_yet_is_said(cli, google, key, vertex, export):
    job_id = _job(vertex, "20261126-095959-000003-00000000")
    unlabelled = _job(vertex, None)
    export.pending = 1  # the query is not finished at first: read again with getQueryResults
    result = cli("cost", job_id, unlabelled, *VERTEX)
    assert result.code == 0, result.err
    assert (f"note: job {job_id}: no lines in {TABLE} yet; the export lags hours behind, "
            "sometimes more than a day") in result.err
    assert f"note: job {unlabelled} carries no {LABEL} label (gpujob did not submit it)" \
        in result.err
    assert [line.split()[1] for line in result.out.splitlines()[1:]] == ["-", "-"]
    assert len(google.calls("jobs.getQueryResults")) == 1 and google.rejected == []


def test_a_table_that_is_not_there_or_not_a_table_name(cli, google, key, vertex, export):
    job_id = _job(vertex, "20261126-095959-000004-00000000")
    missing = cli("cost", job_id, "--region", REGION, "--billing-export", "proj-a1.billing.nope")
    assert missing.code == 3
    assert "Not found: Table proj-a1:billing.nope" in missing.err
    assert "Traceback" not in missing.err
    bad = cli("cost", job_id, "--region", REGION, "--billing-export", "billing")
    assert bad.code == 2
    assert "--billing-export 'billing' is not PROJECT.DATASET.TABLE" in bad.err


def test_a_query_whose_answer_was_lost_is_asked_again_as_the_same_query(cli, google, key,
                                                                        vertex, export):
    from fakes.faults import Drop

    job_id = _job(vertex, "20261126-095959-000001-1a2b3c4d")
    google.inject("jobs.query", Drop())  # the first answer never comes back
    result = cli("cost", job_id, *VERTEX)
    assert result.code == 0, result.err
    tries = google.calls("jobs.query")
    assert len(tries) == 2
    ids = {call.body["requestId"] for call in tries}
    assert len(ids) == 1 and ids != {""}  # BigQuery runs one query job for both
