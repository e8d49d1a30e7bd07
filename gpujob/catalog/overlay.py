"""The refreshed catalog: a dated overlay of the live parts of a service's built-in catalog,
written by ``gpujob catalog refresh`` in the user's cache directory and read by every command.

The overlay (``vertex-live.json``) holds one entry per part it refreshed, each with the day it
was read (``as_of``), the moment (``read``), where from (``source``) and its data: ``zones``
(the Compute Engine zones of each GPU and GPU machine type, and the most GPUs per VM) and
``images`` (the prebuilt training images and their dates). Reading it costs one ``stat`` when
there is none, and one small JSON read when there is; it imports nothing from Google.

The merged catalog (``merged``) is the built-in data with each refreshed part in place of the
built-in one, and a ``refreshed`` section saying what came from where: so ``--export-catalog``
prints it, and it can be passed back with ``--catalog``.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

FORMAT = 1
FILE = "{service}-live.json"
PARTS = ("zones", "images")  # the live parts this module merges (prices: the prices module's)


# overlay files that could not be read in this run, with why (``freshness.warnings`` says it)
PROBLEMS: dict[str, str] = {}


class OverlayError(Exception):
    """The overlay file cannot be read or is not one gpujob wrote."""


def cache_dir(environ: Mapping[str, str] | None = None) -> str:
    """Where gpujob keeps what it reads from Google: GPUJOB_CACHE_DIR, else
    $XDG_CACHE_HOME/gpujob, else ~/.cache/gpujob (the XDG Base Directory default; a relative
    XDG_CACHE_HOME is ignored, as the specification says). A string, not a ``Path``: every
    command looks it up, and pathlib's import is not free."""
    env = os.environ if environ is None else environ
    if env.get("GPUJOB_CACHE_DIR"):  # spelt as Path spells it (./c/ is c), in every message
        return os.path.normpath(env["GPUJOB_CACHE_DIR"])
    base = env.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "gpujob")


def path(service: str, environ: Mapping[str, str] | None = None) -> str:
    """The overlay file of ``service``: found once per run for the same environment (a
    validate of 1,000 files asks for it once per file, for the prices)."""
    env = os.environ if environ is None else environ
    return _path(service, env.get("GPUJOB_CACHE_DIR"), env.get("XDG_CACHE_HOME"),
                 os.environ.get("HOME"))


@lru_cache(maxsize=8)
def _path(service: str, cache: str | None, xdg: str | None, home: str | None) -> str:
    """``path``, for the variables it depends on (HOME: ``~``'s)."""
    given = {name: value for name, value in (("GPUJOB_CACHE_DIR", cache),
                                             ("XDG_CACHE_HOME", xdg)) if value is not None}
    return os.path.join(cache_dir(given), FILE.format(service=service))


def read(file: str | Path) -> dict[str, Any] | None:
    """The overlay at ``file``; None when there is none. ``OverlayError`` when it cannot be
    read or is not an overlay of this format."""
    try:
        with open(file, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise OverlayError(f"cannot read {file}: {exc}") from None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise OverlayError(f"{file} is not JSON") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or \
            not isinstance(data.get("parts"), dict):
        raise OverlayError(f"{file} is not a catalog overlay of format {FORMAT}")
    return data


def unwritable(directory: Path) -> str | None:
    """Why an overlay cannot be written in ``directory`` (made if missing), or None: said
    before a refresh reads anything, so that what it reads is not lost at the end."""
    try:
        if directory.exists() and not directory.is_dir():
            return "it is not a directory"
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return str(exc.strerror or exc)
    if not os.access(directory, os.W_OK | os.X_OK):
        return "it is not writable (read-only, or owned by another user)"
    return None


def write(file: Path, overlay: dict[str, Any]) -> None:
    """Write ``overlay`` to ``file`` whole or not at all (``write_atomic``)."""
    write_atomic(file, (json.dumps(overlay, indent=1, sort_keys=True) + "\n").encode())


def write_atomic(file: str | os.PathLike[str], data: bytes, dir_mode: int = 0o777) -> None:
    """``data`` in ``file`` whole or not at all: a reader sees the old file or the new one,
    never part of one (a temporary file in the same directory, synced, then ``os.replace``).
    Its directory is made if missing (``dir_mode``, less the umask)."""
    import tempfile  # only a refresh or a cache writes: validate's start-up does not pay for it

    directory, name = os.path.split(os.fspath(file))
    os.makedirs(directory, mode=dir_mode, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, file)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _texts(value: Any, allow_empty: bool = False) -> bool:
    return isinstance(value, list) and (allow_empty or bool(value)) and all(
        isinstance(v, str) and v for v in value)


def _day(value: Any) -> bool:
    return isinstance(value, str) and _DATE.fullmatch(value) is not None


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


FIGURES = ("on_demand", "spot", "flex_start", "management_fee")  # USD per hour


def _price(value: Any) -> bool:
    """A figure a refresh writes: null (unknown) or a finite number above 0."""
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)
                             and math.isfinite(value) and value > 0)


