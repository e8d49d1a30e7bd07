"""What a success answer must look like before gpujob reads it, and listings that must end.

A 2xx answer is checked against the response type its method declares in the API's discovery
document (the one bundled with google-api-python-client): a JSON object whose fields have the
declared types (objects, lists, strings, booleans, numbers, int64 as digits). Fields the
document does not know are left alone, so a newer service still works. An answer that does not
fit (an HTML page, truncated JSON, a list, ``"jobId": 5``) is ``BadAnswer``, which the session
reports as a remote failure (exit 3), never as a bug.

Listings follow ``nextPageToken``; a token that comes back twice, or page after page with
nothing on it, ends the listing with ``BadAnswer`` instead of looping. A listing of jobs, which
is kept whole in memory (sorted, or searched), also ends after ``MAX_JOB_PAGES`` pages
(``EndlessListing``): a service that hands out new tokens without end cannot make gpujob
request and hold pages until memory runs out.

A create's answer, for both training APIs, is ``Created``: the job, and whether an earlier
attempt had made it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

# the API version of each client gpujob builds (by the API name that starts a method's ID)
API_VERSIONS = {"ml": "v1", "aiplatform": "v1", "logging": "v2", "storage": "v1",
                "iamcredentials": "v1", "compute": "v1", "artifactregistry": "v1",
                "cloudbilling": "v1"}
MAX_EMPTY_PAGES = 50
MAX_JOB_PAGES = 100  # of 100 jobs each, as gpujob asks: 10,000 jobs of one kind and region
_DIGITS = re.compile(r"-?[0-9]+")
_INTEGER_FORMATS = {"int32", "uint32", "int64", "uint64"}


@dataclass(frozen=True)
class Created:
    """The job as the service holds it; ``recovered`` when an earlier attempt had created it and
    its answer was lost (found again: by the submission's label on Vertex AI, by its job ID
    after a 409 ALREADY_EXISTS on AI Platform)."""

    job: dict[str, Any]
    recovered: bool = False


class BadAnswer(Exception):
    """A 2xx answer gpujob cannot use; its text says how ("the service's answer is not JSON:
    …"), to follow "ACTION failed: "."""


class EndlessListing(BadAnswer):
    """A listing still going after the most pages gpujob reads (``pages``' ``max_pages``)."""


def too_long_a_number(exc: ValueError) -> bool:
    """Whether ``exc`` is ``json.loads`` refusing an integer of more digits than
    ``sys.get_int_max_str_digits()`` allows (a plain ``ValueError``, known by its words)."""
    return "integer string conversion" in str(exc)


def _describe(value: Any) -> str:
    if isinstance(value, (bytes, str)):
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        if not text.strip():
            return "is empty"
        return f"is not a JSON object: {_clip(' '.join(text.split()))!r}"
    return f"is a JSON {type(value).__name__}, not an object"


def _problem(value: Any, schema: dict[str, Any], types: dict[str, Any], path: str,
             depth: int = 0) -> str | None:
    while "$ref" in schema:
        schema = types.get(schema["$ref"], {})
    if value is None or depth > 64:
        return None  # proto3 JSON: null is the field's default
    kind = schema.get("type")
    where = path or "the answer"
    if kind == "object":
        if not isinstance(value, dict):
            return f"has {where} as {type(value).__name__}, not an object"
        props, extra = schema.get("properties", {}), schema.get("additionalProperties")
        for key, item in value.items():
            sub = props.get(key) or extra
            found = sub and _problem(item, sub, types, f"{path}.{key}" if path else key,
                                     depth + 1)
            if found:
                return found
        return None
    if kind == "array":
        if not isinstance(value, list):
            return f"has {where} as {type(value).__name__}, not a list"
        items = schema.get("items", {})
        return next((p for i, item in enumerate(value)
                     if (p := _problem(item, items, types, f"{path}[{i}]", depth + 1))), None)
    if kind == "string" and schema.get("format") not in _INTEGER_FORMATS:
        return None if isinstance(value, str) else f"has {where} = {short(value)}, not a string"
    if kind == "integer" or schema.get("format") in _INTEGER_FORMATS:
        ok = (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, str) and _DIGITS.fullmatch(value) is not None)
        return None if ok else f"has {where} = {short(value)}, not a whole number"
    if kind == "number":
        ok = isinstance(value, (int, float, str)) and not isinstance(value, bool)
        return None if ok else f"has {where} = {short(value)}, not a number"
    if kind == "boolean":
        return None if isinstance(value, bool) else f"has {where} = {short(value)}, not true " \
                                                     "or false"
    return None


def _clip(text: str) -> str:
    return text if len(text) <= 40 else text[:40] + "…"


def short(value: Any) -> str:
    """``value`` as JSON, clipped: how an answer's value is quoted in a message."""
    import json

    return _clip(json.dumps(value))


def response_schema(method_id: str | None) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """(the response's schema, the document's schemas) of ``method_id``
    (``ml.projects.jobs.get``); None when the method is not one gpujob knows."""
    from gpujob.gcp.proto3 import document

    if not method_id:
        return None
    api, *path = method_id.split(".")
    if api not in API_VERSIONS or not path:
        return None
    node: dict[str, Any] = document(api, API_VERSIONS[api])
    for name in path[:-1]:
        node = node.get("resources", {}).get(name, {})
    method = node.get("methods", {}).get(path[-1], {})
    if "response" not in method:
        return None
    return method["response"], document(api, API_VERSIONS[api])["schemas"]


def check(answer: Any, method_id: str | None) -> Any:
    """``answer`` when it is what ``method_id`` declares, else ``BadAnswer``."""
    if not isinstance(answer, dict):
        raise BadAnswer(f"the service's answer {_describe(answer)}")
    found = response_schema(method_id)
    if found is not None:
        problem = _problem(answer, *found, path="")
        if problem:
            raise BadAnswer(f"the service's answer {problem}")
    return answer


def pages(fetch: Callable[[str | None], dict[str, Any]], items: str,
          max_pages: int | None = None) -> Iterator[dict[str, Any]]:
    """The pages ``fetch(token)`` gives, following ``nextPageToken`` until there is none;
    ``BadAnswer`` when a token comes back, or ``MAX_EMPTY_PAGES`` pages in a row have no
    ``items``; ``EndlessListing`` when page ``max_pages`` still names a next one."""
    token: str | None = None
    seen: set[str] = set()
    empty = 0
    count = 0
    while True:
        page = fetch(token)
        count += 1
        yield page
        token = page.get("nextPageToken")
        if not token:
            return
        if max_pages is not None and count >= max_pages:
            raise EndlessListing(f"the listing did not end after {count} pages; gpujob reads no "
                                 "more")
        if token in seen:
            raise BadAnswer(f"the service gave the page token {_clip(str(token))!r} twice; its "
                            "answers are not usable")
        seen.add(token)
        empty = 0 if page.get(items) else empty + 1
        if empty >= MAX_EMPTY_PAGES:
            raise BadAnswer(f"the service gave {empty} empty pages in a row; its answers are not "
                            "usable")
