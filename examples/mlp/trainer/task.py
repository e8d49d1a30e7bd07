"""Train the MLP with DistributedDataParallel on every GPU of every replica of the job.

The service (or ``gpujob local``) starts this module once per replica; it becomes the replica's
torchrun agent (torch's ``elastic_launch``, see ``trainer.launch``), which starts one process per
GPU the replica has and puts them all in one world: a replica with 4 GPUs in a job of 2 replicas
is ranks 0-3 or 4-7 of 8. Without GPUs a replica is one process on the CPU. Gradients are
averaged with ``nccl`` when every process has a GPU, else with ``gloo`` on the CPU; on GPUs of
compute capability 8.0 and newer (A100, L4, H100) the forward pass runs in bfloat16.
``--nproc-per-replica N`` sets the number of processes (without GPUs: N CPU processes). Run
alone (no cluster variables), it is a job of one replica.

Every epoch, rank 0 prints the loss, the test accuracy and the samples per second of the whole
world, and writes a checkpoint and metrics.json to --job-dir; a run started again with the same
--job-dir resumes from the newest checkpoint (and one that has all --epochs says so and trains
nothing: raise --epochs, or give another --job-dir to start afresh). On SIGTERM (a preempted
VM's processes get it, then have seconds to end) the processes finish the epoch in progress,
save its checkpoint and stop (exit 143), saying from which epoch a run resumes.

    python -m trainer.task --job-dir out/ --epochs 2
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DistributedSampler

from trainer import checkpoints, data, launch, loop
from trainer.launch import say
from trainer.model import MLP
from trainer.stop import on_sigterm


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m trainer.task", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--job-dir", required=True,
                        help="where checkpoints and metrics go (gpujob and the service pass it)")
    parser.add_argument("--epochs", type=int, default=3, help="epochs in all (default: 3)")
    parser.add_argument("--batch-size", type=int, default=64, help="per process (default: 64)")
    parser.add_argument("--lr", type=float, default=0.05, help="SGD learning rate (default: 0.05)")
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--hidden", type=int, default=128, help="hidden units (default: 128)")
    parser.add_argument("--train-size", type=int, default=8192,
                        help="generated training images (default: 8192)")
    parser.add_argument("--test-size", type=int, default=1024,
                        help="generated test images (default: 1024)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--nproc-per-replica", type=_positive, metavar="N",
                        help="processes on this replica (default: one per GPU, else 1); with "
                             "GPUs at most one per GPU, without them N processes on the CPU")
    parser.add_argument("--amp", action=argparse.BooleanOptionalAction, default=True,
                        help="bfloat16 autocast on GPUs of compute capability 8.0+ "
                             "(default: on)")
    return parser.parse_args(argv)


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"not a positive whole number: {text!r}")
    return int(text)


def sums(values: list[float], device: torch.device,
         op: dist.ReduceOp.RedOpType = dist.ReduceOp.SUM) -> list[float]:
    """``values`` reduced over the world (summed unless ``op`` says otherwise)."""
    tensor = torch.tensor(values, dtype=torch.float64, device=device)
    dist.all_reduce(tensor, op=op)
    return tensor.tolist()


def resume(directory: Path, model: nn.Module, optimizer: torch.optim.Optimizer,
           device: torch.device, epochs: int) -> tuple[int, list[Any]]:
    """Load the newest checkpoint rank 0 sees, in every process; (epochs done, history).
    ``epochs``: the run's --epochs (a checkpoint with as many is not resumed from, but kept)."""
    done = torch.tensor([checkpoints.latest_epoch(directory) if dist.get_rank() == 0 else 0],
                        device=device)
    dist.broadcast(done, src=0)
    if not done.item():
        return 0, []
    path = checkpoints.checkpoint_path(directory, int(done.item()))
    try:
        state = checkpoints.load(path)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
    except Exception as exc:  # another model's (--hidden), or not a checkpoint of this trainer
        if dist.get_rank() != 0:
            raise SystemExit(1) from None  # rank 0 says why
        first = checkpoints.why_not_loaded(exc)
        raise SystemExit(f"cannot resume from {path}, which an earlier run left in --job-dir: "
                         f"not a checkpoint of this model ({first}); give another --job-dir, "
                         f"or delete {directory}, to start afresh") from None
    if dist.get_rank() == 0 and state["epoch"] < epochs:
        say(f"resuming from {path} ({state['epoch']} epochs done; another --job-dir starts "
            "afresh)")
    return state["epoch"], state["history"]


