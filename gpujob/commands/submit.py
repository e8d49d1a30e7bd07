"""``gpujob submit`` and ``gpujob local``: load, override, check, build the request once, stage
the trainer's packages, then print the request (``--dry-run``), send it, or run the job here.

The service is chosen once (``--service``) and asked, never tested: whether the config is in a
form of its own (``Service.read``), its checks (``checks.engine``), its request
(``Service.request``), and what its replicas see in a local run (``Service.local``)."""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from gpujob.checks.engine import FileResult, check_job, combine
from gpujob.checks.report import REPORTERS, finding_line
from gpujob.commands.packages import LocalWanted, Prepared, Wanted
from gpujob.commands.submit_settings import SubmitSettings
from gpujob.config.document import Document
from gpujob.config.load import load_file
from gpujob.config.merge import apply, generate_job_id
from gpujob.config.overrides import Override
from gpujob.console import CONSOLE
from gpujob.errors import InvalidConfig, UsageError
from gpujob.findings import Finding, Location, capped

if TYPE_CHECKING:
    from gpujob.services.base import JobClient, Request, Service

def _report(settings: SubmitSettings, findings: list[Finding], valid: bool) -> None:
    """The checks' findings: lines on stderr; with ``--format json``, an invalid config's as
    ``validate --format json`` prints them, on stdout (the valid one's warnings go into the JSON
    envelope of the job, or, for a dry-run, whose stdout is the body, on stderr)."""
    if settings.output_format == "json" and not valid:
        CONSOLE.json_text(REPORTERS["json"]([FileResult(settings.config, findings)]))
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


def merged(doc: Document, overrides: list[Override], user_args: list[str] | None) -> Document:
    """The file with the command line applied: the overrides in order, then the trainer's
    arguments after ``--`` (they replace the file's args). Says what each ``--unset`` removed."""
    overrides = list(overrides)
    if user_args is not None:
        _check_user_args(user_args)
        overrides.append(Override(("trainingInput", "args"), list(user_args),
                                  Location("command line", flag="-- user args")))
    result = apply(doc, overrides)
    _note_removals(doc, overrides)
    return result


def prepare_job(settings: SubmitSettings, service: Service, workdir: Path,
                remote: _Remote | None = None) -> Prepared:
    """The request to send, built once: the file with overrides and user args applied (by the
    service, for a config in a form of its own), a job ID, checked, and the trainer's packages
    built (into ``workdir``) and given their staging URIs; nothing is uploaded. Findings are
    shown (``_report``); any error raises ``InvalidConfig`` (exit 1) after all are.

    Order: the command line (exit 2), then the checks (exit 1), then ``remote`` is opened (its
    project names the request; None: a dry-run, whose project is --project's), then, when
    packages are to be staged, the staging location (exit 2), the remote side's access (exit
    3) and the build (exit 1), so nothing is built or uploaded for a job that cannot be sent.
    With nothing to stage the create is the only request, and its refusal says the same."""
    loaded = load_file(settings.config)
    if loaded.document is None:
        _report(settings, loaded.findings, valid=False)
        raise InvalidConfig(f"{settings.config} cannot be read as a Job config")
    options = settings.check_options(service)
    own = service.read(loaded.document, options.catalog_in_use(), options)
    if own is not None:  # the service applies the command line to its own form
        findings = combine(loaded.findings, own.findings)
        _report_or_fail(settings, findings)
        return Prepared(request=_request(settings, service, own.job, remote),
                        warnings=_warnings(findings), cost=own.cost)
    doc = merged(loaded.document, settings.overrides, settings.user_args)
    if "jobId" not in doc.data:
        doc = apply(doc, [Override(("jobId",), generate_job_id(settings.config),
                                   Location("generated", flag="file name and time"))])
    wanted = LocalWanted(doc, settings) if settings.local else Wanted(doc, settings)
    checked_doc = apply(doc, [wanted.for_check()]) if wanted else doc
    checked = check_job(checked_doc, options)
    findings = combine(loaded.findings, checked.findings)
    _report_or_fail(settings, findings)
    if isinstance(wanted, LocalWanted):
        return Prepared(doc=doc, local_packages=wanted.files, warnings=_warnings(findings))
    request = _request(settings, service, checked.job, remote)
    prepared = Prepared(request=request, warnings=_warnings(findings))
    if wanted:
        def ready() -> None:
            if remote is not None:
                remote.open().check_access(request)

        prepared = wanted.stage(doc, settings, workdir, ready)
        prepared.request = request.staged(prepared.uris)
        prepared.warnings = _warnings(findings)
    prepared.cost = checked.cost
    return prepared


def _warnings(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.severity == "warning"]


def _report_or_fail(settings: SubmitSettings, findings: list[Finding]) -> None:
    errors = sum(f.is_error for f in findings)
    _report(settings, findings, valid=not errors)
    if errors:
        raise InvalidConfig(f"{settings.config}: {errors} problem{'s' if errors > 1 else ''}; "
                            f"nothing was {'run' if settings.local else 'submitted'}")


