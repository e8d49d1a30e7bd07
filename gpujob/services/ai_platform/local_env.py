"""The cluster a local run emulates for AI Platform: its replicas (read from the config and
trimmed to what one machine runs), their free ports, and the variables the service gives each
(``TF_CONFIG``, ``CLUSTER_SPEC``, and PyTorch's ``MASTER_ADDR``, ``WORLD_SIZE``, ``RANK``).
The runner (``gpujob.local``) trims the groups and starts the processes."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from gpujob.config.document import Document
from gpujob.config.job import TI
from gpujob.config.job import Replica as ConfigReplica
from gpujob.config.job import view as job_view
from gpujob.local.cluster import HOST, NAMES, Group, LocalCluster, LocalOptions, Replica
from gpujob.services.ai_platform.records import Catalog

# the config's replica kinds (as the job view names them) -> the service's task names
_TASKS = {"master": "master", "worker": "worker", "parameterServer": "ps",
          "evaluator": "evaluator"}


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
                warnings.append(f"the Cloud TPU {NAMES[task][0]} is not emulated locally")
                continue
            replicas.append(Group(task, count, _gpus(cat, kind)))
        return replicas, warnings
    if tier and tier.tpu:
        warnings.append(f"the Cloud TPU of scale tier {tier_name} is not emulated locally")
    return [Group("master", 1, tier.gpu[1] if tier and tier.gpu else 0),
            Group("worker", tier.workers if tier else 0),
            Group("ps", tier.parameter_servers if tier else 0)], warnings


def primary_name(training_input: Mapping[str, Any]) -> str:
    """``chief`` for runtime versions from 2.1 on or with useChiefInTfConfig, else ``master``."""
    if training_input.get("useChiefInTfConfig") is True:
        return "chief"
    try:
        major, minor = (int(p) for p in str(training_input["runtimeVersion"]).split("."))
    except (KeyError, ValueError):
        return "master"
    return "chief" if (major, minor) >= (2, 1) else "master"


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


def cluster(doc: Document, job_dir: str, options: LocalOptions) -> LocalCluster:
    """The cluster AI Platform would start for ``doc`` (checked), planned over its catalog (its
    machine types' built-in GPUs, its scale tiers): every replica runs the module with the
    config's arguments and ``--job-dir DIR``."""
    from gpujob.catalog import load

    ti = doc.data[TI]
    cat = options.catalog if options.catalog is not None else load("ai-platform")
    groups, warnings = replicas_of(ti, cat)
    args = [str(a) for a in ti.get("args", [])]
    job = {**ti, "args": args, "jobDir": job_dir}
    return LocalCluster(
        groups, lambda replicas, ports, gpus: environments(replicas, job, ports, gpus),
        lambda replica: [*args, "--job-dir", job_dir],
        ports=lambda replicas: sum(r.task != "evaluator" for r in replicas),
        warnings=tuple(warnings))
