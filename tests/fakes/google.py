"""A fake of the Google endpoints gpujob talks to, served over real HTTP on 127.0.0.1: one
server, one port, one set of tokens for all of them.

- ``POST /token``: the OAuth 2.0 token endpoint. It accepts a JWT bearer grant only when the JWT is
  signed (RS256) by a key it was told to trust, for that key's account, addressed to Google's
  token endpoint (as Google requires), and current (``fakes.auth``).
- ``POST /v1/projects/-/serviceAccounts/EMAIL:generateAccessToken``: IAM Credentials, for
  impersonation, when the caller was allowed to act as EMAIL.
- ml v1 ``projects.jobs`` create, get, list, cancel (``fakes.ml``: ``add_job``, ``script``).
- aiplatform v1 ``customJobs`` and ``hyperparameterTuningJobs`` (``fakes.vertex``, reached as
  ``fake.vertex``; its docstring is the manual).
- logging v2 ``entries.list`` (``fakes.cloudlogging``: ``add_log``, ``vertex.add_log``).
- Compute Engine, Artifact Registry and Cloud Billing, as ``gpujob catalog refresh`` reads them
  (``fakes.catalog_apis``, reached as ``fake.catalogs``; Cloud Billing takes an API key).
- serviceusage v1beta1 ``consumerQuotaMetrics`` get and list (``fakes.serviceusage``, reached as
  ``fake.quota``).
- bigquery v2 ``jobs.query`` and ``jobs.getQueryResults`` over Cloud Billing export tables
  (``fakes.bigquery``, reached as ``fake.bigquery``).
- Compute Engine ``advice.capacity`` and ``advice.calendarMode`` (``fakes.advice``, reached as
  ``fake.advice``).
- ``/computeMetadata/v1/...``: enough of the metadata server for Application Default Credentials.

Every API call must carry a bearer token this fake issued; every body and query is checked
against the discovery documents bundled with google-api-python-client, and stored jobs are
answered as the service prints them (int64 as strings, defaults left out). Faults are queued
per route with ``inject`` (``fakes.faults``); error bodies to inject are in ``fakes.errors``.
"""

from __future__ import annotations

import contextlib
import json
import re
import secrets
import socket
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from email.utils import formatdate
from typing import Any
from urllib.parse import parse_qs, urlsplit

from fakes import (
    advice,
    auth,
    bigquery,
    catalog_apis,
    cloudlogging,
    ml,
    serviceusage,
    serving,
    vertex_api,
)
from fakes.auth import GOOGLE_TOKEN_AUDIENCE
from fakes.discovery import method, violations
from fakes.errors import (
    Refused,
    error_body,
    invalid_field,
    permission_denied,
    quota_exceeded,
    service_disabled,
    shutdown,
    unavailable,
)
from fakes.faults import Drop, Garbled, Late, Reply, Stall, Trickle
from fakes.keys import ServiceAccountKey
from fakes.ml import TERMINAL
from fakes.routing import CLOUD_PLATFORM, IAM, Call, Route
from fakes.times import now_text
from fakes.vertex import VertexAI

__all__ = ["CLOUD_PLATFORM", "GOOGLE_TOKEN_AUDIENCE", "IAM", "TERMINAL", "Drop", "FakeGoogle",
           "Recorded", "Reply", "Stall", "Trickle", "error_body", "invalid_field", "now_text",
           "permission_denied", "quota_exceeded", "service_disabled", "shutdown", "unavailable"]

# query parameters every Google API accepts (the discovery document's top-level "parameters")
_STANDARD = {"alt", "fields", "key", "prettyPrint", "quotaUser", "upload_protocol",
             "uploadType", "$.xgafv", "access_token", "callback", "oauth_token"}
ROUTES: list[Route] = [*auth.ROUTES, *ml.ROUTES, *vertex_api.ROUTES, *cloudlogging.ROUTES,
                       *catalog_apis.ROUTES, *serviceusage.ROUTES, *bigquery.ROUTES,
                       *advice.ROUTES]
_PLAIN = [("POST", r"/token", "token"), ("GET", r"/|/computeMetadata/v1/(?P<meta>.*)", "metadata")]


@dataclass
class Recorded:
    route: str
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any
    principal: str | None = None


@dataclass
class Token:
    principal: str
    scopes: list[str]
    expires: float


