"""What a service that takes a job's region and strategy as ordered choices
(``Capability.PLACEMENT``: ``--region A,B``, ``--strategy X,Y``) tells a submit: the quota
preflight of a request (``Room``), the order of the choices (``Ranked``), and whether a refusal
or a failed job was for room (``Placement``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from typing import NamedTuple

    from gpujob.services.base import Request
else:
    from gpujob.tuples import NamedTuple


@dataclass(frozen=True)
class Room:
    """The quota preflight of one request: the limits it is short of (``lines``, and the same
    as ``details`` for JSON), what it could not read (``unknown``: why), and where to ask for
    more (``hint``, about the first shortfall); ``held``: the limits that hold it, with the same
    numbers (and ``held_details`` for JSON)."""

    lines: tuple[str, ...] = ()
    details: tuple[dict[str, Any], ...] = ()
    unknown: str | None = None
    hint: str = ""
    held: tuple[str, ...] = ()
    held_details: tuple[dict[str, Any], ...] = ()

    @property
    def short(self) -> bool:
        return bool(self.lines)


class Ranked(NamedTuple):
    """``Placement.rank``: a key per request (None: not known), the words for each, and the
    one warning when the ranking could not be had (the order then stays as given)."""

    keys: list[float | None]
    reasons: list[str]
    warning: str | None = None


class Placement(Protocol):
    """What a service that takes a job's region and strategy as ordered choices
    (``Capability.PLACEMENT``: ``--region A,B``, ``--strategy X,Y``) tells a submit about them:
    whether the project's quota holds a request (the preflight), whether a refused create or a
    failed job is one for room (another choice may do), and what a request's choice is."""

    def where(self, request: Request) -> tuple[str, str]:
        """The region and strategy ``request`` creates its job in."""
        ...

    def room(self, request: Request) -> Room:
        """The quota preflight of ``request``: read, never retried (it is advice)."""
        ...

    def regions(self, request: Request) -> list[str]:
        """``--region auto``: the regions the service offers ``request``'s machines in (its
        catalog's), in its order."""
        ...

    def rank(self, requests: Sequence[Request], by: str) -> Ranked:
        """``--order obtainable`` (higher first) or ``cheapest`` (lower first): each request's
        key; never raises."""
        ...

    def advice(self, requests: Sequence[Request]) -> list[str]:
        """``gpujob preflight --availability``: Compute Engine's capacity advice for each
        request's choice, lines for stderr (its one warning among them); never raises."""
        ...

    def refused_for_room(self, exc: Exception, request: Request) -> str | None:
        """Why the create of ``request`` was refused for quota or capacity (another choice may
        do); None: a refusal every choice would meet."""
        ...

    def stocked_out(self, raw: dict[str, Any]) -> str | None:
        """Why the job ``raw`` ended failed for capacity or quota before it ever ran; None: it
        ran, or failed otherwise."""
        ...

    def confirm_none(self, request: Request) -> None:
        """After a create of ``request`` refused for room: cancel any job it made after all
        (said on stderr), so that no job of it is left alive. ``RemoteError`` when one may be
        alive: the look failed (how to look), or a job found could not be named or cancelled
        (the job, and how to cancel it); ``CreateInterrupted`` on Ctrl-C (what it was doing)."""
        ...