def _bad_price(regions: dict[str, Any]) -> str | None:
    """The first figure of a refreshed price table that is not a price, said: one such figure
    refuses the whole overlay (a hand edit; a refresh never writes one), so that
    --max-hourly-cost never compares against a price below the one billed."""
    for region, found in regions.items():
        for section in ("accelerators", "machine_types"):
            for name, entry in found.get(section, {}).items():
                where = f"prices.table.regions.{region}.{section}.{name}"
                if not isinstance(entry, dict):
                    return f"{where} is not an object"
                for key in FIGURES:
                    if not _price(entry.get(key)):
                        return (f"{where}.{key} is {json.dumps(entry[key])[:40]}, not a price "
                                "(a number above 0, USD per hour, or null)")
    return None


def problem(name: str, part: Any) -> str | None:
    """What keeps ``part`` from being the overlay's part ``name`` as a refresh writes it (the
    shape the merge and the catalog's queries rely on), or None. Cheap: no JSON Schema."""
    if not isinstance(part, dict):
        return f"{name} is not an object"
    source = part.get("source")
    if not isinstance(source, dict) or not _day(source.get("as_of")) or \
            not _texts(source.get("refs")):
        return f"{name}.source needs as_of (a date) and refs"
    if name == "zones":
        gpus, machines = part.get("gpus"), part.get("machine_types")
        if not isinstance(gpus, dict) or not all(
                isinstance(g, dict) and _count(g.get("max_count")) and _texts(g.get("zones"))
                for g in gpus.values()):
            return "zones.gpus: each GPU needs max_count (a count) and zones"
        if not isinstance(machines, dict) or not all(map(_texts, machines.values())):
            return "zones.machine_types: each machine type needs its zones"
    if name == "prices":
        table = part.get("table")
        regions = table.get("regions") if isinstance(table, dict) else None
        if not isinstance(table, dict) or not isinstance(regions, dict) \
                or not isinstance(table.get("source_key", {}), dict) \
                or not all(isinstance(r, dict) and all(isinstance(r.get(k, {}), dict) for k in (
                    "accelerators", "machine_types")) for r in regions.values()):
            return "prices.table: each region needs its accelerators and machine_types, by name"
        return _bad_price(regions)
    if name == "images":
        images = part.get("images")
        if not isinstance(images, dict) or not images:
            return "images.images is not a map of images"
        for image, entry in images.items():
            if not isinstance(entry, dict) or not all(
                    isinstance(entry.get(k), str) for k in ("framework", "version", "python")) \
                    or not _texts(entry.get("accelerators")) or not all(
                    _day(entry[k]) for k in ("end_of_support", "end_of_availability", "listed")
                    if k in entry):
                return f"images.images.{image}: needs framework, version, python, " \
                       "accelerators, and dates as YYYY-MM-DD"
    return None


def merged(built_in: dict[str, Any], overlay: dict[str, Any], file: str | Path
           ) -> dict[str, Any]:
    """The built-in catalog data with the overlay's parts in place of its own (shallow copies:
    ``built_in`` is not changed), and a ``refreshed`` section: for each part, when and where
    from it was read, and the file it came from. ``OverlayError`` when a part is not as a
    refresh writes it (``problem``)."""
    data = dict(built_in)
    parts = overlay["parts"]
    for name in (*PARTS, "prices"):  # prices: checked here too, so a bad one is said up front
        if name in parts:
            why = problem(name, parts[name])
            if why:
                raise OverlayError(f"{file} is not a refreshed catalog gpujob can read: {why}")
    refreshed: dict[str, Any] = {}
    zones = parts.get("zones")
    if isinstance(zones, dict):
        section = dict(data["zones"])
        section["gpus"] = zones["gpus"]
        section["machine_types"] = zones["machine_types"]
        section["source"] = zones["source"]
        data["zones"] = section
        refreshed["zones"] = _stamp(zones, file)
    images = parts.get("images")
    if isinstance(images, dict):
        section = dict(data["prebuilt_images"])
        section["images"] = images["images"]
        section["source"] = images["source"]
        data["prebuilt_images"] = section
        refreshed["prebuilt_images"] = _stamp(images, file)
    for name, part in parts.items():
        if name not in PARTS and isinstance(part, dict):
            refreshed[name] = _stamp(part, file)
    if refreshed:
        data["refreshed"] = refreshed
    return data


def _stamp(part: dict[str, Any], file: str | Path) -> dict[str, Any]:
    return {"as_of": part["source"]["as_of"], "read": part.get("read", ""),
            "from": part.get("from", ""), "file": str(file)}
