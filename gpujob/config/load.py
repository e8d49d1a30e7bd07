"""Safe loading of YAML and JSON configs, with the position of every value.

The document is built straight from PyYAML's event stream (libyaml's parser when present), never
through a constructor, so:

- no tag can run code: only the standard scalar, sequence and mapping tags are accepted;
- nesting depth, alias expansion and file size are bounded before any work grows with them;
- plain scalars resolve by YAML 1.2's core schema, as JSON and gcloud do: ``no``, ``on`` and
  ``1:30`` stay strings, ``2024-01-01`` is not turned into a date;
- duplicate keys are reported with both lines instead of the last one silently winning.

Problems are returned as findings; a fatal one (syntax, limits, encoding) stops loading that file.
"""

from __future__ import annotations

import os
import re
import sys
from typing import TYPE_CHECKING, Any

import yaml

from gpujob.config.document import Document
from gpujob.config.events import (
    MAX_ALIAS_VALUES,
    MAX_DEPTH,
    READER_COUNTS_BYTES,
    Builder,
    Fatal,
    Parser,
    PyParser,
)
from gpujob.findings import Finding, Location, error

if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from gpujob.tuples import NamedTuple

__all__ = ["MAX_ALIAS_VALUES", "MAX_BYTES", "MAX_DEPTH", "Fatal", "Loaded", "load_file", "loads",
           "parse_text"]

MAX_BYTES = 1024 * 1024



def _location_of_offset(text: bytes, offset: int, source: str) -> Location:
    line = text.count(b"\n", 0, offset) + 1
    start = text.rfind(b"\n", 0, offset) + 1
    column = len(text[start:offset].decode("utf-8", "replace")) + 1
    return Location(source, line, column)


def _decode(raw: bytes, source: str) -> str:
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise Fatal(error("load.encoding", "the file is encoded as UTF-16", (),
                           Location(source), "save it as UTF-8"))
    if b"\x00" in raw:
        raise Fatal(error("load.binary", "this is a binary file, not YAML or JSON text", (),
                           Location(source),
                           "pass the config file (a Job resource in YAML or JSON)"))
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        where = _location_of_offset(raw, exc.start, source)
        raise Fatal(error("load.encoding",
                           f"the file is not UTF-8 (byte 0x{raw[exc.start]:02x} cannot start a "
                           "character here)", (), where, "save the file as UTF-8")) from None


class Loaded(NamedTuple):
    """The result of loading one file: a document unless a fatal problem stopped it."""

    source: str
    document: Document | None
    findings: list[Finding]


def _syntax_error(exc: yaml.MarkedYAMLError, text: str, builder: Builder) -> Finding:
    mark = exc.problem_mark or exc.context_mark
    problem = exc.problem or "invalid YAML"
    hint = "fix the YAML syntax at this position"
    if exc.context:
        ctx = exc.context
        if exc.context_mark and exc.context_mark is not mark:
            ctx += (f" started at line {exc.context_mark.line + 1}, column "
                    f"{exc.context_mark.column + 1}")
        problem = f"{problem} ({ctx})"
    if mark is not None and text[mark.index:mark.index + 1] == "\t":
        problem = "a tab character where YAML allows only spaces"
        hint = "indent with spaces; YAML does not allow tabs for indentation"
    path = builder.stack[-1].path if builder.stack else ()
    where = builder.loc(mark) if mark else Location(builder.source)
    return error("load.syntax", f"YAML syntax error: {problem}", path, where, hint)


def _reader_error(exc: yaml.reader.ReaderError, text: str, builder: Builder) -> Finding:
    """``FILE:3:15: control character U+0007 is not allowed``: lines counted as editors count
    them (libyaml also breaks lines at U+0085 and U+2028)."""
    import unicodedata

    char = exc.character if isinstance(exc.character, int) else ord(exc.character[:1] or "?")
    raw = text.encode("utf-8", "surrogatepass")
    offset = exc.position if READER_COUNTS_BYTES else len(
        text[:exc.position].encode("utf-8", "surrogatepass"))
    where = _location_of_offset(raw, offset, builder.source)
    kind = "control character" if unicodedata.category(chr(char)) == "Cc" else "character"
    path = builder.stack[-1].path if builder.stack else ()
    return error("load.syntax", f"{kind} U+{char:04X} is not allowed in YAML", path, where,
                 "delete it (most editors do not show it), or write it as an escape such as "
                 f"\\u{char:04x} inside a double-quoted string")


