"""``gpujob validate``: check configs, every problem of every file in one report."""

from __future__ import annotations

import os
from typing import Any

import click

from gpujob.cli.common import CONTEXT, EXIT_CODES_HELP
from gpujob.cli.options import check_options, check_settings, format_option, service_option
from gpujob.console import CONSOLE
from gpujob.errors import EXIT_INVALID, EXIT_OK, UsageError
from gpujob.report import REPORTERS
from gpujob.settings import ValidateSettings


def expand(paths: tuple[str, ...]) -> list[str]:
    """Files as given; a directory stands for the .yaml/.yml/.json files under it."""
    out: list[str] = []
    missing: list[str] = []
    for path in paths:
        if path != "-" and os.path.isdir(path):
            found = sorted(
                os.path.join(root, name) for root, _, names in os.walk(path) for name in names
                if name.endswith((".yaml", ".yml", ".json")))
            if not found:
                missing.append(f"{path} (a directory with no .yaml, .yml or .json files)")
            out += found
        elif path == "-" or os.path.exists(path):
            out.append(path)
        else:
            missing.append(path)
    if missing:
        raise UsageError(f"no such file: {', '.join(missing)}",
                         "check the paths (a quoted glob is not expanded by the shell)")
    return out


def execute(settings: ValidateSettings) -> int:
    """Check every file, then report them all at once: exit 0 when all are valid, else 1."""
    from gpujob.check import CheckOptions, check_file
    from gpujob.report import summary

    check = settings.check
    options = CheckOptions(catalog=check.catalog, region_check=check.region_check,
                           service=check.service)
    results = [check_file(path, options) for path in expand(settings.files)]
    CONSOLE.out(REPORTERS[settings.output_format](results))
    if settings.output_format == "text":
        CONSOLE.err(summary(results))
    return EXIT_OK if all(r.valid for r in results) else EXIT_INVALID


@click.command(context_settings=CONTEXT, epilog=EXIT_CODES_HELP)
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
@format_option(list(REPORTERS), "text for people, json for programs (stable shape, version 1), "
               "github for GitHub Actions annotations.", envvar="GPUJOB_FORMAT")
@service_option
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
