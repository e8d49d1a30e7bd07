"""Train the MLP on every replica of the job with DistributedDataParallel.

Each replica is one process of the world: the service (or ``gpujob local``) sets MASTER_ADDR,
MASTER_PORT, WORLD_SIZE and RANK, and ``init_method="env://"`` reads them, so the same code runs
on one machine and in the cloud. Run alone (no WORLD_SIZE), it is a world of one.

Gradients are averaged with ``nccl`` when every replica has a GPU, else with ``gloo`` on the CPU.
A replica trains on one GPU, the first of those CUDA_VISIBLE_DEVICES gives it: give each replica
one GPU (more replicas rather than more GPUs per replica).
Every epoch, rank 0 writes a checkpoint and metrics.json to --job-dir; a run started again with
the same --job-dir resumes from the newest checkpoint.

    python -m trainer.task --job-dir out/ --epochs 2
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from trainer import checkpoints, data
from trainer.model import MLP


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m trainer.task", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--job-dir", required=True,
                        help="where checkpoints and metrics go (gpujob and the service pass it)")
    parser.add_argument("--epochs", type=int, default=3, help="epochs in all (default: 3)")
    parser.add_argument("--batch-size", type=int, default=64, help="per replica (default: 64)")
    parser.add_argument("--lr", type=float, default=0.05, help="SGD learning rate (default: 0.05)")
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--hidden", type=int, default=128, help="hidden units (default: 128)")
    parser.add_argument("--train-size", type=int, default=8192,
                        help="generated training images (default: 8192)")
    parser.add_argument("--test-size", type=int, default=1024,
                        help="generated test images (default: 1024)")
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args(argv)


def init_distributed() -> tuple[torch.device, dist.ProcessGroup | None]:
    """Join the world; the device every replica trains on, and the group DDP averages over."""
    if "WORLD_SIZE" in os.environ:
        dist.init_process_group("gloo", init_method="env://")
    else:
        dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    # All replicas must train on the same kind of device: GPUs only when every one has one.
    everyone_has_gpu = torch.tensor([int(torch.cuda.is_available())])
    dist.all_reduce(everyone_has_gpu, op=dist.ReduceOp.MIN)
    if everyone_has_gpu.item():
        torch.cuda.set_device(0)  # the first of the GPUs CUDA_VISIBLE_DEVICES gives this replica
        return torch.device("cuda", 0), dist.new_group(backend="nccl")
    if torch.cuda.is_available():
        print("some replicas have no GPU: every replica trains on the CPU", flush=True)
    return torch.device("cpu"), None


def average(value: float, count: int) -> float:
    """The mean over all replicas of a per-sample ``value`` measured on ``count`` samples."""
    totals = torch.tensor([value * count, float(count)], dtype=torch.float64)
    dist.all_reduce(totals)
    return (totals[0] / totals[1]).item()


def evaluate(model: nn.Module, loader: DataLoader, device: torch.device) -> float:
    model.eval()
    correct = seen = 0
    with torch.no_grad():
        for images, labels in loader:
            predicted = model(images.to(device)).argmax(dim=1).cpu()
            correct += int((predicted == labels).sum())
            seen += len(labels)
    return average(correct / max(seen, 1), seen)


def resume(directory: Path, model: nn.Module,
           optimizer: torch.optim.Optimizer) -> tuple[int, list[Any]]:
    """Load the newest checkpoint rank 0 sees, on every replica; (epochs done, history)."""
    done = torch.tensor([checkpoints.latest_epoch(directory) if dist.get_rank() == 0 else 0])
    dist.broadcast(done, src=0)
    if not done.item():
        return 0, []
    path = checkpoints.checkpoint_path(directory, int(done.item()))
    state = checkpoints.load(path)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    if dist.get_rank() == 0:
        print(f"resuming from {path} ({state['epoch']} epochs done)", flush=True)
    return state["epoch"], state["history"]


def train(args: argparse.Namespace) -> None:
    device, gpu_group = init_distributed()
    rank, world = dist.get_rank(), dist.get_world_size()
    print(f"rank {rank} of {world}, training on {device} "
          f"({'nccl' if gpu_group else 'gloo'})", flush=True)
    job_dir = checkpoints.local_path(args.job_dir)
    checkpoint_dir = job_dir / "checkpoints"

    torch.manual_seed(args.seed)
    model = MLP(args.hidden).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    start, history = resume(checkpoint_dir, model, optimizer)
    ddp = DistributedDataParallel(model, device_ids=[device] if gpu_group else None,
                                  process_group=gpu_group)

    train_set = TensorDataset(*data.digits(args.train_size, seed=args.seed))
    test_set = TensorDataset(*data.digits(args.test_size, seed=args.seed + 1))
    sampler = DistributedSampler(train_set, shuffle=True, seed=args.seed)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=sampler)
    test_loader = DataLoader(test_set, batch_size=256,
                             sampler=DistributedSampler(test_set, shuffle=False))
    loss_fn = nn.CrossEntropyLoss()
    if start >= args.epochs:
        print(f"rank {rank}: nothing to do, {start} of {args.epochs} epochs done", flush=True)

    for epoch in range(start, args.epochs):
        began = time.monotonic()
        sampler.set_epoch(epoch)  # a different shuffle each epoch, the same on every replica
        ddp.train()
        loss_sum, samples = 0.0, 0
        for images, labels in train_loader:
            images, labels = images.to(device), labels.to(device)
            optimizer.zero_grad()
            loss = loss_fn(ddp(images), labels)
            loss.backward()
            optimizer.step()
            loss_sum += loss.item() * len(labels)
            samples += len(labels)
        print(f"rank {rank}: epoch {epoch + 1} trained on {samples} of {len(train_set)} "
              "images", flush=True)
        loss = average(loss_sum / max(samples, 1), samples)
        accuracy = evaluate(model, test_loader, device)
        if rank == 0:
            history.append({"epoch": epoch + 1, "loss": round(loss, 6),
                            "accuracy": round(accuracy, 6),
                            "seconds": round(time.monotonic() - began, 3)})
            saved = checkpoints.save(checkpoint_dir, epoch + 1, {
                "epoch": epoch + 1, "model": model.state_dict(),
                "optimizer": optimizer.state_dict(), "history": history})
            checkpoints.write_json(job_dir / "metrics.json",
                                   {"world_size": world, "epochs": history})
            print(f"epoch {epoch + 1}/{args.epochs}: loss {loss:.4f}, test accuracy "
                  f"{accuracy:.3f}; saved {saved}", flush=True)
        dist.barrier()  # no replica starts the next epoch before the checkpoint is written
    dist.destroy_process_group()


def main(argv: list[str] | None = None) -> None:
    train(parse_args(argv))


if __name__ == "__main__":
    main()
