"""``gpujob submit``: load, override, check, stage the trainer's packages, then dry-run, submit or
run locally."""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from gpujob.backends.aiplatform import Follow
from gpujob.check import CheckOptions, check_document, combine
from gpujob.config.document import Document
from gpujob.config.load import load_file
from gpujob.config.merge import apply, generate_job_id
from gpujob.config.overrides import Override
from gpujob.errors import InvalidConfig, UsageError
from gpujob.findings import Finding, Location, capped
from gpujob.gcp.settings import GcpSettings, base_url
from gpujob.report import finding_line
from gpujob.staging import Location as StagingLocation
from gpujob.staging import Upload

PACKAGE_URIS = ("trainingInput", "packageUris")


@dataclass
class SubmitSettings:
    """Everything ``submit`` was asked to do, resolved from flags, environment and defaults."""

    config: str
    overrides: list[Override] = field(default_factory=list)
    user_args: list[str] | None = None
    project: str | None = None
    dry_run: bool = False
    local: bool = False
    catalog: str | None = None
    region_check: bool = True
    gcp: GcpSettings = field(default_factory=GcpSettings)  # its project: ``project`` above
    output_format: str = "text"
    follow: Follow = field(default_factory=Follow)
    package_path: str | None = None  # --package-path: built and staged, or run from (local)
    staging_bucket: str | None = None  # --staging-bucket gs://BUCKET
    # local runs (--local, gpujob local); None: the local backend's default
    max_local_replicas: int | None = None
    grace_period: float | None = None

    def check_options(self) -> CheckOptions:
        return CheckOptions(submit=True, local=self.local, catalog=self.catalog,
                            region_check=self.region_check)


def _print_findings(findings: list[Finding]) -> None:
    for finding in capped(findings):
        print(finding_line(finding), file=sys.stderr)


def _check_user_args(args: list[str]) -> None:
    for i, arg in enumerate(args):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            raise UsageError(f"user argument {i + 1} after -- is not valid UTF-8",
                             "the API carries arguments as UTF-8 text") from None


@dataclass
class Prepared:
    """The checked Job, and the packages to stage before it is sent (their URIs are in it)."""

    doc: Document
    uploads: list[Upload] = field(default_factory=list)
    location: StagingLocation | None = None


class _Wanted:
    """The packages the command line asks to stage: the local files among ``--packages`` (by
    their index in packageUris) and the ``--package-path`` directory, checked (exit 2)."""

    def __init__(self, doc: Document, settings: SubmitSettings) -> None:
        from gpujob import packaging, staging

        ti = doc.data.get("trainingInput")
        uris = ti.get("packageUris") if isinstance(ti, dict) else None
        self.uris: list[Any] = list(uris) if isinstance(uris, list) else []
        self.origin = doc.locate(PACKAGE_URIS)
        if settings.package_path and self.uris and not self.origin.flag:
            # the package flags set the job's packages, as gcloud's do: the file's are replaced
            # (without either flag they are kept, unlike gcloud)
            _echo(f"note: --package-path replaces the config's packageUris "
                  f"({', '.join(map(str, self.uris))}); add them with --packages to keep them")
            self.uris = []
        # only entries given on the command line may be local files; the file's must be gs://
        self.local = [i for i, uri in enumerate(self.uris) if self.origin.flag
                      and isinstance(uri, str) and not uri.startswith("gs://")]
        self.files = staging.check_local_files([self.uris[i] for i in self.local])
        self.package_dir = (packaging.check_package_path(settings.package_path)
                            if settings.package_path else None)
        if settings.staging_bucket:
            staging.staging_bucket(settings.staging_bucket)  # a bad flag is refused even unused

    def __bool__(self) -> bool:
        return bool(self.local) or self.package_dir is not None

    def for_check(self) -> Override:
        """packageUris as the checks should see it: the entries to be staged stand in as gs://
        URIs (their content addresses are not known before the build), so that the rules see
        the packages the job will have."""
        uris = list(self.uris)
        for i, path in zip(self.local, self.files, strict=True):
            uris[i] = f"gs://to-be-staged/{path.name}"
        if self.package_dir is not None:
            uris.append(f"gs://to-be-staged/{self.package_dir.name}.tar.gz")
        return Override(PACKAGE_URIS, uris, self.origin)

    def stage(self, doc: Document, settings: SubmitSettings, workdir: Path) -> Prepared:
        """Build the package, address every file by its content, and put the URIs in the
        Job (the ones given stay in their places; the built package comes last)."""
        from gpujob import packaging, staging

        ti = doc.data.get("trainingInput")
        location = staging.resolve_location(
            settings.staging_bucket, ti.get("jobDir") if isinstance(ti, dict) else None)
        if location is None:
            raise staging.no_location_error()
        files = list(self.files)
        if self.package_dir is not None:
            built = packaging.build_sdist(self.package_dir, workdir, _echo)
            files.append(built)
            staging.check_unique_names(files)
        uploads = [staging.upload_for(path, location) for path in files]
        if self.package_dir is not None:
            _echo(f"Built {uploads[-1].name} ({staging.human_size(uploads[-1].digest.size)}, "
                  f"sha256 {uploads[-1].digest.sha256[:12]}…)")
        uris = list(self.uris)
        for i, upload in zip(self.local, uploads[:len(self.local)], strict=True):
            uris[i] = upload.uri
        if self.package_dir is not None:
            uris.append(uploads[-1].uri)
        origin = Location("command line", flag="--package-path") \
            if self.package_dir is not None else self.origin
        return Prepared(apply(doc, [Override(PACKAGE_URIS, uris, origin)]), uploads, location)


