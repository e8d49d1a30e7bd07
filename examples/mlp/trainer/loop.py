"""One process's training and evaluation steps, shared by the trainer and benchmarks/trainer.py.

The images stay on the training device: generated once on the CPU (``trainer.data``), copied
to the GPU from pinned memory without blocking, and cut into batches there, so no step waits for
a host-to-device copy. Losses are summed on the device and read once an epoch: a step never
waits for the GPU either.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch
from torch import nn
from torch.nn import functional


def to_device(tensor: torch.Tensor, device: torch.device) -> torch.Tensor:
    """``tensor`` on ``device``; to a GPU through pinned memory, without blocking."""
    if device.type != "cuda":
        return tensor
    return tensor.pin_memory().to(device, non_blocking=True)


def mixed_precision(device: torch.device) -> torch.dtype | None:
    """bfloat16 on GPUs of compute capability 8.0 and newer (A100, L4, H100…), which compute
    in it natively; None (float32) on older GPUs and on the CPU."""
    if device.type == "cuda" and torch.cuda.get_device_capability(device) >= (8, 0):
        return torch.bfloat16
    return None


def autocast(device: torch.device, dtype: torch.dtype | None) -> contextlib.AbstractContextManager:
    if dtype is None:
        return contextlib.nullcontext()
    return torch.autocast(device_type=device.type, dtype=dtype)


def step(model: nn.Module, optimizer: torch.optim.Optimizer, images: torch.Tensor,
         labels: torch.Tensor, dtype: torch.dtype | None) -> torch.Tensor:
    """One SGD step on a batch; its mean loss, still on the device."""
    optimizer.zero_grad(set_to_none=True)
    with autocast(images.device, dtype):
        loss = functional.cross_entropy(model(images), labels)
    loss.backward()  # under DDP: the gradients are averaged over the world, bucket by bucket
    optimizer.step()
    return loss.detach()


def batches(order: torch.Tensor, size: int) -> Iterator[torch.Tensor]:
    """``order`` (indices on the device) in slices of ``size``; the last may be smaller."""
    return iter(order.split(size))


def train_epoch(model: nn.Module, optimizer: torch.optim.Optimizer, images: torch.Tensor,
                labels: torch.Tensor, order: torch.Tensor, batch_size: int,
                dtype: torch.dtype | None) -> torch.Tensor:
    """Train on ``images[order]`` in batches; the sum of the losses over the samples (float64,
    on the device: reading it waits for the GPU to finish the epoch)."""
    model.train()
    total = torch.zeros((), dtype=torch.float64, device=images.device)
    for batch in batches(order, batch_size):
        total += step(model, optimizer, images[batch], labels[batch], dtype) * len(batch)
    return total


def correct(model: nn.Module, images: torch.Tensor, labels: torch.Tensor, order: torch.Tensor,
            dtype: torch.dtype | None, batch_size: int = 256) -> torch.Tensor:
    """How many of ``images[order]`` the model classifies right (on the device)."""
    model.eval()
    right = torch.zeros((), dtype=torch.float64, device=images.device)
    with torch.no_grad(), autocast(images.device, dtype):
        for batch in batches(order, batch_size):
            right += (model(images[batch]).argmax(dim=1) == labels[batch]).sum()
    return right
