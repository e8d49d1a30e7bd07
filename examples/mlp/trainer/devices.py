"""What a replica trains on: one process per GPU it has (``torch.cuda.device_count()``), one on
the CPU without GPUs, or ``--nproc-per-replica N`` (with GPUs at most one per GPU; without, N CPU
processes: how the tests run several processes on a machine without GPUs). GPUs listed in
``CUDA_VISIBLE_DEVICES`` that this torch cannot use (a CPU build, no driver) become as many CPU
processes, so the world keeps the shape the job asks for."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Devices:
    """``processes`` processes, each on a GPU of its own or not, and why that many."""

    processes: int
    cuda: bool
    why: str


def local_devices(forced: int | None, environ: Mapping[str, str]) -> Devices:
    """This replica's processes: ``forced`` is --nproc-per-replica (see the module's docstring)."""
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if gpus:
        if forced and forced > gpus:
            raise SystemExit(f"--nproc-per-replica {forced}: this replica has "
                             f"{plural(gpus, 'GPU')} and each process trains on one of them")
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


def visible_devices(environ: Mapping[str, str]) -> list[str]:
    """The GPUs ``CUDA_VISIBLE_DEVICES`` lists; as CUDA does, an entry such as -1 ends the list."""
    ids = []
    for item in (part.strip() for part in environ.get("CUDA_VISIBLE_DEVICES", "").split(",")):
        if item.startswith("-"):
            break
        if item:
            ids.append(item)
    return ids


def plural(count: int, one: str, many: str | None = None) -> str:
    return f"{count} {one if count == 1 else many or one + 's'}"
