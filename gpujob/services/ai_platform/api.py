"""The AI Platform Training API (``ml v1``): create, get, list and cancel jobs; where its jobs'
logs are; when two jobs are the same; what its errors mean (the 2025-01-31 shutdown).

The client is built from the discovery document bundled with google-api-python-client, parsed
once per process (``gpujob.gcp.discovery``): no discovery request is made.
``--api-endpoint`` replaces the service address through ``client_options``.

Duplicates. A create can reach the service more than once although gpujob asks once: httplib2
resends a request once, silently, when the connection closes before the response's status line
arrives (``Http._conn_request``, which treats it as a stale kept-alive connection, whatever the
method), and gpujob retries a create whose response was lost (reset, timeout) or refused with
429/5xx. The service stores a job ID once per project, so no second job can be made: a repeated
create is answered 409 ALREADY_EXISTS. gpujob then reads that job: if it has the trainingInput
and labels that were sent, and was created after this submission started, it is ours and the
submit succeeded; otherwise the ID belongs to another job and the user is told to pick another.
"After this submission started" is judged on the service's clock (the 409's ``Date`` header
minus the time gpujob has spent submitting), so the two clocks need not agree.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from email.utils import parsedate_to_datetime
from typing import Any

from gpujob.errors import RemoteError
from gpujob.gcp import settings as gcp
from gpujob.gcp.answers import MAX_JOB_PAGES, Created
from gpujob.gcp.errors import Action, ServiceError, parse_http_error, raise_explained
from gpujob.gcp.proto3 import canonical, parse_time, schemas
from gpujob.gcp.session import Session
from gpujob.gcp.settings import GcpSettings

ENDPOINT = "https://ml.googleapis.com/"  # global: the API has no regional addresses
SERVICE = "ml.googleapis.com"
ROLE = "roles/ml.developer"  # grants every ml.jobs.* permission used here
TERMINAL_STATES = frozenset({"SUCCEEDED", "FAILED", "CANCELLED"})
SHUTDOWN_HINT = (
    "legacy AI Platform Training (ml.googleapis.com) was shut down on 2025-01-31 and accepts no "
    "new jobs; its successor is Vertex AI custom training "
    "(https://cloud.google.com/vertex-ai/docs/training/create-custom-job). gpujob validate and "
    "gpujob submit --dry-run still check the config and print the exact Job")
_SHUTDOWN = re.compile(r"Cloud AI Platform has been deprecated|AI Platform Training has been "
                       r"(deprecated|shut ?down)", re.IGNORECASE)
# Leeway when telling whether a job was created during this submission: on the service's clock
# (the Date header has whole seconds), or, without one, on ours (which may be off).
SERVER_CLOCK_SLACK = timedelta(seconds=5)
LOCAL_CLOCK_SLACK = timedelta(minutes=5)


def api_endpoint(settings: GcpSettings) -> str:
    """The API's base URL: ``--api-endpoint`` or GPUJOB_ML_ENDPOINT when given, else
    ``ENDPOINT``."""
    return gcp.api_endpoint(settings, "ml")


def jobs_url(settings: GcpSettings, project: str) -> str:
    """Where a job is created (``POST``): the project's ``jobs`` collection."""
    return f"{api_endpoint(settings)}v1/projects/{project}/jobs"


def log_filter(job_id: str, since: str | None = None) -> str:
    """gcloud's filter for a training job's logs (``command_lib/ml_engine/log_utils.py``): the
    service writes them under the ``ml_job`` resource (``cloudml_job`` in older projects)
    labelled with the job ID."""
    text = ('(resource.type="ml_job" OR resource.type="cloudml_job") AND '
            f'resource.labels.job_id="{job_id}"')
    return text + (f' AND timestamp>="{since}"' if since else "")


def shutdown_advice(error: ServiceError) -> str | None:
    """The way forward when the service says it has been shut down."""
    return SHUTDOWN_HINT if _SHUTDOWN.search(error.message) else None


def same_job(sent: dict[str, Any], existing: dict[str, Any]) -> bool:
    """True when ``existing`` has the ``trainingInput`` and ``labels`` that ``sent`` has,
    compared as the API understands JSON (``proto3.canonical``)."""
    job, types = {"$ref": "GoogleCloudMlV1__Job"}, schemas("ml", "v1")
    mine = canonical({k: sent.get(k) for k in ("trainingInput", "labels")}, job, types)
    theirs = canonical({k: existing.get(k) for k in ("trainingInput", "labels")}, job, types)
    return mine == theirs


def _submission_start(conflict: Any, elapsed: float) -> datetime:
    """The earliest time, on the service's clock when it said it, that this submission could
    have created a job. ``conflict``: the 409 HttpError; ``elapsed``: seconds spent submitting."""
    spent = timedelta(seconds=elapsed)
    try:
        server_now = parsedate_to_datetime(conflict.resp.get("date", ""))
    except (TypeError, ValueError):
        server_now = None
    if server_now is not None:
        if server_now.tzinfo is None:
            server_now = server_now.replace(tzinfo=timezone.utc)
        return server_now - spent - SERVER_CLOCK_SLACK
    return datetime.now(timezone.utc) - spent - LOCAL_CLOCK_SLACK


