"""What a 2xx answer of the API server must look like before gpujob reads it.

Answers are read as text by their charset, with replacement characters for bytes that do not
decode (an unknown charset is read as UTF-8): one byte a trainer printed must not cost the
logs. A JobSet, a list of JobSets, of pods or of Kueue Workloads is checked for the fields
gpujob reads, with the types it reads them as; one that does not fit is ``BadAnswer``, a remote
failure (exit 3) that says what was wrong, never a bug. Fields gpujob does not read are left
alone.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable
from typing import Any

from gpujob.errors import RemoteError

_CHARSET = re.compile(r"charset\s*=\s*\"?([^\s;\"]+)", re.IGNORECASE)


class BadAnswer(RemoteError):
    """A 2xx answer gpujob cannot read."""


def decode(data: bytes, content_type: str) -> str:
    found = _CHARSET.search(content_type or "")
    charset = found.group(1) if found else "utf-8"
    try:
        codecs.lookup(charset)
    except LookupError:
        charset = "utf-8"
    return data.decode(charset, errors="replace")


def _clip(text: str, most: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= most else text[:most - 1] + "…"


def bad(what: str, why: str) -> BadAnswer:
    return BadAnswer(f"{what}: the API server's answer {why}",
                     "a proxy or an API server gpujob does not know answered; kubectl "
                     "--v=8 shows the answer")


def json_object(text: str, what: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        raise bad(what, f"is not JSON: {_clip(text)!r}" if text.strip() else "is empty") \
            from None
    if not isinstance(value, dict):
        raise bad(what, f"is a JSON {type(value).__name__}, not an object")
    return value


def _expect(value: Any, kinds: type | tuple[type, ...], where: str, what: str,
            optional: bool = True) -> Any:
    if value is None and optional:
        return None
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in (
            kinds if isinstance(kinds, tuple) else (kinds,))):
        names = kinds.__name__ if isinstance(kinds, type) else " or ".join(
            k.__name__ for k in kinds)
        shown = "null" if value is None else f"a {type(value).__name__}"
        raise bad(what, f"has {where} that is {shown}, not {_word(names)}")
    return value


def _word(name: str) -> str:
    return {"dict": "an object", "list": "a list", "str": "a string", "int": "an integer"}.get(
        name, name)


def _objects(value: Any, where: str, what: str,
             each: Callable[[dict[str, Any], str], None] | None = None) -> list[dict[str, Any]]:
    items = _expect(value, list, where, what) or []
    for i, item in enumerate(items):
        _expect(item, dict, f"{where}[{i}]", what, optional=False)
        if each is not None:
            each(item, f"{where}[{i}]")
    return items


def _metadata(obj: dict[str, Any], where: str, what: str) -> None:
    meta = _expect(obj.get("metadata"), dict, f"{where}metadata", what, optional=False)
    for key in ("name", "uid", "creationTimestamp", "deletionTimestamp"):
        _expect(meta.get(key), str, f"{where}metadata.{key}", what)
    labels = _expect(meta.get("labels"), dict, f"{where}metadata.labels", what) or {}
    for key, value in labels.items():
        _expect(value, str, f"{where}metadata.labels[{key}]", what)


def jobset(obj: dict[str, Any], what: str, where: str = "") -> dict[str, Any]:
    """``obj``, checked for what ``jobs.status`` and the commands read."""
    _metadata(obj, where, what)
    _expect(obj.get("spec"), dict, f"{where}spec", what)
    st = _expect(obj.get("status"), dict, f"{where}status", what) or {}
    _expect(st.get("terminalState"), str, f"{where}status.terminalState", what)

    def condition(c: dict[str, Any], at: str) -> None:
        for key in ("type", "status", "message", "reason"):
            _expect(c.get(key), str, f"{at}.{key}", what)

    def replicated(r: dict[str, Any], at: str) -> None:
        for key in ("active", "ready", "succeeded", "failed", "suspended"):
            _expect(r.get(key), int, f"{at}.{key}", what)

    _objects(st.get("conditions"), f"{where}status.conditions", what, condition)
    _objects(st.get("replicatedJobsStatus"), f"{where}status.replicatedJobsStatus", what,
             replicated)
    return obj


def listing(obj: dict[str, Any], what: str,
            each: Callable[[dict[str, Any], str], Any] | None = None) -> list[dict[str, Any]]:
    """The ``items`` of a list, each an object (checked by ``each``)."""
    return _objects(obj.get("items"), "items", what,
                    None if each is None else lambda item, at: each(item, at))


def jobsets(obj: dict[str, Any], what: str) -> list[dict[str, Any]]:
    return listing(obj, what, lambda item, at: jobset(item, what, f"{at}."))


def pods(obj: dict[str, Any], what: str) -> list[dict[str, Any]]:
    def pod(item: dict[str, Any], at: str) -> None:
        _metadata(item, f"{at}.", what)
        _expect((item.get("metadata") or {}).get("name"), str, f"{at}.metadata.name", what,
                optional=False)

    return listing(obj, what, pod)


def workloads(obj: dict[str, Any], what: str) -> list[dict[str, Any]]:
    def workload(item: dict[str, Any], at: str) -> None:
        st = _expect(item.get("status"), dict, f"{at}.status", what) or {}
        for key in ("conditions", "admissionChecks"):
            _objects(st.get(key), f"{at}.status.{key}", what)

    return listing(obj, what, workload)
