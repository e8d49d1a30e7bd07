"""Derive gpujob's built-in price table (gpujob/services/vertex/pricing/price-table/) from two
dated public snapshots of Compute Engine list prices, so that the derivation can be run again
and reviewed as a diff. The snapshots belong to their authors and are not copied into the
repository; only the derived Vertex AI figures are.

Usage: python scripts/vertex_prices.py CYCLENERD_CSV SKYPILOT_FORMAT_CSV [-o OUT]

OUT: a folder (the built-in one by default) gets the table split as gpujob ships it (``split``),
index.json and one file per region, so that a cost reads only its region's; OUT.json gets the
whole table in one file (the shape of ``--prices FILE``).

- CYCLENERD_CSV: a mechanical extract of Cyclenerd/google-cloud-pricing-cost-calculator's
  pricing.yml (commit fd66b26, 2026-07-30): one row per (machine type, region) with columns
  machine_type, region, gpu, gpu_count, local_ssd_gb, hour, hour_spot (whole VM, GPUs included).
- SKYPILOT_FORMAT_CSV: anycloud-sh/catalog's gcp/vms.csv (commit 62ff0a9, 2026-05-20), in
  SkyPilot's schema: host rows (vCPU + RAM only) and GPU rows (count x per-GPU price).

The rule (Google's Vertex AI pricing page; checked on billed SKUs): Vertex on-demand = 1.15 x
Compute Engine on-demand; Spot and flex-start = the Compute Engine price + a management fee of
0.15 x the Compute Engine on-demand price. The Cyclenerd extract is preferred where it prices a
machine type; a GPU row of the other file is left out when its per-GPU price is below 0.6 x the
highest per-GPU price of that GPU in a us-* region (those rows hold Dynamic Workload Scheduler or
other discounted prices, not on-demand ones), and so are B200 rows (no on-demand row can be
trusted) and Spot prices above on-demand ones. The B200 machine (a4-highgpu-8g) is priced from its
GPU slice's Compute Engine SKU (third-party copies of the Billing Catalog, unverified) where that
SKU applies, and flex-start (DWS) prices of A3 High machines from the DWS SKUs of one bill.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CATALOG = ROOT / "gpujob" / "services" / "vertex" / "catalog.json"
OUT = ROOT / "gpujob" / "services" / "vertex" / "pricing" / "price-table"
INDEX = "index.json"

VERTEX_FACTOR = 1.15
FEE_FACTOR = 0.15
DWS_FLOOR = 0.6  # a per-GPU price below this share of the US maximum is not an on-demand one

CYC_DATE = "2026-07-30"
ANY_DATE = "2026-05-20"
ZENN_DATE = "2025-08-01"
B200_DATE = "2026-07-07"
SOURCE_KEY = {
    "CYC": {
        "title": "Compute Engine list prices per machine type and region (whole VM, GPUs and "
                 "bundled local SSD included), generated from the Cloud Billing Catalog API by "
                 "Cyclenerd/google-cloud-pricing-cost-calculator, pricing.yml at commit fd66b26 "
                 "(generated 2026-07-30)",
        "url": "https://github.com/Cyclenerd/google-cloud-pricing-cost-calculator/blob/"
               "fd66b26ff84fee5cdd94f341ea89206e76c06b99/pricing.yml",
        "as_of": CYC_DATE},
    "ANY": {
        "title": "Compute Engine list prices per zone (host vCPU + RAM rows and per-GPU rows) in "
                 "SkyPilot's catalog schema, anycloud-sh/catalog gcp/vms.csv at commit 62ff0a9 "
                 "(2026-05-20)",
        "url": "https://github.com/anycloud-sh/catalog/blob/"
               "62ff0a987e0c257a89235415d2877812fb1aaf29/gcp/vms.csv",
        "as_of": ANY_DATE},
    "ZENN-DWS": {
        "title": "Google Cloud Japan: on-demand and DWS flex-start bills of a Vertex AI custom "
                 "training job on a3-highgpu-8g in us-central1, with SKU ids and unit prices "
                 "(Aug 2025)",
        "url": "https://zenn.dev/google_cloud_jp/articles/dws-flex-new-skus",
        "as_of": ZENN_DATE},
    "B200-SKU": {
        "title": "Compute Engine SKU 'A4 Nvidia B200 (1 gpu slice) running in Americas', on "
                 "demand: $16.11 per GPU-hour (the slice prices the VM's share: A4 has no core "
                 "or RAM SKUs). Read from third-party copies of the Cloud Billing Catalog (a "
                 "price fixture dated 2026-07-07 and a Billing Catalog test fixture), not a "
                 "Google page; unverified. The URL is Google's SKU search, where it can be "
                 "checked",
        "url": "https://cloud.google.com/skus/?currency=USD&filter=A4+Nvidia+B200",
        "as_of": B200_DATE},
    "VERTEX-PRICING": {
        "title": "Vertex AI pricing: custom training is billed at the machine's and "
                 "accelerators' price; Spot VMs and reservations at the Compute Engine SKU plus "
                 "the Vertex AI management fee",
        "url": "https://cloud.google.com/vertex-ai/pricing#custom-trained_models",
        "as_of": "2026-10-07"},
}

_SSD = ("includes the bundled local SSD at Compute Engine's rate, which the one Vertex on-demand "
        "bill seen did not charge: about 1% high")
SOURCES = {
    "cyc": {"refs": ["CYC", "VERTEX-PRICING"], "as_of": CYC_DATE,
            "notes": "the whole VM, its built-in GPUs included"},
    "cyc-ssd": {"refs": ["CYC", "VERTEX-PRICING"], "as_of": CYC_DATE,
                "notes": "the whole VM, its built-in GPUs included; " + _SSD},
    "cyc-ssd-dws": {"refs": ["CYC", "VERTEX-PRICING", "ZENN-DWS"], "as_of": CYC_DATE,
                    "skus": {"flex_start": ["341A-49A5-0C07", "9A32-36B2-7FBC",
                                            "ED19-A584-4A84", "2303-1D6A-9C08"]},
                    "notes": "the whole VM, its built-in GPUs included; " + _SSD
                             + "; flex-start from the DWS SKUs of one bill in us-central1 "
                               "(\"Americas\" SKUs, Aug 2025), in a region whose machine "
                               "prices are us-central1's"},
    "any-host": {"refs": ["ANY", "VERTEX-PRICING"], "as_of": ANY_DATE,
                 "notes": "vCPUs and RAM only; GPUs are priced per GPU"},
    "any-gpu": {"refs": ["ANY", "VERTEX-PRICING"], "as_of": ANY_DATE, "notes": "per GPU"},
    "b200": {"refs": ["B200-SKU", "ANY", "VERTEX-PRICING"], "as_of": ANY_DATE,
             "notes": "the whole VM: 8 B200 slices; on demand from the slice's SKU (B200-SKU, "
                      "2026-07-07, unverified), Spot from the snapshot's B200 row (ANY)"},
    "any-gpu-dws": {"refs": ["ANY", "VERTEX-PRICING", "ZENN-DWS"], "as_of": ANY_DATE,
                    "skus": {"flex_start": ["341A-49A5-0C07"]},
                    "notes": "per GPU; flex-start from the DWS SKU of one bill (Aug 2025)"},
}

# the snapshot's GPU names -> Vertex MachineSpec.acceleratorType
GPU_NAMES = {
    "T4": "NVIDIA_TESLA_T4", "P4": "NVIDIA_TESLA_P4", "V100": "NVIDIA_TESLA_V100",
    "P100": "NVIDIA_TESLA_P100", "L4": "NVIDIA_L4", "A100": "NVIDIA_TESLA_A100",
    "A100-80GB": "NVIDIA_A100_80GB", "H100": "NVIDIA_H100_80GB",
    "H100-MEGA": "NVIDIA_H100_MEGA_80GB", "H200": "NVIDIA_H200_141GB", "B200": "NVIDIA_B200",
}
UNTRUSTED_GPUS = {"B200": "no on-demand price in the snapshots can be trusted: their B200 rows "
                          "are 0.5x or 0.7x of the per-GPU price seen elsewhere"}

# B200 (A4): the GPU slice SKU prices the whole VM share; the snapshot's B200 "on-demand" rows are
# 0.7x or 0.5x of it (discounted prices), so on-demand comes from the SKU (B200-SKU), in the US
# regions whose snapshot row is of the same 0.7x class as us-central1's (one "Americas" SKU)
B200_SLICE = 16.11  # A4 Nvidia B200 (1 gpu slice) running in Americas, per GPU-hour
B200_CLASS = 0.7  # the snapshot's B200 row / B200_SLICE in us-central1

# flex-start (DWS) prices are in neither snapshot: the one bill seen (ZENN-DWS, us-central1,
# "Americas" SKUs). Per GPU, and the A3 host per vCPU and per GB of RAM, and local SSD per GB.
DWS_H100 = 4.200761  # 341A-49A5-0C07 Nvidia H100 80GB GPU attached to DWS Defined Duration VMs
DWS_A3_CORE, DWS_A3_RAM, DWS_SSD = 0.010934, 0.000952, 0.0001096  # 9A32-…, ED19-…, 2303-…


def money(value: float) -> float:
    return round(value, 9)


def figures(od: float, spot: float | None) -> dict[str, Any]:
    """Vertex's figures from the Compute Engine on-demand and Spot prices."""
    if spot is not None and spot > od:
        spot = None
    return {"on_demand": money(VERTEX_FACTOR * od),
            "spot": None if spot is None else money(spot),
            "flex_start": None,
            "management_fee": money(FEE_FACTOR * od)}


