"""Checking JSON against the discovery documents bundled with google-api-python-client (any of
them: ``ml.v1``, ``aiplatform.v1``, ``logging.v2``), and writing it back as the service would
(proto3 JSON). Written for the fake server and the request tests, apart from gpujob's own code,
so the tests do not check gpujob against itself.

``strict=True`` also holds a request body to what a careful client sends: int64 as strings and
32-bit integers as numbers (the encodings the discovery document declares), no output-only
field, and every field whose description starts "Required." present."""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

from googleapiclient.discovery_cache import get_static_doc

_INT64 = {"int64", "uint64"}
_DURATION = re.compile(r"-?\d+(\.\d{1,9})?s")
_DATETIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)")


@cache
def document(name: str) -> dict[str, Any]:
    """``ml.v1`` or ``logging.v2``: the document google-api-python-client ships, read through its
    own accessor for them."""
    api, _, version = name.partition(".")
    text = get_static_doc(api, version)
    assert text is not None, f"google-api-python-client ships no discovery document {name}"
    return json.loads(text)


def method(doc: str, *path: str) -> dict[str, Any]:
    """A method description: ``method("ml.v1", "projects", "jobs", "create")``."""
    node: dict[str, Any] = document(doc)
    for name in path[:-1]:
        node = node["resources"][name]
    return node["methods"][path[-1]]


def _resolve(schema: dict[str, Any], doc: str) -> dict[str, Any]:
    while "$ref" in schema:
        schema = document(doc)["schemas"][schema["$ref"]]
    return schema


def violations(value: Any, schema: dict[str, Any], doc: str, path: str = "", *,
               strict: bool = False) -> list[tuple[str, str]]:
    """(field path, description) for every way ``value`` breaks ``schema``."""
    schema = _resolve(schema, doc)
    kind = schema.get("type")
    where = path or "(root)"
    if value is None and path:
        return []  # proto3 JSON: null stands for the field's default
    if kind == "object":
        if not isinstance(value, dict):
            return [(where, f"expected an object, got {type(value).__name__}")]
        found = []
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            sub = props.get(key) or extra
            child = f"{path}.{key}" if path else key
            if sub is None:
                found.append((child, f'Unknown name "{key}": Cannot find field.'))
            elif strict and key in props and sub.get("readOnly"):
                found.append((child, "output only: a request must not set it"))
            else:
                found += violations(item, sub, doc, child, strict=strict)
        if strict:
            found += [(f"{path}.{key}" if path else key, "required field missing")
                      for key, sub in props.items()
                      if sub.get("description", "").startswith("Required.") and key not in value]
        return found
    if kind == "array":
        if not isinstance(value, list):
            return [(where, "expected a list")]
        return [v for i, item in enumerate(value)
                for v in violations(item, schema.get("items", {}), doc, f"{path}[{i}]",
                                    strict=strict)]
    if kind == "boolean":
        return [] if isinstance(value, bool) else [(where, "expected true or false")]
    if strict and (kind == "integer" or schema.get("format") in _INT64):
        return _exact_integer(value, schema, where)
    if kind == "integer" or schema.get("format") in _INT64:
        ok = (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, str) and re.fullmatch(r"-?\d+", value))
        return [] if ok else [(where, f"invalid integer {value!r}")]
    if kind == "number":
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return [] if ok else [(where, f"invalid number {value!r}")]
    if kind == "string":
        if not isinstance(value, str):
            return [(where, f"expected a string, got {json.dumps(value)}")]
        if "enum" in schema and value not in schema["enum"]:
            return [(where, f"invalid value {value!r}")]
        if schema.get("format") == "google-duration" and not _DURATION.fullmatch(value):
            return [(where, f"invalid duration {value!r}")]
        if schema.get("format") == "google-datetime" and not _DATETIME.fullmatch(value):
            return [(where, f"invalid timestamp {value!r}")]
        return []
    return []  # "any"


_RANGES = {"int32": (-(2**31), 2**31 - 1), "uint32": (0, 2**32 - 1),
           "int64": (-(2**63), 2**63 - 1), "uint64": (0, 2**64 - 1)}


def _exact_integer(value: Any, schema: dict[str, Any], where: str) -> list[tuple[str, str]]:
    """An integer in the encoding the document declares: 64-bit ones as strings of digits,
    32-bit ones as JSON numbers, within the format's range."""
    fmt = schema.get("format", "int32")
    if fmt in _INT64:
        if not (isinstance(value, str) and re.fullmatch(r"-?\d+", value)):
            return [(where, f"{fmt} must be sent as a string of digits, got {json.dumps(value)}")]
        number = int(value)
    else:
        if not isinstance(value, int) or isinstance(value, bool):
            return [(where, f"{fmt} must be sent as a JSON number, got {json.dumps(value)}")]
        number = value
    low, high = _RANGES.get(fmt, _RANGES["int64"])
    return [] if low <= number <= high else [(where, f"{number} is out of range for {fmt}")]


def _is_default(value: Any, schema: dict[str, Any]) -> bool:
    if isinstance(value, bool):
        return value is False
    if value in (0, "", None, []) or (schema.get("format") in _INT64 and value == "0"):
        return True
    enum = schema.get("enum")
    return bool(enum) and value == enum[0]


def proto3_json(value: Any, schema: dict[str, Any], doc: str) -> Any:
    """``value`` as the service prints it: int64 as strings, fields at their default left out
    (map entries, like labels, are always printed)."""
    schema = _resolve(schema, doc)
    if isinstance(value, dict):
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", {})
        out = {}
        for key, item in value.items():
            sub = _resolve(props.get(key) or extra, doc)
            item = proto3_json(item, sub, doc)
            if key in props and _is_default(item, sub):
                continue
            out[key] = item
        return out
    if isinstance(value, list):
        return [proto3_json(item, schema.get("items", {}), doc) for item in value]
    if schema.get("format") in _INT64:
        return str(value)
    return value


def request_violations(doc: str, body: Any, *path: str,
                       strict: bool = True) -> list[tuple[str, str]]:
    """A request body against its method's description:
    ``request_violations("aiplatform.v1", body, "projects", "locations", "customJobs", "create")``.
    """
    return violations(body, method(doc, *path)["request"], doc, strict=strict)