def _echo(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def prepare_job(settings: SubmitSettings, workdir: Path) -> Prepared:
    """The Job to send: the file, with overrides and user args applied, a job ID, checked, and
    the trainer's packages built (into ``workdir``) and given their staging URIs; nothing is
    uploaded. Findings go to stderr; any error raises ``InvalidConfig`` (exit 1) after all are
    shown.

    Order: the command line (exit 2), then the checks (exit 1), then the staging location
    (exit 2) and the build (exit 1), so no build starts for a job that cannot be sent."""
    loaded = load_file(settings.config)
    if loaded.document is None:
        _print_findings(loaded.findings)
        raise InvalidConfig(f"{settings.config} cannot be read as a Job config")
    overrides = list(settings.overrides)
    if settings.user_args is not None:
        _check_user_args(settings.user_args)
        overrides.append(Override(("trainingInput", "args"), list(settings.user_args),
                                  Location("command line", flag="-- user args")))
    doc = apply(loaded.document, overrides)
    if "jobId" not in doc.data:
        doc = apply(doc, [Override(("jobId",), generate_job_id(settings.config),
                                   Location("generated", flag="file name and time"))])
    wanted = None if settings.local else _Wanted(doc, settings)
    checked = apply(doc, [wanted.for_check()]) if wanted else doc
    findings = combine(loaded.findings, check_document(checked, settings.check_options()))
    _print_findings(findings)
    errors = sum(f.is_error for f in findings)
    if errors:
        raise InvalidConfig(f"{settings.config}: {errors} problem{'s' if errors > 1 else ''}; "
                            f"nothing was {'run' if settings.local else 'submitted'}")
    return wanted.stage(doc, settings, workdir) if wanted else Prepared(doc)


def request_body(doc: Document) -> dict[str, Any]:
    """The Job resource exactly as it is POSTed to ``projects/PROJECT/jobs``."""
    return doc.data


def _check_local_flags(settings: SubmitSettings) -> None:
    if settings.local and settings.dry_run:
        raise UsageError("--dry-run and --local do not go together",
                         "--dry-run prints the request for the cloud; --local runs the job here")


def run_local(settings: SubmitSettings, doc: Document) -> int:
    """Run the checked job on this machine (``--local``, ``gpujob local``)."""
    from gpujob.backends.local import LocalOptions
    from gpujob.backends.local import run_local as run_here

    options = LocalOptions(package_path=settings.package_path, catalog=settings.catalog)
    if settings.max_local_replicas is not None:
        options.max_replicas = settings.max_local_replicas
    if settings.grace_period is not None:
        options.grace_period = settings.grace_period
    return run_here(doc, options)


def run(settings: SubmitSettings) -> int:
    _check_local_flags(settings)
    with tempfile.TemporaryDirectory(prefix="gpujob-build-") as workdir:
        prepared = prepare_job(settings, Path(workdir))
        if settings.local:
            return run_local(settings, prepared.doc)
        return _run(settings, prepared)


def _run(settings: SubmitSettings, prepared: Prepared) -> int:
    body = request_body(prepared.doc)
    if settings.dry_run:
        from gpujob.staging import human_size

        for upload in prepared.uploads:
            print(f"Dry run: would stage {upload.path.name} ({human_size(upload.digest.size)}) "
                  f"at {upload.uri} unless it is there already (nothing uploaded)",
                  file=sys.stderr)
        parent = f"projects/{settings.project or 'PROJECT'}"
        endpoint = base_url(settings.gcp.api_endpoint)
        print(f"Dry run: would POST this Job to {endpoint}v1/{parent}/jobs (nothing sent)"
              + ("" if settings.project else "; no project given (--project or GPUJOB_PROJECT)"),
              file=sys.stderr)
        sys.stdout.write(json.dumps(body, indent=2, ensure_ascii=False) + "\n")
        return 0
    from gpujob.backends import aiplatform

    gcp = replace(settings.gcp, project=settings.project)
    session = None
    if prepared.uploads and prepared.location is not None:
        from gpujob.gcp.session import Session
        from gpujob.gcp.storage import StorageClient

        session = Session(gcp)
        count = len(prepared.uploads)
        session.echo(f"Staging {count} package{'s' if count > 1 else ''} in "
                     f"{prepared.location.url}:")
        StorageClient(session).stage(prepared.uploads, session.echo)
    return aiplatform.submit(body, gcp, settings.output_format, settings.follow, session=session)
