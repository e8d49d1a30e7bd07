"""``gpujob catalog refresh`` given prices it must not write (below or at $0, numbers it cannot
read, a free first tier), an answer without some figures, and a cache directory it cannot
write: what the user is told, what is kept, and what the budget guard then compares against
(the fakes on 127.0.0.1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import PROJECT
from fakes.faults import Reply
from test_catalog_refresh import VERTEX_AI, apis, overlay  # noqa: F401  (the fixture)

from gpujob.catalog import overlay as overlay_module

T4 = Path(__file__).resolve().parents[3] / "configs" / "t4-compute-engine.yaml"
BUILT_IN_COST = "cost: $24.25/hour on-demand in us-central1"  # 10 replicas with 4 T4s each
pytestmark = pytest.mark.usefixtures("apis")  # the fake's APIs, gpujob pointed at them
PRICES = ("catalog", "refresh", "--project", PROJECT, "--parts", "prices")


def _sku(sku_id: str, gpu: str, tiers: list[dict]) -> dict:
    return {"name": f"services/{VERTEX_AI}/skus/{sku_id}", "skuId": sku_id,
            "description": f"Vertex AI: Training/Pipelines on {gpu} in Iowa",
            "serviceRegions": ["us-central1"],
            "pricingInfo": [{"effectiveTime": "2026-11-26T08:00:00Z", "pricingExpression": {
                "usageUnit": "h", "tieredRates": tiers}}]}


def _tier(units: object, nanos: object = 0, start: object = 0) -> dict:
    return {"startUsageAmount": start,
            "unitPrice": {"currencyCode": "USD", "units": units, "nanos": nanos}}


def _page(*t4_tiers: dict) -> Reply:
    """Vertex AI's SKUs: the H100's as billed, and the T4's with ``t4_tiers``."""
    return Reply(200, {"skus": [_sku("3F95-001E-B747", "NVIDIA H100 80GB",
                                     [_tier("11", 266033200)]),
                                _sku("0000-0000-00T4", "NVIDIA Tesla T4", list(t4_tiers))]})


@pytest.mark.default_service
@pytest.mark.parametrize("tiers, why", [
    ([_tier("-5")], "its price $-5/hour is below 0"),
    ([_tier("0", -900000000)], "its price $-0.9/hour is below 0"),
    ([_tier("0")], "it has no price above $0/hour (a free tier only)"),
    ([_tier("1", -400000000)], "its unitPrice is not an amount gpujob can read"),
    ([_tier("9" * 400)], "its unitPrice is not an amount gpujob can read"),
    ([_tier("9" * 5000)], "its unitPrice is not an amount gpujob can read"),
    ([_tier("0", 400000000, start="x")], "a tier's startUsageAmount is not a number >= 0"),
    ([_tier("0", 400000000, start=None), _tier("0", 5, start="-Infinity")],
     "a tier's startUsageAmount is not a number >= 0"),
], ids=["negative-units", "negative-nanos", "zero", "mixed-signs", "400-digits",
        "5000-digits", "start-x", "start-minus-infinity"])
def test_a_price_that_is_not_above_zero_is_named_and_not_written(cli, google, tmp_path,
                                                                 tiers, why):
    google.inject("skus.list", _page(*tiers))
    result = cli(*PRICES)
    assert result.code == 0, result.err  # the H100's price is read and written
    assert result.err.splitlines()[0] == (
        "warning: prices: refused 1 of Cloud Billing's prices, not written (gpujob's built-in "
        "ones stand): SKU 0000-0000-00T4 (Vertex AI: Training/Pipelines on NVIDIA Tesla T4 in "
        f"Iowa): {why}")
    accelerators = overlay(tmp_path)["parts"]["prices"]["table"]["regions"]["us-central1"][
        "accelerators"]
    assert "NVIDIA_TESLA_T4" not in accelerators
    assert accelerators["NVIDIA_H100_80GB"]["on_demand"] == 11.2660332
    # the budget guard compares against the shipped T4 price, not the refused one
    assert BUILT_IN_COST in cli("validate", str(T4)).err
    over = cli("submit", str(T4), "--dry-run", "--max-hourly-cost", "5")
    assert over.code == 1
    assert "the job costs $24.25/hour on-demand in us-central1, over --max-hourly-cost " \
           "$5.00" in over.err


@pytest.mark.default_service
def test_of_a_free_first_tier_the_first_paid_tier_is_the_price(cli, google, tmp_path):
    google.inject("skus.list", _page(_tier("0", 0), _tier("0", 400000000, start=100)))
    result = cli(*PRICES)
    assert result.code == 0, result.err
    assert "warning" not in result.err
    t4 = overlay(tmp_path)["parts"]["prices"]["table"]["regions"]["us-central1"][
        "accelerators"]["NVIDIA_TESLA_T4"]
    assert t4["on_demand"] == 0.4


