"""Is the job the service holds the one we sent? Compared as the API understands JSON.

The service answers in proto3 JSON: int64 fields come back as strings (``"count": "4"``) and fields
at their default (``false``, ``0``, ``""``, the ``*_UNSPECIFIED`` enum value) are left out. Both
sides are brought to one form, using the types in the bundled ``ml v1`` discovery document,
before ``trainingInput`` and ``labels`` are compared.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

_INTEGER_FORMATS = {"int32", "uint32", "int64", "uint64"}


@cache
def _schemas() -> dict[str, Any]:
    from googleapiclient.discovery_cache import get_static_doc

    return json.loads(get_static_doc("ml", "v1"))["schemas"]


def _is_default(value: Any, schema: dict[str, Any]) -> bool:
    if value in (None, False, "", [], {}) or (type(value) in (int, float) and value == 0):
        return True
    enum = schema.get("enum")
    return bool(enum) and value == enum[0] and str(enum[0]).endswith("_UNSPECIFIED")


def canonical(value: Any, schema: dict[str, Any]) -> Any:
    """``value`` in one form for comparing: integers as ints, default-valued fields dropped."""
    schemas = _schemas()
    while "$ref" in schema:
        schema = schemas[schema["$ref"]]
    if isinstance(value, dict):
        props = schema.get("properties", {})
        entries = schema.get("additionalProperties")
        out = {}
        for key, item in value.items():
            sub = props.get(key) or entries or {}
            item = canonical(item, sub)
            if key in props and _is_default(item, sub):
                continue  # a field at its default; map entries (labels) always count
            out[key] = item
        return out
    if isinstance(value, list):
        return [canonical(item, schema.get("items", {})) for item in value]
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


def same_job(sent: dict[str, Any], existing: dict[str, Any]) -> bool:
    """True when ``existing`` has the ``trainingInput`` and ``labels`` that ``sent`` has."""
    job = {"$ref": "GoogleCloudMlV1__Job"}
    mine = canonical({k: sent.get(k) for k in ("trainingInput", "labels")}, job)
    theirs = canonical({k: existing.get(k) for k in ("trainingInput", "labels")}, job)
    return mine == theirs
