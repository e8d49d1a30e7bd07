"""click parameter types for numeric options, applying gpujob's one number rule
(``gpujob.numbers``): click's own INT and FLOAT take ``٣``, ``1_000``, ``nan`` and ``inf``; and
for the names that become part of an API's resource names (a project, a region), checked
before anything is sent."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click
from click.core import ParameterSource

from gpujob import numbers
from gpujob.terminal import printable


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


class ExitCodes(click.ParamType):
    """Exit codes, comma-separated (``137,143``), each 1 to 255: a tuple."""

    name = "codes"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        if isinstance(value, tuple):
            return value
        parts = [part.strip() for part in str(value).split(",")]
        bad = [part for part in parts if not part.isdigit() or not 1 <= int(part) <= 255]
        if bad:
            self.fail(f"'{bad[0]}' is not an exit code (1 to 255; give them comma-separated, "
                      "e.g. 137,143)", param, ctx)
        return tuple(dict.fromkeys(int(part) for part in parts))


class _Name(click.ParamType):
    """A name checked by the rule ``rule`` of ``gpujob.gcp.settings`` (read when a value is
    checked: not on --help's path); the empty text means "not given"."""

    what = "name"
    rule = ""

    def problem(self, value: str) -> str | None:
        from gpujob.gcp import settings

        check: Callable[[str], str | None] = getattr(settings, self.rule)
        return check(value)

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        text = str(value)
        if ctx is not None and param is not None and param.name and \
                ctx.get_parameter_source(param.name) is ParameterSource.ENVIRONMENT:
            # an environment variable is set for every command, most of which never use it
            # (local runs, dry-runs): it is checked where it is used
            return text
        problem = self.problem(text) if text else None
        if problem:
            shown = text if len(text) <= 80 else f"{text[:60]}…"
            self.fail(f"'{printable(shown)}' is not a {self.what}: {problem}", param, ctx)
        return text


class Project(_Name):
    """A Google Cloud project ID or number (``--project``)."""

    name = "project"
    what = "project ID"
    rule = "project_problem"


class Region(_Name):
    """A region's name (``--region`` of the commands that follow jobs)."""

    name = "region"
    what = "region"
    rule = "region_problem"
