"""Vertex AI's rules of where a job runs and on what: a Vertex training region, each GPU of the
job in that region (by the Compute Engine zone list that stands in for Vertex's own), and each
worker pool's machine type × accelerator × count over the Vertex catalog. A native config's
region findings are made by the same functions (``region_problem``, ``gpus_unlisted``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from gpujob.checks.registry import rule
from gpujob.config.job import TI
from gpujob.findings import JsonPath
from gpujob.services.vertex.rules.context import POOL_LABELS, VERTEX, VertexContext
from gpujob.suggest import describe_list, did_you_mean

if TYPE_CHECKING:
    from gpujob.services.vertex.catalog import VertexCatalog


# -- where: training regions, and GPUs by zone (a proxy) ---------------------------------------

def region_problem(region: str, cat: VertexCatalog) -> tuple[str, str] | None:
    """vertex.region's message and hint where Vertex AI does not run custom training in
    ``region`` (an AI Platform config's, or the --region of a native config); None where it
    does."""
    if cat.is_training_region(region):
        return None
    message = f"{region!r} is not a region {cat.service_name} runs in"
    zone_of = region.rsplit("-", 1)[0]
    guess = did_you_mean(region, list(cat.training_regions))
    if cat.is_training_region(zone_of) and len(region) - len(zone_of) == 2:
        hint = f"{region} looks like a zone; the job takes its region, {zone_of}"
    elif region in cat.endpoint_only_regions:
        message += " (it has an API endpoint, but it is not among the training regions)"
        hint = f"training regions: {describe_list(list(cat.training_regions), 40)}"
    elif guess:
        hint = f"did you mean {guess!r}?"
    else:
        hint = f"training regions: {describe_list(list(cat.training_regions), 40)}"
    return message, hint


@rule("vertex.region", "The region is one where Vertex AI runs custom training jobs.",
      services=VERTEX, region=True)
def region_unknown(ctx: VertexContext) -> None:
    region = ctx.region()
    problem = region_problem(region, ctx.catalog) if region is not None else None
    if problem is not None:
        ctx.emit((TI, "region"), *problem)


def _proxy_date(cat: VertexCatalog) -> str:
    return str(cat.sources.get("zones", {}).get("as_of", "an unknown date"))


@rule("vertex.region-gpu", "The region offers each GPU of the job, by Compute Engine's zone "
      "list (a proxy for Vertex AI's, dated): a warning, left out with --no-region-check and "
      "in local runs.", services=VERTEX, severity="warning", region=True)
def region_gpu(ctx: VertexContext) -> None:
    region, cat = ctx.region(), ctx.catalog
    if ctx.relax_region or region is None or not cat.is_training_region(region):
        return
    for pool in ctx.pools:
        unlisted = gpus_unlisted(region, pool.machine_type, pool.accelerator_type,
                                 pool.accelerator_count, POOL_LABELS[pool.index], cat)
        if unlisted is not None:
            ctx.once(f"{pool.machine_type}:{pool.accelerator_type}", pool.type_path, *unlisted)


def gpus_unlisted(region: str, machine: str, accelerator: str | None, count: int | None,
                  asked_by: str, cat: VertexCatalog) -> tuple[str, str] | None:
    """vertex.region-gpu's message and hint where Compute Engine's zone list does not list the
    GPUs of ``machine`` (with ``count`` × ``accelerator``) in ``region``, a training region;
    None where it does, where the proxy has no data on them (a4x, g4), and where there is no
    GPU or one the machine cannot take (vertex.machine says so). ``asked_by``: the pool, in
    words."""
    accel = cat.accelerators.get(accelerator or "")
    if accel is None or accel.kind != "gpu" or cat.problem(machine, accel.api_name, count):
        return None
    regions = cat.regions_for(machine, accel.api_name)
    if regions is None or region in regions:
        return None
    where = (f"{accel.name} GPUs" if not cat.machine_types[machine].built_in
             else f"{machine} machines ({accel.name} GPUs)")
    elsewhere = [r for r in regions if cat.is_training_region(r)]
    return (f"{where}, asked for by {asked_by}, are not listed in any zone of {region} in "
            f"Compute Engine's zone list (a proxy for Vertex AI's, read {_proxy_date(cat)})",
            f"training regions where they are listed: {describe_list(elsewhere, 8)}; "
            "Vertex AI's own list can differ (--no-region-check leaves this out)")


# -- machines: machine type x accelerator x count ------------------------------------------------

@rule("vertex.machine", "Each worker pool's machine type takes its accelerator type and count "
      "(machine types with GPUs built in take exactly theirs).", services=VERTEX)
def machine(ctx: VertexContext) -> None:
    cat = ctx.catalog
    for pool in ctx.pools:
        if pool.accelerator_type in cat.legacy_accelerators:
            continue  # K80, TPU Pods: the translation says what to use instead
        problem = cat.problem(pool.machine_type, pool.accelerator_type,
                              pool.accelerator_count)
        if problem is None:
            continue
        m = cat.machine_types.get(pool.machine_type)
        if m is None:
            guess = did_you_mean(pool.machine_type, list(cat.machine_types))
            ctx.emit(pool.machine_path, problem, f"did you mean {guess!r}?" if guess else
                     "`gpujob gpus --service vertex` lists the machine types with GPUs")
        elif pool.accelerator_type is None:
            ctx.emit(pool.machine_path, *_unstated(m.name, m.accelerators, pool.machine_path))
        elif cat.counts(m.name, pool.accelerator_type) or m.tpu is not None:
            ctx.emit(pool.count_path, problem,
                     _count_hint(cat, m.name, pool.accelerator_type, pool.accelerator_count))
        else:
            ctx.emit(pool.type_path, problem, _type_hint(cat, m.name, pool.accelerator_type))


def _family(machine: str) -> str:
    return machine.split("-", 1)[0]


def _count_hint(cat: VertexCatalog, machine: str, accelerator: str, count: Any) -> str:
    """The machine types that take ``count`` × ``accelerator`` (its own family's first): the
    fix when the machine takes that GPU in other counts (g2-standard-8 with 2 × L4)."""
    takers = [name for name in cat.machines_for(accelerator) if count in cat.counts(name,
                                                                                    accelerator)]
    own = [name for name in takers if _family(name) == _family(machine)]
    if not takers:
        return _gpus_hint(cat, accelerator)
    allowed = " or ".join(map(str, cat.counts(machine, accelerator)))
    return (f"for {count} × {accelerator} use {describe_list(own or takers, 4)}, or keep "
            f"{machine} with {allowed} × {accelerator}; {_gpus_hint(cat, accelerator)}")


def _type_hint(cat: VertexCatalog, machine: str, accelerator: str) -> str:
    """A machine with its GPUs built in (a2-highgpu-1g with T4): it comes with its own."""
    m = cat.machine_types[machine]
    if not m.built_in or not m.accelerators:
        return _gpus_hint(cat, accelerator)
    kind, counts = next(iter(m.accelerators.items()))
    return (f"{machine} comes with {counts[-1]} × {kind}: set acceleratorType {kind} and "
            f"acceleratorCount {counts[-1]}, or, for {accelerator}, a machine type that takes "
            f"it; {_gpus_hint(cat, accelerator)}")


def _unstated(machine: str, accelerators: Mapping[str, tuple[int, ...]],
              path: JsonPath) -> tuple[str, str]:
    """The message and hint for a machine with GPUs built in whose config states none."""
    kind, counts = next(iter(accelerators.items()))
    built = f"{counts[-1]} × {kind}"
    last = str(path[-1])
    config = f"{last.removesuffix('Type')}Config" if last.endswith("Type") else "its config"
    return (f"{machine} has {built} built in, and Vertex AI wants them stated",
            f"add {config}.acceleratorConfig {{count: {counts[-1]}, type: {kind}}}")


def _gpus_hint(cat: VertexCatalog, accelerator: str) -> str:
    accel = cat.accelerators.get(accelerator)
    name = accel.name.lower() if accel else accelerator
    return (f"`gpujob gpus --service vertex --gpu {name}` lists the machine types that take it "
            "and their counts")
