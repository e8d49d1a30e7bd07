"""Data files shipped with gpujob (the JSON Schemas, the GPU catalog)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

_PACKAGE = Path(__file__).resolve().parent

# The schemas by the names ``gpujob schema`` takes. Each has a stable ``$id``
# (``urn:gpujob:schema:NAME:VERSION``): a name, not an address to fetch it from; editors are
# pointed at the installed file (``gpujob schema --path NAME``).
SCHEMAS = {
    "job": "job.schema.json",  # a Job config (validate, submit, local)
    "catalog": "catalog.schema.json",  # a --catalog file for ai-platform
    "vertex-catalog": "vertex-catalog.schema.json",  # a Vertex AI catalog file
}


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
