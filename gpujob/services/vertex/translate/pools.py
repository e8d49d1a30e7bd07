"""The machines of a Vertex job: AI Platform's scale tier or cluster (master, workers, parameter
servers, evaluators) as worker pools 0-3, legacy machine types and GPUs through the catalog's
table, and what Vertex cannot run (K80, TPU Pods, a master plus Cloud TPU workers)."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any

from gpujob.findings import JsonPath
from gpujob.numbers import as_count
from gpujob.services.vertex.catalog import VertexCatalog
from gpujob.services.vertex.records import Accel, Legacy
from gpujob.services.vertex.translate.notes import Notes, mapping, text

if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from gpujob.tuples import NamedTuple

TI = "trainingInput"
KINDS = ("master", "worker", "parameterServer", "evaluator")
LABELS = {"master": "master", "worker": "workers", "parameterServer": "parameter servers",
          "evaluator": "evaluators"}


class Pool(NamedTuple):
    # Vertex worker pool: 0 master, 1 workers, 2 parameter servers, 3 evaluators
    index: int  # type: ignore[assignment]  # the field hides tuple.index
    kind: str  # master, worker, parameterServer, evaluator
    machine_type: str
    accelerator: Accel | None
    replicas: int
    config: dict[str, Any]  # the AI Platform *Config (imageUri, container*, diskConfig)
    machine_path: JsonPath  # where the machine came from (a *Type, or scaleTier)

    @property
    def config_path(self) -> JsonPath:
        return (TI, f"{self.kind}Config")


def build(ti: dict[str, Any], cat: VertexCatalog, today: date, notes: Notes) -> list[Pool]:
    """The pools the job's cluster becomes, in pool order; problems go to ``notes``."""
    tier_name = text(ti.get("scaleTier"))
    if tier_name is None:
        tier_name = "CUSTOM" if text(ti.get("masterType")) else "BASIC"
    tier = cat.scale_tiers.get(tier_name)
    if tier is None:
        return []  # the schema names the valid tiers
    pools = _custom(ti, cat, today, notes) if tier.custom else _tier(ti, tier_name, cat, today,
                                                                      notes)
    _single_tpu_pool(pools, cat, notes)
    return pools


def _tier(ti: dict[str, Any], name: str, cat: VertexCatalog, today: date,
          notes: Notes) -> list[Pool]:
    tier = cat.scale_tiers[name]
    path = (TI, "scaleTier")
    written = "scaleTier" in ti
    if tier.untranslatable:
        notes.error("scale-tier", path, f"scaleTier {name} cannot be translated: "
                    f"{tier.untranslatable}",
                    "write the cluster out: scaleTier CUSTOM with masterType, workerType and "
                    "workerCount, parameterServerType and parameterServerCount")
        return []
    pools, parts, unverified = [], [], [tier.unverified] if tier.unverified else []
    whys: list[str] = []
    for index, tp in enumerate(tier.pools):
        if tp is None:
            continue
        kind = KINDS[index]
        machine, accel = tp.machine_type, tp.accelerator
        instead = ""
        if tp.legacy_machine_type:
            legacy = cat.legacy_machine_types[tp.legacy_machine_type]
            machine, accel, why = _legacy_choice(legacy, cat, today)
            if legacy.unverified:
                unverified.append(legacy.unverified)
            was = legacy.legacy_accelerator
            if was and accel != was:  # say what the tier had (BASIC_GPU: a K80)
                instead = f" instead of {was.count} × {was.type}"
                whys += [why] if why else []
        if machine is None:
            continue  # the catalog's schema requires one of the two
        config = mapping(ti.get(f"{kind}Config"))
        pools.append(Pool(index, kind, machine, accel, tp.count, config, path))
        parts.append(f"pool {index}: {tp.count} × {machine}{_with(accel)}{instead}")
    for kind in KINDS:
        _not_used_with_tier(ti, kind, name, notes)
    message = (f"scaleTier {name}{'' if written else ' (the default)'} became "
               + ", ".join(parts))
    if whys:
        message += ": " + "; ".join(dict.fromkeys(whys))
    if tier.changed:
        message += f" ({tier.changed})"
    hint = _unverified_hint(unverified)
    if tier.unverified:
        notes.warn("scale-tier", path, message, hint)
    else:
        notes.note("scale-tier", path, message, hint)
    return pools