class FakeGoogle:
    """The fake; ``url`` is its base address (``http://127.0.0.1:PORT/``)."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.requests: list[Recorded] = []
        self.keys: dict[str, ServiceAccountKey] = {}
        self.tokens: dict[str, Token] = {}
        self.impersonation: set[tuple[str, str]] = set()
        self.faults: dict[str, deque[Any]] = defaultdict(deque)
        self.waiting: dict[str, list[Callable[[], None]]] = defaultdict(list)  # Late's, by route
        self.rejected: list[tuple[str, list[tuple[str, str]]]] = []  # invalid requests
        self.clock_offset = timedelta()  # how far the service's clock is ahead of ours
        self.metadata_account = "1234-compute@developer.gserviceaccount.com"
        self.metadata_project = "meta-project"
        self.projects: dict[str, str] = {}  # project id -> project number
        self.ml = ml.MlJobs(self)
        self.job_logs = cloudlogging.JobLogs(self)
        self.vertex = VertexAI(self)
        self.catalogs = catalog_apis.Catalogs()
        self.quota = serviceusage.Quotas(self)  # Service Usage's quota limits
        self.bigquery = bigquery.BillingTables()  # Cloud Billing export tables
        self.advice = advice.Advice()  # Compute Engine's capacity and calendar-mode advice
        self._server = serving.Server(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._server.fake = self  # type: ignore[attr-defined]
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/"
        self.token_uri = self.url + "token"

    def __enter__(self) -> FakeGoogle:
        serving.serve(self._server)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def now(self, delta: timedelta = timedelta()) -> str:
        """The time on the service's clock (``clock_offset`` ahead of ours), plus ``delta``."""
        return now_text(self.clock_offset + delta)

    # -- set-up ----------------------------------------------------------------------------

    def trust(self, key: ServiceAccountKey) -> None:
        """Let the token endpoint accept JWTs signed with ``key``."""
        self.keys[key.email] = key

    def allow_impersonation(self, caller: str, target: str) -> None:
        self.impersonation.add((caller, target))

    def add_project(self, project_id: str, number: str) -> None:
        """A project Vertex AI knows, by id and number (ml v1 takes any project)."""
        with self.lock:
            self.projects[project_id] = number

    def issue_token(self, principal: str, lifetime: float = 3600) -> str:
        token = "ya29.fake-" + secrets.token_urlsafe(24)
        with self.lock:
            self.tokens[token] = Token(principal, [CLOUD_PLATFORM], time.time() + lifetime)
        return token

    def inject(self, route: str, *faults: Any) -> None:
        """The next requests on ``route`` meet these faults, one each, in order (None: none)."""
        with self.lock:
            self.faults[route].extend(faults)

    # ml v1 jobs and their logs (kept here for the tests written before Vertex)
    @property
    def jobs(self) -> dict[tuple[str, str], dict[str, Any]]:
        return self.ml.jobs

    @property
    def scripts(self) -> dict[str, deque[Any]]:
        return self.ml.scripts

    @property
    def logs(self) -> dict[str, list[dict[str, Any]]]:
        return self.job_logs.logs

    def add_job(self, project: str, job: dict[str, Any], created: str | None = None,
                state: str = "QUEUED") -> dict[str, Any]:
        return self.ml.add_job(project, job, created, state)

    def script(self, job_id: str, *steps: Any) -> None:
        """Each later read of the ml job moves it one step: a state, or (state, [log lines])."""
        self.ml.script(job_id, *steps)

    def add_log(self, job_id: str, message: str | dict[str, Any], severity: str = "INFO",
                task: str = "master-replica-0") -> None:
        """A log entry of the ml job, written now: text, or a JSON payload when a dict."""
        self.job_logs.add(job_id, message, severity, task)

    # -- what happened ---------------------------------------------------------------------

    def calls(self, route: str) -> list[Recorded]:
        with self.lock:
            return [r for r in self.requests if r.route == route]

    @property
    def issued(self) -> list[str]:
        with self.lock:
            return list(self.tokens)

    # -- handling ----------------------------------------------------------------------------

    def next_fault(self, route: str) -> Any:
        with self.lock:
            return self.faults[route].popleft() if self.faults[route] else None

    def authorize(self, headers: dict[str, str], scopes: set[str] | frozenset[str]) -> str | None:
        """The account of a current bearer token that has one of ``scopes``."""
        found = re.fullmatch(r"Bearer (\S+)", headers.get("authorization", ""))
        with self.lock:
            token = self.tokens.get(found.group(1)) if found else None
            if token is None or token.expires < time.time() or not scopes & set(token.scopes):
                return None
            return token.principal

    def check(self, route: str, doc: str, path: tuple[str, ...], body: Any,
              query: dict[str, list[str]], strict: bool = False) -> list[tuple[str, str]]:
        """The request's problems against its discovery method description."""
        described = method(doc, *path)
        found = [(name, "unknown query parameter") for name in query
                 if name not in described.get("parameters", {}) and name not in _STANDARD]
        if "request" in described:
            found += violations(body, described["request"], doc, strict=strict)
        elif body not in (None, b"", ""):
            found.append(("(body)", "this method takes no body"))
        if found:
            with self.lock:
                self.rejected.append((route, found))
        return found


def _route(verb: str, path: str) -> tuple[Route | str, dict[str, str]]:
    for plain_verb, pattern, name in _PLAIN:
        found = re.fullmatch(pattern, path)
        if plain_verb == verb and found:
            return name, {k: v for k, v in found.groupdict().items() if v}
    for route in ROUTES:
        found = re.fullmatch(route.pattern, path)
        if route.verb == verb and found:
            return route, found.groupdict()
    return "unknown", {}


