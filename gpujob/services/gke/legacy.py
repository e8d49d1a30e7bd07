"""AI Platform's legacy machine types (standard_gpu, complex_model_m_gpu) on GKE. They are not
Compute Engine machine types, so ``gke.machine`` refuses them; its hint names the Compute
Engine machine type and GPUs Vertex AI translates each to. Those are Vertex AI's facts (its
catalog's ``legacy_machine_types``), found through the registry (``gpujob.catalog.load``), none
of its code; they are read only for a machine type GKE's catalog does not know."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpujob.config.job import Replica
    from gpujob.services.gke.catalog import GkeCatalog

VERTEX = "vertex"  # the registry's name of the service whose catalog has the translations


def _vertex() -> Any:
    from gpujob.catalog import load

    return load(VERTEX)


def hint(cat: GkeCatalog, r: Replica) -> str | None:
    """What to write instead of ``r``'s legacy machine type: what Vertex AI sends for it today
    (the replacement GPU once Vertex's support of the legacy one has ended); None if
    ``r.machine`` is no legacy GPU or CPU type, or GKE's catalog does not take that."""
    vertex = _vertex()
    legacy = vertex.legacy_machine_types.get(r.machine or "")
    if legacy is None or legacy.tpu:
        return None
    machine, accel = legacy.machine_type, legacy.accelerator
    info = vertex.accelerators.get(accel.type) if accel else None
    if legacy.after_end_of_support and info and info.end_of_support \
            and date.today() >= info.end_of_support:
        accel = legacy.after_end_of_support
    if cat.problem(machine, accel.type if accel else None, accel.count if accel else None):
        return None
    kind_type, kind_config = r.type_path[-1], r.config_path[-1]
    gpus = (f" with {kind_config}.acceleratorConfig {{count: {accel.count}, type: "
            f"{accel.type}}}" if accel else "")
    was = legacy.legacy_accelerator
    fewer = (f"; it had {was.count} × {was.type} built in" if was and accel
             and accel.count < was.count else "")
    return (f"{r.machine} is AI Platform's legacy machine type: on GKE give its Compute "
            f"Engine equivalent, {kind_type} {machine}{gpus} (what Vertex AI translates it "
            f"to{fewer})")
