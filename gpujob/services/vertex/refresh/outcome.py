"""What became of one part of a refresh."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpujob.errors import GpujobError


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
    warnings: list[str] = field(default_factory=list)  # said whether or not it was read


class PartError(GpujobError):
    """A part that could not be read, with the warnings its reading gave on the way."""

    def __init__(self, message: str, hint: str | None = None,
                 warnings: list[str] | None = None) -> None:
        super().__init__(message, hint)
        self.warnings = warnings or []
