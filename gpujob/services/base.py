"""The seam between gpujob and a training service: what a service provides (``Service``).

A service (``ai-platform``, ``vertex``) is one package of ``gpujob.services`` whose ``SERVICE``
implements ``Service``. The rest of gpujob speaks only these types:

- ``Checked`` (``gpujob.checks.engine``): what the check of a config found, and the service's
  form of the job.
- ``Request``: the request that creates a job, built once from the checked job. The dry-run
  prints it; submitting sends it, so the two cannot differ.
- ``JobClient``: create, read, list and cancel jobs, and read their logs.
- ``JobStatus``: a job as every service's job reads (state, done, succeeded, message), beside the
  API's own object, which is shown as it is.
- ``JobRef``: a job as the user names it on the command line.
- ``Commands`` and links: what to run next, and where the job is in the Cloud console.

What a submit over ordered choices asks of a service is ``gpujob.services.placement``'s; which
flags a service refuses, ``gpujob.services.capabilities``' (``check_flags``).

Nothing here imports the Google libraries; a service imports its client when it makes one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from types import ModuleType
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from gpujob.findings import Finding, JsonPath, Location
from gpujob.services.flags import ServiceFlag
from gpujob.services.labels import SUBMISSION_LABEL as SUBMISSION_LABEL  # every service's

if TYPE_CHECKING:
    from typing_extensions import Self  # typing.Self from Python 3.11; annotations only

    from gpujob.catalog.offer import Offer
    from gpujob.checks.engine import Checked, CheckOptions
    from gpujob.checks.registry import Rule
    from gpujob.config.document import Document
    from gpujob.gcp.clock import Clock
    from gpujob.gcp.session import Session
    from gpujob.gcp.settings import GcpSettings
    from gpujob.local.cluster import LocalCluster, LocalOptions
    from gpujob.services.capabilities import Capability
    from gpujob.services.placement import Placement
    from gpujob.services.recovery import Lineage, Recovery
    from gpujob.settings import GpusSettings, JobOptions, ReserveSettings


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
    media: str = "json"  # how the dry-run prints the body: json, or yaml (kubectl apply -f -)
    project_scoped: bool = True  # the URL names a Google Cloud project (GKE's: a cluster's)
    # objects made with the job (GKE: a ComputeDomain), which the dry run prints before the body
    companions: tuple[dict[str, Any], ...] = ()

    def staged(self, uris: Mapping[str, str]) -> Self:
        """This request with each package that stood in for the check (``gs://to-be-staged/``
        and its file name) at the address it was staged at, wherever the body names it (a
        ``packageUris`` entry, or a path in a command such as ``/gcs/to-be-staged/…``): the
        only change made to a body after it is built."""
        swaps = [(stand_in.removeprefix("gs://"), uri.removeprefix("gs://"))
                 for stand_in, uri in uris.items()]

        def swap(value: Any) -> Any:
            if isinstance(value, dict):
                return {k: swap(v) for k, v in value.items()}
            if isinstance(value, list):
                return [swap(v) for v in value]
            if isinstance(value, str):
                for old, new in swaps:
                    value = value.replace(old, new)
            return value

        return replace(self, body=swap(self.body)) if uris else self


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
    cost: dict[str, Any] | None = None  # what it cost so far, an estimate (Vertex AI)
    lineage: Lineage | None = None  # an attempt of a recovered job: its lineage

    def as_dict(self) -> dict[str, Any]:
        """The ``job`` of the JSON envelope (``output.envelope``)."""
        return {"id": self.id, "state": self.state, "done": self.done,
                "succeeded": self.succeeded, "message": self.message,
                "createTime": self.created, **({"waiting": self.waiting} if self.waiting else {}),
                **({"cost": self.cost} if self.cost is not None else {}),
                **({"lineage": self.lineage.as_dict()} if self.lineage is not None else {})}


@dataclass(frozen=True)
class Created:
    """The job as the service holds it after a create (the API's object); ``recovered``: an
    earlier attempt of the same create had made it, and its answer was lost."""

    raw: dict[str, Any]
    recovered: bool = False


class CreateInterrupted(KeyboardInterrupt):
    """Ctrl-C during a create whose job the service names (no ``Request.job_id``), or during
    the clean-up after a refused one (``Placement.confirm_none``): ``look`` says how to find or
    cancel the job, should it have been made."""

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
    """The job's pages in the Cloud console (GKE: the kubectl commands that stand in for them,
    ``label`` "status")."""

    console: str
    logs: str
    label: str = "console"


class JobClient(Protocol):
    """One project's jobs in one service, through an open session."""

    @property
    def project(self) -> str: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def session(self) -> Session | None: ...  # its Google session, for staging (None: none)

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


class Converted(NamedTuple):
    """What ``gpujob convert`` writes for a service (None: nothing, its findings say why), the
    findings of the converted job beyond the config's, and lines to say on stderr."""

    text: str | None
    findings: tuple[Finding, ...] | list[Finding] = ()
    notes: tuple[str, ...] | list[str] = ()


