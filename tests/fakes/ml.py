"""The fake's AI Platform Training API (``ml v1`` ``projects.jobs``): create, get, list and
cancel, with jobs stored as the service printed them (int64 as strings, defaults left out).
Reached through ``FakeGoogle`` (``add_job``, ``script``, ``jobs``)."""

from __future__ import annotations

import base64
import re
import secrets
from collections import deque
from typing import TYPE_CHECKING, Any

from fakes.discovery import proto3_json
from fakes.errors import Refused, error_body, invalid_field
from fakes.routing import Answer, Call, Route

if TYPE_CHECKING:
    from fakes.google import FakeGoogle

TERMINAL = {"SUCCEEDED", "FAILED", "CANCELLED"}


class MlJobs:
    """The jobs, by (project, job id), and the scripted states of later reads."""

    def __init__(self, fake: FakeGoogle) -> None:
        self.fake = fake
        self.jobs: dict[tuple[str, str], dict[str, Any]] = {}
        self.scripts: dict[str, deque[Any]] = {}

    def add_job(self, project: str, job: dict[str, Any], created: str | None = None,
                state: str = "QUEUED") -> dict[str, Any]:
        with self.fake.lock:
            stored = proto3_json({**job, "state": state, "createTime": created or self.fake.now(),
                                  "etag": base64.b64encode(secrets.token_bytes(8)).decode()},
                                 {"$ref": "GoogleCloudMlV1__Job"}, "ml.v1")
            self.jobs[(project, job["jobId"])] = stored
            return stored

    def script(self, job_id: str, *steps: Any) -> None:
        """Each later read of the job moves it one step: a state, or (state, [log lines])."""
        with self.fake.lock:
            self.scripts[job_id] = deque(steps)

    def job(self, project: str, job_id: str) -> dict[str, Any]:
        job = self.jobs.get((project, job_id))
        if job is None:
            raise Refused(404, error_body(404, "NOT_FOUND",
                                          f"Field: name Error: The specified job "
                                          f"projects/{project}/jobs/{job_id} was not found."))
        return job

    def enter(self, job: dict[str, Any], state: str, message: str | None = None) -> None:
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


def _create(fake: FakeGoogle, call: Call) -> Answer:
    body, project = call.body, call.params["project"]
    job_id = body.get("jobId", "")
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]{0,127}", job_id):
        raise Refused(400, invalid_field("job.job_id", f"invalid job id {job_id!r}"))
    if "trainingInput" not in body:
        raise Refused(400, invalid_field("job.training_input", "a training job needs it"))
    with fake.lock:
        if (project, job_id) in fake.ml.jobs:
            raise Refused(409, error_body(
                409, "ALREADY_EXISTS",
                f"Resource in projects [{project}] is the subject of a conflict: "
                "Field: job.job_id Error: A job with this id already exists."))
        stored = fake.ml.add_job(project, body)
    return 200, stored, {}


def _get(fake: FakeGoogle, call: Call) -> Answer:
    with fake.lock:
        job = fake.ml.job(call.params["project"], call.params["job"])
        steps = fake.ml.scripts.get(call.params["job"])
        if steps:
            step = steps.popleft()
            state, lines = step if isinstance(step, tuple) else (step, [])
            fake.ml.enter(job, state)
            for line in lines:
                fake.add_log(job["jobId"], line)
        return 200, dict(job), {}


def _list(fake: FakeGoogle, call: Call) -> Answer:
    conditions = []
    text = call.query.get("filter", [""])[0]
    for clause in filter(None, (c.strip() for c in text.split(" AND "))):
        found = re.fullmatch(r"(state|labels\.[a-z][a-z0-9_-]*)\s*=\s*\"?([^\"]*)\"?", clause)
        if not found:
            raise Refused(400, invalid_field("filter", f"cannot parse {clause!r}"))
        conditions.append(found.groups())

    def matches(job: dict[str, Any]) -> bool:
        for key, value in conditions:
            have = job.get("state") if key == "state" else \
                job.get("labels", {}).get(key.split(".", 1)[1])
            if have != value:
                return False
        return True

    with fake.lock:
        jobs = sorted((j for (p, _), j in fake.ml.jobs.items()
                       if p == call.params["project"] and matches(j)),
                      key=lambda j: j["createTime"], reverse=True)
    size = min(int(call.query.get("pageSize", ["20"])[0]), 100)
    start = int(call.query.get("pageToken", ["0"])[0] or 0)
    page: dict[str, Any] = {"jobs": jobs[start:start + size]}
    if start + size < len(jobs):
        page["nextPageToken"] = str(start + size)
    return 200, page, {}


def _cancel(fake: FakeGoogle, call: Call) -> Answer:
    with fake.lock:
        job = fake.ml.job(call.params["project"], call.params["job"])
        if job["state"] in TERMINAL or job["state"] == "CANCELLING":
            raise Refused(400, error_body(
                400, "FAILED_PRECONDITION",
                f"Cannot cancel job {job['jobId']} in state {job['state']}."))
        job["state"] = "CANCELLING"
        fake.ml.scripts[job["jobId"]] = deque(["CANCELLED"])
    return 200, {}, {}


_PROJECT = r"/v1/projects/(?P<project>[^/]+)/jobs"
ROUTES = [
    Route("POST", _PROJECT, "jobs.create", _create, "ml.v1", ("projects", "jobs", "create")),
    Route("GET", _PROJECT, "jobs.list", _list, "ml.v1", ("projects", "jobs", "list")),
    Route("GET", _PROJECT + r"/(?P<job>[^/:]+)", "jobs.get", _get, "ml.v1",
          ("projects", "jobs", "get")),
    Route("POST", _PROJECT + r"/(?P<job>[^/:]+):cancel", "jobs.cancel", _cancel, "ml.v1",
          ("projects", "jobs", "cancel")),
]