def train(args: argparse.Namespace, process: launch.Process, store: dist.Store) -> None:
    device = launch.join(process, store)
    rank, world = process.rank, process.world
    dtype = loop.mixed_precision(device) if args.amp else None
    say(f"rank {rank} of {world} (replica {process.replica}, local rank "
        f"{process.local_rank}), training on {device} ({process.backend}"
        f"{', bfloat16 autocast' if dtype else ''})")
    job_dir = checkpoints.local_path(args.job_dir)

    torch.manual_seed(args.seed)
    model = MLP(args.hidden).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    start, history = resume(job_dir / "checkpoints", model, optimizer, device, args.epochs)
    if start >= args.epochs:  # a finished run's job dir: say so rather than end in silence
        if rank == 0:
            say(f"nothing to train: {job_dir} has a checkpoint of {start} epochs, and --epochs "
                f"is {args.epochs}; give --epochs N above {start} to train on, or another "
                "--job-dir to start afresh")
        dist.destroy_process_group()
        return
    # gradients averaged over the world in buckets, each all-reduced as soon as it is ready
    ddp = DistributedDataParallel(model, device_ids=[device.index] if process.cuda else None,
                                  gradient_as_bucket_view=True)
    train_set = [loop.to_device(t, device) for t in data.digits(args.train_size, args.seed)]
    test_set = [loop.to_device(t, device) for t in data.digits(args.test_size, args.seed + 1)]
    sampler = DistributedSampler(range(args.train_size), world, rank, shuffle=True,
                                 seed=args.seed)
    test_order = torch.tensor(list(DistributedSampler(range(args.test_size), world, rank,
                                                      shuffle=False)), device=device)
    # from here a SIGTERM ends the run after the epoch in progress, once its checkpoint is saved
    stopping = on_sigterm()
    for epoch in range(start, args.epochs):
        began = time.monotonic()
        sampler.set_epoch(epoch)  # a different shuffle each epoch, the same in every process
        order = torch.tensor(list(sampler), device=device)
        loss_sum = loop.train_epoch(ddp, optimizer, *train_set, order, args.batch_size, dtype)
        loss_sum_value = loss_sum.item()  # waits for the device to finish the epoch
        # the slowest process's time, and whether any has been told to stop (SIGTERM)
        seconds, stop = sums([time.monotonic() - began, float(stopping.requested)], device,
                             dist.ReduceOp.MAX)
        say(f"rank {rank}: epoch {epoch + 1} trained on {len(order)} of {args.train_size} "
            "images")
        loss, samples = sums([loss_sum_value, len(order)], device)
        right, seen = sums([loop.correct(model, *test_set, test_order, dtype).item(),
                            len(test_order)], device)
        if rank == 0:
            history.append({"epoch": epoch + 1, "loss": round(loss / samples, 6),
                            "accuracy": round(right / seen, 6),
                            "samples_per_second": round(samples / seconds, 1),
                            "seconds": round(time.monotonic() - began, 3)})
            save(job_dir, model, optimizer, history, process, args.epochs)
        dist.barrier()  # no process starts the next epoch before the checkpoint is written
        if stop and epoch + 1 < args.epochs:
            if rank == 0:
                say(f"SIGTERM: stopped after epoch {epoch + 1} of {args.epochs}, its checkpoint "
                    f"saved; a run with the same --job-dir resumes from epoch {epoch + 2}")
            dist.destroy_process_group()
            raise SystemExit(128 + signal.SIGTERM)
    dist.destroy_process_group()


def save(job_dir: Path, model: nn.Module, optimizer: torch.optim.Optimizer,
         history: list[dict[str, Any]], process: launch.Process, epochs: int) -> None:
    """Rank 0: the checkpoint and metrics.json after the epoch ``history`` ends with."""
    last = history[-1]
    saved = checkpoints.save(job_dir / "checkpoints", last["epoch"], {
        "epoch": last["epoch"], "model": model.state_dict(),
        "optimizer": optimizer.state_dict(), "history": history})
    checkpoints.write_json(job_dir / "metrics.json", {
        "world_size": process.world, "replicas": process.replicas, "epochs": history})
    say(f"epoch {last['epoch']}/{epochs}: loss {last['loss']:.4f}, test accuracy "
        f"{last['accuracy']:.3f}, {last['samples_per_second']:.0f} samples/s; saved {saved}")


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    sys.exit(launch.run(args.nproc_per_replica, argv,
                        lambda process, store: train(args, process, store)))


if __name__ == "__main__":
    main()