def _not_used_with_tier(ti: dict[str, Any], kind: str, tier: str, notes: Notes) -> None:
    """Cluster fields that a scale tier other than CUSTOM overrides."""
    config = mapping(ti.get(f"{kind}Config"))
    paths: list[JsonPath] = [(TI, key) for key in (f"{kind}Type", f"{kind}Count") if key in ti]
    if "acceleratorConfig" in config:
        paths.append((TI, f"{kind}Config", "acceleratorConfig"))
    for path in paths:
        notes.warn("dropped", path, f"{path[-1]} is not sent: scaleTier {tier} sets the "
                   "machines", "set scaleTier: CUSTOM to choose them yourself")


def _custom(ti: dict[str, Any], cat: VertexCatalog, today: date, notes: Notes) -> list[Pool]:
    pools = []
    for index, kind in enumerate(KINDS):
        type_path, count_path = (TI, f"{kind}Type"), (TI, f"{kind}Count")
        machine = text(ti.get(f"{kind}Type"))
        if kind == "master" and machine is None:
            notes.error("pool", (TI, "scaleTier"), "scaleTier CUSTOM needs masterType",
                        "set masterType to the master's machine type")
            return []
        count = 1 if kind == "master" else as_count(ti.get(f"{kind}Count"))
        if not count:
            written = ti.get(f"{kind}Count") is not None
            if machine and kind != "master" and (count == 0 or not written):  # else: refused
                notes.warn("dropped", type_path, f"{kind}Type is not sent: {kind}Count is "
                           f"{'not set' if count is None else 0}, so there are no "
                           f"{LABELS[kind]}")
            continue
        if machine is None:
            notes.error("pool", count_path, f"{kind}Count is {count} but {kind}Type is "
                        "not set", f"set {kind}Type to the machine type of the "
                        f"{LABELS[kind]}")
            continue
        config = mapping(ti.get(f"{kind}Config"))
        translated = _machine(machine, config, kind, cat, today, notes)
        if translated is not None:
            pools.append(Pool(index, kind, translated[0], translated[1], count, config,
                              type_path))
    return pools


def _machine(name: str, config: dict[str, Any], kind: str, cat: VertexCatalog, today: date,
             notes: Notes) -> tuple[str, Accel | None] | None:
    """One pool's machine type and accelerators as Vertex takes them."""
    type_path = (TI, f"{kind}Type")
    accel_path = (TI, f"{kind}Config", "acceleratorConfig")
    written = _accelerator(mapping(config.get("acceleratorConfig")), accel_path, cat, today,
                           notes)
    legacy = cat.legacy_machine_types.get(name)
    if legacy is None:
        return name, written
    if legacy.tpu:
        accel = written or legacy.accelerator
        notes.note("machine-type", type_path, f"{name} became {legacy.machine_type}"
                   f"{_with(accel)}")
        return legacy.machine_type, accel
    if "acceleratorConfig" in config:
        built = _with(legacy.legacy_accelerator, " with ") or " without GPUs"
        notes.warn("dropped", accel_path, f"acceleratorConfig is not sent: {name} is an AI "
                   f"Platform machine type{built} built in",
                   "name a Compute Engine machine type to choose the GPUs yourself")
    machine, accel, why = _legacy_choice(legacy, cat, today)
    message = f"{name} became {machine}{_with(accel)}"
    if legacy.legacy_accelerator and accel != legacy.legacy_accelerator:
        message += (f" instead of {legacy.legacy_accelerator.count} × "
                    f"{legacy.legacy_accelerator.type}")
    if why:
        message += f": {why}"
    hint = _unverified_hint([legacy.unverified] if legacy.unverified else [])
    was = legacy.legacy_accelerator
    if was and accel and accel.count < was.count:  # a trainer written for 8 GPUs gets 4
        fewer = (f"each {LABELS[kind].rstrip('s')} gets {accel.count} GPUs, not {was.count}: "
                 f"check what the trainer assumes (its device count, batch size), or set "
                 f"{kind}Type to a Compute Engine machine type and {kind}Config."
                 "acceleratorConfig to the GPUs you want")
        notes.warn("machine-type", type_path, message, f"{fewer}; {hint}" if hint else fewer)
    else:
        notes.note("machine-type", type_path, message, hint)
    return machine, accel


