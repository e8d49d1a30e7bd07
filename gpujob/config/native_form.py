"""The native Vertex form, a config format beside the AI Platform Job (``job.py``) that Vertex
AI and GKE read: what such a config is shaped as, its kind (by its top-level keys; a loaded
``Document`` keeps it as its ``form``), the schema of each kind, and the encodings the discovery
document declares (``encoded``: int64 values as strings of digits). ``native_reading`` reads
one as gcloud does; ``native_flags`` applies the command line to it."""

from __future__ import annotations

from functools import cache
from typing import Any, Protocol

from gpujob import numbers
from gpujob.findings import JsonPath
from gpujob.resources import load_schema
from gpujob.suggest import camel

SCHEMAS = {
    "CustomJobSpec": "vertex-custom-job-spec.schema.json",
    "CustomJob": "vertex-custom-job.schema.json",
    "HyperparameterTuningJob": "vertex-tuning-job.schema.json",
}
SPEC_PATHS: dict[str, JsonPath] = {"CustomJobSpec": (), "CustomJob": ("jobSpec",),
                                   "HyperparameterTuningJob": ("trialJobSpec",)}


class Sourced(Protocol):
    """A loaded config (``document.Document``, which reads its form from here)."""

    source: str


def display_name(doc: Sourced, given: str | None = None) -> str:
    """The name a CustomJobSpec file is submitted under: ``given`` (--display-name), else the
    file's name without its suffix (its directory's, for ``config.yaml``: ``source_name``)."""
    from gpujob.config.names import source_name  # (lazily: kept out of a validate)

    if given:
        return given
    return source_name(doc.source) or "job"


# the top-level key that makes a file of each kind, first the one that wins
MARKS = (("trialJobSpec", "HyperparameterTuningJob"), ("studySpec", "HyperparameterTuningJob"),
          ("jobSpec", "CustomJob"), ("workerPoolSpecs", "CustomJobSpec"))
_AI_PLATFORM = "trainingInput"


def kind(data: Any) -> str | None:
    """``CustomJobSpec``, ``CustomJob`` or ``HyperparameterTuningJob`` for a native Vertex
    config, None for anything else (an AI Platform Job has ``trainingInput``). A key that marks
    a kind counts spelt in snake_case or misspelt (``workerPoolSpec``: the checks name the key
    it means), unless one is AI Platform's ``trainingInput`` so spelt; a file of CustomJobSpec
    fields that an AI Platform Job does not have (``baseOutputDirectory``) is a CustomJobSpec."""
    if not isinstance(data, dict) or _AI_PLATFORM in data:
        return None
    for key, found in MARKS:
        if key in data:
            return found
    keys = [key for key in data if isinstance(key, str)]
    if not keys:
        return None
    spelt = {_read_as(key) for key in keys}
    if _AI_PLATFORM in spelt:
        return None
    for key, found in MARKS:
        if key in spelt:
            return found
    if spelt & _spec_only():
        return "CustomJobSpec"
    return None


def _read_as(key: str) -> str:
    """The marking key ``key`` is spelt like (snake_case, case, a near miss), else ``key``."""
    wanted = camel(key) if "_" in key else key
    names = [_AI_PLATFORM] + [mark for mark, _ in MARKS]
    for name in names:
        if wanted.lower() == name.lower():
            return name
    import difflib  # only a file of no known kind pays for it

    close = difflib.get_close_matches(wanted.lower(), [n.lower() for n in names], n=1,
                                      cutoff=0.8)
    return next((n for n in names if close and n.lower() == close[0]), wanted)


@cache
def _spec_only() -> frozenset[str]:
    """The CustomJobSpec fields that an AI Platform Job has neither at its top nor in its
    trainingInput (``network``, ``scheduling``: both have them)."""
    spec = load_schema(SCHEMAS["CustomJobSpec"])
    job = load_schema("job.schema.json")
    theirs = set(job["properties"]) | set(job["$defs"]["TrainingInput"]["properties"])
    return frozenset(set(spec["$defs"]["CustomJobSpec"]["properties"]) - theirs)


