"""``gpujob gpus``: which GPUs, on which machine types, how many, and where."""

from __future__ import annotations

from typing import Any

import click

from gpujob.cli import candidates
from gpujob.cli.common import CONTEXT, GpujobCommand, exit_codes_help
from gpujob.cli.files import ExistingFile
from gpujob.cli.options import (
    format_option,
    gcp_options,
    gcp_settings,
    project_option,
    service_option_of,
)
from gpujob.cli.params import Count
from gpujob.settings import CheckOptions, GpusSettings


@click.command(cls=GpujobCommand, context_settings=CONTEXT, epilog=exit_codes_help(
    0, 1, 2, 130, c1="nothing matches the filters; also: standard output could not be written"))
@click.option("--gpu", shell_complete=candidates.gpu,
              help="A GPU type: T4, nvidia-tesla-t4 or NVIDIA_TESLA_T4 (Vertex: H100, "
                   "NVIDIA_H100_80GB, h100-mega…).")
@click.option("--machine-type", shell_complete=candidates.machine_type,
              help="A machine type, e.g. n1-highcpu-16.")
@click.option("--count", type=Count(min=1), help="GPUs per machine.")
@click.option("--region", shell_complete=candidates.region,
              help="A training region (us-central1), a comma list of them, or all (vertex: "
                   "every region in the price table).")
@click.option("--zone", shell_complete=candidates.zone, help="A zone, e.g. us-central1-a.")
@click.option("--sort", type=click.Choice(("price", "region", "name")),
              help="The order of the price table (vertex): price (cheapest first, the "
                   "default), region, or name (GPU and machine type).")
@click.option("--availability", is_flag=True,
              help="Add Compute Engine's capacity advice to the price table: how likely one "
                   "machine is to be obtained now on demand and on Spot, and Spot's estimated "
                   "uptime (asked in --project; a proxy for Vertex AI; one warning when it "
                   "cannot be had).")
@format_option(("text", "json"), "A table for people, or JSON (version 1) for programs.")
@service_option_of("The training service whose catalog answers.")
@click.option("--catalog", type=ExistingFile("a catalog file"), envvar="GPUJOB_CATALOG",
              show_envvar=True, help="A catalog file to use instead of the built-in one.")
@click.option("--export-catalog", is_flag=True,
              help="Print the catalog in use (JSON, with its sources and dates) and exit: a "
                   "starting point for a newer one to pass with --catalog.")
@project_option
@gcp_options
def gpus(gpu: str | None, machine_type: str | None, count: int | None, region: str | None,
         zone: str | None, sort: str | None, availability: bool, fmt: str, service: str,
         catalog: str | None, export_catalog: bool, **params: Any) -> int:
    """Which GPUs can I use, on which machine types, how many, and where?

    Answers from the --service's catalog in gpujob, with its sources and dates: AI Platform
    Training's GPU table, regions and zones, or Vertex AI's machine types, GPUs and counts (with
    no filter, a table of its GPU types), and where Compute Engine lists them (a proxy for
    Vertex AI's own availability). Filters combine; when nothing matches, gpujob says which
    filter ruled it out and what matches without it (exit 1).

    \b
    Examples:
      gpujob gpus
      gpujob gpus --gpu t4 --region europe-west4
      gpujob gpus --gpu L4 --count 4      # every region's $/hour, cheapest first
      gpujob gpus --gpu L4 --count 4 --availability --project my-proj
      gpujob gpus --gpu h100 --count 8 --region us-east4,europe-west4 --sort region
      gpujob gpus --machine-type n1-standard-32 --gpu v100
      gpujob gpus --gpu a100 --format json | jq '.offerings[].zones'
      gpujob gpus --service vertex --gpu h100
      gpujob gpus --export-catalog > my-catalog.json   # edit, then --catalog my-catalog.json
    """
    from gpujob import services
    from gpujob.commands.gpus import execute

    return execute(GpusSettings(gpu, machine_type, count, region, zone, fmt,
                                CheckOptions(services.get(service), catalog_file=catalog),
                                export_catalog, sort, availability,
                                gcp_settings(params) if availability else None))
