"""The fakes' servers say nothing when a client goes away mid-answer (gpujob stopping early, a
pool closing its connections): socketserver printed a traceback for it on stderr, a stray
"Traceback" in a test's output that was no error of the test's. An error of a handler itself is
still printed."""

from __future__ import annotations

import socket
import struct
import sys
import threading
from typing import Any

import pytest
from fakes import serving
from fakes.kubernetes import FakeKubernetes

BIG = 32 * 1024 * 1024  # more than loopback's socket buffers hold: the write is under way


class Watched:
    """``server``'s requests, each noted once its handler has ended (``ended``), with the error
    it ended with, if any (``errors``)."""

    def __init__(self, server: Any) -> None:
        self.ended = threading.Event()
        self.errors: list[BaseException | None] = []
        process, handle_error = server.process_request_thread, server.handle_error

        def noting_error(request: Any, address: Any) -> None:
            self.errors.append(sys.exc_info()[1])
            handle_error(request, address)

        def noting_end(request: Any, address: Any) -> None:
            try:
                process(request, address)
            finally:
                self.ended.set()

        server.handle_error, server.process_request_thread = noting_error, noting_end


def test_a_client_that_resets_the_connection_mid_answer_leaves_no_traceback(capfd):
    with FakeKubernetes() as fake:
        fake.objects["/api/v1/namespaces/default/configmaps/big"] = {"data": {"x": "y" * BIG}}
        watched = Watched(fake.server)
        host, port = fake.server.server_address[:2]
        with socket.create_connection((host, port)) as client:
            client.sendall(b"GET /api/v1/namespaces/default/configmaps/big HTTP/1.1\r\n"
                           b"Host: x\r\nAuthorization: Bearer " + fake.token.encode() +
                           b"\r\n\r\n")
            assert client.recv(12).startswith(b"HTTP/1.1 200")  # the answer is being written
            # close with a reset (SO_LINGER 0), as a client does that stops reading
            client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        assert watched.ended.wait(60)  # (only a hang waits that long)
    assert len(watched.errors) == 1 and isinstance(watched.errors[0], serving.DISCONNECTS), \
        watched.errors
    assert "Traceback" not in capfd.readouterr().err


def test_an_error_of_a_handler_itself_is_still_printed(capfd):
    with FakeKubernetes() as fake:
        try:
            raise KeyError("a bug in the fake")
        except KeyError:
            fake.server.handle_error(None, ("127.0.0.1", 1))
    err = capfd.readouterr().err
    assert "Traceback" in err and "KeyError: 'a bug in the fake'" in err


@pytest.mark.parametrize("error", [BrokenPipeError(32, "Broken pipe"),
                                   ConnectionResetError(104, "Connection reset by peer")])
def test_a_disconnect_is_not_printed(capfd, error: OSError):
    with FakeKubernetes() as fake:
        try:
            raise error
        except OSError:
            fake.server.handle_error(None, ("127.0.0.1", 1))
    assert capfd.readouterr().err == ""
