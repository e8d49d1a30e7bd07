"""A native Vertex config as gcloud reads it, before anything checks it.

``gcloud ai custom-jobs create --config`` and ``gcloud ai hp-tuning-jobs create --config``
decode the YAML into the API's messages with apitools' protojson
(``apitools/base/protorpclite/protojson.py``, ``__decode_dictionary``):

* a null value is dropped (the field is left unset);
* a repeated field given one value is read as a one-item list: ``workerPoolSpecs`` written as
  a single mapping (the ``--config`` help's own example does this), ``args: --epochs=3``;
* a custom job's unknown keys are kept and sent on as written (``export/util.py`` ``Import``:
  apitools' ``_ProcessUnknownMessages``), and Vertex's proto3 JSON parser takes a field's proto
  name as well as its JSON name (https://protobuf.dev/programming-guides/json/), so
  ``worker_pool_specs`` is read as ``workerPoolSpecs``. A tuning job is decoded with
  ``DictToMessageWithErrorCheck``, which refuses unknown keys: there, snake_case keys are left
  to the schema, which names the key each one means.

``read`` gives the document so read, every value at the place it was written, and a note on
what was renamed; the checks and the request body both start from it.
"""

from __future__ import annotations

import re
from typing import Any

from gpujob.config.document import Document
from gpujob.findings import Finding, JsonPath, Location
from gpujob.resources import load_schema
from gpujob.suggest import camel

_SNAKE = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)+\Z")


class _Walk:
    def __init__(self, schema: dict[str, Any], rename: bool) -> None:
        self.defs = schema["$defs"]
        self.rename = rename
        self.moves: dict[JsonPath, JsonPath] = {}  # old path -> new path (every node kept)
        self.wrapped: set[JsonPath] = set()  # new paths of one value read as a list
        self.renamed: list[tuple[JsonPath, str]] = []  # (new path, the key as written)

    def node(self, schema: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in schema:
            schema = self.defs[schema["$ref"].rsplit("/", 1)[-1]]
        return schema

    def value(self, value: Any, schema: dict[str, Any], old: JsonPath, new: JsonPath) -> Any:
        schema = self.node(schema)
        if schema.get("type") == "array" and not isinstance(value, list):
            self.wrapped.add(new)
            out = [self.value(value, schema.get("items", {}), old, (*new, 0))]
            self.moves[old] = new
            return out
        self.moves[old] = new
        if isinstance(value, list):
            items = schema.get("items", {})
            return [self.value(v, items, (*old, i), (*new, i)) for i, v in enumerate(value)]
        if isinstance(value, dict):
            return self.mapping(value, schema, old, new)
        return value

    def mapping(self, value: dict[str, Any], schema: dict[str, Any], old: JsonPath,
                new: JsonPath) -> dict[str, Any]:
        props = schema.get("properties")
        extra = schema.get("additionalProperties")
        out: dict[str, Any] = {}
        for key, item in value.items():
            if item is None:
                continue  # protojson leaves a null field unset
            name = key
            if props is not None and key not in props and self.rename and isinstance(key, str) \
                    and _SNAKE.match(key) and camel(key) in props and camel(key) not in value:
                name = camel(key)
                self.renamed.append(((*new, name), key))
            sub = props[name] if props is not None and name in props else \
                extra if isinstance(extra, dict) else {}
            out[name] = self.value(item, sub, (*old, key), (*new, name))
        return out


def read(doc: Document, found: str, schema_name: str) -> tuple[Document, list[Finding]]:
    """``doc`` (a native config of kind ``found``) as gcloud reads it, and a note for each
    snake_case key read as its camelCase name; ``doc`` itself where nothing changes."""
    walk = _Walk(load_schema(schema_name), rename=found != "HyperparameterTuningJob")
    data = walk.mapping(doc.data, walk.node(load_schema(schema_name)), (), ())
    walk.moves[()] = ()
    if data == doc.data and not walk.wrapped and not walk.renamed:
        return doc, []
    values: dict[JsonPath, Location] = {}
    keys: dict[JsonPath, Location] = {}
    texts: dict[JsonPath, str] = {}
    for path, where in doc.values.items():
        if path in walk.moves:
            values[walk.moves[path]] = where
            if walk.moves[path] in walk.wrapped:
                values[(*walk.moves[path], 0)] = where
    for path, where in doc.keys.items():
        if path in walk.moves:
            keys[walk.moves[path]] = where
    for path, text in doc.texts.items():
        if path in walk.moves:
            texts[walk.moves[path]] = text
            if walk.moves[path] in walk.wrapped:
                texts[(*walk.moves[path], 0)] = text
    notes = []
    if walk.renamed:
        path, written = walk.renamed[0]
        more = len(walk.renamed) - 1
        notes.append(Finding(  # at the key as written
            "note", "vertex.snake-case",
            f"{written} is read as {path[-1]}" + (f" ({more} more snake_case key"
                                                  f"{'s' if more > 1 else ''} likewise)"
                                                  if more else "") +
            ": gcloud passes such keys on and Vertex's JSON reader takes a field's proto name; "
            "gpujob sends the camelCase names", path, keys.get(path) or values.get(path),
            "write the camelCase names the API reference uses").\
            _replace(path=(*path[:-1], written)))
    return Document(doc.source, data, values, keys, texts), notes
