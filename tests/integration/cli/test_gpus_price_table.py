"""``gpujob gpus --gpu L4 --count 4``: one price table of every region and machine type that
offers the GPUs, on-demand, Spot and flex-start $/hour, cheapest first, in one run with no
network (issue 33, item 1).

Expected figures are those of gpujob's price table (``price-table/``, from the Cyclenerd
snapshot of 2026-07-30: us-east4 g2-standard-48 $4.59 on demand, me-central2 $7.36), and the
regions those of Compute Engine's published L4 zones (the zone proxy), not recomputed here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.default_service
WIDE = {"COLUMNS": "120"}
L4_REGIONS = {"asia-east1", "asia-northeast1", "asia-northeast3", "asia-south1",
              "asia-southeast1", "europe-west1", "europe-west2", "europe-west3", "europe-west4",
              "europe-west6", "me-central2", "northamerica-northeast1",
              "northamerica-northeast2", "us-central1", "us-east1", "us-east4", "us-west1",
              "us-west4"}


def table(out: str) -> list[list[str]]:
    """The price table's rows, split into cells (two spaces or more apart)."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("REGION "))
    rows = []
    for line in lines[start:]:
        if not line.strip():
            break
        rows.append([c.strip() for c in line.split("  ") if c.strip()])
    return rows


def dollars(cell: str) -> float:
    return float("inf") if cell == "no price" else float(cell.lstrip("$").replace(",", ""))


