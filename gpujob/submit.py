"""``gpujob submit``: load, override, check, stage the trainer's packages, then dry-run, submit or
run locally."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from gpujob.check import FileResult, check_document, combine
from gpujob.config.document import Document
from gpujob.config.load import load_file
from gpujob.config.merge import apply, generate_job_id
from gpujob.config.overrides import Override
from gpujob.console import CONSOLE
from gpujob.errors import InvalidConfig, UsageError
from gpujob.findings import Finding, Location, capped
from gpujob.report import REPORTERS, finding_line
from gpujob.submit_packages import LocalWanted, Prepared, Wanted
from gpujob.submit_settings import SubmitSettings, check_display_name

if TYPE_CHECKING:
    from gpujob.backends.base import Backend, JobClient
    from gpujob.gcp.session import Session

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


def prepare_job(settings: SubmitSettings, workdir: Path,
                before_build: Callable[[Document, str | None], None] | None = None
                ) -> Prepared:
    """The Job to send: the file, with overrides and user args applied, a job ID, checked, and
    the trainer's packages built (into ``workdir``) and given their staging URIs; nothing is
    uploaded. Findings are shown (``_report``); any error raises ``InvalidConfig`` (exit 1)
    after all are.

    Order: the command line (exit 2), then the checks (exit 1), then, when packages are to be
    staged, the staging location (exit 2), ``before_build(document, region)`` (the remote
    side's access, exit 3) and the build (exit 1), so nothing is built or uploaded for a job
    that cannot be sent. With nothing to stage ``before_build`` is not called: the create is
    the only request, and its refusal says the same (a native Vertex config stages nothing)."""
    from gpujob.vertex_native.shapes import kind

    loaded = load_file(settings.config)
    if loaded.document is None:
        _report(settings, loaded.findings, valid=False)
        raise InvalidConfig(f"{settings.config} cannot be read as a Job config")
    if kind(loaded.document.data) is not None:
        return _prepare_native(settings, loaded.document, loaded.findings)
    if settings.display_name is not None:
        check_display_name(settings.service, settings.display_name)
    doc = merged(loaded.document, settings.overrides, settings.user_args)
    if "jobId" not in doc.data:
        doc = apply(doc, [Override(("jobId",), generate_job_id(settings.config),
                                   Location("generated", flag="file name and time"))])
    wanted = LocalWanted(doc, settings) if settings.local else Wanted(doc, settings)
    checked = apply(doc, [wanted.for_check()]) if wanted else doc
    findings = combine(loaded.findings, check_document(checked, settings.check_options()))
    if settings.local and settings.service == "vertex":
        from gpujob.backends.vertex_env import translated_by_the_run

        # the run translates the job itself, with its own job dir, and reports that
        findings = [f for f in findings if not translated_by_the_run(f)]
    errors = sum(f.is_error for f in findings)
    _report(settings, findings, valid=not errors)
    if errors:
        raise InvalidConfig(f"{settings.config}: {errors} problem{'s' if errors > 1 else ''}; "
                            f"nothing was {'run' if settings.local else 'submitted'}")
    def ready() -> None:
        if before_build is not None:
            before_build(checked, None)

    if isinstance(wanted, LocalWanted):
        prepared = Prepared(doc, local_packages=wanted.files)
    elif wanted:
        prepared = wanted.stage(doc, settings, workdir, ready)
    else:
        prepared = Prepared(doc)
    prepared.warnings = [f for f in findings if f.severity == "warning"]
    return prepared


def _prepare_native(settings: SubmitSettings, doc: Document,
                    load_findings: list[Finding]) -> Prepared:
    """A native Vertex config: the command line applied as gcloud's flags mean it
    (``vertex_native.flags``), checked, and made the body of its create request; its region
    goes with it (``Prepared.region``)."""
    from gpujob import vertex_native
    from gpujob.check import check_native
    from gpujob.vertex_native.flags import apply_flags, check_labels

    options = settings.check_options()
    job = None
    if settings.service == "vertex":
        if settings.local:
            raise UsageError("a native Vertex config does not run here: gpujob local runs AI "
                             "Platform configs", "check it with gpujob submit --dry-run")
        if settings.package_path:
            raise UsageError("--package-path stages a package into an AI Platform config's "
                             "packageUris; a native Vertex config names its packages itself",
                             "stage the package and name its gs:// URI in "
                             "pythonPackageSpec.packageUris")
        doc, notes = vertex_native.read(doc)  # as gcloud reads it, before its flags apply
        load_findings = [*load_findings, *notes]
        job = apply_flags(doc, settings.overrides, settings.user_args, settings.display_name,
                          executor_image_uri=settings.check.executor_image_uri,
                          strategy=settings.check.strategy, extras=settings.check.extras)
        doc = job.doc
    findings = combine(load_findings, check_native(
        doc, options, **({"region": job.region, "region_origin": job.region_origin,
                          "name": job.name} if job else {}))
                       + (check_labels(job.labels, job.labels_origin) if job else []))
    errors = sum(f.is_error for f in findings)
    _report(settings, findings, valid=not errors)
    if errors or job is None:
        raise InvalidConfig(f"{settings.config}: {errors} problem{'s' if errors > 1 else ''}; "
                            "nothing was submitted")
    _, body = vertex_native.body(doc, name=job.name, labels=job.labels, kms_key=job.kms_key)
    return Prepared(Document(doc.source, body), region=job.region,
                    warnings=[f for f in findings if f.severity == "warning"])


def _check_local_flags(settings: SubmitSettings) -> None:
    if settings.local and settings.dry_run:
        raise UsageError("--dry-run and --local do not go together",
                         "--dry-run prints the request for the cloud; --local runs the job here")


def run_local(settings: SubmitSettings, prepared: Prepared) -> int:
    """Run the checked job on this machine (``--local``, ``gpujob local``)."""
    from gpujob.backends.local import LocalOptions
    from gpujob.backends.local import run_local as run_here

    # each service's runner plans over its own catalog (ai-platform: its scale tiers and
    # machine types; vertex: the translation's)
    job = settings.job_options()
    options = LocalOptions(package_path=settings.package_path, catalog=settings.catalog,
                           service=settings.service, executor_image_uri=job.executor_image_uri,
                           strategy=job.strategy, packages=prepared.local_packages)
    if settings.max_local_replicas is not None:
        options.max_replicas = settings.max_local_replicas
    if settings.grace_period is not None:
        options.grace_period = settings.grace_period
    return run_here(prepared.doc, options)


def run(settings: SubmitSettings) -> int:
    """Check the job, then run it here, print its request (``--dry-run``), or send it."""
    from gpujob import backends
    from gpujob.backends.base import check_flags

    _check_local_flags(settings)
    backend = backends.get(settings.service)  # a local run reads only its flags
    check_flags(backend, settings.given_flags)
    with tempfile.TemporaryDirectory(prefix="gpujob-build-") as workdir:
        if settings.local or settings.dry_run:
            prepared = prepare_job(settings, Path(workdir))
            if settings.local:
                return run_local(settings, prepared)
            return _dry_run(settings, prepared, backend)
        remote = _Remote(settings, backend)
        prepared = prepare_job(settings, Path(workdir), remote.check_access)
        return _send(settings, prepared, backend, remote)


def _dry_run(settings: SubmitSettings, prepared: Prepared, backend: Backend) -> int:
    """Say what would be staged and sent (stderr), and print the request's body (stdout)."""
    from gpujob.staging import human_size

    for upload in prepared.uploads:
        CONSOLE.err(f"Dry run: would stage {upload.path.name} "
                    f"({human_size(upload.digest.size)}) at {upload.uri} unless it is there "
                    "already (nothing uploaded)")
    request = backend.request(prepared.doc.data, settings.gcp, settings.project,
                              replace(settings.job_options(), region=prepared.region))
    CONSOLE.err(f"Dry run: would {request.method} this {request.noun} to {request.url} "
                "(nothing sent)"
                + ("" if settings.project else "; no project given (--project or GPUJOB_PROJECT)"))
    CONSOLE.json(request.body)
    return 0


class _Remote:
    """A submit's session and job client, opened once the config has been checked, so that
    access is proven (``JobClient.check_access``) before packages are built or uploaded (and
    only then: without packages to stage, the create is the first request)."""

    def __init__(self, settings: SubmitSettings, backend: Backend) -> None:
        self.gcp = replace(settings.gcp, project=settings.project)
        self.options = settings.job_options()
        self.backend = backend
        self.session: Session | None = None
        self.client: JobClient | None = None

    def open(self) -> JobClient:
        if self.client is None:
            from gpujob.gcp.session import Session

            self.session = Session(self.gcp)
            self.client = self.backend.client(self.gcp, self.session)
        return self.client

    def check_access(self, doc: Document, region: str | None) -> None:
        """``doc``: the checked config (``region``: a native Vertex config's)."""
        client = self.open()
        client.check_access(self.backend.request(
            doc.data, self.gcp, client.project, replace(self.options, region=region)))


def _send(settings: SubmitSettings, prepared: Prepared, backend: Backend,
          opened: _Remote) -> int:
    """Stage the packages, then create the job in the service and follow it as asked."""
    from gpujob.backends import remote

    client = opened.open()
    gcp, session = opened.gcp, opened.session
    if prepared.uploads and prepared.location is not None and session is not None:
        from gpujob.gcp.storage import StorageClient

        count = len(prepared.uploads)
        session.echo(f"Staging {count} package{'s' if count > 1 else ''} in "
                     f"{prepared.location.url}:")
        StorageClient(session).stage(prepared.uploads, session.echo)
    follow = remote.Follow(settings.wait, settings.stream_logs, settings.poll_interval)
    return remote.submit(backend, prepared.doc.data, gcp, settings.output_format, follow,
                         session=session, warnings=[f.as_dict() for f in prepared.warnings],
                         client=client,
                         options=replace(opened.options, region=prepared.region,
                                         document=prepared.doc))
