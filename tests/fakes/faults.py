"""What a request can meet instead of a plain answer; queued per route with
``FakeGoogle.inject(route, *faults)``, one fault per request, in order."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Reply:
    """Answer with this status and body. ``handled=False``: instead of handling the request
    (nothing happens); ``handled=True``: after handling it (its effect, such as a created job,
    stays: an ambiguous failure, like a 503 or 504 from a front end after the backend acted)."""

    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    handled: bool = False


@dataclass(frozen=True)
class Drop:
    """Close the connection without a response: after handling the request (its effect, such as
    a stored job, stays) or before."""

    after: bool = True


@dataclass(frozen=True)
class Stall:
    """Handle the request, then wait ``seconds`` before answering (a client timeout)."""

    seconds: float


@dataclass(frozen=True)
class Trickle:
    """Handle the request, then send the answer in ``pieces`` pieces over ``seconds``: the status
    line and headers first, the body a little at a time (a slow or congested link)."""

    seconds: float
    pieces: int = 20


@dataclass(frozen=True)
class Garbled:
    """Send ``data`` as the whole answer, then close: bytes that are not an HTTP answer (a
    broken proxy or link). ``handled``: after handling the request (its effect stays), or
    instead of it."""

    data: bytes
    handled: bool = True


@dataclass(frozen=True)
class Late:
    """Answer nothing for ``seconds`` (the client times out), and act on the request only then,
    or as soon as the next request on route ``until`` arrives (before that one is handled):
    a service that makes the job after its client gave up, and was looked for in vain."""

    seconds: float
    until: str | None = None
