"""One rule for numbers, wherever they are written: a config file, ``--set``, a flag.

- A count is a whole number: an integer, or a string of ASCII digits (as the API's JSON allows for
  int64 fields), from 0 to the int64 maximum. Never a float (``100.0``, ``1e2``, ``!!float 3``),
  never digits of other scripts that Python's ``int()`` takes (``²``, ``٣``), never ``1_000`` or
  `` 3 ``.
- A number's text is measured before ``int()`` reads it: Python refuses (with an exception)
  decimal text over 4,300 digits, so a huge number is reported, not turned into a crash.
- Float options (seconds) are finite: ``nan`` and ``inf`` are refused (``gpujob.cli.params``).
"""

from __future__ import annotations

import math
import re
from typing import Any

INT64_MAX = 2**63 - 1
INT32_MAX = 2**31 - 1
# No number in a Job needs more digits: an integer below 10**308 still fits a double (which
# ends at 1.8e308), and int64 holds 19. Longer text is refused before int() reads it.
MAX_DIGITS = 308

# Seconds options (timeouts, intervals, grace periods) end within ten years: what the operating
# system's timers take (a socket timeout of 1e10 s overflows time_t).
MAX_SECONDS = 10 * 365 * 24 * 3600

_INT64_DIGITS = len(str(INT64_MAX))  # 19
_DIGITS = re.compile(r"[0-9]+\Z")  # [0-9] is ASCII only; \d and str.isdigit() are not
_DECIMAL = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?\Z")


# a number as the APIs' JSON takes it in a string ('0.001', '-5', '1e-3'): no '+', no spaces
_JSON_DECIMAL = re.compile(r"-?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?\Z")
_JSON_INTEGER = re.compile(r"-?[0-9]+\Z")
# a google.protobuf.Duration as the APIs' JSON writes it: seconds, at most 9 decimals, then "s"
_DURATION = re.compile(r"([0-9]+(?:\.[0-9]{1,9})?)s\Z")


def is_decimal_text(text: str) -> bool:
    """Whether ``text`` is written as a number (finite or not: ``'1e999'`` is)."""
    return bool(_JSON_DECIMAL.match(text))


def decimal(text: str) -> int | float | None:
    """The number a string in a double field holds (an int where it is written whole, so an
    INTEGER parameter's bound stays whole); None for text that is no number, too long to read,
    or beyond a double's range (``'1e999'``)."""
    if len(text) > MAX_DIGITS or not _JSON_DECIMAL.match(text):
        return None
    value = float(text)
    if not math.isfinite(value):
        return None
    return int(text) if _JSON_INTEGER.match(text) else value


class NumberError(ValueError):
    """Why a number is refused; the message reads after the name of what was given."""


def is_integer(value: Any) -> bool:
    """The JSON Schema ``integer`` type as gpujob reads it: an int, never a bool, never a float
    with an integral value (JSON Schema's own rule would let ``100.0`` through)."""
    return isinstance(value, int) and not isinstance(value, bool)


def shown(text: str, limit: int = 40) -> str:
    """A number's text for a message, shortened: a 5,000-digit value is not echoed whole."""
    return text if len(text) <= limit else f"{text[:20]}…{text[-4:]} ({len(text):,} characters)"


def whole(text: str, base: int = 10) -> int:
    """The value of integer text that a YAML resolver has matched (sign and digits, ``0x``/``0o``
    prefix removed); raises ``NumberError`` for more than ``MAX_DIGITS`` digits."""
    if base == 10:
        digits = len(text.lstrip("+-"))
        if digits > MAX_DIGITS:
            raise NumberError(f"number too large ({digits:,} digits)")
        return int(text)
    value = int(text, base)  # powers of two have no digit limit in int(); measure the value
    if abs(value) >= 10**MAX_DIGITS:
        raise NumberError(f"number too large (more than {MAX_DIGITS} digits)")
    return value


