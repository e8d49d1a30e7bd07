"""Rules about the cluster: the scale tier, the replicas and their machine types."""

from __future__ import annotations

from gpujob.checks.registry import rule
from gpujob.config.job import TI, Replica
from gpujob.services.ai_platform.records import Catalog
from gpujob.services.ai_platform.rules.context import AI_PLATFORM, Context
from gpujob.suggest import describe_list, did_you_mean, or_list


@rule("tier.cluster-fields", "Machine types, counts and accelerators are set only with the "
      "custom scale tier.", services=AI_PLATFORM)
def cluster_fields(ctx: Context) -> None:
    if ctx.tier_name is None or ctx.custom:
        return
    custom = ctx.catalog.custom_tier()
    for r in ctx.replicas:
        for path, what in ((r.type_path, f"{r.kind}Type"), (r.count_path, f"{r.kind}Count"),
                           (r.accel_path, f"{r.kind}Config.acceleratorConfig")):
            if ctx.job.has(path) and not (r.kind == "master" and "Count" in what):
                ctx.emit(path, f"{what} is only used with scaleTier {custom} (this job is "
                         f"{ctx.tier_name})", f"set scaleTier: {custom} to choose machines "
                         f"yourself, or remove {what}", key=True)


@rule("tier.master-required", "The custom scale tier needs a masterType.", services=AI_PLATFORM)
def master_required(ctx: Context) -> None:
    if ctx.tier_name is None or not ctx.custom:
        return
    if not ctx.job.has((TI, "masterType")) and not ctx.misspelt("masterType"):
        ctx.emit((TI, "scaleTier"), f"scaleTier {ctx.tier_name} needs a masterType",
                 f"set masterType to a machine type, e.g. {ctx.catalog.example_machine_types[0]} "
                 "(`gpujob gpus` lists them with their GPUs)")


@rule("replica.type-required", "Workers, parameter servers and evaluators need a machine type "
      "when their count is above 0.", pass_="replicas", services=AI_PLATFORM)
def type_required(ctx: Context, r: Replica) -> None:
    if r.kind == "master" or ctx.tier_name is None or not ctx.custom:
        return
    if ctx.broken(r.count_path) or ctx.broken(r.type_path):
        return
    if r.count > 0 and not r.machine and not ctx.misspelt(f"{r.kind}Type"):
        master = ctx.replicas[0].machine
        ctx.emit(r.count_path, f"{r.kind}Count is {r.count} but {r.kind}Type is not set",
                 f"set {r.kind}Type (for instance the master's type"
                 + (f", {master})" if master else ")"))


@rule("replica.unused", "Settings of a replica kind whose count is 0 have no effect.",
      severity="warning", pass_="replicas", services=AI_PLATFORM)
def unused(ctx: Context, r: Replica) -> None:
    if r.kind == "master" or ctx.tier_name is None or not ctx.custom:
        return
    if ctx.broken(r.count_path) or r.count != 0 or not (r.machine or r.config):
        return
    if ctx.misspelt(f"{r.kind}Count"):  # a key spelt like it is reported (did you mean?)
        return
    ctx.emit(r.type_path if r.machine else r.config_path,
             f"{r.kind}{'Type' if r.machine else 'Config'} is set but {r.kind}Count is 0: "
             f"no {r.label} will run", f"set {r.kind}Count, or remove the {r.label} settings",
             key=True)


@rule("machine.unknown", "Machine types are those the service offers for training.",
      services=AI_PLATFORM)
def machine_unknown(ctx: Context) -> None:
    for r in ctx.replicas:
        if r.machine and r.machine not in ctx.catalog.machine_types:
            ctx.emit(r.type_path, f"{r.machine!r} is not a machine type "
                     f"{ctx.catalog.service_name} offers", _machine_hint(ctx.catalog, r.machine))


def _machine_hint(cat: Catalog, name: str) -> str:
    """Same family (n1-standard-2 -> the n1-standard types accepted), else a close spelling,
    else the families there are."""
    compute = [m.name for m in cat.compute_engine_types()]
    family = name.rsplit("-", 1)[0] + "-" if "-" in name else None
    siblings = [m for m in compute if family and m.startswith(family)]
    if siblings:
        return f"the {name.rsplit('-', 1)[0]} types it accepts: {', '.join(siblings)}"
    families = sorted({m.split("-")[0] for m in compute})
    if family and name.split("-")[0] not in families:
        guess = did_you_mean(name, compute)
        legacy = next((m.name for m in cat.machine_types.values()
                       if m.category == "legacy" and m.built_in), None)
        return (f"did you mean {guess!r}?" if guess else
                f"it accepts {' and '.join(f + '-…' for f in families)} Compute Engine types "
                "(`gpujob gpus` lists them)"
                + (f" and legacy types such as {legacy}" if legacy else ""))
    guess = did_you_mean(name, list(cat.machine_types))
    return (f"did you mean {guess!r}?" if guess else
            f"Compute Engine types: {describe_list(compute)} (`gpujob gpus` lists them)")


_CATEGORY_NAMES = {"legacy": "a legacy type", "compute_engine": "a Compute Engine type"}


@rule("machine.mixed", "A job uses Compute Engine machine types throughout, or legacy types "
      "throughout.", services=AI_PLATFORM)
def mixed(ctx: Context) -> None:
    cat = ctx.catalog
    m = cat.machine_types.get(ctx.replicas[0].machine or "")
    for r in ctx.replicas[1:]:
        other = cat.machine_types.get(r.machine or "")
        if m and other and r.count > 0 and "tpu" not in (m.category, other.category) and \
                m.category != other.category:
            ctx.emit(r.type_path, f"{r.kind}Type {other.name} is {_CATEGORY_NAMES[other.category]} "
                     f"but masterType {m.name} is {_CATEGORY_NAMES[m.category]}",
                     "a job uses Compute Engine types throughout, or legacy types throughout")


@rule("machine.legacy", "Legacy machine types are superseded by Compute Engine machine types.",
      severity="warning", services=AI_PLATFORM)
def legacy(ctx: Context) -> None:
    cat = ctx.catalog
    for r in ctx.active():
        machine = cat.machine_types.get(r.machine or "")
        if machine and machine.category == "legacy":
            ctx.once(machine.name, r.type_path, f"{machine.name} is a legacy machine type, "
                     "superseded by Compute Engine machine types", _modern(cat, machine.built_in))


def _modern(cat: Catalog, built_in: tuple[str, int] | None) -> str:
    if built_in is None:
        return f"use a Compute Engine type such as {or_list(cat.example_machine_types)}"
    gpu, count = built_in
    fits = cat.machines_for(gpu, count)
    return (f"for {count} × {cat.short(gpu)}, use "
            f"{describe_list(fits, 3) if fits else 'a Compute Engine type'} with "
            f"acceleratorConfig {{count: {count}, type: {gpu}}}, or a newer GPU")