def rows_of(cli, *args: str) -> list[dict]:
    result = cli("gpus", *args, "--format", "json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["version"] == 1
    return data["price_table"]["rows"]


def test_l4_times_4_is_one_table_of_every_region_cheapest_first(cli):
    result = cli("gpus", "--gpu", "L4", "--count", "4", env=WIDE)
    assert result.code == 0, result.err
    rows = table(result.out)
    assert rows[0] == ["REGION", "MACHINE TYPE", "GPUS", "ON-DEMAND $/HOUR", "SPOT $/HOUR",
                       "FLEX-START $/HOUR"]
    assert {r[0] for r in rows[1:]} == L4_REGIONS and len(rows) == 1 + len(L4_REGIONS)
    assert all(r[1:3] == ["g2-standard-48", "4 × L4"] for r in rows[1:])
    on_demand = [dollars(r[3]) for r in rows[1:]]
    assert on_demand == sorted(on_demand)
    assert rows[1] == ["us-east4", "g2-standard-48", "4 × L4", "$4.59", "$2.36", "no price"]
    assert rows[-1] == ["me-central2", "g2-standard-48", "4 × L4", "$7.36", "$4.29",
                        "no price"]
    assert "no flex-start price for g2-standard-48 in any of the 18 regions shown" in result.out
    assert "cheapest on-demand first (--sort price|region|name)" in " ".join(result.out.split())


def test_the_json_carries_the_rows_in_the_tables_order(cli):
    text = table(cli("gpus", "--gpu", "L4", "--count", "4", env=WIDE).out)[1:]
    result = cli("gpus", "--gpu", "L4", "--count", "4", "--format", "json")
    data = json.loads(result.out)
    assert data["version"] == 1 and data["service"] == "vertex"
    shown = data["price_table"]
    assert set(shown) == {"sort", "currency", "per", "what", "not_counted", "as_of", "table",
                          "generated", "sources", "rows", "not_priced"}
    assert (shown["sort"], shown["currency"], shown["per"]) == ("price", "USD", "hour")
    assert shown["as_of"] == "2026-07-30" and shown["not_priced"] == []
    assert [r["region"] for r in shown["rows"]] == [r[0] for r in text]
    assert shown["rows"][0] == {"region": "us-east4", "machine_type": "g2-standard-48",
                                "gpu": "NVIDIA_L4", "name": "L4", "count": 4,
                                "on_demand": pytest.approx(4.586846), "spot":
                                pytest.approx(2.356636), "flex_start": None, "unknown": []}


def test_a_missing_price_is_said_and_sorted_last_never_guessed(cli):
    rows = rows_of(cli, "--gpu", "h200", "--count", "8")
    priced = [r for r in rows if r["on_demand"] is not None]
    assert {r["region"] for r in priced} == {"us-central1", "us-east4", "us-west1"}
    assert rows[:3] == priced  # the unpriced after them
    unpriced = rows[3:]
    assert all(r["on_demand"] is None and r["spot"] is None for r in unpriced)
    assert all(r["unknown"][0].startswith("no price for NVIDIA_H200_141GB in ")
               for r in unpriced)
    out = " ".join(cli("gpus", "--gpu", "h200", "--count", "8", env=WIDE).out.split())
    assert ("no on-demand/Spot/flex-start price for NVIDIA_H200_141GB in asia-south1, "
            "asia-south2, europe-west1, europe-west4, us-east5, us-south1 (the snapshot's "
            "per-GPU price there is below 0.6 x its highest US price") in out


@pytest.mark.parametrize("sort", ["region", "name"])
def test_sort_by_region_or_name(cli, sort):
    rows = rows_of(cli, "--gpu", "L4", "--region", "us-east4,europe-west4", "--sort", sort)
    keys = [(r["region"], r["count"], r["machine_type"]) for r in rows]
    assert {r["region"] for r in rows} == {"us-east4", "europe-west4"}
    if sort == "region":
        assert [k[0] for k in keys] == sorted(k[0] for k in keys)
        first = [r for r in rows if r["region"] == "europe-west4"]
        assert [r["on_demand"] for r in first] == sorted(r["on_demand"] for r in first)
    else:
        sizes = [int(r["machine_type"].rsplit("-", 1)[1]) for r in rows]
        assert sizes == sorted(sizes)  # g2-standard-4 before g2-standard-12
        assert [r["machine_type"] for r in rows[:2]] == ["g2-standard-4", "g2-standard-4"]
        assert [r["machine_type"] for r in rows][-2:] == ["g2-standard-96"] * 2


def test_a_list_of_regions_keeps_those_and_all_keeps_every_one(cli):
    listed = rows_of(cli, "--gpu", "L4", "--count", "4", "--region", "us-west1, asia-east1")
    assert [r["region"] for r in listed] == ["us-west1", "asia-east1"]  # cheapest first
    every = rows_of(cli, "--gpu", "L4", "--region", "all")
    assert {r["region"] for r in every} == L4_REGIONS
    assert {r["count"] for r in every} == {1, 2, 4, 8}  # no --count: every count
    assert len(every) == 8 * len(L4_REGIONS)  # eight g2 machine types


def test_an_unknown_region_in_the_list_is_a_miss_with_a_guess(cli):
    result = cli("gpus", "--gpu", "L4", "--region", "us-east4,us-centrall1")
    assert result.code == 1
    assert "no region 'us-centrall1' in the Vertex catalog" in result.err
    assert "did you mean 'us-central1'?" in result.err


def test_machines_with_no_zone_data_are_said_not_priced(cli):
    result = cli("gpus", "--gpu", "gb200", "--count", "4", "--format", "json")
    shown = json.loads(result.out)["price_table"]
    assert shown["rows"] == []
    assert shown["not_priced"] == [{"gpu": "NVIDIA_GB200", "machine_type": "a4x-highgpu-4g",
                                    "why": "the zone proxy has no data on where it is offered"}]
    text = cli("gpus", "--gpu", "gb200", "--count", "4", env=WIDE).out
    assert "Not priced, as the zone proxy has no data on where they are: GB200 on " \
        "a4x-highgpu-4g." in text


@pytest.mark.parametrize(("args", "message"), [
    (("--service", "ai-platform", "--gpu", "t4", "--sort", "price"),
     "error: --sort orders the price table, and gpujob has no prices for AI Platform Training"),
    (("--service", "ai-platform", "--gpu", "t4", "--region", "us-east1,us-west1"),
     "error: --region takes one region for AI Platform Training: a list of regions is for the "
     "price table"),
    (("--service", "gke", "--sort", "region"),
     "error: --sort orders the price table, and gpujob has no prices for GKE"),
])
def test_services_without_prices_say_so(cli, args, message):
    result = cli("gpus", *args)
    assert result.code == 2
    assert result.err.splitlines()[:2] == [
        message, "  hint: gpujob has prices for Vertex AI only: --service vertex shows them"]


def test_ai_platform_takes_region_all_as_every_region(cli):
    every = json.loads(cli("gpus", "--service", "ai-platform", "--gpu", "t4", "--region", "all",
                           "--format", "json").out)
    plain = json.loads(cli("gpus", "--service", "ai-platform", "--gpu", "t4", "--format",
                           "json").out)
    assert every["offerings"] == plain["offerings"]


def test_the_price_table_imports_no_google_library_and_sends_nothing():
    probe = ("import sys; from gpujob.cli import main; "
             "code = main(['gpus', '--gpu', 'L4', '--count', '4', '--region', 'all']); "
             "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
             "('googleapiclient', 'google', 'httplib2', 'google_auth_httplib2', 'requests', "
             "'urllib3', 'socket')); print(code, heavy, file=sys.stderr)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUJOB_")}
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            env=env, timeout=60, cwd=Path(__file__).parents[2])
    assert result.stderr.splitlines()[-1] == "0 []"
