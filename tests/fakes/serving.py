"""How the fakes serve HTTP: keep-alive over loopback, answering as quickly as a front end
would, so that a test's time is gpujob's and not the fake's."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler
from socketserver import BaseServer

# serve_forever's poll: shutdown() at each test's end waits up to this long
POLL_S = 0.005


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as Google's and Kubernetes' front ends do
    # The headers and the body leave in separate writes: with Nagle on, each answer would wait
    # ~40 ms for the client's delayed ACK, a cost no real front end has.
    disable_nagle_algorithm = True


def serve(server: BaseServer) -> threading.Thread:
    """Serve ``server`` on a daemon thread until ``server.shutdown()``."""
    thread = threading.Thread(target=server.serve_forever, args=(POLL_S,), daemon=True)
    thread.start()
    return thread
