"""How old the catalog's live facts are: said by ``gpujob gpus`` (a line on stderr),
``validate --format json`` (its ``catalog`` field) and ``--export-catalog`` (the ``refreshed``
section), and warned about once per run when a built-in one is older than ``max_age_days``.

The live parts are those ``gpujob catalog refresh`` reads from Google's APIs: the zones (and
GPU counts) and the prebuilt training images of the Vertex catalog. The rest of a catalog is
read from Google's documentation and changes with gpujob's releases.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import date
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpujob.catalog.record import CatalogRecord

MAX_AGE_DAYS = 90  # a built-in live fact older than this draws a warning (docs/gpus.md)
LIVE = {"zones": "zones", "prebuilt_images": "prebuilt images"}  # section -> as said
SAID = {**LIVE, "prices": "prices"}  # and a refreshed price table

_warned: set[str] = set()  # the catalogs warned about in this run (by path)


def max_age_days(environ: Mapping[str, str] | None = None) -> int:
    """GPUJOB_CATALOG_MAX_AGE_DAYS when it is a whole number, else ``MAX_AGE_DAYS``."""
    value = (os.environ if environ is None else environ).get("GPUJOB_CATALOG_MAX_AGE_DAYS", "")
    return int(value) if value.strip().isdigit() else MAX_AGE_DAYS


def _parts(cat: CatalogRecord) -> list[str]:
    """The live sections of ``cat``: a catalog that can be refreshed (its service's catalog
    module says ``LIVE``: Vertex AI's) has some."""
    from gpujob.catalog.services import service

    if not service(cat.service).LIVE:
        return []
    return [s for s in LIVE if s in cat.sources]


def _built_in(cat: CatalogRecord) -> bool:
    from gpujob.catalog.files import data_file
    from gpujob.catalog.services import service

    return cat.path == data_file(service(cat.service))


def describe(cat: CatalogRecord, today: date | None = None) -> dict[str, Any]:
    """The catalog in use and, for each live part, the day it describes, its age in days and
    where it came from: ``refresh`` (the overlay written by ``gpujob catalog refresh``),
    ``built-in`` or ``file`` (``--catalog``)."""
    day = today or date.today()
    refreshed = cat.refreshed
    built_in = _built_in(cat)
    parts = {}
    for section in _parts(cat):
        as_of = cat.sources[section]["as_of"]
        entry: dict[str, Any] = {"as_of": as_of,
                                 "age_days": (day - date.fromisoformat(as_of)).days}
        if not built_in:
            entry["origin"] = "file"  # --catalog: what it says, even one a refresh exported
        elif section in refreshed:
            entry.update(origin="refresh", read=refreshed[section].get("read", ""),
                         file=refreshed[section].get("file", ""))
        else:
            entry["origin"] = "built-in"
        parts[section] = entry
    for section, stamp in refreshed.items():  # prices: the price table's, when refreshed
        if section not in parts and built_in and stamp.get("as_of"):
            parts[section] = {"as_of": stamp["as_of"],
                              "age_days": (day - date.fromisoformat(stamp["as_of"])).days,
                              "origin": "refresh", "read": stamp.get("read", ""),
                              "file": stamp.get("file", "")}
    return {"path": cat.path, "as_of": {k: v["as_of"] for k, v in cat.sources.items()},
            "live": parts}


def summary(cat: CatalogRecord, today: date | None = None) -> str:
    """One line: how old each live part is and where it came from."""
    found = describe(cat, today)["live"]
    groups: dict[tuple[str, str, int], list[str]] = {}  # parts of one date and origin
    for section, part in found.items():
        origin = {"refresh": "refreshed", "built-in": "built-in"}.get(part["origin"],
                                                                     cat.path)
        groups.setdefault((part["as_of"], origin, part["age_days"]), []).append(SAID[section])
    text = "catalog: " + "; ".join(
        f"{_and(names)} as of {as_of} ({origin}, {_days(age)} old)"
        for (as_of, origin, age), names in groups.items())
    if any(p["origin"] == "built-in" for p in found.values()):
        text += "; `gpujob catalog refresh` reads them from Google"
    return text


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _days(n: int) -> str:
    return "1 day" if n == 1 else f"{n} days"


def warnings(cat: CatalogRecord, today: date | None = None) -> list[str]:
    """What to warn about once per run (the caller prints it, on stderr): an overlay that could
    not be read, and built-in live parts older than ``max_age_days`` (never an error, only a
    reminder to refresh). Each is said once per catalog file."""
    from gpujob.catalog import overlay

    file = overlay.path(cat.service)
    said = []
    if file in overlay.PROBLEMS and file not in _warned:
        _warned.add(file)
        said.append(f"warning: {overlay.PROBLEMS[file]}\n  hint: run `gpujob catalog refresh` "
                    "again, or delete the file")
    if cat.path in _warned or not _built_in(cat):
        return said
    limit = max_age_days()
    old = {s: p for s, p in describe(cat, today)["live"].items()
           if p["origin"] == "built-in" and p["age_days"] > limit}
    if old:
        _warned.add(cat.path)
        what = ", ".join(f"{LIVE[s]} ({p['as_of']}, {_days(p['age_days'])})"
                         for s, p in old.items())
        said.append(f"warning: gpujob's built-in {what} are older than {limit} days\n"
                    "  hint: `gpujob catalog refresh` reads them from Google's APIs (see "
                    "GPUs and the catalog in the user guide)")
    return said
