"""How the fakes serve HTTP: keep-alive over loopback, answering as quickly as a front end
would, so that a test's time is gpujob's and not the fake's."""

from __future__ import annotations

import ssl
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from socketserver import BaseServer
from typing import Any

# serve_forever's poll: shutdown() at each test's end waits up to this long
POLL_S = 0.005


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as Google's and Kubernetes' front ends do
    # The headers and the body leave in separate writes: with Nagle on, each answer would wait
    # ~40 ms for the client's delayed ACK, a cost no real front end has.
    disable_nagle_algorithm = True


# what a handler meets when the client has gone away mid-request (closed or reset its end): the
# client's doing, as gpujob does when it stops early, or a pool closes a keep-alive connection
DISCONNECTS = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, ssl.SSLEOFError)


class Server(ThreadingHTTPServer):
    """A fake's server: quiet when a client goes away (socketserver would print a traceback on
    stderr, in the test's output, for the client's disconnect); any other error of a handler
    is printed as ever."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], DISCONNECTS):
            return
        super().handle_error(request, client_address)


def serve(server: BaseServer) -> threading.Thread:
    """Serve ``server`` on a daemon thread until ``server.shutdown()``."""
    thread = threading.Thread(target=server.serve_forever, args=(POLL_S,), daemon=True)
    thread.start()
    return thread
