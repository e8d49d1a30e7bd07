"""One process per GPU of every replica (``trainer.devices``), all in one world, started by
torch's elastic launcher (``torch.distributed.launcher.api.elastic_launch``, what ``torchrun``
runs): the service starts ``python -m trainer.task`` once per replica, which becomes its agent.
Started by a plain ``torchrun`` instead (``torchrun -m trainer.task``, its nodes and ranks from its
flags or the ``PET_*`` variables GKE and ``gpujob local --service gke`` set), each process joins
the world torchrun formed (``torchrun_devices``).

- The agents meet in torch's ``static`` rendezvous, a ``TCPStore`` that replica 0 holds at the
  address ``trainer.cluster`` finds; torch ranks process ``i`` of replica ``r`` after the
  processes of the replicas before ``r`` (``r * N + i`` when each runs N). Replica 0 opens that
  store before its agent (which shares it) and keeps it until the other agents have left torch's
  exit barrier, which would otherwise end a successful run with a c10d stack trace.
- ``nccl`` when every process has a GPU, else ``gloo`` on the CPU (each says which in the store).
- The agent passes SIGINT, SIGTERM and SIGHUP on, stops every process when one fails, and the
  replica exits with the failed one's code (128 + N for signal N). A world of one process
  trains in the replica's own process.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import sys
import tempfile
import traceback
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from datetime import timedelta
from typing import NoReturn, TextIO

import torch
import torch.distributed as dist

from trainer import cluster
from trainer.devices import Devices, local_devices, plural

PROCESS_VARIABLE = "MLP_TRAINER_PROCESS"  # set for the agent's processes: Devices, as JSON
TIMEOUT = timedelta(minutes=30)  # Vertex AI may start the replicas minutes apart
LEAVE = timedelta(minutes=1)  # how long replica 0 keeps the store for the other agents
# how long the agent waits, once it has passed SIGTERM on, for its processes to finish the epoch
# and save before it kills them: as long as a Spot VM's notice, after which the VM (or gpujob
# local's --grace-period) kills them anyway. The agent must not cut that short: at 10 s, an epoch
# slowed by a busy machine could be killed half-way, without a word or its checkpoint.
SHUTDOWN = timedelta(seconds=30)


@dataclass(frozen=True)
class Process:
    """``rank`` of ``world``, ``local_rank`` of ``local_world`` on replica ``replica`` of
    ``replicas``; ``cuda`` when every process of the world has a GPU."""

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


def run(forced: int | None, argv: list[str],
        train: Callable[[Process, dist.Store], None]) -> int:
    """Train as this replica's processes (see the module's docstring); the exit code."""
    inherited = os.environ.get(PROCESS_VARIABLE)
    if inherited:  # one of the processes torch's agent started, in a session of its own
        end_after(lambda: train(*worker(Devices(**json.loads(inherited)), os.environ)))
    if cluster.under_torchrun(os.environ):  # a plain torchrun started this process
        end_after(lambda: train(*worker(torchrun_devices(forced, os.environ), os.environ)))
    try:
        replica = cluster.replica(os.environ)
    except cluster.NotInWorld as exc:
        say(f"{exc}: nothing to do")
        return 0
    devices = local_devices(forced, os.environ)
    if replica.count == 1 and devices.processes == 1:
        process = Process(0, 1, 0, 1, 0, 1, devices.cuda)
        say(describe(process, devices))
        end_after(lambda: train(process, dist.HashStore()))
    return launch(replica, devices, argv)


def end_after(work: Callable[[], None]) -> NoReturn:
    """Train (``work``) in a process of the world, then end it as Python would (0, the exit
    code, a message or traceback on stderr; SIGINT kills it quietly) but without finalizing
    Python: DDP keeps the process group alive past ``destroy_process_group`` (torch 2.13), so
    gloo's threads still run then, and one that drops the last reference to a tensor Python also
    holds must take the GIL, which CPython answers with ``pthread_exit`` inside a ``noexcept``
    destructor: "terminate called without an active exception", a run that trained exits 134."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    try:
        work()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
        if code == 1 and not isinstance(exc.code, int):
            print(exc.code, file=sys.stderr)
    except BaseException:
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # the files rank 0 writes were closed before the last barrier