def _request(settings: SubmitSettings, service: Service, job: object,
             remote: _Remote | None) -> Request:
    """The service's request for the checked ``job``, in the project of the session ``remote``
    opens (a dry-run: --project's, or none)."""
    project = remote.open().project if remote is not None else settings.project
    gcp = remote.gcp if remote is not None else settings.gcp
    return service.request(job, gcp, project, settings.job_options())


def _check_local_flags(settings: SubmitSettings) -> None:
    if settings.local and settings.dry_run:
        raise UsageError("--dry-run and --local do not go together",
                         "--dry-run prints the request for the cloud; --local runs the job here")


def run_local(settings: SubmitSettings, service: Service, prepared: Prepared) -> int:
    """Run the checked job on this machine (``--local``, ``gpujob local``), as the service's
    replicas would see it."""
    from gpujob.local.cluster import LocalOptions
    from gpujob.local.run import run_local as run_here

    assert prepared.doc is not None, "a local run prepares the config, not a request"
    options = LocalOptions(service, package_path=settings.package_path,
                           catalog=settings.catalog, job=settings.job_options(),
                           packages=prepared.local_packages)
    if settings.max_local_replicas is not None:
        options.max_replicas = settings.max_local_replicas
    if settings.grace_period is not None:
        options.grace_period = settings.grace_period
    return run_here(prepared.doc, options)


def execute(settings: SubmitSettings) -> int:
    """Check the job, then run it here, print its request (``--dry-run``), or send it."""
    from gpujob import services
    from gpujob.services.base import check_flags

    _check_local_flags(settings)
    service = services.get(settings.service)  # a local run reads only its flags
    check_flags(service, settings.given_flags)
    with tempfile.TemporaryDirectory(prefix="gpujob-build-") as workdir:
        if settings.local:
            return run_local(settings, service, prepare_job(settings, service, Path(workdir)))
        if settings.dry_run:
            return _dry_run(settings, service, prepare_job(settings, service, Path(workdir)))
        remote = _Remote(settings, service)
        prepared = prepare_job(settings, service, Path(workdir), remote)
        return _send(settings, service, prepared, remote)


def _dry_run(settings: SubmitSettings, service: Service, prepared: Prepared) -> int:
    """Say what would be staged and sent (stderr), and print the request's body (stdout): the
    request a submit would send."""
    from gpujob.packages.staging import human_size

    for upload in prepared.uploads:
        CONSOLE.err(f"Dry run: would stage {upload.path.name} "
                    f"({human_size(upload.digest.size)}) at {upload.uri} unless it is there "
                    "already (nothing uploaded)")
    request = prepared.request
    assert request is not None, "a dry-run prepares a request"
    CONSOLE.err(f"Dry run: would {request.method} this {request.noun} to {request.url} "
                "(nothing sent)" + ("" if settings.project or not request.project_scoped
                                    else "; no project given (--project or GPUJOB_PROJECT)"))
    if prepared.cost is not None:
        for line in service.describe_costs([(None, prepared.cost)]):
            CONSOLE.err(line)
    if request.media == "yaml" and settings.output_format != "json":
        import yaml

        CONSOLE.out(yaml.safe_dump(request.body, sort_keys=False, allow_unicode=True,
                                   width=100))
    else:
        CONSOLE.json(request.body)
    return 0


class _Remote:
    """A submit's job client (and its session, which stages the packages), opened once the
    config has been checked (its project names the request), so that nothing is read from
    Google for a config that cannot be sent."""

    def __init__(self, settings: SubmitSettings, service: Service) -> None:
        self.gcp = replace(settings.gcp, project=settings.project)
        self.service = service
        self.extra = settings.job_options().extra
        self.client: JobClient | None = None

    def open(self) -> JobClient:
        if self.client is None:
            self.client = self.service.client(self.gcp, extra=self.extra)
        return self.client


def _send(settings: SubmitSettings, service: Service, prepared: Prepared,
          remote: _Remote) -> int:
    """Stage the packages, then create the job in the service and follow it as asked."""
    from gpujob.commands import jobs

    client = remote.open()
    session = client.session
    if prepared.uploads and prepared.location is not None and session is not None:
        from gpujob.gcp.storage import StorageClient

        count = len(prepared.uploads)
        session.echo(f"Staging {count} package{'s' if count > 1 else ''} in "
                     f"{prepared.location.url}:")
        StorageClient(session).stage(prepared.uploads, session.echo)
    assert prepared.request is not None, "a submit prepares a request"
    follow = jobs.Follow(settings.wait, settings.stream_logs, settings.poll_interval)
    return jobs.submit(service, prepared.request, client, settings.output_format, follow,
                       warnings=[f.as_dict() for f in prepared.warnings],
                       cost=prepared.cost.as_dict() if prepared.cost is not None else None)
