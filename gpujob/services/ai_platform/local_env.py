"""The cluster a local run emulates for AI Platform: its replicas (read from the config and
trimmed to what one machine runs), their free ports, and the variables the service gives each
(``TF_CONFIG``, ``CLUSTER_SPEC``, and PyTorch's ``MASTER_ADDR``, ``WORLD_SIZE``, ``RANK``).
``vertex_env`` does the same for Vertex AI."""

from __future__ import annotations

import json
import socket
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpujob.catalog import Catalog
from gpujob.config.job import TI
from gpujob.config.job import Replica as ConfigReplica
from gpujob.config.job import view as job_view
from gpujob.errors import UsageError

MAX_REPLICAS = 512  # more processes than one machine runs sensibly (file descriptors, threads)
HOST = "localhost"

_NAMES = {"master": ("master", "masters"), "worker": ("worker", "workers"),
          "ps": ("parameter server", "parameter servers"), "evaluator": ("evaluator", "evaluators")}

# the config's replica kinds (as the job view names them) -> the service's task names
_TASKS = {"master": "master", "worker": "worker", "parameterServer": "ps",
          "evaluator": "evaluator"}


@dataclass(frozen=True)
class Replica:
    """One task of the cluster: ``task`` is the service's name (master, worker, ps, evaluator)."""

    task: str
    index: int
    gpus: int = 0  # what its machine type or acceleratorConfig asks for
    pool: int | None = None  # Vertex AI's worker pool (0-3), which names it there

    @property
    def name(self) -> str:
        """The name the service's logs give it: ``worker-replica-0`` (Vertex AI:
        ``workerpool1-0``)."""
        if self.pool is not None:
            return f"workerpool{self.pool}-{self.index}"
        return f"{self.task}-replica-{self.index}"


@dataclass(frozen=True)
class Group:
    """``count`` like replicas of one task (the master, the workers, …), each asking for
    ``gpus``: a million workers are one Group until trimmed."""

    task: str
    count: int
    gpus: int = 0


def _gpus(cat: Catalog, replica: ConfigReplica) -> int:
    """The GPUs a replica asks for: its acceleratorConfig's, else those built into its machine
    type (legacy GPU types, a2-*), as the catalog says."""
    if replica.accel_type is not None:
        gpu = cat.gpu_types.get(replica.accel_type)
        return (replica.accel_count or 0) if gpu and gpu.kind == "gpu" else 0
    machine = cat.machine_types.get(replica.machine or "")
    if machine and machine.built_in:
        gpu = cat.gpu_types.get(machine.built_in[0])
        return machine.built_in[1] if gpu and gpu.kind == "gpu" else 0
    return 0


def replicas_of(training_input: Mapping[str, Any],
                cat: Catalog) -> tuple[list[Group], list[str]]:
    """The replicas the service would start, in order (master, workers, parameter servers,
    evaluators) as groups, with the GPUs each asks for; and warnings about what is not
    emulated. The config is read through the job view, as the compatibility rules read it."""
    tier_name = training_input.get("scaleTier", "BASIC")
    tier = cat.scale_tiers.get(tier_name)
    warnings = []
    if tier and tier.custom:
        replicas = []
        for kind in job_view({TI: dict(training_input)}).replicas:
            task = _TASKS[kind.kind]
            count = 1 if task == "master" else kind.count
            machine = cat.machine_types.get(kind.machine or "")
            if count and machine and machine.category == "tpu":
                warnings.append(f"the Cloud TPU {_NAMES[task][0]} is not emulated locally")
                continue
            replicas.append(Group(task, count, _gpus(cat, kind)))
        return replicas, warnings
    if tier and tier.tpu:
        warnings.append(f"the Cloud TPU of scale tier {tier_name} is not emulated locally")
    return [Group("master", 1, tier.gpu[1] if tier and tier.gpu else 0),
            Group("worker", tier.workers if tier else 0),
            Group("ps", tier.parameter_servers if tier else 0)], warnings


def _shape(counts: Mapping[str, int]) -> str:
    """``1 master, 4 workers, 3 parameter servers``."""
    return ", ".join(f"{n} {_NAMES[t][n != 1]}" for t in _NAMES if (n := counts.get(t, 0)))