def launch(replica: cluster.Replica, devices: Devices, argv: list[str]) -> int:
    """Be this replica's torchrun agent: run ``python -m trainer.task ARGV`` (found where this
    one was) once per process and wait for them all; the exit code."""
    from torch.distributed.elastic.multiprocessing import DefaultLogsSpecs, SignalException
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError
    from torch.distributed.launcher.api import LaunchConfig, elastic_launch

    # torch's agent logs each stop (W…/E… lines, an error file's path) on stderr, beside this
    # launcher's own one line of what failed
    logging.getLogger("torch.distributed.elastic").propagate = False
    logging.getLogger("torch.distributed.elastic").addHandler(logging.NullHandler())
    # torch's shortcut ranks r * N + i, as if every replica ran as many processes as this one
    os.environ.pop("TORCH_ELASTIC_WORKER_IDENTICAL", None)
    os.environ[PROCESS_VARIABLE] = json.dumps(asdict(devices))  # the processes inherit these
    os.environ["OMP_NUM_THREADS"] = str(max(1, _threads() // devices.processes))
    store = hold_store(replica)
    host = replica.address or "127.0.0.1"
    code = 1
    try:
        with tempfile.TemporaryDirectory(prefix="mlp-trainer-") as logs:  # torch's error files
            config = LaunchConfig(
                min_nodes=replica.count, max_nodes=replica.count,
                nproc_per_node=devices.processes, run_id="mlp-trainer", rdzv_backend="static",
                rdzv_endpoint=f"[{host}]:{store.port}" if ":" in host else f"{host}:{store.port}",
                rdzv_configs={"rank": replica.rank, "timeout": int(TIMEOUT.total_seconds())},
                max_restarts=0,  # a failed process fails the replica; the service decides the rest
                logs_specs=DefaultLogsSpecs(log_dir=logs),
                signals_to_handle="SIGINT,SIGTERM,SIGHUP",
                shutdown_timeout=int(SHUTDOWN.total_seconds()))
            try:
                elastic_launch(config, sys.executable)("-m", f"{__package__}.task", *argv)
                code = 0
            except ChildFailedError as exc:
                rank, failure = exc.get_first_failure()
                say(f"process {failure.local_rank} (rank {rank}) {_exit(failure.exitcode)}: "
                    "stopping the others", sys.stderr)
                code = failure.exitcode if failure.exitcode > 0 else 128 - failure.exitcode
            except SignalException as exc:  # the agent has stopped the processes
                code = 128 + exc.sigval
    finally:
        leave(store, replica, code == 0)
    return code


def hold_store(replica: cluster.Replica) -> dist.TCPStore:
    """The agents' store, opened before torch's agent: replica 0 holds the server (``multi_tenant``:
    the ``static`` rendezvous shares it), the others a connection. Alone: loopback, any port."""
    host, port = replica.address or "127.0.0.1", replica.port or 0
    return dist.TCPStore(host, port, is_master=replica.rank == 0, multi_tenant=True,
                         wait_for_workers=False, timeout=TIMEOUT)


def leave(store: dist.TCPStore, replica: cluster.Replica, succeeded: bool) -> None:
    """Each other replica says its agent is done; replica 0, after a success, keeps the store
    until they all have (or ``LEAVE``), so that no agent is left waiting in torch's exit barrier
    on a store that has gone."""
    if replica.count == 1:
        return
    left = dist.PrefixStore("mlp-trainer-left", store)
    if replica.rank:
        with contextlib.suppress(RuntimeError):  # replica 0 has gone: nothing to keep for us
            left.set(str(replica.rank), "1")
    elif succeeded:
        with contextlib.suppress(RuntimeError):  # a replica that failed may never say it
            left.wait([str(rank) for rank in range(1, replica.count)], LEAVE)


def torchrun_devices(forced: int | None, environ: Mapping[str, str]) -> Devices:
    """What this process of a world torchrun started trains on: GPU ``LOCAL_RANK`` when this
    replica has one for it, else the CPU. torchrun's ``--nproc-per-node`` (``PET_NPROC_PER_NODE``)
    sets the processes, not --nproc-per-replica."""
    if forced:
        raise SystemExit("--nproc-per-replica: under torchrun, torchrun's --nproc-per-node (or "
                         "PET_NPROC_PER_NODE) sets the processes of a replica")
    local, local_world = int(environ["LOCAL_RANK"]), int(environ["LOCAL_WORLD_SIZE"])
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if local < gpus:
        return Devices(local_world, True, "started by torchrun, one per GPU")
    return Devices(local_world, False, "started by torchrun, on the CPU" if not gpus else
                   f"started by torchrun, more than this replica's {plural(gpus, 'GPU')}: "
                   "on the CPU")


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
    if process.cuda:
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
            f"{plural(process.local_world, 'process', 'processes')} ({devices.why}), {ranks} "
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


def _exit(returncode: int) -> str:
    if returncode >= 0:
        return f"exited with code {returncode}"
    return f"was killed by {signal.Signals(-returncode).name}"

