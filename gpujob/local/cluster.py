"""The cluster a local run emulates, in the terms every service shares: groups of like replicas
(from the service's ``local``), trimmed to what one machine runs, their free ports, and what the
service says each replica sees (``LocalCluster``)."""

from __future__ import annotations

import socket
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpujob.errors import UsageError
from gpujob.findings import Finding

if TYPE_CHECKING:
    from typing import NamedTuple

    from gpujob.local.drill import Drill
    from gpujob.services.base import Service
    from gpujob.settings import CheckOptions, JobOptions
else:
    from gpujob.tuples import NamedTuple

MAX_REPLICAS = 512  # more processes than one machine runs sensibly (file descriptors, threads)
HOST = "localhost"
DEFAULT_MAX_REPLICAS = 8
DEFAULT_GRACE_PERIOD = 10.0

NAMES = {"master": ("master", "masters"), "worker": ("worker", "workers"),
          "ps": ("parameter server", "parameter servers"), "evaluator": ("evaluator", "evaluators")}


@dataclass
class LocalOptions:
    """How to run locally: ``check``, the check's options (the service whose replicas to
    emulate, its catalog, and what the command line gives the service: the image the cloud
    would run a package on, the scheduling strategy); ``gpus`` None means discover them
    (``discover_gpus``)."""

    check: CheckOptions
    package_path: str | None = None
    max_replicas: int = DEFAULT_MAX_REPLICAS
    grace_period: float = DEFAULT_GRACE_PERIOD
    gpus: list[str] | None = None
    packages: list[Path] = field(default_factory=list)  # local files of --packages, to install
    drill: Drill | None = None  # --preempt-after (and --recover)

    @property
    def service(self) -> Service:
        return self.check.service

    @property
    def catalog(self) -> Any:
        """The catalog in use (None: the service's built-in one, not loaded)."""
        return self.check.catalog

    @property
    def job(self) -> JobOptions:
        return self.check.job


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


Environments = Callable[[Sequence["Replica"], Sequence[int], "dict[str, list[str]]"],
                        "dict[str, dict[str, str]]"]


class LocalCluster(NamedTuple):
    """What a service says about a local run of a job: its replicas as ``groups``, warnings
    about what is not emulated, its findings (a translation's), how a kept replica is named
    (``named``), how many ports the replicas take (``ports``), the variables each replica gets
    (``environments(replicas, ports, gpus)``, by replica name) and the arguments of each
    (``argv``)."""

    groups: list[Group]
    environments: Environments
    argv: Callable[[Replica], list[str]]
    ports: Callable[[Sequence[Replica]], int] = len
    named: Callable[[Replica], Replica] = lambda replica: replica
    warnings: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()


def _shape(counts: Mapping[str, int]) -> str:
    """``1 master, 4 workers, 3 parameter servers``."""
    return ", ".join(f"{n} {NAMES[t][n != 1]}" for t in NAMES if (n := counts.get(t, 0)))


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


def output_dirs(job_dir: str, names: Mapping[str, str]) -> dict[str, str]:
    """The variables ``names`` (``AIP_MODEL_DIR`` -> ``model``) as directories under the job
    dir, made here when it is a local one (a gs:// job dir is passed as the cloud passes it)."""
    base = job_dir.rstrip("/")
    dirs = {name: f"{base}/{sub}/" for name, sub in names.items()}
    if "://" not in job_dir:
        for path in dirs.values():
            try:
                Path(path).mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise UsageError(f"job dir {job_dir}: cannot create {path} ({exc.strerror})",
                                 "give --job-dir a directory you can write to") from None
    return dirs
