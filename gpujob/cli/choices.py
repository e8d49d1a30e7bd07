"""What ``submit`` and ``preflight`` take for the choices of a service that fails over (Vertex
AI): ``--region A,B`` and ``--strategy spot,standard`` (ordered lists, tried in order by
``gpujob.submit.failover``), and ``--no-preflight``."""

from __future__ import annotations

import dataclasses
from typing import Any

import click

from gpujob.errors import UsageError
from gpujob.submit.settings import SubmitSettings

ORDERS = ("as-given", "obtainable", "cheapest")


def order_option_of(hidden: bool = False) -> Any:
    """--order (``hidden``: accepted, not shown, for ``gpujob local``)."""
    return click.option(
        "--order", type=click.Choice(ORDERS), default="as-given", show_default=True,
        envvar="GPUJOB_ORDER", show_envvar=True, hidden=hidden,
        help="Vertex AI: the order to try the --region (a list, or auto: every region "
             "that offers the job's machines) and --strategy choices in: as given, "
             "most obtainable first (Compute Engine's capacity advice, a proxy for Vertex AI; "
             "refused: as given, one warning) or cheapest first (gpujob's price table); the "
             "order and why are said before the first create.")


def preflight_option_of(hidden: bool = False) -> Any:
    """--no-preflight and --order (``hidden``: accepted, not shown, for ``gpujob local``)."""
    order = order_option_of(hidden)
    no_preflight = click.option(
        "--no-preflight", "no_preflight", is_flag=True, envvar="GPUJOB_NO_PREFLIGHT",
        show_envvar=True, hidden=hidden,
        help="Vertex AI: skip the quota preflight (the project's GPU and vCPU limits in the "
             "region against what the job and the running jobs need, read before anything is "
             "built or uploaded).")
    return lambda func: no_preflight(order(func))


preflight_option = preflight_option_of()


def take_choices(params: dict[str, Any]) -> tuple[dict[str, Any], tuple[str, ...],
                                                   tuple[str, ...]]:
    """``params`` with --region and --strategy cut to their first entries, and the lists."""
    from gpujob import services
    from gpujob.gcp.settings import region_problem
    from gpujob.services.capabilities import Capability
    from gpujob.submit.failover import split

    params = dict(params)
    regions = split(params.get("region"), "--region")
    strategies = split(params.get("strategy"), "--strategy")
    if "auto" in regions:  # every region that offers the job's machines (failover.AUTO)
        if len(regions) > 1:
            raise UsageError("--region auto stands for every region that offers the job's "
                             "machines: give it alone, or a list of regions")
        services.get(params["service"]).require(Capability.PLACEMENT, "--region auto")
        params["region"] = None  # the config's own region, for the checks before it
        if strategies:
            params["strategy"] = strategies[0]
        return params, regions, strategies if len(strategies) > 1 else ()
    for region in regions if len(regions) > 1 else ():  # one region: the checks say
        problem = region_problem(region)
        if problem:
            raise UsageError(f"--region: '{region}' is not a region: {problem}",
                             "give --region R1,R2: regions in the order to try them")
    if len(regions) > 1 or len(strategies) > 1:
        services.get(params["service"]).require(
            Capability.PLACEMENT, "--region or --strategy with a list of choices")
    if regions:
        params["region"] = regions[0]
    if strategies:
        params["strategy"] = strategies[0]
    return params, regions if len(regions) > 1 else (), \
        strategies if len(strategies) > 1 else ()


def with_choices(settings: SubmitSettings, params: dict[str, Any], regions: tuple[str, ...],
                 strategies: tuple[str, ...]) -> SubmitSettings:
    """``settings`` with the choices; a dry run or a local run, which try none, says which one
    it takes."""
    if (regions or strategies) and (settings.dry_run or settings.local):
        from gpujob.console import CONSOLE

        first = " and ".join(f"{flag} {values[0]}" for flag, values in
                             (("--region", regions), ("--strategy", strategies)) if values)
        CONSOLE.err(f"note: a {'dry' if settings.dry_run else 'local'} run takes the first "
                    f"choice ({first}); submit tries the others in turn")
    return dataclasses.replace(settings, regions=regions, strategies=strategies,
                               preflight=not params.get("no_preflight", False),
                               order=params.get("order") or "as-given")
