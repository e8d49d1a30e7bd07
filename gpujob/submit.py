"""``gpujob submit``: load, override, check, then dry-run, submit or run locally."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field, replace
from typing import Any

from gpujob.backends.aiplatform import Follow
from gpujob.check import CheckOptions, check_document, combine
from gpujob.config.document import Document
from gpujob.config.load import load_file
from gpujob.config.merge import apply, generate_job_id
from gpujob.config.overrides import Override
from gpujob.errors import InvalidConfig, UsageError
from gpujob.findings import Finding, Location
from gpujob.gcp.settings import ML_ENDPOINT, GcpSettings, base_url
from gpujob.report import finding_line

__all__ = ["ML_ENDPOINT", "SubmitSettings", "prepare", "request_body", "run"]


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
    # local runs (--local, gpujob local); None: the local backend's default
    package_path: str | None = None
    max_local_replicas: int | None = None
    grace_period: float | None = None

    def check_options(self) -> CheckOptions:
        return CheckOptions(submit=True, local=self.local, catalog=self.catalog,
                            region_check=self.region_check)


def _print_findings(findings: list[Finding]) -> None:
    for finding in findings:
        print(finding_line(finding), file=sys.stderr)


def _check_user_args(args: list[str]) -> None:
    for i, arg in enumerate(args):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            raise UsageError(f"user argument {i + 1} after -- is not valid UTF-8",
                             "the API carries arguments as UTF-8 text") from None


def prepare(settings: SubmitSettings) -> Document:
    """The Job to send: the file, with overrides and user args applied, a job ID, and checked.

    Findings go to stderr; any error raises ``InvalidConfig`` (exit 1) after all are shown.
    """
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
    findings = combine(loaded.findings, check_document(doc, settings.check_options()))
    _print_findings(findings)
    errors = sum(f.is_error for f in findings)
    if errors:
        raise InvalidConfig(f"{settings.config}: {errors} problem{'s' if errors > 1 else ''}; "
                            f"nothing was {'run' if settings.local else 'submitted'}")
    return doc


def request_body(doc: Document) -> dict[str, Any]:
    """The Job resource exactly as it is POSTed to ``projects/PROJECT/jobs``."""
    return doc.data


def _check_local_flags(settings: SubmitSettings) -> None:
    if settings.local and settings.dry_run:
        raise UsageError("--dry-run and --local do not go together",
                         "--dry-run prints the request for the cloud; --local runs the job here")
    if settings.package_path is not None and not settings.local:
        raise UsageError("--package-path is only used with --local for now",
                         "give the cloud your trainer as gs:// packages with --packages")


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
    doc = prepare(settings)
    if settings.local:
        return run_local(settings, doc)
    body = request_body(doc)
    if settings.dry_run:
        parent = f"projects/{settings.project or 'PROJECT'}"
        endpoint = base_url(settings.gcp.api_endpoint)
        print(f"Dry run: would POST this Job to {endpoint}v1/{parent}/jobs (nothing sent)"
              + ("" if settings.project else "; no project given (--project or GPUJOB_PROJECT)"),
              file=sys.stderr)
        sys.stdout.write(json.dumps(body, indent=2, ensure_ascii=False) + "\n")
        return 0
    from gpujob.backends import aiplatform

    return aiplatform.submit(body, replace(settings.gcp, project=settings.project),
                             settings.output_format, settings.follow)
