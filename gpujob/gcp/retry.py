"""Retrying one API call: which failures are worth another try, and how long to wait.

Retried: HTTP 429, 500, 502, 503 and 504, and transport failures where the request may not have
been answered (connection reset or refused, closed without a response, timed out). Never
retried: any other 4xx, and failures a new try cannot fix (an unknown host, bad credentials).

Whether a call may be retried at all is its own (``Action.retry_safe``): ml v1's create may
reach the service twice, and its client-chosen job ID makes that safe (see ``ml.py``).
"""

from __future__ import annotations

import errno
import http.client
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import TypeVar

from gpujob.gcp.clock import Clock
from gpujob.gcp.settings import RetryPolicy

T = TypeVar("T")

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_RETRY_ERRNOS = frozenset({errno.ECONNRESET, errno.EPIPE, errno.ETIMEDOUT, errno.ECONNABORTED,
                           errno.ECONNREFUSED})


@dataclass(frozen=True)
class Transient:
    """Why a failed attempt may succeed if tried again."""

    reason: str
    retry_after: float | None = None  # seconds the server asked us to wait


class GaveUp(Exception):
    """The last failure of a call that was retried until the policy said stop."""

    def __init__(self, last: BaseException, attempts: int, why: str) -> None:
        super().__init__(f"{why}: {last}")
        self.last = last
        self.attempts = attempts
        self.why = why


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """``Retry-After`` as seconds: either a number of seconds or an HTTP date (RFC 9110)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - (now or datetime.now(timezone.utc))).total_seconds())


def transient(exc: BaseException) -> Transient | None:
    """A ``Transient`` when ``exc`` is worth retrying, else None."""
    from google.auth.exceptions import TransportError
    from googleapiclient.errors import HttpError

    from gpujob.gcp.once import AnswerLost

    if isinstance(exc, HttpError):
        status = exc.resp.status
        if status not in RETRY_STATUSES:
            return None
        return Transient(f"{status} {exc.resp.reason or http.client.responses.get(status, '')}"
                         .strip(), parse_retry_after(exc.resp.get("retry-after")))
    if isinstance(exc, TimeoutError):
        return Transient("timed out")
    if isinstance(exc, (http.client.RemoteDisconnected, AnswerLost)):
        return Transient("connection closed without a response")
    if isinstance(exc, ConnectionRefusedError):
        return Transient("connection refused")
    if isinstance(exc, (ConnectionError, ssl.SSLEOFError)):
        return Transient("connection reset")
    if isinstance(exc, (http.client.IncompleteRead, http.client.BadStatusLine)):
        return Transient("connection broken mid-response")
    if isinstance(exc, OSError) and exc.errno in _RETRY_ERRNOS:
        return Transient(errno.errorcode.get(exc.errno or 0, "network error"))
    if isinstance(exc, TransportError):  # reaching the token endpoint failed; nothing was sent
        cause = exc.__cause__  # an OSError, which ``gcp.credentials`` wraps: its own words
        return (transient(cause) if isinstance(cause, OSError) else None) or \
            Transient("could not reach the token endpoint")
    return None


def backoff(policy: RetryPolicy, attempt: int, jitter: float) -> float:
    """Seconds to wait after failed attempt number ``attempt`` (1-based); ``jitter`` in [0, 1)."""
    ceiling = min(policy.max_delay, policy.initial_delay * 2 ** (attempt - 1))
    return ceiling * (0.5 + jitter / 2)


def next_delay(policy: RetryPolicy, attempt: int, started: float, clock: Clock,
               why: Transient) -> float | str:
    """Seconds to wait after failed attempt number ``attempt`` of a call begun at ``started``
    (``clock.monotonic()``): what the server asked for, else ``backoff``. A str when the policy
    allows no further try: why not, as ``GaveUp.why`` words it."""
    tries = f"{attempt} attempt{'s' if attempt != 1 else ''}"
    if attempt >= policy.max_attempts:
        return f"gave up after {tries}"
    delay = (why.retry_after if why.retry_after is not None
             else backoff(policy, attempt, clock.random()))
    if clock.monotonic() - started + delay > policy.deadline:
        asked = f" (the server asked to wait {delay:g} s)" if why.retry_after is not None else ""
        return (f"gave up after {tries}: the retry deadline of {policy.deadline:g} s would "
                f"pass{asked}")
    return delay


def call(fn: Callable[[], T], policy: RetryPolicy, clock: Clock,
         on_retry: Callable[[int, Transient, float], None] | None = None) -> T:
    """``fn()``, tried again after transient failures as ``policy`` allows (``next_delay``).

    A non-transient failure propagates as it is; when retries run out, ``GaveUp`` carries the last
    failure. ``on_retry(attempt, transient, delay)`` is told before each wait.
    """
    start = clock.monotonic()
    attempt = 1
    while True:
        try:
            return fn()
        except Exception as exc:
            why = transient(exc)
            if why is None:
                raise
            delay = next_delay(policy, attempt, start, clock, why)
            if isinstance(delay, str):
                raise GaveUp(exc, attempt, delay) from exc
            if on_retry is not None:
                on_retry(attempt, why, delay)
            clock.sleep(delay)
            attempt += 1
