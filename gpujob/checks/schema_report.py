"""How jsonschema's errors read to a user: one finding per problem, at the position written.

An unknown key gets a did-you-mean (or where it belongs), an enum a close match, a number where
a string is expected the quoted text to write, a pattern the schema's ``x-hint``, a count its
range. ``gpujob.checks.schema`` runs the validation and hands each error to ``Reporter.handle``.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from typing import Any

from gpujob import numbers
from gpujob.config.document import Document
from gpujob.findings import MAX_OF_A_KIND, Finding, JsonPath, error
from gpujob.resources import load_schema
from gpujob.suggest import candidates, did_you_mean, or_list, same_name

SCHEMA_FILE = "job.schema.json"

# Job fields the service sets; a config copied from `describe` output carries them.
_OUTPUT_ONLY = {"createTime", "startTime", "endTime", "state", "errorMessage", "trainingOutput",
                "predictionOutput", "jobPosition", "etag"}


def _resolve(schema: dict[str, Any], name: str = SCHEMA_FILE) -> dict[str, Any]:
    ref = schema.get("$ref")
    if ref and ref.startswith("#/$defs/"):
        return load_schema(name)["$defs"][ref[len("#/$defs/"):]]
    return schema


@cache
def _schema_index(name: str) -> tuple[dict[str, list[str]], dict[str, str]]:
    """Every property name -> the paths that accept it (``--set`` syntax), and its description."""
    places: dict[str, list[str]] = {}
    docs: dict[str, str] = {}

    def walk(schema: dict[str, Any], path: str, seen: frozenset[str]) -> None:
        ref = schema.get("$ref")
        if ref in seen:
            return
        seen = seen | {ref} if ref else seen
        schema = _resolve(schema, name)
        for key, sub in schema.get("properties", {}).items():
            where = f"{path}.{key}" if path else key
            places.setdefault(key, []).append(where)
            text = sub.get("description") or _resolve(sub, name).get("description")
            if text:
                docs.setdefault(key, text)
            walk(sub, where, seen)
        items = schema.get("items")
        if isinstance(items, dict):
            walk(items, f"{path}[]", seen)

    walk(load_schema(name), "", frozenset())
    return places, docs


def _belongs_hint(key: str, places: list[str]) -> str:
    """``acceleratorConfig belongs under masterConfig, workerConfig, … (as in
    trainingInput.masterConfig.acceleratorConfig)``."""
    if len(places) == 1:
        return f"{key} belongs at {places[0]}"
    parents = [p.rsplit(".", 1)[0].rsplit(".", 1)[-1] for p in places]
    return f"{key} belongs under {', '.join(parents[:-1])} or {parents[-1]} (as in {places[0]})"


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, list):
        return "a list"
    return "a mapping"


def _noun(path: JsonPath, key: bool = False) -> str:
    """What the value at ``path`` is called in a message: ``region``, ``label value``,
    ``packageUris entry``."""
    if path[:1] == ("labels",) and len(path) == 2:
        return "label key" if key else "label value"
    if path and isinstance(path[-1], int):
        named = [k for k in path if isinstance(k, str)]
        return f"{named[-1]} entry" if named else "entry"
    return str(path[-1]) if path else "value"


# Patterns end in ``$(?!\n)``: the whole string must match, in Python (whose ``$`` also matches
# before a final newline, and jsonschema uses re.search) as in editors (ECMA-262, where ``\Z``
# would be a literal Z, or an error with the u flag). Messages show the plain ``$``.
_END = "$(?!\n)"


def _shown_pattern(pattern: str) -> str:
    return pattern[:-len(_END) + 1] if pattern.endswith(_END) else pattern


_TYPE_NAMES = {"string": "a string", "integer": "a whole number", "number": "a number",
               "boolean": "true or false", "array": "a list", "object": "a mapping"}


class Reporter:
    def __init__(self, doc: Document, schema_name: str) -> None:
        self.doc = doc
        self.schema_name = schema_name
        self.is_job = schema_name == SCHEMA_FILE
        self.findings: list[Finding] = []
        self.seen: set[tuple[str, JsonPath, str]] = set()
        self.meant: dict[JsonPath, str] = {}  # a misspelt key's path -> the key it clearly means

    def add(self, rule: str, path: JsonPath, message: str, hint: str | None = None, *,
            key: bool = False) -> None:
        marker = (rule, path, message)
        if marker in self.seen:
            return
        self.seen.add(marker)
        self.findings.append(error(rule, message, path, self.doc.locate(path, key=key), hint))

    def written(self, path: JsonPath, value: Any) -> str:
        """How the value appears in the file (``2.10``, not ``2.1``)."""
        return self.doc.texts.get(path) or (repr(value) if not isinstance(value, str) else value)

    # -- one handler per keyword ---------------------------------------------------------------

    def unknown_keys(self, path: JsonPath, err: Any) -> None:
        known = list(err.schema.get("properties", {}))
        unknown = [key for key in err.instance if key not in known]
        for n, key in enumerate(unknown):
            # hints are the costly part; the report shows MAX_OF_A_KIND of a kind per file
            hint = self.key_hint(path, key, known, err.instance, err.schema) \
                if n < MAX_OF_A_KIND else None
            self.add("schema.unknown-key", (*path, key), f"unknown key {key!r}", hint, key=True)

    def key_hint(self, path: JsonPath, key: str, known: list[str], mapping: dict,
                 node: dict[str, Any]) -> str | None:
        """``node``: the schema of ``mapping``; its ``x-output-only`` names the fields the
        service sets there (a config copied from ``describe`` carries them)."""
        if key in node.get("x-output-only", ()) or (
                self.is_job and path == () and key in _OUTPUT_ONLY):
            return f"{key} is set by the service (output only); remove it"
        if self.is_job and path == () and key == "predictionInput":
            return "gpujob submits training jobs; predictionInput belongs to prediction jobs"
        same = same_name(key, known)
        if same and same not in mapping:
            return self.did_you_mean(path, key, same)
        belongs = _schema_index(self.schema_name)[0].get(key, [])
        if self.is_job and path == () and f"trainingInput.{key}" in belongs:
            return f"{key} is a trainingInput field: indent it under trainingInput:"
        if belongs:
            return _belongs_hint(key, belongs)
        guesses = candidates(key, known)
        if len(guesses) == 1:
            if guesses[0] in mapping:
                return f"did you mean {guesses[0]!r}? (already set here)"
            return self.did_you_mean(path, key, guesses[0])
        if guesses:  # spelt alike, so no guess stands in
            return "did you mean " + or_list([f"{g!r}" + (" (already set here)" if g in mapping
                                                          else "") for g in guesses]) + "?"
        return f"valid keys here: {', '.join(known)}"

    def did_you_mean(self, path: JsonPath, key: str, meant: str) -> str:
        """The hint for a clear misspelling, noted so that its value can stand in for the key
        it means (``gpujob.checks.typos``)."""
        self.meant[(*path, key)] = meant
        return f"did you mean {meant!r}?"

    def stand_ins(self) -> dict[JsonPath, str]:
        """The clear misspellings, less those meaning a key that another one means too."""
        if not self.meant:
            return {}
        aims = Counter((p[:-1], meant) for p, meant in self.meant.items())
        return {p: meant for p, meant in self.meant.items() if aims[p[:-1], meant] == 1}

    def required(self, path: JsonPath, err: Any) -> None:
        for key in err.validator_value:
            if key in err.instance:
                continue
            hint = _schema_index(self.schema_name)[1].get(key)
            if self.is_job and path == () and key == "trainingInput":
                stray = [k for k in err.instance if f"trainingInput.{k}" in
                         _schema_index(self.schema_name)[0].get(k, [])]
                hint = ("the top level holds trainingInput's fields: indent them under a "
                        "trainingInput: key" if stray else
                        "a Job config is a mapping with a trainingInput section")
            self.add("schema.required", path, f"missing required key {key!r}", hint, key=True)

    def enum(self, path: JsonPath, err: Any) -> None:
        choices = [str(c) for c in err.validator_value]
        value = err.instance
        if not isinstance(value, str):
            self.add("schema.type", path,
                     f"{_noun(path)} must be one of {', '.join(choices)}; found "
                     f"{_describe(value)}", self.quote_hint(path, value))
            return
        guess = did_you_mean(value, choices)
        hint = f"did you mean {guess!r}?" if guess else f"valid values: {', '.join(choices)}"
        if err.schema.get("x-hint") and not guess:
            hint += f" ({err.schema['x-hint']})"
        self.add("schema.enum", path, f"{value!r} is not a valid {_noun(path)}", hint)

    def quote_hint(self, path: JsonPath, value: Any) -> str | None:
        if value is None:
            return "the value is empty; write one, or remove the key"
        if isinstance(value, (bool, int, float)):
            return f"quote it to make it a string: '{self.written(path, value)}'"
        return None

    def type(self, path: JsonPath, err: Any) -> None:
        wanted = err.validator_value
        names = " or ".join(_TYPE_NAMES.get(t, str(t)) for t in
                            (wanted if isinstance(wanted, list) else [wanted]))
        value = err.instance
        message = f"expected {names}, found {_describe(value)}"
        if isinstance(value, float) and path in self.doc.texts and \
                self.doc.texts[path] != repr(value):
            message += f" (written {self.doc.texts[path]})"
        hint = self.quote_hint(path, value) if "string" in str(wanted) else None
        if "integer" in str(wanted) and isinstance(value, float):
            hint = "write a whole number"
        if hint is None:
            hint = err.schema.get("x-hint")
        self.add("schema.type", path, message, hint)

    def pattern(self, path: JsonPath, err: Any, *, key: bool = False) -> None:
        self.add("schema.pattern", path, f"{err.instance!r} is not a valid {_noun(path, key)}",
                 err.schema.get("x-hint") or f"it must match {_shown_pattern(err.validator_value)}",
                 key=key)

    def any_of(self, path: JsonPath, err: Any) -> None:
        # int64, int32 fields and counts: an integer, or a string of digits (gpujob.numbers);
        # a double: a number, or one written in a string
        value = err.instance
        kinds = {s.get("type") for s in err.validator_value}
        if "number" in kinds:  # a double: a number, or a string holding one (proto3 JSON)
            self.add("schema.type", path, f"expected a number, found {_describe(value)}",
                     "write a number such as 0.01 (a string holding one, such as '0.01', "
                     "works too)")
            return
        if not any("format" in s for s in err.validator_value):  # a whole number, not int64
            self.add("schema.type", path, f"expected a whole number, found {_describe(value)}",
                     "write a whole number such as 4 (a string of digits such as '4' works "
                     "too)")
            return
        minimum = min((s.get("minimum", 0) for s in err.validator_value if "minimum" in s),
                      default=0)
        maximum = max((s["maximum"] for s in err.validator_value if "maximum" in s),
                      default=numbers.INT64_MAX)
        size = "int64" if maximum == numbers.INT64_MAX else "int32"
        if (numbers.is_integer(value) and value > maximum) or \
                (isinstance(value, str) and numbers.is_digits(value)
                 and not (numbers.is_count_text(value) and int(value) <= maximum)):
            self.add("schema.range", path,
                     f"{numbers.shown(self.written(path, value))} is more than the maximum, "
                     f"{maximum}", f"the API holds this field as an {size}")
            return
        message = (f"expected a whole number of at least {minimum}, found {_describe(value)}"
                   if minimum >= 0 else f"expected a whole number, found {_describe(value)}")
        hint = "write a number such as 4 (a string of digits such as '4' works too)"
        if isinstance(value, float) and value.is_integer() and minimum <= value <= 2**53:
            written = self.doc.texts.get(path, "")
            if written not in ("", repr(value), str(int(value))):
                message += f" (written {written})"
            hint = (f"write {int(value)}: a count is a whole number, without a decimal point, an "
                    "exponent or a !!float tag")
        self.add("schema.type", path, message, hint)

    def bound(self, path: JsonPath, err: Any) -> None:
        kw, limit, value = err.validator, err.validator_value, err.instance
        text = {
            "minimum": f"{self.written(path, value)} is less than the minimum, {limit}",
            "maximum": f"{self.written(path, value)} is more than the maximum, {limit}",
            "minLength": "must not be empty",
            "minItems": f"needs at least {limit} item{'s' if limit != 1 else ''}",
            "maxItems": f"has {len(value) if isinstance(value, list) else '?'} items; at most "
                        f"{limit} are allowed",
            "maxProperties": f"has {len(value) if isinstance(value, dict) else '?'} entries; at "
                             f"most {limit} are allowed",
        }.get(kw, err.message)
        self.add(f"schema.{'range' if kw in ('minimum', 'maximum') else 'size'}", path, text)

    def handle(self, err: Any) -> None:
        path: JsonPath = tuple(err.absolute_path)
        kw = err.validator
        if "propertyNames" in err.relative_schema_path:
            self.pattern((*path, err.instance), err, key=True)
        elif kw == "additionalProperties":
            self.unknown_keys(path, err)
        elif kw == "required":
            self.required(path, err)
        elif kw == "enum":
            self.enum(path, err)
        elif kw == "type":
            self.type(path, err)
        elif kw == "pattern":
            self.pattern(path, err)
        elif kw == "anyOf":
            self.any_of(path, err)
        elif kw in ("minimum", "maximum", "minLength", "minItems", "maxItems", "maxProperties"):
            self.bound(path, err)
        else:  # const, uniqueItems, … (the catalog schema): jsonschema's own message
            self.add(f"schema.{kw}", path, err.message)
