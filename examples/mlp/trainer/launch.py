"""One process per GPU of every replica, all in one world: what ``torchrun`` does, done inside the
trainer because the service starts one process (``python -m trainer.task``) per replica.

- A replica runs one process per GPU it has (``torch.cuda.device_count()``, which
  ``CUDA_VISIBLE_DEVICES`` limits), one on the CPU without GPUs, or ``--nproc-per-replica N``
  (with GPUs, at most one per GPU; without, N CPU processes: how the tests run several processes
  on a machine without GPUs). A replica given GPUs in ``CUDA_VISIBLE_DEVICES`` that this torch
  cannot use (a CPU build, no driver) runs as many CPU processes, so the world keeps the shape
  the job asks for.
- The replicas meet in a ``TCPStore`` that replica 0 holds at the address ``trainer.cluster``
  finds; each says how many processes it runs and whether they have GPUs. Process ``i`` of
  replica ``r`` is rank ``i`` + the processes of the replicas before ``r``: ``r * N + i`` when
  every replica runs N, as with torchrun. The world is every process; ``nccl`` when every one has
  a GPU, else ``gloo`` on the CPU everywhere.
- One process trains in the launcher itself. Several are started as ``python -m trainer.task``
  again, each told its place in ``MLP_TRAINER_PROCESS``; the launcher passes SIGINT, SIGTERM and
  SIGHUP on to them as SIGTERM, stops them all when one fails (SIGTERM, then SIGKILL after 10 s)
  and exits with the failed one's code.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from datetime import timedelta
from typing import TextIO

import torch
import torch.distributed as dist

from trainer import cluster

PROCESS_VARIABLE = "MLP_TRAINER_PROCESS"
TIMEOUT = timedelta(minutes=30)  # Vertex AI may start the replicas minutes apart
GRACE = 10.0  # seconds the other processes get to stop when one failed


@dataclass(frozen=True)
class Devices:
    """What this replica trains on: ``processes`` processes, each on a GPU of its own or not."""

    processes: int
    cuda: bool
    why: str


@dataclass(frozen=True)
class Layout:
    """The world, as the replicas agreed: this replica's first rank, every process, and whether
    they all have a GPU."""

    first: int
    world: int
    cuda: bool


@dataclass(frozen=True)
class Process:
    """One process of the world: ``rank`` of ``world``, ``local_rank`` of ``local_world`` on
    replica ``replica`` of ``replicas``; the store's address for the processes the launcher
    starts."""

    rank: int
    world: int
    local_rank: int
    local_world: int
    replica: int
    replicas: int
    cuda: bool
    store_host: str = ""
    store_port: int = 0

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


def open_store(replica: cluster.Replica, processes: int) -> dist.Store:
    """Where the processes meet: replica 0 holds it, the others connect to it."""
    if replica.count == 1 and processes == 1:
        return dist.HashStore()
    if replica.address is None or replica.port is None:  # alone: loopback, any free port
        return dist.TCPStore("127.0.0.1", 0, is_master=True, timeout=TIMEOUT,
                             wait_for_workers=False)
    return dist.TCPStore(replica.address, replica.port, is_master=replica.rank == 0,
                         timeout=TIMEOUT, wait_for_workers=False)


def rendezvous(store: dist.Store, replica: cluster.Replica, devices: Devices) -> Layout:
    """Wait for every replica to say what it runs; this replica's place in the world."""
    if replica.count == 1:
        return Layout(0, devices.processes, devices.cuda)
    store.set(f"replica/{replica.rank}", json.dumps([devices.processes, devices.cuda]))
    keys = [f"replica/{rank}" for rank in range(replica.count)]
    store.wait(keys)
    shares = [json.loads(store.get(key)) for key in keys]
    return Layout(sum(n for n, _ in shares[:replica.rank]), sum(n for n, _ in shares),
                  all(cuda for _, cuda in shares))


def join(process: Process, store: dist.Store | None = None) -> torch.device:
    """Join the world as ``process``; the device it trains on."""
    device = torch.device("cpu")
    if process.cuda:
        device = torch.device("cuda", process.local_rank)
        torch.cuda.set_device(device)
    if store is None:
        store = dist.TCPStore(process.store_host, process.store_port, is_master=False,
                              timeout=TIMEOUT)
    dist.init_process_group(process.backend, store=dist.PrefixStore("world", store),
                            rank=process.rank, world_size=process.world, timeout=TIMEOUT,
                            device_id=device if process.cuda else None)
    return device


