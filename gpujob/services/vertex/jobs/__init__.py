"""The remote half of the ``vertex`` service (Vertex AI custom training): a job client over
``api`` (beside it), how its jobs read (``status``), how users name them (``parse_ref``),
and where to look next (``links``, ``commands``). ``gpujob.services.vertex`` delegates to these.

Vertex AI is regional, and a job has three names: its numeric ID (which needs the region:
``--region``), its full resource name ``projects/P/locations/R/customJobs/ID`` (or
``hyperparameterTuningJobs``), and the display name people gave it, which is not unique (the
newest job of that name is meant; the others are listed).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from gpujob.errors import RemoteError, UsageError
from gpujob.services.base import (
    Commands,
    Created,
    CreateInterrupted,
    JobRef,
    JobStatus,
    Links,
    Request,
)
from gpujob.services.vertex import paths as vertex_api
from gpujob.services.vertex.jobs.pending import why
from gpujob.services.vertex.jobs.trials import summary

if TYPE_CHECKING:
    from gpujob.gcp.clock import Clock
    from gpujob.gcp.logs import LogsClient
    from gpujob.gcp.session import Session
    from gpujob.gcp.settings import GcpSettings
    from gpujob.services.vertex.jobs.api import JobName, Place, VertexClient

PREFIX = "JOB_STATE_"
ENDED = frozenset({"SUCCEEDED", "FAILED", "CANCELLED", "EXPIRED", "PARTIALLY_SUCCEEDED"})
COLLECTIONS = tuple(vertex_api.COLLECTIONS.values())  # customJobs, then hyperparameterTuningJobs
_ID = re.compile(r"[0-9]{1,30}")
_STATE_TERM = re.compile(r"(?<![\w.])(state\s*!?=\s*)\"?([A-Z_]+)\"?")


def status(raw: dict[str, Any]) -> JobStatus:
    """A CustomJob or HyperparameterTuningJob in the common terms; its state without the
    ``JOB_STATE_`` prefix (SUCCEEDED, FAILED, CANCELLED, EXPIRED end it); for a job that
    ended for want of capacity or quota, what to do about it; what it cost so far (an
    estimate, ``cost_spent``)."""
    from gpujob.services.vertex.jobs.api import JobName, capacity_or_quota
    from gpujob.services.vertex.pricing.cost_spent import spent
    from gpujob.services.vertex.recovery import lineage_of

    state = str(raw.get("state") or "JOB_STATE_UNSPECIFIED").removeprefix(PREFIX)
    name = JobName.parse(str(raw.get("name", "")))
    error = found if isinstance(found := raw.get("error"), dict) else {}
    message = " ".join(str(error.get("message") or "").split())
    cost = spent(raw)
    return JobStatus(id=name.id if name else "?", state=state, done=state in ENDED,
                     succeeded=state == "SUCCEEDED", message=message,
                     created=raw.get("createTime"), location=name.location if name else None,
                     display_name=str(raw.get("displayName") or ""),
                     summary=(*summary(raw), *([cost["line"]] if cost else [])),
                     hint=capacity_or_quota(message, name.location if name else None) or "",
                     waiting=why(raw), cost=cost, lineage=lineage_of(raw))


def parse_ref(text: str) -> JobRef:
    """A job given as its numeric ID, its full resource name, or its display name."""
    from gpujob.services.vertex.jobs.api import JobName

    name = JobName.parse(text)
    if name is not None:
        if not _ID.fullmatch(name.id):
            raise UsageError(f"'{text}' is not a Vertex AI job name: its ID must be a number",
                             "gpujob list --service vertex --region REGION shows the jobs")
        return JobRef(name.id, name.project, name.location, name.collection)
    if text.startswith("projects/") or not text.strip() or len(text) > vertex_api.MAX_DISPLAY_NAME:
        raise UsageError(f"'{text}' is not a Vertex AI job",
                         "give its numeric ID (with --region), its full name projects/PROJECT/"
                         "locations/REGION/customJobs/ID, or its display name")
    return JobRef(text)


def links(job_id: str, project: str, location: str | None = None) -> Links:
    """The job's page in the console (the custom-training one, also for a tuning job's ID:
    Vertex AI's console redirects) and its log in Logs Explorer."""
    region = location or "-"
    query = f'resource.type%3D%22ml_job%22%0Aresource.labels.job_id%3D%22{job_id}%22'
    return Links(f"https://console.cloud.google.com/vertex-ai/locations/{region}/training/"
                 f"{job_id}/cpu?project={project}",
                 f"https://console.cloud.google.com/logs/query;query={query}?project={project}")


