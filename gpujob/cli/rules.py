"""``gpujob rules``: the compatibility rules of a service, as linters list theirs."""

from __future__ import annotations

import click

from gpujob.checks.listing import REPORTERS
from gpujob.cli.common import CONTEXT, GpujobCommand, exit_codes_help
from gpujob.cli.options import format_option, service_option


@click.command(cls=GpujobCommand, context_settings=CONTEXT, epilog=exit_codes_help(
    0, 1, 2, 130, c1="standard output could not be written (closed, or a full disk)"))
@format_option(list(REPORTERS), "A table for people, or JSON (version 1) for programs.")
@service_option
def rules(fmt: str, service: str) -> int:
    """List the compatibility rules: id, severity, services and what each checks.

    Findings name the rule that made them ([gpu.count]). Region rules report warnings with
    --no-region-check and in local runs; submit rules run only when a job is submitted.
    (Findings from the schema and the loader carry schema.* and load.* ids.)

    \b
    Examples:
      gpujob rules
      gpujob rules --format json | jq -r '.rules[] | select(.region) | .id'
    """
    from gpujob.commands.rules import execute

    return execute(service, fmt)