def run(forced: int | None, argv: list[str],
        train: Callable[[Process, dist.Store | None], None]) -> int:
    """Train as this replica's processes (see the module's docstring); the exit code."""
    inherited = os.environ.get(PROCESS_VARIABLE)
    if inherited:  # started by a launcher, which passes a Ctrl-C on as SIGTERM
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        train(Process(**json.loads(inherited)), None)
        return 0
    try:
        replica = cluster.replica(os.environ)
    except cluster.NotInWorld as exc:
        say(f"{exc}: nothing to do")
        return 0
    devices = local_devices(forced, os.environ)
    store = open_store(replica, devices.processes)
    layout = rendezvous(store, replica, devices)
    say(describe(replica, devices, layout))
    port = store.port if isinstance(store, dist.TCPStore) else 0
    processes = [Process(layout.first + i, layout.world, i, devices.processes, replica.rank,
                         replica.count, layout.cuda, replica.address or "127.0.0.1", port)
                 for i in range(devices.processes)]
    if len(processes) == 1:
        train(processes[0], store)
        return 0
    return supervise(processes, argv)


def describe(replica: cluster.Replica, devices: Devices, layout: Layout) -> str:
    """``replica 1 of 2: 4 processes (one per GPU), ranks 4-7 of 8 (nccl)``."""
    last = layout.first + devices.processes - 1
    ranks = f"rank {last}" if last == layout.first else f"ranks {layout.first}-{last}"
    line = (f"replica {replica.rank} of {replica.count}: "
            f"{_plural(devices.processes, 'process', 'processes')} ({devices.why}), {ranks} of "
            f"{layout.world} ({'nccl' if layout.cuda else 'gloo'})")
    if devices.cuda and not layout.cuda:
        line += "; some replicas have no GPU: every process trains on the CPU"
    return line


def supervise(processes: list[Process], argv: list[str]) -> int:
    """Start a process for each of ``processes`` and wait for them; 0 when all succeed, else
    the code of the first that failed (128 + N for signal N), all others stopped."""
    threads = max(1, _threads() // len(processes))
    children = [_start(p, argv, threads) for p in processes]
    caught: list[int] = []

    def forward(signum: int, _frame: object) -> None:
        caught.append(signum)
        _signal(children, signal.SIGTERM)

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, forward)
    failed = None
    while not caught and failed is None and any(c.poll() is None for c in children):
        failed = next((i for i, c in enumerate(children) if c.poll() not in (None, 0)), None)
        time.sleep(0.05)
    if failed is None and not caught:
        failed = next((i for i, c in enumerate(children) if c.returncode != 0), None)
    if failed is not None and not caught:
        say(f"process {failed} (rank {processes[failed].rank}) "
            f"{_exit(children[failed].returncode)}: stopping the others", sys.stderr)
    _stop(children)
    if caught:
        return 128 + caught[0]
    return 0 if failed is None else _code(children[failed].returncode)


def say(line: str, stream: TextIO | None = None) -> None:
    """Print ``line`` in one write: the lines of processes that share an output never mix."""
    stream = sys.stdout if stream is None else stream
    stream.write(line + "\n")
    stream.flush()


def _start(process: Process, argv: list[str], threads: int) -> subprocess.Popen[bytes]:
    """``python -m trainer.task ARGV`` as ``process``: it finds the package where this one did
    (the same directory, environment and installed packages)."""
    env = {**os.environ, PROCESS_VARIABLE: json.dumps(asdict(process)),
           "OMP_NUM_THREADS": str(threads)}
    return subprocess.Popen([sys.executable, "-m", f"{__package__}.task", *argv], env=env)


def _signal(children: list[subprocess.Popen[bytes]], signum: int) -> None:
    for child in children:
        if child.poll() is None:
            child.send_signal(signum)


def _stop(children: list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM to those still running; SIGKILL to those still running ``GRACE`` seconds later."""
    _signal(children, signal.SIGTERM)
    deadline = time.monotonic() + GRACE
    while any(c.poll() is None for c in children) and time.monotonic() < deadline:
        time.sleep(0.05)
    _signal(children, signal.SIGKILL)
    for child in children:
        child.wait()


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
