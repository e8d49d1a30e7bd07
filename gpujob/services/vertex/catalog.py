"""The Vertex AI catalog: ``catalog.json`` beside it (the facts, with sources and dates) read into
``VertexCatalog`` (its records are ``records``), the queries over it for the rules and the
AI Platform -> Vertex translator, and the checks of a --catalog file. Every fact lives in the
data; this module only reads it."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import TYPE_CHECKING, Any

from gpujob.services.vertex.records import (
    Accelerator,
    Image,
    Legacy,
    Machine,
    Scheduling,
    Tier,
    TierPool,
    accel,
    region_of,
    scheduling,
)
from gpujob.suggest import or_list, same_name

if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from gpujob.tuples import NamedTuple

SERVICE = "vertex"
LIVE = True  # ``gpujob catalog refresh`` reads its zones and images from Google (``overlay``)
DATA_FILE = "catalog.json"
SCHEMA = "vertex-catalog.schema.json"
NOUN = "Vertex catalog"
EXPORT = "gpujob gpus --service vertex --export-catalog"
INTEGRITY_HINT = "every accelerator, machine type and source a section names must be defined"


class VertexCatalog(NamedTuple):
    path: str
    accelerators: Mapping[str, Accelerator]
    machine_types: Mapping[str, Machine]
    training_regions: tuple[str, ...]
    endpoint_only_regions: tuple[str, ...]
    gpu_zones: Mapping[str, tuple[int, tuple[str, ...]]]  # type -> (max count, zones) (proxy)
    machine_zones: Mapping[str, tuple[str, ...]]  # GPU machine type -> zones (proxy)
    images: Mapping[str, Image]
    registries: tuple[str, ...]
    tag: str
    prebuilt_markers: tuple[str, ...]
    registry_by_region_prefix: Mapping[str, str]
    runtime_framework: str
    legacy_default_python: str
    legacy_machine_types: Mapping[str, Legacy]
    scale_tiers: Mapping[str, Tier]
    legacy_accelerators: Mapping[str, Mapping[str, str]]  # type -> {why, suggest}
    sources: Mapping[str, Mapping[str, Any]]  # section -> {as_of, refs, urls, notes}
    retired_registries: tuple[str, ...] = ()  # where older samples name the prebuilt images
    refreshed: Mapping[str, Mapping[str, Any]] = {}  # part -> {as_of, read, from, file}
    document: Mapping[str, Any] | None = None  # the merged data, when parts were refreshed
    scheduling: Scheduling | None = None  # None: a catalog without the section (not checked)
    quota: Mapping[str, Any] | None = None  # the quota metrics a job draws on (preflight)
    recovery: Mapping[str, Any] | None = None  # how a failed job ended (--recover)
    aliases: Mapping[str, str] = {}  # another name people write for a type -> the type

    @property
    def service(self) -> str:
        return SERVICE

    @property
    def service_name(self) -> str:
        """As messages name the service."""
        return "Vertex AI custom training"

    @property
    def choices(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """The lists of names the AI Platform job schema takes from this catalog (its x-catalog
        fields): Vertex's accelerator names, and the AI Platform ones it refuses with a way
        forward (K80, TPU Pods: the translation says what to use instead), and the scale tiers
        it translates. Python versions are the translation's to judge."""
        accelerators = tuple(self.accelerators) + tuple(
            a for a in self.legacy_accelerators if a not in self.accelerators)
        return (("accelerator_types", accelerators), ("scale_tiers", tuple(self.scale_tiers)))

    # -- machine x accelerator x count -------------------------------------------------------

    def counts(self, machine: str, accelerator: str) -> tuple[int, ...]:
        m = self.machine_types.get(machine)
        return m.accelerators.get(accelerator, ()) if m else ()

    def problem(self, machine: str, accelerator: str | None, count: int | None) -> str | None:
        """Why Vertex would refuse this machine with these accelerators (None: it takes them).
        TPU machine types set by tpuTopology are not judged on their accelerator type."""
        m = self.machine_types.get(machine)
        if m is None:
            return f"{machine} is not a machine type Vertex AI custom training offers"
        if accelerator is None and not count:
            if m.built_in:
                built = ", ".join(f"{or_list(c)} × {a}" for a, c in m.accelerators.items())
                return f"{machine} comes with {built}: state acceleratorType and acceleratorCount"
            return None
        if accelerator is None or not count:
            return "acceleratorType and acceleratorCount go together: set both or neither"
        acc = self.accelerators.get(accelerator)
        if acc is not None and acc.retired:
            return f"{accelerator}: {acc.retired}"
        if m.tpu is not None and acc is not None and acc.kind == "tpu":
            return None
        allowed = m.accelerators.get(accelerator)
        if not allowed:
            takers = self.machines_for(accelerator)
            if not m.accelerators:
                return f"{machine} takes no accelerators"
            return (f"{machine} does not take {accelerator}"
                    + (f" (machine types that do: {', '.join(takers[:6])}"
                       f"{' …' if len(takers) > 6 else ''})" if takers else ""))
        if count in allowed or (m.pod_count_multiple_of and count > 0
                                and count % m.pod_count_multiple_of == 0):
            return None
        pods = (f", or a multiple of {m.pod_count_multiple_of}" if m.pod_count_multiple_of
                else "")
        return f"{machine} takes {or_list(allowed)}{pods} × {accelerator}, not {count}"

    def accepts(self, machine: str, accelerator: str | None, count: int | None) -> bool:
        return self.problem(machine, accelerator, count) is None

    def machines_for(self, accelerator: str) -> list[str]:
        return [m.name for m in self.machine_types.values() if accelerator in m.accelerators]

    def find_gpu(self, text: str) -> Accelerator | None:
        """An accelerator by any name people write for it: its API name (NVIDIA_H100_80GB), its
        short name (H100, 'H100 Mega') or an alias (H100-80GB, nvidia-tesla-l4), in any case and
        with any separators (spaces, ``-``, ``_``)."""
        names = {n.replace(" ", ""): a.api_name for a in self.accelerators.values()
                 for n in (a.api_name, a.name)}
        names.update({alias.replace(" ", ""): api_name for alias, api_name in self.aliases.items()
                      if api_name in self.accelerators})
        found = same_name(text.replace(" ", ""), list(names))
        return self.accelerators[names[found]] if found is not None else None

    # -- where (Compute Engine zones: a proxy) -------------------------------------------------

    def zones_for(self, machine: str, accelerator: str | None = None) -> tuple[str, ...] | None:
        """The zones that list this machine type (a GPU machine type), or this GPU (one attached
        to N1); None where the proxy has no data for it (CPU machines, a4x, g4)."""
        if machine in self.machine_zones:
            return self.machine_zones[machine]
        m = self.machine_types.get(machine)
        if m is not None and not m.built_in and accelerator is not None \
                and accelerator in self.gpu_zones:
            return self.gpu_zones[accelerator][1]
        return None

    def regions_for(self, machine: str, accelerator: str | None = None) -> list[str] | None:
        zones = self.zones_for(machine, accelerator)
        if zones is None:
            return None
        return sorted(set(map(region_of, zones)))

    def is_training_region(self, region: str) -> bool:
        return region in self.training_regions

    # -- images --------------------------------------------------------------------------------

    def is_prebuilt(self, uri: str) -> bool:
        """A Vertex prebuilt executor image, by the Vertex SDK's test."""
        return any(marker in uri for marker in self.prebuilt_markers)

    def retired_registry(self, uri: str) -> str | None:
        """The retired registry ``uri`` names a prebuilt image under, if any."""
        return next((r for r in self.retired_registries if uri.startswith(r + "/")), None)

    def image_of(self, uri: str) -> Image | None:
        """The catalog's image behind a prebuilt URI (any registry, a retired one too, any
        tag)."""
        for registry in (*self.registries, *self.retired_registries):
            if uri.startswith(registry + "/"):
                name = uri[len(registry) + 1:].split("@", 1)[0].split(":", 1)[0]
                return self.images.get(name)
        return None

    def still_available(self, image: Image, today: date) -> list[str]:
        """The images of ``image``'s framework and device (``pytorch-gpu``) still available
        ``today``, the longest-lived first."""
        family = image.name.split(".", 1)[0]
        return [i.name for i in sorted(self.images.values(), reverse=True,
                                       key=lambda i: i.end_of_availability or date.max)
                if i.name.split(".", 1)[0] == family and i.available(today)]

    def image_uri(self, image: Image, region: str | None) -> str:
        registry = self.registries[0]
        for prefix, reg in self.registry_by_region_prefix.items():
            if region and region.startswith(prefix):
                registry = reg
                break
        return f"{registry}/{image.name}:{self.tag}"

    def runtime_images(self, version: str) -> list[Image]:
        """The images of the runtime framework with this version number."""
        return [i for i in self.images.values()
                if i.framework == self.runtime_framework and i.version == version]

    def runtime_image(self, version: str, python: str | None, kind: str) -> Image | None:
        """The image an AI Platform runtimeVersion maps to, for a job on ``kind`` (cpu, gpu,
        tpu); without pythonVersion, the legacy default Python where such an image exists,
        else the only one."""
        found = [i for i in self.runtime_images(version) if kind in i.accelerators]
        if python is not None:
            found = [i for i in found if i.python == python]
        elif len({i.python for i in found}) > 1:
            found = [i for i in found if i.python == self.legacy_default_python] or []
        return found[0] if len(found) == 1 else None


