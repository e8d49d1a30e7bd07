"""One session with Google Cloud: resolved credentials and project, the authorized HTTP object,
and the one way every API call is made (retried when the call says it may be, failures
explained)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from gpujob.console import CONSOLE
from gpujob.errors import RemoteError
from gpujob.gcp import answers, clock, retry
from gpujob.gcp.credentials import resolve
from gpujob.gcp.errors import Action, raise_explained
from gpujob.gcp.http import authorized_http
from gpujob.gcp.settings import GcpSettings

T = TypeVar("T")

ENDLESS_HINT = ("a project with that many jobs: narrow the listing (gpujob list --filter, "
                "--limit) or name the job by its ID; else the service keeps handing out page "
                "tokens: check --api-endpoint (or GPUJOB_API_ENDPOINT) if set")


class Session:
    """Credentials, project, HTTP and clock shared by the API clients of one command."""

    def __init__(self, settings: GcpSettings, echo: Callable[[str], None] = CONSOLE.err) -> None:
        self.settings = settings
        self.echo = echo
        self.clock = clock.SYSTEM
        self.auth = resolve(settings)
        self.project = self.auth.project
        self.http = authorized_http(self.auth, settings, echo)
        if settings.verbose:
            echo(f"credentials: {self.auth.source}; project: {self.project}")

    def action(self, what: str, permission: str, *, role: str, service: str, retry_safe: bool,
               **extra: Any) -> Action:
        """An ``Action`` of this session's project and identity; the API client names the rest
        (see ``Action``)."""
        return Action(what=what, project=self.project, permission=permission, role=role,
                      service=service, retry_safe=retry_safe, identity=self.auth.identity,
                      **extra)

    def call(self, action: Action, fn: Callable[[], T]) -> T:
        """``fn()``, under the retry policy when ``action.retry_safe``, else once; failures
        propagate as the libraries raise them (``retry.GaveUp`` when retries ran out)."""
        if not action.retry_safe:
            return fn()
        return retry.call(fn, self.settings.retry, self.clock,
                          lambda attempt, why, delay: self.note_retry(action, attempt, why, delay))

    def note_retry(self, action: Action, attempt: int, why: retry.Transient, delay: float,
                   unless: str = "") -> None:
        """Say that attempt ``attempt`` of ``action`` failed and the next comes in ``delay``
        seconds (``unless``: what would stop it)."""
        self.echo(f"note: {action.what}: {why.reason}; retrying in {delay:.1f} s{unless} "
                  f"(attempt {attempt + 1} of {self.settings.retry.max_attempts})")

    def execute_raw(self, action: Action, make_request: Callable[[], Any]) -> Any:
        """Run ``make_request().execute()`` (``call``); the answer, checked against the type
        its method declares (``answers.BadAnswer`` when it does not fit)."""
        method: list[str | None] = [None]

        def send() -> Any:
            request = make_request()
            method[0] = getattr(request, "methodId", None)
            try:
                return request.execute()
            except RecursionError:  # json.loads of an answer nested thousands deep
                raise answers.BadAnswer("the service's answer is nested too deeply to read"
                                        ) from None
            except ValueError as exc:  # json.loads of a number past Python's int-string limit
                if not answers.too_long_a_number(exc):
                    raise
                raise answers.BadAnswer("the service's answer holds a number too long to read"
                                        ) from None

        return answers.check(self.call(action, send), method[0])

    def execute(self, action: Action, make_request: Callable[[], Any]) -> Any:
        """``execute_raw``, with every remote failure turned into one ``RemoteError``."""
        try:
            return self.execute_raw(action, make_request)
        except Exception as exc:
            raise_explained(exc, action)

    def pages(self, action: Action, fetch: Callable[[str | None], dict[str, Any]],
              items: str, max_pages: int | None = None) -> Iterator[dict[str, Any]]:
        """The pages of a listing, ``fetch(page_token)`` each (``answers.pages``: it ends,
        whatever tokens the service gives, after ``max_pages`` at most); a listing that would
        not end is a ``RemoteError``."""
        try:
            yield from answers.pages(fetch, items, max_pages)
        except answers.EndlessListing as exc:
            raise RemoteError(f"{action.what} failed: {exc}", ENDLESS_HINT) from exc
        except answers.BadAnswer as exc:
            raise_explained(exc, action)

    def listing(self, action: Action, method: Callable[..., Any], items: str,
                max_pages: int | None = None, **query: Any) -> Iterator[dict[str, Any]]:
        """The pages of ``method(**query)`` (a googleapiclient list method), each after the
        first asked with the page token the one before gave (``pages``)."""

        def fetch(token: str | None) -> dict[str, Any]:
            extra = {"pageToken": token} if token else {}
            answer: dict[str, Any] = self.execute(action, lambda: method(**query, **extra))
            return answer

        yield from self.pages(action, fetch, items, max_pages)
