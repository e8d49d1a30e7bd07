"""click parameter types for numeric options, applying gpujob's one number rule
(``gpujob.numbers``): click's own INT and FLOAT take ``٣``, ``1_000``, ``nan`` and ``inf``."""

from __future__ import annotations

from typing import Any

import click

from gpujob import numbers


class Count(click.IntRange):
    """A whole number: ASCII digits, within int64 and the given range."""

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        try:  # flags and environment variables arrive as text, defaults as ints
            value = numbers.parse_count(str(value), minimum=max(0, self.min or 0))
        except numbers.NumberError as exc:
            self.fail(str(exc), param, ctx)
        return super().convert(value, param, ctx)


class Seconds(click.FloatRange):
    """A number of seconds: finite, at most ``numbers.MAX_SECONDS``, within the given range."""

    def __init__(self, min: float = 0, min_open: bool = False) -> None:
        super().__init__(min=min, max=numbers.MAX_SECONDS, min_open=min_open)

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        try:  # flags and environment variables arrive as text, defaults as floats
            value = numbers.parse_float(str(value))
        except numbers.NumberError as exc:
            self.fail(str(exc), param, ctx)
        return super().convert(value, param, ctx)
