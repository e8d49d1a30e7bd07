"""The prices part: per-GPU list prices per region from Cloud Billing's catalog, in the price
table's format "1" (the built-in table's shape, ``pricing/price-table/``): Vertex AI's training
SKUs (on-demand, fee included) and its management fee, Compute Engine's Spot and DWS
(flex-start) SKUs. How a SKU's description names a GPU is data (``billing-skus.json`` beside the
Vertex catalog, with its sources).

Machine types are priced from their family's Core and RAM SKUs and Compute Engine's machine
types (``machine_prices``), for the families whose SKU wording is known from a public source;
the others are left out and the table says so (``omitted``): the shipped table's prices stand.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from gpujob.errors import GpujobError

RULES = Path(__file__).resolve().parent.parent / "billing-skus.json"
SKU_URL = "https://cloud.google.com/skus?currency=USD&filter={id}"


def rules() -> dict[str, Any]:
    with RULES.open(encoding="utf-8") as fh:
        return json.load(fh)


_INTEGER = re.compile(r"-?[0-9]{1,19}")  # google.type.Money's units: an int64
_SAID = 5  # refused SKUs named one by one; the others counted


def _integer(value: Any, bound: int) -> int | None:
    """An integer as the protocol buffers' JSON mapping writes one (a number or its decimal
    text), or None when it is not one or its magnitude is ``bound`` or more."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        number = value
    elif isinstance(value, str) and _INTEGER.fullmatch(value):
        number = int(value)
    else:
        return None
    return number if abs(number) < bound else None


def _start(rate: Mapping[str, Any]) -> float | None:
    """A tier's startUsageAmount (a double: a number or its text), or None when unreadable."""
    value = rate.get("startUsageAmount") or 0
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        start = float(value)  # text of any length: at most inf, refused below
    except (ValueError, OverflowError):
        return None
    return start if math.isfinite(start) and start >= 0 else None


def _usd(price: Any) -> float | str:
    """The figure of a google.type.Money, or why it is not one: units an int64, nanos within
    +-999,999,999 and of the same sign
    (https://cloud.google.com/billing/docs/reference/rest/v1/services.skus/list#money)."""
    if not isinstance(price, dict):
        return "its unitPrice is not an amount"
    units = _integer(price.get("units") or 0, 2 ** 63)
    nanos = _integer(price.get("nanos") or 0, 10 ** 9)
    if units is None or nanos is None or units * nanos < 0:
        return "its unitPrice is not an amount gpujob can read"
    return units + nanos / 1e9


def price_of(sku: Mapping[str, Any]) -> tuple[float, str] | str | None:
    """(USD per hour, effectiveTime) of a SKU's current price, why it is refused (a text), or
    None when it is not priced by the hour in USD. Of a tiered price, the first tier above $0
    (a free first tier is not what an hour of the job costs); a price that is not a finite
    number above 0, or a tier gpujob cannot read, refuses the SKU: the budget guard
    (--max-hourly-cost) must never see a price below the one billed."""
    for info in sku.get("pricingInfo") or []:
        expression = info.get("pricingExpression") or {}
        if expression.get("usageUnit") != "h":
            continue
        tiers: list[tuple[float, float]] = []
        for rate in expression.get("tieredRates") or []:  # shapes: checked by the session
            start = _start(rate)
            if start is None:
                return "a tier's startUsageAmount is not a number >= 0"
            price = rate.get("unitPrice")
            if isinstance(price, dict) and price.get("currencyCode", "USD") != "USD":
                return None
            value = _usd(price)
            if isinstance(value, str):
                return value
            if value < 0:
                return f"its price ${value:g}/hour is below 0"
            tiers.append((start, value))
        paid = [value for _, value in sorted(tiers) if value > 0]
        if not paid:
            return "it has no price above $0/hour (a free tier only)"
        return round(paid[0], 9), str(info.get("effectiveTime", ""))
    return None


class Refusals:
    """``hourly`` that keeps the SKUs it refused, with why: each is said in a warning, and
    the figure it would have set is left to the shipped table."""

    def __init__(self) -> None:
        self.found: dict[str, str] = {}

    def hourly(self, sku: Mapping[str, Any]) -> tuple[float, str] | None:
        found = price_of(sku)
        if isinstance(found, str):
            name = f"{sku.get('skuId', '')} ({str(sku.get('description', ''))[:120]})"
            self.found.setdefault(name, found)
            return None
        return found

    def warnings(self) -> list[str]:
        if not self.found:
            return []
        named = [f"SKU {name}: {why}" for name, why in sorted(self.found.items())[:_SAID]]
        more = len(self.found) - _SAID
        return [f"prices: refused {len(self.found)} of Cloud Billing's prices, not written "
                "(gpujob's built-in ones stand): " + "; ".join(named)
                + (f"; and {more} more" if more > 0 else "")]