def _parse(parser: Any, builder: Builder) -> tuple[Any, Builder]:
    """Feed one parser's events to the builder; parser errors propagate."""
    while True:
        event = parser.get_event()
        if event is None or isinstance(event, yaml.StreamEndEvent):
            return builder.root, builder
        builder.feed(event)


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _pure_python_may_differ(text: str, refused: yaml.MarkedYAMLError) -> bool:
    """Whether libyaml's refusal may be one the pure-Python parser does not share (see
    ``parse_text``): a surrogate escape in the text, or a refusal on a line that opens more
    collections than gpujob's limit. Other refusals are not read again: the pure-Python parser
    takes seconds over a large file."""
    if _SURROGATE_ESCAPE.search(text):
        return True
    mark = refused.problem_mark or refused.context_mark
    if mark is None:
        return False
    start = text.rfind("\n", 0, mark.index) + 1
    end = text.find("\n", mark.index)
    line = text[start:end if end >= 0 else len(text)]
    return line.count("[") + line.count("{") > MAX_DEPTH


def parse_text(text: str, source: str) -> tuple[Any, Builder]:
    """Parse YAML/JSON text into plain data; raises ``Fatal``. Used for files and ``--set``.

    Where libyaml refuses a text for a reason of its own, PyYAML's pure-Python parser reads it
    again, so that the answer does not depend on the PyYAML release installed: libyaml's nesting
    limit (1,000 levels in the libyaml of PyYAML 6.0.4's wheels) fired ahead of gpujob's, because
    its scanner reads up to 1,024 characters of a line ahead of the events gpujob sees; and
    libyaml refuses the surrogate-pair escapes (``"\\ud83d\\ude00"``) that valid JSON has for
    characters outside the BMP. The pure-Python parser has neither; where it refuses too,
    libyaml's message is reported.
    """
    builder = Builder(source)
    try:
        return _parse(Parser(text), builder)
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow anywhere
        raise Fatal(_reader_error(exc, text, builder)) from None
    except yaml.MarkedYAMLError as exc:
        refused = exc
    except yaml.YAMLError as exc:  # pragma: no cover - PyYAML raises only the two above
        message = " ".join(str(exc).split())
        raise Fatal(error("load.syntax", f"YAML error: {message}", (), Location(source))) from None
    if Parser is not PyParser and _pure_python_may_differ(text, refused):
        try:
            return _parse(PyParser(text), Builder(source))
        except yaml.YAMLError:
            pass
    raise Fatal(_syntax_error(refused, text, builder)) from None


def _too_large(size: int, source: str) -> Loaded:
    return Loaded(source, None, [error(
        "load.too-large", f"the file is over the {MAX_BYTES:,}-byte limit ({size:,} bytes)", (),
        Location(source), "a Job config is a few kilobytes; is this the right file?")])


def loads(raw: bytes, source: str) -> Loaded:
    """Load one config from bytes. Never raises for bad input: problems come back as findings."""
    if len(raw) > MAX_BYTES:
        return _too_large(len(raw), source)
    try:
        text = _decode(raw, source)
        data, builder = parse_text(text, source)
    except Fatal as fatal:
        return Loaded(source, None, [fatal.finding])
    findings = builder.findings
    if builder.documents == 0 or data is None:
        findings.append(error("load.empty", "the file is empty", (), Location(source, 1, 1),
                              "write a Job resource: a mapping with a trainingInput section"))
        return Loaded(source, None, findings)
    if not isinstance(data, dict):
        kind = "a list" if isinstance(data, list) else f"a single value ({data!r:.40})"
        findings.append(error("load.not-mapping", f"the top level is {kind}, not a mapping",
                              (), Location(source, 1, 1),
                              "write a Job resource: a mapping with a trainingInput section"))
        return Loaded(source, None, findings)
    doc = Document(source, data, texts=builder.texts)
    for is_key, path, where in builder.origins:
        (doc.keys if is_key else doc.values)[path] = where
    if "trainingInput" in data:  # an AI Platform config: read as gcloud reads it
        from gpujob.config import gcloud_form

        findings += gcloud_form.read(doc)
    return Loaded(source, doc, findings)


def load_file(path: str) -> Loaded:
    """Load a config from a path (``-`` reads standard input)."""
    if path == "-":
        raw = sys.stdin.buffer.read(MAX_BYTES + 1)
        return loads(raw, "<stdin>")
    try:
        size = os.stat(path).st_size
        if size > MAX_BYTES:  # refuse without reading it
            return _too_large(size, path)
        with open(path, "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
    except IsADirectoryError:
        return Loaded(path, None, [error("load.io", "is a directory", (), Location(path))])
    except OSError as exc:
        return Loaded(path, None, [error("load.io", f"cannot read the file: {exc.strerror}",
                                         (), Location(path))])
    return loads(raw, path)
