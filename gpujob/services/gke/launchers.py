"""What launchers read, besides Vertex's variables (sources: Kubeflow Trainer v2's torch and jax
plugins, kubeflow/trainer ``pkg/runtime/framework/plugins/{torch,jax}``; torchrun's ``PET_<ARG>``
defaults, ``torch/distributed/argparse_util.py``):

- ``WORLD_SIZE`` and ``RANK``: a PyTorch job's replicas, the master (0) and the workers (1…N),
  as gpujob's local runs count them; parameter servers and evaluators get no ``RANK``;
- torchrun's ``PET_NNODES``, ``PET_NODE_RANK``, ``PET_MASTER_ADDR``, ``PET_MASTER_PORT`` and
  ``PET_NPROC_PER_NODE`` (the pod's GPUs, 1 without), so that a plain ``torchrun train.py`` on
  each pod forms one world across the nodes instead of one per node;
- JAX's ``JAX_COORDINATOR_ADDRESS``, ``JAX_NUM_PROCESSES`` and ``JAX_PROCESS_ID`` (one process
  per node, as Kubeflow Trainer sets them).
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpujob.config.job import JobView, Replica

MEMBERS = ("master", "worker")  # the replicas of WORLD_SIZE


def world(job: JobView) -> int:
    """The replicas a PyTorch job counts: the master and the workers."""
    return sum(r.count for r in job.active() if r.kind in MEMBERS)


def values(nodes: int, master: str, port: int, gpus: int) -> dict[str, str]:
    """The variables every member gets, whatever its rank."""
    return {"WORLD_SIZE": str(nodes), "PET_NNODES": str(nodes), "PET_MASTER_ADDR": master,
            "PET_MASTER_PORT": str(port), "PET_NPROC_PER_NODE": str(gpus or 1),
            "JAX_COORDINATOR_ADDRESS": f"{master}:{port}", "JAX_NUM_PROCESSES": str(nodes)}


RANKED = ("RANK", "PET_NODE_RANK", "JAX_PROCESS_ID")  # each: the member's rank


def variables(job: JobView, replica: Replica, master: str, port: int, rank: dict[str, Any],
              gpus: int, nodes: int | None = None) -> list[dict[str, Any]]:
    """A pod's launcher variables; ``rank``: the ``valueFrom`` of its rank (JobSet's global
    index, 0 for the master, 1… for the workers, which come next; a multi-host TPU slice's
    host: its pod's completion index); ``nodes``: the members (None: ``world``; a TPU
    slice's hosts)."""
    nodes = world(job) if nodes is None else nodes
    env: list[dict[str, Any]] = [{"name": "WORLD_SIZE", "value": str(nodes)}]
    if replica.kind not in MEMBERS:
        return env
    env += [{"name": name, "valueFrom": copy.deepcopy(rank)} for name in RANKED]
    env += [{"name": k, "value": v} for k, v in values(nodes, master, port, gpus).items()
            if k != "WORLD_SIZE"]
    return env
