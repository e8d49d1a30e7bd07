"""A fake of the Google endpoints gpujob talks to, served over real HTTP on 127.0.0.1.

- ``POST /token``: the OAuth 2.0 token endpoint. It accepts a JWT bearer grant only when the JWT is
  signed (RS256) by a key it was told to trust, for that key's account, addressed to Google's
  token endpoint (as Google requires), and current.
- ``POST /v1/projects/-/serviceAccounts/EMAIL:generateAccessToken``: IAM Credentials, for
  impersonation, when the caller was allowed to act as EMAIL.
- ml v1 ``projects.jobs`` create, get, list, cancel; logging v2 ``entries.list``.
- ``/computeMetadata/v1/...``: enough of the metadata server for Application Default Credentials.

Every API call must carry a bearer token this fake issued; every body and query is checked
against the discovery documents bundled with google-api-python-client, and stored jobs are
answered as the service prints them (int64 as strings, defaults left out). Faults are queued
per route with ``inject``.
"""

from __future__ import annotations

import base64
import contextlib
import json
import re
import secrets
import socket
import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding

from fakes.discovery import method, proto3_json, violations
from fakes.keys import ServiceAccountKey

CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform"
IAM = "https://www.googleapis.com/auth/iam"
# Google's token endpoint wants this audience in JWT grants, wherever they are sent
GOOGLE_TOKEN_AUDIENCE = "https://oauth2.googleapis.com/token"
TERMINAL = {"SUCCEEDED", "FAILED", "CANCELLED"}
# query parameters every Google API accepts (the discovery document's top-level "parameters")
_STANDARD = {"alt", "fields", "key", "prettyPrint", "quotaUser", "upload_protocol",
             "uploadType", "$.xgafv", "access_token", "callback", "oauth_token"}

ROUTES: list[tuple[str, str, str]] = [
    ("POST", r"/token", "token"),
    ("POST", r"/v1/projects/-/serviceAccounts/(?P<target>[^/:]+):generateAccessToken",
     "iam.generateAccessToken"),
    ("POST", r"/v1/projects/(?P<project>[^/]+)/jobs", "jobs.create"),
    ("GET", r"/v1/projects/(?P<project>[^/]+)/jobs", "jobs.list"),
    ("GET", r"/v1/projects/(?P<project>[^/]+)/jobs/(?P<job>[^/:]+)", "jobs.get"),
    ("POST", r"/v1/projects/(?P<project>[^/]+)/jobs/(?P<job>[^/:]+):cancel", "jobs.cancel"),
    ("POST", r"/v2/entries:list", "entries.list"),
    ("GET", r"/|/computeMetadata/v1/(?P<meta>.*)", "metadata"),
]


def now_text(delta: timedelta = timedelta()) -> str:
    return (datetime.now(timezone.utc) + delta).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def error_body(code: int, status: str, message: str,
               details: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message, "status": status}
    if details:
        error["details"] = details
    return {"error": error}


# -- the answers a fault can give (shaped like Google's) --------------------------------------

def service_disabled(project_number: str = "123456789") -> dict[str, Any]:
    url = ("https://console.developers.google.com/apis/api/ml.googleapis.com/overview?project="
           f"{project_number}")
    return error_body(403, "PERMISSION_DENIED",
                      f"AI Platform Training & Prediction API has not been used in project "
                      f"{project_number} before or it is disabled. Enable it by visiting {url} "
                      "then retry. If you enabled this API recently, wait a few minutes for the "
                      "action to propagate to our systems and retry.", [
                          {"@type": "type.googleapis.com/google.rpc.ErrorInfo",
                           "reason": "SERVICE_DISABLED", "domain": "googleapis.com",
                           "metadata": {"service": "ml.googleapis.com",
                                        "consumer": f"projects/{project_number}",
                                        "activationUrl": url}}])


