"""The Job schema: a valid 2020-12 schema that matches the API's own discovery document."""

from __future__ import annotations

import json
from typing import Any

import pytest
from googleapiclient.discovery_cache import get_static_doc
from jsonschema import Draft202012Validator

from gpujob.catalog import load
from gpujob.resources import schema_path

SCHEMA = json.loads(schema_path("job.schema.json").read_text(encoding="utf-8"))
DISCOVERY = json.loads(get_static_doc("ml", "v1"))

# our definition -> the discovery document's schema it describes
PAIRS = {
    "#": "GoogleCloudMlV1__Job",
    "TrainingInput": "GoogleCloudMlV1__TrainingInput",
    "ReplicaConfig": "GoogleCloudMlV1__ReplicaConfig",
    "AcceleratorConfig": "GoogleCloudMlV1__AcceleratorConfig",
    "DiskConfig": "GoogleCloudMlV1__DiskConfig",
    "Scheduling": "GoogleCloudMlV1__Scheduling",
    "HyperparameterSpec": "GoogleCloudMlV1__HyperparameterSpec",
    "ParameterSpec": "GoogleCloudMlV1__ParameterSpec",
    "EncryptionConfig": "GoogleCloudMlV1__EncryptionConfig",
}
OURS_FOR = {theirs: ours for ours, theirs in PAIRS.items()}
# the lists the fields marked x-catalog take from the built-in catalog
CHOICES = dict(load("ai-platform").choices)


def ours(name: str) -> dict[str, Any]:
    return SCHEMA if name == "#" else SCHEMA["$defs"][name]


def resolve(node: dict[str, Any]) -> dict[str, Any]:
    """Follow $ref, keeping the referring node's own keywords."""
    if "$ref" in node:
        target = SCHEMA["$defs"][node["$ref"].rsplit("/", 1)[-1]]
        return {**resolve(target), **{k: v for k, v in node.items() if k != "$ref"}}
    return node


def json_types(node: dict[str, Any]) -> set[str]:
    """The JSON types a schema node admits."""
    node = resolve(node)
    if "anyOf" in node:
        return set().union(*(json_types(n) for n in node["anyOf"]))
    if "enum" in node:
        return {{str: "string", int: "integer", float: "number"}[type(v)] for v in node["enum"]}
    kind = node.get("type")
    return set(kind) if isinstance(kind, list) else {kind}


def compatible(theirs: dict[str, Any], mine: dict[str, Any], where: str) -> None:
    if "$ref" in theirs:
        target = theirs["$ref"]
        assert target in OURS_FOR, f"{where}: no definition pairs with {target}"
        assert mine.get("$ref") == f"#/$defs/{OURS_FOR[target]}", f"{where}: not {target}"
        return
    mine = resolve(mine)
    kind, fmt = theirs.get("type"), theirs.get("format")
    got = json_types(mine)
    if kind == "string" and fmt == "int64":
        # int64 travels as a JSON string; gpujob also takes the plain integer
        assert got == {"integer", "string"}, f"{where}: int64 takes an integer or digits"
    elif kind == "integer":
        # an int32; proto3 JSON (and gcloud) take a string of digits too ('10'), held to int32
        assert got == {"integer"} or (got == {"integer", "string"} and fmt == "int32"
                                      and "int32" in json.dumps(mine)), where
    elif kind == "number":
        # a double; proto3 JSON (and gcloud) take a string holding a number too ('0.001')
        assert got <= {"number", "integer"} or got == {"number", "string"}, where
    elif kind in ("string", "boolean"):
        assert got == {kind}, f"{where}: {got} is not {kind}"
    elif kind == "array":
        assert got == {"array"}, where
        compatible(theirs["items"], mine["items"], f"{where}[]")
    elif kind == "object":  # labels: a map of strings
        assert got == {"object"}, where
        compatible(theirs["additionalProperties"], mine["additionalProperties"], f"{where}{{}}")
    else:  # pragma: no cover - a new kind of field in the API
        pytest.fail(f"{where}: unknown discovery type {kind}")
    if "enum" in theirs:
        allowed = set(theirs["enum"])
        listed = resolve(mine).get("x-catalog")
        values = CHOICES[listed] if listed else resolve(mine)["enum"]
        assert set(values) <= allowed, f"{where}: enum values the API lacks"


