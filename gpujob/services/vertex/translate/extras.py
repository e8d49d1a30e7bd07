"""What Vertex AI offers a job that AI Platform had no field for, set from the command line:
``--reservation NAME|any``, ``--persistent-resource-id``, ``--restart-job-on-worker-restart``,
``--disable-retries``, ``--tensorboard`` and ``--experiment``. Each becomes the field of the
CustomJobSpec the aiplatform v1 discovery document defines (``reservationAffinity`` in every
pool's ``machineSpec``; ``persistentResourceId``, ``tensorboard``, ``experiment``;
``scheduling.restartJobOnWorkerRestart`` and ``scheduling.disableRetries``), in the translation
of an AI Platform config (``apply``) and over a native config's own (``overrides``)."""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from gpujob.errors import UsageError
from gpujob.findings import JsonPath

ANY = "any"
# the ReservationAffinity key of a SPECIFIC_RESERVATION named by its resource name (the
# discovery document's text of ReservationAffinity.key)
SPECIFIC_KEY = "compute.googleapis.com/reservation-name"


class VertexExtras(NamedTuple):
    """The flags, as given (None / False: not given)."""

    reservation: str | None = None  # "any", or a reservation's (resource) name
    persistent_resource_id: str | None = None
    restart_job_on_worker_restart: bool = False
    disable_retries: bool = False
    tensorboard: str | None = None
    experiment: str | None = None

    def given(self) -> list[str]:
        """The flags given, by name."""
        return [flag for flag, value in zip(FLAGS, self, strict=True) if value]

    def spec_fields(self) -> dict[JsonPath, tuple[str, Any]]:
        """The CustomJobSpec's fields they set (but the pools' reservation): path -> (flag,
        value)."""
        return {path: (flag, value) for flag, value in zip(FLAGS, self, strict=True)
                if value and (path := FIELDS.get(flag)) is not None}

    def affinity(self) -> dict[str, Any] | None:
        """The ReservationAffinity of every pool (None: no --reservation)."""
        if not self.reservation:
            return None
        if self.reservation.lower() == ANY:
            return {"reservationAffinityType": "ANY_RESERVATION"}
        return {"reservationAffinityType": "SPECIFIC_RESERVATION", "key": SPECIFIC_KEY,
                "values": [self.reservation]}


# the fields of the CustomJobSpec each flag sets (--reservation: every pool's machineSpec's)
FIELDS: dict[str, JsonPath] = {
    "--persistent-resource-id": ("persistentResourceId",),
    "--restart-job-on-worker-restart": ("scheduling", "restartJobOnWorkerRestart"),
    "--disable-retries": ("scheduling", "disableRetries"),
    "--tensorboard": ("tensorboard",),
    "--experiment": ("experiment",),
}
RESERVATION = ("machineSpec", "reservationAffinity")  # in each pool
FLAGS = ("--reservation", "--persistent-resource-id", "--restart-job-on-worker-restart",
         "--disable-retries", "--tensorboard", "--experiment")


# the resource names the discovery document gives as the fields' format
NAMES = {"--tensorboard": ("projects/PROJECT/locations/REGION/tensorboards/ID",
                           r"projects/[^/]+/locations/[^/]+/tensorboards/[^/]+"),
         "--experiment": ("projects/PROJECT/locations/REGION/metadataStores/default/contexts/NAME",
                          r"projects/[^/]+/locations/[^/]+/metadataStores/[^/]+/contexts/[^/]+")}


def check_names(extras: VertexExtras | None) -> None:
    """``UsageError`` for a Tensorboard or an Experiment not named by its resource name."""
    for flag, (form, pattern) in NAMES.items():
        value = getattr(extras, flag.lstrip("-"), None)
        if value and not re.fullmatch(pattern, value):
            raise UsageError(f"{flag} {value}: Vertex AI takes the resource's full name, {form}",
                             f"e.g. {flag} {form.replace('NAME', value).replace('ID', value)}")


def of(params: dict[str, Any]) -> VertexExtras | None:
    """The flags click parsed (None: none was given)."""
    extras = VertexExtras(params.get("reservation") or None,
                          params.get("persistent_resource_id") or None,
                          bool(params.get("restart_job_on_worker_restart")),
                          bool(params.get("disable_retries")), params.get("tensorboard") or None,
                          params.get("experiment") or None)
    return extras if extras.given() else None


def apply(spec: dict[str, Any], extras: VertexExtras | None) -> list[tuple[JsonPath, str]]:
    """Write the flags' fields into ``spec`` (a CustomJobSpec); the paths written, in it, each
    with the flag that set it."""
    if extras is None:
        return []
    written = []
    for path, (flag, value) in extras.spec_fields().items():
        node = spec
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = value
        written.append((path, flag))
    affinity = extras.affinity()
    pools = spec.get("workerPoolSpecs")
    for i, pool in enumerate(pools if affinity and isinstance(pools, list) else []):
        machine = pool.get("machineSpec") if isinstance(pool, dict) else None
        if isinstance(machine, dict):
            machine["reservationAffinity"] = dict(affinity)  # type: ignore[arg-type]
            written.append((("workerPoolSpecs", i, *RESERVATION), "--reservation"))
    return written
