"""What became of one part of a refresh."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class Outcome:
    """What became of one part: ``read`` (what was found) or ``problem`` and ``hint`` (why it
    could not be read; then ``kept`` says what it still has)."""

    part: str
    read: str = ""
    problem: str = ""
    hint: str = ""
    kept: str = ""
    data: dict[str, Any] | None = None  # the part as the overlay holds it
