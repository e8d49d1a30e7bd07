"""What a catalog offers to shell completion: the few questions a TAB asks, in one shape for
every service's catalog (each service's ``completions`` answers them)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from gpujob.tuples import NamedTuple


class Accelerator(NamedTuple):
    api_name: str  # NVIDIA_TESLA_T4
    name: str  # T4
    kind: str  # gpu | tpu
    counts: tuple[int, ...]  # the counts it is attached in, on any machine type

    @property
    def gcloud_name(self) -> str:
        return self.api_name.lower().replace("_", "-")


class Offer(NamedTuple):
    accelerators: tuple[Accelerator, ...]
    machine_types: dict[str, str]  # name -> a short description
    regions: dict[str, str]  # name -> the GPUs it offers
    zones: dict[str, str]  # name -> the GPUs it offers
    counts: Callable[[str, str], tuple[int, ...]]  # (machine type, accelerator) -> counts
    # machine types a job config or job flag may name but the catalog does not list: Vertex
    # takes AI Platform's (translated), `gpujob gpus --service vertex --machine-type` refuses them
    translated: frozenset[str] = frozenset()


def size(vcpus: int | None, memory_gb: float | None, category: str) -> str:
    if vcpus is None or memory_gb is None:
        return category.replace("_", " ")
    return f"{vcpus} vCPUs, {memory_gb:g} GB"
