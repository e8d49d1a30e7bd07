"""JSON as a Google API understands it (proto3 JSON), in one form for comparing.

The services answer in proto3 JSON: int64 fields come back as strings (``"count": "4"``) and
fields at their default (``false``, ``0``, ``""``, an enum's first value, number 0) are left
out. ``canonical`` brings a value to one form using the types of the API's discovery document
(the one bundled with google-api-python-client), so that what was sent and what the service
holds can be compared.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from gpujob.gcp.discovery import document

_INTEGER_FORMATS = {"int32", "uint32", "int64", "uint64"}


def schemas(api: str, version: str) -> dict[str, Any]:
    """The ``schemas`` of the bundled discovery document of ``api`` ``version``."""
    return document(api, version).get("schemas", {})


def _is_default(value: Any, schema: dict[str, Any]) -> bool:
    if value in (None, False, "", [], {}) or (type(value) in (int, float) and value == 0):
        return True
    # an enum's first value is its number 0, the proto3 default, whatever its name
    # (``scaleTier: BASIC`` is left out of answers as ``state: STATE_UNSPECIFIED`` is)
    enum = schema.get("enum") or []
    return bool(enum) and value == enum[0]


def canonical(value: Any, schema: dict[str, Any], types: dict[str, Any]) -> Any:
    """``value`` in one form for comparing: integers as ints, default-valued fields dropped.
    ``schema``: its discovery schema (``{"$ref": NAME}`` will do); ``types``: the document's
    schemas (``schemas(api, version)``)."""
    while "$ref" in schema:
        schema = types[schema["$ref"]]
    if isinstance(value, dict):
        props = schema.get("properties", {})
        entries = schema.get("additionalProperties")
        out = {}
        for key, item in value.items():
            sub = props.get(key) or entries or {}
            item = canonical(item, sub, types)
            if key in props and _is_default(item, sub):
                continue  # a field at its default; map entries (labels) always count
            out[key] = item
        return out
    if isinstance(value, list):
        return [canonical(item, schema.get("items", {}), types) for item in value]
    if schema.get("format") in _INTEGER_FORMATS or schema.get("type") == "integer":
        try:
            return int(value)
        except (TypeError, ValueError):
            return value
    if schema.get("type") == "number" and not isinstance(value, bool):
        try:
            return float(value)
        except (TypeError, ValueError):
            return value
    return value


def parse_time(text: Any) -> datetime | None:
    """An RFC 3339 timestamp from the API (``2025-01-31T12:00:00.123456789Z``)."""
    if not isinstance(text, str) or not text:
        return None
    head, _, fraction = text.rstrip("Z").partition(".")
    try:
        when = datetime.fromisoformat(head.replace("Z", ""))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    digits = "".join(c for c in fraction if c.isdigit())[:6]
    return when + timedelta(microseconds=int(digits.ljust(6, "0"))) if digits else when
