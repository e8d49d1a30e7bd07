"""JSON Schema validation of a Job, reported as findings at the positions the user wrote.

A schema's quick check (``gpujob.checks.schema_accept``) says yes first; only a document it refuses
pays for jsonschema, whose errors ``gpujob.checks.schema_report`` rewrites into one finding per
problem.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from gpujob import numbers
from gpujob.checks.schema_report import SCHEMA_FILE, Reporter
from gpujob.config.document import Document
from gpujob.findings import Finding, JsonPath
from gpujob.resources import load_schema

if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from gpujob.tuples import NamedTuple

__all__ = ["SCHEMA_FILE", "Choices", "JobChecked", "check", "check_job", "position_key"]

# The names of the lists a schema takes from the catalog in use (``x-catalog``), with them
Choices = tuple[tuple[str, tuple[str, ...]], ...]


def _inline(node: Any, defs: dict[str, Any], choices: dict[str, tuple[str, ...]],
            expanding: frozenset[str] = frozenset()) -> Any:
    """The schema with every local ``$ref`` replaced by its target: jsonschema validates this
    about twice as fast as following references. A reference inside its own target (a
    recursive message, such as Vertex's conditional parameters) stays a reference
    (``expanding``: the targets being inlined). A field marked ``x-catalog: NAME`` becomes an
    enum of the catalog's list NAME (in place of its type and pattern, which the enum implies),
    so its mistakes read as any enum's, with a did-you-mean."""
    if isinstance(node, dict):
        name = node["$ref"].rsplit("/", 1)[-1] if "$ref" in node else None
        if name in expanding:
            return {k: v for k, v in node.items() if k != "$defs"}
        out = {k: _inline(v, defs, choices, expanding) for k, v in node.items()
               if k not in ("$ref", "$defs")}
        if name is not None:
            return {**_inline(defs[name], defs, choices, expanding | {name}), **out}
        listed = node.get("x-catalog")
        if listed in choices:
            out = {k: v for k, v in out.items() if k not in ("type", "pattern")}
            out["enum"] = list(choices[listed])
        return out
    if isinstance(node, list):
        return [_inline(v, defs, choices, expanding) for v in node]
    return node


@cache
def _inlined(name: str, choices: Choices) -> dict[str, Any]:
    """The schema that both validators read: references inlined, the catalog's lists in."""
    schema = load_schema(name)
    inlined = _inline(schema, schema["$defs"], dict(choices))
    inlined["$defs"] = schema["$defs"]  # for the references a recursive message keeps
    return inlined


@cache
def _accepts(name: str, choices: Choices) -> Any:
    """The quick yes (``gpujob.checks.schema_accept``), or None where it cannot answer for
    jsonschema."""
    from gpujob.checks.schema_accept import compile_schema

    return compile_schema(_inlined(name, choices))


@cache
def _validator(name: str, choices: Choices) -> Any:
    """Draft 2020-12 with gpujob's number rule (``gpujob.numbers``): ``integer`` means an int,
    not a float with an integral value (``100.0``, ``1e2``), and ``format: int64`` and
    ``int32`` are checked (a string of digits beyond its range is refused, not sent)."""
    from jsonschema import Draft202012Validator, FormatChecker, validators

    from gpujob.checks.schema_accept import is_int32, is_int64

    types = Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _checker, value: numbers.is_integer(value))
    formats = FormatChecker(formats=())
    formats.checks("int64")(is_int64)
    formats.checks("int32")(is_int32)
    strict = validators.extend(Draft202012Validator, type_checker=types)
    return strict(_inlined(name, choices), format_checker=formats)


def check(doc: Document, schema_name: str = SCHEMA_FILE, choices: Choices = ()) -> list[Finding]:
    """All problems of one document against a schema in ``schemas/`` (the Job schema unless
    named), in document order. ``choices``: the lists its ``x-catalog`` fields take, from the
    catalog in use (``Catalog.choices``); without them those fields are checked only for their
    type and pattern."""
    return sorted(_report(doc, schema_name, choices).findings, key=position_key)


class JobChecked(NamedTuple):
    findings: list[Finding]  # in document order
    stand_ins: dict[JsonPath, str]  # a clearly misspelt key's path -> the key it means


def check_job(doc: Document, choices: Choices = (),
              schema_name: str = SCHEMA_FILE) -> JobChecked:
    """``check`` of a job (an AI Platform Job unless ``schema_name`` names another schema, such
    as a native Vertex config's), with the unknown keys whose did-you-mean is clear: one key
    spelt close, and not set beside it (a misspelt key's value can stand in for it,
    ``gpujob.checks.typos``)."""
    reporter = _report(doc, schema_name, choices)
    return JobChecked(sorted(reporter.findings, key=position_key), reporter.stand_ins())


def _report(doc: Document, schema_name: str, choices: Choices) -> Reporter:
    """jsonschema's errors as findings; a document the quick check accepts has none, and
    costs no jsonschema (not even its import)."""
    reporter = Reporter(doc, schema_name)
    accepts = _accepts(schema_name, choices)
    if accepts is not None and accepts(doc.data):
        return reporter
    for err in _validator(schema_name, choices).iter_errors(doc.data):
        reporter.handle(err)
    return reporter


def position_key(finding: Finding) -> tuple[int, int]:
    loc = finding.location
    return (loc.line or 0, loc.column or 0) if loc else (0, 0)
