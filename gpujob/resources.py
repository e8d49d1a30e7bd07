"""Data files shipped with gpujob (the JSON Schemas, the GPU catalog)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

_PACKAGE = Path(__file__).resolve().parent


def schema_path(name: str) -> Path:
    """Path of ``schemas/NAME``.

    The wheel carries the repository's top-level ``schemas/`` as ``gpujob/schemas/``; a source
    checkout (editable install, tests) reads the top-level folder itself.
    """
    packaged = _PACKAGE / "schemas" / name
    if packaged.is_file():
        return packaged
    return _PACKAGE.parent / "schemas" / name


@cache
def load_schema(name: str) -> dict[str, Any]:
    with schema_path(name).open(encoding="utf-8") as fh:
        return json.load(fh)
