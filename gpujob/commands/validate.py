"""``gpujob validate``: check configs, every problem of every file in one report."""

from __future__ import annotations

from gpujob.checks.report import REPORTERS
from gpujob.console import CONSOLE
from gpujob.errors import EXIT_INVALID, EXIT_OK
from gpujob.settings import ValidateSettings


def execute(settings: ValidateSettings) -> int:
    """Check every file, then report them all at once: exit 0 when all are valid, else 1."""
    from gpujob.checks.engine import FileResult, check_file
    from gpujob.checks.report import summary
    from gpujob.findings import Location, error

    options = settings.check.loaded()  # the catalog first: a bad --catalog is one error
    results = [check_file(path, options) for path in settings.files]
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
