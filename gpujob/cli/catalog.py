"""``gpujob catalog``: the catalog's live parts, refreshed from Google's APIs."""

from __future__ import annotations

from typing import Any

import click

from gpujob.cli.common import CONTEXT, GpujobCommand, exit_codes_help
from gpujob.cli.options import gcp_options, gcp_settings, project_option, services_choice
from gpujob.errors import UsageError

PARTS = ("zones", "images", "prices")


@click.group(context_settings=CONTEXT)
def catalog() -> None:
    """The catalog gpujob checks jobs against: refresh its live parts from Google's APIs."""


def _parts(value: str) -> tuple[str, ...]:
    found = tuple(p.strip() for p in value.split(",") if p.strip())
    unknown = [p for p in found if p not in PARTS]
    if unknown or not found:
        raise UsageError(f"--parts {value!r}: {', '.join(unknown) or 'no part'} is not a part "
                         "of the catalog gpujob refreshes",
                         f"name some of {', '.join(PARTS)}, separated by commas")
    return found


@catalog.command(cls=GpujobCommand, context_settings=CONTEXT, epilog=exit_codes_help(
    0, 1, 2, 3, 130, c0="every part was read and written",
    c1="the cache directory cannot be written (GPUJOB_CACHE_DIR)",
    c3="a part could not be read (it keeps what it had; the others are written)"))
@click.option("--parts", default=",".join(PARTS), show_default=True, metavar="LIST",
              help="The parts to read, separated by commas: zones (Compute Engine), images "
                   "(Artifact Registry), prices (Cloud Billing, with GPUJOB_BILLING_API_KEY).")
@click.option("--service", type=services_choice(), default="vertex", show_default=True,
              help="The service whose catalog to refresh (Vertex AI's alone has live parts).")
@project_option
@gcp_options
def refresh(parts: str, service: str, **params: Any) -> int:
    """Read the catalog's live parts from Google's APIs and keep them for every command.

    zones: where Compute Engine offers each GPU and GPU machine type, and the most GPUs per VM
    (in --project). images: the prebuilt training images in us-docker.pkg.dev/vertex-ai/training
    (a new one is usable until Google publishes its end of availability; known dates are kept).
    prices: per-GPU list prices per region from Cloud Billing (an API key in
    GPUJOB_BILLING_API_KEY is all they need), and the A3 and N1 machine types' (their
    vCPUs and memory from Compute Engine in --project). What is read is written, dated, to
    ~/.cache/gpujob/vertex-live.json (XDG_CACHE_HOME, GPUJOB_CACHE_DIR); a part that cannot
    be read keeps what it had and says why.

    \b
    Examples:
      gpujob catalog refresh --project my-proj
      gpujob catalog refresh --parts zones,images
    """
    from gpujob.commands.catalog import execute

    return execute(gcp_settings(params), _parts(parts), service)
