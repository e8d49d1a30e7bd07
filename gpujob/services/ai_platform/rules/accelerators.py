"""Rules about the GPUs a replica attaches: which machine types take which GPU types, how many,
and GPUs built into machine types. They run replica by replica (pass ``gpu``)."""

from __future__ import annotations

from gpujob.checks.registry import rule
from gpujob.config.job import Replica
from gpujob.findings import JsonPath
from gpujob.services.ai_platform.records import Catalog, GpuType, MachineType
from gpujob.services.ai_platform.rules.context import AI_PLATFORM, Context
from gpujob.suggest import describe_list, or_list


def attached(ctx: Context, r: Replica) -> tuple[MachineType, GpuType] | None:
    """The machine type and the GPU type a replica attaches, when both are known and neither is
    a TPU, in a cluster the config describes (other cases are the schema's, the tier rules' or
    the TPU rules')."""
    if not ctx.custom:
        return None
    machine = ctx.catalog.machine_types.get(r.machine or "")
    gpu = ctx.catalog.gpu_types.get(r.accel_type or "")
    if machine is None or gpu is None or gpu.kind == "tpu" or machine.category == "tpu":
        return None
    return machine, gpu


def _article(word: str) -> str:
    """``an N1``, ``a G2``: the article for a name read letter by letter."""
    return "an" if word[:1] in "AEFHILMNORSX" else "a"


def _elsewhere(cat: Catalog, gpu: GpuType) -> str:
    """Where this GPU type can go instead: ``an N1 machine type``."""
    families = sorted({m.family.upper() for m in cat.compute_engine_types()
                       if gpu.api_name in m.gpus and not m.built_in and m.family})
    if families:
        return f"{_article(families[0])} {'/'.join(families)} machine type"
    return describe_list([m.name for m in cat.hosts(gpu.api_name)], 3) or "another machine type"


@rule("gpu.a2-built-in", "A machine type with GPUs built in (a2) states them in "
      "acceleratorConfig.", severity="warning", pass_="gpu", services=AI_PLATFORM)
def built_in_unstated(ctx: Context, r: Replica) -> None:
    machine = ctx.catalog.machine_types.get(r.machine or "")
    if not ctx.custom or r.accel_type is not None or machine is None or r.count <= 0:
        return
    if machine.has_gpus_built_in and machine.built_in:
        gpu, n = machine.built_in
        ctx.emit(r.type_path, f"{machine.name} has {n} × {ctx.catalog.short(gpu)} built in; "
                 "state them in acceleratorConfig",
                 f"add {r.kind}Config.acceleratorConfig {{count: {n}, type: {gpu}}}")


@rule("gpu.legacy-machine", "Legacy machine types take no acceleratorConfig.", pass_="gpu",
      services=AI_PLATFORM)
def legacy_machine(ctx: Context, r: Replica) -> None:
    found = attached(ctx, r)
    if found is None or found[0].category != "legacy":
        return
    machine, cat = found[0], ctx.catalog
    built = (f"its GPUs are built in ({machine.built_in[1]} × "
             f"{cat.short(machine.built_in[0])})" if machine.built_in else "it has no GPUs")
    ctx.emit(r.accel_path, f"{machine.name} is a legacy machine type: {built} and it takes no "
             "acceleratorConfig", "remove acceleratorConfig, or use a Compute Engine machine "
             f"type (e.g. {cat.example_machine_types[0]}) with acceleratorConfig", key=True)


@rule("gpu.machine", "The machine type takes the GPU type (one with GPUs built in takes only "
      "those).", pass_="gpu", services=AI_PLATFORM)
