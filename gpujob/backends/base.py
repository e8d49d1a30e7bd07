"""The seam between gpujob and a remote training service: what a backend provides.

A service (``ai-platform``, ``vertex``) is one module implementing ``Backend`` over one API client
module of ``gpujob.gcp``. The rest of gpujob speaks only these types:

- ``Request``: the request that creates a job. The dry-run prints it; submitting sends it. It is
  built once, by the backend, so the two cannot differ.
- ``JobClient``: create, read, list and cancel jobs, and read their logs.
- ``JobStatus``: a job as every service's job reads (state, done, succeeded, message), beside the
  API's own object, which is shown as it is.
- ``JobRef``: a job as the user names it on the command line.
- ``Commands`` and links: what to run next, and where the job is in the Cloud console.

Nothing here imports the Google libraries; a backend imports its client when it makes one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from gpujob.errors import UsageError
from gpujob.findings import JsonPath, Location

if TYPE_CHECKING:
    from gpujob.catalog import AnyCatalog
    from gpujob.config.document import Document
    from gpujob.gcp.clock import Clock
    from gpujob.gcp.session import Session
    from gpujob.gcp.settings import GcpSettings
    from gpujob.translate.vertex_extras import VertexExtras


@dataclass(frozen=True)
class Request:
    """An HTTP request that creates a job: ``method`` ``url`` with the JSON ``body``.
    ``noun``: what the body is, for messages ("would POST this Job to …"); ``job_id``: the job's
    ID when the client chooses it (ml v1), else None (the service assigns one).

    When the body was translated from the config (Vertex AI), ``origins`` maps a body path to
    the config path it was made from, and ``locate`` tells where the config wrote a path
    (``Document.locate``): the service's complaints about a field then point at the config."""

    method: str
    url: str
    body: dict[str, Any]
    noun: str = "Job"
    job_id: str | None = None
    origins: Mapping[JsonPath, JsonPath] = field(default_factory=dict)
    locate: Callable[[JsonPath], Location] | None = None


@dataclass(frozen=True)
class JobOptions:
    """What the command line adds to a job beyond its config, for a service that needs it to
    build the request: the catalog in use (None: the service's built-in one), Vertex AI's
    executor image for a Python package job (``--executor-image-uri``) and scheduling strategy
    (``--strategy``), the job's display name (``--display-name``), the region of a native
    Vertex config (``--region``: the file cannot say), and the loaded config whose data the body
    is (``document``: where each value was written, so that the service's complaints about a
    field point at the config; None: not known)."""

    catalog: AnyCatalog | None = None
    executor_image_uri: str | None = None
    strategy: str | None = None
    display_name: str | None = None
    region: str | None = None
    document: Document | None = None
    extras: VertexExtras | None = None  # --reservation, --persistent-resource-id, …


@dataclass(frozen=True)
class JobRef:
    """A job as given on the command line: its ID, and the project (and location) when the
    user gave a full resource name; None: the command's own. ``collection``: the kind of job
    when the name says it (Vertex AI: ``customJobs`` or ``hyperparameterTuningJobs``). A
    client's ``resolve`` fills in what the service knows (Vertex AI: a display name becomes
    the ID of the newest job of that name)."""

    id: str
    project: str | None = None
    location: str | None = None
    collection: str | None = None


@dataclass(frozen=True)
class JobStatus:
    """A job in the terms common to every service. ``done``: it has ended (it will not change
    state again); ``succeeded``: it ended well; ``message``: the service's word on why it
    failed ("" when it gave none); ``created``: when it was created (RFC 3339), where its logs
    start."""

    id: str
    state: str
    done: bool
    succeeded: bool
    message: str = ""
    created: str | None = None
    location: str | None = None  # the job's region, for regional services (Vertex AI)
    display_name: str = ""  # the name people gave the job, when it is not its ID
    summary: tuple[str, ...] = ()  # lines worth telling beside the state (a tuning job's trials)
    hint: str = ""  # what to do about how it ended, when the service's message says
    waiting: str = ""  # what a job that has not started (or started again) waits for

    def as_dict(self) -> dict[str, Any]:
        """The ``job`` of the JSON envelope (``output.envelope``)."""
        return {"id": self.id, "state": self.state, "done": self.done,
                "succeeded": self.succeeded, "message": self.message,
                "createTime": self.created, **({"waiting": self.waiting} if self.waiting else {})}