class _Handler(serving.Handler):
    timeout = 30

    @property
    def fake(self) -> FakeGoogle:
        return self.server.fake  # type: ignore[attr-defined]

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def date_time_string(self, timestamp: float | None = None) -> str:
        """The Date header, on the service's clock."""
        moment = (time.time() if timestamp is None else timestamp)
        return formatdate(moment + self.fake.clock_offset.total_seconds(), usegmt=True)

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    # -- plumbing ----------------------------------------------------------------------------

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None,
              trickle: Trickle | None = None) -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        content_type = "text/plain" if isinstance(body, bytes) else "application/json"
        self.send_header("Content-Type", f"{content_type}; charset=UTF-8")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if trickle is None:
            self.wfile.write(data)
        else:
            self.wfile.flush()
            size = -(-len(data) // trickle.pieces)
            for start in range(0, len(data), size):
                time.sleep(trickle.seconds / trickle.pieces)
                self.wfile.write(data[start:start + size])
                self.wfile.flush()
        self.wfile.flush()

    def _drop(self) -> None:
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def _garble(self, data: bytes) -> None:
        with contextlib.suppress(OSError):  # the client may stop reading and close first
            self.wfile.write(data)
            self.wfile.flush()
        self._drop()

    def _late(self, fault: Late, handle: Callable[[], object]) -> None:
        """Hold the request unanswered; act on it once, when ``fault.until`` is called or when
        ``fault.seconds`` have passed, whichever comes first; then close without an answer."""
        once = threading.Lock()

        def act() -> None:
            if once.acquire(blocking=False):
                with contextlib.suppress(Refused):
                    handle()

        if fault.until is not None:
            with self.fake.lock:
                self.fake.waiting[fault.until].append(act)
        time.sleep(fault.seconds)
        act()
        self._drop()

    def _serve(self, verb: str) -> None:
        parts = urlsplit(self.path)
        query = parse_qs(parts.query, keep_blank_values=True)
        headers = {k.lower(): v for k, v in self.headers.items()}
        raw = self.rfile.read(int(headers.get("content-length") or 0))
        route, params = _route(verb, parts.path)
        name = route if isinstance(route, str) else route.name
        if name == "token":
            body: Any = parse_qs(raw.decode())
        elif name == "metadata" or not raw:
            body = None
        else:
            try:
                body = json.loads(raw)
            except ValueError:
                body = raw
        record = Recorded(name, verb, parts.path, query, headers, body)
        with self.fake.lock:
            self.fake.requests.append(record)
            waiting = self.fake.waiting.pop(name, [])
        for act in waiting:  # requests held by a Late fault until this route was called
            act()
        fault = self.fake.next_fault(name)
        if isinstance(fault, Late):
            self._late(fault, lambda: self._handle(route, params, query, headers, body, record))
            return
        if isinstance(fault, Reply) and not fault.handled:
            self._send(fault.status, fault.body, fault.headers)
            return
        if isinstance(fault, Drop) and not fault.after:
            self._drop()
            return
        if isinstance(fault, Garbled) and not fault.handled:
            self._garble(fault.data)
            return
        try:
            status, answer, extra = self._handle(route, params, query, headers, body, record)
        except Refused as refused:
            status, answer, extra = refused.status, refused.body, refused.headers
        if isinstance(fault, Drop):
            self._drop()
            return
        if isinstance(fault, Garbled):
            self._garble(fault.data)
            return
        if isinstance(fault, Reply):
            status, answer, extra = fault.status, fault.body, fault.headers
        if isinstance(fault, Stall):
            time.sleep(fault.seconds)
        try:
            self._send(status, answer, extra, fault if isinstance(fault, Trickle) else None)
        except OSError:
            self.close_connection = True  # the client gave up (a Stall)

    def _handle(self, route: Route | str, params: dict[str, str], query: dict[str, list[str]],
                headers: dict[str, str], body: Any, record: Recorded
                ) -> tuple[int, Any, dict[str, str]]:
        fake = self.fake
        if route == "token":
            return auth.token(fake, body)
        if route == "metadata":
            return auth.metadata(fake, params.get("meta", ""), headers)
        if isinstance(route, str):
            raise Refused(404, error_body(404, "NOT_FOUND", f"no such method: {self.path}"))
        record.principal = (catalog_apis.key_guard(fake, query) if route.api_key
                            else fake.authorize(headers, route.scopes))
        if record.principal is None:
            raise Refused(401, error_body(
                401, "UNAUTHENTICATED", "Request had invalid authentication credentials. "
                "Expected OAuth 2 access token."))
        call = Call(route.name, params, query, body, record.principal)
        if route.guard:
            route.guard(fake, call)
        if route.doc:
            problems = fake.check(route.name, route.doc, route.method, call.body, query,
                                  route.strict)
            if problems:
                raise route.invalid(problems)
        return route.handler(fake, call)
