"""How fast does the example trainer (examples/mlp) train, and how does it scale? In one run:

(a) one process on one GPU, no DDP;
(b) DistributedDataParallel, one process per GPU, over 1, 2, 4… and all of the machine's GPUs;
(c) the original document's nn.DataParallel: one process splitting each batch over all the GPUs;
(d) without a GPU, the same with CPU processes and gloo ((c) then has nothing to split over and
    runs the model as it is).

Prints samples per second for each, (b)/(a) per process count (the speedup; divided by the
count, the scaling efficiency) and (b)/(c). Every process takes --batch-size samples a step;
DataParallel takes that times the GPUs, the same global batch as DDP over all of them. All run the
trainer's own model and step (trainer.loop.step: bfloat16 autocast on GPUs of compute capability
8.0+), on the trainer's generated images, kept on the device; --steps steps are timed after
--warmup (the median of --rounds rounds). On the CPU a process stands for a GPU: each has
--threads threads (default: the CPUs shared out among the most processes of (b)); (c) is one
such process, as DataParallel uses one device when it has no GPU.

Usage: python benchmarks/trainer.py [--batch-size 256] [--steps N] [--processes N] [--no-amp]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples" / "mlp"))
warnings.filterwarnings("ignore", message="Failed to initialize NumPy")

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402
from torch import nn  # noqa: E402
from torch.nn.parallel import DistributedDataParallel  # noqa: E402
from trainer import data, launch, loop  # noqa: E402
from trainer.model import MLP  # noqa: E402


@dataclass(frozen=True)
class Settings:
    batch_size: int
    hidden: int
    steps: int
    warmup: int
    images: int
    rounds: int
    amp: bool
    threads: int  # CPU threads of one process (of (a), (c) and each of (b))


def _device(cuda: bool, index: int = 0) -> torch.device:
    if not cuda:
        return torch.device("cpu")
    torch.cuda.set_device(index)
    return torch.device("cuda", index)


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


class Autocast(nn.Module):
    """``module`` run under autocast to ``dtype`` inside its forward: nn.DataParallel's threads
    take the caller's autocast on or off, but not its dtype (they would compute in float16)."""

    def __init__(self, module: nn.Module, dtype: torch.dtype | None) -> None:
        super().__init__()
        self.module, self.dtype = module, dtype

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with loop.autocast(x.device, self.dtype):
            return self.module(x)


def _dtype(device: torch.device, s: Settings) -> torch.dtype | None:
    return loop.mixed_precision(device) if s.amp else None


