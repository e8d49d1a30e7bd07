"""A submit's steps up to the send, each with its inputs: load, apply the command line and check
(``check_config``), report (``report_or_fail``), the request (``make_request``), where the
packages go (``locate``), their build (``build``) and upload (``stage``), and the client that
sends it, opened when first needed (``Remote``). ``send.run`` strings them together for a
submit over the plan's choices (``failover.Plan``: one for a plain submit), ``prepare_job``
for a dry-run or a local run; ``preflight`` checks with them."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpujob.checks.engine import FileResult, check_job, combine
from gpujob.checks.report import REPORTERS, finding_line
from gpujob.config.document import Document
from gpujob.config.load import Loaded
from gpujob.config.merge import apply, generate_job_id
from gpujob.config.overrides import Override
from gpujob.console import CONSOLE
from gpujob.errors import InvalidConfig, UsageError
from gpujob.findings import Finding, Location, capped
from gpujob.submit.packages import LocalWanted, Prepared, Wanted, plain
from gpujob.submit.settings import SubmitSettings

if TYPE_CHECKING:
    from gpujob.packages.staging import Location as StagingLocation
    from gpujob.services.base import JobClient, Request, Service


def _report(settings: SubmitSettings, findings: list[Finding], valid: bool) -> None:
    """The checks' findings: lines on stderr; with ``--format json``, an invalid config's as
    ``validate --format json`` prints them, on stdout (the valid one's warnings go into the JSON
    envelope of the job, or, for a dry-run, whose stdout is the body, on stderr)."""
    if settings.output_format == "json" and not valid:
        CONSOLE.json_text(REPORTERS["json"]([FileResult(settings.name, findings)]))
        return
    if settings.output_format == "json" and not (settings.dry_run or settings.local):
        return
    for finding in capped(findings):
        CONSOLE.err(finding_line(finding))


def _note_removals(doc: Document, overrides: list[Override]) -> None:
    """Say what each ``--unset`` removed, and where the file had it."""
    from gpujob.config.merge import REMOVE
    from gpujob.findings import format_path

    for override in overrides:
        if override.value is REMOVE:
            CONSOLE.err(f"note: {override.origin.flag} removed {format_path(override.path)} "
                        f"(set at {doc.locate(override.path)})")


def _check_user_args(args: list[str]) -> None:
    for i, arg in enumerate(args):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            raise UsageError(f"user argument {i + 1} after -- is not valid UTF-8",
                             "the API carries arguments as UTF-8 text") from None


def merged(doc: Document, overrides: list[Override], user_args: list[str] | None,
           notes: bool = True) -> Document:
    """The file with the command line applied: the overrides in order, then the trainer's
    arguments after ``--`` (they replace the file's args). Says what each ``--unset`` removed
    (``notes``)."""
    overrides = list(overrides)
    if user_args is not None:
        _check_user_args(user_args)
        overrides.append(Override(("trainingInput", "args"), list(user_args),
                                  Location("command line", flag="-- user args")))
    result = apply(doc, overrides)
    if notes:
        _note_removals(doc, overrides)
    return result


@dataclass
class JobCheck:
    """What the checks found in a submit's config, with the command line applied, before
    anything is reported: the findings (the loader's too), the service's checked job (None:
    errors) and its cost; for an AI Platform config the merged file (``doc``) and the packages
    the command line asks for (``wanted``)."""

    findings: list[Finding]
    job: object = None
    cost: Any = None
    doc: Document | None = None
    wanted: Wanted | LocalWanted | None = None

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.is_error]


def check_config(settings: SubmitSettings, service: Service, job_id: str | None = None,
                 notes: bool = True, loaded: Loaded | None = None,
                 submit: bool = True) -> JobCheck:
    """Load the config, apply the command line (by the service, for a config in a form of its
    own), give it a job ID (``job_id``, else one made from the file name and the time) and
    check it; nothing is reported (``report_or_fail``), and what the command line did is said
    only with ``notes`` (once per submit, however many choices are checked). ``loaded``: the
    config as read already (it is read once per submit: standard input cannot be read twice).
    ``submit`` False: checked as validate and convert check (``SubmitSettings.check_options``).
    A config that cannot be read: its findings are reported, ``InvalidConfig``."""
    loaded = loaded if loaded is not None else settings.load()
    if loaded.document is None:
        _report(settings, loaded.findings, valid=False)
        raise InvalidConfig(f"{settings.name} cannot be read as a Job config")
    options = settings.check_options(submit)
    own = service.read(loaded.document, options.catalog_in_use(), options)
    if own is not None:  # the service applies the command line to its own form
        return JobCheck(combine(loaded.findings, own.findings), own.job, own.cost)
    doc = merged(loaded.document, settings.overrides, settings.user_args, notes)
    if "jobId" not in doc.data:
        doc = apply(doc, [Override(("jobId",), job_id or generate_job_id(settings.name),
                                   Location("generated", flag="file name and time"))])
    wanted = LocalWanted(doc, settings) if settings.local else Wanted(doc, settings, notes)
    checked_doc = apply(doc, [wanted.for_check()]) if wanted else doc
    checked = check_job(checked_doc, options)
    findings = plain(checked.findings, wanted.words()) if wanted else checked.findings
    return JobCheck(combine(loaded.findings, findings), checked.job, checked.cost, doc, wanted)


def prepare_job(settings: SubmitSettings, service: Service, workdir: Path) -> Prepared:
    """What a dry-run prints or a local run runs, from the same steps as a submit
    (``gpujob.submit.send.run``): the config checked (``check_config``) and its findings
    shown (any error: ``InvalidConfig``, exit 1, after all are), then, for a dry-run, the
    request (in --project's project, or none) and the trainer's packages built into
    ``workdir`` (``locate``, ``build``); nothing is uploaded."""
    checked = check_config(settings, service)
    report_or_fail(settings, checked.findings)
    if isinstance(checked.wanted, LocalWanted):
        return Prepared(doc=checked.doc, local_packages=checked.wanted.files,
                        warnings=_warnings(checked.findings))
    request = make_request(settings, service, checked.job, None)
    return build(checked, settings, workdir, locate(checked, settings), request)


def locate(checked: JobCheck, settings: SubmitSettings) -> StagingLocation | None:
    """Where the packages the command line asks for are staged (``UsageError``, exit 2, when
    nowhere is given); None: nothing to stage. Before the remote side's access is read and
    anything is built."""
    if isinstance(checked.wanted, Wanted) and checked.wanted and checked.doc is not None:
        return checked.wanted.location(checked.doc, settings)
    return None


def build(checked: JobCheck, settings: SubmitSettings, workdir: Path,
          location: StagingLocation | None, request: Request) -> Prepared:
    """The checked job's ``request`` with its packages built (into ``workdir``) and given
    their addresses at ``location`` (``locate``); nothing is uploaded (``stage``)."""
    prepared = Prepared(request=request)
    wanted = checked.wanted
    if location is not None and isinstance(wanted, Wanted) and checked.doc is not None:
        prepared = wanted.build(checked.doc, settings, workdir, location)
        prepared.request = request.staged(prepared.uris)
    prepared.warnings = _warnings(checked.findings)
    prepared.cost = checked.cost
    return prepared


def _warnings(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.severity == "warning"]


def report_or_fail(settings: SubmitSettings, findings: list[Finding]) -> None:
    errors = sum(f.is_error for f in findings)
    _report(settings, findings, valid=not errors)
    if errors:
        raise InvalidConfig(f"{settings.name}: {errors} problem{'s' if errors > 1 else ''}; "
                            f"nothing was {'run' if settings.local else 'submitted'}")


def make_request(settings: SubmitSettings, service: Service, job: object,
             remote: Remote | None) -> Request:
    """The service's request for the checked ``job``, in the project of the session ``remote``
    opens (a dry-run: --project's, or none)."""
    project = remote.open().project if remote is not None else settings.project
    gcp = remote.gcp if remote is not None else settings.gcp
    return service.request(job, gcp, project, settings.check.job)


class Remote:
    """A submit's job client (and its session, which stages the packages), opened once the
    config has been checked (its project names the request), so that nothing is read from
    Google for a config that cannot be sent."""

    def __init__(self, settings: SubmitSettings, service: Service) -> None:
        self.gcp = replace(settings.gcp, project=settings.project)
        self.service = service
        self.extra = settings.check.job.extra
        self.client: JobClient | None = None

    def open(self) -> JobClient:
        if self.client is None:
            self.client = self.service.client(self.gcp, extra=self.extra)
        return self.client


def stage(client: JobClient, prepared: Prepared) -> bool:
    """Upload the packages ``prepared`` built, through ``client``'s session; whether any
    were."""
    session = client.session
    if not (prepared.uploads and prepared.location is not None and session is not None):
        return False
    from gpujob.gcp.storage import StorageClient

    count = len(prepared.uploads)
    session.echo(f"Staging {count} package{'s' if count > 1 else ''} in "
                 f"{prepared.location.url}:")
    StorageClient(session).stage(prepared.uploads, session.echo)
    return True
