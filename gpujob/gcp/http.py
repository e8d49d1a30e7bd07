"""The HTTP object the API clients use: google-auth's authorized httplib2, with a timeout.

With ``--verbose`` a wrapper prints each request's method, URL and status. It sits outside the
authorization layer, so it never sees the ``Authorization`` header: tokens cannot be printed. The
``upload_id`` of a resumable upload's URL is masked too: whoever has it can write to the upload.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from gpujob.gcp.credentials import Auth
from gpujob.gcp.settings import GcpSettings

_UPLOAD_ID = re.compile(r"([?&]upload_id=)[^&]*")


def shown(uri: str) -> str:
    """``uri`` as ``--verbose`` prints it."""
    return _UPLOAD_ID.sub(r"\1…", uri)


class VerboseHttp:
    """An httplib2-like object that reports each request it passes on."""

    def __init__(self, http: Any, echo: Callable[[str], None]) -> None:
        self.http = http
        self.credentials = http.credentials  # googleapiclient checks the credentials' universe
        self._echo = echo

    def request(self, uri: str, method: str = "GET", body: Any = None,
                headers: dict[str, str] | None = None, **kwargs: Any) -> tuple[Any, bytes]:
        self._echo(f"> {method} {shown(uri)}")
        start = time.monotonic()
        try:
            response, content = self.http.request(uri, method, body=body, headers=headers,
                                                  **kwargs)
        except Exception as exc:
            # the type only: some exceptions carry a response body, and it may hold a token
            self._echo(f"< {type(exc).__name__} ({time.monotonic() - start:.2f} s)")
            raise
        self._echo(f"< {response.status} {response.reason} ({time.monotonic() - start:.2f} s)")
        return response, content

    def close(self) -> None:
        self.http.close()


def authorized_http(auth: Auth, settings: GcpSettings, echo: Callable[[str], None]) -> Any:
    import google_auth_httplib2
    import httplib2

    transport = httplib2.Http(timeout=settings.request_timeout)
    # Cloud Storage answers each part of a resumable upload with 308 Resume Incomplete, which
    # httplib2 would follow as a redirect; googleapiclient's own build_http drops it likewise
    transport.redirect_codes = transport.redirect_codes - {308}
    http = google_auth_httplib2.AuthorizedHttp(auth.credentials, http=transport)
    return VerboseHttp(http, echo) if settings.verbose else http
