"""An AI Platform config read as ``gcloud ai-platform jobs submit training --config`` reads it.

gcloud turns the file into the API's Job message with apitools (``encoding.DictToMessage``,
whose JSON decoder is protorpc's ``protojson``), and that decoder:

- leaves out a key whose value is null (``message.reset(key)``): ``discreteValues:`` with
  nothing after it sets no field, so the request has no such key;
- reads an integer or a string into a double field as a float (``float(value)``): ``'0.001'``
  is sent as the number 0.001, and a YAML boolean, a Python int, as 0.0 or 1.0
  (``discreteValues: [False, True]`` is sent as ``[0.0, 1.0]``);
- reads a string of digits into an int32 field (``maxTrials: '10'``) with ``int(value)``: it
  is sent as the number 10.

gpujob does the same, so the config is judged on what is sent, and says at each value what it
did (a note for a null, a warning for a boolean: the trainer is passed ``0.0``, not ``False``).
"""

from __future__ import annotations

import re
from typing import Any

from gpujob import numbers
from gpujob.config.document import Document
from gpujob.findings import Finding, JsonPath, format_path

NULL_RULE = "load.null"
RANGE_RULE = "load.number-range"
BOOLEAN_RULE = "load.boolean-number"
# a HyperparameterSpec's int32 counts, with their least values (the Job schema's)
_INT32S = {"maxTrials": 1, "maxParallelTrials": 1, "maxFailedTrials": 0}
_DOUBLES = ("minValue", "maxValue")  # a ParameterSpec's double fields; discreteValues' items
_INTEGER = re.compile(r"-?[0-9]+\Z")


def read(doc: Document) -> list[Finding]:
    """Rewrite ``doc`` (in place, with its origins) as gcloud sends it; a finding at each value
    changed."""
    findings = _drop_nulls(doc) + _numbers_in_doubles(doc)
    _trial_counts(doc)
    return findings


def _drop_nulls(doc: Document) -> list[Finding]:
    found: list[JsonPath] = []
    _walk(doc.data, (), found)
    notes = []
    for path in found:
        where = doc.locate(path, key=True)
        doc.forget(path)
        notes.append(Finding("note", NULL_RULE, f"{path[-1]} is empty (null): it is not sent, "
                             "as gcloud leaves an empty value out", path, where,
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


def _numbers_in_doubles(doc: Document) -> list[Finding]:
    ti = doc.data.get("trainingInput")
    hp = ti.get("hyperparameters") if isinstance(ti, dict) else None
    params = hp.get("params") if isinstance(hp, dict) else None
    if not isinstance(params, list):
        return []
    out = []
    for i, param in enumerate(params):
        if not isinstance(param, dict):
            continue
        here: JsonPath = ("trainingInput", "hyperparameters", "params", i)
        slots: list[tuple[Any, Any, JsonPath]] = [(param, k, (*here, k)) for k in _DOUBLES]
        values = param.get("discreteValues")
        if isinstance(values, list):
            slots += [(values, j, (*here, "discreteValues", j)) for j in range(len(values))]
        for holder, key, path in slots:
            value = holder.get(key) if isinstance(holder, dict) else holder[key]
            number = numbers.decimal(value) if isinstance(value, str) else None
            if number is not None:
                whole = param.get("type") != "INTEGER" or _INTEGER.match(str(value))
                if whole or key not in _DOUBLES:  # else the schema shows the text: '5.5'
                    holder[key] = number  # as gcloud sends it: the number, silently
                continue
            if isinstance(value, str) and numbers.is_decimal_text(value):  # '1e999'
                out.append(beyond_a_double(value, path, doc.locate(path)))
                continue
            if not isinstance(value, bool):
                continue
            holder[key] = number = float(value)
            written = doc.texts.get(path, str(value).lower())
            name = param.get("parameterName")
            flag = f"--{name}" if isinstance(name, str) else "the parameter's flag"
            out.append(Finding(
                "warning", BOOLEAN_RULE, f"{written} is sent as the number {number} (gcloud "
                f"reads a boolean in a number field as 0 or 1): the trainer's {flag} gets that "
                f"number, not {written}", path, doc.locate(path),
                "to pass true/false, make the parameter CATEGORICAL with categoricalValues "
                "['False', 'True']; else write the numbers 0 and 1"))
    return out


def _trial_counts(doc: Document) -> None:
    """The tuning job's int32 counts written as strings of digits, as numbers (silently, as
    gcloud sends them); text that is no such count is left for the schema to report."""
    ti = doc.data.get("trainingInput")
    hp = ti.get("hyperparameters") if isinstance(ti, dict) else None
    if not isinstance(hp, dict):
        return
    for key, least in _INT32S.items():
        value = hp.get(key)
        if isinstance(value, str) and numbers.is_count_text(value) \
                and least <= int(value) <= numbers.INT32_MAX:
            hp[key] = int(value)


def beyond_a_double(text: str, path: JsonPath, where: Any) -> Finding:
    """A number written in a string that no double holds (``'1e999'``): gcloud would send
    Infinity, which the API refuses."""
    return Finding("error", RANGE_RULE, f"{numbers.shown(text)} is beyond the range of a "
                   "double (about ±1.8e308)", path, where,
                   "a double holds at most about 1.8e308: write a smaller number")
