"""The AI Platform Training API (``ml v1``): create, get, list and cancel jobs.

The client is built from the discovery document bundled with google-api-python-client
(``static_discovery=True``): no discovery request is made. ``--api-endpoint`` replaces the
service address through ``client_options``.

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

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from email.utils import parsedate_to_datetime
from typing import Any

from gpujob.errors import RemoteError
from gpujob.gcp.compare import same_job
from gpujob.gcp.errors import parse_http_error, raise_explained
from gpujob.gcp.session import Session
from gpujob.gcp.settings import base_url

TERMINAL_STATES = frozenset({"SUCCEEDED", "FAILED", "CANCELLED"})
# Leeway when telling whether a job was created during this submission: on the service's clock
# (the Date header has whole seconds), or, without one, on ours (which may be off).
SERVER_CLOCK_SLACK = timedelta(seconds=5)
LOCAL_CLOCK_SLACK = timedelta(minutes=5)


@dataclass(frozen=True)
class Created:
    """The job as the service holds it; ``recovered`` when an earlier attempt had created it and
    its response was lost (the 409 ALREADY_EXISTS path)."""

    job: dict[str, Any]
    recovered: bool = False


def parse_time(text: Any) -> datetime | None:
    """An RFC 3339 timestamp from the API (``2025-01-31T12:00:00.123456789Z``)."""
    if not isinstance(text, str) or not text:
        return None
    head, _, fraction = text.rstrip("Z").partition(".")
    try:
        when = datetime.fromisoformat(head.replace("Z", ""))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    digits = "".join(c for c in fraction if c.isdigit())[:6]
    return when + timedelta(microseconds=int(digits.ljust(6, "0"))) if digits else when


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
        from googleapiclient.discovery import build

        self.session = session
        self.project = session.project
        service = build("ml", "v1", http=session.http, static_discovery=True,
                        cache_discovery=False,
                        client_options={"api_endpoint": base_url(session.settings.api_endpoint)})
        self._jobs = service.projects().jobs()

    @property
    def parent(self) -> str:
        return f"projects/{self.project}"

    def name(self, job_id: str) -> str:
        return f"{self.parent}/jobs/{job_id}"

    def _not_found(self, job_id: str) -> str:
        return (f"no job {job_id} in project {self.project}; gpujob list --project "
                f"{self.project} shows its jobs")

    def create_job(self, body: dict[str, Any]) -> Created:
        """POST the Job ``body``: one create, retried safely (see the module's docstring)."""
        job_id = body["jobId"]
        clock = self.session.clock
        started = clock.monotonic()
        action = self.session.action(
            f"submitting job {job_id}", "ml.jobs.create",
            not_found_hint=f"check --project (now {self.project})")
        try:
            return Created(self.session.execute_raw(
                action, lambda: self._jobs.create(parent=self.parent, body=body)))
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
                f"{job_id} --project {self.project}")
        return Created(existing, recovered=True)

    def get_job(self, job_id: str) -> dict[str, Any]:
        action = self.session.action(f"reading job {job_id}", "ml.jobs.get",
                                     not_found_hint=self._not_found(job_id))
        return self.session.execute(action, lambda: self._jobs.get(name=self.name(job_id)))

    def list_jobs(self, filter_: str | None = None,
                  limit: int | None = None) -> Iterator[dict[str, Any]]:
        """The project's jobs, page by page, at most ``limit`` of them."""
        action = self.session.action(f"listing the jobs of project {self.project}",
                                     "ml.jobs.list",
                                     not_found_hint=f"check --project (now {self.project})")
        token: str | None = None
        count = 0
        while True:
            size = min(100, limit - count) if limit is not None else 100
            page = self.session.execute(action, lambda size=size, token=token: self._jobs.list(
                parent=self.parent, filter=filter_, pageSize=size, pageToken=token))
            for job in page.get("jobs", []):
                yield job
                count += 1
                if limit is not None and count >= limit:
                    return
            token = page.get("nextPageToken")
            if not token:
                return

    def cancel_job(self, job_id: str) -> str | None:
        """Ask the service to cancel ``job_id``. Returns None, or the state when the job was
        already being cancelled (a retried cancel, or a second ``gpujob cancel``)."""
        from googleapiclient.errors import HttpError

        action = self.session.action(f"cancelling job {job_id}", "ml.jobs.cancel",
                                     not_found_hint=self._not_found(job_id))
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
