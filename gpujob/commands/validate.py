"""``gpujob validate``: check configs, every problem of every file in one report."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpujob.checks.report import REPORTERS
from gpujob.console import CONSOLE
from gpujob.errors import EXIT_INVALID, EXIT_OK
from gpujob.settings import ValidateSettings

if TYPE_CHECKING:
    from gpujob.checks.engine import FileResult
    from gpujob.submit.settings import SubmitSettings


def execute(settings: ValidateSettings, jobs: list[SubmitSettings] | None = None) -> int:
    """Check every file, then report them all at once: exit 0 when all are valid, else 1.
    ``jobs``: gcloud's command line was given, and each is a file's job with it applied (or
    the job of the flags alone), as submit builds it (``cli.gcloud_jobs.job_settings``)."""
    from gpujob.checks.engine import FileResult, check_file
    from gpujob.checks.report import summary
    from gpujob.findings import Location, error

    options = settings.check.loaded()  # the catalog first: a bad --catalog is one error
    if jobs is None:
        results = [check_file(path, options) for path in settings.files]
    else:
        from dataclasses import replace  # (a submit's settings: only for a job command line)

        results = [_check_job(replace(job, check=options).with_catalog()) for job in jobs]
    results += [FileResult(path, [error("load.io", f"cannot read the directory: {why}", (),
                                        Location(path), "nothing under it was checked")])
                for path, why in settings.unreadable]
    if settings.output_format == "json":
        from gpujob.catalog import freshness
        from gpujob.checks.report import render_json

        described = freshness.describe(options.catalog)
        # a catalog with live facts (Vertex AI's) says how old they are; AI Platform's report
        # keeps its shape
        report = render_json(results, catalog=described if described["live"] else None)
    else:
        report = REPORTERS[settings.output_format](results)
    (CONSOLE.json_text if settings.output_format == "json" else CONSOLE.out)(report)
    if settings.output_format == "text":
        costs = [(r.path if len(results) > 1 else None, r.cost) for r in results
                 if r.cost is not None]
        for line in options.service.describe_costs(costs):
            CONSOLE.err(line)
        CONSOLE.err(summary(results))
    return EXIT_OK if all(r.valid for r in results) else EXIT_INVALID


def _check_job(settings: SubmitSettings) -> FileResult:
    """One job as ``submit --dry-run`` checks it (``check_config``), with validate's options:
    what only sending needs (a region, staged packages) is not asked for."""
    from gpujob.checks.engine import FileResult
    from gpujob.submit.prepare import check_config

    loaded = settings.load()
    path = settings.name
    if loaded.document is None:
        return FileResult(path, list(loaded.findings))
    checked = check_config(settings, settings.check.service, notes=False, loaded=loaded,
                           submit=False)
    result = FileResult(path, checked.findings)
    result.cost = checked.cost if result.valid else None
    return result
