"""``gpujob validate``: check configs, every problem of every file in one report."""

from __future__ import annotations

from typing import Any

import click

from gpujob.checks.report import REPORTERS
from gpujob.cli import gcloud_jobs
from gpujob.cli.common import CONTEXT, GpujobCommand, exit_codes_help
from gpujob.cli.files import expand
from gpujob.cli.jobflags import (
    display_name_option,
    field_options,
    only_given,
    override_options,
)
from gpujob.cli.options import (
    budget_option,
    check_options,
    check_options_of,
    format_option,
    given_flags,
    service_flags_of,
    service_option_of,
    stack,
)
from gpujob.settings import ValidateSettings

# gcloud ai custom-jobs create's and hp-tuning-jobs create's command line: the job the flags
# build (with the file, or alone) is checked. Submit's flags among them read no environment
# variable here: a file's verdict does not change with the shell it is checked in.
job_options = stack(
    click.option("--config", "config_file", metavar="CONFIG",
                 help="A config to check, as gcloud names it (the same as FILE)."),
    display_name_option,
    field_options(only=gcloud_jobs.FIELDS, envvar=False),
    override_options(only=gcloud_jobs.OVERRIDES, envvar=False),
    gcloud_jobs.options,
)


@click.command(cls=GpujobCommand, context_settings=CONTEXT, epilog=exit_codes_help(
    0, 1, 2, 130, c0="every config is valid (warnings do not count)",
    c1="a config has problems, or could not be read; also: standard output could not be "
       "written"))
@click.argument("files", nargs=-1, metavar="[FILE...]")
@format_option(list(REPORTERS), "text for people, json for programs (stable shape, version 1), "
               "github for GitHub Actions annotations.", envvar="GPUJOB_FORMAT")
@service_option_of("The training service the configs are for: its catalog and rules check them.")
@check_options
@service_flags_of("validate")
@budget_option
@job_options
@click.pass_context
def validate(ctx: click.Context, files: tuple[str, ...], fmt: str, **params: Any) -> int:
    """Check configs against the Job schema and the GPU compatibility rules.

    Every problem of every file is reported, each as FILE:LINE:COL: PATH: MESSAGE with a hint:
    the schema, then the compatibility rules (machine type x GPU type x count x region x zone,
    scale tiers, legacy machines, TPUs, containers). Warnings never fail a file.
    A directory stands for the .yaml, .yml and .json files under it; - reads standard input.

    gcloud ai custom-jobs create's and hp-tuning-jobs create's command line works as it does
    for submit: the flags (--worker-pool-spec, --args, --display-name, --labels, …) build the
    job submit would send, from each FILE (or --config), or from the flags alone, and every
    check runs on it; a problem with a flag's value is reported at the flag.

    \b
    Examples:
      gpujob validate config.yaml
      gpujob validate configs/
      gpujob validate --format github configs/*.yaml   # in a GitHub Actions step
      gpujob validate --format json config.yaml | jq '.files[].errors'
      gpujob validate --region us-central1 --display-name run1 \\
          --worker-pool-spec=machine-type=n1-standard-8,container-image-uri=IMAGE
    """
    from gpujob.commands.validate import execute

    files = (*files, params["config_file"]) if params["config_file"] else files
    if not files and not gcloud_jobs.given(params):
        raise click.MissingParameter(ctx=ctx, param_hint="'FILE...'", param_type="argument")
    check = check_options_of(params)
    from gpujob.services.capabilities import check_flags  # (the service's module has it)

    check_flags(check.service, given_flags(ctx))  # as submit refuses them
    found, unreadable = expand(files)
    jobs = None
    if gcloud_jobs.given(params):  # (the submit path's modules only then)
        if not found and not gcloud_jobs.flag_only(params):
            raise click.UsageError("Missing argument 'FILE...': the flags describe no job of "
                                   "their own (give --worker-pool-spec, as gcloud ai "
                                   "custom-jobs create does, or a config file)", ctx)
        jobs = gcloud_jobs.job_settings(params, check, list(found), only_given(ctx, params))
    return execute(ValidateSettings(found, fmt, check, unreadable), jobs)
