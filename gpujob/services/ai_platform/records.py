"""AI Platform's catalog records and the queries over them.

Its data file is read into these records by its builder (``catalog.py``); the rules and
``gpujob gpus`` read only the records. NamedTuples, not dataclasses:
``gpujob validate`` builds them on every run, and a dataclass costs about a millisecond to
create; ``gpujob.tuples``'s, which check no annotation (typing's compiles each one).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from gpujob.suggest import or_list

if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from gpujob.tuples import NamedTuple

# compute_engine: a Compute Engine machine type (GPUs attached or built in); legacy: a
# service's own machine type (GPUs, if any, built in); tpu: a machine that is a Cloud TPU
Category = Literal["compute_engine", "legacy", "tpu"]


class Cap(NamedTuple):
    """An extra limit on a GPU count (8 × K80: at most 208 GB of machine memory)."""

    count: int  # type: ignore[assignment]  # the field hides tuple.count
    max_vcpus: float | None
    max_memory_gb: float | None
    why: str


class GpuType(NamedTuple):
    """An accelerator type: a GPU, or a TPU (``kind``)."""

    api_name: str  # NVIDIA_TESLA_T4
    name: str  # T4
    kind: Literal["gpu", "tpu"]
    counts: tuple[int, ...]  # how many one machine may take
    vcpus_per_gpu: float | None
    memory_gb_per_gpu: float | None
    caps: tuple[Cap, ...]
    built_in_only: bool  # only on machine types that have it built in (A100 on a2)
    deprecated: str | None  # why using it draws a warning
    not_for_training: str | None  # why it is refused

    @property
    def gcloud_name(self) -> str:
        """The spelling gcloud's --*-accelerator flags use: nvidia-tesla-t4."""
        return self.api_name.lower().replace("_", "-")

    def limits(self, count: int) -> tuple[float, float] | None:
        """The most vCPUs and GB of memory ``count`` of these GPUs support (None: no rule)."""
        if self.vcpus_per_gpu is None or self.memory_gb_per_gpu is None:
            return None
        vcpus, memory = count * self.vcpus_per_gpu, count * self.memory_gb_per_gpu
        for cap in self.caps:
            if cap.count == count:
                vcpus = min(vcpus, cap.max_vcpus if cap.max_vcpus is not None else vcpus)
                memory = min(memory, cap.max_memory_gb if cap.max_memory_gb is not None
                             else memory)
        return vcpus, memory


class MachineType(NamedTuple):
    name: str
    category: Category
    family: str | None
    vcpus: int | None
    memory_gb: float | None
    gpus: Mapping[str, tuple[int, ...]]  # GPU type -> the counts this machine type takes
    built_in: tuple[str, int] | None  # the GPUs that come with the machine (a2, legacy types)

    @property
    def has_gpus_built_in(self) -> bool:
        """A Compute Engine type whose GPUs come with it: acceleratorConfig must state them."""
        return self.category == "compute_engine" and self.built_in is not None


class ScaleTier(NamedTuple):
    """A predefined cluster (or ``custom``: the one the config describes)."""

    name: str
    description: str
    workers: int
    parameter_servers: int
    gpu: tuple[str, int] | None  # the GPUs the master gets
    tpu: bool  # the tier comes with a Cloud TPU
    custom: bool


def schema_choices(gpu_types: Mapping[str, GpuType], python_versions: tuple[str, ...],
                   scale_tiers: Mapping[str, ScaleTier]) -> tuple[tuple[str, tuple[str, ...]],
                                                              ...]:
    """The value of ``Catalog.choices``."""
    return (("accelerator_types", tuple(gpu_types)), ("python_versions", python_versions),
            ("scale_tiers", tuple(scale_tiers)))


def _number(value: float) -> str:
    return f"{value:g}"


