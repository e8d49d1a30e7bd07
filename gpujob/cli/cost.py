"""``gpujob cost``: what Vertex AI jobs were billed, from the Cloud Billing export."""

from __future__ import annotations

from typing import Any

import click

from gpujob.cli.common import CONTEXT, GpujobCommand, exit_codes_help
from gpujob.cli.options import (
    format_option,
    gcp_options,
    gcp_settings,
    project_option,
    region_option,
)


@click.command(cls=GpujobCommand, context_settings=CONTEXT, epilog=exit_codes_help(
    0, 1, 2, 3, 130, c0="the jobs were read, billed lines or not (a job without lines yet is "
    "said on stderr)", c1="standard output could not be written (closed, or a full disk)"))
@click.argument("jobs", nargs=-1, required=True, metavar="JOB...")
@click.option("--billing-export", "table", required=True, metavar="PROJECT.DATASET.TABLE",
              envvar="GPUJOB_BILLING_EXPORT", show_envvar=True,
              help="The BigQuery table Cloud Billing exports your billing account's costs to "
                   "(standard or detailed usage cost).")
@format_option(("text", "json"), 'json prints {"version": 1, "table", "jobs": [{"id", '
               '"submission", "billed", "estimate"}]} on stdout.')
@project_option
@region_option
@gcp_options
def cost(jobs: tuple[str, ...], table: str, fmt: str, **params: Any) -> int:
    """What Vertex AI jobs were billed, from your Cloud Billing export to BigQuery.

    Each JOB (as for describe) is found by the label gpujob gave it when it was submitted
    (gpujob-submission), which Vertex AI passes on to the billing export: its lines are summed,
    credits apart, beside gpujob's estimate. The query runs in --project (it needs
    bigquery.jobs.create there, and read access to the table). The export lags hours
    behind, sometimes more than a day: a job without lines yet is said so.

    \b
    Examples:
      gpujob cost 4126800986851246080 --region us-central1 \\
        --billing-export my-proj.billing.gcp_billing_export_v1_012345_6789AB_CDEF01
      gpujob cost nightly --region us-central1 --billing-export my-proj.billing.export --format json
    """
    from gpujob.commands.cost import execute
    from gpujob.services import DEFAULT_SERVICE
    from gpujob.settings import RemoteSettings

    return execute(RemoteSettings(DEFAULT_SERVICE, gcp_settings(params), jobs=jobs, table=table,
                                  output_format=fmt))