def read_csv(path: str) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def number(text: str) -> float | None:
    return float(text) if text.strip() else None


def derive(cyc_path: str, any_path: str, generated_at: str) -> dict[str, Any]:
    catalog = json.loads(CATALOG.read_text(encoding="utf-8"))
    machine_types = catalog["machine_types"]["types"]
    regions = set(catalog["training_regions"]["regions"])
    out: dict[str, dict[str, dict[str, Any]]] = defaultdict(
        lambda: {"machine_types": {}, "accelerators": {}})
    omitted: list[dict[str, Any]] = []

    # accelerators per GPU, from the per-zone GPU rows (one price per region)
    per_gpu: dict[tuple[str, str], tuple[float, float | None]] = {}
    hosts: dict[tuple[str, str], tuple[float, float | None]] = {}
    for row in read_csv(any_path):
        region = row["Region"]
        if region not in regions:
            continue
        price, spot = number(row["Price"]), number(row["SpotPrice"])
        if price is None:
            continue
        if row["InstanceType"]:
            if row["InstanceType"] in machine_types:
                hosts.setdefault((row["InstanceType"], region), (price, spot))
        elif row["AcceleratorName"] in GPU_NAMES:
            count = float(row["AcceleratorCount"])
            key = (row["AcceleratorName"], region)
            each = (price / count, None if spot is None else spot / count)
            per_gpu[key] = min(per_gpu.get(key, each), each)
    us_max: dict[str, float] = defaultdict(float)
    for (gpu, region), (price, _) in per_gpu.items():
        if region.startswith("us-"):
            us_max[gpu] = max(us_max[gpu], price)
    dropped: dict[str, list[str]] = defaultdict(list)
    for (gpu, region), (price, spot) in sorted(per_gpu.items()):
        if gpu in UNTRUSTED_GPUS:
            continue
        if price < DWS_FLOOR * us_max[gpu]:
            dropped[gpu].append(region)
            continue
        entry = figures(price, spot)
        entry["source"] = "any-gpu"
        out[region]["accelerators"][GPU_NAMES[gpu]] = entry
    for gpu, why in UNTRUSTED_GPUS.items():
        omitted.append({"what": GPU_NAMES[gpu], "regions": ["*"], "why": why + "; a4-highgpu-8g "
                        "(8 x B200) is priced as a whole machine where its SKU is known"})
    for gpu, where in sorted(dropped.items()):
        omitted.append({"what": GPU_NAMES[gpu], "regions": where,
                        "why": f"the snapshot's per-GPU price there is below {DWS_FLOOR} x its "
                               "highest US price: a Dynamic Workload Scheduler or other "
                               "discounted price filed as on-demand"})

    # machine types: the whole VM from the Cyclenerd extract where it has it, else the host
    cyc = {(r["machine_type"], r["region"]): r for r in read_csv(cyc_path)}
    for (name, region), row in sorted(cyc.items()):
        if name not in machine_types or region not in regions:
            continue
        entry = figures(float(row["hour"]), number(row["hour_spot"]))
        if int(row["gpu_count"] or 0):
            entry["includes_accelerators"] = True
        ssd = float(row["local_ssd_gb"] or 0)
        entry["source"] = "cyc-ssd" if ssd else "cyc"
        out[region]["machine_types"][name] = entry
    central = {name: row["hour"] for (name, region), row in cyc.items()
               if region == "us-central1"}
    for (name, region), row in sorted(cyc.items()):
        # flex-start of A3 High: the DWS SKUs of the bill (us-central1, "Americas" SKUs), where
        # the machine costs what it costs in us-central1 (the same SKUs) and the DWS H100 price
        # is the snapshot's there too
        if (not name.startswith("a3-highgpu-") or name not in machine_types
                or region not in regions or row["hour"] != central.get(name)
                or abs(per_gpu.get(("H100", region), (0.0, None))[0] - DWS_H100) > 1e-5):
            continue
        entry = out[region]["machine_types"][name]
        entry["flex_start"] = money(int(row["gpu_count"]) * DWS_H100
                                    + float(row["vcpus"]) * DWS_A3_CORE
                                    + float(row["ram_gb"]) * DWS_A3_RAM
                                    + float(row["local_ssd_gb"] or 0) * DWS_SSD)
        entry["source"] = "cyc-ssd-dws"
    b200_regions = sorted(region for (gpu, region), (price, _) in per_gpu.items()
                          if gpu == "B200" and region.startswith("us-")
                          and abs(price - B200_CLASS * B200_SLICE) < 1e-3)
    for region in b200_regions:
        count = machine_types["a4-highgpu-8g"]["accelerators"]["NVIDIA_B200"][0]
        spot = per_gpu[("B200", region)][1]
        entry = figures(count * B200_SLICE, None if spot is None else count * spot)
        entry["includes_accelerators"] = True
        entry["source"] = "b200"
        out[region]["machine_types"]["a4-highgpu-8g"] = entry
    for (name, region), (price, spot) in sorted(hosts.items()):
        if (name, region) in cyc:
            continue
        if machine_types[name].get("family") == "a4":
            continue  # host 0 by design: the B200 slice prices the VM, and it is left out
        entry = figures(price, spot)
        entry["source"] = "any-host"
        out[region]["machine_types"][name] = entry
    h100 = out["us-central1"]["accelerators"].get("NVIDIA_H100_80GB")
    if h100 is not None:  # the DWS price seen
        h100["flex_start"] = DWS_H100
        h100["source"] = "any-gpu-dws"
    omitted.append({"what": "TPUs (cloud-tpu, ct5lp-*, ct6e-*, tpu7x-*), a4x-highgpu-4g "
                            "(GB200)", "regions": ["*"],
                    "why": "no trustworthy list price in the snapshots"})
    omitted.append({"what": "a4-highgpu-8g", "regions": sorted(
        r for (g, r) in per_gpu if g == "B200" and r not in b200_regions),
                    "why": "the on-demand price of its B200 slices there is not known: the one "
                           "SKU seen (B200-SKU) is the Americas one, and the snapshot's row "
                           "there is of another price class than us-central1's"})
    omitted.append({"what": "flex-start (Dynamic Workload Scheduler) prices", "regions": ["*"],
                    "why": "in neither snapshot; known only for a3-highgpu-* (H100) in the regions "
                           "of the one bill's SKUs (ZENN-DWS); not for A100, L4, H100 Mega, H200 "
                           "or B200 machines, whose DWS SKUs were not seen with a price and "
                           "host rate"})

    return {
        "format": "1",
        "currency": "USD",
        "title": "Vertex AI custom training list prices per hour, by region",
        "notes": "Derived by scripts/vertex_prices.py from dated public snapshots of Compute "
                 "Engine list prices (source_key), by Vertex AI's pricing rule (rule). List "
                 "prices in USD per hour before committed-use or negotiated discounts and taxes; "
                 "boot disks, storage and network are not included. `gpujob catalog refresh` "
                 "replaces these figures with Google's own SKUs.",
        "generated": {"by": "scripts/vertex_prices.py", "at": generated_at},
        "source_key": SOURCE_KEY,
        "rule": {"vertex_factor": VERTEX_FACTOR, "fee_factor": FEE_FACTOR,
                 "notes": "Vertex on-demand = 1.15 x Compute Engine on-demand; Spot = Compute "
                          "Engine Spot + fee; flex-start = Compute Engine DWS + fee; fee = 0.15 x "
                          "Compute Engine on-demand (VERTEX-PRICING, checked against billed "
                          "SKUs in ZENN-DWS)"},
        "sources": SOURCES,
        "regions": {region: out[region] for region in sorted(out)},
        "omitted": omitted,
    }


