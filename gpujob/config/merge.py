"""Write command-line overrides into a loaded config, field by field, as gcloud does.

The file is read first; each override then replaces the value at its path (creating the mappings
above it), so ``--master-accelerator`` replaces ``masterConfig.acceleratorConfig`` and keeps
``masterConfig.imageUri``. Unlike gcloud, a flag that is not given changes nothing: the file's
``packageUris`` and ``enableWebAccess`` survive.
"""

from __future__ import annotations

import copy
import re
import secrets
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from gpujob.config.document import Document
from gpujob.config.overrides import Override
from gpujob.errors import UsageError
from gpujob.findings import format_path


def _set(data: dict[str, Any], override: Override) -> None:
    node: Any = data
    path = override.path
    for depth, key in enumerate(path[:-1]):
        nxt = path[depth + 1]
        if isinstance(node, dict):
            if not isinstance(node.get(key), (dict, list)):
                node[key] = [] if isinstance(nxt, int) else {}
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


def apply(doc: Document, overrides: Iterable[Override]) -> Document:
    """A new document: ``doc`` with each override applied in order (later ones win)."""
    merged = Document(doc.source, copy.deepcopy(doc.data), dict(doc.values), dict(doc.keys),
                      dict(doc.texts))
    for override in overrides:
        _set(merged.data, override)
        merged.forget(override.path)
        merged.values[override.path] = override.origin
        merged.keys[override.path] = override.origin
    return merged


_JOB_ID_BAD = re.compile(r"[^A-Za-z0-9_]+")


def generate_job_id(source: str, now: datetime | None = None) -> str:
    """``my-config.yaml`` at 2026-11-21 22:52:00.123 UTC -> ``my_config_20261121_225200_123_c0ffee``
    (the time to the millisecond, then six random hex digits), so that submits started together
    (a sweep, a script run in parallel) get different IDs and each creates its own job."""
    stem = Path(source).stem if source != "<stdin>" else "job"
    stem = _JOB_ID_BAD.sub("_", stem).strip("_") or "job"
    if not stem[0].isalpha():
        stem = f"job_{stem}"
    now = now or datetime.now(timezone.utc)
    stamp = f"{now:%Y%m%d_%H%M%S}_{now.microsecond // 1000:03d}_{secrets.token_hex(3)}"
    return f"{stem[:128 - len(stamp) - 1]}_{stamp}"
