"""Vertex AI's side of a submit over choices of region and strategy (``base.Placement``): the
quota preflight of each choice's request (``preflight``), which refusals and failures are ones
for room (quota or capacity: another region or strategy may do), and the clean-up after a
refused create, so that moving on never leaves two jobs alive. The order of the choices and the
creates are the submit's (``gpujob.commands.failover``)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from gpujob.console import CONSOLE
from gpujob.errors import RemoteError
from gpujob.services.base import Room

if TYPE_CHECKING:
    from gpujob.services.base import JobClient, Request
    from gpujob.services.vertex.api import VertexClient
    from gpujob.services.vertex.preflight import Preflight

# capacity words of Vertex AI and Compute Engine answers besides "resources are insufficient"
# (``api.capacity_or_quota``): a zone's stockout
_STOCKOUT = re.compile(r"stockout|resource_pool_exhausted|does not have enough resources",
                       re.IGNORECASE)
_ENDED = {"JOB_STATE_SUCCEEDED", "JOB_STATE_FAILED", "JOB_STATE_CANCELLED",
          "JOB_STATE_CANCELLING", "JOB_STATE_EXPIRED", "JOB_STATE_PARTIALLY_SUCCEEDED"}


class VertexPlacement:
    """``base.Placement`` for Vertex AI, through the submit's client (its session reads the
    quota: Service Usage's limits, the project's jobs in the region)."""

    def __init__(self, client: JobClient) -> None:
        self.client = client
        self._preflight: Preflight | None = None

    @property
    def vertex(self) -> VertexClient:
        return self.client.vertex  # type: ignore[attr-defined]  # (VertexJobs)

    def where(self, request: Request) -> tuple[str, str]:
        from gpujob.services.vertex.preflight import strategy_of

        return self.vertex.place_of(request.url).location, strategy_of(request.body)

    def room(self, request: Request) -> Room:
        from gpujob.services.vertex.preflight import request_hint

        if self._preflight is None:
            from gpujob.gcp.serviceusage import ServiceUsageClient
            from gpujob.services.vertex.preflight import Preflight

            session = self.client.session
            assert session is not None, "a Vertex AI client has a session"
            self._preflight = Preflight(ServiceUsageClient(session), self.vertex)
        verdict = self._preflight.check(request.body, self.vertex.place_of(request.url).location)
        shortfalls = verdict.shortfalls
        return Room(tuple(s.line() for s in shortfalls), tuple(s.as_dict() for s in shortfalls),
                    verdict.unknown,
                    request_hint(shortfalls[0], self.client.project) if shortfalls else "")

    def refused_for_room(self, exc: Exception, request: Request) -> str | None:
        from googleapiclient.errors import HttpError

        from gpujob.gcp.errors import parse_http_error
        from gpujob.services.vertex.api import capacity_or_quota, resource_quota

        cause = exc.__cause__
        if not isinstance(exc, RemoteError) or not isinstance(cause, HttpError):
            return None
        error = parse_http_error(cause)
        message = " ".join(error.message.split())
        if resource_quota(error):
            return f"Vertex AI refused the create for quota: {message}"
        region = self.vertex.place_of(request.url).location
        if capacity_or_quota(error.message, region) is not None or _STOCKOUT.search(error.message):
            return f"Vertex AI refused the create for capacity: {message}"
        return None

    def stocked_out(self, raw: dict[str, Any]) -> str | None:
        from gpujob.services.vertex.api import capacity_or_quota

        if raw.get("state") != "JOB_STATE_FAILED" or raw.get("startTime"):
            return None
        message = " ".join(str((raw.get("error") or {}).get("message") or "").split())
        if capacity_or_quota(message, None) is not None or _STOCKOUT.search(message):
            return message
        return None

    def confirm_none(self, request: Request) -> None:
        from gpujob.services.vertex.api import JobName, submission_filter
        from gpujob.services.vertex.create import labelled
        from gpujob.services.vertex.paths import SUBMISSION_LABEL

        token = request.body["labels"][SUBMISSION_LABEL]
        place = self.vertex.place_of(request.url)
        for job in labelled(self.vertex.list(place, submission_filter(token)), token):
            name = JobName.parse(str(job.get("name", "")))
            if name is None or job.get("state") in _ENDED:
                continue
            state = self.vertex.cancel(name)
            CONSOLE.err(f"note: job {name.id} of the refused create was made after all; "
                        f"{'it is ' + state if state else 'cancelled it'}")
