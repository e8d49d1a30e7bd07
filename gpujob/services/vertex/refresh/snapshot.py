"""Writing refreshed parts into the built-in catalog file (``catalog.json``), for
``scripts/refresh_catalog.py``: only the live sections' values are replaced, each laid out as the
file lays out its data (objects one key per line, short lists on one line, long ones wrapped at
100 columns), so that the update reads as a diff of the facts and nothing else."""

from __future__ import annotations

import json
from typing import Any

WIDTH = 100
# the sections a refresh replaces: (top-level section, key) -> the overlay part and its key
LIVE = {("zones", "source"): ("zones", "source"), ("zones", "gpus"): ("zones", "gpus"),
        ("zones", "machine_types"): ("zones", "machine_types"),
        ("prebuilt_images", "source"): ("images", "source"),
        ("prebuilt_images", "images"): ("images", "images")}


def _scalar(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def layout(value: Any, indent: int, prefix: int) -> str:
    """``value`` as the file writes it at ``indent`` spaces, its first line starting after
    ``prefix`` characters (its key)."""
    pad = " " * indent
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f'{pad}  {_scalar(k)}: {layout(v, indent + 2, indent + 4 + len(_scalar(k)))}'
                 for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(value, list):
        if all(not isinstance(v, (dict, list)) for v in value):
            inline = "[" + ", ".join(map(_scalar, value)) + "]"
            if prefix + len(inline) + 1 <= WIDTH:
                return inline
            lines, line = [], ""
            for text in map(_scalar, value):
                if line and len(pad) + 2 + len(line) + len(text) + 2 > WIDTH:
                    lines.append(line.rstrip())
                    line = ""
                line += text + ", "
            lines.append(line.rstrip(", "))
            return "[\n" + "\n".join(f"{pad}  {x}" for x in lines) + f"\n{pad}]"
        return "[\n" + ",\n".join(f"{pad}  {layout(v, indent + 2, indent + 2)}"
                                  for v in value) + f"\n{pad}]"
    return _scalar(value)


def _span(text: str, section: str, key: str) -> tuple[int, int]:
    """Where the value of ``section``.``key`` is in the file's text (the file has each
    top-level section at 2 spaces and its keys at 4)."""
    start = text.index(f'\n  "{section}": {{')
    at = text.index(f'\n    "{key}": ', start) + len(f'\n    "{key}": ')
    _, end = json.JSONDecoder().raw_decode(text, at)
    return at, end


def replace(text: str, parts: dict[str, Any]) -> str:
    """The catalog file's ``text`` with the values of its live sections replaced by those of
    the overlay ``parts`` there are (``zones``, ``images``)."""
    for (section, key), (part, field) in LIVE.items():
        if part not in parts:
            continue
        start, end = _span(text, section, key)
        text = text[:start] + layout(parts[part][field], 4, 6 + len(key)) + text[end:]
    return text