def parse_count(text: str, minimum: int = 0) -> int:
    """A count written as text (a flag's value): ASCII digits, ``minimum`` (at least 0) to
    int64's maximum."""
    negative = text.startswith("-")
    body = text[1:] if negative else text
    if not _DIGITS.match(body):
        raise NumberError(f"{shown(text)!r} is not a whole number")
    if negative and body.strip("0"):
        raise NumberError("must not be negative" if minimum == 0 else
                          f"must be at least {minimum}")
    if not is_count_text(body):
        raise NumberError(f"{shown(body)} is more than the maximum, {INT64_MAX}")
    value = int(body)
    if value < minimum:
        raise NumberError(f"must be at least {minimum}")
    return value


def is_digits(text: str) -> bool:
    """ASCII digits only (``str.isdigit()`` also takes ``²`` and ``٣``)."""
    return bool(_DIGITS.match(text))


def is_count_text(text: str) -> bool:
    """A string of ASCII digits within int64 (the API's JSON form of an int64)."""
    if not is_digits(text):
        return False
    significant = text.lstrip("0")
    return len(significant) < _INT64_DIGITS or (
        len(significant) == _INT64_DIGITS and int(significant) <= INT64_MAX)


def as_count(value: Any) -> int | None:
    """A config value read as a count, or None where it is not one (the schema says why)."""
    if is_integer(value):
        return value if 0 <= value <= INT64_MAX else None
    if isinstance(value, str) and is_count_text(value):
        return int(value)
    return None


def parse_float(text: str) -> float:
    """A finite number written as text (a flag's value), in ASCII decimal notation: Python's
    ``float()`` alone would take ``nan``, ``inf``, ``1_0`` and ``٣``."""
    if not _DECIMAL.match(text):
        infinite = text.strip().lstrip("+-").lower() in ("nan", "inf", "infinity")
        raise NumberError(f"{shown(text)!r} is not a {'finite ' if infinite else ''}number")
    value = float(text)
    if not math.isfinite(value):  # 1e999
        raise NumberError(f"{shown(text)} is not a finite number")
    return value


def duration_seconds(value: Any) -> float | None:
    """The seconds of a Duration written as the APIs write it ("7200s", "0.5s"); None for
    anything else."""
    found = _DURATION.match(value) if isinstance(value, str) else None
    return float(found.group(1)) if found else None


def seconds_in_words(seconds: float) -> str:
    """``864000`` -> ``10 days``, ``7200`` -> ``2 hours``, ``1800`` -> ``30 minutes``, ``90.5``
    -> ``90.5 seconds``: the largest unit that counts it whole."""
    for size, unit in ((86400, "day"), (3600, "hour"), (60, "minute")):
        if seconds >= size and seconds % size == 0:
            count = int(seconds // size)
            return f"{count} {unit}{'s' if count != 1 else ''}"
    shown = int(seconds) if seconds == int(seconds) else seconds
    return f"{shown} second{'s' if seconds != 1 else ''}"


def span_in_words(seconds: float, short: bool = False) -> str:
    """A run time in at most two units, the largest first: ``21420`` -> ``5 hours 57
    minutes``, ``45`` -> ``45 seconds`` (units of 0 left out). ``short``, as an attempt's line
    writes how long it ran: hours at most, the unit after the first kept even at 0: ``3720``
    -> ``1 h 2 min``, ``3600`` -> ``1 h 0 min``, ``45`` -> ``45 s``."""
    whole = int(seconds)
    if short:
        hours, minutes, rest = whole // 3600, whole % 3600 // 60, whole % 60
        if hours:
            return f"{hours} h {minutes} min"
        return f"{minutes} min {rest} s" if minutes else f"{rest} s"
    parts = [(whole // 86400, "day"), (whole % 86400 // 3600, "hour"),
             (whole % 3600 // 60, "minute"), (whole % 60, "second")]
    shown = [f"{n} {unit}{'s' if n != 1 else ''}" for n, unit in parts if n]
    return " ".join(shown[:2]) or "0 seconds"


def dollars(value: float | None, unknown: str = "no price") -> str:
    """US dollars as gpujob writes a price or a cost: ``$1,234.57``; under 10 cents to four
    decimals (``$0.0068``); None: ``unknown``."""
    if value is None:
        return unknown
    return f"${value:,.2f}" if value >= 0.1 else f"${value:.4f}"
