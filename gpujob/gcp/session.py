"""One session with Google Cloud: resolved credentials and project, the authorized HTTP object,
and the one way every API call is made (retried by policy, failures explained)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TypeVar

from gpujob.gcp import clock, retry
from gpujob.gcp.credentials import resolve
from gpujob.gcp.errors import Action, raise_explained
from gpujob.gcp.http import authorized_http
from gpujob.gcp.settings import GcpSettings

T = TypeVar("T")


def echo_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class Session:
    """Credentials, project, HTTP and clock shared by the ml and logging clients."""

    def __init__(self, settings: GcpSettings, echo: Callable[[str], None] = echo_stderr) -> None:
        self.settings = settings
        self.echo = echo
        self.clock = clock.SYSTEM
        self.auth = resolve(settings)
        self.project = self.auth.project
        self.http = authorized_http(self.auth, settings, echo)
        if settings.verbose:
            echo(f"credentials: {self.auth.source}; project: {self.project}")

    def action(self, what: str, permission: str, **extra: Any) -> Action:
        return Action(what=what, project=self.project, permission=permission,
                      identity=self.auth.identity, **extra)

    def call(self, action: Action, fn: Callable[[], T]) -> T:
        """``fn()`` under the retry policy; failures propagate as the libraries raise them
        (``retry.GaveUp`` when retries ran out)."""
        policy = self.settings.retry

        def note(attempt: int, why: retry.Transient, delay: float) -> None:
            self.echo(f"note: {action.what}: {why.reason}; retrying in {delay:.1f} s "
                      f"(attempt {attempt + 1} of {policy.max_attempts})")

        return retry.call(fn, policy, self.clock, note)

    def execute_raw(self, action: Action, make_request: Callable[[], Any]) -> Any:
        """Run ``make_request().execute()`` under the retry policy (``call``)."""
        return self.call(action, lambda: make_request().execute())

    def execute(self, action: Action, make_request: Callable[[], Any]) -> Any:
        """``execute_raw``, with every remote failure turned into one ``RemoteError``."""
        try:
            return self.execute_raw(action, make_request)
        except Exception as exc:
            raise_explained(exc, action)