def build(data: dict[str, Any], path: str) -> VertexCatalog:
    accs = {name: Accelerator(name, a["name"], a["kind"], a.get("retired"),
                              date.fromisoformat(a["end_of_support"])
                              if "end_of_support" in a else None, a.get("replacement"))
            for name, a in data["accelerator_types"]["types"].items()}
    machines = {name: Machine(name, m["family"],
                              {a: tuple(c) for a, c in m["accelerators"].items()},
                              m.get("built_in", False), m.get("pod_count_multiple_of"),
                              m.get("single_replica", False), m.get("tpu"))
                for name, m in data["machine_types"]["types"].items()}
    imgs = data["prebuilt_images"]
    images = {name: Image(name, i["framework"], i["version"], i["python"],
                          tuple(i["accelerators"]), _date(i.get("end_of_support")),
                          _date(i.get("end_of_availability")), _date(i.get("listed")))
              for name, i in imgs["images"].items()}
    legacy = {name: Legacy(name, m["machine_type"], accel(m.get("accelerator")),
                           accel(m.get("legacy_accelerator")),
                           accel(m.get("after_end_of_support")), m.get("ce_equivalent"),
                           m.get("changed"), m.get("unverified"), m.get("tpu", False))
              for name, m in data["legacy_machine_types"]["types"].items()}
    tiers = {}
    for name, t in data["scale_tiers"]["tiers"].items():
        pools = tuple(
            TierPool(p.get("count", 1), p.get("legacy_machine_type"), p.get("machine_type"),
                     accel(p.get("accelerator"))) if p else None
            for p in (t.get("master"), t.get("workers"), t.get("parameter_servers")))
        tiers[name] = Tier(name, pools, t.get("custom", False), t.get("untranslatable"),
                           t.get("changed"), t.get("unverified"))
    zones = data["zones"]
    return VertexCatalog(
        path=path, accelerators=accs, machine_types=machines,
        training_regions=tuple(data["training_regions"]["regions"]),
        endpoint_only_regions=tuple(data["training_regions"].get("endpoint_only", [])),
        gpu_zones={a: (g["max_count"], tuple(g["zones"])) for a, g in zones["gpus"].items()},
        machine_zones={m: tuple(z) for m, z in zones["machine_types"].items()},
        images=images, registries=tuple(imgs["registries"]), tag=imgs["tag"],
        prebuilt_markers=tuple(imgs["prebuilt_markers"]),
        registry_by_region_prefix=imgs["registry_by_region_prefix"],
        runtime_framework=data["runtime_versions"]["framework"],
        legacy_default_python=data["runtime_versions"]["legacy_default_python"],
        legacy_machine_types=legacy, scale_tiers=tiers,
        legacy_accelerators=data["legacy_accelerators"]["types"],
        sources={k: v["source"] for k, v in data.items() if isinstance(v, dict) and "source" in v},
        retired_registries=tuple(imgs.get("retired_registries", ())),
        refreshed=data.get("refreshed", {}),
        scheduling=scheduling(data.get("scheduling")),
        quota=data.get("quota"),
        recovery=data.get("recovery"),
        aliases={alias: name for name, a in data["accelerator_types"]["types"].items()
                 for alias in a.get("aliases", ())})


