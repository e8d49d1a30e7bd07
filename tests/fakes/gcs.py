"""Cloud Storage for the tests: the gcp-storage-emulator (a maintained emulator from PyPI) on
127.0.0.1, behind a small front that adds what the emulator leaves out.

The emulator stores objects, runs resumable uploads, and checks an upload against the MD5 or
CRC32C given in its metadata, as Cloud Storage does. It checks no credentials, so the front does:
every request must carry a bearer token the fake Google issued, and ``deny(bucket, permission)``
makes the front answer 403 the way Cloud Storage words it. The front also records each request
(to count uploads) and can meet requests with faults: a status instead of an answer, an upload's
bytes changed in transit, the MD5 taken out of an upload's metadata.
"""

from __future__ import annotations

import http.client
import json
import threading
from collections import deque
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from gcp_storage_emulator.server import create_server

from fakes import serving
from fakes.google import CLOUD_PLATFORM, FakeGoogle

_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "upgrade",
               "proxy-connection"}


def gcs_error(code: int, message: str, reason: str) -> dict[str, Any]:
    """An error as Cloud Storage's JSON API answers it (no ``status`` field, unlike most APIs)."""
    return {"error": {"code": code, "message": message,
                      "errors": [{"message": message, "domain": "global", "reason": reason}]}}


@dataclass
class Seen:
    method: str
    path: str
    query: dict[str, list[str]]
    principal: str | None

    @property
    def upload_start(self) -> bool:
        return self.method == "POST" and self.path.startswith("/upload/")

    @property
    def upload_part(self) -> bool:
        return self.method == "PUT" and self.path.startswith("/upload/")


class Emulator:
    """gcp-storage-emulator in this process, in memory. Stopping it takes half a second, so the
    tests share one and each makes its own bucket (``create_bucket``)."""

    def __init__(self) -> None:
        self.server = create_server("127.0.0.1", 0, in_memory=True)
        self.server.start()
        # create_server takes port 0 (pick a free one) but has no public way to tell which: the
        # bound address is on its HTTP server. Binding first and passing a free port instead
        # could race, and a failed bind would leave start() waiting for ever.
        port = self.server._api._httpd.server_address[1]
        self.url = f"http://127.0.0.1:{port}"

    def stop(self) -> None:
        self.server.stop()

    def get(self, path: str) -> tuple[int, bytes]:
        return self._request("GET", path)

    def _request(self, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes]:
        host = urlsplit(self.url)
        conn = http.client.HTTPConnection(host.hostname, host.port, timeout=10)
        try:
            conn.request(method, path, body=body,
                         headers={"Content-Type": "application/json"} if body else {})
            answer = conn.getresponse()
            return answer.status, answer.read()
        finally:
            conn.close()

    def create_bucket(self, name: str) -> None:
        """A new, empty bucket (made directly in the emulator, as a test's setup)."""
        status, body = self._request("POST", "/storage/v1/b",
                                     json.dumps({"name": name}).encode())
        assert status == 200, (status, body)

    def objects(self, bucket: str) -> dict[str, dict[str, Any]]:
        """Every object of the bucket (name -> metadata), read from the emulator directly."""
        status, body = self.get(f"/storage/v1/b/{bucket}/o")
        assert status == 200, (status, body)
        return {item["name"]: item for item in json.loads(body).get("items") or []}

    def content(self, bucket: str, name: str) -> bytes:
        status, body = self.get(f"/download/storage/v1/b/{bucket}/o/{quote(name, safe='')}"
                                "?alt=media")
        assert status == 200, (status, name)
        return body