def commands(job_id: str, project: str, location: str | None = None) -> Commands:
    where = f" --region {location}" if location else ""

    def command(verb: str, extra: str = "") -> str:
        return f"gpujob {verb} {job_id} --service vertex --project {project}{where}{extra}"

    return Commands(describe=command("describe"), wait=command("wait"), logs=command("logs"),
                    follow_logs=command("logs", " --follow"), cancel=command("cancel"))


def client(gcp: GcpSettings, session: Session | None = None) -> VertexJobs:
    return VertexJobs(gcp, session)


def state_filter(text: str | None) -> str | None:
    """The list filter with bare state names completed (``state=RUNNING`` ->
    ``state="JOB_STATE_RUNNING"``), as ``gpujob list`` writes them for every service."""
    if not text:
        return text
    return _STATE_TERM.sub(lambda m: f'{m.group(1)}"'
                           f'{m.group(2) if m.group(2).startswith(PREFIX) else PREFIX + m.group(2)}'
                           '"', text)


class VertexJobs:
    """``base.JobClient`` for Vertex AI: custom jobs and tuning jobs, in any region. The
    session (``session``, else a new one) is opened when first needed, so that a job named
    without its region is a usage error before credentials are looked for."""

    def __init__(self, gcp: GcpSettings, session: Session | None = None) -> None:
        self.gcp = gcp
        self.region = gcp.region
        self._session = session
        self._vertex: VertexClient | None = None
        self._names: dict[str, JobName] = {}  # numeric ID -> the job's full name, once known
        self._fresh: dict[str, dict[str, Any]] = {}  # jobs read while resolving, not re-read
        self._logs: LogsClient | None = None

    @property
    def vertex(self) -> VertexClient:
        if self._vertex is None:
            from gpujob.gcp.session import Session
            from gpujob.services.vertex.jobs.api import VertexClient

            self._vertex = VertexClient(self._session or Session(self.gcp))
        return self._vertex

    @property
    def session(self) -> Session:
        return self.vertex.session

    @property
    def project(self) -> str:
        return self.vertex.project

    @property
    def clock(self) -> Clock:
        return self.session.clock

    def _seen(self, raw: dict[str, Any]) -> dict[str, Any]:
        from gpujob.services.vertex.jobs.api import JobName

        name = JobName.parse(str(raw.get("name", "")))
        if name is not None:
            self._names[name.id] = name
        return raw

    def _location(self, ref: JobRef) -> str:
        location = ref.location or self.region
        if not location:
            raise UsageError(f"which region is Vertex AI job '{ref.id}' in?",
                             "give --region REGION (or GPUJOB_REGION), or the job's full name "
                             "projects/PROJECT/locations/REGION/customJobs/ID")
        return location

    def _place(self, location: str, collection: str, project: str | None = None) -> Place:
        return self.vertex.place(location, collection, project)

    # -- base.JobClient ------------------------------------------------------------------------

    def check_access(self, request: Request) -> None:
        self.vertex.check_access(self.vertex.place_of(request.url))

    def create(self, request: Request) -> Created:
        from gpujob.services.vertex.jobs.create import create
        from gpujob.services.vertex.jobs.refusals import refusal

        try:  # to the end: a Ctrl-C after the job was made still says how to find it
            made = create(self.vertex, request.url, request.body, refusal(request))
            return Created(self._seen(made.job), made.recovered)
        except KeyboardInterrupt as exc:
            raise CreateInterrupted(self._where_to_look(request)) from exc

    def _where_to_look(self, request: Request) -> str:
        """After Ctrl-C during a create: how to find the job, should it have been made (every
        body sent carries the label: ``vertex_create.create`` refuses one without it)."""
        from gpujob.services.vertex.jobs.create import find_command
        from gpujob.services.vertex.paths import SUBMISSION_LABEL

        place = self.vertex.place_of(request.url)
        token = request.body["labels"][SUBMISSION_LABEL]
        return f"A job this submission made carries its label: {find_command(place, token)}"

    def resolve(self, ref: JobRef) -> JobRef:
        if ref.collection is not None:
            return ref
        if ref.id in self._names:
            name = self._names[ref.id]
        elif _ID.fullmatch(ref.id):
            name = self._by_id(ref)
        else:
            name = self._by_display_name(ref)
        return JobRef(name.id, ref.project, name.location, name.collection)

    def _by_id(self, ref: JobRef) -> JobName:
        """A numeric ID: a custom job's, else a tuning job's (one read each at most)."""
        from gpujob.services.vertex.jobs.api import JobName

        location = self._location(ref)
        project = ref.project or self.project
        for collection in COLLECTIONS:
            name = JobName(project, location, collection, ref.id)
            found = self.vertex.find(name)
            if found is not None:
                self._fresh[ref.id] = self._seen(found)
                return name
        raise RemoteError(f"no Vertex AI job {ref.id} in project {project}, region {location}",
                          f"gpujob list --service vertex --project {project} --region "
                          f"{location} shows its jobs; check --project and --region")

    def _by_display_name(self, ref: JobRef) -> JobName:
        """The newest job of that display name; the others are listed on stderr. The display
        name of each job listed is checked again: a listing that ignores the filter must not
        make another job (the newest of the region) the one named."""
        from gpujob.services.vertex.jobs.api import JobName, quoted

        location = self._location(ref)
        found = sorted((job for collection in COLLECTIONS for job in self.vertex.list(
            self._place(location, collection, ref.project), f"display_name={quoted(ref.id)}")
            if job.get("displayName") == ref.id),
            key=lambda job: str(job.get("createTime", "")), reverse=True)
        if not found:
            raise RemoteError(f"no Vertex AI job is named '{ref.id}' in project "
                              f"{ref.project or self.project}, region {location}",
                              f"gpujob list --service vertex --region {location} shows the jobs "
                              "(a job ID or full name also names a job)")
        newest = self._seen(found[0])
        name = JobName.parse(str(newest.get("name", "")))
        if name is None:
            raise RemoteError(f"the job named '{ref.id}' has no resource name in the service's "
                              "answer", "try again, or name the job by its ID")
        if len(found) > 1:
            self.session.echo(f"note: {len(found)} jobs are named '{ref.id}'; this is the newest, "
                              f"{name.id} (created {newest.get('createTime', '?')}); the others:")
            for job in found[1:]:
                other = status(job)
                self.session.echo(f"  {other.id}  {other.state}  created {other.created or '?'}")
        self._fresh[name.id] = newest
        return name

    def _name(self, ref: JobRef) -> JobName:
        """The full name of a job ``resolve`` gave."""
        from gpujob.services.vertex.jobs.api import JobName

        known = self._names.get(ref.id)
        if known is not None and ref.location in (None, known.location):
            return known
        return JobName(ref.project or self.project, self._location(ref),
                       ref.collection or "customJobs", ref.id)

    def get(self, ref: JobRef) -> dict[str, Any]:
        ref = self.resolve(ref)
        fresh = self._fresh.pop(ref.id, None)
        if fresh is not None:
            return fresh
        return self._seen(self.vertex.get(self._name(ref)))

    def list(self, filter_: str | None, limit: int | None) -> Iterator[dict[str, Any]]:
        """Custom jobs and tuning jobs of the region, newest first."""
        if not self.region:
            raise UsageError("Vertex AI lists jobs region by region: which region?",
                             "give --region REGION (or GPUJOB_REGION)")
        text = state_filter(filter_)
        jobs = [job for collection in COLLECTIONS
                for job in self.vertex.list(self._place(self.region, collection), text, limit)]
        jobs.sort(key=lambda job: str(job.get("createTime", "")), reverse=True)
        return iter(jobs[:limit] if limit is not None else jobs)

    def cancel(self, ref: JobRef) -> str | None:
        ref = self.resolve(ref)
        self._fresh.pop(ref.id, None)
        state = self.vertex.cancel(self._name(ref))
        return state.removeprefix(PREFIX) if state else None

    def log_entries(self, ref: JobRef, since: str | None) -> Iterable[dict[str, Any]]:
        from gpujob.gcp.logs import LogsClient
        from gpujob.services.vertex.jobs.api import log_filter

        if self._logs is None:
            self._logs = LogsClient(self.session)
        return self._logs.entries(log_filter(ref.id, since), f"the logs of job {ref.id}")