def _date(text: str | None) -> date | None:
    return date.fromisoformat(text) if text else None


def integrity(data: dict[str, Any]) -> list[str]:
    """Cross-references a JSON Schema cannot state: every accelerator, machine type, legacy type
    and source named is defined, and every translation lands on a cell Vertex accepts."""
    cat = build(data, "<check>")
    problems = [f"{section}.source.refs: unknown source {ref}"
                for section, s in cat.sources.items() for ref in s["refs"]
                if ref not in data["source_key"]]
    for m in cat.machine_types.values():
        problems += [f"machine_types.types.{m.name}: unknown accelerator type {a}"
                     for a in m.accelerators if a not in cat.accelerators]
    for a in [*cat.gpu_zones, *data["zones"].get("catalog_names", {}).values(),
              *data["zones"].get("compute_names", {}).values()]:
        if a not in cat.accelerators:
            problems.append(f"zones: unknown accelerator type {a}")
    problems += [f"zones.machine_types: unknown machine type {m}"
                 for m in cat.machine_zones if m not in cat.machine_types]
    for name, legacy in cat.legacy_machine_types.items():
        for given in (legacy.accelerator, legacy.after_end_of_support):
            why = cat.problem(legacy.machine_type, *(given or (None, None)))
            if why:
                problems.append(f"legacy_machine_types.types.{name}: {why}")
    for tier in cat.scale_tiers.values():
        for pool in filter(None, tier.pools):
            if pool.legacy_machine_type and pool.legacy_machine_type not in \
                    cat.legacy_machine_types:
                problems.append(f"scale_tiers.tiers.{tier.name}: unknown legacy machine type "
                                f"{pool.legacy_machine_type}")
            if pool.machine_type:
                why = cat.problem(pool.machine_type, *(pool.accelerator or (None, None)))
                if why:
                    problems.append(f"scale_tiers.tiers.{tier.name}: {why}")
    for name, acc in cat.accelerators.items():
        if acc.replacement and acc.replacement not in cat.accelerators:
            problems.append(f"accelerator_types.types.{name}: unknown replacement")
    problems += [f"legacy_accelerators.types.{name}: unknown accelerator type {t['suggest']}"
                 for name, t in cat.legacy_accelerators.items()
                 if t["suggest"] not in cat.accelerators]
    sched = cat.scheduling
    if sched is not None:
        named = (*sched.flex_accelerators, *sched.reservation_only, *sched.reservation_or_spot,
                 *sched.rdma)
        problems += [f"scheduling: unknown accelerator type {a}" for a in named
                     if a not in cat.accelerators]
    return problems
