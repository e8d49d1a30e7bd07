"""Rules about what the job runs: a runtime version or custom containers, their commands and
arguments, the Python version, and scheduling limits."""

from __future__ import annotations

from gpujob.checks.registry import rule
from gpujob.config.job import TI, Replica
from gpujob.numbers import duration_seconds, seconds_in_words
from gpujob.services.ai_platform.rules.context import AI_PLATFORM, Context
from gpujob.suggest import or_list


@rule("container.image-and-runtime", "A custom container (masterConfig.imageUri) and "
      "runtimeVersion exclude each other.", services=AI_PLATFORM)
def image_and_runtime(ctx: Context) -> None:
    if ctx.replicas[0].image and ctx.ti.get("runtimeVersion") is not None:
        ctx.emit((TI, "runtimeVersion"), "runtimeVersion and masterConfig.imageUri exclude each "
                 "other", "a custom container brings its own runtime: remove runtimeVersion (or "
                 "the image, to run on an AI Platform runtime)", key=True)


@rule("container.image-or-runtime", "A job needs a runtimeVersion or a custom container.",
      services=AI_PLATFORM)
def image_or_runtime(ctx: Context) -> None:
    if ctx.replicas[0].image or ctx.ti.get("runtimeVersion") is not None:
        return
    versions = ctx.catalog.runtime_versions
    newest = list(versions)[-1]
    ctx.emit((TI,), "the job needs a runtimeVersion or a custom container "
             "(masterConfig.imageUri)", f"set runtimeVersion: '{newest}' (with pythonVersion: "
             f"'{versions[newest][-1]}'), or pass --runtime-version, or give an image with "
             "--master-image-uri", key=True)


@rule("container.worker-image", "Other replicas run custom containers only when the master "
      "does.", pass_="containers", services=AI_PLATFORM)
def worker_image(ctx: Context, r: Replica) -> None:
    if r.image and not ctx.replicas[0].image and r.kind != "master":
        ctx.emit((*r.config_path, "imageUri"), f"{r.kind}Config.imageUri needs "
                 "masterConfig.imageUri: a job runs custom containers throughout, or a runtime "
                 "version throughout", "set masterConfig.imageUri too, or remove this image")


@rule("container.command-without-image", "containerCommand and containerArgs apply only to a "
      "custom container.", pass_="containers", services=AI_PLATFORM)
def command_without_image(ctx: Context, r: Replica) -> None:
    if r.image or ctx.replicas[0].image:
        return
    for field in ("containerCommand", "containerArgs"):
        if field in r.config:
            ctx.emit((*r.config_path, field), f"{field} applies only to a custom container, and "
                     f"this {r.label} has no image", "set imageUri, or move the arguments to "
                     "trainingInput.args", key=True)


@rule("container.command-with-args", "containerCommand and containerArgs exclude "
      "trainingInput.args.", pass_="containers", services=AI_PLATFORM)
def command_with_args(ctx: Context, r: Replica) -> None:
    if not (r.image or ctx.replicas[0].image) or "args" not in ctx.ti:
        return
    for field in ("containerCommand", "containerArgs"):
        if field in r.config:
            ctx.emit((*r.config_path, field), f"{field} and trainingInput.args exclude each "
                     f"other", f"keep {field} (the container's arguments), or args", key=True)


def _runtime(ctx: Context) -> str | None:
    version = ctx.job.runtime_version
    return None if version is None or ctx.broken((TI, "runtimeVersion")) else version


@rule("runtime.unknown", "The runtime version is one the service offers for training.",
      services=AI_PLATFORM)
def runtime_unknown(ctx: Context) -> None:
    version, versions = _runtime(ctx), ctx.catalog.runtime_versions
    if version is not None and version not in versions:
        ctx.emit((TI, "runtimeVersion"), f"runtime version {version!r} is not offered for "
                 f"training", f"use one of {', '.join(versions)} (newest: {list(versions)[-1]})")


@rule("runtime.python", "The Python version is one the runtime version offers.",
      services=AI_PLATFORM)
def runtime_python(ctx: Context) -> None:
    version, python = _runtime(ctx), ctx.job.python_version
    offered = ctx.catalog.runtime_versions.get(version or "")
    if offered is not None and python and python not in offered:
        ctx.emit((TI, "pythonVersion"), f"Python {python} is not available with runtime "
                 f"{version}", f"use pythonVersion {or_list(offered)}")


@rule("scheduling.max-wait", "scheduling.maxWaitTime is at least the service's minimum.",
      services=AI_PLATFORM)
def max_wait(ctx: Context) -> None:
    minimum = ctx.catalog.max_wait_minimum_s
    sched = ctx.ti.get("scheduling")
    wait = sched.get("maxWaitTime") if isinstance(sched, dict) else None
    seconds = duration_seconds(wait)
    if minimum is not None and seconds is not None and seconds < minimum:
        ctx.emit((TI, "scheduling", "maxWaitTime"), f"maxWaitTime {wait} is under the minimum "
                 f"of {minimum}s ({seconds_in_words(minimum)})",
                 f"set at least {minimum}s, or remove maxWaitTime for no limit")
