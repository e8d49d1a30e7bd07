"""What Vertex AI offers a job that AI Platform had no field for, set from the command line:
``--reservation NAME|any``, ``--persistent-resource-id``, ``--restart-job-on-worker-restart``,
``--disable-retries``, ``--tensorboard`` and ``--experiment``. Each becomes the field of the
CustomJobSpec the aiplatform v1 discovery document defines (``reservationAffinity`` in every
pool's ``machineSpec``; ``persistentResourceId``, ``tensorboard``, ``experiment``;
``scheduling.restartJobOnWorkerRestart`` and ``scheduling.disableRetries``), in the translation
of an AI Platform config (``apply``) and over a native config's own (``overrides``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from gpujob.findings import JsonPath
from gpujob.services.flags import ServiceFlag

if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from gpujob.tuples import NamedTuple

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


def _named(flag: str, form: str, pattern: str) -> Callable[[str], tuple[str, str] | None]:
    """A check that the value is a resource's full name, in the format the discovery document
    gives the field."""

    def check(value: str) -> tuple[str, str] | None:
        if re.fullmatch(pattern, value):
            return None
        return (f"Vertex AI takes the resource's full name, {form}",
                f"e.g. {flag} {form.replace('NAME', value).replace('ID', value)}")

    return check


def _facts(key: str) -> str | None:
    """A pattern of the built-in catalog's ``scheduling`` section (read when a flag that needs
    it is given, never at start-up); None where it has none."""
    from gpujob.catalog import files
    from gpujob.services.vertex import catalog as vertex_data
    from gpujob.services.vertex.records import scheduling

    facts = scheduling(files.built_in_data(vertex_data).get("scheduling"))
    return getattr(facts, key) if facts is not None else None


def _reservation(value: str) -> tuple[str, str] | None:
    """--reservation: ``any``, a reservation's NAME, or its resource name (Compute Engine's
    names: DISC-CE's Reservation.name; the catalog's ``reservation_affinity``)."""
    full, short = _facts("reservation_name"), _facts("reservation_short_name")
    if value.lower() == ANY or (full and re.fullmatch(full, value)) or (
            short and re.fullmatch(short, value)) or not (full and short):
        return None
    return ("not a reservation: give its resource name, projects/PROJECT/zones/ZONE/"
            "reservations/NAME (NAME: up to 63 lowercase letters, digits and hyphens, starting "
            "with a letter), or any",
            "`gcloud compute reservations list --project PROJECT` lists them; e.g. "
            "--reservation projects/PROJECT/zones/us-central1-a/reservations/NAME")


def _persistent_resource(value: str) -> tuple[str, str] | None:
    """--persistent-resource-id: the ID alone, in the format persistentResources.create
    gives it (DISC; the catalog's ``persistent_resource``)."""
    pattern = _facts("persistent_resource_id")
    if pattern is None or re.fullmatch(pattern, value):
        return None
    named = re.fullmatch(r"projects/[^/]+/locations/[^/]+/persistentResources/([^/]+)", value)
    example = named[1] if named and re.fullmatch(pattern, named[1]) else "ID"
    return ("not a persistent resource's ID: up to 63 lowercase letters, digits and hyphens, "
            "starting with a letter and not ending with a hyphen",
            f"give the ID alone, e.g. --persistent-resource-id {example} (`gcloud ai "
            "persistent-resources list --region REGION` lists them)")


# the flags, as the command line adds them (``Service.flags``); their values reach the service
# in ``JobOptions.extra``
SERVICE_FLAGS = (
    ServiceFlag("--reservation", "Draw every pool's machines from this Compute Engine "
                "reservation (projects/P/zones/Z/reservations/NAME), or from any matching one "
                "(any). The machines must match it exactly.", metavar="NAME|any", scope="checks",
                check=_reservation),
    ServiceFlag("--persistent-resource-id", "Run on the machines of this persistent resource "
                "(same project and region).", metavar="ID", scope="checks",
                check=_persistent_resource),
    ServiceFlag("--restart-job-on-worker-restart", "Restart the whole job when a worker "
                "restarts.", switch=True, scope="checks"),
    ServiceFlag("--disable-retries", "Do not retry the job after internal errors once it runs.",
                switch=True, scope="checks"),
    ServiceFlag("--tensorboard", "The Tensorboard resource the job's logs go to "
                "(projects/P/locations/REGION/tensorboards/ID).", metavar="NAME", scope="checks",
                check=_named("--tensorboard", "projects/PROJECT/locations/REGION/tensorboards/ID",
                             r"projects/[^/]+/locations/[^/]+/tensorboards/[^/]+")),
    ServiceFlag("--experiment", "The Experiment the job belongs to (projects/P/locations/"
                "REGION/metadataStores/default/contexts/NAME).", metavar="NAME", scope="checks",
                check=_named("--experiment", "projects/PROJECT/locations/REGION/metadataStores/"
                             "default/contexts/NAME", r"projects/[^/]+/locations/[^/]+/"
                             r"metadataStores/[^/]+/contexts/[^/]+")),
)


def of(extra: Iterable[tuple[str, str]]) -> VertexExtras | None:
    """The flags given, from ``JobOptions.extra`` (None: none was given)."""
    given = dict(extra)
    extras = VertexExtras(given.get("--reservation"), given.get("--persistent-resource-id"),
                          "--restart-job-on-worker-restart" in given,
                          "--disable-retries" in given, given.get("--tensorboard"),
                          given.get("--experiment"))
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
            node = node.setdefault(str(key), {})
        node[str(path[-1])] = value
        written.append((path, flag))
    affinity = extras.affinity()
    pools = spec.get("workerPoolSpecs")
    for i, pool in enumerate(pools if affinity and isinstance(pools, list) else []):
        machine = pool.get("machineSpec") if isinstance(pool, dict) else None
        if isinstance(machine, dict):
            machine["reservationAffinity"] = dict(affinity)  # type: ignore[arg-type]
            written.append((("workerPoolSpecs", i, *RESERVATION), "--reservation"))
    return written