class Catalog(NamedTuple):
    service: str  # ai-platform
    service_name: str  # AI Platform Training, as messages name the service
    path: str  # the data file it was read from
    gpu_types: Mapping[str, GpuType]
    machine_types: Mapping[str, MachineType]  # Compute Engine, legacy and TPU machines
    scale_tiers: Mapping[str, ScaleTier]
    regions: Mapping[str, Mapping[str, frozenset[str]]]  # region -> zone -> GPU types
    runtime_versions: Mapping[str, tuple[str, ...]]  # runtime version -> Python versions
    python_versions: tuple[str, ...]  # every pythonVersion a job may name
    max_wait_minimum_s: int | None  # the least scheduling.maxWaitTime the service takes
    preferred_gpus: tuple[str, ...]  # what to use instead of a deprecated GPU
    example_machine_types: tuple[str, ...]  # Compute Engine types to name in advice
    sources: Mapping[str, Mapping[str, Any]]  # section -> {as_of, urls, notes}
    # the lists of names the job schema takes from this catalog (its x-catalog fields), by
    # name; hashable, so that a validator can be kept per catalog (``schema_choices``)
    choices: tuple[tuple[str, tuple[str, ...]], ...]
    # AI Platform's catalog is never refreshed: its data is its file's (``record.CatalogRecord``)
    refreshed: Mapping[str, Mapping[str, Any]] = {}
    document: Mapping[str, Any] | None = None

    # -- names ---------------------------------------------------------------------------------

    def find_gpu(self, text: str) -> GpuType | None:
        """A GPU by its API name (NVIDIA_TESLA_T4), gcloud name (nvidia-tesla-t4) or short
        name (T4), in any case."""
        wanted = text.strip().replace("-", "_").upper()
        for gpu in self.gpu_types.values():
            if wanted in (gpu.api_name, gpu.name.upper().replace(" ", "_")):
                return gpu
        return None

    def short(self, api_name: str) -> str:
        gpu = self.gpu_types.get(api_name)
        return gpu.name if gpu else api_name

    def compute_engine_types(self) -> list[MachineType]:
        return [m for m in self.machine_types.values() if m.category == "compute_engine"]

    def custom_tier(self) -> str:
        """The name of the tier whose cluster the config describes (CUSTOM)."""
        return next(t.name for t in self.scale_tiers.values() if t.custom)

    def training_tpus(self) -> list[GpuType]:
        """The TPU types a training job may attach."""
        return [g for g in self.gpu_types.values() if g.kind == "tpu" and not g.not_for_training]

    # -- GPUs on machine types -----------------------------------------------------------------

    def counts(self, machine: str, gpu: str) -> tuple[int, ...]:
        m = self.machine_types.get(machine)
        return m.gpus.get(gpu, ()) if m else ()

    def machines_for(self, gpu: str, count: int) -> list[str]:
        """Compute Engine machine types that take ``count`` GPUs of this type."""
        return [m.name for m in self.compute_engine_types() if count in m.gpus.get(gpu, ())]

    def hosts(self, gpu: str) -> list[MachineType]:
        """Compute Engine machine types with this GPU built in."""
        return [m for m in self.compute_engine_types() if m.built_in and m.built_in[0] == gpu]

    def explain(self, machine: str, gpu_name: str, count: int) -> str | None:
        """Why ``machine`` cannot take ``count`` of this GPU, by the vCPU/memory rule:
        "n1-standard-32 has 32 vCPUs and 120 GB; 2 × V100 support at most 24 vCPUs and 156 GB"."""
        gpu, m = self.gpu_types.get(gpu_name), self.machine_types.get(machine)
        if gpu is None or m is None:
            return None
        if count not in gpu.counts:
            return (f"{gpu.name} GPUs are attached {or_list(gpu.counts)} at a time, "
                    f"never {count}")
        limits = gpu.limits(count)
        if limits is None or m.vcpus is None or m.memory_gb is None:
            return None
        vcpus, memory = limits
        if m.vcpus <= vcpus and m.memory_gb <= memory:
            return None
        text = (f"{machine} has {m.vcpus} vCPUs and {_number(m.memory_gb)} GB; {count} × "
                f"{gpu.name} support at most {_number(vcpus)} vCPUs and {_number(memory)} GB")
        cap = next((c for c in gpu.caps if c.count == count), None)
        if cap is not None:
            text += f" ({cap.why})"
        return text

    # -- where ---------------------------------------------------------------------------------

    def region_gpus(self, region: str) -> set[str]:
        return set().union(*self.regions.get(region, {}).values())

    def zones_with(self, region: str, gpu: str) -> list[str]:
        return sorted(z for z, types in self.regions.get(region, {}).items() if gpu in types)

    def regions_with(self, gpu: str) -> list[str]:
        return [r for r in self.regions if gpu in self.region_gpus(r)]

    def gpu_regions(self) -> list[str]:
        return [r for r in self.regions if self.region_gpus(r)]
