"""Plain data from PyYAML's event stream, with the position of every value: the builder behind
``gpujob.config.load`` (see there for what it guarantees), and the parser it reads events from.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

import yaml
from yaml.parser import Parser as _PyParser
from yaml.reader import Reader as _Reader
from yaml.scanner import Scanner as _Scanner

from gpujob import numbers
from gpujob.findings import Finding, JsonPath, Location, error

if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from gpujob.tuples import NamedTuple


class PyParser(_Reader, _Scanner, _PyParser):
    """PyYAML's pure-Python parser: no nesting limit of its own (see ``load.parse_text``)."""

    def __init__(self, stream: str) -> None:
        _Reader.__init__(self, stream)
        _Scanner.__init__(self)
        _PyParser.__init__(self)


Parser: type[PyParser] | type[_CParser]
try:  # libyaml's parser: about ten times faster than the pure-Python one
    from yaml._yaml import CParser as _CParser

    Parser = _CParser
    READER_COUNTS_BYTES = True  # its reader errors give a UTF-8 byte offset
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    READER_COUNTS_BYTES = False  # a character offset
    Parser = PyParser


MAX_DEPTH = 32
MAX_ALIAS_VALUES = 10_000

_TAG = "tag:yaml.org,2002:"
# what a value of each tag a scalar may have (!!int 5) must be
_TAGGED: dict[str, Any] = {
    "int": int, "float": (int, float), "bool": bool, "null": type(None)}
_NULL = re.compile(r"(?:~|null|Null|NULL|)\Z")
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INT = re.compile(r"[-+]?[0-9]+\Z")
_INT_OCT = re.compile(r"0o[0-7]+\Z")
_INT_HEX = re.compile(r"0x[0-9a-fA-F]+\Z")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?\Z")
_FLOAT_SPECIAL = re.compile(r"[-+]?\.(?:inf|Inf|INF)\Z|\.(?:nan|NaN|NAN)\Z")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _show_tag(tag: str) -> str:
    return "!!" + tag[len(_TAG):] if tag.startswith(_TAG) else tag