def permission_denied(permission: str, resource: str) -> dict[str, Any]:
    return error_body(403, "PERMISSION_DENIED",
                      f"Permission '{permission}' denied on resource '{resource}' (or it may "
                      "not exist).", [
                          {"@type": "type.googleapis.com/google.rpc.ErrorInfo",
                           "reason": "IAM_PERMISSION_DENIED", "domain": "iam.googleapis.com",
                           "metadata": {"permission": permission}}])


def shutdown() -> dict[str, Any]:
    """What the API answered creates with after the 2025-01-31 shutdown
    (hashicorp/terraform-provider-google#22249)."""
    return error_body(400, "FAILED_PRECONDITION",
                      "Cloud AI Platform has been deprecated. Please use Vertex AI "
                      "(https://cloud.google.com/vertex-ai) instead.")


def quota_exceeded() -> dict[str, Any]:
    return error_body(429, "RESOURCE_EXHAUSTED",
                      "Quota exceeded for quota metric 'Job create requests' and limit 'Job "
                      "create requests per minute' of service 'ml.googleapis.com'.")


def unavailable() -> dict[str, Any]:
    return error_body(503, "UNAVAILABLE", "The service is currently unavailable.")


def invalid_field(field_name: str, description: str) -> dict[str, Any]:
    return error_body(400, "INVALID_ARGUMENT", "Request contains an invalid argument.", [
        {"@type": "type.googleapis.com/google.rpc.BadRequest",
         "fieldViolations": [{"field": field_name, "description": description}]}])


# -- faults -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Reply:
    """Answer with this status and body instead of handling the request."""

    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Drop:
    """Close the connection without a response: after handling the request (its effect, such as
    a stored job, stays) or before."""

    after: bool = True


@dataclass(frozen=True)
class Stall:
    """Handle the request, then wait ``seconds`` before answering (a client timeout)."""

    seconds: float


