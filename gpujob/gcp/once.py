"""An HTTP transport that sends each request at most once, for the calls that are not safe to
repeat (Vertex AI's creates: the service assigns the job's ID and takes no request ID, so a
second create is a second paid job).

httplib2 resends a request by itself when the connection closes before the answer's status
line arrives: ``Http._conn_request`` takes the ``BadStatusLine`` (``RemoteDisconnected``) for a
kept-alive connection that went stale, reconnects and sends the request again, whatever the
method, "regardless of the number of RETRIES set". When the service had received the first one
and only its answer was lost, that makes two jobs (``test_fake_vertex_faults.py``
shows it). ``httplib2.RETRIES`` cannot prevent it: the stale-connection resend ignores it, and
it is a module-wide setting, shared by every request of the process.

``SingleSendHttp`` closes both doors with what httplib2 offers its callers, not by changing it:

- every request goes out on a new connection: no kept-alive connection can have gone stale,
  the case the resend was made for;
- that connection is of a class passed through ``Http.request``'s ``connection_type``
  parameter, whose ``getresponse`` reports a connection that closed before the answer as
  ``AnswerLost`` (a ``ConnectionResetError``, not a ``BadStatusLine``). httplib2 resends only
  on the latter; the former it closes the connection on and raises, on the first try.

The caller then knows the request may have reached the service, and decides (Vertex AI's
client looks for the job by its submission label before it tries again). A failure while
sending (connection refused, an unknown host) still propagates as it did: nothing was received.
One exception remains httplib2's: ``ENETUNREACH``/``EADDRNOTAVAIL`` while sending is tried
again; the network was unreachable, so nothing had arrived.
"""

from __future__ import annotations

import http.client
from typing import Any

import httplib2


class AnswerLost(ConnectionResetError):
    """The connection closed after the request was sent and before the answer's status line:
    the service may have acted on it."""


class _SendsOnce(http.client.HTTPConnection):
    """Reports a connection that closed before the answer as ``AnswerLost``, which httplib2
    does not resend on (mixed into its HTTP and HTTPS connections)."""

    def getresponse(self) -> http.client.HTTPResponse:
        try:
            return super().getresponse()
        except (http.client.BadStatusLine, http.client.ResponseNotReady) as exc:
            raise AnswerLost(f"the connection closed before the answer came "
                             f"({type(exc).__name__}: {exc or 'no status line'})") from None


class _Connection(_SendsOnce, httplib2.HTTPConnectionWithTimeout):
    pass


class _SecureConnection(_SendsOnce, httplib2.HTTPSConnectionWithTimeout):
    pass


_CONNECTIONS = {"http": _Connection, "https": _SecureConnection}


class SingleSendHttp(httplib2.Http):
    """``httplib2.Http`` whose requests are each sent once, on a connection of their own."""

    def request(self, uri: str, method: str = "GET", body: Any = None,
                headers: dict[str, str] | None = None,
                redirections: int = httplib2.DEFAULT_MAX_REDIRECTS,
                connection_type: Any = None) -> tuple[Any, bytes]:
        for connection in list(self.connections.values()):
            connection.close()
        self.connections.clear()
        scheme = uri.split(":", 1)[0].lower()
        return super().request(uri, method, body=body, headers=headers,
                               redirections=redirections,
                               connection_type=connection_type or _CONNECTIONS.get(scheme))
