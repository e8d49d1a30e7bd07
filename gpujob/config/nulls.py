"""Empty values in an AI Platform config, left out as gcloud leaves them out.

``gcloud ai-platform jobs submit training --config`` turns the file into the API's Job message
(apitools' ``encoding.PyValueToMessage``), where a key whose value is null (``discreteValues:``
with nothing after it) sets no field: the request has no such key. gpujob does the same, so the
config is judged on what is sent, and says where it left a value out.
"""

from __future__ import annotations

from typing import Any

from gpujob.config.document import Document
from gpujob.findings import Finding, JsonPath, format_path

RULE = "load.null"


def drop(doc: Document) -> list[Finding]:
    """Remove every mapping entry whose value is null from ``doc`` (in place, with its
    origins); a note at each."""
    found: list[JsonPath] = []
    _walk(doc.data, (), found)
    notes = []
    for path in found:
        where = doc.locate(path, key=True)
        doc.forget(path)
        notes.append(Finding("note", RULE, f"{path[-1]} is empty (null): it is not sent, as "
                             "gcloud leaves an empty value out", path, where,
                             f"remove the empty key, or give {format_path(path)} a value"))
    return notes


def _walk(node: Any, path: JsonPath, found: list[JsonPath]) -> None:
    if isinstance(node, dict):
        for key in [k for k, v in node.items() if v is None]:
            found.append((*path, key))
            del node[key]
        for key, value in node.items():
            _walk(value, (*path, key), found)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            _walk(value, (*path, index), found)
