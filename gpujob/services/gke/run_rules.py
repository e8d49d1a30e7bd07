"""GKE's rules about how a job runs on its machines and capacity: which GPUDirect profile the
JobSet carries and why (``pods``), what a multi-node job loses without it, the Arm image of A4X,
and what Spot and flex-start do (``capacity``). Registered when ``rules`` is imported."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpujob.checks.registry import rule
from gpujob.config.job import TI
from gpujob.findings import JsonPath
from gpujob.numbers import duration_seconds
from gpujob.services.gke import capacity, domains, pods, sizes, translate
from gpujob.services.gke.flags import extra

GKE = ("gke",)
GkeContext = Any  # rules.GkeContext, which imports this module (its rules register here)


def _choice(ctx: GkeContext) -> pods.Choice | None:
    return pods.decide(ctx.job, ctx.catalog, ctx.options.job)


def _where(ctx: GkeContext, machine: str) -> JsonPath:
    return next(r.type_path for r in ctx.job.active() if r.machine == machine)


def _networks(p: Mapping[str, Any]) -> str:
    nets = p["networks"]
    return f"{nets[0]}..{nets[-1]}" if len(nets) > 2 else ", ".join(nets)


@rule("gke.gpudirect", "Says whether the JobSet carries the GPUDirect profile of its machine "
      "(TCPX on A3 High, TCPXO on A3 Mega, RDMA on A3 Ultra, A4 and A4X) and why: "
      "--gpudirect auto turns it on for 2 or more nodes where the cluster has the networks.",
      services=GKE, severity="note")
def gpudirect(ctx: GkeContext) -> None:
    c = _choice(ctx)
    if c is None or (c.mode == "off" and c.nodes >= 2):
        return  # gke.gpudirect-off warns
    p = c.settings
    where = _where(ctx, c.machine)
    if c.on:
        why = ("--gpudirect on" if c.mode == "on" else
               f"--gpudirect auto: {c.nodes} {c.machine} nodes")
        extra_ = "a tcpxo-daemon sidecar" if c.profile == "tcpxo" else \
            "a tcpx-daemon sidecar" if c.profile == "tcpx" else \
            "the gIB NCCL plugin (an init container)"
        assumed = ("" if c.mode == "on" else "; auto assumed the cluster has those networks, "
                   "as no cluster is read before a submit")
        ctx.emit(where, f"{p['name']} is on ({why}): each {c.machine} pod gets its {p['nics']} "
                 f"GPU NICs (the cluster's networks {_networks(p)}) and {extra_}{assumed}",
                 ("submit reads the cluster's Network and GKENetworkParamSet objects and sends "
                  "the JobSet without GPUDirect, with a warning, where they are missing; "
                  if c.mode == "auto" else "the cluster needs those Network and "
                  "GKENetworkParamSet objects (multi-networking); ") +
                 "--gpudirect off leaves GPUDirect out")
    elif c.mode == "auto":
        ctx.emit(where, f"{p['name']} is off (--gpudirect auto: one {c.machine} node, whose "
                 "GPUs talk over NVLink)", "--gpudirect on adds it anyway")


@rule("gke.gpudirect-off", "A job of 2 or more nodes of a machine with GPU NICs, without "
      "GPUDirect (--gpudirect off), runs its NCCL traffic over one network interface.",
      services=GKE, severity="warning")
def gpudirect_off(ctx: GkeContext) -> None:
    c = _choice(ctx)
    if c is not None and not c.on and c.nodes >= 2:
        p = c.settings
        ctx.emit(_where(ctx, c.machine), f"{c.nodes} {c.machine} nodes without {p['name']}: "
                 "the GPUs of different nodes talk over each pod's one network interface "
                 f"instead of the machine's {p['nics']} GPU NICs, a small part of the "
                 "bandwidth the machine is built for, and collective operations between nodes "
                 "slow the training down", "--gpudirect auto (or on) adds it; the cluster "
                 f"needs the networks {_networks(p)}")
    mode = pods.mode_of(ctx.options.job)
    if mode == "on" and c is None:
        machines = sorted({r.machine or "" for r in ctx.job.active()})
        ctx.emit((TI, "masterType"), f"--gpudirect on: {', '.join(machines)} "
                 f"{'has' if len(machines) == 1 else 'have'} no GPUDirect (no GPU NICs)",
                 "GPUDirect is for a3-highgpu-8g, a3-megagpu-8g, a3-ultragpu-8g, "
                 "a4-highgpu-8g and a4x-highgpu-4g")


@rule("gke.nccl-init", "On GPUDirect-RDMA, NCCL's settings come from the gIB plugin's script, "
      "which the trainer's command must source: gpujob wraps a command it knows.",
      services=GKE, severity="warning")
def nccl_init(ctx: GkeContext) -> None:
    c = _choice(ctx)
    for r in ctx.job.active():
        if pods.unwrapped(r, ctx.job, c):
            ctx.emit(r.config_path, f"the {r.label} runs its image's entrypoint: gpujob cannot "
                     "source $NCCL_INIT_SCRIPT (the gIB plugin's NCCL settings) before it, as "
                     "the recipes' command does", "set containerCommand (gpujob then sources "
                     "it first), or source it in the image's entrypoint")


@rule("gke.arm", "An Arm machine (A4X) runs images built for linux/arm64.", services=GKE,
      severity="note")
def arm(ctx: GkeContext) -> None:
    for r in ctx.job.active():
        if pods.machine_settings(ctx.catalog, r.machine).get("arch") == "arm64":
            ctx.emit(r.type_path, f"{r.machine} nodes are Arm (the pods select and tolerate "
                     "kubernetes.io/arch=arm64): the image must be built for linux/arm64")
            return


@rule("gke.compute-domain", "A job of 2 or more GB200 nodes (A4X) gets NVLink across nodes from "
      "a ComputeDomain of NVIDIA's DRA driver, which the JobSet's pods claim.", services=GKE,
      severity="note")
def compute_domain(ctx: GkeContext) -> None:
    found = domains.wanted(ctx.job, ctx.catalog)
    if found is not None:
        ctx.emit(_where(ctx, found.machine), f"NVLink across the {found.nodes} {found.machine} "
                 "nodes: a ComputeDomain (resource.nvidia.com/v1beta1) of as many nodes is made "
                 "with the JobSet, and each pod claims its channel (resourceClaims), as Google's "
                 "A4X recipe does", "the cluster needs NVIDIA's DRA driver for GPUs (a submit "
                 "checks that it serves ComputeDomains before it sends anything)")


@rule("gke.requests", "A GPU pod requests the CPU and memory its node leaves to pods (so "
      "Kueue's quotas count them); a machine type whose size gpujob does not know gets none.",
      services=GKE, severity="note")
def requests_note(ctx: GkeContext) -> None:
    for r in ctx.job.active():
        if (r.machine and r.machine in ctx.catalog.machine_types
                and translate.gpus_of(r, ctx.catalog)[1]
                and sizes.node(ctx.catalog, r.machine) is None):
            ctx.emit(r.type_path, f"{r.machine}: gpujob's catalog has no vCPU and memory size "
                     "for it, so its pods request no CPU or memory (only GPUs); Kueue's quotas "
                     "count their GPUs alone", "where the queue's quota counts CPU or memory, "
                     "add resources.requests to the JobSet's pod templates yourself")
            return


@rule("gke.capacity", "Says what Spot and flex-start do on GKE: a preempted Spot JobSet "
      "restarts without spending --max-restarts; flex-start runs at most 7 days.",
      services=GKE, severity="note")
def capacity_note(ctx: GkeContext) -> None:
    chosen = capacity.strategy(ctx.options.job)
    queue = extra(ctx.options.job, "--queue")
    if chosen == "SPOT":
        ctx.emit((TI,), "Spot: a pod lost with its node (preemption, maintenance) fails its "
                 "Job at once and the JobSet restarts without spending --max-restarts "
                 f"({capacity.max_restarts(ctx.options.job)}); those restarts have no limit: "
                 "JobSet's failure policy caps only maxRestarts, not a rule's restarts "
                 f"(Vertex AI retries a preempted job up to {capacity.VERTEX_SPOT_RETRIES} "
                 "times; Google's recipes and xpk count a preemption against maxRestarts "
                 "instead)", "save checkpoints: each restart runs the trainer from its start; "
                 "gpujob cancel stops a job that keeps being preempted", key=True)
    elif chosen == "FLEX_START" and queue and _deadline(ctx) is None:
        ctx.emit((TI,), "flex-start through Kueue's ProvisioningRequest: without a timeout "
                 "(scheduling.maxRunningTime) the nodes are held for GKE's default of 7 days",
                 "set a timeout: it becomes provreq.kueue.x-k8s.io/maxRunDurationSeconds",
                 key=True)
    elif chosen == "FLEX_START" and not queue:
        ctx.emit((TI,), "flex-start: the pods select nodes of a flex-start node pool "
                 "(cloud.google.com/gke-flex-start); a job of several nodes is better queued "
                 "(--queue, a ClusterQueue with a ProvisioningRequest admission check)",
                 key=True)


@rule("gke.reservation", "Says how a JobSet reaches a reservation: its pods select "
      "cloud.google.com/reservation-name; --reservation any is what GKE nodes do anyway.",
      services=GKE, severity="note")
def reservation(ctx: GkeContext) -> None:
    given = extra(ctx.options.job, "--reservation")
    name = capacity.reservation_flag(ctx.options.job) or next(
        (r.config.get(capacity.RESERVATION_KEY) for r in ctx.job.active()
         if r.config.get(capacity.RESERVATION_KEY)), None)
    if name:
        ctx.emit((TI,), f"the pods select the reservation {name} (node label "
                 "cloud.google.com/reservation-name): Autopilot and node auto-provisioning make "
                 "nodes from it", "a Standard node pool consumes it when created with "
                 f"--reservation-affinity=specific --reservation={name}", key=True)
    elif given is not None and given.lower() == "any":
        ctx.emit((TI,), "--reservation any: GKE nodes draw on any matching reservation as "
                 "their node pool's reservation affinity says (the default: any)", key=True)


@rule("gke.flex-limit", "A flex-start job's timeout is at most 7 days.", services=GKE,
      severity="warning")
def flex_limit(ctx: GkeContext) -> None:
    deadline = _deadline(ctx)
    if capacity.strategy(ctx.options.job) == "FLEX_START" and deadline and \
            deadline > capacity.FLEX_LIMIT:
        ctx.emit((TI, "scheduling", "maxRunningTime"), f"flex-start runs a job for at most "
                 f"7 days ({capacity.FLEX_LIMIT}s), not {int(deadline)}s",
                 "set a timeout of 7 days or less")


def _deadline(ctx: GkeContext) -> float | None:
    scheduling = ctx.ti.get("scheduling")
    return duration_seconds(scheduling.get("maxRunningTime")
                            if isinstance(scheduling, dict) else None)
