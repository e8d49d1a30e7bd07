"""``gpujob submit --region A,B --order obtainable|cheapest`` (issue 33 item 3): the choices tried
in the order Compute Engine's capacity advice (the fake's ``advice.capacity``) or gpujob's price
table gives, the order and why said before the first create; the advice refused, as given."""

from __future__ import annotations

import json

import pytest
from conftest import PROJECT, REGION
from fakes.errors import permission_denied
from fakes.faults import Reply
from test_preflight import FORTY_T4, T4

VERTEX = ("--service", "vertex")
EAST = "us-east4"


@pytest.fixture
def compute(google, key, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("GPUJOB_COMPUTE_ENDPOINT", google.url)
    google.quota.set(T4, {}, default=-1)
    return google


def _regions(vertex) -> list[str]:
    return [job["name"].split("/")[3] for job in vertex.jobs.values()]


def test_obtainable_creates_in_the_region_the_advice_scores_higher_first(
        cli, compute, write, vertex, preflight):
    compute.advice.score(REGION, 0.2)
    compute.advice.score(EAST, 0.9)
    result = cli("submit", write(FORTY_T4), *VERTEX, "--region", f"{REGION},{EAST}",
                 "--order", "obtainable", "--format", "json")
    assert result.code == 0, result.err
    assert _regions(vertex) == [EAST]
    (create,) = compute.calls("customJobs.create")
    assert f"/locations/{EAST}/customJobs" in create.path
    assert (f"order (--order obtainable): {EAST}/STANDARD (obtainability 0.9), "
            f"{REGION}/STANDARD (obtainability 0.2)") in result.err
    shown = json.loads(result.out)["failover"]
    assert shown["order"]["by"] == "obtainable"
    assert [c["region"] for c in shown["order"]["choices"]] == [EAST, REGION]
    assert shown["chosen"] == {"region": EAST, "strategy": "STANDARD"}
    assert compute.rejected == []
    # each pool (master, workers) of each choice asked once, before the create
    assert len(compute.calls("advice.capacity")) == 4
    order = [r.route for r in compute.requests]
    assert max(i for i, r in enumerate(order) if r == "advice.capacity") < order.index(
        "customJobs.create")


def test_the_advice_refused_keeps_the_order_as_given_with_one_warning(
        cli, compute, write, vertex, preflight):
    compute.advice.score(EAST, 0.9)
    compute.inject("advice.capacity", Reply(403, permission_denied(
        "compute.advice.capacity", f"projects/{PROJECT}")))
    result = cli("submit", write(FORTY_T4), *VERTEX, "--region", f"{REGION},{EAST}",
                 "--order", "obtainable")
    assert result.code == 0, result.err
    assert _regions(vertex) == [REGION]
    assert len(compute.calls("advice.capacity")) == 1
    warnings = [line for line in result.err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and warnings[0].endswith("the order is as given")


def test_cheapest_orders_by_the_price_table(cli, compute, write, vertex, preflight):
    # T4 on n1-standard-8: us-central1 is among the cheapest regions; europe-west4 costs more
    result = cli("preflight", write(FORTY_T4), *VERTEX, "--region",
                 f"europe-west4,{REGION}", "--order", "cheapest")
    assert result.code == 0, result.err
    line = next(x for x in result.err.splitlines() if x.startswith("order (--order cheapest)"))
    assert line.index(REGION) < line.index("europe-west4"), line
    assert result.out.strip() == f"{REGION}/STANDARD"
    assert compute.calls("advice.capacity") == []


def test_region_auto_tries_every_region_offering_the_machines_most_obtainable_first(
        cli, compute, write, vertex, preflight):
    compute.advice.score(EAST, 0.9)
    compute.advice.score(REGION, 0.3)
    result = cli("submit", write(FORTY_T4), *VERTEX, "--region", "auto",
                 "--order", "obtainable", "--format", "json")
    assert result.code == 0, result.err
    assert _regions(vertex) == [EAST]
    auto = next(x for x in result.err.splitlines() if x.startswith("--region auto:"))
    assert REGION in auto and EAST in auto
    order = json.loads(result.out)["failover"]["order"]["choices"]
    assert [c["region"] for c in order[:2]] == [EAST, REGION]
    assert compute.rejected == []


def test_an_invalid_config_is_reported_before_region_auto_reads_google(cli, compute, write,
                                                                      vertex, preflight):
    bad = FORTY_T4.replace("n1-standard-8", "n1-standard-9")
    result = cli("submit", write(bad), *VERTEX, "--region", "auto", "--order", "obtainable")
    assert result.code == 1, result.err
    assert "n1-standard-9" in result.err and "--region auto:" not in result.err
    assert compute.requests == [] and vertex.jobs == {}  # not even a token was asked for


def test_region_auto_beside_other_regions_is_a_usage_error(cli, compute, write):
    result = cli("submit", write(FORTY_T4), *VERTEX, "--region", f"auto,{EAST}")
    assert result.code == 2
    assert "--region auto stands for every region" in result.err


def test_region_auto_keeps_within_max_hourly_cost(cli, compute, write, vertex, preflight):
    # 10 × n1-standard-8 with 4 T4: about $20.5/hour in us-central1, $21.7 in europe-west4
    compute.advice.score("europe-west4", 0.9)
    compute.advice.score(REGION, 0.3)
    result = cli("submit", write(FORTY_T4), *VERTEX, "--region", "auto", "--order",
                 "obtainable", "--max-hourly-cost", "21", "--format", "json")
    assert result.code == 0, result.err
    shown = json.loads(result.out)["failover"]
    assert "europe-west4" not in [c["region"] for c in shown["order"]["choices"]]
    assert _regions(vertex) == [REGION]


def test_order_is_said_where_it_does_nothing(cli, compute, write):
    """--order ranks the choices of a submit that has them: a dry run sends nothing (a note),
    and a service without choices refuses it with the reason."""
    dry = cli("submit", write(FORTY_T4), *VERTEX, "--dry-run", "--order", "cheapest")
    assert dry.code == 0, dry.err
    assert "note: --order is not used by a dry run, which sends nothing" in dry.err
    gke = cli("submit", write(FORTY_T4), "--service", "gke", "--dry-run", "--order", "cheapest")
    assert gke.code == 2
    assert "error: --order is not supported by the gke service (GKE (JobSet)): a JobSet goes " \
           "to one cluster" in gke.err
