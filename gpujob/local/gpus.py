"""The GPUs (and CPU cores) of this machine for a local run: where their IDs come from, each GPU
to one replica."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence

from gpujob.errors import UsageError
from gpujob.local.cluster import Replica

GPUS_VARIABLE = "GPUJOB_LOCAL_GPUS"


def _id_list(text: str) -> list[str]:
    """``0,1`` -> ["0", "1"]; as CUDA does, an entry such as -1 ends the list."""
    ids = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        if item.startswith("-"):
            break
        ids.append(item)
    return ids


def discover_gpus(environ: Mapping[str, str]) -> tuple[list[str], str]:
    """The GPUs the replicas may be given, and where that list came from.

    ``GPUJOB_LOCAL_GPUS`` (comma-separated IDs; empty for none) comes first, then
    ``CUDA_VISIBLE_DEVICES`` (it already limits what gpujob's children may use), then what
    ``nvidia-smi`` lists; without nvidia-smi, none.
    """
    for name in (GPUS_VARIABLE, "CUDA_VISIBLE_DEVICES"):
        if name in environ:
            return _id_list(environ[name]), name
    try:
        listed = subprocess.run(["nvidia-smi", "--query-gpu=index", "--format=csv,noheader"],
                                capture_output=True, text=True, timeout=60, check=True).stdout
    except FileNotFoundError:
        return [], "no nvidia-smi"
    except (OSError, subprocess.SubprocessError):
        return [], "nvidia-smi failed"
    return _id_list(",".join(listed.split())), "nvidia-smi"


def assign_gpus(replicas: Sequence[Replica], available: Sequence[str],
                source: str) -> tuple[dict[str, list[str]], str | None]:
    """Disjoint GPUs for each replica, in replica order, as many as it asks for while they last;
    a warning when there are fewer than asked."""
    pool = list(available)
    given = {}
    for r in replicas:
        given[r.name], pool = pool[:r.gpus], pool[r.gpus:]
    asked = sum(r.gpus for r in replicas)
    if asked <= len(available):
        return given, None
    wanted = f"the job asks for {asked} GPU{'s' if asked != 1 else ''}"
    if not available:
        return given, (f"{wanted} and none are available ({source}): the replicas run on the "
                       "CPU (CUDA_VISIBLE_DEVICES is empty)")
    short = ", ".join(f"{r.name} gets {len(given[r.name])} of {r.gpus}"
                      for r in replicas if len(given[r.name]) < r.gpus)
    return given, (f"{wanted} and {len(available)} are available ({source}): {short}; a replica "
                   "with none runs on the CPU (CUDA_VISIBLE_DEVICES is empty)")



def check_distinct(ids: Sequence[str], source: str) -> None:
    """Refuse a list that names a GPU twice (``0,0``; ``1,01`` as CUDA reads numbers): the GPU
    would go to two replicas."""
    first: dict[str, str] = {}
    for gpu in ids:
        key = str(int(gpu)) if gpu.isascii() and gpu.isdigit() else gpu
        if key in first:
            where = {"nvidia-smi": "nvidia-smi lists", "given": "the GPUs given name"}.get(
                source, f"{source} names")
            raise UsageError(f"{where} GPU {gpu} more than once ({','.join(ids)}): each GPU "
                             "goes to one replica only",
                             f"list each GPU once: {GPUS_VARIABLE}={','.join(first.values())}")
        first[key] = gpu


def share_gpus(replicas: Sequence[Replica], given: Sequence[str] | None,
               environ: Mapping[str, str]) -> tuple[dict[str, list[str]], str | None]:
    """This machine's GPUs (``given``, else found with ``discover_gpus``) shared out among
    ``replicas``, and a warning when they are short; a GPU listed twice is refused when any
    replica asks for one."""
    if given is None:
        available, source = discover_gpus(environ)
    else:
        available, source = list(given), "given"
    if any(r.gpus for r in replicas):
        check_distinct(available, source)
    return assign_gpus(replicas, available, source)


def share_cpus(envs: Mapping[str, dict[str, str]], environ: Mapping[str, str]) -> None:
    if not environ.get("OMP_NUM_THREADS"):
        # In the cloud each replica has a machine of its own; here they share this one's cores.
        # Unlimited, each replica's math library starts a thread per core and they all slow
        # down many times over (torchrun makes the same choice for its processes).
        threads = str(max(1, cpu_count() // len(envs)))
        for env in envs.values():
            env["OMP_NUM_THREADS"] = threads


def cpu_count() -> int:
    """The CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1
