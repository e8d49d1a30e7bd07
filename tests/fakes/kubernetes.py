"""A Kubernetes API server on 127.0.0.1 for the GKE tests: JobSets (``jobset.x-k8s.io/v1alpha2``),
the pods JobSet would make for them and their logs, Kueue's Workloads; bearer tokens; answers
and errors in the API server's shapes (``Status`` objects, ``PodList``), since the ``kubernetes``
client validates typed answers strictly.

Every JobSet it receives is checked against what the CRD's schema, JobSet's webhook and the Job
and Pod validation require (``jobset_rules.refusals``), independently of gpujob's own rules, and
refused 422 ``Invalid`` as JobSet's webhook refuses one. Discovery and the other objects (what a
preflight reads, a ComputeDomain made with a JobSet, server-side dry run): ``kube_api``. Faults
(``tests/fakes/faults.py``: ``Reply``, ``Drop``, ``Stall``, ``Trickle``) are queued per route
with ``inject`` (``POST computedomains dryRun``: a dry-run create): a create whose answer is
lost (``Drop(after=True)``), 409, 429, 500, an answer that never comes or trickles in, a body
of any bytes (a ``Reply`` whose body is ``str`` or ``bytes``, its ``Content-Type`` in
``headers``). A log line may be ``bytes`` (not UTF-8).
"""

from __future__ import annotations

import json
import re
import threading
import uuid
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any
from urllib.parse import parse_qs, urlparse

from fakes import serving
from fakes.faults import Drop, Reply, Stall, Trickle
from fakes.jobset_rules import refusals
from fakes.kube_api import COLLECTIONS, MADE, make, read, selected, status

JOBSETS = re.compile(r"/apis/jobset\.x-k8s\.io/v1alpha2/namespaces/([^/]+)/jobsets(?:/([^/]+))?")
WORKLOADS = re.compile(r"/apis/kueue\.x-k8s\.io/(v1beta2|v1beta1)/namespaces/([^/]+)/workloads")
PODS = re.compile(r"/api/v1/namespaces/([^/]+)/pods(?:/([^/]+)/log)?")
__all__ = ["FakeKubernetes", "refusals", "status"]  # what the tests import from here


@dataclass
class Call:
    method: str
    path: str
    query: dict[str, list[str]]
    body: Any
    authorization: str | None