class Service(Protocol):
    """A training service: everything gpujob does that depends on where the job goes. Its
    package (``gpujob.services.NAME``) defines ``SERVICE``; the registry names the package.
    The engine (``gpujob.checks``), the local runner (``gpujob.local``) and the commands call
    these and never ask which service they hold. A service inherits the defaults of
    ``capabilities.ServiceBase`` and states what it lacks (``lacks``), with the reason."""

    # (read-only: a service's own are class variables)
    @property
    def name(self) -> str: ...  # as --service names it

    @property
    def title(self) -> str: ...  # for people: "AI Platform Training"

    @property
    def unsupported_flags(self) -> Mapping[str, str]: ...  # with the reason for each

    @property
    def flags(self) -> tuple[ServiceFlag, ...]: ...  # flags of its own

    @property
    def lacks(self) -> Mapping[Capability, str]: ...  # capabilities, with the reason

    @property
    def catalog(self) -> ModuleType:
        """Its catalog module (``gpujob.catalog.files`` reads its data file)."""
        ...

    def supports(self, capability: Capability) -> bool: ...

    def require(self, capability: Capability, subject: str) -> None:
        """A usage error naming ``capability``, its reason and ``subject`` (what needs it)
        when the service lacks it."""
        ...

    @property
    def refresh(self) -> ModuleType | None:
        """``gpujob catalog refresh``: the module reading its catalog's live parts from
        Google (``refresh``, ``NAMES``, ``overlay_document``); None: a catalog that is data
        only (``Capability.REFRESH``)."""
        ...

    # -- checking: the engine calls these with the loaded config -------------------------------

    def read(self, doc: Document, cat: Any, options: CheckOptions) -> Checked | None:
        """A config written in a form of the service's own (not an AI Platform Job: a native
        Vertex CustomJobSpec), checked whole; None: an AI Platform config, which the engine
        checks against the Job schema and then ``rules``."""
        ...

    def rules(self, doc: Document, cat: Any, refused: set[JsonPath],
              options: CheckOptions) -> Checked:
        """The service's rules over an AI Platform config (``refused``: the paths the schema
        refused, about which they stay quiet), and the job ``request`` builds from."""
        ...

    def listed_rules(self) -> list[Rule]:
        """Its rules, in the order they run (``gpujob rules``)."""
        ...

    def describe_costs(self, costs: list[tuple[str | None, Any]]) -> list[str]:
        """What jobs cost an hour (``Checked.cost``, with the file when there are several),
        as lines for stderr: one per job, then where the prices come from."""
        ...

    def explain(self, findings: list[Finding], doc: Document, cat: Any) -> list[Finding]:
        """Every finding of ``doc``, reworded where the service knows better (a name another
        service takes)."""
        ...

    # -- sending and following ------------------------------------------------------------------

    def convert(self, doc: Document, checked: Checked, options: CheckOptions,
                output: str | None, whole_job: bool) -> Converted:
        """``gpujob convert --to`` this service: the checked AI Platform config ``doc`` in the
        service's own form (``output``: the file it goes to, or None; ``whole_job``: a whole
        job rather than its spec, where the service tells them apart)."""
        ...

    def request(self, job: Any, gcp: GcpSettings, project: str | None,
                options: JobOptions) -> Request:
        """The request creating the checked ``job`` (``Checked.job``) in ``project`` (None: not
        known, a dry-run without --project). Built once per submit: the dry-run prints it and
        the client sends it."""
        ...

    def client(self, gcp: GcpSettings, session: Session | None = None,
               extra: tuple[tuple[str, str], ...] = ()) -> JobClient:
        """A client in ``session`` (one already open), else in a new one; ``extra``: the
        values of the service's own flags (``flags``)."""
        ...

    def placement(self, client: JobClient) -> Placement:
        """How a submit through ``client`` checks the project's quota and moves between
        choices of region and strategy (``Capability.PLACEMENT``)."""
        ...

    def recovery(self, client: JobClient, catalog: Any) -> Recovery:
        """How a job of ``client`` that ended is read and created again
        (``Capability.RECOVER``), by the service's ``catalog`` in use (``--catalog``, else
        its built-in one with what ``gpujob catalog refresh`` wrote)."""
        ...

    def scope(self, project: str) -> str | None:
        """Where its jobs are, in words, when not a Google project (None: ``project P``)."""
        ...

    def cancelled(self, job_id: str, project: str, location: str | None) -> list[str] | None:
        """What ``cancel`` says, when the job does not then end CANCELLED (None: it does)."""
        ...

    def preflight(self, job: Any, gcp: GcpSettings, extra: tuple[tuple[str, str], ...],
                  output_format: str,
                  availability: tuple[str | None, str | None] | None = None) -> int:
        """``gpujob preflight`` of a service whose preflight is its own, not the quota of
        each choice (``Capability.PREFLIGHT`` without ``PLACEMENT``: GKE reads its cluster).
        ``availability`` (--availability): the --project and --region given on the command
        line (None each when not) for Compute Engine's capacity advice; None: not asked."""
        ...

    def status(self, raw: dict[str, Any]) -> JobStatus: ...

    def parse_ref(self, text: str) -> JobRef:
        """The job the user named; ``UsageError`` when ``text`` cannot name one."""
        ...

    def links(self, job_id: str, project: str, location: str | None = None) -> Links:
        """``location``: the job's region, for regional services."""
        ...

    def commands(self, job_id: str, project: str, location: str | None = None) -> Commands: ...

    # -- what it offers, and what its replicas see ----------------------------------------------

    def offerings(self, settings: GpusSettings) -> int:
        """``gpujob gpus``: the offerings that pass the filters (exit 1 when none)."""
        ...

    def completions(self, cat: Any) -> Offer:
        """What shell completion offers from ``cat``."""
        ...

    def reserve(self, settings: ReserveSettings) -> int:
        """``gpujob reserve``: calendar-mode windows for GPUs ahead, and the command that
        requests one (Vertex AI: its catalog and price table)."""
        ...

    def local(self, doc: Document, job_dir: str, options: LocalOptions) -> LocalCluster:
        """The cluster a local run of ``doc`` (checked) emulates: its replicas and what each
        sees, as the service's replicas would."""
        ...
