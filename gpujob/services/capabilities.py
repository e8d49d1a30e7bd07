"""What a service can do beyond checking a config and building its request (``Capability``),
and the base a service inherits (``ServiceBase``), whose defaults are a service that lacks each.

A service states what it lacks, with the reason, in ``ServiceBase.lacks``; the command line asks
``require`` before it starts a command that needs a capability, and a command for one the
service lacks is a usage error (exit 2) that names it, with the reason and the services that
have it. ``docs/getting-started.md`` shows the table of what each service has (``markdown``).

The services inherit this (as SkyPilot's clouds inherit ``sky.clouds.Cloud`` and state their
``CloudImplementationFeatures`` with a reason); it reaches them only through the registry, to
name those that have a capability.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from enum import Enum
from typing import TYPE_CHECKING, Any, ClassVar

from gpujob.errors import UsageError

if TYPE_CHECKING:
    from types import ModuleType

    from gpujob.catalog.offer import Offer
    from gpujob.checks.engine import Checked, CheckOptions
    from gpujob.checks.registry import Rule
    from gpujob.config.document import Document
    from gpujob.findings import Finding, JsonPath
    from gpujob.gcp.session import Session
    from gpujob.gcp.settings import GcpSettings
    from gpujob.local.cluster import LocalCluster, LocalOptions
    from gpujob.services.base import (
        Commands,
        Converted,
        JobClient,
        JobRef,
        JobStatus,
        Links,
        Request,
        Service,
    )
    from gpujob.services.flags import ServiceFlag
    from gpujob.services.placement import Placement
    from gpujob.services.recovery import Recovery
    from gpujob.settings import GpusSettings, JobOptions, ReserveSettings


class Capability(Enum):
    """What a service may offer. ``label``: its name in messages; ``does``: what it is;
    ``commands``: those that need it; ``methods``: the ``Service`` methods a service that has
    it writes (the base's refuse); ``flags``: the flags only it gives a meaning to (refused,
    with the reason, by a service that lacks it); ``switch``: the flag that picks another
    service for the command."""

    NATIVE_FORM = ("native-form", "reading a config written in the service's own form",
                   "validate, submit: a native Vertex config")
    CONVERT = ("convert", "writing an AI Platform config in the service's own form",
               "gpujob convert --to", ("convert",), (), "--to")
    COSTS = ("costs", "knowing what a job costs an hour",
             "validate, submit, --max-hourly-cost, --max-cost",
             ("describe_costs",), ("--max-hourly-cost", "--max-cost"))
    PLACEMENT = ("placement", "a quota preflight and ordered choices of region and strategy",
                 "gpujob preflight (quota), submit --region A,B --strategy X,Y",
                 ("placement",), ("--order",))
    PREFLIGHT = ("preflight", "saying before a submit whether the job can start: the quota of each "
                 "choice (with placement), or the pieces a cluster needs", "gpujob preflight")
    JOBS = ("jobs", "creating and following jobs",
            "submit, describe, list, cancel, wait, logs", ("client",))
    LOCAL = ("local", "running a job here as the service's replicas would",
             "gpujob local, submit --local", ("local",))
    REFRESH = ("refresh", "reading the catalog's live parts from Google's APIs",
               "gpujob catalog refresh")
    RECOVER = ("recover", "creating a job again after the infrastructure ended it (a "
               "preemption, a stockout)", "submit --recover, wait --recover", ("recovery",))

    def __init__(self, label: str, does: str, commands: str, methods: tuple[str, ...] = (),
                 flags: tuple[str, ...] = (), switch: str = "--service") -> None:
        self.label = label
        self.does = does
        self.commands = commands
        self.methods = methods
        self.flags = flags
        self.switch = switch


# what a service that says nothing lacks: everything (it checks configs and builds requests:
# validate, submit --dry-run, gpus, rules)
DEFAULT_LACKS: Mapping[Capability, str] = {
    Capability.NATIVE_FORM: "it reads AI Platform configs only",
    Capability.CONVERT: "it has no form of its own to write",
    Capability.COSTS: "gpujob has no prices for it",
    Capability.PLACEMENT: "it takes one region and one strategy per job, without a quota "
                          "preflight",
    Capability.PREFLIGHT: "it has nothing to read before a submit",
    Capability.JOBS: "it creates no jobs",
    Capability.LOCAL: "it cannot say what its replicas see",
    Capability.REFRESH: "its catalog has no live parts",
    Capability.RECOVER: "gpujob cannot tell why its jobs end",
}


class ServiceBase(ABC):
    """A service's defaults (``base.Service``): it writes what it has, the rest it inherits.
    What it lacks is ``lacks``, with the reason; every method of a capability it lacks
    refuses with a usage error naming it."""

    name: ClassVar[str]  # as --service names it
    title: ClassVar[str]  # for people: "AI Platform Training"
    lacks: ClassVar[Mapping[Capability, str]] = DEFAULT_LACKS
    # the flags of submit, local and convert this service cannot honour, with the reason
    unsupported_flags: ClassVar[Mapping[str, str]] = {}
    flags: ClassVar[tuple[ServiceFlag, ...]] = ()  # flags of its own

    @property
    def refresh(self) -> ModuleType | None:
        """``gpujob catalog refresh``: the module reading its catalog's live parts
        (``Capability.REFRESH``); None: a catalog that is data only."""
        return None

    def supports(self, capability: Capability) -> bool:
        return capability not in self.lacks

    def require(self, capability: Capability, subject: str) -> None:
        """Nothing when the service has ``capability``; else the usage error ``subject``
        (the command, or the flags, that need it) ends in."""
        reason = self.lacks.get(capability)
        if reason is None:
            return
        raise UsageError(
            f"{subject}: the {self.name} service ({self.title}) lacks the capability "
            f"'{capability.label}' ({capability.does}): {reason}", _has_it(capability))

    # -- what every service writes ---------------------------------------------------------

    @property
    @abstractmethod
    def catalog(self) -> ModuleType:
        """Its catalog module (``gpujob.catalog.files`` reads its data file)."""

    @abstractmethod
    def rules(self, doc: Document, cat: Any, refused: set[JsonPath],
              options: CheckOptions) -> Checked: ...

    @abstractmethod
    def request(self, job: Any, gcp: GcpSettings, project: str | None,
                options: JobOptions) -> Request: ...

    @abstractmethod
    def status(self, raw: dict[str, Any]) -> JobStatus: ...

    @abstractmethod
    def parse_ref(self, text: str) -> JobRef: ...

    @abstractmethod
    def links(self, job_id: str, project: str, location: str | None = None) -> Links: ...

    @abstractmethod
    def commands(self, job_id: str, project: str, location: str | None = None) -> Commands: ...

    @abstractmethod
    def offerings(self, settings: GpusSettings) -> int: ...

    @abstractmethod
    def completions(self, cat: Any) -> Offer: ...

    # -- the defaults ----------------------------------------------------------------------

    def read(self, doc: Document, cat: Any, options: CheckOptions) -> Checked | None:
        return None  # an AI Platform config: the engine checks it (no native form)

    def listed_rules(self) -> list[Rule]:
        return []

    def explain(self, findings: list[Finding], doc: Document, cat: Any) -> list[Finding]:
        return findings

    def describe_costs(self, costs: list[tuple[str | None, Any]]) -> list[str]:
        return []  # no prices (Capability.COSTS)

    def convert(self, doc: Document, checked: Checked, options: CheckOptions,
                output: str | None, whole_job: bool) -> Converted:
        self.require(Capability.CONVERT, f"gpujob convert --to {self.name}")
        raise NotImplementedError(f"{type(self).__name__}.convert")

    def client(self, gcp: GcpSettings, session: Session | None = None,
               extra: tuple[tuple[str, str], ...] = ()) -> JobClient:
        self.require(Capability.JOBS, "sending or following a job")
        raise NotImplementedError(f"{type(self).__name__}.client")

    def placement(self, client: JobClient) -> Placement:
        self.require(Capability.PLACEMENT, "a quota preflight or ordered choices")
        raise NotImplementedError(f"{type(self).__name__}.placement")

    def recovery(self, client: JobClient, catalog: Any) -> Recovery:
        self.require(Capability.RECOVER, "creating a job again after it ended")
        raise NotImplementedError(f"{type(self).__name__}.recovery")

    def scope(self, project: str) -> str | None:
        """Where its jobs are, in words, when that is not a Google project (GKE: a context and
        a namespace); None: ``project P``."""
        return None

    def cancelled(self, job_id: str, project: str, location: str | None) -> list[str] | None:
        """What ``cancel`` says once the cancel is sent, when the job does not then end
        CANCELLED (GKE deletes the JobSet); None: that it ends CANCELLED shortly."""
        return None

    def preflight(self, job: Any, gcp: GcpSettings, extra: tuple[tuple[str, str], ...],
                  output_format: str,
                  availability: tuple[str | None, str | None] | None = None) -> int:
        """``gpujob preflight`` of a service without ``placement`` (whose preflight is the
        quota of each choice): what it reads before a submit, and the exit code."""
        self.require(Capability.PREFLIGHT, "gpujob preflight")
        raise NotImplementedError(f"{type(self).__name__}.preflight")

    def reserve(self, settings: ReserveSettings) -> int:
        """``gpujob reserve``: Vertex AI's alone (its catalog and price table)."""
        raise UsageError(f"gpujob reserve: not for --service {self.name}",
                         "it reads Vertex AI's catalog and price table")

    def local(self, doc: Document, job_dir: str, options: LocalOptions) -> LocalCluster:
        self.require(Capability.LOCAL, "a local run")
        raise NotImplementedError(f"{type(self).__name__}.local")


