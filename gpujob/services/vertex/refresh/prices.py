"""The prices part: per-GPU list prices per region from Cloud Billing's catalog, in the price
table's format "1" (the Vertex ``prices.json``'s shape): Vertex AI's training SKUs (on-demand, fee
included) and its management fee, Compute Engine's Spot and DWS (flex-start) SKUs. How a SKU's
description names a GPU is data (``billing-skus.json`` beside the Vertex catalog, with its sources).

Machine types are priced from their family's Core and RAM SKUs and Compute Engine's machine
types (``machine_prices``), for the families whose SKU wording is known from a public source;
the others are left out and the table says so (``omitted``): the shipped table's prices stand.
"""

from __future__ import annotations

import json
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


def hourly(sku: Mapping[str, Any]) -> tuple[float, str] | None:
    """(USD per hour of the first tier, effectiveTime) of a SKU's current price, or None when
    it is not priced by the hour."""
    for info in sku.get("pricingInfo") or []:
        expression = info.get("pricingExpression") or {}
        if expression.get("usageUnit") != "h":
            continue
        for rate in expression.get("tieredRates") or []:
            if float(rate.get("startUsageAmount") or 0) == 0:
                price = rate.get("unitPrice") or {}
                if price.get("currencyCode", "USD") != "USD":
                    return None
                value = int(price.get("units") or 0) + int(price.get("nanos") or 0) / 1e9
                return round(value, 9), str(info.get("effectiveTime", ""))
    return None


def table(skus: Mapping[str, Iterable[Mapping[str, Any]]], moment: datetime,
          found_rules: Mapping[str, Any] | None = None,
          machines: Mapping[str, Mapping[str, Any]] | None = None,
          unread: str = "") -> dict[str, Any]:
    """The price table (format "1") from the SKUs of each billing service (``vertex``,
    ``compute``): per region and GPU, each figure with its SKU and effective time; and per
    region the ``machines`` (``machine_prices.shapes``) of the families it reads, or, where
    they could not be listed, why (``unread``)."""
    from gpujob.services.vertex.refresh import machine_prices

    spec = found_rules or rules()
    names: Mapping[str, str] = spec["gpus"]
    regions: dict[str, dict[str, Any]] = {}
    for kind, pattern in spec["patterns"].items():
        described = re.compile(pattern["description"])
        for sku in skus.get(pattern["service"], ()):
            match = described.fullmatch(str(sku.get("description", "")))
            gpu = names.get(match["gpu"].lower()) if match else None
            price = hourly(sku) if gpu else None
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
    machine_prices.add(regions, machine_prices.rates(skus, spec, hourly), machines or {}, spec)
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
    from gpujob.services.vertex.refresh.outcome import Outcome

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
    found = table(skus, moment, spec, machines, unread)
    count = sum(len(r["accelerators"]) for r in found["regions"].values())
    typed = sum(len(r["machine_types"]) for r in found["regions"].values())
    if not count:
        raise GpujobError("Cloud Billing's price list has no GPU price gpujob can read",
                          "the SKU descriptions may have changed: report it to gpujob")
    dates = sorted(e["source"]["as_of"] for r in found["regions"].values()
                   for e in [*r["accelerators"].values(), *r["machine_types"].values()])
    said = f"{count} GPU prices" + (
        f" and {typed} machine type price" + "s" * (typed != 1) if typed else "")
    return Outcome("prices", read=f"{said} in {len(found['regions'])} regions, "
                   "from Cloud Billing's catalog" + (
                       f"; machine types not read: {unread}" if unread else ""),
                   data={"table": found, "read": found["generated"]["at"],
                         "from": "Cloud Billing's catalog",
                         "source": {"as_of": dates[0], "refs": sorted(found["source_key"])}})


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