def _already_exists(exc: BaseException) -> bool:
    from googleapiclient.errors import HttpError

    return (isinstance(exc, HttpError) and exc.resp.status == 409
            and parse_http_error(exc).code_name in ("ALREADY_EXISTS", ""))


class MlClient:
    """Jobs of one project in the ml v1 API."""

    def __init__(self, session: Session) -> None:
        from gpujob.gcp.discovery import service

        self.session = session
        self.project = session.project
        self._jobs = service("ml", "v1", session.http,
                             api_endpoint(session.settings)).projects().jobs()

    def _action(self, what: str, permission: str, not_found_hint: str) -> Action:
        # every call is safe to repeat: reads, a cancel (a second one is answered with the
        # state), and a create, whose client-chosen job ID makes a second create a 409
        return self.session.action(what, permission, role=ROLE, service=SERVICE,
                                   retry_safe=True, not_found_hint=not_found_hint,
                                   advice=shutdown_advice)

    @property
    def parent(self) -> str:
        return f"projects/{self.project}"

    def name(self, job_id: str) -> str:
        return f"{self.parent}/jobs/{job_id}"

    def _not_found(self, job_id: str) -> str:
        return (f"no job {job_id} in project {self.project}; gpujob list --service ai-platform "
                f"--project {self.project} shows its jobs")

    def create_job(self, body: dict[str, Any], url: str) -> Created:
        """POST the Job ``body`` to ``url`` (``jobs_url``, as the dry-run showed it): one create,
        retried safely (see the module's docstring)."""
        job_id = body["jobId"]
        clock = self.session.clock
        started = clock.monotonic()
        action = self._action(f"submitting job {job_id}", "ml.jobs.create",
                              f"check --project (now {self.project})")
        action = replace(action, answer_hint=(
            f"the job may have been created all the same: gpujob describe {job_id} --service "
            f"ai-platform --project "
            f"{self.project} shows whether it was, before you submit it again"))

        def create() -> Any:
            request = self._jobs.create(parent=self.parent, body=body)
            if (request.method, request.uri.partition("?")[0]) != ("POST", url):
                raise AssertionError(f"the create goes to {request.method} {request.uri}, "
                                     f"not to POST {url}")
            return request

        try:
            return Created(self.session.execute_raw(action, create))
        except Exception as exc:
            if not _already_exists(exc):
                raise_explained(exc, action)
            since = _submission_start(exc, clock.monotonic() - started)
        try:
            existing = self.get_job(job_id)
        except RemoteError as exc:
            raise RemoteError(f"job ID {job_id} is already taken in project {self.project}, "
                              f"and reading that job failed: {exc.message}", exc.hint) from exc
        when = f"created {existing.get('createTime', 'at an unknown time')}, " \
               f"state {existing.get('state', 'unknown')}"
        if not same_job(body, existing):
            raise RemoteError(
                f"job ID {job_id} is already taken in project {self.project} by a different job "
                f"({when}); nothing was submitted",
                "job IDs are unique in a project and cannot be reused: pass a new --job-id (or "
                "leave jobId out of the config to get a generated one)")
        created = parse_time(existing.get("createTime"))
        if created is not None and created < since:
            raise RemoteError(
                f"job {job_id} already exists in project {self.project} with this same config, "
                f"from before this submission ({when}); nothing was submitted",
                f"to run it again, pass a new --job-id; to follow the existing job: gpujob wait "
                f"{job_id} --service ai-platform --project {self.project}")
        return Created(existing, recovered=True)

    def get_job(self, job_id: str) -> dict[str, Any]:
        action = self._action(f"reading job {job_id}", "ml.jobs.get", self._not_found(job_id))
        return self.session.execute(action, lambda: self._jobs.get(name=self.name(job_id)))

    def list_jobs(self, filter_: str | None = None,
                  limit: int | None = None) -> Iterator[dict[str, Any]]:
        """The project's jobs, page by page, at most ``limit`` of them."""
        action = self._action(f"listing the jobs of project {self.project}", "ml.jobs.list",
                              f"check --project (now {self.project})")
        count = 0

        def fetch(token: str | None) -> dict[str, Any]:
            size = min(100, limit - count) if limit is not None else 100
            return self.session.execute(action, lambda: self._jobs.list(
                parent=self.parent, filter=filter_, pageSize=size, pageToken=token))

        for page in self.session.pages(action, fetch, "jobs", MAX_JOB_PAGES):
            for job in page.get("jobs", []):
                yield job
                count += 1
                if limit is not None and count >= limit:
                    return

    def cancel_job(self, job_id: str) -> str | None:
        """Ask the service to cancel ``job_id``. Returns None, or the state when the job was
        already being cancelled (a retried cancel, or a second ``gpujob cancel``)."""
        from googleapiclient.errors import HttpError

        action = self._action(f"cancelling job {job_id}", "ml.jobs.cancel",
                              self._not_found(job_id))
        try:
            self.session.execute_raw(
                action, lambda: self._jobs.cancel(name=self.name(job_id), body={}))
            return None
        except Exception as exc:
            if (isinstance(exc, HttpError) and exc.resp.status == 400
                    and parse_http_error(exc).code_name == "FAILED_PRECONDITION"):
                state = self.get_job(job_id).get("state")
                if state in ("CANCELLING", "CANCELLED"):
                    return state
            raise_explained(exc, action)