class Fatal(Exception):
    """Stops loading one file; carries the finding that says why."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.message)
        self.finding = finding


# Plain classes and tuples rather than dataclasses on this path: creating a dataclass costs
# about a millisecond at import, and ``gpujob validate`` is measured on its start-up time.

class _Collection:
    """A mapping or sequence being built."""

    __slots__ = ("anchor", "key", "key_location", "location", "merge_next", "merges", "path",
                 "start", "value", "written")

    def __init__(self, path: JsonPath, value: Any, anchor: str | None, start: int,
                 location: Location) -> None:
        self.path = path
        self.value = value
        self.anchor = anchor
        self.start = start  # index into the builder's origin log where this one's entries begin
        self.location = location
        self.key: str | None = None  # mappings: the key waiting for its value
        self.key_location: Location | None = None
        self.merge_next = False  # mappings: the pending key is the ``<<`` merge key
        self.merges: list[tuple[Any, Location]] = []
        self.written: dict[str, Location] = {}  # keys written in this mapping


class _Anchor(NamedTuple):
    value: Any
    path: JsonPath
    origins: list[tuple[bool, JsonPath, Location]]
    size: int


def _count(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + sum(_count(v) for v in value.values())
    if isinstance(value, list):
        return 1 + sum(_count(v) for v in value)
    return 1


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


class Builder:
    """Turns one stream of parser events into plain data and origin tables."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.stack: list[_Collection] = []
        self.anchors: dict[str, _Anchor] = {}
        self.open_anchors: set[str] = set()
        # (is_key, path, location) in document order; anchors slice it to copy origins for aliases
        self.origins: list[tuple[bool, JsonPath, Location]] = []
        self.findings: list[Finding] = []
        self.texts: dict[JsonPath, str] = {}  # plain scalars that did not resolve to strings
        self.alias_values = 0
        self.root: Any = None
        self.documents = 0

    # -- helpers -------------------------------------------------------------------------------

    def loc(self, mark: Any) -> Location:
        return Location(self.source, mark.line + 1, mark.column + 1)

    def fatal(self, rule: str, message: str, mark: Any, hint: str | None = None) -> Fatal:
        path = self.stack[-1].path if self.stack else ()
        return Fatal(error(rule, message, path, self.loc(mark) if mark else None, hint))

    def child_path(self) -> JsonPath:
        if not self.stack:
            return ()
        top = self.stack[-1]
        if isinstance(top.value, list):
            return (*top.path, len(top.value))
        return (*top.path, top.key if top.key is not None else "<<")

    def expecting_key(self) -> bool:
        top = self.stack[-1] if self.stack else None
        return top is not None and isinstance(top.value, dict) and top.key is None

    # -- values --------------------------------------------------------------------------------

    def scalar(self, event: Any) -> Any:
        tag, text = event.tag, event.value
        loc = self.loc(event.start_mark)
        if tag in (None, "!"):
            if tag == "!" or event.style not in (None, ""):
                return text
            return self.resolve_plain(text, loc)
        if not tag.startswith(_TAG):
            raise self.fatal("load.tag", f"tag {tag} is not allowed", event.start_mark,
                             "gpujob reads plain YAML data; remove the tag")
        kind = tag[len(_TAG):]
        if kind == "str":
            return text
        found = len(self.findings)
        value = self.resolve_plain(text, loc)
        if len(self.findings) > found:  # a number too large or not finite: that finding says so
            return value
        wanted = _TAGGED.get(kind)
        if wanted is None:
            raise self.fatal("load.tag", f"tag !!{kind} is not allowed", event.start_mark,
                             "only !!str, !!int, !!float, !!bool and !!null may tag a scalar")
        if (isinstance(value, bool) and kind != "bool") or not isinstance(value, wanted):
            raise self.fatal("load.tag", f"{text!r} is not a valid !!{kind}", event.start_mark)
        return float(value) if kind == "float" else value

    def resolve_plain(self, text: str, loc: Location) -> Any:
        """YAML 1.2 core schema resolution of a plain scalar."""
        if _NULL.match(text):
            return None
        if text in _BOOL:
            return _BOOL[text]
        if _INT.match(text):
            return self.whole(text, text, 10, loc)
        if _INT_OCT.match(text):
            return self.whole(text, text[2:], 8, loc)
        if _INT_HEX.match(text):
            return self.whole(text, text[2:], 16, loc)
        if _FLOAT.match(text) or _FLOAT_SPECIAL.match(text):
            value = float(text.replace(".inf", "inf").replace(".Inf", "inf").replace(".INF", "inf")
                          .replace(".nan", "nan").replace(".NaN", "nan").replace(".NAN", "nan"))
            if not math.isfinite(value):
                self.findings.append(error(
                    "load.number", f"{numbers.shown(text)} is not a finite number",
                    self.child_path(), loc,
                    "JSON, and so the API, cannot carry infinity or NaN; write a number or a "
                    "quoted string"))
            return value
        return text

    def whole(self, text: str, digits: str, base: int, loc: Location) -> int | str:
        """An integer's value; its text where it is too long to be one (with a finding)."""
        try:
            return numbers.whole(digits, base)
        except numbers.NumberError as exc:
            self.findings.append(error(
                "load.number", str(exc), self.child_path(), loc,
                f"no field of a Job holds a number this long; counts are int64, at most "
                f"{numbers.INT64_MAX}"))
            return text

    def add(self, value: Any, loc: Location) -> JsonPath:
        """Attach a finished value at the current position; returns its path."""
        path = self.child_path()
        if not self.stack:
            self.root = value
            self.origins.append((False, path, loc))
            return path
        top = self.stack[-1]
        if isinstance(top.value, list):
            top.value.append(value)
        elif top.merge_next:
            top.merges.append((value, loc))
            top.merge_next = False
            top.key = None
            return path
        else:
            key = top.key
            assert key is not None and top.key_location is not None
            if key in top.written:
                first = top.written[key]
                self.findings.append(error(
                    "load.duplicate-key",
                    f"duplicate key {key!r} (first written at line {first.line}, again at line "
                    f"{top.key_location.line})",
                    path, top.key_location,
                    "a key may appear once per mapping; keep one and delete the other"))
            else:
                top.written[key] = top.key_location
                top.value[key] = value
                self.origins.append((True, path, top.key_location))
            top.key = None
        self.origins.append((False, path, loc))
        return path

    def key(self, event: Any) -> None:
        top = self.stack[-1]
        if event.tag not in (None, "!", _TAG + "str"):
            raise self.fatal("load.key", f"mapping key {event.value!r} has tag "
                             f"{_show_tag(event.tag)}",
                             event.start_mark, "keys are plain strings")
        plain = event.tag is None and event.style in (None, "")
        top.key_location = self.loc(event.start_mark)
        if plain and event.value == "<<":
            top.merge_next = True
            top.key = "<<"
        else:
            top.key = event.value

    # -- collections ---------------------------------------------------------------------------

    def open(self, event: Any, value: Any) -> None:
        if self.expecting_key():
            raise self.fatal("load.key", "a mapping key must be a string, not a collection",
                             event.start_mark, "write the key as a plain string")
        standard = (None, "!", _TAG + ("map" if isinstance(value, dict) else "seq"))
        if event.tag not in standard:
            raise self.fatal("load.tag", f"tag {_show_tag(event.tag)} is not allowed",
                             event.start_mark,
                             "gpujob reads plain YAML data; remove the tag")
        if len(self.stack) >= MAX_DEPTH:
            # name only where the nesting starts: the full path would be MAX_DEPTH segments long
            raise Fatal(error("load.depth-limit", f"nesting is deeper than {MAX_DEPTH} levels",
                               self.stack[min(2, len(self.stack) - 1)].path,
                               self.loc(event.start_mark),
                               "a Job config nests a handful of levels; this file is not one"))
        if event.anchor:
            self.open_anchors.add(event.anchor)
        self.stack.append(_Collection(self.child_path(), value, event.anchor, len(self.origins),
                                      self.loc(event.start_mark)))

    def close(self) -> None:
        top = self.stack.pop()
        if top.merges:
            self.apply_merges(top)
        path = self.add(top.value, top.location)
        if top.anchor:
            self.open_anchors.discard(top.anchor)
            self.remember(top.anchor, top.value, path, top.start)

    def apply_merges(self, mapping: _Collection) -> None:
        """YAML merge keys (``<<: *defaults``): merged entries never override written ones."""
        for value, loc in mapping.merges:
            sources = value if isinstance(value, list) else [value]
            for source in sources:
                if not isinstance(source, dict):
                    self.findings.append(error(
                        "load.merge", "a merge key (<<) takes a mapping or a list of mappings",
                        mapping.path, loc))
                    continue
                for k, v in source.items():
                    if k not in mapping.value:
                        mapping.value[k] = v
                        self.origins.append((True, (*mapping.path, k), loc))
                        self.origins.append((False, (*mapping.path, k), loc))

    def remember(self, anchor: str, value: Any, path: JsonPath, start: int) -> None:
        self.anchors[anchor] = _Anchor(value, path, self.origins[start:], _count(value))

    def alias(self, event: Any) -> None:
        name = event.anchor
        if name in self.open_anchors:
            raise self.fatal("load.alias", f"alias *{name} refers to a node that contains it",
                             event.start_mark, "recursive structures cannot be sent as JSON")
        anchor = self.anchors.get(name)
        if anchor is None:  # pragma: no cover - the parser rejects unknown aliases first
            raise self.fatal("load.alias", f"unknown alias *{name}", event.start_mark)
        self.alias_values += anchor.size
        if self.alias_values > MAX_ALIAS_VALUES:
            raise self.fatal("load.alias-limit",
                             f"aliases expand to more than {MAX_ALIAS_VALUES} values",
                             event.start_mark,
                             "this looks like an alias bomb; write the values out instead")
        if self.expecting_key():
            raise self.fatal("load.key", "an alias cannot be a mapping key", event.start_mark)
        loc = self.loc(event.start_mark)
        top = self.stack[-1] if self.stack else None
        merging = top is not None and top.merge_next
        path = self.add(_copy(anchor.value), loc)
        if merging:
            return
        n = len(anchor.path)
        for is_key, p, where in anchor.origins:
            if p[:n] == anchor.path and p != anchor.path:
                self.origins.append((is_key, path + p[n:], where))

    # -- driver --------------------------------------------------------------------------------

    def paired(self, event: Any) -> str:
        """A scalar's text with JSON's surrogate-pair escapes (``\\ud83d\\ude00``, which only the
        pure-Python parser passes on) joined into the character they stand for."""
        try:
            return event.value.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
        except UnicodeDecodeError:
            lone = _SURROGATE.search(event.value)
            code = ord(lone.group()) if lone else 0
            raise Fatal(error(
                "load.encoding",
                f"the escape \\u{code:04x} is half of a UTF-16 surrogate pair, without the other",
                self.child_path(), self.loc(event.start_mark),
                "write the character itself, or both halves of the pair")) from None

    def feed(self, event: Any) -> None:
        if isinstance(event, yaml.ScalarEvent):
            if _SURROGATE.search(event.value):
                event.value = self.paired(event)
            if event.anchor:
                value = self.scalar(event)
                if self.expecting_key():
                    raise self.fatal("load.key", "anchored mapping keys are not supported",
                                     event.start_mark)
                path = self.add(value, self.loc(event.start_mark))
                self.anchors[event.anchor] = _Anchor(value, path, [], 1)
            elif self.expecting_key():
                self.key(event)
            else:
                value = self.scalar(event)
                path = self.add(value, self.loc(event.start_mark))
                if not isinstance(value, str):
                    self.texts[path] = event.value
        elif isinstance(event, yaml.MappingStartEvent):
            self.open(event, {})
        elif isinstance(event, yaml.SequenceStartEvent):
            self.open(event, [])
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            self.close()
        elif isinstance(event, yaml.AliasEvent):
            self.alias(event)
        elif isinstance(event, yaml.DocumentStartEvent):
            self.documents += 1
            if self.documents > 1:
                raise self.fatal("load.multiple-documents",
                                 "the file holds more than one YAML document", event.start_mark,
                                 "gpujob reads one Job per file; split the documents into files")