class StorageFront:
    """Cloud Storage as gpujob meets it: the emulator, behind credentials and permissions."""

    def __init__(self, google: FakeGoogle, emulator: Emulator, bucket: str) -> None:
        self.google = google
        self.emulator = emulator
        self.bucket = bucket  # the test's own bucket in the emulator
        self.lock = threading.Lock()
        self.seen: list[Seen] = []
        self.denied: set[tuple[str, str]] = set()
        self.replies: deque[list[Any]] = deque()  # [method, status, body, requests to pass]
        self.corrupt_next_part = False
        self.strip_md5_next_start = False
        self._server = serving.Server(("127.0.0.1", 0), _FrontHandler)
        self._server.daemon_threads = True
        self._server.front = self  # type: ignore[attr-defined]
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/"
        serving.serve(self._server)

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def deny(self, bucket: str, permission: str) -> None:
        """Nobody has ``permission`` (storage.objects.get or .create) on ``bucket``."""
        self.denied.add((bucket, permission))

    def reply(self, method: str, status: int, body: dict[str, Any], after: int = 0) -> None:
        """Answer a ``method`` request with ``status`` and ``body`` instead of passing it on:
        the next one, or the one after ``after`` more have passed."""
        with self.lock:
            self.replies.append([method, status, body, after])

    def requests(self) -> list[Seen]:
        with self.lock:
            return list(self.seen)


def _permission(method: str, path: str, query: dict[str, list[str]]) -> tuple[str, str] | None:
    """(bucket, permission) a request needs; None for an upload's parts (its session URI is
    what authorizes them, as in Cloud Storage)."""
    parts = path.strip("/").split("/")
    if "b" not in parts:
        return None
    bucket = parts[parts.index("b") + 1]
    if method == "GET":
        return bucket, "storage.objects.get"
    if method == "POST" and parts[0] == "upload" and "upload_id" not in query:
        return bucket, "storage.objects.create"
    return None


class _FrontHandler(serving.Handler):
    timeout = 30

    @property
    def front(self) -> StorageFront:
        return self.server.front  # type: ignore[attr-defined]

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def do_PUT(self) -> None:
        self._serve("PUT")

    def _send(self, status: int, body: bytes, headers: list[tuple[str, str]]) -> None:
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _send_json(self, status: int, body: dict[str, Any]) -> None:
        self._send(status, json.dumps(body).encode(),
                   [("Content-Type", "application/json; charset=UTF-8")])

    def _serve(self, method: str) -> None:
        front = self.front
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        headers = {k.lower(): v for k, v in self.headers.items()}
        body = self.rfile.read(int(headers.get("content-length") or 0))
        principal = front.google.authorize(headers, {CLOUD_PLATFORM})
        with front.lock:
            front.seen.append(Seen(method, parts.path, query, principal))
            reply = front.replies[0] if front.replies and front.replies[0][0] == method \
                else None
            if reply and reply[3]:
                reply[3] -= 1
                reply = None
            elif reply:
                front.replies.popleft()
        if reply:
            self._send_json(reply[1], reply[2])
            return
        needed = _permission(method, parts.path, query)
        if principal is None and needed is not None:
            self._send_json(401, gcs_error(401, "Anonymous caller does not have storage "
                                                "access.", "required"))
            return
        if needed is not None and needed in front.denied:
            permission = needed[1]
            message = (f"{principal} does not have {permission} access to the Google Cloud "
                       f"Storage object. Permission '{permission}' denied on resource (or it "
                       "may not exist).")
            self._send_json(403, gcs_error(403, message, "forbidden"))
            return
        if method == "POST" and front.strip_md5_next_start and "upload_id" not in query:
            front.strip_md5_next_start = False
            metadata = json.loads(body)
            metadata.pop("md5Hash", None)
            body = json.dumps(metadata).encode()
        if method == "PUT" and front.corrupt_next_part and body:
            front.corrupt_next_part = False
            body = bytes([body[0] ^ 0xFF]) + body[1:]
        self._forward(method, body, headers)

    def _forward(self, method: str, body: bytes, headers: dict[str, str]) -> None:
        """Pass the request on, keeping the Host header: the emulator builds resumable session
        URIs from it, so they lead back through the front."""
        target = urlsplit(self.front.emulator.url)
        conn = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
        try:
            sent = {k: v for k, v in headers.items() if k not in _HOP_BY_HOP}
            sent["content-length"] = str(len(body))
            conn.request(method, self.path, body=body, headers=sent)
            answer = conn.getresponse()
            content = answer.read()
            kept = [(k, v) for k, v in answer.getheaders()
                    if k.lower() not in _HOP_BY_HOP and k.lower() != "content-length"]
            self._send(answer.status, content, kept)
        finally:
            conn.close()
