"""What every service's ``gpujob gpus`` shares: the filters (``--gpu``, ``--machine-type``,
``--count``, ``--region``, ``--zone``), what each finds with one of them left out, the report
of a miss, and the table's width. Each service queries its own catalog with them."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from typing import TypeVar

from gpujob.console import CONSOLE

T = TypeVar("T")


@dataclass(frozen=True)
class Filters:
    gpu: str | None = None
    machine_type: str | None = None
    count: int | None = None
    region: str | None = None
    zone: str | None = None

    def given(self) -> dict[str, object]:
        return {k: v for k, v in asdict(self).items() if v is not None}


def with_one_filter_fewer(f: Filters, find: Callable[[Filters], Sequence[T]],
                          summary: Callable[[T, Filters], str]) -> list[str]:
    """``without --region: …`` for each filter whose removal finds something (``find``), the
    first three finds each ``summary``'d (a service's own query and wording)."""
    lines = []
    for name in f.given():
        relaxed = replace(f, **{name: None})
        if name == "region" and f.zone:
            relaxed = replace(relaxed, zone=None)
        found = find(relaxed)
        if found:
            lines.append(f"without --{name.replace('_', '-')}: " + "; ".join(
                summary(o, relaxed) for o in found[:3]) + (" …" if len(found) > 3 else ""))
    return lines


def without_prices(title: str, region: str | None, sort: str | None) -> str | None:
    """The one region of a service gpujob has no prices for (None: all of them, as
    ``--region all``); a list of regions and ``--sort`` order the price table, which it lacks:
    a usage error (exit 2)."""
    from gpujob.errors import UsageError

    hint = "gpujob has prices for Vertex AI only: --service vertex shows them"
    if sort is not None:
        raise UsageError(f"--sort orders the price table, and gpujob has no prices for {title}",
                         hint)
    if region is not None and region.strip().lower() == "all":
        return None
    if region is not None and "," in region:
        raise UsageError(f"--region takes one region for {title}: a list of regions is for the "
                         "price table", hint)
    return region


def without_advice(title: str, availability: bool, where: str = "") -> None:
    """``--availability`` widens the price table, which a service without prices lacks: a
    usage error (exit 2); ``where``: where the service's own advice is asked instead."""
    from gpujob.errors import UsageError

    if availability:
        raise UsageError(f"--availability adds Compute Engine's capacity advice to the price "
                         f"table, and gpujob has no prices for {title}",
                         where or "--service vertex shows both")


def table_width() -> int:
    """The terminal's width, between 80 and 160 columns (100 when it is not a terminal)."""
    return max(80, min(shutil.get_terminal_size((100, 24)).columns, 160))


def report_miss(f: Filters, alternatives: Sequence[str]) -> int:
    """Say on stderr that no offering matches the filters, and what does without one of
    them; exit 1."""
    wanted = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in f.given().items())
    CONSOLE.err(f"no GPU offering matches {wanted}")
    for line in alternatives:
        CONSOLE.err(f"  {line}")
    return 1
