"""Rules about where the job runs: a region the service trains in, offering the job's GPU
types, in one zone. Region rules: warnings with --no-region-check and for local runs."""

from __future__ import annotations

from gpujob.checks.registry import also, rule
from gpujob.config.job import TI
from gpujob.services.ai_platform.rules.accelerators import warn_deprecated
from gpujob.services.ai_platform.rules.context import AI_PLATFORM, Context
from gpujob.suggest import and_list, describe_list, did_you_mean


@also("gpu.deprecated")
def deprecated_in_use(ctx: Context) -> None:
    """GPUs the scale tier or a legacy machine type brings (one attached to a replica is warned
    about with the replica)."""
    for gpu_name, path, _ in ctx.gpus_in_use():
        warn_deprecated(ctx, gpu_name, path)


def _zone_letters(zones: list[str]) -> str:
    """``us-central1-a, us-central1-c`` -> ``zones a and c``."""
    letters = [z.rsplit("-", 1)[-1] for z in zones]
    return f"zone{'s' if len(letters) > 1 else ''} {and_list(letters)}"


@rule("region.unknown", "The region is one the service trains in.", region=True,
      services=AI_PLATFORM)
def region_unknown(ctx: Context) -> None:
    region, cat = ctx.region(), ctx.catalog
    if region is None or region in cat.regions:
        return
    zone_of = region.rsplit("-", 1)[0]
    guess = did_you_mean(region, list(cat.regions))
    if zone_of in cat.regions and len(region) - len(zone_of) == 2:
        hint = f"{region} looks like a zone; the job takes its region, {zone_of}"
    elif guess:
        hint = f"did you mean {guess!r}?"
    else:
        hint = f"regions: {describe_list(list(cat.regions), 30)}"
    ctx.emit((TI, "region"), f"{region!r} is not a region {cat.service_name} runs in", hint)


def _offered(ctx: Context) -> set[str] | None:
    """The GPU types of the job's region, when it is known and the job uses GPUs."""
    region = ctx.region()
    if region is None or region not in ctx.catalog.regions or not ctx.gpus_in_use():
        return None
    return ctx.catalog.region_gpus(region)


@rule("region.no-gpus", "A job with GPUs runs in a region that offers GPUs.", region=True,
      services=AI_PLATFORM)
def no_gpus(ctx: Context) -> None:
    if _offered(ctx) != set():
        return
    cat, gpus, region = ctx.catalog, ctx.gpus_in_use(), ctx.job.region
    types = sorted({g for g, _, _ in gpus})
    elsewhere = [r for r in cat.gpu_regions() if set(types) <= cat.region_gpus(r)]
    ctx.emit((TI, "region"), f"{region} offers no GPUs for training, and {gpus[0][2]} asks for "
             f"{cat.short(gpus[0][0])}", f"regions with {', '.join(cat.short(t) for t in types)}"
             f": {describe_list(elsewhere, 6)}")


@rule("region.gpu", "Every GPU type of the job is offered in its region.", region=True,
      services=AI_PLATFORM)
def region_gpu(ctx: Context) -> None:
    offered = _offered(ctx)
    if not offered:
        return
    cat, region = ctx.catalog, ctx.job.region
    for gpu_name, gpu_path, who in ctx.gpus_in_use():
        if gpu_name not in offered:
            ctx.emit(gpu_path, f"{cat.short(gpu_name)} GPUs ({who}) are not offered in {region}",
                     f"regions with {cat.short(gpu_name)}: "
                     f"{describe_list(cat.regions_with(gpu_name), 8)}; {region} offers "
                     f"{', '.join(sorted(cat.short(g) for g in offered))}")


@rule("zone.gpu-mix", "A job's GPU types are all offered by one zone of its region.",
      region=True, services=AI_PLATFORM)
def gpu_mix(ctx: Context) -> None:
    offered = _offered(ctx)
    types = sorted({g for g, _, _ in ctx.gpus_in_use()})
    if not offered or len(types) < 2 or not set(types) <= offered:
        return
    cat, region = ctx.catalog, str(ctx.job.region)
    if any(set(types) <= z for z in cat.regions[region].values()):
        return
    each = ", ".join(f"{cat.short(t)} in {_zone_letters(cat.zones_with(region, t))}"
                     for t in types)
    elsewhere = []
    for other in cat.regions:
        zones = [z for z, offers in cat.regions[other].items() if set(types) <= offers]
        if zones:
            elsewhere.append(f"{other} ({_zone_letters(zones)})")
    ctx.emit((TI, "region"), f"no zone of {region} offers "
             f"{and_list([cat.short(t) for t in types])} together, and a job's GPUs must all be "
             "in one zone", f"in {region}, {each}; use GPU types one zone shares"
             + (f", or a region with a zone that has them all: {describe_list(elsewhere, 4)}"
                if elsewhere else ""))

