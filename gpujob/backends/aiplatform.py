"""The ``ai-platform`` service: AI Platform Training (the ``ml v1`` API), over
``gpujob.gcp.ml``.

The request is the checked config as it is (an AI Platform ``Job``), POSTed to the project's
``jobs``; a job is named by its ID, which the config (or gpujob) chooses.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from gpujob.backends.base import Commands, Created, JobOptions, JobRef, JobStatus, Links, Request
from gpujob.errors import UsageError

if TYPE_CHECKING:
    from gpujob.gcp.clock import Clock
    from gpujob.gcp.logs import LogsClient
    from gpujob.gcp.ml import MlClient
    from gpujob.gcp.session import Session
    from gpujob.gcp.settings import GcpSettings

_JOB_ID = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,127}")
_JOB_NAME = re.compile(r"projects/(?P<project>[^/]+)/jobs/(?P<job>[^/]+)")


class _Jobs:
    """``base.JobClient`` over the ml v1 client (and Cloud Logging, made when first needed)."""

    def __init__(self, ml: MlClient) -> None:
        self.ml = ml
        self.project: str = ml.project
        self.clock: Clock = ml.session.clock
        self._logs: LogsClient | None = None

    def create(self, request: Request) -> Created:
        created = self.ml.create_job(request.body, request.url)
        return Created(created.job, created.recovered)

    def get(self, ref: JobRef) -> dict[str, Any]:
        return self.ml.get_job(ref.id)

    def list(self, filter_: str | None, limit: int | None) -> Iterator[dict[str, Any]]:
        return self.ml.list_jobs(filter_, limit)

    def cancel(self, ref: JobRef) -> str | None:
        return self.ml.cancel_job(ref.id)

    def log_entries(self, ref: JobRef, since: str | None) -> Iterable[dict[str, Any]]:
        from gpujob.gcp.logs import LogsClient
        from gpujob.gcp.ml import log_filter

        if self._logs is None:
            self._logs = LogsClient(self.ml.session)
        return self._logs.entries(log_filter(ref.id, since), f"the logs of job {ref.id}")

    def resolve(self, ref: JobRef) -> JobRef:
        return ref  # a job ID is the job's exact name

    def check_access(self, request: Request) -> None:
        """Nothing: the service was shut down on 2025-01-31, which only the create says (a
        read proves nothing), and its create is safe to repeat."""


class AiPlatform:
    """``base.Backend`` for AI Platform Training."""

    name = "ai-platform"
    title = "AI Platform Training"
    # submit's flags are this service's fields, but for Vertex AI's executor image and strategy
    unsupported_flags: frozenset[str] = frozenset({
        "--executor-image-uri", "--strategy", "--reservation", "--persistent-resource-id",
        "--restart-job-on-worker-restart", "--disable-retries", "--tensorboard", "--experiment"})

    def request(self, body: dict[str, Any], gcp: GcpSettings, project: str | None,
                options: JobOptions | None = None) -> Request:
        """The config as it is: an AI Platform ``Job`` (``options`` change nothing)."""
        from gpujob.gcp.ml import jobs_url

        return Request("POST", jobs_url(gcp, project or "PROJECT"), body, "Job",
                       job_id=body["jobId"])

    def client(self, gcp: GcpSettings, session: Session | None = None) -> _Jobs:
        from gpujob.gcp.ml import MlClient
        from gpujob.gcp.session import Session

        return _Jobs(MlClient(session if session is not None else Session(gcp)))

    def status(self, raw: dict[str, Any]) -> JobStatus:
        from gpujob.gcp.ml import TERMINAL_STATES

        state = str(raw.get("state", "STATE_UNSPECIFIED"))
        return JobStatus(id=str(raw.get("jobId", "?")), state=state,
                         done=state in TERMINAL_STATES, succeeded=state == "SUCCEEDED",
                         message=raw.get("errorMessage") or "", created=raw.get("createTime"))

    def parse_ref(self, text: str) -> JobRef:
        """A job given as ``ID`` or as ``projects/P/jobs/ID`` (its project then wins)."""
        project = None
        found = _JOB_NAME.fullmatch(text)
        if found:
            text, project = found["job"], found["project"]
        if not _JOB_ID.fullmatch(text):
            raise UsageError(f"'{text}' is not a job ID",
                             "job IDs start with a letter and hold letters, digits and '_' (up "
                             "to 128); gpujob list --service ai-platform shows the project's jobs")
        return JobRef(text, project)

    def links(self, job_id: str, project: str, location: str | None = None) -> Links:
        """As gcloud links them."""
        return Links(f"https://console.cloud.google.com/mlengine/jobs/{job_id}?project={project}",
                     "https://console.cloud.google.com/logs?resource=ml_job%2Fjob_id%2F"
                     f"{job_id}&project={project}")

    def commands(self, job_id: str, project: str, location: str | None = None) -> Commands:
        def command(verb: str, extra: str = "") -> str:
            # --service: pasted without it, the command would look in the default (vertex)
            return f"gpujob {verb} {job_id} --service ai-platform --project {project}{extra}"

        return Commands(describe=command("describe"), wait=command("wait"),
                        logs=command("logs"), follow_logs=command("logs", " --follow"),
                        cancel=command("cancel"))


BACKEND = AiPlatform()