@dataclass
class FakeKubernetes:
    """The cluster: ``token`` is the bearer token it takes."""

    token: str = field(default_factory=lambda: f"tok-{uuid.uuid4().hex}")
    jobsets: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    workloads: list[dict[str, Any]] = field(default_factory=list)
    logs: dict[str, list[str | bytes]] = field(default_factory=dict)  # pod name -> lines
    calls: list[Call] = field(default_factory=list)
    faults: dict[str, deque[Any]] = field(default_factory=dict)
    scripts: dict[str, deque[dict[str, Any]]] = field(default_factory=dict)
    received: list[dict[str, Any]] = field(default_factory=list)  # every JobSet POSTed
    # what a preflight reads (tests/fakes/kube_cluster.py arranges it): the API group versions
    # served (discovery), objects by their API path, the nodes
    served: set[str] = field(default_factory=lambda: {"jobset.x-k8s.io/v1alpha2"})
    objects: dict[str, dict[str, Any]] = field(default_factory=dict)
    nodes: list[dict[str, Any]] = field(default_factory=list)
    # an ``ssl.SSLContext`` with the server's certificate: the cluster is served over HTTPS
    # (benchmarks/gke_submit.py, as a real API server is)
    tls: Any = None

    def __enter__(self) -> FakeKubernetes:
        fake = self

        class Handler(_Handler):
            server_fake = fake

        self.stopping = threading.Event()  # ends stalls and trickles at the test's end
        self.server = serving.Server(("127.0.0.1", 0), Handler)
        if self.tls is not None:
            self.server.socket = self.tls.wrap_socket(self.server.socket, server_side=True)
        scheme = "https" if self.tls is not None else "http"
        self.url = f"{scheme}://127.0.0.1:{self.server.server_address[1]}"
        serving.serve(self.server)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self.server.shutdown()
        self.server.server_close()

    # -- what tests arrange ----------------------------------------------------------------

    def inject(self, route: str, *faults: Any) -> None:
        """Faults for the next requests of ``route`` (``POST jobsets``, ``GET jobset``, …)."""
        self.faults.setdefault(route, deque()).extend(faults)

    def script(self, name: str, *states: str) -> None:
        """The states the JobSet goes through, one per read (``running``, ``completed``,
        ``failed``, ``suspended``)."""
        self.scripts[name] = deque({"state": s} for s in states)

    def add_log(self, name: str, rjob: str, index: int, *lines: str) -> None:
        pod = f"{name}-{rjob}-{index}-0-abcde"
        start = datetime(2026, 11, 26, 12, 0, tzinfo=timezone.utc)
        have = self.logs.setdefault(pod, [])
        for line in lines:
            stamp = start + timedelta(seconds=len(have) + index)
            have.append(f"{stamp:%Y-%m-%dT%H:%M:%S.%f}000Z {line}")

    def add_workload(self, name: str, ns: str, *conditions: dict[str, str]) -> None:
        uid = self.jobsets[(ns, name)]["metadata"]["uid"]
        self.workloads.append({
            "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": f"jobset-{name}-1a2b3", "namespace": ns,
                         "labels": {"kueue.x-k8s.io/job-uid": uid}},
            "spec": {"queueName": "team-a"},
            "status": {"conditions": [{"lastTransitionTime": "2026-11-26T12:00:00Z", **c}
                                      for c in conditions]}})

    def route_calls(self, method: str, kind: str) -> list[Call]:
        return [c for c in self.calls if c.method == method and kind in c.path]

    # -- the cluster's behaviour -------------------------------------------------------------

    def advance(self, js: dict[str, Any]) -> None:
        steps = self.scripts.get(js["metadata"]["name"])
        if not steps:
            return
        state = steps.popleft()["state"] if len(steps) > 1 else steps[0]["state"]
        st: dict[str, Any] = {"restarts": 0}
        js["spec"]["suspend"] = state == "suspended"
        if state in ("completed", "failed"):
            kind = "Completed" if state == "completed" else "Failed"
            st["terminalState"] = kind
            st["conditions"] = [{"type": kind, "status": "True", "reason": (
                "AllJobsCompleted" if state == "completed" else "FailedJobs"),
                "message": "jobset completed successfully" if state == "completed" else
                "jobset failed due to one or more job failures",
                "lastTransitionTime": "2026-11-26T12:05:00Z"}]
        elif state == "running":
            st["replicatedJobsStatus"] = [{"name": r["name"], "ready": 0, "succeeded": 0,
                                           "failed": 0, "suspended": 0,
                                           "active": r.get("replicas", 1)}
                                          for r in js["spec"]["replicatedJobs"]]
        js["status"] = st

    def pods(self, ns: str, name: str) -> list[dict[str, Any]]:
        js = self.jobsets.get((ns, name))
        if js is None:
            return []
        out = []
        for r in js["spec"]["replicatedJobs"]:
            for i in range(r.get("replicas", 1)):
                pod = f"{name}-{r['name']}-{i}-0-abcde"
                labels = {"jobset.sigs.k8s.io/jobset-name": name,
                          "jobset.sigs.k8s.io/replicatedjob-name": r["name"],
                          "jobset.sigs.k8s.io/job-index": str(i)}
                out.append({"apiVersion": "v1", "kind": "Pod", "metadata": {
                    "name": pod, "namespace": ns, "labels": labels, "annotations": labels,
                    "uid": str(uuid.uuid4()), "creationTimestamp": "2026-11-26T12:00:00Z"},
                    "spec": {"containers": [{"name": "trainer", "image": "img"}],
                             "hostname": pod[:-6], "subdomain": name},
                    "status": {"phase": "Running" if pod in self.logs else "Pending"}})
        return out


