"""The compatibility catalog: ``catalog.json`` (the facts, with sources and dates) and typed
queries over it. Every compatibility fact lives in the data; this module only reads it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any, Literal, NamedTuple

from gpujob.suggest import or_list

BUILT_IN = Path(__file__).resolve().parent / "catalog.json"
CATALOG_SCHEMA = "catalog.schema.json"

Category = Literal["compute_engine", "legacy", "tpu"]


# NamedTuples, not dataclasses: ``gpujob validate`` loads this module on every run, and a
# dataclass costs about a millisecond to create.

class Cap(NamedTuple):
    """An extra limit on a GPU count (8 × K80: at most 208 GB of machine memory)."""

    count: int
    max_vcpus: float | None
    max_memory_gb: float | None
    why: str


class GpuType(NamedTuple):
    api_name: str  # NVIDIA_TESLA_T4
    name: str  # T4
    kind: Literal["gpu", "tpu"]
    counts: tuple[int, ...]
    vcpus_per_gpu: float | None
    memory_gb_per_gpu: float | None
    caps: tuple[Cap, ...]
    built_in_only: bool
    deprecated: str | None
    not_for_training: str | None

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
    built_in: tuple[str, int] | None  # GPUs that come with the machine (legacy GPU types, a2)


def _number(value: float) -> str:
    return f"{value:g}"


class Catalog(NamedTuple):
    path: str
    gpu_types: Mapping[str, GpuType]
    machine_types: Mapping[str, MachineType]  # Compute Engine, legacy and cloud_tpu
    scale_tiers: Mapping[str, Mapping[str, Any]]
    regions: Mapping[str, Mapping[str, frozenset[str]]]  # region -> zone -> GPU types
    runtime_versions: Mapping[str, tuple[str, ...]]  # runtime version -> Python versions
    sources: Mapping[str, Mapping[str, Any]]  # section -> {as_of, urls, notes}

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

    # -- GPUs on machine types -----------------------------------------------------------------

    def counts(self, machine: str, gpu: str) -> tuple[int, ...]:
        m = self.machine_types.get(machine)
        return m.gpus.get(gpu, ()) if m else ()

    def machines_for(self, gpu: str, count: int) -> list[str]:
        """Compute Engine machine types that take ``count`` GPUs of this type."""
        return [m.name for m in self.compute_engine_types() if count in m.gpus.get(gpu, ())]

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


def _build(data: dict[str, Any], path: str) -> Catalog:
    gpus = {}
    for api_name, g in data["gpu_types"]["types"].items():
        gpus[api_name] = GpuType(
            api_name=api_name, name=g["name"], kind=g.get("kind", "gpu"),
            counts=tuple(g["counts"]), vcpus_per_gpu=g.get("vcpus_per_gpu"),
            memory_gb_per_gpu=g.get("memory_gb_per_gpu"),
            caps=tuple(Cap(c["count"], c.get("max_vcpus"), c.get("max_memory_gb"), c["why"])
                       for c in g.get("caps", [])),
            built_in_only=g.get("built_in_only", False), deprecated=g.get("deprecated"),
            not_for_training=g.get("not_for_training"))
    machines: dict[str, MachineType] = {}
    for name, m in data["machine_types"]["types"].items():
        built = m.get("built_in")
        machines[name] = MachineType(
            name, "compute_engine", m["family"], m["vcpus"], m["memory_gb"],
            {g: tuple(c) for g, c in m["gpus"].items()},
            (built["type"], built["count"]) if built else None)
    for name, m in data["legacy_machine_types"]["types"].items():
        built = m.get("built_in")
        machines[name] = MachineType(
            name, "tpu" if m.get("tpu") else "legacy", None, None, None, {},
            (built["type"], built["count"]) if built else None)
    return Catalog(
        path=path, gpu_types=gpus, machine_types=machines,
        scale_tiers=data["scale_tiers"]["tiers"],
        regions={r: {z: frozenset(t) for z, t in v["zones"].items()}
                 for r, v in data["regions"]["regions"].items()},
        runtime_versions={v: tuple(d["python"])
                          for v, d in data["runtime_versions"]["versions"].items()},
        sources={k: v["source"] for k, v in data.items() if isinstance(v, dict) and "source" in v})


def integrity(data: dict[str, Any]) -> list[str]:
    """Cross-references a JSON Schema cannot state: every GPU type named is defined, every zone
    lies in its region."""
    known = set(data["gpu_types"]["types"])
    problems = []
    for section in ("machine_types", "legacy_machine_types"):
        for name, m in data[section]["types"].items():
            named = set(m.get("gpus", {}))
            if m.get("built_in"):
                named.add(m["built_in"]["type"])
            problems += [f"{section}.types.{name}: unknown GPU type {g}" for g in
                         sorted(named - known)]
    for tier, t in data["scale_tiers"]["tiers"].items():
        if t.get("gpu") and t["gpu"]["type"] not in known:
            problems.append(f"scale_tiers.tiers.{tier}: unknown GPU type {t['gpu']['type']}")
    for region, r in data["regions"]["regions"].items():
        for zone, types in r["zones"].items():
            if zone.rsplit("-", 1)[0] != region:
                problems.append(f"regions.regions.{region}: zone {zone} is not in {region}")
            problems += [f"regions.regions.{region}.zones.{zone}: unknown GPU type {g}"
                         for g in types if g not in known]
    return problems


@cache
def load(path: str | None = None) -> Catalog:
    """The built-in catalog, or the one at ``path`` (YAML or JSON), checked against
    ``schemas/catalog.schema.json``. A bad file raises ``UsageError`` listing its problems."""
    if path is None:
        with BUILT_IN.open(encoding="utf-8") as fh:
            return _build(json.load(fh), str(BUILT_IN))
    return _build(_read_user_catalog(path), path)


def _read_user_catalog(path: str) -> dict[str, Any]:
    from gpujob import schema
    from gpujob.config.load import load_file
    from gpujob.errors import UsageError
    from gpujob.report import finding_line

    loaded = load_file(path)
    findings = list(loaded.findings)
    if loaded.document is not None:
        findings += schema.check(loaded.document, CATALOG_SCHEMA)
    if not findings and loaded.document is not None:
        problems = integrity(loaded.document.data)
        if problems:
            raise UsageError(f"--catalog {path}: {problems[0]}" + (
                f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""),
                "every GPU type a machine, tier or zone names must be defined in gpu_types")
        return loaded.document.data
    details = "\n".join(finding_line(f) for f in findings if f.is_error)
    raise UsageError(f"--catalog {path} is not a valid catalog:\n{details}",
                     "start from gpujob's own (`gpujob gpus --catalog-path` prints where it is) "
                     "and keep its shape: schemas/catalog.schema.json")
