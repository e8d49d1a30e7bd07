"""A quick yes for the documents a JSON Schema accepts, so that jsonschema runs only to explain.

Most configs checked in CI are valid, and jsonschema spends most of ``validate``'s time on them:
about 80 ms importing, then about 300 µs a Job, building a validator for each value it descends
into. ``compile_schema`` turns a schema into one plain function per subschema that answers
valid or not; ``gpujob.checks.schema`` asks it first and runs jsonschema only for a document it
refuses
(for the findings, with their did-you-means).

Its answers must be jsonschema's, or a problem would go unreported: it follows jsonschema's
Draft 2020-12 keyword by keyword (``equal`` as jsonschema compares ``enum`` and ``const``, each
keyword applying to its own types only), with gpujob's number rule (``gpujob.numbers``:
``integer`` is an int, ``format: int64`` and ``int32`` are checked). A schema with a keyword it
does not know is not compiled (None), and jsonschema checks every document, as before.
``tests/unit/checks/test_schema_accept.py`` holds it to jsonschema on generated documents.

fastjsonschema, the library that does this, was tried: from draft 6 on it takes ``1.0`` as an
integer, which gpujob refuses (a float is not sent where the API wants an int64), and it has no
way to change that.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gpujob import numbers

Check = Callable[[Any], bool]

# Keywords that say nothing about validity (annotations, and where definitions are kept).
_ANNOTATIONS = {"$schema", "$defs", "$comment", "title", "description", "default", "examples",
                "deprecated", "readOnly", "writeOnly"}
# Keywords compiled together with another one: additionalProperties with properties, then and
# else with if.
_WITH_OTHERS = {"additionalProperties", "then", "else"}


class Unsupported(Exception):
    """The schema uses something this module does not check as jsonschema does."""


def is_int64(value: Any) -> bool:
    """``format: int64``: a string must be digits within int64 (other types are not its
    concern)."""
    return not isinstance(value, str) or numbers.is_count_text(value)


def is_int32(value: Any) -> bool:
    """``format: int32``: a string must be digits (a sign allowed) within int32."""
    if not isinstance(value, str):
        return True
    digits = value[1:] if value.startswith("-") else value
    low, high = -numbers.INT32_MAX - 1, numbers.INT32_MAX
    return numbers.is_count_text(digits) and low <= int(value) <= high


def compile_schema(schema: Any) -> Check | None:
    """A function that tells whether jsonschema (Draft 2020-12, gpujob's number rule) finds no
    error in a document; None when the schema uses a keyword this module does not know."""
    try:
        return _Compiler(schema).compile(schema, root=True)
    except Unsupported:
        return None


def _is_number(value: Any) -> bool:
    # what numbers.Number is among the values YAML and JSON make (and without its import)
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_TYPES: dict[str, Check] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": numbers.is_integer,
    "number": _is_number,
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def _unbool(value: Any) -> Any:
    """True and False are not 1 and 0 to ``enum`` and ``const``."""
    return ("bool", value) if isinstance(value, bool) else value


def equal(one: Any, two: Any) -> bool:
    """Equality as jsonschema's ``enum`` and ``const`` read it."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return one == two
    if isinstance(one, Sequence) and isinstance(two, Sequence):
        return len(one) == len(two) and all(equal(a, b) for a, b in zip(one, two, strict=True))
    if isinstance(one, Mapping) and isinstance(two, Mapping):
        return (len(one) == len(two)
                and all(key in two and equal(value, two[key]) for key, value in one.items()))
    return _unbool(one) == _unbool(two)


def _all(checks: list[Check]) -> Check:
    if not checks:
        return lambda _value: True
    if len(checks) == 1:
        return checks[0]

    def every(value: Any) -> bool:
        for check in checks:  # noqa: SIM110 (all() over a generator costs more, per value)
            if not check(value):
                return False
        return True
    return every


class _Compiler:
    def __init__(self, root: Any) -> None:
        self.root = root
        self.refs: dict[str, Check] = {}

    def compile(self, schema: Any, root: bool = False) -> Check:
        if schema is True:
            return lambda _value: True
        if schema is False:
            return lambda _value: False
        if not isinstance(schema, dict):
            raise Unsupported(f"a schema that is a {type(schema).__name__}")
        checks: list[Check] = []
        for keyword, value in schema.items():
            if keyword in _ANNOTATIONS or keyword.startswith("x-") or keyword in _WITH_OTHERS:
                continue
            if keyword == "$id" and root:
                continue
            name = "ref" if keyword == "$ref" else keyword
            build = None if name.startswith("$") else getattr(self, "k_" + name, None)
            if build is None:
                raise Unsupported(keyword)
            checks.append(build(value, schema))
        if "additionalProperties" in schema and "properties" not in schema:
            checks.append(self.k_properties({}, schema))
        return _all(checks)  # then and else without if check nothing

    # --- applicators ---------------------------------------------------------------------

    def k_ref(self, ref: Any, _schema: dict) -> Check:
        if not isinstance(ref, str) or not ref.startswith("#/$defs/") or "~" in ref or "%" in ref:
            raise Unsupported(f"$ref {ref!r}")
        if ref not in self.refs:
            target = self.root.get("$defs", {}).get(ref[len("#/$defs/"):])
            if target is None:
                raise Unsupported(f"$ref {ref!r}")
            compiled: list[Check] = []
            self.refs[ref] = lambda value: compiled[0](value)  # a recursive schema's own ref
            compiled.append(self.compile(target))
        return self.refs[ref]

    def k_properties(self, properties: dict, schema: dict) -> Check:
        known = {key: self.compile(sub) for key, sub in properties.items()}
        extra = schema.get("additionalProperties", True)
        other = None if extra is True else self.compile(extra)

        def check(value: Any) -> bool:
            if not isinstance(value, dict):
                return True
            for key, item in value.items():
                sub = known.get(key, other)
                if sub is not None and not sub(item):
                    return False
            return True
        return check

    def k_items(self, items: Any, schema: dict) -> Check:
        if isinstance(items, list) or "prefixItems" in schema:
            raise Unsupported("items as a list, or prefixItems")
        sub = self.compile(items)
        return lambda value: not isinstance(value, list) or all(sub(item) for item in value)

    def k_propertyNames(self, names: Any, _schema: dict) -> Check:
        sub = self.compile(names)
        return lambda value: not isinstance(value, dict) or all(sub(key) for key in value)

    def k_allOf(self, schemas: list, _schema: dict) -> Check:
        return _all([self.compile(s) for s in schemas])

    def k_anyOf(self, schemas: list, _schema: dict) -> Check:
        subs = [self.compile(s) for s in schemas]
        return lambda value: any(sub(value) for sub in subs)

    def k_oneOf(self, schemas: list, _schema: dict) -> Check:
        subs = [self.compile(s) for s in schemas]
        return lambda value: sum(1 for sub in subs if sub(value)) == 1

    def k_not(self, negated: Any, _schema: dict) -> Check:
        sub = self.compile(negated)
        return lambda value: not sub(value)

    def k_if(self, condition: Any, schema: dict) -> Check:
        test = self.compile(condition)
        then = self.compile(schema.get("then", True))
        otherwise = self.compile(schema.get("else", True))
        return lambda value: then(value) if test(value) else otherwise(value)

    # --- assertions (each written as jsonschema tests for the error, so that NaN agrees) ----

    def k_type(self, types: Any, _schema: dict) -> Check:
        names = [types] if isinstance(types, str) else list(types)
        if any(name not in _TYPES for name in names):
            raise Unsupported(f"type {types!r}")
        if len(names) == 1:
            return _TYPES[names[0]]
        checks = [_TYPES[name] for name in names]
        return lambda value: any(check(value) for check in checks)

    def k_enum(self, values: list, _schema: dict) -> Check:
        if all(isinstance(v, str) for v in values):
            texts = frozenset(values)
            return lambda value: isinstance(value, str) and value in texts
        return lambda value: any(equal(v, value) for v in values)

    def k_const(self, const: Any, _schema: dict) -> Check:
        return lambda value: equal(value, const)

    def k_required(self, keys: list, _schema: dict) -> Check:
        return lambda value: not isinstance(value, dict) or all(key in value for key in keys)

    def k_pattern(self, pattern: str, _schema: dict) -> Check:
        compiled: list[Any] = []  # on first use: most of a schema's patterns meet no value

        def check(value: Any) -> bool:
            if not isinstance(value, str):
                return True
            if not compiled:
                compiled.append(re.compile(pattern).search)
            return compiled[0](value) is not None
        return check

    def k_format(self, name: Any, _schema: dict) -> Check:
        checks = {"int64": is_int64, "int32": is_int32}
        return checks.get(name, lambda _value: True)  # no checker: no check

    def k_minimum(self, bound: Any, _schema: dict) -> Check:
        return lambda value: not _is_number(value) or not value < bound

    def k_maximum(self, bound: Any, _schema: dict) -> Check:
        return lambda value: not _is_number(value) or not value > bound

    def k_exclusiveMinimum(self, bound: Any, _schema: dict) -> Check:
        return lambda value: not _is_number(value) or not value <= bound

    def k_exclusiveMaximum(self, bound: Any, _schema: dict) -> Check:
        return lambda value: not _is_number(value) or not value >= bound

    def k_minLength(self, bound: int, _schema: dict) -> Check:
        return lambda value: not isinstance(value, str) or len(value) >= bound

    def k_maxLength(self, bound: int, _schema: dict) -> Check:
        return lambda value: not isinstance(value, str) or len(value) <= bound

    def k_minItems(self, bound: int, _schema: dict) -> Check:
        return lambda value: not isinstance(value, list) or len(value) >= bound

    def k_maxItems(self, bound: int, _schema: dict) -> Check:
        return lambda value: not isinstance(value, list) or len(value) <= bound

    def k_minProperties(self, bound: int, _schema: dict) -> Check:
        return lambda value: not isinstance(value, dict) or len(value) >= bound

    def k_maxProperties(self, bound: int, _schema: dict) -> Check:
        return lambda value: not isinstance(value, dict) or len(value) <= bound