class _Handler(serving.Handler):
    server_fake: FakeKubernetes

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _send(self, code: int, body: Any, content_type: str = "application/json",
              trickle: Trickle | None = None) -> None:
        data = body if isinstance(body, bytes) else body.encode() if isinstance(body, str) \
            else json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if trickle is None:
            self.wfile.write(data)
            return
        self.wfile.flush()
        size = max(1, -(-len(data) // trickle.pieces))
        for start in range(0, len(data), size):  # until the client goes away, or the test ends
            if self.server_fake.stopping.wait(trickle.seconds / trickle.pieces):
                break
            try:
                self.wfile.write(data[start:start + size])
                self.wfile.flush()
            except OSError:
                break
        self.close_connection = True

    def _handle(self, method: str) -> None:
        fake = self.server_fake
        url = urlparse(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        call = Call(method, url.path, parse_qs(url.query), body,
                    self.headers.get("Authorization"))
        fake.calls.append(call)
        if call.authorization != f"Bearer {fake.token}":
            self._send(401, status(401, "Unauthorized", "Unauthorized"))
            return
        route, answer = self._route(method, url.path, call.query)
        queue = fake.faults.get(route)
        fault = queue.popleft() if queue else None
        if isinstance(fault, Reply) and not fault.handled:
            self._send(fault.status, fault.body, **self._type(fault))
            return
        if isinstance(fault, Drop) and not fault.after:
            self.close_connection = True
            return
        code, out, kind = answer(call)
        if isinstance(fault, Drop):
            self.close_connection = True
            self.connection.close()
            return
        if isinstance(fault, Stall):  # no answer for that long (or until the test ends)
            fake.stopping.wait(fault.seconds)
            self.close_connection = True
            return
        if isinstance(fault, Reply):
            code, out = fault.status, fault.body
            kind = self._type(fault).get("content_type", kind)
        self._send(code, out, kind, fault if isinstance(fault, Trickle) else None)

    @staticmethod
    def _type(fault: Reply) -> dict[str, str]:
        types = [v for k, v in fault.headers.items() if k.lower() == "content-type"]
        return {"content_type": types[0]} if types else {}

    def _route(self, method: str, path: str,
               query: dict[str, list[str]]) -> tuple[str, Any]:
        fake = self.server_fake
        if m := JOBSETS.fullmatch(path):
            ns, name = m.groups()
            if name is None:
                return (f"{method} jobsets", lambda c: self._collection(c, ns))
            return (f"{method} jobset", lambda c: self._one(c, ns, name))
        if m := WORKLOADS.fullmatch(path):
            version, ns = m.groups()
            return ("GET workloads", lambda c: (200, {
                "apiVersion": f"kueue.x-k8s.io/{version}", "kind": "WorkloadList",
                "metadata": {}, "items": [w for w in fake.workloads if w["metadata"][
                    "namespace"] == ns and selected(w, c.query)]}, "application/json"))
        if m := PODS.fullmatch(path):
            ns, pod = m.groups()
            if pod is None:
                return ("GET pods", lambda c: (200, {
                    "apiVersion": "v1", "kind": "PodList", "metadata": {"resourceVersion": "1"},
                    "items": [p for js in list(fake.jobsets.values())
                              for p in fake.pods(ns, js["metadata"]["name"])
                              if selected(p, c.query)]}, "application/json"))
            return ("GET log", lambda c: self._log(pod))
        if method == "POST" and (m := MADE.fullmatch(path)) and m.group(1) in fake.served:
            dry = " dryRun" if query.get("dryRun") == ["All"] else ""
            return (f"POST {m.group(3)}{dry}", lambda c: make(fake, c.body, c.query, path))
        if method == "GET" and (found := read(fake, path)) is not None:
            return (f"GET {path}", lambda c: (200, found(c), "application/json"))
        if method == "GET" and path.rsplit("/", 2)[-2] in COLLECTIONS:  # an object not there
            kind, name = path.rsplit("/", 2)[1:]
            return (f"GET {path}", lambda c: (404, status(404, "NotFound", f'{kind} "{name}" '
                                                          "not found", name=name, kind=kind),
                                              "application/json"))
        return ("?", lambda c: (404, status(404, "NotFound", "the server could not find the "
                                            "requested resource"), "application/json"))

    def _log(self, pod: str) -> tuple[int, Any, str]:
        lines = self.server_fake.logs.get(pod)
        if lines is None:
            return 400, status(400, "BadRequest", f'container "trainer" in pod "{pod}" is '
                               "waiting to start: ContainerCreating"), "application/json"
        return 200, b"".join((line if isinstance(line, bytes) else line.encode()) + b"\n"
                             for line in lines), "text/plain"

    def _collection(self, call: Call, ns: str) -> tuple[int, Any, str]:
        fake = self.server_fake
        if call.method == "GET":
            items = [js for (n, _), js in fake.jobsets.items() if n == ns
                     and selected(js, call.query)]
            limit = int(call.query.get("limit", ["0"])[0])
            items = items[:limit] if limit else items
            return 200, {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSetList",
                         "metadata": {"resourceVersion": "1"}, "items": items}, \
                "application/json"
        js = call.body
        fake.received.append(json.loads(json.dumps(js)))
        name = str((js.get("metadata") or {}).get("name", ""))
        causes = refusals(js)
        if causes:
            return 422, status(422, "Invalid", f'JobSet.jobset.x-k8s.io "{name}" is invalid: '
                               + "; ".join(f"{c['field']}: {c['message']}" for c in causes),
                               name=name, group="jobset.x-k8s.io", kind="JobSet",
                               causes=causes), "application/json"
        if (ns, name) in fake.jobsets:
            return 409, status(409, "AlreadyExists", f'jobsets.jobset.x-k8s.io "{name}" '
                               "already exists", name=name, group="jobset.x-k8s.io",
                               kind="jobsets"), "application/json"
        stored = json.loads(json.dumps(js))
        stored["metadata"].update(namespace=ns, uid=str(uuid.uuid4()), resourceVersion="1",
                                  creationTimestamp="2026-11-26T12:00:00Z", generation=1)
        stored["status"] = {"restarts": 0}
        fake.jobsets[(ns, name)] = stored
        return 201, stored, "application/json"

    def _one(self, call: Call, ns: str, name: str) -> tuple[int, Any, str]:
        fake = self.server_fake
        js = fake.jobsets.get((ns, name))
        if js is None:
            return 404, status(404, "NotFound", f'jobsets.jobset.x-k8s.io "{name}" not found',
                               name=name, group="jobset.x-k8s.io", kind="jobsets"), \
                "application/json"
        if call.method == "DELETE":
            if call.query.get("propagationPolicy") == ["Foreground"]:
                # kept, marked, until its dependents are gone (here: one more read)
                js["metadata"].update(deletionTimestamp="2026-11-26T12:10:00Z",
                                      finalizers=["foregroundDeletion"])
                return 200, js, "application/json"
            del fake.jobsets[(ns, name)]
            return 200, {"kind": "Status", "apiVersion": "v1", "metadata": {},
                         "status": "Success", "details": {
                             "name": name, "group": "jobset.x-k8s.io", "kind": "jobsets",
                             "uid": js["metadata"]["uid"]}}, "application/json"
        if js["metadata"].get("deletionTimestamp"):
            del fake.jobsets[(ns, name)]  # its last read
            return 200, js, "application/json"
        fake.advance(js)
        return 200, js, "application/json"

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_DELETE(self) -> None:
        self._handle("DELETE")

