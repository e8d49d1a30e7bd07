"""The records of the Vertex AI catalog (``catalog.VertexCatalog`` holds them): accelerators,
machine types, AI Platform's machine types and scale tiers as Vertex takes them, prebuilt
images, and how Vertex schedules a job; read from ``catalog.json``'s sections."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from gpujob.tuples import NamedTuple


def region_of(zone: str) -> str:
    """A zone's region: ``us-central1-a`` -> ``us-central1``."""
    return zone.rsplit("-", 1)[0]


class Accelerator(NamedTuple):
    api_name: str  # NVIDIA_H100_80GB
    name: str  # H100
    kind: str  # gpu | tpu
    retired: str | None  # why Vertex no longer takes it (K80)
    end_of_support: date | None
    replacement: str | None  # what to use after end_of_support


class Machine(NamedTuple):
    name: str
    family: str
    accelerators: Mapping[str, tuple[int, ...]]  # accelerator type -> the counts it takes
    built_in: bool  # the accelerators come with the machine: state exactly them
    pod_count_multiple_of: int | None  # cloud-tpu: Pod slices of any multiple of this
    single_replica: bool  # a job on it is one pool with one replica (TPUs)
    tpu: str | None  # the TPU generation of a machine type set by tpuTopology


class Accel(NamedTuple):
    type: str
    count: int  # type: ignore[assignment]  # the field hides tuple.count


class Legacy(NamedTuple):
    """An AI Platform machine type and what gpujob sends to Vertex for it."""

    name: str
    machine_type: str
    accelerator: Accel | None
    legacy_accelerator: Accel | None  # what it had built in
    after_end_of_support: Accel | None
    ce_equivalent: str | None
    changed: str | None
    unverified: str | None
    tpu: bool


class TierPool(NamedTuple):
    count: int  # type: ignore[assignment]  # the field hides tuple.count
    legacy_machine_type: str | None
    machine_type: str | None
    accelerator: Accel | None


class Tier(NamedTuple):
    name: str
    pools: tuple[TierPool | None, ...]  # master, workers, parameter servers
    custom: bool
    untranslatable: str | None
    changed: str | None
    unverified: str | None


class Image(NamedTuple):
    name: str  # tf-gpu.2-11.py310
    framework: str
    version: str
    python: str
    accelerators: tuple[str, ...]  # cpu, gpu, tpu
    end_of_support: date | None  # None: not published yet (an image a refresh found)
    end_of_availability: date | None
    listed: date | None = None  # the day a refresh first found it in the registry

    def available(self, on: date) -> bool:
        """Usable for new jobs on that day: before its published end of availability (an
        image with none published yet is usable)."""
        return self.end_of_availability is None or on < self.end_of_availability

    def past_support(self, on: date) -> bool:
        return self.end_of_support is not None and on >= self.end_of_support

    @property
    def until(self) -> str:
        """Its end of availability, as messages say it."""
        return _shown(self.end_of_availability)

    @property
    def support_until(self) -> str:
        """Its end of support, as messages say it."""
        return _shown(self.end_of_support)


def _shown(day: date | None) -> str:
    return day.isoformat() if day else "a date not yet published"


class Scheduling(NamedTuple):
    """How Vertex AI schedules a job (the catalog's ``scheduling`` section)."""

    flex_start: str  # the strategy's name: FLEX_START
    flex_accelerators: tuple[str, ...]  # the GPUs the flex-start strategy takes
    flex_max_timeout_s: int
    flex_default_wait_s: int
    reservation_only: tuple[str, ...]  # GPUs whose capacity comes only through a reservation
    reservation_or_spot: tuple[str, ...]  # GPUs reservations or Spot usually give
    rdma: tuple[str, ...]  # GPUs whose machines have GPUDirect-RDMA
    rdma_setup: str  # what to run before the training command on them
    reservation_name: str  # the pattern of a reservation's resource name
    reservation_short_name: str | None = None  # of its NAME alone (None: not checked)
    persistent_resource_id: str | None = None  # of a persistent resource's ID (None: idem)
    default_timeout_s: int | None = None  # how long a job without scheduling.timeout runs at most


def scheduling(data: Mapping[str, Any] | None) -> Scheduling | None:
    if not data:
        return None
    flex, rdma, affinity = data["flex_start"], data["rdma"], data["reservation_affinity"]
    return Scheduling(flex["strategy"], tuple(flex["accelerators"]), flex["max_timeout_s"],
                      flex["default_max_wait_s"], tuple(data["reservation_only"]),
                      tuple(data["reservation_or_spot"]), tuple(rdma["accelerators"]),
                      rdma["setup"], affinity["name_pattern"],
                      affinity.get("short_name_pattern"),
                      (data.get("persistent_resource") or {}).get("id_pattern"),
                      data.get("default_timeout_s"))


def accel(value: Mapping[str, Any] | None) -> Accel | None:
    return Accel(value["type"], value["count"]) if value else None
