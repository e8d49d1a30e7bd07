"""Rules about Cloud TPUs: a TPU machine runs as the one worker, with the TPU types and core
counts the catalog gives. They run replica by replica (pass ``tpu``)."""

from __future__ import annotations

from gpujob.checks.registry import rule
from gpujob.config.job import Replica, as_str
from gpujob.services.ai_platform.records import GpuType, MachineType
from gpujob.services.ai_platform.rules.context import AI_PLATFORM, Context
from gpujob.suggest import or_list


def _tpu_machine(ctx: Context, r: Replica) -> MachineType | None:
    machine = ctx.catalog.machine_types.get(r.machine or "")
    return machine if machine is not None and machine.category == "tpu" else None


def tpu_worker(ctx: Context, r: Replica) -> tuple[MachineType, GpuType | None] | None:
    """The TPU machine of the worker, with the accelerator it names (if known)."""
    machine = _tpu_machine(ctx, r)
    if machine is None or r.kind != "worker":
        return None
    return machine, ctx.catalog.gpu_types.get(r.accel_type or "")


@rule("tpu.worker-only", "Only the worker can be a Cloud TPU machine.", pass_="tpu",
      services=AI_PLATFORM)
def worker_only(ctx: Context, r: Replica) -> None:
    machine = _tpu_machine(ctx, r)
    if machine is not None and r.kind != "worker":
        ctx.emit(r.type_path, f"{r.kind}Type cannot be {machine.name}: a Cloud TPU runs as the "
                 f"one worker", f"set masterType to a Compute Engine type, workerType: "
                 f"{machine.name} and workerCount: 1")


@rule("tpu.machine", "TPUs are attached only to the Cloud TPU worker.", pass_="tpu",
      services=AI_PLATFORM)
def tpu_machine(ctx: Context, r: Replica) -> None:
    accel = ctx.catalog.gpu_types.get(r.accel_type or "")
    if _tpu_machine(ctx, r) is not None or not (accel and accel.kind == "tpu" and r.machine):
        return
    tpu = next((m.name for m in ctx.catalog.machine_types.values() if m.category == "tpu"),
               "TPU")
    ctx.emit((*r.accel_path, "type"), f"{accel.name} is attached only to a {tpu} worker, not "
             f"to {r.kind}Type {r.machine}", f"use workerType: {tpu} with workerCount: 1 and "
             "put the TPU in workerConfig.acceleratorConfig")


@rule("tpu.worker-count", "A Cloud TPU job has exactly one TPU worker.", pass_="tpu",
      services=AI_PLATFORM)
def worker_count(ctx: Context, r: Replica) -> None:
    found = tpu_worker(ctx, r)
    if found is None or r.count == 1 or ctx.broken(r.count_path):
        return
    ctx.emit(r.count_path if ctx.job.has(r.count_path) else r.type_path,
             f"a {found[0].name} job has exactly one TPU worker (workerCount is {r.count})",
             "set workerCount: 1")


@rule("tpu.gpu", "A Cloud TPU worker takes no GPUs.", pass_="tpu", services=AI_PLATFORM)
def tpu_gpu(ctx: Context, r: Replica) -> None:
    found = tpu_worker(ctx, r)
    if found is None or found[1] is None or found[1].kind != "gpu":
        return
    tpus = ctx.catalog.training_tpus()
    counts = sorted({c for t in tpus for c in t.counts})
    ctx.emit((*r.accel_path, "type"), f"a {found[0].name} worker takes no GPUs ({found[1].name})",
             f"use type {or_list([t.api_name for t in tpus])} with count {or_list(counts)}, or "
             "leave acceleratorConfig out")


@rule("tpu.type", "TPU types not offered for training (TPU Pods) are refused.", pass_="tpu",
      services=AI_PLATFORM)
def tpu_type(ctx: Context, r: Replica) -> None:
    found = tpu_worker(ctx, r)
    accel = found[1] if found else None
    if accel is not None and accel.kind != "gpu" and accel.not_for_training:
        ctx.emit((*r.accel_path, "type"), accel.not_for_training)


@rule("tpu.count", "A Cloud TPU worker has the TPU type's number of cores.", pass_="tpu",
      services=AI_PLATFORM)
def tpu_count(ctx: Context, r: Replica) -> None:
    found = tpu_worker(ctx, r)
    accel = found[1] if found else None
    if accel is None or accel.kind == "gpu" or accel.not_for_training:
        return
    if r.accel_count is not None and r.accel_count not in accel.counts:
        ctx.emit((*r.accel_path, "count"), f"a Cloud TPU worker has {or_list(accel.counts)} "
                 f"{accel.name} cores, not {r.accel_count}", f"set count: {accel.counts[0]}")


@rule("tpu.tf-version", "A Cloud TPU worker running a custom container names its runtime "
      "version (tpuTfVersion).", pass_="tpu", services=AI_PLATFORM)
def tf_version(ctx: Context, r: Replica) -> None:
    found = tpu_worker(ctx, r)
    if found is None or not (r.image or ctx.replicas[0].image):
        return
    if not as_str(r.config.get("tpuTfVersion")):
        newest = list(ctx.catalog.runtime_versions)[-1]
        ctx.emit(r.config_path, f"a {found[0].name} worker running a custom container needs "
                 f"{r.kind}Config.tpuTfVersion", "set tpuTfVersion to the runtime version "
                 f"matching the container's TensorFlow, e.g. '{newest}'", key=True)
