"""AI Platform Training's catalog file (``catalog.json`` beside it, described by
``schemas/catalog.ai-platform.schema.json``) read into the catalog's records."""

from __future__ import annotations

from typing import Any

from gpujob.services.ai_platform.records import (
    Cap,
    Catalog,
    GpuType,
    MachineType,
    ScaleTier,
    schema_choices,
)

SERVICE = "ai-platform"
LIVE = False  # nothing of it is refreshed: the service is shut down
DATA_FILE = "catalog.json"
SCHEMA = "catalog.ai-platform.schema.json"
NOUN = "catalog"
EXPORT = "gpujob gpus --service ai-platform --export-catalog"  # vertex is the default
INTEGRITY_HINT = ("define every GPU type in gpu_types, every machine type in machine_types and "
                  "every Python version in runtime_versions.python_versions")


def _built_in(entry: dict[str, Any]) -> tuple[str, int] | None:
    built = entry.get("built_in")
    return (built["type"], built["count"]) if built else None


def _gpu_types(section: dict[str, Any]) -> dict[str, GpuType]:
    return {api_name: GpuType(
        api_name=api_name, name=g["name"], kind=g.get("kind", "gpu"),
        counts=tuple(g["counts"]), vcpus_per_gpu=g.get("vcpus_per_gpu"),
        memory_gb_per_gpu=g.get("memory_gb_per_gpu"),
        caps=tuple(Cap(c["count"], c.get("max_vcpus"), c.get("max_memory_gb"), c["why"])
                   for c in g.get("caps", [])),
        built_in_only=g.get("built_in_only", False), deprecated=g.get("deprecated"),
        not_for_training=g.get("not_for_training")) for api_name, g in section["types"].items()}


def _machine_types(data: dict[str, Any]) -> dict[str, MachineType]:
    machines = {name: MachineType(name, "compute_engine", m["family"], m["vcpus"],
                                  m["memory_gb"], {g: tuple(c) for g, c in m["gpus"].items()},
                                  _built_in(m))
                for name, m in data["machine_types"]["types"].items()}
    for name, m in data["legacy_machine_types"]["types"].items():
        machines[name] = MachineType(name, "tpu" if m.get("tpu") else "legacy", None, None,
                                     None, {}, _built_in(m))
    return machines


def _scale_tiers(section: dict[str, Any]) -> dict[str, ScaleTier]:
    return {name: ScaleTier(name, t["description"], t.get("workers", 0),
                            t.get("parameter_servers", 0), _built_in({"built_in": t.get("gpu")}),
                            t.get("tpu", False), t.get("custom", False))
            for name, t in section["tiers"].items()}


def build(data: dict[str, Any], path: str) -> Catalog:
    """The records of a catalog file already checked against its schema and ``integrity``."""
    runtimes = data["runtime_versions"]
    gpus, tiers = _gpu_types(data["gpu_types"]), _scale_tiers(data["scale_tiers"])
    python = tuple(runtimes["python_versions"])
    return Catalog(
        service=data["service"], service_name=data["service_name"], path=path,
        gpu_types=gpus, machine_types=_machine_types(data), scale_tiers=tiers,
        regions={r: {z: frozenset(t) for z, t in v["zones"].items()}
                 for r, v in data["regions"]["regions"].items()},
        runtime_versions={v: tuple(d["python"]) for v, d in runtimes["versions"].items()},
        python_versions=python,
        max_wait_minimum_s=data["scheduling"]["max_wait_time_minimum_s"],
        preferred_gpus=tuple(data["suggestions"]["preferred_gpus"]),
        example_machine_types=tuple(data["suggestions"]["machine_types"]),
        sources={k: v["source"] for k, v in data.items() if isinstance(v, dict) and "source" in v},
        choices=schema_choices(gpus, python, tiers))


def integrity(data: dict[str, Any]) -> list[str]:
    """Cross-references a JSON Schema cannot state: every GPU type and machine type named is
    defined, every zone lies in its region, one scale tier is the custom one."""
    known = set(data["gpu_types"]["types"])
    problems = []
    for section in ("machine_types", "legacy_machine_types"):
        for name, m in data[section]["types"].items():
            named = set(m.get("gpus", {}))
            if m.get("built_in"):
                named.add(m["built_in"]["type"])
            problems += [f"{section}.types.{name}: unknown GPU type {g}" for g in
                         sorted(named - known)]
    tiers = data["scale_tiers"]["tiers"]
    for tier, t in tiers.items():
        if t.get("gpu") and t["gpu"]["type"] not in known:
            problems.append(f"scale_tiers.tiers.{tier}: unknown GPU type {t['gpu']['type']}")
    if sum(bool(t.get("custom")) for t in tiers.values()) != 1:
        problems.append("scale_tiers.tiers: exactly one tier must be custom: true")
    for region, r in data["regions"]["regions"].items():
        for zone, types in r["zones"].items():
            if zone.rsplit("-", 1)[0] != region:
                problems.append(f"regions.regions.{region}: zone {zone} is not in {region}")
            problems += [f"regions.regions.{region}.zones.{zone}: unknown GPU type {g}"
                         for g in types if g not in known]
    python = set(data["runtime_versions"]["python_versions"])
    for version, v in data["runtime_versions"]["versions"].items():
        problems += [f"runtime_versions.versions.{version}: Python {p} is not in python_versions"
                     for p in v["python"] if p not in python]
    suggested = data["suggestions"]
    problems += [f"suggestions.preferred_gpus: unknown GPU type {g}"
                 for g in suggested["preferred_gpus"] if g not in known]
    problems += [f"suggestions.machine_types: unknown machine type {m}"
                 for m in suggested["machine_types"] if m not in data["machine_types"]["types"]]
    return problems
