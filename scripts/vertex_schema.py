"""Generate the JSON Schemas of native Vertex AI configs from the aiplatform v1 discovery
document that google-api-python-client bundles (its ``discovery_cache``).

    python scripts/vertex_schema.py           # (re)write schemas/vertex-*.schema.json
    python scripts/vertex_schema.py --check   # exit 1 if a shipped schema is not what this makes

One schema per kind of file: a CustomJobSpec (what ``gcloud ai custom-jobs create --config``
reads), a whole CustomJob, and a HyperparameterTuningJob. Each holds the messages the kind
reaches, field by field as the document describes them: enums as enums, int64 as an integer or
a string of digits (proto3 JSON takes both; gpujob sends strings), int32 and double as a number
or a number in a string (proto3 JSON takes both; gpujob sends numbers), durations
as ``3600s``, ``Required.`` fields required. Output-only fields are left out (a config copied
from ``describe`` is told to drop them: ``x-output-only``). ``OVERLAYS`` adds what gpujob checks
beyond the document, each with its reason. gpujob reads only the generated files; this script
is the one place that imports google-api-python-client for them.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "schemas"
PREFIX = "GoogleCloudAiplatformV1"
KINDS = {  # file name -> (root message, title, what the file is)
    "vertex-custom-job-spec": (
        "CustomJobSpec", "Vertex AI CustomJobSpec (a native gpujob config)",
        "The job's spec: the file `gcloud ai custom-jobs create --config` reads. gpujob submits "
        "it as a CustomJob named by --display-name (default: the file's name)."),
    "vertex-custom-job": (
        "CustomJob", "Vertex AI CustomJob (a native gpujob config)",
        "A whole CustomJob, as customJobs.create takes it."),
    "vertex-tuning-job": (
        "HyperparameterTuningJob", "Vertex AI HyperparameterTuningJob (a native gpujob config)",
        "A hyperparameter tuning job: the file `gcloud ai hp-tuning-jobs create --config` "
        "reads."),
}
_INT32_MAX = 2**31 - 1
# a number as proto3 JSON writes it in a string (https://protobuf.dev/programming-guides/json/:
# "Either numbers or strings are accepted"); gcloud's protojson reads it with float()
_DECIMAL = "^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][-+]?[0-9]+)?$(?!\\n)"
COMMON = {
    "int64": {
        "description": "A whole number; as in the API's JSON, a string of digits is accepted "
                       "too (gpujob sends it as one). Never a float.",
        "anyOf": [{"type": "integer", "minimum": -(2**63), "maximum": 2**63 - 1},
                  {"type": "string", "pattern": "^-?[0-9]+$(?!\\n)"}]},
    "count64": {
        "description": "A count: a whole number from 0; a string of digits is accepted too "
                       "(gpujob sends it as one).",
        "anyOf": [{"type": "integer", "minimum": 0, "maximum": 2**63 - 1},
                  {"type": "string", "pattern": "^[0-9]+$(?!\\n)", "format": "int64"}]},
    # proto3 JSON takes a string for an int32 and a double too, and gcloud's protojson reads one
    # (int(), float()): gpujob accepts it and sends the number
    "int32": {
        "description": "A whole number; as in the API's JSON, a string of digits is accepted "
                       "too (gpujob sends the number). Never a float.",
        "anyOf": [{"type": "integer", "minimum": -(2**31), "maximum": _INT32_MAX},
                  {"type": "string", "pattern": "^-?[0-9]+$(?!\\n)", "format": "int32"}]},
    "count32": {
        "description": "A count: a whole number from 0; a string of digits is accepted too "
                       "(gpujob sends the number).",
        "anyOf": [{"type": "integer", "minimum": 0, "maximum": _INT32_MAX},
                  {"type": "string", "pattern": "^[0-9]+$(?!\\n)", "format": "int32"}]},
    "double": {
        "description": "A number; as in the API's JSON, a number written as a string is "
                       "accepted too (gpujob sends the number).",
        "anyOf": [{"type": "number"}, {"type": "string", "pattern": _DECIMAL}]},
    "duration": {"type": "string", "pattern": "^[0-9]+(\\.[0-9]{1,9})?s$(?!\\n)",
                 "x-hint": "a number of seconds ending in s, such as 7200s"},
    "timestamp": {"type": "string",
                  "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}"
                             "(\\.[0-9]{1,9})?(Z|[+-][0-9]{2}:[0-9]{2})$(?!\\n)",
                  "x-hint": "an RFC 3339 time such as 2026-11-23T12:00:00Z"},
    # the discovery document's labels: keys and values up to 64 characters, lowercase letters,
    # digits, '_' and '-', international characters allowed; keys start with a letter
    "labels": {
        "type": "object", "maxProperties": 64,
        "propertyNames": {"pattern": "^[a-z\\u00c0-\\uffff][a-z0-9_\\-\\u00c0-\\uffff]{0,63}$"
                                     "(?!\\n)",
                          "x-hint": "label keys start with a lowercase letter and hold up to 64 "
                                    "lowercase letters, digits, '_' and '-'"},
        "additionalProperties": {"type": "string",
                                 "pattern": "^[a-z0-9_\\-\\u00c0-\\uffff]{0,64}$(?!\\n)",
                                 "x-hint": "label values hold up to 64 lowercase letters, "
                                           "digits, '_' and '-' (quote numbers: '1')"}},
}
# (message, field) -> what gpujob checks instead of the document's bare type, and why
OVERLAYS: dict[tuple[str, str], dict[str, Any]] = {
    # counts cannot be negative (the document types them as plain integers)
    ("WorkerPoolSpec", "replicaCount"): {"$ref": "#/$defs/count64"},
    ("MachineSpec", "acceleratorCount"): {"$ref": "#/$defs/count32"},
    ("DiskSpec", "bootDiskSizeGb"): {"$ref": "#/$defs/count32"},
    # gcloud ai hp-tuning-jobs create sets both from its flags (1 by default: hp_tuning_jobs
    # client.py); a file gpujob submits states them, or --set does
    ("HyperparameterTuningJob", "maxTrialCount"): {
        "$ref": "#/$defs/count32",
        "description": "The desired total number of Trials (gcloud's --max-trial-count, 1 by "
                       "default): write it here, or pass --set maxTrialCount=N."},
    ("HyperparameterTuningJob", "parallelTrialCount"): {
        "$ref": "#/$defs/count32",
        "description": "The desired number of Trials to run in parallel (gcloud's "
                       "--parallel-trial-count, 1 by default): write it here, or pass --set "
                       "parallelTrialCount=N."},
    ("HyperparameterTuningJob", "maxFailedTrialCount"): {"$ref": "#/$defs/count32"},
    ("CustomJob", "labels"): {"$ref": "#/$defs/labels"},
    ("HyperparameterTuningJob", "labels"): {"$ref": "#/$defs/labels"},
    # DISC: "Format: `projects/{project}/locations/{location}/tensorboards/{tensorboard}`" (a
    # Cloud Storage path there is a mistake for baseOutputDirectory)
    ("CustomJobSpec", "tensorboard"): {
        "type": "string",
        "pattern": "^projects/[^/]+/locations/[^/]+/tensorboards/[^/]+$(?!\\n)",
        "x-hint": "the name of a Vertex AI Tensorboard resource, projects/PROJECT/locations/"
                  "REGION/tensorboards/ID (the job's files go to baseOutputDirectory)"},
    # DISC: "Required. Google Cloud Storage URI to output directory."
    ("GcsDestination", "outputUriPrefix"): {
        "type": "string", "pattern": "^gs://[^/]+(/.*)?$(?!\\n)",
        "x-hint": "a Cloud Storage URI such as gs://BUCKET/PATH"},
    # DISC: "The name can be up to 128 characters long and can consist of any UTF-8 characters"
    ("CustomJob", "displayName"): {"type": "string", "minLength": 1, "maxLength": 128},
    ("HyperparameterTuningJob", "displayName"): {"type": "string", "minLength": 1,
                                                 "maxLength": 128},
}
_MARKERS = re.compile(r"^((Required|Optional|Immutable|Output only)\.\s*)+")
_SENTENCE = re.compile(r"(.+?\.)(\s|$)", re.DOTALL)


def discovery() -> dict[str, Any]:
    from googleapiclient.discovery_cache import get_static_doc

    text = get_static_doc("aiplatform", "v1")
    if text is None:
        sys.exit("google-api-python-client ships no aiplatform v1 discovery document")
    return json.loads(text)


def short(name: str) -> str:
    return name.removeprefix(PREFIX)


def summary(text: str | None) -> str | None:
    """The first sentence of a description, without its Required./Optional. markers."""
    if not text:
        return None
    text = _MARKERS.sub("", " ".join(text.split()))
    found = _SENTENCE.match(text)
    return (found.group(1) if found else text)[:300] or None


def field(prop: dict[str, Any], refs: list[str]) -> dict[str, Any]:
    """The JSON Schema of one field of the document (``refs`` collects the messages named)."""
    if "$ref" in prop:
        refs.append(prop["$ref"])
        return {"$ref": f"#/$defs/{short(prop['$ref'])}"}
    kind, fmt = prop.get("type"), prop.get("format")
    if kind == "array":
        return {"type": "array", "items": field(prop["items"], refs)}
    if kind == "object":
        return {"type": "object", "additionalProperties": field(
            prop.get("additionalProperties", {"type": "string"}), refs)}
    if kind == "string" and "enum" in prop:
        return {"type": "string", "enum": prop["enum"]}
    common = {"int64": "int64", "uint64": "int64", "int32": "int32", "google-duration":
              "duration", "google-datetime": "timestamp"}.get(fmt or "")
    if common:
        return {"$ref": f"#/$defs/{common}"}
    if kind == "number":
        return {"$ref": "#/$defs/double"}
    return {"type": {"string": "string", "boolean": "boolean", "integer": "integer"}[kind]}


def message(name: str, schema: dict[str, Any], refs: list[str]) -> dict[str, Any]:
    """One message as an object schema (output-only fields listed, not accepted)."""
    properties: dict[str, Any] = {}
    required, output_only = [], []
    for key, prop in schema.get("properties", {}).items():
        if prop.get("readOnly"):
            output_only.append(key)
            continue
        out = OVERLAYS.get((short(name), key)) or field(prop, refs)
        text = summary(prop.get("description"))
        text = out.get("description", text)  # an overlay's own description says more
        properties[key] = {**out, "description": text} if text else out
        if (prop.get("description") or "").startswith("Required."):
            required.append(key)
    out: dict[str, Any] = {"type": "object"}
    text = summary(schema.get("description"))
    if text:
        out["description"] = text
    out["additionalProperties"] = False
    out["properties"] = properties
    if required:
        out["required"] = required
    if output_only:
        out["x-output-only"] = output_only
    return out


def generate(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """File name -> schema, for every kind."""
    out = {}
    for name, (root, title, description) in KINDS.items():
        defs: dict[str, Any] = {}
        todo = [PREFIX + root]
        while todo:
            current = todo.pop(0)
            if short(current) in defs:
                continue
            refs: list[str] = []
            defs[short(current)] = message(current, doc["schemas"][current], refs)
            todo += refs
        used = json.dumps(defs)
        common = {k: v for k, v in COMMON.items() if f'"#/$defs/{k}"' in used}
        out[f"{name}.schema.json"] = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": f"urn:gpujob:schema:{name}:1",
            "title": title,
            "description": f"{description} Generated by scripts/vertex_schema.py from the "
                           f"aiplatform {doc['version']} discovery document (revision "
                           f"{doc['revision']}) bundled with google-api-python-client; do not "
                           "edit. Field reference: https://cloud.google.com/vertex-ai/docs/"
                           "reference/rest/v1/" + root,
            "$ref": f"#/$defs/{root}",
            "$defs": {**dict(sorted(defs.items())), **common},
        }
    return out


def text_of(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare with the shipped schemas instead of writing them")
    args = parser.parse_args(argv)
    stale = []
    for name, schema in generate(discovery()).items():
        path = OUT / name
        if args.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text_of(schema):
                stale.append(name)
        else:
            path.write_text(text_of(schema), encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)}")
    if stale:
        print(f"out of date: {', '.join(stale)} (run python scripts/vertex_schema.py)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
