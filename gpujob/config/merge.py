"""Write command-line overrides into a loaded config, field by field, as gcloud does.

The file is read first; each override then replaces the value at its path (creating the mappings
above it), so ``--master-accelerator`` replaces ``masterConfig.acceleratorConfig`` and keeps
``masterConfig.imageUri``. Unlike gcloud, a flag that is not given changes nothing: the file's
``packageUris`` and ``enableWebAccess`` survive.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Iterable, Iterator
from datetime import datetime, timezone
from typing import Any

from gpujob.config.document import Document
from gpujob.config.names import source_name
from gpujob.config.overrides import Override
from gpujob.errors import UsageError
from gpujob.findings import JsonPath, format_path


def _set(data: dict[str, Any], override: Override) -> list[tuple[Any, ...]]:
    """Write the override; the paths of the mappings and lists it had to create."""
    node: Any = data
    path = override.path
    created: list[tuple[Any, ...]] = []
    for depth, key in enumerate(path[:-1]):
        nxt = path[depth + 1]
        if isinstance(node, dict):
            if not isinstance(node.get(key), (dict, list)):
                node[key] = [] if isinstance(nxt, int) else {}
                created.append(path[:depth + 1])
            node = node[key]
        elif isinstance(node, list) and isinstance(key, int) and key < len(node):
            node = node[key]
        else:
            raise UsageError(f"{override.origin.flag}: cannot set {format_path(path)}: "
                             f"{format_path(path[:depth + 1])} is not there to index")
    last = path[-1]
    if isinstance(node, dict) and isinstance(last, str):
        node[last] = override.value
    elif isinstance(node, list) and isinstance(last, int) and last <= len(node):
        if last == len(node):
            node.append(override.value)
        else:
            node[last] = override.value
    else:
        raise UsageError(f"{override.origin.flag}: cannot set {format_path(path)}",
                         f"{format_path(path[:-1])} has no item {last!r}")
    return created


class _Remove:
    """The value of an override that removes its path (``--unset``)."""

    def __repr__(self) -> str:
        return "REMOVE"


REMOVE: Any = _Remove()


def _remove(data: dict[str, Any], override: Override) -> None:
    node: Any = data
    for key in override.path:
        parent = node
        found = (isinstance(node, dict) and isinstance(key, str) and key in node) or (
            isinstance(node, list) and isinstance(key, int) and key < len(node))
        if not found:
            raise UsageError(f"{override.origin.flag}: the config has no "
                             f"{format_path(override.path)}",
                             "gpujob submit CONFIG --dry-run prints the job as it is")
        node = node[key]
    del parent[override.path[-1]]


def apply(doc: Document, overrides: Iterable[Override]) -> Document:
    """A new document: ``doc`` with each override applied in order (later ones win; one whose
    value is ``REMOVE`` removes its path)."""
    merged = Document(doc.source, copy.deepcopy(doc.data), dict(doc.values), dict(doc.keys),
                      dict(doc.texts))
    for override in overrides:
        if override.value is REMOVE:
            _remove(merged.data, override)
            merged.forget(override.path)
            continue
        created = _set(merged.data, override)
        merged.forget(override.path)
        for path in created:  # mappings the override made: theirs too, not the file's
            merged.values[path] = merged.keys[path] = override.origin
        for path in (override.path, *_inside(override.value, override.path)):
            merged.values[path] = merged.keys[path] = override.origin
    return merged


def _inside(value: Any, path: JsonPath) -> Iterator[JsonPath]:
    """The paths within a value an override sets (``--master-accelerator``'s count and type):
    a finding about one of them names the flag, as for a value the flag set alone."""
    items = value.items() if isinstance(value, dict) else \
        enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        yield (*path, key)
        yield from _inside(item, (*path, key))


_JOB_ID_BAD = re.compile(r"[^A-Za-z0-9_]+")


def generate_job_id(source: str, now: datetime | None = None) -> str:
    """``my-config.yaml`` at 2026-11-21 22:52:00.123 UTC -> ``my_config_20261121_225200_123_c0ffee``
    (the time to the millisecond, then six random hex digits), so that submits started together
    (a sweep, a script run in parallel) get different IDs and each creates its own job."""
    stem = source_name(source) or "job"
    stem = _JOB_ID_BAD.sub("_", stem).strip("_") or "job"
    if not stem[0].isalpha():
        stem = f"job_{stem}"
    now = now or datetime.now(timezone.utc)
    # os.urandom(3).hex() is secrets.token_hex(3), without the secrets module's imports
    stamp = f"{now:%Y%m%d_%H%M%S}_{now.microsecond // 1000:03d}_{os.urandom(3).hex()}"
    return f"{stem[:128 - len(stamp) - 1]}_{stamp}"
