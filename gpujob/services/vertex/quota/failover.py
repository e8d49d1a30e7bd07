"""Vertex AI's side of a submit over choices of region and strategy (``placement.Placement``): the
quota preflight of each choice's request (``preflight``), which refusals and failures are ones
for room (quota or capacity: another region or strategy may do), and the clean-up after a
refused create, so that moving on never leaves two jobs alive. The order of the choices and the
creates are the submit's (``gpujob.submit.failover``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from gpujob.console import CONSOLE
from gpujob.errors import RemoteError
from gpujob.services.placement import Room
from gpujob.terminal import printable

if TYPE_CHECKING:
    from gpujob.services.base import JobClient, Request
    from gpujob.services.placement import Ranked
    from gpujob.services.vertex.jobs.api import Place, VertexClient
    from gpujob.services.vertex.quota.preflight import Need, Preflight

# capacity words of Vertex AI and Compute Engine answers besides "resources are insufficient"
# (``api.capacity_or_quota``): a zone's stockout
_STOCKOUT = re.compile(r"stockout|resource_pool_exhausted|does not have enough resources",
                       re.IGNORECASE)
_ENDED = {"JOB_STATE_SUCCEEDED", "JOB_STATE_FAILED", "JOB_STATE_CANCELLED",
          "JOB_STATE_CANCELLING", "JOB_STATE_EXPIRED", "JOB_STATE_PARTIALLY_SUCCEEDED"}


class VertexPlacement:
    """``placement.Placement`` for Vertex AI, through the submit's client (its session reads the
    quota: Service Usage's limits, the project's jobs in the region)."""

    def __init__(self, client: JobClient) -> None:
        self.client = client
        self._preflight: Preflight | None = None

    @property
    def vertex(self) -> VertexClient:
        return self.client.vertex  # type: ignore[attr-defined]  # (VertexJobs)

    def where(self, request: Request) -> tuple[str, str]:
        from gpujob.services.vertex.paths import strategy_of  # not the preflight's module

        return self.vertex.place_of(request.url).location, strategy_of(request.body)

    def regions(self, request: Request) -> list[str]:
        from gpujob.services.vertex.quota.advice import regions_offering

        return regions_offering(request.body)

    def rank(self, requests: Sequence[Request], by: str) -> Ranked:
        from gpujob.services.vertex.quota.advice import rank

        session = self.client.session
        assert session is not None, "a Vertex AI client has a session"
        return rank(session, [(*self.where(r), r.body) for r in requests], by)

    def advice(self, requests: Sequence[Request]) -> list[str]:
        from gpujob.gcp.advice import AdviceClient
        from gpujob.services.vertex.quota.advice import preflight_lines

        session = self.client.session
        assert session is not None, "a Vertex AI client has a session"
        return preflight_lines(AdviceClient(session),
                               [(*self.where(r), r.body) for r in requests])

    def room(self, request: Request) -> Room:
        from gpujob.services.vertex.quota.preflight import request_hint

        if self._preflight is None:
            from gpujob.gcp.serviceusage import ServiceUsageClient
            from gpujob.services.vertex.quota.preflight import Preflight

            session = self.client.session
            assert session is not None, "a Vertex AI client has a session"
            self._preflight = Preflight(ServiceUsageClient(session), self.vertex)
        region = self.vertex.place_of(request.url).location
        verdict = self._preflight.check(request.body, region)
        shortfalls = verdict.shortfalls
        held = [] if shortfalls else self._held(verdict.needs, region)
        return Room(tuple(s.line() for s in shortfalls), tuple(s.as_dict() for s in shortfalls),
                    verdict.unknown,
                    request_hint(shortfalls[0], self.client.project) if shortfalls else "",
                    tuple(line for line, _ in held), tuple(found for _, found in held))

    def _held(self, needs: list[Need], region: str) -> list[tuple[str, dict[str, Any]]]:
        """Each need whose limit in ``region`` holds the job, as a line and for JSON: need,
        limit and in use as the preflight read them (read already, so nothing is asked)."""
        assert self._preflight is not None
        found = []
        for need in needs:
            try:
                limit = self._preflight.limits(need.metric).limit(region)
                used = self._preflight.held(region).get(need.metric, 0) \
                    if limit is not None else 0
            except (RemoteError, LookupError, ValueError):  # the preflight's warning says why
                continue
            room = ("the project's quota there has no limit" if limit is None else
                    f"the project's limit there is {limit}, and its running and pending jobs "
                    f"hold {used}")
            found.append((f"{region}: the job needs {need.count} {need.what} ({need.metric}); "
                          f"{room}",
                          {"region": region, "metric": need.metric, "what": need.what,
                           "need": need.count, "limit": limit, "inUse": used}))
        return found

    def refused_for_room(self, exc: Exception, request: Request) -> str | None:
        from googleapiclient.errors import HttpError

        from gpujob.gcp.errors import parse_http_error
        from gpujob.services.vertex.jobs.api import capacity_or_quota, resource_quota

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
        from gpujob.services.vertex.jobs.api import capacity_or_quota

        if raw.get("state") != "JOB_STATE_FAILED" or raw.get("startTime"):
            return None
        message = " ".join(str((raw.get("error") or {}).get("message") or "").split())
        if capacity_or_quota(message, None) is not None or _STOCKOUT.search(message):
            return message
        return None

    def confirm_none(self, request: Request) -> None:
        from gpujob.services.base import CreateInterrupted
        from gpujob.services.vertex.jobs.create import find_command
        from gpujob.services.vertex.paths import SUBMISSION_LABEL

        token = request.body["labels"][SUBMISSION_LABEL]
        place = self.vertex.place_of(request.url)
        look = find_command(place, token)
        try:
            found = self._alive(place, token, look)
        except KeyboardInterrupt as exc:
            raise CreateInterrupted(f"A job the refused create may have made carries its label: "
                                    f"{look}") from exc
        for job in found:
            self._cancel(job, look)

    def _alive(self, place: Place, token: str, look: str) -> list[dict[str, Any]]:
        """The jobs carrying the submission label ``token`` that have not ended."""
        from gpujob.services.vertex.jobs.api import submission_filter
        from gpujob.services.vertex.jobs.create import labelled

        try:
            listed = labelled(self.vertex.list(place, submission_filter(token)), token)
        except RemoteError as exc:
            raise RemoteError(f"whether that create made a job after all could not be checked "
                              f"({exc.message})",
                              f"look for it before submitting again: {look}") from exc
        return [job for job in listed if not (isinstance(job.get("state"), str)
                                              and job["state"] in _ENDED)]

    def _cancel(self, job: dict[str, Any], look: str) -> None:
        """Cancel ``job``, which a refused create made after all; ``RemoteError`` naming it
        (alive, and how to cancel it) when its name cannot be read or the cancel fails."""
        import json

        from gpujob.services.base import CreateInterrupted
        from gpujob.services.vertex.jobs.api import JobName

        raw = job.get("name")
        state = job.get("state") if isinstance(job.get("state"), str) else "unknown"
        name = JobName.parse(raw) if isinstance(raw, str) else None
        if name is None:
            shown = json.dumps(raw if len(str(raw)) <= 300 else str(raw)[:300] + "…")
            raise RemoteError(
                f"a job carrying this submission's label was made after all and is alive "
                f"(state {printable(str(state))}), but the service names it {shown}, which is "
                "not a job's resource name: gpujob could not cancel it",
                f"it is listed by: {look}; cancel it (gpujob cancel ID --service vertex "
                "--region REGION, or in the console) before submitting again")
        cancel = f"gpujob cancel {name} --service vertex"
        alive = f"job {name.id} ({name}), which the refused create made after all"
        try:
            ended = self.vertex.cancel(name)
        except RemoteError as exc:
            raise RemoteError(f"{alive}, is alive (state {printable(str(state))}): {exc.message}",
                              f"cancel it before submitting again: {cancel}") from exc
        except KeyboardInterrupt as exc:
            raise CreateInterrupted(f"{alive[0].upper()}{alive[1:]}, may still be alive: "
                                    f"cancel it with: {cancel}") from exc
        CONSOLE.err(f"note: job {name.id} of the refused create was made after all; "
                    f"{'it is ' + ended if ended else 'cancelled it'}")