def table(skus: Mapping[str, Iterable[Mapping[str, Any]]], moment: datetime,
          found_rules: Mapping[str, Any] | None = None,
          machines: Mapping[str, Mapping[str, Any]] | None = None,
          unread: str = "", refusals: Refusals | None = None) -> dict[str, Any]:
    """The price table (format "1") from the SKUs of each billing service (``vertex``,
    ``compute``): per region and GPU, each figure with its SKU and effective time; and per
    region the ``machines`` (``machine_prices.shapes``) of the families it reads, or, where
    they could not be listed, why (``unread``). The prices refused are kept in ``refusals``."""
    from gpujob.services.vertex.refresh import machine_prices

    spec = found_rules or rules()
    read = (refusals or Refusals()).hourly
    names: Mapping[str, str] = spec["gpus"]
    regions: dict[str, dict[str, Any]] = {}
    for kind, pattern in spec["patterns"].items():
        described = re.compile(pattern["description"])
        for sku in skus.get(pattern["service"], ()):
            match = described.fullmatch(str(sku.get("description", "")))
            gpu = names.get(match["gpu"].lower()) if match else None
            price = read(sku) if gpu else None
            if gpu is None or price is None:
                continue
            for region in sku.get("serviceRegions") or []:
                entry = regions.setdefault(region, {"machine_types": {}, "accelerators": {}}
                                           )["accelerators"].setdefault(gpu, {"source": {
                                               "refs": [], "as_of": "", "skus": {}}})
                entry[kind] = price[0]
                source = entry["source"]
                ref = f"CB-{pattern['service'].upper()}"
                source["refs"] = sorted({*source["refs"], ref})
                source["skus"].setdefault(kind, []).append(str(sku.get("skuId", "")))
                if price[1] and (not source.get("effective_time")
                                 or price[1] < source["effective_time"]):
                    source["effective_time"] = price[1]
                    source["as_of"] = price[1][:10]
    machine_prices.add(regions, machine_prices.rates(skus, spec, read), machines or {}, spec)
    for region in regions.values():
        for entry in [*region["accelerators"].values(), *region["machine_types"].values()]:
            entry["source"]["as_of"] = entry["source"]["as_of"] or moment.date().isoformat()
    today = moment.date().isoformat()
    families = ", ".join(sorted(spec["machines"]["families"]))
    omitted = [{"what": spec["machines"]["not_read"], "regions": ["*"],
                "why": "their Vertex AI SKU descriptions are not known from a public source "
                       f"(read: {families}): the shipped table's prices stand"}]
    if unread:
        omitted.append({"what": f"machine types ({families})", "regions": ["*"],
                        "why": f"Compute Engine's machine types could not be listed: {unread}"})
    return {
        "format": "1", "currency": "USD",
        "generated": {"by": "gpujob catalog refresh",
                      "at": moment.strftime("%Y-%m-%dT%H:%M:%SZ")},
        "source_key": {f"CB-{name.upper()}": {
            "title": f"Cloud Billing Catalog, {service}",
            "url": SKU_URL.format(id=service.split("/", 1)[1]), "as_of": today}
            for name, service in spec["services"].items()},
        "regions": dict(sorted(regions.items())),
        "omitted": omitted,
    }


def read_prices(data: Mapping[str, Any], sessions: Any, moment: datetime) -> Any:
    """The prices part, read with GPUJOB_BILLING_API_KEY (no credentials needed)."""
    from gpujob.gcp.billing import KEY_VARIABLE, BillingCatalog, KeySession
    from gpujob.services.vertex.refresh.outcome import Outcome, PartError

    key = os.environ.get(KEY_VARIABLE, "")
    if not key:
        raise GpujobError(f"{KEY_VARIABLE} is not set: Cloud Billing's price list is read "
                          "with an API key",
                          "create an API key in a project with the Cloud Billing API enabled "
                          "(https://cloud.google.com/billing/docs/how-to/get-pricing-"
                          f"information-api) and set {KEY_VARIABLE}; or leave prices out: "
                          "--parts zones,images")
    spec = rules()
    catalog = BillingCatalog(KeySession(sessions.settings, key))
    skus = {name: list(catalog.skus(service)) for name, service in spec["services"].items()}
    machines, unread = _machines(data, sessions, spec)
    refusals = Refusals()
    found = table(skus, moment, spec, machines, unread, refusals)
    count = sum(len(r["accelerators"]) for r in found["regions"].values())
    typed = sum(len(r["machine_types"]) for r in found["regions"].values())
    if not count and refusals.found:
        raise PartError("Cloud Billing's price list has no GPU price gpujob can read "
                        f"({len(refusals.found)} refused: see the warning)",
                        "try again later; report it to gpujob if it lasts",
                        refusals.warnings())
    if not count:
        raise GpujobError("Cloud Billing's price list has no GPU price gpujob can read",
                          "the SKU descriptions may have changed: report it to gpujob")
    dates = sorted(e["source"]["as_of"] for r in found["regions"].values()
                   for e in [*r["accelerators"].values(), *r["machine_types"].values()])
    said = f"{count} GPU prices" + (
        f" and {typed} machine type price" + "s" * (typed != 1) if typed else "")
    return Outcome("prices", read=f"{said} in {len(found['regions'])} regions, "
                   "from Cloud Billing's catalog" + (
                       f"; machine types not read: {unread}" if unread else
                       "" if typed else "; no machine type priced (none of the Core and RAM "
                       "SKUs gpujob reads): gpujob's built-in ones stand"),
                   data={"table": found, "read": found["generated"]["at"],
                         "from": "Cloud Billing's catalog",
                         "source": {"as_of": dates[0], "refs": sorted(found["source_key"])}},
                   warnings=refusals.warnings())



def _machines(data: Mapping[str, Any], sessions: Any, spec: Mapping[str, Any]
              ) -> tuple[dict[str, dict[str, Any]], str]:
    """The machine types to price (``machine_prices.shapes``), listed by Compute Engine in
    the user's project; or none, and why, when they cannot be listed (the GPU prices, read
    with the key alone, are still written)."""
    from gpujob.gcp.compute import ComputeClient
    from gpujob.services.vertex.refresh import machine_prices

    try:
        listed = ComputeClient(sessions.get()).machine_types(machine_prices.machine_filter(spec))
        return machine_prices.shapes(listed, data["zones"]["compute_names"]), ""
    except GpujobError as exc:
        return {}, exc.message