def test_the_schema_is_valid_json_schema_2020_12():
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("name", PAIRS)
def test_every_schema_property_exists_in_the_discovery_document(name: str):
    theirs = DISCOVERY["schemas"][PAIRS[name]]["properties"]
    for prop, node in ours(name)["properties"].items():
        assert prop in theirs, f"{name}.{prop} is not a field of {PAIRS[name]}"
        compatible(theirs[prop], node, f"{name}.{prop}")


@pytest.mark.parametrize("name", [n for n in PAIRS if n != "#"])
def test_every_api_field_is_in_the_schema(name: str):
    """A field the API adds (or gpujob forgets) fails here instead of being refused as unknown."""
    theirs = set(DISCOVERY["schemas"][PAIRS[name]]["properties"])
    assert theirs == set(ours(name)["properties"])


def test_the_job_fields_left_out_are_the_output_only_and_prediction_ones():
    theirs = set(DISCOVERY["schemas"]["GoogleCloudMlV1__Job"]["properties"])
    left_out = theirs - set(SCHEMA["properties"])
    assert left_out == {"createTime", "startTime", "endTime", "state", "errorMessage", "etag",
                        "jobPosition", "trainingOutput", "predictionInput", "predictionOutput"}


def test_every_object_refuses_unknown_keys():
    for name, node in [("#", SCHEMA), *SCHEMA["$defs"].items()]:
        if node.get("type") == "object" and "properties" in node:
            assert node.get("additionalProperties") is False, name


def test_the_catalog_in_use_owns_the_lists_of_names():
    """Accelerator types, scale tiers and Python versions are not listed in the schema (it keeps
    their type and pattern): the catalog in use lists them (``x-catalog``)."""
    marked = {}
    for name, node in [("#", SCHEMA), *SCHEMA["$defs"].items()]:
        for prop, sub in node.get("properties", {}).items():
            if "x-catalog" in sub:
                marked[f"{name}.{prop}"] = sub["x-catalog"]
                assert "enum" not in sub and sub["type"] == "string" and sub["pattern"]
    assert marked == {"TrainingInput.scaleTier": "scale_tiers",
                      "TrainingInput.pythonVersion": "python_versions",
                      "AcceleratorConfig.type": "accelerator_types"}
    assert set(marked.values()) == set(CHOICES)
    assert "enum" not in json.dumps(SCHEMA["$defs"]["AcceleratorConfig"])


def _patterns(node: Any, where: str = "#") -> list[tuple[str, str]]:
    if isinstance(node, dict):
        found = [(where, node["pattern"])] if isinstance(node.get("pattern"), str) else []
        return found + [p for k, v in node.items() for p in _patterns(v, f"{where}/{k}")]
    if isinstance(node, list):
        return [p for i, v in enumerate(node) for p in _patterns(v, f"{where}/{i}")]
    return []


@pytest.mark.parametrize("name", ["job.schema.json", "catalog.ai-platform.schema.json"])
def test_patterns_match_whole_strings_in_python_and_in_editors(name: str):
    """jsonschema applies a pattern with re.search, and Python's ``$`` also matches before a final
    newline: ``jobId: "my_job\\n"`` passed. ``\\Z`` would fix Python but is a literal Z (or, with
    the u flag, an error) in editors' ECMA-262 engines; ``$(?!\\n)`` ends the string in both."""
    schema = json.loads(schema_path(name).read_text(encoding="utf-8"))
    patterns = [(w, p) for w, p in _patterns(schema) if p != "^https://"]  # a prefix on purpose
    assert patterns
    for where, pattern in patterns:
        assert pattern.startswith("^") and pattern.endswith("$(?!\\n)"), where
        assert "\\Z" not in pattern and "\\A" not in pattern and "(?P" not in pattern, where