def trim(groups: Sequence[Group], bound: int) -> tuple[list[Replica], str | None]:
    """The replicas to run, at most ``bound``: the master stays; the largest group of the others
    loses one at a time (on a tie evaluators first, then parameter servers, then workers).
    Counted, not listed: only the replicas kept are ever made."""
    counts = Counter[str]()
    for group in groups:
        counts[group.task] += group.count
    total = sum(counts.values())
    if min(total, bound) > MAX_REPLICAS:
        raise UsageError(f"the job would run {min(total, bound)} replicas here; at most "
                         f"{MAX_REPLICAS} run on one machine",
                         f"give --max-local-replicas {MAX_REPLICAS} or less (the largest "
                         "groups are trimmed)")
    # a group above ``bound`` is cut down to it before any other loses one: start from there
    kept = Counter({t: n if t == "master" else min(n, bound) for t, n in counts.items()})
    while sum(kept.values()) > bound:
        task = max(("evaluator", "ps", "worker"), key=lambda t: kept[t])
        if not kept[task]:
            break
        kept[task] -= 1
    replicas, made = [], Counter[str]()
    for group in groups:
        for _ in range(min(group.count, kept[group.task] - made[group.task])):
            replicas.append(Replica(group.task, made[group.task], group.gpus))
            made[group.task] += 1
    if len(replicas) == total:
        return replicas, None
    return replicas, (f"the job has {total} replicas ({_shape(counts)}); running "
                      f"{len(replicas)} here ({_shape(kept)}): raise --max-local-replicas to "
                      "run more")


def primary_name(training_input: Mapping[str, Any]) -> str:
    """``chief`` for runtime versions from 2.1 on or with useChiefInTfConfig, else ``master``."""
    if training_input.get("useChiefInTfConfig") is True:
        return "chief"
    try:
        major, minor = (int(p) for p in str(training_input["runtimeVersion"]).split("."))
    except (KeyError, ValueError):
        return "master"
    return "chief" if (major, minor) >= (2, 1) else "master"


def free_ports(count: int) -> list[int]:
    """``count`` distinct ports that were free on the loopback interface just now."""
    sockets = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind(("127.0.0.1", 0))
            sockets.append(sock)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for sock in sockets:
            sock.close()


def environments(replicas: Sequence[Replica], training_input: Mapping[str, Any],
                 ports: Sequence[int], gpus: Mapping[str, list[str]]) -> dict[str, dict[str, str]]:
    """The variables each replica gets, by replica name.

    Ports go to the primary, then the parameter servers, then the workers (gcloud's order);
    evaluators have none and are not in ``cluster``. ``RANK`` is for the master (0) and the
    workers (1…N), the members of ``WORLD_SIZE``; parameter servers and evaluators get none.
    """
    in_cluster = ([r for r in replicas if r.task == "master"]
                  + [r for r in replicas if r.task == "ps"]
                  + [r for r in replicas if r.task == "worker"])
    address = {r.name: f"{HOST}:{port}" for r, port in zip(in_cluster, ports, strict=True)}
    primary = primary_name(training_input)

    def cluster(master_as: str) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for r in in_cluster:
            out.setdefault(master_as if r.task == "master" else r.task, []).append(address[r.name])
        return out

    workers = sum(r.task == "worker" for r in replicas)
    result = {}
    for r in replicas:
        def config(master_as: str, r: Replica = r) -> str:
            task = {"type": master_as if r.task == "master" else r.task, "index": r.index}
            return json.dumps({"cluster": cluster(master_as), "task": task,
                               "job": training_input,
                               "environment": "cloud"})

        env = {"TF_CONFIG": config(primary), "CLUSTER_SPEC": config("master"),
               "MASTER_ADDR": HOST, "MASTER_PORT": str(ports[0]),
               "WORLD_SIZE": str(1 + workers),
               "CUDA_VISIBLE_DEVICES": ",".join(gpus.get(r.name, []))}
        if r.task in ("master", "worker"):
            env["RANK"] = str(0 if r.task == "master" else r.index + 1)
        result[r.name] = env
    return result
