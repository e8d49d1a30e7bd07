"""``gpujob preflight``: the checks and the quota preflight of ``submit``, for CI: nothing is
built, uploaded or created (``gpujob.commands.preflight``)."""

from __future__ import annotations

from typing import Any

import click

from gpujob.cli import gcloud
from gpujob.cli.choices import order_option_of, take_choices, with_choices
from gpujob.cli.common import CONTEXT, exit_codes_help
from gpujob.cli.options import format_option, gcp_options
from gpujob.cli.params import Project
from gpujob.cli.submit import UserArgsCommand


def _command() -> click.Command:
    from gpujob.cli.jobflags import job_options

    @click.command("preflight", cls=UserArgsCommand, context_settings=CONTEXT,
                   epilog=exit_codes_help(0, 1, 2, 3, 130, c1="invalid config, or no region "
                                          "and strategy whose quota holds the job"))
    @job_options()
    @click.option("--project", type=Project(), envvar=["GPUJOB_PROJECT", "GOOGLE_CLOUD_PROJECT",
                                                        "CLOUDSDK_CORE_PROJECT"],
                  show_envvar=True, help="Google Cloud project the job would go to.")
    @click.option("--staging-bucket", metavar="gs://BUCKET", envvar="GPUJOB_STAGING_BUCKET",
                  show_envvar=True, help="Where submit would stage local packages (checked, "
                  "nothing is built or uploaded).")
    @format_option(["text", "json"], "json prints the choice taken and those passed over, "
                   "with the quota numbers, on stdout.")
    @order_option_of()
    @click.option("--availability", is_flag=True,
                  help="Also ask Compute Engine's capacity advice for each choice: how likely "
                       "its machines are to be obtained now, and Spot's estimated uptime (a "
                       "proxy for Vertex AI; with --service gke, for the cluster's own nodes "
                       "in --project and --region, else the gke_PROJECT_LOCATION_CLUSTER "
                       "context's; one warning when it cannot be had).")
    @gcp_options
    @click.pass_context
    def preflight(ctx: click.Context, **params: Any) -> int:
        """Check CONFIG as submit would, and the project's Vertex AI quota for it (gke: the
        cluster): send nothing.

        The checks, then, for each --region and --strategy choice in order, the GPUs and vCPUs
        the job needs against the project's quota limit there (Service Usage) less what its
        running and pending jobs hold. Prints the choice submit would take; exit 1 when none
        would do, with the metric, the numbers and where to ask for more. Nothing is built,
        uploaded or created: for CI. With --service gke: the cluster instead (JobSet, the
        --queue's LocalQueue and ClusterQueue flavor, nodes with the GPU and its driver, Cloud
        Storage FUSE), each missing piece one line with its fix; exit 1 when one is missing.

        \b
        Examples:
          gpujob preflight config.yaml --service vertex --project my-proj
          gpujob preflight config.yaml --service vertex --region us-central1,us-east4 \\
              --strategy spot,standard --format json
          gpujob preflight config.yaml --service gke --queue team-a
        """
        from gpujob.cli.jobflags import submit_settings
        from gpujob.commands.preflight import execute

        availability = params.pop("availability")
        params = gcloud.take_config(ctx, params, word=None)
        params, regions, strategies = take_choices(params)
        params.update(wait=False, stream_logs=False, poll_interval=10.0, dry_run=False,
                      local=False, max_local_replicas=None, grace_period=None)
        settings = with_choices(submit_settings(ctx, params, local=False), params, regions,
                                strategies)
        return execute(settings, availability)

    return preflight


preflight = _command()
