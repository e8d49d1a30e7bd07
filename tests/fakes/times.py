"""Timestamps as Google's APIs write them (RFC 3339, UTC, ``Z``)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

_RFC3339 = re.compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d{1,9})?(Z|[+-]\d\d:\d\d)")


def now_text(delta: timedelta = timedelta()) -> str:
    return (datetime.now(timezone.utc) + delta).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_time(text: str) -> datetime | None:
    """An RFC 3339 timestamp (nanoseconds cut to microseconds), or None if it is not one."""
    found = _RFC3339.fullmatch(text)
    if not found:
        return None
    whole, fraction, zone = found.groups()
    micro = (fraction or ".0")[1:7].ljust(6, "0")
    try:
        return datetime.fromisoformat(f"{whole}.{micro}{'+00:00' if zone == 'Z' else zone}")
    except ValueError:
        return None