@dataclass(frozen=True)
class Drip:
    """Handle the request, then send the headers at once and the body one byte every
    ``interval`` seconds (a response that trickles in)."""

    interval: float


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
        self.jobs: dict[tuple[str, str], dict[str, Any]] = {}
        self.scripts: dict[str, deque[Any]] = {}
        self.logs: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.keys: dict[str, ServiceAccountKey] = {}
        self.tokens: dict[str, Token] = {}
        self.impersonation: set[tuple[str, str]] = set()
        self.faults: dict[str, deque[Any]] = defaultdict(deque)
        self.rejected: list[tuple[str, list[tuple[str, str]]]] = []  # invalid requests
        self.clock_offset = timedelta()  # how far the service's clock is ahead of ours
        self.metadata_account = "1234-compute@developer.gserviceaccount.com"
        self.metadata_project = "meta-project"
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._server.fake = self  # type: ignore[attr-defined]
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/"
        self.token_uri = self.url + "token"
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,),
                                        daemon=True)

    def __enter__(self) -> FakeGoogle:
        self._thread.start()
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

    def issue_token(self, principal: str, lifetime: float = 3600) -> str:
        token = "ya29.fake-" + secrets.token_urlsafe(24)
        with self.lock:
            self.tokens[token] = Token(principal, [CLOUD_PLATFORM], time.time() + lifetime)
        return token

    def inject(self, route: str, *faults: Any) -> None:
        """The next requests on ``route`` meet these faults, one each, in order."""
        with self.lock:
            self.faults[route].extend(faults)

    def add_job(self, project: str, job: dict[str, Any], created: str | None = None,
                state: str = "QUEUED") -> dict[str, Any]:
        with self.lock:
            stored = self._printed({**job, "state": state, "createTime": created or self.now(),
                                    "etag": base64.b64encode(secrets.token_bytes(8)).decode()})
            self.jobs[(project, job["jobId"])] = stored
            return stored

    def script(self, job_id: str, *steps: Any) -> None:
        """Each later read of the job moves it one step: a state, or (state, [log lines])."""
        with self.lock:
            self.scripts[job_id] = deque(steps)

    def add_log(self, job_id: str, message: str | dict[str, Any], severity: str = "INFO",
                task: str = "master-replica-0") -> None:
        """A log entry of the job, written now: text, or a JSON payload when a dict."""
        payload = {"jsonPayload": message} if isinstance(message, dict) else \
            {"textPayload": message}
        with self.lock:
            self.logs[job_id].append({
                "insertId": secrets.token_hex(6), "timestamp": self.now(), "severity": severity,
                "logName": f"projects/p/logs/{task}", **payload,
                "resource": {"type": "ml_job", "labels": {"job_id": job_id, "task_name": task,
                                                          "project_id": "p"}}})

    # -- what happened ---------------------------------------------------------------------

    def calls(self, route: str) -> list[Recorded]:
        with self.lock:
            return [r for r in self.requests if r.route == route]

    @property
    def issued(self) -> list[str]:
        with self.lock:
            return list(self.tokens)

    # -- handling ----------------------------------------------------------------------------

    @staticmethod
    def _printed(job: dict[str, Any]) -> dict[str, Any]:
        return proto3_json(job, {"$ref": "GoogleCloudMlV1__Job"}, "ml.v1")

    def next_fault(self, route: str) -> Any:
        with self.lock:
            return self.faults[route].popleft() if self.faults[route] else None

    def authorize(self, headers: dict[str, str], scopes: set[str]) -> str | None:
        """The account of a current bearer token that has one of ``scopes``."""
        found = re.fullmatch(r"Bearer (\S+)", headers.get("authorization", ""))
        with self.lock:
            token = self.tokens.get(found.group(1)) if found else None
            if token is None or token.expires < time.time() or not scopes & set(token.scopes):
                return None
            return token.principal

    def check(self, route: str, doc: str, path: tuple[str, ...], body: Any,
              query: dict[str, list[str]]) -> list[tuple[str, str]]:
        """The request's problems against its discovery method description."""
        described = method(doc, *path)
        found = [(name, "unknown query parameter") for name in query
                 if name not in described.get("parameters", {}) and name not in _STANDARD]
        if "request" in described:
            found += violations(body, described["request"], doc)
        elif body not in (None, b"", ""):
            found.append(("(body)", "this method takes no body"))
        if found:
            with self.lock:
                self.rejected.append((route, found))
        return found