def split(table: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The table as gpujob ships it, by file name: ``index.json`` (all but the prices, and
    ``region_files``: which file holds each region's), and per region a table of format "1" of
    its own, carrying the sources and dates of its figures (``generated``, ``source_key``,
    ``sources``). The index and the regions' prices together are the whole table."""
    head = {k: v for k, v in table.items() if k != "regions"}
    files: dict[str, dict[str, Any]] = {
        INDEX: {**head, "region_files": {r: f"{r}.json" for r in table["regions"]}}}
    for region, sections in table["regions"].items():
        used = {e["source"] for section in sections.values() for e in section.values()
                if isinstance(e.get("source"), str)}
        sources = {k: v for k, v in table["sources"].items() if k in used}
        refs = {ref for source in sources.values() for ref in source.get("refs", ())} | {
            ref for section in sections.values() for e in section.values()
            if isinstance(e.get("source"), dict) for ref in e["source"].get("refs", ())}
        files[f"{region}.json"] = {
            "format": table["format"], "currency": table["currency"],
            "title": f"{table['title']}: {region}", "generated": table["generated"],
            "source_key": {k: v for k, v in table["source_key"].items() if k in refs},
            "sources": sources, "regions": {region: sections}}
    return files


def dumps(table: dict[str, Any]) -> str:
    """Indented down to each price entry, which is one line: a refresh reads as a diff."""
    def one(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))

    if "regions" not in table:  # the index
        return json.dumps(table, indent=1, ensure_ascii=False) + "\n"
    head = {k: v for k, v in table.items() if k not in ("regions", "omitted")}
    lines = [json.dumps(head, indent=1, ensure_ascii=False)[:-2] + ",", ' "regions": {']
    regions = list(table["regions"].items())
    for i, (region, sections) in enumerate(regions):
        lines.append(f"  {one(region)}: {{")
        for j, section in enumerate(("machine_types", "accelerators")):
            entries = list(sections[section].items())
            lines.append(f"   {one(section)}: {{")
            lines += [f"    {one(k)}: {one(v)}" + ("," if n < len(entries) - 1 else "")
                      for n, (k, v) in enumerate(entries)]
            lines.append("   }" + ("," if j == 0 else ""))
        lines.append("  }" + ("," if i < len(regions) - 1 else ""))
    if "omitted" not in table:
        return "\n".join([*lines, " }", "}"]) + "\n"
    lines.append(" },")
    lines.append(' "omitted": ' + json.dumps(table["omitted"], indent=1, ensure_ascii=False)
                 .replace("\n", "\n ") + "\n}")
    return "\n".join(lines) + "\n"


def write(table: dict[str, Any], out: Path) -> None:
    """The table at ``out``: one file if it ends with .json, else split into that folder
    (files of regions the table no longer has are removed)."""
    if out.suffix == ".json":
        out.write_text(dumps(table), encoding="utf-8")
        return
    out.mkdir(parents=True, exist_ok=True)
    files = split(table)
    for stale in out.glob("*.json"):
        if stale.name not in files:
            stale.unlink()
    for name, part in files.items():
        (out / name).write_text(dumps(part), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cyclenerd_csv")
    parser.add_argument("skypilot_csv")
    parser.add_argument("-o", "--output", default=str(OUT))
    parser.add_argument("--generated-at", default=datetime.now(timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%SZ"), help="the time written in generated.at")
    args = parser.parse_args(argv)
    table = derive(args.cyclenerd_csv, args.skypilot_csv, args.generated_at)
    write(table, Path(args.output))
    print(f"wrote {args.output}: {len(table['regions'])} regions", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
