"""``gpujob reserve``: calendar-mode windows for GPUs ahead, and the command that requests one."""

from __future__ import annotations

from typing import Any

import click

from gpujob.cli import candidates
from gpujob.cli.common import CONTEXT, GpujobCommand, exit_codes_help
from gpujob.cli.options import gcp_options, gcp_settings, project_option
from gpujob.cli.params import Count


@click.command(cls=GpujobCommand, context_settings=CONTEXT, epilog=exit_codes_help(
    0, 1, 2, 3, 130, c1="no machine type carries that many of the GPU",
    c3="the advice was refused (permission, the Compute Engine API not enabled) or no region "
       "answered"))
@click.option("--gpu", required=True, shell_complete=candidates.gpu,
              help="A GPU type with machine types that have it built in: b200, h200, h100, …")
@click.option("--count", type=Count(min=1), required=True,
              help="GPUs in all (16 B200: 2 × a4-highgpu-8g).")
@click.option("--days", type=Count(min=1), required=True, help="How long: 1 to 90 days.")
@click.option("--region", shell_complete=candidates.region, metavar="REGION[,REGION…]",
              help="Where to ask (default: every region the catalog lists the machine type "
                   "in).")
@click.option("--machine-type", shell_complete=candidates.machine_type,
              help="The machine type (default: the one with the most of the GPU that divides "
                   "--count).")
@click.option("--name", help="The future reservation's name in the command (default: "
                             "GPU-xCOUNT-DAYSd).")
@click.option("--create", is_flag=True,
              help="Submit the request for the first window after you type its name back "
                   "(needs compute.futureReservations.create; it cannot be cancelled).")
@project_option
@gcp_options
def reserve(gpu: str, count: int, days: int, region: str | None, machine_type: str | None,
            name: str | None, create: bool, **params: Any) -> int:
    """Which calendar-mode windows does Compute Engine offer for these GPUs, and how to ask?

    Asks Compute Engine's calendar-mode advice (advice.calendarMode, in --project) for whole
    machines with the GPUs built in, for --days, starting in the next 60 days; prints each
    window it recommends with what it would cost at gpujob's on-demand list price (the
    advice carries no price), and the exact `gcloud compute future-reservations create`
    command for the first. Nothing is created unless --create, after you confirm: a
    calendar-mode request cannot be cancelled once submitted. Calendar mode is for eligible
    projects, some machine series and zones.

    \b
    Examples:
      gpujob reserve --gpu b200 --count 16 --days 3 --project my-proj
      gpujob reserve --gpu h100 --count 8 --days 7 --region us-central1,europe-west4
    """
    from gpujob import services
    from gpujob.commands.reserve import execute
    from gpujob.settings import CheckOptions, ReserveSettings

    return execute(ReserveSettings(gpu, count, days, region, machine_type, name,
                                   gcp_settings(params), CheckOptions(services.get("vertex")),
                                   create=create))
