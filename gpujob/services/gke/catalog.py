"""GKE's catalog file (``catalog.json`` beside it, described by
``schemas/catalog.gke.schema.json``): the GPUs GKE names by the node label
``cloud.google.com/gke-accelerator``, Compute Engine's machine type × GPU × count table (GKE's
nodes are Compute Engine VMs), the TPU machine types and the slice topologies GKE offers on them
(``tpu``), and the AI Platform scale tiers that translate (CUSTOM)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from gpujob.services.gke import tpu
from gpujob.services.gke.tpu import TpuMachine

SERVICE = "gke"
LIVE = False  # its facts change with gpujob's releases
DATA_FILE = "catalog.json"
SCHEMA = "catalog.gke.schema.json"
NOUN = "GKE catalog"
EXPORT = "gpujob gpus --service gke --export-catalog"
INTEGRITY_HINT = ("define every GPU a machine type names in gpus.types, and make exactly one "
                  "scale tier custom: true")


class Gpu(NamedTuple):
    api_name: str  # NVIDIA_TESLA_T4, as configs name it
    name: str  # T4
    label: str  # nvidia-tesla-t4: the value of cloud.google.com/gke-accelerator


class Machine(NamedTuple):
    name: str
    family: str
    gpus: Mapping[str, tuple[int, ...]]  # GPU type -> the counts it takes
    built_in: bool  # the GPUs come with the machine type
    vcpus: int | None = None  # the machine's size (None: not in the catalog)
    memory_gib: float | None = None


class Tier(NamedTuple):
    name: str
    custom: bool
    refused: str | None  # why it does not translate


class GkeCatalog(NamedTuple):
    path: str
    gpus: Mapping[str, Gpu]
    machine_types: Mapping[str, Machine]
    scale_tiers: Mapping[str, Tier]
    sources: Mapping[str, Mapping[str, Any]]  # section -> {as_of, refs, notes}
    refreshed: Mapping[str, Mapping[str, Any]] = {}  # never refreshed: its file's data
    document: Mapping[str, Any] | None = None
    tpus: Mapping[str, TpuMachine] = {}  # TPU machine type -> its slices (``tpu``)
    # what each machine type's pods get, and the GPUDirect profiles (``pods``): the file's
    # pod_settings ({}: a catalog without them)
    pod_settings: Mapping[str, Any] = {}

    @property
    def service(self) -> str:
        return SERVICE

    @property
    def service_name(self) -> str:
        return "GKE"

    @property
    def choices(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """The lists of names the AI Platform job schema takes from this catalog (its
        x-catalog fields): the GPUs GKE names, and every scale tier (the rules say which
        translate)."""
        return (("accelerator_types", tuple(self.gpus)), ("scale_tiers", tuple(self.scale_tiers)))

    def find_gpu(self, text: str) -> Gpu | None:
        """A GPU by its API name (NVIDIA_TESLA_T4), node label (nvidia-tesla-t4) or short name
        (T4), in any case."""
        wanted = text.strip().replace("-", "_").upper()
        for gpu in self.gpus.values():
            if wanted in (gpu.api_name, gpu.name.upper().replace(" ", "_"),
                          gpu.label.replace("-", "_").upper()):
                return gpu
        return None

    def problem(self, machine: str, gpu: str | None, count: int | None) -> str | None:
        """Why no GKE node of ``machine`` has ``count`` × ``gpu`` (None: one can)."""
        m = self.machine_types.get(machine)
        if m is None:
            return f"{machine} is not a Compute Engine machine type gpujob knows for GKE nodes"
        if gpu is None:
            if m.built_in:
                built = ", ".join(f"{'/'.join(map(str, c))} × {g}" for g, c in m.gpus.items())
                return f"{machine} comes with {built}: state acceleratorConfig type and count"
            return None
        if gpu not in m.gpus:
            takes = ", ".join(m.gpus) or "no GPUs"
            return f"{machine} does not take {self.short(gpu)} GPUs (it takes {takes})"
        counts = m.gpus[gpu]
        if count not in counts:
            listed = ", ".join(map(str, counts))
            return f"{machine} takes {listed} × {self.short(gpu)}, not {count}"
        return None

    def short(self, gpu: str) -> str:
        found = self.gpus.get(gpu)
        return found.name if found else gpu


def build(data: dict[str, Any], path: str) -> GkeCatalog:
    """The record of a catalog file already checked against its schema and ``integrity``."""
    gpus = {k: Gpu(k, g["name"], g["label"]) for k, g in data["gpus"]["types"].items()}
    machines = {k: Machine(k, m["family"], {g: tuple(c) for g, c in m["gpus"].items()},
                           m.get("built_in", False), m.get("vcpus"), m.get("memory_gib"))
                for k, m in data["machine_types"]["types"].items()}
    tiers = {k: Tier(k, t.get("custom", False), t.get("refused"))
             for k, t in data["scale_tiers"]["tiers"].items()}
    sources = {k: v["source"] for k, v in data.items() if isinstance(v, dict) and "source" in v}
    return GkeCatalog(path, gpus, machines, tiers, sources, tpus=tpu.read(data),
                      pod_settings=data.get("pod_settings") or {})


def integrity(data: dict[str, Any]) -> list[str]:
    """Cross-references a JSON Schema cannot state: every GPU a machine type names is defined,
    one scale tier is the custom one."""
    known = set(data["gpus"]["types"])
    problems = [f"machine_types.types.{name}: unknown GPU type {g}"
                for name, m in data["machine_types"]["types"].items()
                for g in sorted(set(m["gpus"]) - known)]
    tiers = data["scale_tiers"]["tiers"].values()
    if sum(bool(t.get("custom")) for t in tiers) != 1:
        problems.append("scale_tiers.tiers: exactly one tier must be custom: true")
    pods = data.get("pod_settings") or {}
    for name, m in (pods.get("machines") or {}).items():
        if name not in data["machine_types"]["types"]:
            problems.append(f"pod_settings.machines.{name}: not a machine type of machine_types")
        if m.get("gpudirect") and m["gpudirect"] not in (pods.get("gpudirect") or {}):
            problems.append(f"pod_settings.machines.{name}: unknown GPUDirect profile "
                            f"{m['gpudirect']}")
    return problems + tpu.integrity(data)
