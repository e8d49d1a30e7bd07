"""Cloud Billing's catalog (cloudbilling v1): list prices of Google Cloud's SKUs, read with an
API key (GPUJOB_BILLING_API_KEY) alone: no credentials, no project, no permission.

The key travels as the ``key`` query parameter (as the API documents it); it never appears in
gpujob's output: ``--verbose`` masks it in URLs, and an error message that quotes it has it
masked too. https://cloud.google.com/billing/docs/how-to/get-pricing-information-api
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from gpujob.console import CONSOLE
from gpujob.errors import GpujobError, UsageError
from gpujob.gcp import clock
from gpujob.gcp.errors import Action, ServiceError
from gpujob.gcp.session import Session
from gpujob.gcp.settings import GcpSettings, api_endpoint

KEY_VARIABLE = "GPUJOB_BILLING_API_KEY"
SERVICE = "cloudbilling.googleapis.com"
PAGE_SIZE = 5000  # the API's default and most
MAX_PAGES = 20


class KeySession(Session):
    """A session that sends an API key instead of credentials: the same retries, paging and
    error messages as every other call, over HTTP that carries no ``Authorization``."""

    def __init__(self, settings: GcpSettings, key: str,
                 echo: Callable[[str], None] = CONSOLE.err) -> None:
        import httplib2

        from gpujob.gcp.http import ClientHttp, DeadlineHttp

        if not key.strip():
            raise UsageError(f"{KEY_VARIABLE} is empty",
                             "set it to an API key of a project with the Cloud Billing API "
                             "enabled")
        self.settings = settings
        self.echo = echo
        self.clock = clock.SYSTEM
        self.project = "-"
        self.key = key
        transport = httplib2.Http(timeout=settings.request_timeout)
        transport.credentials = None  # type: ignore[assignment]  # none: the key is the auth
        self.http = ClientHttp(DeadlineHttp(transport, settings.request_timeout),
                               echo if settings.verbose else None)

    def action(self, what: str, permission: str, *, role: str, service: str, retry_safe: bool,
               **extra: Any) -> Action:
        return Action(what=what, project="-", permission=permission, role=role,
                      service=service, retry_safe=retry_safe, advice=_advice, **extra)

    def execute(self, action: Action, make_request: Callable[[], Any]) -> Any:
        try:
            return super().execute(action, make_request)
        except GpujobError as exc:  # an answer that quotes the key: masked
            exc.message = exc.message.replace(self.key, "…")
            exc.args = (exc.message,)
            raise


def _advice(error: ServiceError) -> str | None:
    """What to do when the key is refused: there is no project, role or permission to name."""
    if error.reason("SERVICE_DISABLED") is not None or "disabled" in error.message:
        return ("enable the Cloud Billing API in the project the API key belongs to (gcloud "
                "services enable cloudbilling.googleapis.com --project THAT_PROJECT)")
    if error.status in (400, 401, 403):
        return (f"check {KEY_VARIABLE}: an API key of a project with the Cloud Billing API "
                "enabled, not restricted away from it (https://cloud.google.com/billing/docs/"
                "how-to/get-pricing-information-api)")
    return None


class BillingCatalog:
    def __init__(self, session: KeySession) -> None:
        from gpujob.gcp.discovery import service

        self.session = session
        self._skus = service("cloudbilling", "v1", session.http,
                             api_endpoint(session.settings, "cloudbilling"),
                             developer_key=session.key).services().skus()

    def skus(self, parent: str, currency: str = "USD") -> Iterator[dict[str, Any]]:
        """Every SKU of the billing service ``parent`` (``services/ID``), with its current list
        prices in ``currency``."""
        action = self.session.action(
            f"reading the price list of {parent}", "(an API key)", role="(none)",
            service=SERVICE, retry_safe=True,
            not_found_hint=f"{parent} is not a Cloud Billing service id")

        for page in self.session.listing(action, self._skus.list, "skus", MAX_PAGES,
                                         parent=parent, currencyCode=currency,
                                         pageSize=PAGE_SIZE):
            yield from page.get("skus") or []
