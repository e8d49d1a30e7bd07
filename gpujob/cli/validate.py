"""``gpujob validate``: check configs, every problem of every file in one report."""

from __future__ import annotations

from typing import Any

import click

from gpujob.cli.common import CONTEXT, GpujobCommand, exit_codes_help
from gpujob.cli.files import expand
from gpujob.cli.options import check_options, check_settings, format_option, service_option_of
from gpujob.console import CONSOLE
from gpujob.errors import EXIT_INVALID, EXIT_OK
from gpujob.report import REPORTERS
from gpujob.settings import ValidateSettings


def execute(settings: ValidateSettings) -> int:
    """Check every file, then report them all at once: exit 0 when all are valid, else 1."""
    from gpujob.check import CheckOptions, FileResult, check_file
    from gpujob.findings import Location, error
    from gpujob.report import summary

    check = settings.check
    options = CheckOptions(catalog=check.catalog, region_check=check.region_check,
                           service=check.service, vertex=check.vertex_options())
    files, unreadable = expand(settings.files)
    results = [check_file(path, options) for path in files]
    results += [FileResult(path, [error("load.io", f"cannot read the directory: {why}", (),
                                        Location(path), "nothing under it was checked")])
                for path, why in unreadable]
    if settings.output_format == "json":
        from gpujob.catalog import freshness
        from gpujob.report import render_json

        assert check.catalog is not None, "validate loads the catalog it checks with"
        described = freshness.describe(check.catalog)
        # a catalog with live facts (Vertex AI's) says how old they are; AI Platform's report
        # keeps its shape
        report = render_json(results, catalog=described if described["live"] else None)
    else:
        report = REPORTERS[settings.output_format](results)
    (CONSOLE.json_text if settings.output_format == "json" else CONSOLE.out)(report)
    if settings.output_format == "text":
        CONSOLE.err(summary(results))
    return EXIT_OK if all(r.valid for r in results) else EXIT_INVALID


@click.command(cls=GpujobCommand, context_settings=CONTEXT, epilog=exit_codes_help(
    0, 1, 2, 130, c0="every config is valid (warnings do not count)",
    c1="a config has problems, or could not be read; also: standard output could not be "
       "written"))
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
@format_option(list(REPORTERS), "text for people, json for programs (stable shape, version 1), "
               "github for GitHub Actions annotations.", envvar="GPUJOB_FORMAT")
@service_option_of("The training service the configs are for: its catalog and rules check them.")
@check_options
def validate(files: tuple[str, ...], fmt: str, **params: Any) -> int:
    """Check configs against the Job schema and the GPU compatibility rules.

    Every problem of every file is reported, each as FILE:LINE:COL: PATH: MESSAGE with a hint:
    the schema, then the compatibility rules (machine type x GPU type x count x region x zone,
    scale tiers, legacy machines, TPUs, containers). Warnings never fail a file.
    A directory stands for the .yaml, .yml and .json files under it; - reads standard input.

    \b
    Examples:
      gpujob validate config.yaml
      gpujob validate configs/
      gpujob validate --format github configs/*.yaml   # in a GitHub Actions step
      gpujob validate --format json config.yaml | jq '.files[].errors'
    """
    return execute(ValidateSettings(files, fmt, check_settings(params)))
