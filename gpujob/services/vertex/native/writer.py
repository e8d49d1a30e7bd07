"""A native Vertex config as YAML text that gcloud, gpujob and any YAML reader read alike.

Keys keep the body's order; lists and mappings are written in block style (empty ones as ``[]``
and ``{}``); a string is written plain only when both YAML 1.1 (PyYAML, gcloud) and YAML 1.2
(gpujob's loader) read it back as that same string, else quoted: single quotes for printable
text, double quotes with escapes otherwise, so the file is valid UTF-8 whatever the values
hold. A comment can follow any value (``comments``: path -> text), and the file can start with
a header of comment lines.
"""

from __future__ import annotations

import math
import re
from typing import Any

from gpujob.findings import JsonPath

INDENT = "  "
# plain in both YAML versions: a letter first, then no space, no flow or comment indicator, and
# no ':' at the end (``gs://b/x`` is plain; ``a:`` would be a key)
_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9_./@+=:-]*(?<!:)\Z")
# the words YAML 1.1 reads as booleans or null (gpujob's YAML 1.2 loader reads fewer)
_WORDS = {"y", "n", "yes", "no", "true", "false", "on", "off", "null"}
# what may stand in single quotes: printable, and no line break of any YAML reader (libyaml
# breaks lines at U+0085, U+2028 and U+2029 too); U+FEFF is left to escapes
_QUOTABLE = re.compile("[\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd"
                       "\U00010000-\U0010ffff]*\\Z")
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}


def scalar(value: Any) -> str:
    """One value as YAML that reads back as the same value and type."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float(value)
    text = str(value)
    if _PLAIN.match(text) and text.lower() not in _WORDS:
        return text
    if _QUOTABLE.match(text):
        return "'" + text.replace("'", "''") + "'"
    return '"' + "".join(_escape(char) for char in text) + '"'


def _escape(char: str) -> str:
    if char in _ESCAPES:
        return _ESCAPES[char]
    if _QUOTABLE.match(char):
        return char
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 \
        else f"\\U{code:08x}"


def _float(value: float) -> str:
    """A float both YAML versions read as one: a '.' in the mantissa and a signed exponent
    (YAML 1.1 reads ``1e-05`` as a string)."""
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    mantissa, e, exponent = repr(value).partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    if not e:
        return mantissa
    return f"{mantissa}e{exponent if exponent[0] in '+-' else '+' + exponent}"


def comment(text: str) -> str:
    """Text fit for a comment: one line, printable (anything else escaped)."""
    return "".join(char if _QUOTABLE.match(char) else _escape(char) for char in text)


def dump(data: Any, comments: dict[JsonPath, str] | None = None,
         header: list[str] | None = None) -> str:
    """``data`` (a mapping) as a YAML document, with ``header`` as its first comment lines."""
    lines = [f"# {comment(line)}".rstrip() for line in header or []]
    lines += _node(data, (), 0, comments or {})
    return "\n".join(lines) + "\n"


def _is_block(value: Any) -> bool:
    return isinstance(value, (dict, list)) and bool(value)


def _flow(value: Any) -> str:
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    return scalar(value)


def _with(line: str, path: JsonPath, comments: dict[JsonPath, str]) -> str:
    text = comments.get(path)
    return f"{line}  # {comment(text)}" if text else line


def _node(value: Any, path: JsonPath, depth: int, comments: dict[JsonPath, str]) -> list[str]:
    """The lines of a non-empty mapping or list at ``depth``."""
    pad = INDENT * depth
    lines: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            here = (*path, key)
            head = f"{pad}{scalar(key)}:"
            if _is_block(item):
                lines.append(_with(head, here, comments))
                lines += _node(item, here, depth + 1, comments)
            else:
                lines.append(_with(f"{head} {_flow(item)}", here, comments))
        return lines
    for index, item in enumerate(value):
        here = (*path, index)
        if isinstance(item, dict) and item:
            if here in comments:
                lines.append(f"{pad}# {comment(comments[here])}")
            inner = _node(item, here, depth + 1, comments)
            inner[0] = f"{pad}- {inner[0][len(pad) + len(INDENT):]}"
            lines += inner
        elif _is_block(item):
            lines.append(_with(f"{pad}-", here, comments))
            lines += _node(item, here, depth + 1, comments)
        else:
            lines.append(_with(f"{pad}- {_flow(item)}", here, comments))
    return lines
