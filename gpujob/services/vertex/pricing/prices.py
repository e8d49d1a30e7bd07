"""Vertex AI list prices per hour, by region: the built-in table (``price-table/`` beside it,
derived by ``scripts/vertex_prices.py`` from dated public snapshots) or another file of its shape
(``schemas/vertex-prices.schema.json``).

``load()`` is the one way in: read when a cost is asked for, never at start-up. It imports no
Google library. A figure that is absent or null is unknown, and stays so: nothing is guessed.

The built-in table is split by region (``price-table/index.json``: all but the prices; each
region's prices in a file of its own, itself a table with its sources and dates): a job's cost
reads the index and its region's file, some 20 KB, where the whole table is 575 KB of JSON
(about 10 ms to parse, most of a ``validate``'s cost line).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from gpujob.tuples import NamedTuple

SERVICE = "vertex"  # whose overlay (``gpujob catalog refresh``) may hold refreshed prices
TABLE_DIR = "price-table"  # the built-in table, split (scripts/vertex_prices.py writes it)
INDEX = "index.json"
SCHEMA = "vertex-prices.schema.json"
STRATEGIES = ("on_demand", "spot", "flex_start")  # the figures' keys, by scheduling strategy


class Source(NamedTuple):
    """Where a figure comes from: keys of the table's ``source_key``, the date of the data,
    and the SKU ids where it was read from Google's Billing Catalog."""

    refs: tuple[str, ...]
    as_of: str
    skus: dict[str, list[str]]
    notes: str = ""


class Price(NamedTuple):
    """One machine type's (its vCPUs and RAM, or the whole VM when ``includes_accelerators``)
    or one accelerator's (per GPU) figures, USD per hour; None: unknown."""

    on_demand: float | None
    spot: float | None
    flex_start: float | None
    management_fee: float | None
    includes_accelerators: bool
    source: Source

    def for_strategy(self, strategy: str) -> float | None:
        """What one unit costs an hour under ``strategy``: Vertex's on-demand price (its fee
        included), or the Compute Engine Spot / DWS price plus the management fee."""
        if strategy == "on_demand":
            return self.on_demand
        base = self.spot if strategy == "spot" else self.flex_start
        if base is None or self.management_fee is None:
            return None
        return base + self.management_fee


class PriceTable:
    """A price table: ``machine(region, name)`` and ``accelerator(region, name)`` give the
    figures (None: no price), ``cite(refs)`` the public sources of a set of refs."""

    def __init__(self, data: dict[str, Any], origin: str) -> None:
        self.data = data
        self.origin = origin
        self.currency: str = data.get("currency", "USD")
        self.generated: dict[str, Any] = data.get("generated", {})
        self.omitted: list[dict[str, Any]] = data.get("omitted", [])
        self._sources: dict[str, Source] = {}
        self._prices: dict[tuple[str, str, str], Price | None] = {}  # read once each

    @property
    def regions(self) -> list[str]:
        return sorted(self.data.get("regions", {}))

    def _source(self, raw: Any) -> Source:
        if isinstance(raw, str):
            if raw not in self._sources:
                self._sources[raw] = self._source(self.data.get("sources", {}).get(raw, {}))
            return self._sources[raw]
        raw = raw if isinstance(raw, dict) else {}
        return Source(tuple(raw.get("refs", ())), str(raw.get("as_of", "")),
                      dict(raw.get("skus", {})), str(raw.get("notes", "")))

    def _price(self, region: str, section: str, name: str) -> Price | None:
        key = (region, section, name)
        if key in self._prices:
            return self._prices[key]
        entry = self.data.get("regions", {}).get(region, {}).get(section, {}).get(name)
        price = None
        if isinstance(entry, dict):
            price = Price(**{k: entry.get(k) for k in (*STRATEGIES, "management_fee")},
                          includes_accelerators=bool(entry.get("includes_accelerators")),
                          source=self._source(entry.get("source")))
        self._prices[key] = price
        return price

    def machine(self, region: str, name: str) -> Price | None:
        return self._price(region, "machine_types", name)

    def accelerator(self, region: str, name: str) -> Price | None:
        return self._price(region, "accelerators", name)

    def cite(self, refs: set[str] | list[str] | tuple[str, ...]) -> list[dict[str, str]]:
        """The public sources of ``refs``, in the table's order: ref, title, url, as_of."""
        key = self.data.get("source_key", {})
        return [{"ref": ref, **{k: str(v) for k, v in entry.items()
                                if k in ("title", "url", "as_of")}}
                for ref, entry in key.items() if ref in refs and isinstance(entry, dict)]

    def left_out(self, name: str, region: str) -> str | None:
        """Why the table has no price for ``name`` in ``region``, where it says."""
        from fnmatch import fnmatchcase

        for entry in self.omitted:
            where = entry.get("regions", ["*"])
            names = re.findall(r"[A-Za-z0-9_*-]+", str(entry.get("what", "")))
            if any(fnmatchcase(name, n) for n in names) and ("*" in where or region in where):
                return str(entry.get("why", ""))
        return None


