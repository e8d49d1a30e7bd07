"""What a replica of a GKE JobSet sees, for ``gpujob local --service gke``: the variables the
JobSet sets (``translate``), with this machine's addresses for the pods' DNS names: the
replicas are the JobSet's ReplicatedJobs, each of its replicas on a port of its own."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from gpujob.config.job import TI, view
from gpujob.local.cluster import HOST, Group, LocalCluster, LocalOptions, Replica, output_dirs
from gpujob.services.gke import launchers
from gpujob.services.gke.translate import OUTPUT_DIRS, ROLES

if TYPE_CHECKING:
    from gpujob.config.document import Document

# the config's replica kinds -> the runner's task names
TASKS = {"master": "master", "worker": "worker", "parameterServer": "ps",
         "evaluator": "evaluator"}
KIND_OF = {task: kind for kind, task in TASKS.items()}


def _dumps(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


def environments(replicas: Sequence[Replica], job_id: str, job_dir: str, ports: Sequence[int],
                 gpus: Mapping[str, list[str]]) -> dict[str, dict[str, str]]:
    """The variables each replica gets, by replica name, as translate sets them on GKE."""
    address = {r.name: f"{HOST}:{port}" for r, port in zip(replicas, ports, strict=True)}
    pools: dict[str, list[str]] = {}
    tf_cluster: dict[str, list[str]] = {}
    for r in replicas:
        _, pool, tf_type = ROLES[KIND_OF[r.task]]
        pools.setdefault(f"workerpool{pool}", []).append(address[r.name])
        if r.task != "evaluator":
            tf_cluster.setdefault(tf_type, []).append(address[r.name])
    members = [r for r in replicas if KIND_OF[r.task] in launchers.MEMBERS]
    common = {"MASTER_ADDR": HOST, "MASTER_PORT": str(ports[0]),
              "WORLD_SIZE": str(len(members)), "CLOUD_ML_JOB_ID": job_id,
              **output_dirs(job_dir, OUTPUT_DIRS)}
    result = {}
    for r in replicas:
        _, pool, tf_type = ROLES[KIND_OF[r.task]]
        env = {
            "CLUSTER_SPEC": _dumps({"cluster": pools, "environment": "cloud",
                                    "task": {"type": f"workerpool{pool}", "index": r.index}}),
            "TF_CONFIG": _dumps({"cluster": tf_cluster, "environment": "cloud",
                                 "task": {"type": tf_type, "index": r.index}}),
            **common, "GPUJOB_REPLICA_INDEX": str(r.index),
            "CUDA_VISIBLE_DEVICES": ",".join(gpus.get(r.name, []))}
        if r in members:  # the master (0) and the workers (1...), as JobSet's global index
            rank = str(members.index(r))
            env.update(launchers.values(len(members), HOST, ports[0], len(gpus.get(r.name, []))))
            env.update(dict.fromkeys(launchers.RANKED, rank))
        result[r.name] = env
    return result


def cluster(doc: Document, job_dir: str, options: LocalOptions) -> LocalCluster:
    """The JobSet's replicas for ``doc`` (checked), each seeing what its pod would."""
    from gpujob.catalog import files
    from gpujob.services.gke import catalog as gke_catalog

    cat = options.catalog if options.catalog is not None else files.built_in(gke_catalog)
    job = view(doc.data)
    groups = []
    for r in job.active():
        machine = cat.machine_types.get(r.machine or "")
        count = r.accel_count if r.accel_type else (
            next(iter(machine.gpus.values()))[-1] if machine and machine.built_in else 0)
        groups.append(Group(TASKS[r.kind], r.count, count or 0))
    args = [str(a) for a in doc.data[TI].get("args", [])]
    job_id = str(doc.data.get("jobId", "job")).lower().replace("_", "-")
    return LocalCluster(groups, lambda replicas, ports, gpus: environments(
        replicas, job_id, job_dir, ports, gpus), lambda replica: [*args, "--job-dir", job_dir])