def _verify_jwt(fake: FakeGoogle, assertion: str) -> tuple[str, list[str]] | str:
    """(account, scopes) of a valid grant, else the reason it is refused."""

    def b64(part: str) -> bytes:
        return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))

    try:
        head, claims_part, signature = assertion.split(".")
        header, claims = json.loads(b64(head)), json.loads(b64(claims_part))
    except ValueError:
        return "malformed JWT"
    key = fake.keys.get(claims.get("iss", ""))
    if key is None or header.get("alg") != "RS256" or header.get("kid") != key.key_id:
        return "unknown signing key"
    try:
        key.public_key.verify(b64(signature), f"{head}.{claims_part}".encode(),
                              padding.PKCS1v15(), hashes.SHA256())
    except InvalidSignature:
        return "Invalid JWT Signature."
    now = time.time()
    if claims.get("aud") != GOOGLE_TOKEN_AUDIENCE:
        return "Invalid JWT: wrong audience"
    if not claims.get("iat", 0) - 300 <= now < claims.get("exp", 0) <= claims["iat"] + 3600:
        return "Invalid JWT: Token must be a short-lived token and in a reasonable timeframe."
    return claims["iss"], str(claims.get("scope", "")).split()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as Google's front ends do
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

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        content_type = "text/plain" if isinstance(body, bytes) else "application/json"
        self.send_header("Content-Type", f"{content_type}; charset=UTF-8")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _drip(self, status: int, body: Any, interval: float) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=UTF-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.flush()
        for i in range(len(data)):
            self.wfile.write(data[i:i + 1])
            self.wfile.flush()
            time.sleep(interval)

    def _drop(self) -> None:
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def _serve(self, verb: str) -> None:
        parts = urlsplit(self.path)
        query = parse_qs(parts.query, keep_blank_values=True)
        headers = {k.lower(): v for k, v in self.headers.items()}
        raw = self.rfile.read(int(headers.get("content-length") or 0))
        route, params = "unknown", {}
        for route_verb, pattern, name in ROUTES:
            found = re.fullmatch(pattern, parts.path)
            if route_verb == verb and found:
                route, params = name, {k: v for k, v in found.groupdict().items() if v}
                break
        if route == "token":
            body: Any = parse_qs(raw.decode())
        elif route == "metadata" or not raw:
            body = None
        else:
            try:
                body = json.loads(raw)
            except ValueError:
                body = raw
        record = Recorded(route, verb, parts.path, query, headers, body)
        with self.fake.lock:
            self.fake.requests.append(record)
        fault = self.fake.next_fault(route)
        if isinstance(fault, Reply):
            self._send(fault.status, fault.body, fault.headers)
            return
        if isinstance(fault, Drop) and not fault.after:
            self._drop()
            return
        try:
            status, answer, extra = self._handle(route, params, query, headers, body, record)
        except _Refused as refused:
            status, answer, extra = refused.status, refused.body, refused.headers
        if isinstance(fault, Drop):
            self._drop()
            return
        if isinstance(fault, Stall):
            time.sleep(fault.seconds)
        try:
            if isinstance(fault, Drip):
                self._drip(status, answer, fault.interval)
                return
            self._send(status, answer, extra)
        except OSError:
            self.close_connection = True  # the client gave up (a Stall)

    # -- the endpoints -----------------------------------------------------------------------

    def _handle(self, route: str, params: dict[str, str], query: dict[str, list[str]],
                headers: dict[str, str], body: Any, record: Recorded
                ) -> tuple[int, Any, dict[str, str]]:
        fake = self.fake
        if route == "token":
            return self._token(body)
        if route == "metadata":
            return self._metadata(params.get("meta", ""), query, headers)
        if route == "unknown":
            raise _Refused(404, error_body(404, "NOT_FOUND", f"no such method: {self.path}"))
        # IAM Credentials also takes the narrower iam scope google-auth gives source credentials
        accepted = {CLOUD_PLATFORM, IAM} if route.startswith("iam.") else {CLOUD_PLATFORM}
        record.principal = fake.authorize(headers, accepted)
        if record.principal is None:
            raise _Refused(401, error_body(
                401, "UNAUTHENTICATED", "Request had invalid authentication credentials. "
                "Expected OAuth 2 access token."))
        doc, path = {
            "iam.generateAccessToken": ("iamcredentials.v1",
                                        ("projects", "serviceAccounts", "generateAccessToken")),
            "jobs.create": ("ml.v1", ("projects", "jobs", "create")),
            "jobs.get": ("ml.v1", ("projects", "jobs", "get")),
            "jobs.list": ("ml.v1", ("projects", "jobs", "list")),
            "jobs.cancel": ("ml.v1", ("projects", "jobs", "cancel")),
            "entries.list": ("logging.v2", ("entries", "list")),
        }[route]
        if doc:
            problems = fake.check(route, doc, path, body, query)
            if problems:
                field_name, description = problems[0]
                raise _Refused(400, invalid_field(field_name, description))
        handler = getattr(self, "_" + route.replace(".", "_"))
        return handler(params, query, body, record.principal)

    def _token(self, form: dict[str, list[str]]) -> tuple[int, Any, dict[str, str]]:
        grant = form.get("grant_type", [""])[0]
        if grant != "urn:ietf:params:oauth:grant-type:jwt-bearer":
            return 400, {"error": "unsupported_grant_type"}, {}
        verdict = _verify_jwt(self.fake, form.get("assertion", [""])[0])
        if isinstance(verdict, str):
            return 400, {"error": "invalid_grant", "error_description": verdict}, {}
        account, scopes = verdict
        token = self.fake.issue_token(account)
        with self.fake.lock:
            self.fake.tokens[token].scopes = scopes
        return 200, {"access_token": token, "expires_in": 3599, "token_type": "Bearer"}, {}

    def _metadata(self, path: str, query: dict[str, list[str]],
                  headers: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        flavor = {"Metadata-Flavor": "Google"}
        if headers.get("metadata-flavor") != "Google":
            return 403, b"Missing Metadata-Flavor:Google header.", flavor
        fake = self.fake
        account = fake.metadata_account
        answers: dict[str, Any] = {
            "": b"computeMetadata/\n",
            "project/project-id": fake.metadata_project.encode(),
            "universe/universe-domain": b"googleapis.com",
            "universe/universe_domain": b"googleapis.com",
            "instance/service-accounts/default/": {"email": account, "aliases": ["default"],
                                                   "scopes": [CLOUD_PLATFORM]},
            "instance/service-accounts/default/email": account.encode(),
        }
        if path == "instance/service-accounts/default/token":
            token = fake.issue_token(account)
            return 200, {"access_token": token, "expires_in": 3599, "token_type": "Bearer"}, \
                flavor
        if path in answers:
            return 200, answers[path], flavor
        return 404, b"not found", flavor

    def _iam_generateAccessToken(self, params: dict[str, str], query: Any, body: Any,
                                 caller: str) -> tuple[int, Any, dict[str, str]]:
        target = params["target"]
        if (caller, target) not in self.fake.impersonation:
            raise _Refused(403, permission_denied(
                "iam.serviceAccounts.getAccessToken",
                f"projects/-/serviceAccounts/{target}"))
        if not isinstance(body, dict) or CLOUD_PLATFORM not in body.get("scope", []):
            raise _Refused(400, invalid_field("scope", "the cloud-platform scope is needed"))
        token = self.fake.issue_token(target)
        expires = (datetime.now(timezone.utc) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
        return 200, {"accessToken": token, "expireTime": expires}, {}

    def _job(self, project: str, job_id: str) -> dict[str, Any]:
        job = self.fake.jobs.get((project, job_id))
        if job is None:
            raise _Refused(404, error_body(404, "NOT_FOUND",
                                           f"Field: name Error: The specified job "
                                           f"projects/{project}/jobs/{job_id} was not found."))
        return job

    def _jobs_create(self, params: dict[str, str], query: Any, body: dict[str, Any],
                     caller: str) -> tuple[int, Any, dict[str, str]]:
        job_id = body.get("jobId", "")
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]{0,127}", job_id):
            raise _Refused(400, invalid_field("job.job_id", f"invalid job id {job_id!r}"))
        if "trainingInput" not in body:
            raise _Refused(400, invalid_field("job.training_input", "a training job needs it"))
        with self.fake.lock:
            if (params["project"], job_id) in self.fake.jobs:
                raise _Refused(409, error_body(
                    409, "ALREADY_EXISTS",
                    f"Resource in projects [{params['project']}] is the subject of a conflict: "
                    "Field: job.job_id Error: A job with this id already exists."))
            stored = self.fake.add_job(params["project"], body)
        return 200, stored, {}

    def _jobs_get(self, params: dict[str, str], query: Any, body: Any,
                  caller: str) -> tuple[int, Any, dict[str, str]]:
        with self.fake.lock:
            job = self._job(params["project"], params["job"])
            steps = self.fake.scripts.get(params["job"])
            if steps:
                step = steps.popleft()
                state, lines = step if isinstance(step, tuple) else (step, [])
                self._enter(job, state)
                for line in lines:
                    self.fake.add_log(job["jobId"], line)
            return 200, dict(job), {}

    def _enter(self, job: dict[str, Any], state: str, message: str | None = None) -> None:
        job["state"] = state
        if state == "RUNNING":
            job.setdefault("startTime", self.fake.now())
        if state in TERMINAL:
            job["endTime"] = self.fake.now()
        if state == "FAILED":
            job["errorMessage"] = message or "The replica master 0 exited with a non-zero " \
                                             "status of 1."
        if state == "CANCELLED":
            job["errorMessage"] = message or "Job was cancelled by user."

    def _jobs_list(self, params: dict[str, str], query: dict[str, list[str]], body: Any,
                   caller: str) -> tuple[int, Any, dict[str, str]]:
        conditions = []
        text = query.get("filter", [""])[0]
        for clause in filter(None, (c.strip() for c in text.split(" AND "))):
            found = re.fullmatch(r"(state|labels\.[a-z][a-z0-9_-]*)\s*=\s*\"?([^\"]*)\"?", clause)
            if not found:
                raise _Refused(400, invalid_field("filter", f"cannot parse {clause!r}"))
            conditions.append(found.groups())

        def matches(job: dict[str, Any]) -> bool:
            for key, value in conditions:
                have = job.get("state") if key == "state" else \
                    job.get("labels", {}).get(key.split(".", 1)[1])
                if have != value:
                    return False
            return True

        with self.fake.lock:
            jobs = sorted((j for (p, _), j in self.fake.jobs.items()
                           if p == params["project"] and matches(j)),
                          key=lambda j: j["createTime"], reverse=True)
        size = min(int(query.get("pageSize", ["20"])[0]), 100)
        start = int(query.get("pageToken", ["0"])[0] or 0)
        page: dict[str, Any] = {"jobs": jobs[start:start + size]}
        if start + size < len(jobs):
            page["nextPageToken"] = str(start + size)
        return 200, page, {}

    def _jobs_cancel(self, params: dict[str, str], query: Any, body: Any,
                     caller: str) -> tuple[int, Any, dict[str, str]]:
        with self.fake.lock:
            job = self._job(params["project"], params["job"])
            if job["state"] in TERMINAL or job["state"] == "CANCELLING":
                raise _Refused(400, error_body(
                    400, "FAILED_PRECONDITION",
                    f"Cannot cancel job {job['jobId']} in state {job['state']}."))
            job["state"] = "CANCELLING"
            self.fake.scripts[job["jobId"]] = deque(["CANCELLED"])
        return 200, {}, {}

    def _entries_list(self, params: dict[str, str], query: Any, body: dict[str, Any],
                      caller: str) -> tuple[int, Any, dict[str, str]]:
        names = body.get("resourceNames") or []
        if len(names) != 1 or not re.fullmatch(r"projects/[^/]+", names[0]):
            raise _Refused(400, invalid_field("resource_names", "one project is expected"))
        text = body.get("filter", "")
        found = re.fullmatch(
            r'\(resource\.type="ml_job" OR resource\.type="cloudml_job"\) AND '
            r'resource\.labels\.job_id="(?P<job>\w+)"( AND timestamp>="(?P<since>[^"]+)")?', text)
        if not found or body.get("orderBy") != "timestamp asc":
            raise _Refused(400, invalid_field("filter", f"unexpected filter {text!r}"))
        since = found["since"] or ""
        with self.fake.lock:
            entries = [e for e in self.fake.logs.get(found["job"], [])
                       if e["timestamp"] >= since]
        size = body.get("pageSize", 50)
        start = int(body.get("pageToken", "0"))
        page: dict[str, Any] = {"entries": entries[start:start + size]}
        if start + size < len(entries):
            page["nextPageToken"] = str(start + size)
        return 200, page, {}


class _Refused(Exception):
    def __init__(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        super().__init__(status)
        self.status, self.body, self.headers = status, body, headers or {}
