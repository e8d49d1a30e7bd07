"""``gpujob validate``: check configs, every problem of every file in one report."""

from __future__ import annotations

from typing import Any

import click

from gpujob.checks.report import REPORTERS
from gpujob.cli.common import CONTEXT, GpujobCommand, exit_codes_help
from gpujob.cli.files import expand
from gpujob.cli.options import (
    budget_option,
    check_options,
    check_options_of,
    format_option,
    service_flags_of,
    service_option_of,
)
from gpujob.settings import ValidateSettings


@click.command(cls=GpujobCommand, context_settings=CONTEXT, epilog=exit_codes_help(
    0, 1, 2, 130, c0="every config is valid (warnings do not count)",
    c1="a config has problems, or could not be read; also: standard output could not be "
       "written"))
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
@format_option(list(REPORTERS), "text for people, json for programs (stable shape, version 1), "
               "github for GitHub Actions annotations.", envvar="GPUJOB_FORMAT")
@service_option_of("The training service the configs are for: its catalog and rules check them.")
@check_options
@service_flags_of("validate")
@budget_option
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
    from gpujob.commands.validate import execute

    check = check_options_of(params)
    found, unreadable = expand(files)
    return execute(ValidateSettings(found, fmt, check, unreadable))
