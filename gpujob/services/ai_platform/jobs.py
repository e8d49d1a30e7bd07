"""AI Platform Training's jobs (``ml v1``, ``api``): ``base.JobClient`` over the ml client, and
their logs from Cloud Logging."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from gpujob.services.base import Created, JobRef, Request

if TYPE_CHECKING:
    from gpujob.gcp.clock import Clock
    from gpujob.gcp.logs import LogsClient
    from gpujob.gcp.session import Session
    from gpujob.services.ai_platform.api import MlClient


class Jobs:
    """``base.JobClient`` over the ml v1 client (and Cloud Logging, made when first needed)."""

    def __init__(self, ml: MlClient) -> None:
        self.ml = ml
        self.session: Session = ml.session
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
        from gpujob.services.ai_platform.api import log_filter

        if self._logs is None:
            self._logs = LogsClient(self.ml.session)
        return self._logs.entries(log_filter(ref.id, since), f"the logs of job {ref.id}")

    def resolve(self, ref: JobRef) -> JobRef:
        return ref  # a job ID is the job's exact name

    def check_access(self, request: Request) -> None:
        """Nothing: the service was shut down on 2025-01-31, which only the create says (a
        read proves nothing), and its create is safe to repeat."""
