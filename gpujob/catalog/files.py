"""Reading a service's catalog file: the built-in one (package data, read once) or a user's
(``--catalog``), read as configs are and checked against the service's catalog schema and for
cross-references. ``spec`` is the service's catalog module (``services``); besides what
``services`` names, it gives the words of the messages: ``NOUN`` (what its file is called),
``EXPORT`` (the command that prints the built-in one) and ``INTEGRITY_HINT``."""

from __future__ import annotations

import json
import os
from functools import cache, lru_cache
from types import ModuleType
from typing import Any

from gpujob.errors import UsageError
from gpujob.findings import finding_line
from gpujob.resources import schema_path


def data_file(spec: ModuleType) -> str:
    """The built-in data file of a service's catalog: beside its catalog module (a string:
    validate's start-up does without pathlib)."""
    module: str = spec.__file__  # type: ignore[assignment]
    return os.path.join(os.path.dirname(os.path.realpath(module)), spec.DATA_FILE)


def load(spec: ModuleType, path: str | None) -> Any:
    """The service's catalog: its built-in one merged with the refreshed parts
    (``current``), or the user's at ``path``."""
    if path is None:
        return current(spec)
    return spec.build(read_user_catalog(spec, path), path)


@cache
def built_in_data(spec: ModuleType) -> dict[str, Any]:
    """A built-in catalog is package data: it cannot change while gpujob runs."""
    with open(data_file(spec), encoding="utf-8") as fh:
        return json.load(fh)


@cache
def built_in(spec: ModuleType) -> Any:
    return spec.build(built_in_data(spec), data_file(spec))


def current(spec: ModuleType) -> Any:
    """The freshest catalog gpujob has: the built-in one with the parts ``gpujob catalog
    refresh`` wrote in the cache directory in place of its own (``overlay``), for a service
    whose catalog has live parts (``LIVE``). Without an overlay this costs one ``stat``."""
    if not getattr(spec, "LIVE", False):
        return built_in(spec)
    from gpujob.catalog import overlay

    file = overlay.path(spec.SERVICE)
    try:
        stat = os.stat(file)
    except OSError:
        return built_in(spec)
    return _refreshed(spec, file, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=4)
def _refreshed(spec: ModuleType, file: str, mtime_ns: int, size: int) -> Any:
    """The built-in catalog merged with the overlay ``file`` (as it is at ``mtime_ns``): one
    that cannot be read is noted (``overlay.PROBLEMS``, which ``freshness.warnings`` says), and
    the built-in catalog used."""
    from gpujob.catalog import overlay

    try:
        found = overlay.read(file)
        if found is None:
            return built_in(spec)
        data = overlay.merged(built_in_data(spec), found, file)
        return spec.build(data, data_file(spec))._replace(document=data)
    except (overlay.OverlayError, KeyError, TypeError, ValueError, AttributeError) as exc:
        why = exc if isinstance(exc, overlay.OverlayError) else f"{file} is not readable " \
            f"as a refreshed catalog ({type(exc).__name__}: {exc})"
        overlay.PROBLEMS[file] = f"{why}; using the built-in catalog"
        return built_in(spec)


def _impossible_dates(data: Any, where: str = "") -> list[str]:
    """The ``as_of`` dates the schema's pattern lets through but the calendar has not
    (2026-02-30): the catalog's age is counted from them."""
    from datetime import date

    found = []
    items = data.items() if isinstance(data, dict) else enumerate(data) \
        if isinstance(data, list) else ()
    for key, value in items:
        path = f"{where}.{key}" if where else str(key)
        if key == "as_of" and isinstance(value, str):
            try:
                date.fromisoformat(value)
            except ValueError:
                found.append(f"{path}: {value!r} is not a date")
        else:
            found += _impossible_dates(value, path)
    return found


def read_user_catalog(spec: ModuleType, path: str) -> dict[str, Any]:
    """A user's catalog file read as configs are (safe YAML, positions, the same limits) and
    checked against the service's catalog schema, then for cross-references; a bad file raises
    ``UsageError`` listing its problems."""
    from gpujob.checks import schema
    from gpujob.config.load import load_file

    loaded = load_file(path)
    findings = list(loaded.findings)
    data = loaded.document.data if loaded.document is not None else None
    if isinstance(data, dict) and isinstance(data.get("service"), str) and \
            data["service"] != spec.SERVICE:
        raise UsageError(f"--catalog {path} is the catalog of service {data['service']!r}, "
                         f"not of {spec.SERVICE!r}",
                         f"pass a catalog of {spec.SERVICE} (`{spec.EXPORT}` prints the "
                         "built-in one)")
    if loaded.document is not None:
        findings += schema.check(loaded.document, spec.SCHEMA)
    if not findings and loaded.document is not None:
        for problems, hint in ((_impossible_dates(loaded.document.data),
                                "write each as_of as a day of the calendar, YYYY-MM-DD"),
                               (spec.integrity(loaded.document.data), spec.INTEGRITY_HINT)):
            if problems:
                raise UsageError(f"--catalog {path}: {problems[0]}" + (
                    f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""), hint)
        return loaded.document.data
    details = "\n".join(finding_line(f) for f in findings if f.is_error)
    raise UsageError(f"--catalog {path} is not a valid {spec.NOUN}:\n{details}",
                     f"start from gpujob's own (`{spec.EXPORT}` prints it) and keep its "
                     f"shape: {schema_path(spec.SCHEMA)}")