def _legacy_choice(legacy: Legacy, cat: VertexCatalog,
                   today: date) -> tuple[str, Accel | None, str | None]:
    """The Vertex machine and accelerators for a legacy type on ``today``, and why they differ
    from the legacy machine's (None: they do not)."""
    accel, why = legacy.accelerator, legacy.changed
    if accel and legacy.after_end_of_support:
        info = cat.accelerators.get(accel.type)
        if info and info.end_of_support and today >= info.end_of_support:
            accel = legacy.after_end_of_support
            why = (f"{info.name} reached its end of support on Vertex AI on "
                   f"{info.end_of_support.isoformat()}; {cat.accelerators[accel.type].name} "
                   "replaces it")
    return legacy.machine_type, accel, why


def _accelerator(config: dict[str, Any], path: JsonPath, cat: VertexCatalog, today: date,
                 notes: Notes) -> Accel | None:
    """An acceleratorConfig the user wrote, if Vertex can take its type."""
    kind, count = text(config.get("type")), as_count(config.get("count"))
    if kind is None or count is None:
        return None  # the schema reports a missing or malformed one
    refused = cat.legacy_accelerators.get(kind)
    if refused is not None:
        notes.error("accelerator", (*path, "type"), f"{kind}: {refused['why']}",
                    _accelerator_fix(kind, refused["suggest"], cat))
        return None
    info = cat.accelerators.get(kind)
    if info and info.end_of_support and today >= info.end_of_support:
        notes.warn("accelerator", (*path, "type"), f"{kind} reached its end of support on "
                   f"Vertex AI on {info.end_of_support.isoformat()}",
                   f"use {info.replacement}" if info.replacement else None)
    return Accel(kind, count)


def _accelerator_fix(kind: str, suggest: str, cat: VertexCatalog) -> str:
    if kind.startswith("TPU_"):
        return (f"on Vertex a TPU Pod slice is one pool of one replica: machineType cloud-tpu "
                f"with acceleratorType {suggest} and acceleratorCount a multiple of 32 "
                "(write a native Vertex config)")
    machines = cat.machines_for(suggest)
    return f"use {suggest} ({', '.join(machines[:3])}, … take it: gpujob gpus --service vertex)"


def _single_tpu_pool(pools: list[Pool], cat: VertexCatalog, notes: Notes) -> None:
    """A TPU machine must be the job's only pool, with one replica."""
    for pool in pools:
        machine = cat.machine_types.get(pool.machine_type)
        if machine is None or not machine.single_replica:
            continue
        if len(pools) > 1 or pool.replicas > 1:
            notes.error("tpu-cluster", pool.machine_path,
                        f"Vertex runs {pool.machine_type} only as a job's single pool with one "
                        f"replica; AI Platform's master plus Cloud TPU "
                        f"{'workers' if pool.kind != 'master' else 'replicas'} cannot be "
                        "translated",
                        "write a native Vertex config with one pool: machineType cloud-tpu, "
                        "acceleratorType TPU_V2 (or TPU_V3), acceleratorCount 8, "
                        "replicaCount 1, running the whole program")


def _with(accel: Accel | None, prefix: str = " with ") -> str:
    return f"{prefix}{accel.count} × {accel.type}" if accel else ""


def _unverified_hint(reasons: list[str]) -> str | None:
    if not reasons:
        return None
    return (f"unverified: {'; '.join(dict.fromkeys(reasons))}; name Compute Engine machine "
            "types (scaleTier CUSTOM, masterType …) to choose them yourself")