def pools(data: Any) -> tuple[JsonPath, list[Any] | None]:
    """Where a native config's ``workerPoolSpecs`` are (in its CustomJobSpec), and the list;
    None where there is none, or not a list (the schema says what is wrong)."""
    found = kind(data)
    here: JsonPath = SPEC_PATHS[found] if found else ()
    node = data
    for key in here:
        node = node.get(key) if isinstance(node, dict) else None
    listed = node.get("workerPoolSpecs") if isinstance(node, dict) else None
    return (*here, "workerPoolSpecs"), listed if isinstance(listed, list) else None


# the schemas' number encodings (scripts/vertex_schema.py's COMMON)
_INT64 = frozenset({"#/$defs/int64", "#/$defs/count64"})
_INT32 = frozenset({"#/$defs/int32", "#/$defs/count32"})
_DOUBLE = "#/$defs/double"


def encoded(found: str, data: Any) -> Any:
    """``data`` (a checked config) with int64 values as strings of digits, as the discovery
    document declares them and gcloud sends them, and int32 and double values written in a
    string as numbers (as gcloud's protojson reads them); every other value as written."""
    schema = load_schema(SCHEMAS[found])
    return _encode(data, schema, schema["$defs"])


def _encode(value: Any, node: dict[str, Any], defs: dict[str, Any]) -> Any:
    ref = node.get("$ref")
    if ref in _INT64 and numbers.is_integer(value):
        return str(value)
    if ref in _INT32 and isinstance(value, str):
        return int(value)
    if ref == _DOUBLE and isinstance(value, str):
        number = numbers.decimal(value)
        return value if number is None else number  # '1e999' is refused by the check
    while "$ref" in node:
        node = defs[node["$ref"].rsplit("/", 1)[-1]]
    if isinstance(value, dict):
        props = node.get("properties", {})
        extra = node.get("additionalProperties")
        return {k: _encode(v, props.get(k) or (extra if isinstance(extra, dict) else {}), defs)
                for k, v in value.items()}
    if isinstance(value, list):
        items = node.get("items", {})
        return [_encode(v, items, defs) for v in value]
    return value


def decoded(found: str, data: Any) -> Any:
    """``encoded``'s inverse for what a file writes as a number: ``data`` (a body of the kind
    ``found``) with its int64 values, strings of digits, as numbers again."""
    schema = load_schema(SCHEMAS[found])
    return _decode(data, schema, schema["$defs"])


def _decode(value: Any, node: dict[str, Any], defs: dict[str, Any]) -> Any:
    if node.get("$ref") in _INT64 and isinstance(value, str):
        number = numbers.decimal(value)  # (an int for whole text)
        return number if numbers.is_integer(number) else value
    while "$ref" in node:
        node = defs[node["$ref"].rsplit("/", 1)[-1]]
    if isinstance(value, dict):
        props = node.get("properties", {})
        extra = node.get("additionalProperties")
        return {k: _decode(v, props.get(k) or (extra if isinstance(extra, dict) else {}), defs)
                for k, v in value.items()}
    if isinstance(value, list):
        items = node.get("items", {})
        return [_decode(v, items, defs) for v in value]
    return value


def strings_in_doubles(data: Any, found: str) -> list[tuple[JsonPath, str]]:
    """The double fields of a native config ``found`` written as strings, with their paths."""
    schema = load_schema(SCHEMAS[found])
    out: list[tuple[JsonPath, str]] = []

    def walk(value: Any, node: dict[str, Any], path: JsonPath) -> None:
        if node.get("$ref") == _DOUBLE and isinstance(value, str):
            out.append((path, value))
        while "$ref" in node:
            node = schema["$defs"][node["$ref"].rsplit("/", 1)[-1]]
        if isinstance(value, dict):
            props, extra = node.get("properties", {}), node.get("additionalProperties")
            for k, v in value.items():
                walk(v, props.get(k) or (extra if isinstance(extra, dict) else {}), (*path, k))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, node.get("items", {}), (*path, i))

    walk(data, schema, ())
    return out