@pytest.mark.default_service
def test_when_every_gpu_price_is_refused_the_part_keeps_what_it_had(cli, google,
                                                                     tmp_path):
    google.inject("skus.list", Reply(200, {"skus": [
        _sku("0000-0000-00T4", "NVIDIA Tesla T4", [_tier("-5")])]}),
        Reply(200, {"skus": []}))  # Compute Engine's: none
    result = cli(*PRICES)
    assert result.code == 3
    assert result.err.splitlines() == [
        "warning: prices: refused 1 of Cloud Billing's prices, not written (gpujob's built-in "
        "ones stand): SKU 0000-0000-00T4 (Vertex AI: Training/Pipelines on NVIDIA Tesla T4 in "
        "Iowa): its price $-5/hour is below 0",
        "error: prices: Cloud Billing's price list has no GPU price gpujob can read (1 refused: "
        "see the warning)",
        "  hint: try again later; report it to gpujob if it lasts"]
    assert "prices: not read; kept gpujob's built-in ones" in result.out
    assert BUILT_IN_COST in cli("validate", str(T4)).err


@pytest.mark.default_service
def test_a_cache_directory_that_is_a_file_is_said_before_anything_is_read(cli, google,
                                                                          tmp_path):
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    result = cli(*PRICES, env={"GPUJOB_CACHE_DIR": str(a_file)})
    assert result.code == 1
    assert result.out == ""
    assert result.err.splitlines()[-2:] == [
        f"error: cannot write the refreshed catalog in {a_file}: it is not a directory; "
        "nothing was read",
        f"  hint: make {a_file} a directory you can write, or set GPUJOB_CACHE_DIR to one "
        "(gpujob's cache: GPUJOB_CACHE_DIR, else $XDG_CACHE_HOME/gpujob, else "
        "~/.cache/gpujob)"]
    assert google.calls("skus.list") == []


@pytest.mark.default_service
def test_a_full_cache_directory_is_an_error_naming_it(cli, monkeypatch, tmp_path):
    def full(fd):  # the new catalog written, not yet on the disk: the disk is full
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(overlay_module.os, "fsync", full)
    result = cli(*PRICES)
    assert result.code == 1
    cache = tmp_path / "gpujob-cache"
    assert result.err.splitlines()[-2] == (
        f"error: cannot write the refreshed catalog in {cache}: No space left on device; what "
        "was read is not kept")
    assert "set GPUJOB_CACHE_DIR" in result.err.splitlines()[-1]
    assert [p.name for p in cache.iterdir()] == []  # no temporary file left



@pytest.mark.default_service
def test_a_figure_the_refresh_did_not_read_keeps_the_built_in_one(cli, google, tmp_path):
    before = cli("validate", str(T4)).err
    assert "Spot $12.28/hour" in before
    # Vertex AI's SKUs: the T4's on-demand price alone (no management fee, no Spot SKU)
    google.inject("skus.list", Reply(200, {"skus": [
        _sku("0000-0000-00T4", "NVIDIA Tesla T4", [_tier("0", 410000000)])]}),
        Reply(200, {"skus": []}))  # Compute Engine's: none
    result = cli(*PRICES)
    assert result.code == 0, result.err
    assert result.out.splitlines()[0] == (
        "prices: 1 GPU prices in 1 regions, from Cloud Billing's catalog; no machine type "
        "priced (none of the Core and RAM SKUs gpujob reads): gpujob's built-in ones stand")
    after = cli("validate", str(T4)).err
    assert "cost: $24.55/hour on-demand in us-central1" in after  # 40 T4s at $0.41, not $0.4025
    assert "Spot $12.28/hour" in after  # the built-in Spot and fee figures stand
    spot = cli("submit", str(T4), "--dry-run", "--strategy", "SPOT", "--max-hourly-cost", "13")
    assert spot.code == 0, spot.err


@pytest.mark.default_service
def test_a_hand_edited_price_is_dropped_when_another_part_is_refreshed(cli, tmp_path):
    assert cli(*PRICES).code == 0
    file = tmp_path / "gpujob-cache" / "vertex-live.json"
    data = json.loads(file.read_text())
    data["parts"]["prices"]["table"]["regions"]["us-central1"]["accelerators"][
        "NVIDIA_H100_80GB"]["on_demand"] = -1
    file.write_text(json.dumps(data))
    result = cli("catalog", "refresh", "--project", PROJECT, "--parts", "zones")
    assert result.code == 0, result.err
    assert result.err.splitlines() == [
        f"warning: {file}: prices.table.regions.us-central1.accelerators.NVIDIA_H100_80GB."
        "on_demand is -1, not a price (a number above 0, USD per hour, or null): that part is "
        "dropped, gpujob's built-in one stands until it is read again"]
    assert set(overlay(tmp_path)["parts"]) == {"zones"}
