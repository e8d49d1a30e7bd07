"""One process per GPU of every replica, all in one world, started by torch's elastic launcher
(``torch.distributed.launcher.api.elastic_launch``, what ``torchrun`` runs): the service starts
one process (``python -m trainer.task``) per replica, and that process becomes the replica's
torchrun agent.

- A replica runs one process per GPU it has (``torch.cuda.device_count()``, which
  ``CUDA_VISIBLE_DEVICES`` limits), one on the CPU without GPUs, or ``--nproc-per-replica N``
  (with GPUs, at most one per GPU; without, N CPU processes: how the tests run several processes
  on a machine without GPUs). A replica given GPUs in ``CUDA_VISIBLE_DEVICES`` that this torch
  cannot use (a CPU build, no driver) runs as many CPU processes, so the world keeps the shape
  the job asks for.
- The agents meet in torch's ``static`` rendezvous: a ``TCPStore`` that replica 0 holds at the
  address ``trainer.cluster`` finds. Torch's agent ranks the processes: process ``i`` of replica
  ``r`` is rank ``i`` + the processes of the replicas before ``r`` (it sums each agent's own
  number of processes, so replicas with different GPU counts fit); ``r * N + i`` when every
  replica runs N, as with torchrun.
- Each process says in the agents' store whether it has a GPU: ``nccl`` when every one has,
  else ``gloo`` on the CPU everywhere (torch's launcher does not choose a backend). The ``nccl``
  path has not been run with this launcher: the machines its tests ran on have no GPU.
- The agent passes SIGINT, SIGTERM and SIGHUP on to the processes, stops them all when one fails
  (the signal or SIGTERM, then SIGKILL after 10 s), and the replica exits with the failed one's
  code (128 + N for signal N).
- A world of one process (one replica, one process) trains in this process: there is nothing to
  launch or to meet, and no second Python to wait for.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from datetime import timedelta
from typing import TextIO

import torch
import torch.distributed as dist

from trainer import cluster

PROCESS_VARIABLE = "MLP_TRAINER_PROCESS"  # what the agent's processes are told: Devices, as JSON
TIMEOUT = timedelta(minutes=30)  # Vertex AI may start the replicas minutes apart
GRACE = 10  # seconds the other processes get to stop when one failed
SIGNALS = "SIGINT,SIGTERM,SIGHUP"  # passed on to the processes by torch's agent


@dataclass(frozen=True)
class Devices:
    """What this replica trains on: ``processes`` processes, each on a GPU of its own or not."""

    processes: int
    cuda: bool
    why: str


@dataclass(frozen=True)
class Process:
    """One process of the world: ``rank`` of ``world``, ``local_rank`` of ``local_world`` on
    replica ``replica`` of ``replicas``; ``cuda`` when every process of the world has a GPU."""

    rank: int
    world: int
    local_rank: int
    local_world: int
    replica: int
    replicas: int
    cuda: bool

    @property
    def backend(self) -> str:
        return "nccl" if self.cuda else "gloo"


def visible_devices(environ: Mapping[str, str]) -> list[str]:
    """The GPUs ``CUDA_VISIBLE_DEVICES`` lists; as CUDA does, an entry such as -1 ends the list."""
    ids = []
    for item in (part.strip() for part in environ.get("CUDA_VISIBLE_DEVICES", "").split(",")):
        if item.startswith("-"):
            break
        if item:
            ids.append(item)
    return ids


def local_devices(forced: int | None, environ: Mapping[str, str]) -> Devices:
    """How many processes this replica runs, and whether on GPUs (see the module's docstring)."""
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if gpus:
        if forced and forced > gpus:
            raise SystemExit(f"--nproc-per-replica {forced}: this replica has "
                             f"{_plural(gpus, 'GPU')} and each process trains on one of them")
        return Devices(forced or gpus, True, "--nproc-per-replica" if forced else "one per GPU")
    if forced:
        return Devices(forced, False, "--nproc-per-replica, on the CPU")
    given = visible_devices(environ)
    if given:
        why = (f"torch {torch.__version__} is built without CUDA" if torch.version.cuda is None
               else "torch finds no usable GPU")
        return Devices(len(given), False, f"on the CPU, one per GPU in CUDA_VISIBLE_DEVICES="
                       f"{','.join(given)}: {why}")
    return Devices(1, False, "no GPU")


def run(forced: int | None, argv: list[str],
        train: Callable[[Process, dist.Store], None]) -> int:
    """Train as this replica's processes (see the module's docstring); the exit code."""
    inherited = os.environ.get(PROCESS_VARIABLE)
    if inherited:  # one of the processes torch's agent started, in a session of its own
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # the agent's SIGINT stops it, quietly
        train(*worker(Devices(**json.loads(inherited)), os.environ))
        return 0
    try:
        replica = cluster.replica(os.environ)
    except cluster.NotInWorld as exc:
        say(f"{exc}: nothing to do")
        return 0
    devices = local_devices(forced, os.environ)
    if replica.count == 1 and devices.processes == 1:
        process = Process(0, 1, 0, 1, 0, 1, devices.cuda)
        say(describe(process, devices))
        train(process, dist.HashStore())
        return 0
    return launch(replica, devices, argv)


def launch(replica: cluster.Replica, devices: Devices, argv: list[str]) -> int:
    """Be this replica's torchrun agent: start ``python -m trainer.task ARGV`` once per process
    (it finds the package where this one did) and wait for them all; the exit code."""
    from torch.distributed.elastic.multiprocessing import DefaultLogsSpecs, SignalException
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError
    from torch.distributed.elastic.utils.distributed import get_free_port
    from torch.distributed.launcher.api import LaunchConfig, elastic_launch

    if replica.address is None or replica.port is None:  # alone: loopback, any free port
        host, port = "127.0.0.1", get_free_port()
    else:
        host, port = replica.address, replica.port
    # torch's shortcut ranks r * N + i, as if every replica ran as many processes as this one
    os.environ.pop("TORCH_ELASTIC_WORKER_IDENTICAL", None)
    # The processes inherit the agent's environment, which is all the agent is for now.
    os.environ[PROCESS_VARIABLE] = json.dumps(asdict(devices))
    os.environ["OMP_NUM_THREADS"] = str(max(1, _threads() // devices.processes))
    with tempfile.TemporaryDirectory(prefix="mlp-trainer-") as logs:  # torch's error files
        config = LaunchConfig(
            min_nodes=replica.count, max_nodes=replica.count, nproc_per_node=devices.processes,
            run_id="mlp-trainer", rdzv_backend="static",
            rdzv_endpoint=f"[{host}]:{port}" if ":" in host else f"{host}:{port}",
            rdzv_configs={"rank": replica.rank, "timeout": int(TIMEOUT.total_seconds())},
            max_restarts=0,  # a failed process fails the replica; the service decides the rest
            logs_specs=DefaultLogsSpecs(log_dir=logs),
            signals_to_handle=SIGNALS, shutdown_timeout=GRACE)
        try:
            elastic_launch(config, sys.executable)("-m", f"{__package__}.task", *argv)
        except ChildFailedError as exc:
            rank, failure = exc.get_first_failure()
            say(f"process {failure.local_rank} (rank {rank}) {_exit(failure.exitcode)}: "
                "stopping the others", sys.stderr)
            return _code(failure.exitcode)
        except SignalException as exc:  # the agent has stopped the processes
            return 128 + exc.sigval
    return 0


def worker(devices: Devices, environ: Mapping[str, str]) -> tuple[Process, dist.Store]:
    """This process's place in the world torch's agent started it in, and the agents' store."""
    store, rank, world = next(dist.rendezvous("env://", timeout=TIMEOUT))
    gpus = dist.PrefixStore("gpu", store)
    gpus.set(str(rank), "1" if devices.cuda else "0")
    keys = [str(r) for r in range(world)]
    gpus.wait(keys)
    process = Process(rank, world, int(environ["LOCAL_RANK"]), int(environ["LOCAL_WORLD_SIZE"]),
                      int(environ["GROUP_RANK"]), int(environ["GROUP_WORLD_SIZE"]),
                      all(value == b"1" for value in gpus.multi_get(keys)))
    if process.local_rank == 0:
        say(describe(process, devices))
    return process, store


def join(process: Process, store: dist.Store) -> torch.device:
    """Join the world as ``process``; the device it trains on."""
    device = torch.device("cpu")
    if process.cuda:  # untested here: no GPU on the machines these tests run on
        device = torch.device("cuda", process.local_rank)
        torch.cuda.set_device(device)
    dist.init_process_group(process.backend, store=dist.PrefixStore("world", store),
                            rank=process.rank, world_size=process.world, timeout=TIMEOUT,
                            device_id=device if process.cuda else None)
    return device


def describe(process: Process, devices: Devices) -> str:
    """``replica 1 of 2: 4 processes (one per GPU), ranks 4-7 of 8 (nccl)``."""
    first = process.rank - process.local_rank
    last = first + process.local_world - 1
    ranks = f"rank {last}" if last == first else f"ranks {first}-{last}"
    line = (f"replica {process.replica} of {process.replicas}: "
            f"{_plural(process.local_world, 'process', 'processes')} ({devices.why}), {ranks} "
            f"of {process.world} ({process.backend})")
    if devices.cuda and not process.cuda:
        line += "; some replicas have no GPU: every process trains on the CPU"
    return line


def say(line: str, stream: TextIO | None = None) -> None:
    """Print ``line`` in one write: the lines of processes that share an output never mix."""
    stream = sys.stdout if stream is None else stream
    stream.write(line + "\n")
    stream.flush()


def _threads() -> int:
    """The CPU threads this replica may use: OMP_NUM_THREADS, else the CPUs it may run on."""
    try:
        return max(1, int(os.environ.get("OMP_NUM_THREADS", "")))
    except ValueError:
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
            os.cpu_count() or 1)


def _code(returncode: int) -> int:
    return returncode if returncode > 0 else 128 - returncode


def _exit(returncode: int) -> str:
    if returncode >= 0:
        return f"exited with code {returncode}"
    return f"was killed by {signal.Signals(-returncode).name}"


def _plural(count: int, one: str, many: str | None = None) -> str:
    return f"{count} {one if count == 1 else many or one + 's'}"