def timed(model: nn.Module, device: torch.device, batch: int, s: Settings) -> float:
    """Seconds for ``s.steps`` training steps of ``batch`` images, after ``s.warmup`` untimed:
    the median of ``s.rounds`` rounds (a shared machine's other work skews single rounds)."""
    images, labels = (loop.to_device(t, device) for t in data.digits(s.images, seed=0))
    order = torch.randint(s.images, (s.warmup + s.steps, batch),
                          generator=torch.Generator().manual_seed(1)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    dtype = _dtype(device, s)
    for batch_order in order[:s.warmup]:
        loop.step(model, optimizer, images[batch_order], labels[batch_order], dtype)
    rounds = []
    for _ in range(s.rounds):
        _sync(device)
        start = time.perf_counter()
        for batch_order in order[s.warmup:]:
            loop.step(model, optimizer, images[batch_order], labels[batch_order], dtype)
        _sync(device)
        rounds.append(time.perf_counter() - start)
    return statistics.median(rounds)


def single(cuda: bool, s: Settings) -> float:
    """(a): samples/s of one process, no DDP."""
    torch.set_num_threads(s.threads)
    device = _device(cuda)
    torch.manual_seed(0)
    return s.steps * s.batch_size / timed(MLP(s.hidden).to(device), device, s.batch_size, s)


def data_parallel(processes: int, cuda: bool, s: Settings) -> float:
    """(c): samples/s of nn.DataParallel over ``processes`` GPUs, on the batch of as many DDP
    processes (on the CPU it has nothing to split over: the model as it is, on that batch, in
    one process like (a))."""
    torch.set_num_threads(s.threads)
    device = _device(cuda)
    torch.manual_seed(0)
    model = nn.DataParallel(Autocast(MLP(s.hidden).to(device), _dtype(device, s)),
                            device_ids=list(range(processes)) if cuda else None)
    batch = s.batch_size * processes
    return s.steps * batch / timed(model, device, batch, s)


def ddp(processes: int, cuda: bool, s: Settings) -> float:
    """(b): samples/s of DistributedDataParallel over ``processes`` processes."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    results = mp.get_context("spawn").SimpleQueue()
    mp.start_processes(_ddp_process, args=(processes, cuda, port, s, results), nprocs=processes,
                       start_method="spawn")
    return results.get()


def _ddp_process(rank: int, processes: int, cuda: bool, port: int, s: Settings,
                 results: mp.SimpleQueue) -> None:
    """One process of (b); it ends as the trainer's do (``trainer.launch.end_after``), without
    finalizing Python: gloo's threads, alive past destroy_process_group, would abort it."""
    launch.end_after(lambda: _ddp_measure(rank, processes, cuda, port, s, results))


def _ddp_measure(rank: int, processes: int, cuda: bool, port: int, s: Settings,
                 results: mp.SimpleQueue) -> None:
    warnings.filterwarnings("ignore", message="Failed to initialize NumPy")
    torch.set_num_threads(s.threads)
    device = _device(cuda, rank)
    dist.init_process_group("nccl" if cuda else "gloo", init_method=f"tcp://127.0.0.1:{port}",
                            rank=rank, world_size=processes,
                            device_id=device if cuda else None)
    torch.manual_seed(0)
    model = DistributedDataParallel(MLP(s.hidden).to(device),
                                    device_ids=[rank] if cuda else None,
                                    gradient_as_bucket_view=True)
    seconds = torch.tensor([timed(model, device, s.batch_size, s)], device=device)
    dist.all_reduce(seconds, op=dist.ReduceOp.MAX)  # the world is as fast as its slowest
    if rank == 0:
        results.put(processes * s.steps * s.batch_size / seconds.item())
    dist.destroy_process_group()


def counts(most: int) -> list[int]:
    """1, 2, 4… below ``most``, and ``most``."""
    return [n for n in (1, 2, 4, 8, 16, 32) if n < most] + [most]


def _plural(count: int, one: str, many: str | None = None) -> str:
    return f"{count} {one if count == 1 else many or one + 's'}"


def measure(cuda: bool, most: int, s: Settings) -> None:
    """Measure (a), (b) for each count up to ``most`` processes, and (c); print as it goes."""
    a = single(cuda, s)
    print(f"{'(a) 1 process, no DDP:':26}{a:10,.0f} samples/s", flush=True)
    b = {}
    for n in counts(most):
        b[n] = ddp(n, cuda, s)
        label = f"(b) DDP, {_plural(n, 'process', 'processes')}:"
        print(f"{label:26}{b[n]:10,.0f} samples/s"
              f"   (b)/(a) {b[n] / a:.2f}, scaling efficiency {b[n] / a / n:.0%}", flush=True)
    c = data_parallel(most, cuda, s)
    split = f"over {most} GPUs" if cuda else "(no GPU to split over: one process, as (a))"
    print(f"(c) nn.DataParallel {split}, batch {s.batch_size * most}: {c:,.0f} samples/s",
          flush=True)
    print(f"(b)/(c), {_plural(most, 'GPU' if cuda else 'process', None if cuda else 'processes')}"
          f" and the same global batch: {b[most] / c:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch-size", type=int, default=256, help="per process (default 256)")
    parser.add_argument("--hidden", type=int, default=128, help="hidden units (default 128)")
    parser.add_argument("--steps", type=int,
                        help="timed steps a round (default: 1000 on GPUs, 100 on the CPU)")
    parser.add_argument("--warmup", type=int, default=10, help="untimed steps first (default 10)")
    parser.add_argument("--images", type=int, default=8192, help="generated images (8192)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="timed rounds of --steps, the median counts (default 3)")
    parser.add_argument("--no-amp", dest="amp", action="store_false",
                        help="float32 even where the GPU computes in bfloat16")
    parser.add_argument("--processes", type=int, metavar="N",
                        help="the most processes for (b) (default: the GPUs, else the CPUs)")
    parser.add_argument("--threads", type=int, metavar="T",
                        help="CPU threads a process (default: the CPUs / the most processes)")
    args = parser.parse_args()
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)
    cuda = torch.cuda.is_available()
    gpus = torch.cuda.device_count() if cuda else 0
    most = min(args.processes or gpus, gpus) if cuda else (args.processes or cpus)
    steps = args.steps or (1000 if cuda else 100)
    s = Settings(args.batch_size, args.hidden, steps, args.warmup, args.images, args.rounds,
                 args.amp,
                 threads=args.threads or max(1, cpus // most))
    if cuda:
        name, capability = torch.cuda.get_device_name(0), torch.cuda.get_device_capability(0)
        print(f"torch {torch.__version__}, {_plural(gpus, 'GPU')} ({name}, compute capability "
              f"{capability[0]}.{capability[1]}): one process per GPU, nccl")
    else:
        print(f"torch {torch.__version__}, {cpus} CPUs, no GPU (torch.cuda.is_available() is "
              f"False): (d) = (a), (b), (c) on CPU processes with gloo, "
              f"{_plural(s.threads, 'thread')} each")
    dtype = _dtype(torch.device("cuda", 0), s) if cuda else None
    print(f"batch {s.batch_size} per process, median of {s.rounds} rounds of {s.steps} steps "
          f"after {s.warmup}, MLP 784-"
          f"{s.hidden}-10, {'bfloat16 autocast' if dtype else 'float32'}", flush=True)
    start = time.perf_counter()
    measure(cuda, most, s)
    print(f"measured in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