@dataclass(frozen=True)
class Created:
    """The job as the service holds it after a create (the API's object); ``recovered``: an
    earlier attempt of the same create had made it, and its answer was lost."""

    raw: dict[str, Any]
    recovered: bool = False


class CreateInterrupted(KeyboardInterrupt):
    """Ctrl-C during a create whose job the service names (no ``Request.job_id``): ``look`` is
    the command that finds the job, should it have been made."""

    def __init__(self, look: str) -> None:
        super().__init__(look)
        self.look = look


@dataclass(frozen=True)
class Commands:
    """The gpujob commands that follow one job, ready to paste."""

    describe: str
    wait: str
    logs: str  # read the log once
    follow_logs: str
    cancel: str


@dataclass(frozen=True)
class Links:
    """The job's pages in the Cloud console."""

    console: str
    logs: str


class JobClient(Protocol):
    """One project's jobs in one service, through an open session."""

    project: str
    clock: Clock

    def create(self, request: Request) -> Created:
        """Send ``request`` once; after a failure that leaves it unknown whether the job was
        made, the backend looks for it before sending again (never blindly twice)."""
        ...

    def get(self, ref: JobRef) -> dict[str, Any]: ...

    def list(self, filter_: str | None, limit: int | None) -> Iterator[dict[str, Any]]: ...

    def cancel(self, ref: JobRef) -> str | None:
        """Ask for the job's cancellation. None, or the state when it was already being
        cancelled."""
        ...

    def log_entries(self, ref: JobRef, since: str | None) -> Iterable[dict[str, Any]]:
        """The job's log entries stamped at or after ``since`` (RFC 3339), oldest first."""
        ...

    def resolve(self, ref: JobRef) -> JobRef:
        """The job ``ref`` names, as exactly as the service needs it (its ID, location and
        kind); ``RemoteError`` when there is none."""
        ...

    def check_access(self, request: Request) -> None:
        """Prove, with one cheap read, that ``request`` can be sent (credentials, project,
        API): called before the trainer's packages are built and uploaded."""
        ...


class Backend(Protocol):
    """A remote training service."""

    name: str  # as --service names it
    title: str  # for people: "AI Platform Training"
    unsupported_flags: frozenset[str]  # submit's flags this service cannot honour

    def request(self, body: dict[str, Any], gcp: GcpSettings, project: str | None,
                options: JobOptions | None = None) -> Request:
        """The request creating the job ``body`` (the checked config) in ``project`` (None: not
        known yet, a dry-run without --project), with the command line's ``options``."""
        ...

    def client(self, gcp: GcpSettings, session: Session | None = None) -> JobClient:
        """A client in ``session`` (one already open), else in a new one."""
        ...

    def status(self, raw: dict[str, Any]) -> JobStatus: ...

    def parse_ref(self, text: str) -> JobRef:
        """The job the user named; ``UsageError`` when ``text`` cannot name one."""
        ...

    def links(self, job_id: str, project: str, location: str | None = None) -> Links:
        """``location``: the job's region, for regional services."""
        ...

    def commands(self, job_id: str, project: str, location: str | None = None) -> Commands: ...


def refuse_flags(flags: Iterable[str], why: str, hint: str) -> None:
    """One ``UsageError`` naming every flag of ``flags`` ("--a and --b are {why}"); nothing when
    there is none."""
    given = list(dict.fromkeys(flags))
    if given:
        verb = "are" if len(given) > 1 else "is"
        raise UsageError(f"{' and '.join(given)} {verb} {why}", hint)


def check_flags(backend: Backend, given: Iterable[str]) -> None:
    """Refuse, all in one usage error, the flags of ``given`` that ``backend`` does not
    support."""
    refuse_flags((flag for flag in given if flag in backend.unsupported_flags),
                 f"not supported by the {backend.name} service ({backend.title})",
                 "leave them out, or choose another service with --service")