def _has_it(capability: Capability) -> str:
    """The services that have ``capability``, as the flag that picks one names them."""
    from gpujob import services

    having = [name for name in services.SERVICES if services.get(name).supports(capability)]
    if not having:
        return f"no service of gpujob's has {capability.label}"
    names = ", ".join(having[:-1]) + " or " + having[-1] if len(having) > 1 else having[0]
    return f"use {capability.switch} {names}"


def markdown() -> str:
    """The table of what each registered service has (docs/getting-started.md shows it)."""
    from gpujob import services

    names = list(services.SERVICES)
    lines = ["| Capability | What it is | Needed by | " + " | ".join(f"`{n}`" for n in names)
             + " |", "|---" * (3 + len(names)) + "|"]
    for capability in Capability:
        cells = [f"no: {services.get(n).lacks[capability]}"
                 if not services.get(n).supports(capability) else "yes" for n in names]
        lines.append(f"| {capability.label} | {capability.does} | {capability.commands} | "
                     + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def refuse_flags(flags: Iterable[str], why: str, hint: str) -> None:
    """One ``UsageError`` naming every flag of ``flags`` ("--a and --b are {why}"); nothing when
    there is none."""
    given = list(dict.fromkeys(flags))
    if given:
        verb = "are" if len(given) > 1 else "is"
        raise UsageError(f"{' and '.join(given)} {verb} {why}", hint)


def check_flags(service: Service, given: Iterable[str], switch: str = "--service") -> None:
    """Refuse, all in one usage error, the flags of ``given`` that ``service`` does not
    support, each with its reason: its ``unsupported_flags``, and the flags of the capabilities
    it lacks (``Capability.flags``). ``switch``: the command's flag that chooses the service."""
    why = {flag: reason for capability, reason in service.lacks.items()
           for flag in capability.flags}
    why.update(service.unsupported_flags)
    refused = [flag for flag in dict.fromkeys(given) if flag in why]
    if len(refused) == 1:
        raise UsageError(f"{refused[0]} is not supported by the {service.name} service "
                         f"({service.title}): {why[refused[0]]}",
                         f"leave it out, or choose another service with {switch}")
    refuse_flags(refused, f"not supported by the {service.name} service ({service.title})",
                 f"leave them out, or choose another service with {switch}")