def build(data: dict[str, Any], origin: str) -> PriceTable:
    return PriceTable(data, origin)


def _read(path: str) -> Any:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


class _Regions(Mapping[str, Any]):
    """The built-in table's ``regions``: each region's prices read from its file when first
    asked for (``price-table/<region>.json``, a table of that one region)."""

    def __init__(self, folder: str, files: dict[str, str]) -> None:
        self._folder = folder
        self._files = files
        self._read: dict[str, Any] = {}

    def __getitem__(self, region: str) -> Any:
        if region not in self._read:
            file = self._files[region]  # KeyError: no such region (Mapping.get: the default)
            self._read[region] = _read(os.path.join(self._folder, file))["regions"][region]
        return self._read[region]

    def __iter__(self) -> Iterator[str]:
        return iter(self._files)

    def __len__(self) -> int:
        return len(self._files)


@cache
def built_in() -> PriceTable:
    """The shipped table: package data, its index read once, each region's prices when first
    asked for (``_Regions``)."""
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), TABLE_DIR)
    index = _read(os.path.join(folder, INDEX))
    files = index.pop("region_files")
    return build({**index, "regions": _Regions(folder, files)}, "built-in")


def whole(data: dict[str, Any]) -> dict[str, Any]:
    """A table's data as one plain dict, every region read: a copy the caller may change."""
    import copy

    return {**copy.deepcopy({k: v for k, v in data.items() if k != "regions"}),
            "regions": {r: copy.deepcopy(v) for r, v in data.get("regions", {}).items()}}


def load(path: str | None = None) -> PriceTable:
    """The freshest price table gpujob has, or the file at ``path``: the built-in one, with
    the prices ``gpujob catalog refresh`` read from Cloud Billing in place of its own, region
    by region, GPU by GPU and machine type by machine type (the built-in table keeps what the
    refresh does not read, such as the machine types of families whose SKUs it does not
    know)."""
    if path is not None:
        with open(path, encoding="utf-8") as fh:
            return build(json.load(fh), path)
    from gpujob.catalog import overlay

    file = overlay.path(SERVICE)
    try:
        stat = os.stat(file)
    except OSError:  # no refresh yet: one stat, as for the catalog (catalog.files.current)
        return built_in()
    return _refreshed(file, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=4)
def _refreshed(file: str, mtime_ns: int, size: int) -> PriceTable:
    """The built-in table with the refreshed prices of the overlay ``file`` (as it is at
    ``mtime_ns``) in place of its own: read and merged once per run, not once per job."""
    from gpujob.catalog import overlay

    try:
        found = overlay.read(file)
    except overlay.OverlayError:  # said with the catalog's warnings (catalog.files)
        return built_in()
    part = (found or {}).get("parts", {}).get("prices")
    if not isinstance(part, dict) or overlay.problem("prices", part):
        return built_in()
    table = part["table"]
    data = whole(built_in().data)
    data["source_key"] = {**data.get("source_key", {}), **table.get("source_key", {})}
    # what the refresh says of itself: when it ran, and what it left to the shipped table
    data["generated"] = table.get("generated") or data.get("generated", {})
    data["omitted"] = [*table.get("omitted", []), *data.get("omitted", [])]
    for region, found in table.get("regions", {}).items():
        mine = data["regions"].setdefault(region, {"machine_types": {}, "accelerators": {}})
        for section in ("accelerators", "machine_types"):
            held = mine.setdefault(section, {})
            for name, entry in found.get(section, {}).items():
                held[name] = _merged(held.get(name), entry, data.get("sources", {}))
    return build(data, "built-in, with prices from gpujob catalog refresh")


def _merged(shipped: Any, refreshed: dict[str, Any], sources: dict[str, Any]
            ) -> dict[str, Any]:
    """A refreshed entry, figure by figure over the shipped one: a figure the refresh did not
    read (no SKU of it in Cloud Billing's answer) keeps the shipped one, and the entry's source
    then names both (the older date). Whole-VM and per-VM figures are not mixed."""
    if not isinstance(shipped, dict) or bool(shipped.get("includes_accelerators")) != bool(
            refreshed.get("includes_accelerators")):
        return refreshed
    kept = [k for k in (*STRATEGIES, "management_fee")
            if refreshed.get(k) is None and shipped.get(k) is not None]
    if not kept:
        return refreshed
    theirs = shipped.get("source")
    theirs = sources.get(theirs, {}) if isinstance(theirs, str) else theirs
    theirs = theirs if isinstance(theirs, dict) else {}
    source = dict(refreshed.get("source") or {})
    dates = [d for d in (source.get("as_of"), theirs.get("as_of")) if isinstance(d, str) and d]
    source["refs"] = sorted({*source.get("refs", ()), *theirs.get("refs", ())})
    source["as_of"] = min(dates) if dates else ""
    source["notes"] = " ".join(filter(None, (
        source.get("notes"), f"{', '.join(kept)}: gpujob's built-in figure (as of "
        f"{theirs.get('as_of', 'an unknown date')}); the refresh read no SKU of it.")))
    return {**refreshed, **{k: shipped[k] for k in kept}, "source": source}
