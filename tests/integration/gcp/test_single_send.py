"""gpujob.gcp.once: a request whose connection closes before the answer is sent once, never
again by httplib2, over plain HTTP and TLS; a plain httplib2.Http sends it twice."""

from __future__ import annotations

import http.client
import socket
import ssl
import threading
from collections.abc import Iterator

import httplib2
import pytest
from tls import certificate

from gpujob.gcp.once import AnswerLost, SingleSendHttp


class Server:
    """Counts requests on 127.0.0.1; answers 200, or (``drop``) closes before any answer."""

    def __init__(self, context: ssl.SSLContext | None = None) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.context = context
        self.requests = 0
        self.connections = 0
        self.drop = False
        scheme = "https" if context else "http"
        self.url = f"{scheme}://localhost:{self.listener.getsockname()[1]}/v1/things"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        self.connections += 1
        try:
            if self.context is not None:
                conn = self.context.wrap_socket(conn, server_side=True)
            stream = conn.makefile("rb")
            while True:
                head = b""
                while not head.endswith(b"\r\n\r\n"):
                    byte = stream.read(1)
                    if not byte:
                        return
                    head += byte
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                stream.read(length)
                self.requests += 1
                if self.drop:
                    return
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
        except (OSError, ssl.SSLError):
            return
        finally:
            conn.close()

    def close(self) -> None:
        self.listener.close()


@pytest.fixture(params=["http", "https"])
def server(request, tmp_path) -> Iterator[tuple[Server, str | None]]:
    ca = None
    context = None
    if request.param == "https":
        cert, key = certificate(tmp_path)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        ca = str(cert)
    made = Server(context)
    yield made, ca
    made.close()


def test_a_lost_answer_is_not_sent_again(server):
    made, ca = server
    made.drop = True
    with pytest.raises(AnswerLost, match="the connection closed before the answer came"):
        SingleSendHttp(timeout=5, ca_certs=ca).request(made.url, "POST", body="{}")
    assert made.requests == 1


def test_httplib2_alone_sends_it_twice(server):
    made, ca = server
    made.drop = True
    with pytest.raises(http.client.RemoteDisconnected):
        httplib2.Http(timeout=5, ca_certs=ca).request(made.url, "POST", body="{}")
    assert made.requests == 2


def test_answers_come_back_each_on_a_connection_of_its_own(server):
    made, ca = server
    http = SingleSendHttp(timeout=5, ca_certs=ca)
    for _ in range(2):
        response, content = http.request(made.url, "POST", body="{}")
        assert (response.status, content) == (200, b"{}")
    assert (made.requests, made.connections) == (2, 2)
