"""The ``filter`` of Vertex AI's ``list`` methods, as the aiplatform v1 discovery document
describes it (AIP-160 syntax):

- ``display_name`` (also ``displayName``): ``=``, ``!=``, and ``:`` with ``*`` wildcards;
- ``state``: ``=``, ``!=``, a JobState value (``JOB_STATE_RUNNING``);
- ``create_time`` (also ``createTime``): ``= != < <= > >=``, an RFC 3339 timestamp;
- ``labels.KEY``: ``=``/``!=`` a value (``labels.team=vision`` or ``labels.team="vision"``),
  ``labels.KEY:*`` (the label is set);
- combined with ``AND``, ``OR``, ``NOT`` and parentheses; as in AIP-160, ``OR``
  binds tighter than ``AND`` (terms side by side without ``AND`` are refused here).

Values may be quoted (``"..."``, with ``\\"`` escapes) or bare. Anything else is ``Invalid``
(400 INVALID_ARGUMENT), so a client that sends a filter the service would not take notices.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from fakes.times import parse_time

Predicate = Callable[[dict[str, Any]], bool]
_TOKEN = re.compile(r'\s*(\(|\)|!=|<=|>=|=|<|>|:|"(?:[^"\\]|\\.)*"|[^\s()=!<>:"]+)')
_FIELDS = {"display_name": "displayName", "displayName": "displayName", "state": "state",
           "create_time": "createTime", "createTime": "createTime"}
_OPS = {"displayName": {"=", "!=", ":"}, "state": {"=", "!="},
        "createTime": {"=", "!=", "<", "<=", ">", ">="}, "labels": {"=", "!=", ":"}}


class Invalid(ValueError):
    """A filter the service would refuse; the message says why."""


def _tokens(text: str) -> list[str]:
    found, at = [], 0
    while at < len(text.rstrip()):
        match = _TOKEN.match(text, at)
        if not match:
            raise Invalid(f"cannot parse the filter at {text[at:]!r}")
        found.append(match.group(1))
        at = match.end()
    return found


def _unquote(token: str) -> str:
    if token.startswith('"'):
        return re.sub(r"\\(.)", r"\1", token[1:-1])
    return token


def _glob(pattern: str) -> re.Pattern[str]:
    return re.compile(".*".join(re.escape(part) for part in pattern.split("*")), re.DOTALL)


class _Parser:
    def __init__(self, text: str, states: list[str]) -> None:
        self.tokens, self.at, self.states = _tokens(text), 0, states

    def peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self) -> str:
        token = self.peek()
        if token is None:
            raise Invalid("the filter ends too early")
        self.at += 1
        return token

    def parse(self) -> Predicate:
        if not self.tokens:
            return lambda job: True
        predicate = self.conjunction()
        if self.peek() is not None:
            raise Invalid(f"unexpected {self.peek()!r} in the filter")
        return predicate

    def conjunction(self) -> Predicate:
        parts = [self.disjunction()]
        while self.peek() == "AND":
            self.take()
            parts.append(self.disjunction())
        return lambda job: all(p(job) for p in parts)

    def disjunction(self) -> Predicate:
        parts = [self.factor()]
        while self.peek() == "OR":
            self.take()
            parts.append(self.factor())
        return lambda job: any(p(job) for p in parts)

    def factor(self) -> Predicate:
        if self.peek() == "NOT":
            self.take()
            inner = self.factor()
            return lambda job: not inner(job)
        if self.peek() == "(":
            self.take()
            inner = self.conjunction()
            if self.take() != ")":
                raise Invalid("unbalanced parentheses in the filter")
            return inner
        return self.comparison()

    def comparison(self) -> Predicate:
        name, op, raw = self.take(), self.take(), self.take()
        if raw in ("(", ")", "AND", "OR", "NOT") or op not in {"=", "!=", "<", "<=", ">", ">=",
                                                                ":"}:
            raise Invalid(f"expected FIELD OPERATOR VALUE, got {name} {op} {raw}")
        label = re.fullmatch(r"labels\.(.+)", name)
        field = "labels" if label else _FIELDS.get(name)
        if field is None:
            raise Invalid(f"unsupported field {name!r} in the filter")
        if op not in _OPS[field]:
            raise Invalid(f"operator {op} is not supported for {name}")
        value = _unquote(raw)
        if label:
            return self.label(_unquote(label[1]), op, value, raw)
        if field == "state" and value not in self.states:
            raise Invalid(f"invalid state {value!r}")
        if field == "createTime":
            return self.time(op, value)
        want = _glob(value) if op == ":" else None
        positive = op != "!="

        def compare(job: dict[str, Any]) -> bool:
            have = job.get(field, "")
            return bool(want.fullmatch(have)) if want else (have == value) == positive

        return compare

    @staticmethod
    def label(key: str, op: str, value: str, raw: str) -> Predicate:
        if op == ":":
            if raw != "*":
                raise Invalid(f"labels.{key} supports ':*' (existence) only")
            return lambda job: key in job.get("labels", {})
        positive = op == "="
        return lambda job: (job.get("labels", {}).get(key) == value) == positive

    @staticmethod
    def time(op: str, value: str) -> Predicate:
        want = parse_time(value)
        if want is None:
            raise Invalid(f"create_time must be an RFC 3339 timestamp, got {value!r}")
        compare = {"=": lambda a: a == want, "!=": lambda a: a != want,
                   "<": lambda a: a < want, "<=": lambda a: a <= want,
                   ">": lambda a: a > want, ">=": lambda a: a >= want}[op]
        return lambda job: compare(parse_time(job["createTime"]))


def compile_filter(text: str, states: list[str]) -> Predicate:
    """A predicate over stored jobs (as printed: camelCase keys), or ``Invalid``."""
    return _Parser(text, states).parse()