def gpu_machine(ctx: Context, r: Replica) -> None:
    found = attached(ctx, r)
    if found is None or found[0].category != "compute_engine":
        return
    (machine, gpu), cat, path = found, ctx.catalog, (*r.accel_path, "type")
    if machine.built_in:
        builtin_type, n = machine.built_in
        if gpu.api_name != builtin_type:
            ctx.emit(path, f"{machine.name} has {n} × {cat.short(builtin_type)} built in and "
                     f"takes no {gpu.name}", f"use acceleratorConfig {{count: {n}, type: "
                     f"{builtin_type}}}, or {_elsewhere(cat, gpu)} for {gpu.name} "
                     f"(`gpujob gpus --gpu {gpu.name}`)")
    elif gpu.built_in_only:
        hosts = [(m.name, m.built_in[1]) for m in cat.hosts(gpu.api_name) if m.built_in]
        ctx.emit(path, f"{gpu.name} GPUs come only built into "
                 f"{describe_list([name for name, _ in hosts], 3)}, not on {machine.name}",
                 "use " + ", ".join(f"{name} for {n}" for name, n in hosts))
    elif not machine.gpus.get(gpu.api_name):
        takers = [m.name for m in cat.compute_engine_types() if gpu.api_name in m.gpus]
        top = max(gpu.counts) if gpu.counts else None
        reason = cat.explain(machine.name, gpu.api_name, top) if top else None
        ctx.emit(path, f"{machine.name} cannot take {gpu.name} GPUs"
                 + (f": {reason}" if reason else ""), f"machine types that take {gpu.name}: "
                 f"{describe_list(takers, 6)} (`gpujob gpus --gpu {gpu.name}`)")


@rule("gpu.count", "The machine type takes that many GPUs of the type.", pass_="gpu",
      services=AI_PLATFORM)
def gpu_count(ctx: Context, r: Replica) -> None:
    found, count = attached(ctx, r), r.accel_count
    if found is None or found[0].category != "compute_engine" or count is None:
        return
    (machine, gpu), cat, path = found, ctx.catalog, (*r.accel_path, "count")
    if machine.built_in:
        builtin_type, n = machine.built_in
        if gpu.api_name == builtin_type and count != n:
            other = [m.name for m in cat.hosts(gpu.api_name) if m.built_in == (gpu.api_name,
                                                                              count)]
            ctx.emit(path, f"{machine.name} has exactly {n} × {gpu.name}, not {count}",
                     f"set count: {n}" + (f", or use {other[0]} for {count} × {gpu.name}"
                                          if other else ""))
        return
    valid = machine.gpus.get(gpu.api_name, ())
    if gpu.built_in_only or not valid or count in valid:
        return
    reason = cat.explain(machine.name, gpu.api_name, count)
    fits = cat.machines_for(gpu.api_name, count)
    hint = f"use {or_list(valid)} × {gpu.name} on {machine.name}"
    if fits:
        hint += f", or {count} × {gpu.name} on {describe_list(fits, 4)}"
    ctx.emit(path, f"{machine.name} cannot take {count} × {gpu.name}"
             + (f": {reason}" if reason else ""), hint)


def warn_deprecated(ctx: Context, gpu_name: str, path: JsonPath) -> None:
    """The gpu.deprecated warning, if this GPU type is deprecated (once per job)."""
    gpu = ctx.catalog.gpu_types[gpu_name]
    if gpu.deprecated:
        preferred = or_list([ctx.catalog.short(g) for g in ctx.catalog.preferred_gpus])
        ctx.once(gpu_name, path, gpu.deprecated,
                 f"prefer {preferred} (`gpujob gpus` lists where each is offered)")


@rule("gpu.deprecated", "A GPU type past its end of support draws a warning, once per job.",
      severity="warning", pass_="gpu", services=AI_PLATFORM)
def deprecated_attached(ctx: Context, r: Replica) -> None:
    found = attached(ctx, r)
    if found is None or r.count <= 0:
        return
    machine, gpu = found
    if machine.category == "compute_engine" and not machine.built_in and not gpu.built_in_only:
        warn_deprecated(ctx, gpu.api_name, (*r.accel_path, "type"))

