"""Where this replica stands in the job: its rank among the replicas that train, how many there
are, and the address of the first one (rank 0), read from what the service or ``gpujob local``
sets. The first of these that is set wins:

1. PyTorch's variables ``MASTER_ADDR``, ``MASTER_PORT``, ``WORLD_SIZE`` (replicas) and ``RANK``
   (this replica's), which AI Platform's PyTorch containers, Vertex AI and ``gpujob local`` set.
2. ``CLUSTER_SPEC`` (custom containers; Vertex AI names the pools ``workerpool0``…``3``), then
   ``TF_CONFIG`` (AI Platform): ``cluster`` maps task types to ``host:port`` lists and ``task`` is
   this replica's ``{type, index}``. The primary (``chief``, ``master`` or ``workerpool0``) is rank
   0 and the workers (``worker``, ``workerpool1``) follow in order, as Google's Vertex SDK ranks
   them. Parameter servers and evaluators (``ps``, ``evaluator``, ``workerpool2``/``3``) do not
   train.
3. None of them: a job of one replica.

Started by ``torchrun`` (``under_torchrun``), the trainer is not a replica but one process of the
world torchrun formed, and ``trainer.launch`` reads its place from torchrun's variables instead.

Standard library only, so that it is cheap to import and to test.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

PRIMARY = ("chief", "master", "workerpool0")
WORKERS = ("worker", "workerpool1")


class NotInWorld(Exception):
    """This replica is a parameter server or an evaluator: it has no part in the training."""


@dataclass(frozen=True)
class Replica:
    """This replica: ``rank`` of ``count``; rank 0 is at ``address``:``port`` (None alone)."""

    rank: int
    count: int
    address: str | None = None
    port: int | None = None
    source: str = "no cluster variables: a job of one replica"


def replica(environ: Mapping[str, str]) -> Replica:
    """This replica's place in the job, from ``environ`` (see the module's docstring); not for a
    process torchrun started (``under_torchrun``), whose RANK and WORLD_SIZE count processes."""
    if "RANK" in environ:
        return _from_torch(environ)
    for name in ("CLUSTER_SPEC", "TF_CONFIG"):
        if environ.get(name):
            return _from_cluster(name, environ[name])
    if "WORLD_SIZE" in environ:
        raise NotInWorld("WORLD_SIZE is set but RANK is not: this replica does not train")
    return Replica(0, 1)


def under_torchrun(environ: Mapping[str, str]) -> bool:
    """Whether torchrun (torch's elastic agent) started this process: it is then one process of
    the world torchrun formed from its flags or ``PET_*`` (``PET_NNODES``, ``PET_NODE_RANK``,
    ``PET_MASTER_ADDR``, ``PET_MASTER_PORT``, ``PET_NPROC_PER_NODE``), and torchrun has set its
    ``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK``, ``LOCAL_WORLD_SIZE``, ``GROUP_RANK`` and
    ``GROUP_WORLD_SIZE``."""
    return "TORCHELASTIC_RUN_ID" in environ


def _from_torch(environ: Mapping[str, str]) -> Replica:
    missing = [n for n in ("MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE") if not environ.get(n)]
    if missing:
        raise SystemExit(f"RANK is set but {', '.join(missing)} "
                         f"{'is' if len(missing) == 1 else 'are'} not: cannot find the other "
                         "replicas")
    rank = _integer(environ, "RANK")
    count = _integer(environ, "WORLD_SIZE")
    if not 0 <= rank < count:
        raise SystemExit(f"RANK={rank} is not a rank of WORLD_SIZE={count} replicas")
    return Replica(rank, count, environ["MASTER_ADDR"], _integer(environ, "MASTER_PORT"),
                   "MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK")


def _from_cluster(name: str, text: str) -> Replica:
    try:
        spec = json.loads(text)
        cluster: dict[str, list[str]] = spec["cluster"]
        kind, index = str(spec["task"]["type"]), int(spec["task"].get("index", 0))
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise SystemExit(f"{name}: not the service's cluster description ({_describe(exc)})"
                         ) from None
    primary = next((t for t in PRIMARY if cluster.get(t)), None)
    if primary is None:
        raise SystemExit(f"{name}: its cluster has no {', '.join(PRIMARY)}")
    workers = next((cluster[t] for t in WORKERS if cluster.get(t)), [])
    if kind in PRIMARY:
        rank = 0
    elif kind in WORKERS and 0 <= index < len(workers):
        rank = 1 + index
    elif kind in WORKERS:
        raise SystemExit(f"{name}: task {kind} {index} is not in its cluster")
    else:
        raise NotInWorld(f"this replica is {kind} {index} ({name}): only the primary and the "
                         "workers train")
    host, _, port = cluster[primary][0].rpartition(":")
    if not host or not port.isdigit():
        raise SystemExit(f"{name}: {cluster[primary][0]!r} is not HOST:PORT")
    return Replica(rank, 1 + len(workers), host.strip("[]"), int(port), name)


def _integer(environ: Mapping[str, str], name: str) -> int:
    try:
        return int(environ[name])
    except ValueError:
        raise SystemExit(f"{name}={environ[name]!r} is not a whole number") from None


def _describe(exc: Any) -> str:
    return f"no {exc}" if isinstance(exc, KeyError) else str(exc)
