"""The HTTP object the API clients use: google-auth's authorized httplib2, in three layers.

From the bottom:

- ``DeadlineHttp`` bounds each request, from sending to the last byte of the answer (redirects
  and httplib2's own resend included), by ``--request-timeout``. httplib2's timeout is a socket
  timeout, per read: an answer that trickles in a byte at a time never trips it. A watchdog
  thread cuts the request's socket reads short when the time is up; the request then fails as
  a timeout (``TimeoutError``), which the retry policy knows, and which httplib2 does not
  resend by itself. Token requests pass through it too.
- google-auth's ``AuthorizedHttp``, with the credentials guarded (``credentials``). It refreshes
  the token and resends a request answered 401 by itself, which is right for every call but a
  create that may not be repeated: over ``single_send`` it does not (``refresh_status_codes``
  empty), and the caller decides (``gpujob.services.vertex.jobs.create`` looks for the job instead).
- ``ClientHttp``, what googleapiclient talks to: it makes error answers readable to
  googleapiclient, whose ``HttpError`` fails on an error whose ``message`` is not a string (a
  malformed answer would otherwise end in an ``AttributeError``); and with ``--verbose`` it
  prints each request's method, URL and status. It sits outside the authorization layer, so it
  never sees the ``Authorization`` header. The ``upload_id`` of a resumable upload's URL is
  masked: whoever has it can write to the upload.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from gpujob.gcp.credentials import Auth
from gpujob.gcp.settings import GcpSettings

# what --verbose masks in a URL: a resumable upload's id (whoever has it can write to the upload)
# and an API key (Cloud Billing's catalog is read with one)
_UPLOAD_ID = re.compile(r"([?&](?:upload_id|key)=)[^&]*")
_SWEEP_EVERY = 0.05  # seconds between the watchdog's sweeps once the time is up
_CUT = 0.001  # the socket timeout it sets then


def shown(uri: str) -> str:
    """``uri`` as ``--verbose`` prints it."""
    return _UPLOAD_ID.sub(r"\1…", uri)


class DeadlineHttp:
    """An ``httplib2.Http`` whose requests each end within ``timeout`` seconds."""

    def __init__(self, http: Any, timeout: float) -> None:
        self.http = http
        self.deadline = timeout if math.isfinite(timeout) and 0 < timeout < 1e6 else None

    def __getattr__(self, name: str) -> Any:  # connections, timeout, redirect_codes, …
        return getattr(self.http, name)

    def request(self, uri: str, method: str = "GET", body: Any = None,
                headers: dict[str, str] | None = None, **kwargs: Any) -> tuple[Any, bytes]:
        if self.deadline is None:
            return self.http.request(uri, method, body=body, headers=headers, **kwargs)
        done, expired = threading.Event(), threading.Event()
        watchdog = threading.Thread(target=self._watch, args=(done, expired), daemon=True,
                                    name="gpujob-request-deadline")
        watchdog.start()
        try:
            return self.http.request(uri, method, body=body, headers=headers, **kwargs)
        except Exception:
            if expired.is_set():
                raise TimeoutError(f"timed out: no whole answer within {self.deadline:g} s"
                                   ) from None
            raise
        finally:
            done.set()
            watchdog.join()

    def _watch(self, done: threading.Event, expired: threading.Event) -> None:
        """Once the deadline passes, make every read of the request's sockets time out at once
        (a timeout, which httplib2 does not resend); should a read still hang after another
        ``deadline``, close the sockets."""
        if done.wait(self.deadline):
            return
        expired.set()
        cut_off = time.monotonic() + (self.deadline or 0)
        while not done.is_set():
            for connection in list(self.http.connections.values()):
                sock = getattr(connection, "sock", None)
                if sock is None:
                    continue
                with contextlib.suppress(OSError):
                    sock.settimeout(_CUT)
                    if time.monotonic() > cut_off:
                        sock.shutdown(socket.SHUT_RDWR)
            done.wait(_SWEEP_EVERY)


def readable_error(status: int, content: Any) -> Any:
    """An error answer (``status`` >= 400) as googleapiclient can read it: the ``message`` of
    ``{"error": {...}}`` (or of its first item) as text; anything else as it is."""
    if status < 400 or not isinstance(content, bytes):
        return content
    try:
        data = json.loads(content.decode("utf-8"))
    except (ValueError, RecursionError):
        return content
    error = data[0] if isinstance(data, list) and data else data
    error = error.get("error") if isinstance(error, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    if not isinstance(error, dict) or message is None or isinstance(message, str):
        return content
    error["message"] = json.dumps(message)
    return json.dumps(data).encode()


class ClientHttp:
    """What googleapiclient calls: readable error answers, and ``--verbose`` (``echo``)."""

    def __init__(self, http: Any, echo: Callable[[str], None] | None) -> None:
        self.http = http
        self.credentials = http.credentials  # googleapiclient checks the credentials' universe
        self._echo = echo

    def __getattr__(self, name: str) -> Any:
        return getattr(self.http, name)

    def request(self, uri: str, method: str = "GET", body: Any = None,
                headers: dict[str, str] | None = None, **kwargs: Any) -> tuple[Any, bytes]:
        if self._echo is not None:
            self._echo(f"> {method} {shown(uri)}")
        start = time.monotonic()
        try:
            response, content = self.http.request(uri, method, body=body, headers=headers,
                                                  **kwargs)
        except Exception as exc:
            if self._echo is not None:
                # the type only: some exceptions carry a response body, and it may hold a token
                self._echo(f"< {type(exc).__name__} ({time.monotonic() - start:.2f} s)")
            raise
        if self._echo is not None:
            self._echo(f"< {response.status} {response.reason} "
                       f"({time.monotonic() - start:.2f} s)")
        return response, readable_error(response.status, content)

    def close(self) -> None:
        self.http.close()


def authorized_http(auth: Auth, settings: GcpSettings, echo: Callable[[str], None], *,
                    single_send: bool = False) -> Any:
    """The layers above over httplib2; ``single_send``: each request is sent once, never again
    by httplib2 itself (``gpujob.gcp.once``), for calls that are not safe to repeat."""
    import google_auth_httplib2
    import httplib2

    transport: httplib2.Http
    if single_send:
        from gpujob.gcp.once import SingleSendHttp

        transport = SingleSendHttp(timeout=settings.request_timeout)
    else:
        transport = httplib2.Http(timeout=settings.request_timeout)
    # Cloud Storage answers each part of a resumable upload with 308 Resume Incomplete, which
    # httplib2 would follow as a redirect; googleapiclient's own build_http drops it likewise
    transport.redirect_codes = transport.redirect_codes - {308}
    # google-auth resends a request answered 401 after a refresh, unseen by the caller: a 401
    # that came after the service acted would make a second job (the token is still renewed
    # before a request whenever it has expired: ``before_request``)
    once: dict[str, Any] = {"refresh_status_codes": ()} if single_send else {}
    http = google_auth_httplib2.AuthorizedHttp(
        auth.credentials, http=DeadlineHttp(transport, settings.request_timeout), **once)
    return ClientHttp(http, echo if settings.verbose else None)
