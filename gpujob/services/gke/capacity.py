"""Capacity as GKE gives it (sources: https://cloud.google.com/kubernetes-engine/docs/concepts/spot-vms,
https://cloud.google.com/kubernetes-engine/docs/concepts/dws, JobSet's failure policy
https://jobset.sigs.k8s.io/docs/concepts/, Kueue's provisioning request admission check
https://kueue.sigs.k8s.io/docs/admission-check-controllers/provisioning/; docs/gke.md):

- ``--strategy spot``: the Spot node selector, tolerations of the Spot taint GKE's docs suggest
  for Spot pools and of ``cloud.google.com/impending-node-termination`` (the recipes'), and a
  failure policy that restarts the JobSet after a preemption or node disruption without
  spending the restarts a failure gets: each Job fails at once, with reason
  ``PodFailurePolicy``, when a pod is lost with the ``DisruptionTarget`` condition Kubernetes
  gives a pod of a node that shuts down or goes away, and the JobSet's rule restarts it with
  ``RestartJobSetAndIgnoreMaxRestarts`` (JobSet's own host-maintenance pattern);
- ``--strategy flex_start``: GKE's ``cloud.google.com/gke-flex-start`` selector, or with
  ``--queue`` Kueue's ProvisioningRequest route, whose ``maxRunDurationSeconds`` Kueue reads from
  the JobSet's own annotations (not the pod template's);
- ``--max-restarts N``: the restarts a failure gets (``failurePolicy.maxRestarts``, default 0);
- a reservation (``--reservation``, or a native config's ``reservationAffinity`` of one named
  reservation): the node selector ``cloud.google.com/reservation-name``.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from gpujob.services.gke.flags import extra

if TYPE_CHECKING:
    from gpujob.settings import JobOptions

SPOT_LABEL = "cloud.google.com/gke-spot"
FLEX_LABEL = "cloud.google.com/gke-flex-start"
RESERVATION_LABEL = "cloud.google.com/reservation-name"
MAX_RUN = "provreq.kueue.x-k8s.io/maxRunDurationSeconds"
FLEX_LIMIT = 7 * 24 * 3600  # flex-start's longest run (GKE-FLEX), and Vertex's for FLEX_START
VERTEX_SPOT_RETRIES = 6  # Vertex AI retries a preempted Spot job up to six times
# (https://cloud.google.com/vertex-ai/docs/training/use-spot-vms)
RESTARTS_FLAG = "--max-restarts"
RESERVATION_KEY = "gpujobReservation"  # in a replica's config: the reservation's short name
SPOT_TOLERATIONS = [
    {"key": SPOT_LABEL, "operator": "Equal", "value": "true", "effect": "NoSchedule"},
    {"key": "cloud.google.com/impending-node-termination", "operator": "Exists"},
]
# a pod lost with its node (shutdown, PodGC, preemption, drain) fails its Job at once
DISRUPTION_POLICY = {"rules": [{"action": "FailJob",
                                "onPodConditions": [{"type": "DisruptionTarget"}]}]}
PREEMPTION_RULE = {"name": "RestartAfterDisruption",
                   "action": "RestartJobSetAndIgnoreMaxRestarts",
                   "onJobFailureReasons": ["PodFailurePolicy"]}


def strategy(options: JobOptions) -> str:
    """The strategy the JobSet is for: the first of --strategy's list (GKE has one cluster)."""
    return (options.strategy or "STANDARD").split(",")[0].upper()


def check_restarts(value: str) -> tuple[str, str] | None:
    """The ServiceFlag check of --max-restarts."""
    if value.isdigit() and int(value) <= 1000:
        return None
    return ("is not a whole number of restarts (0 to 1000)",
            "e.g. --max-restarts 2: a failed JobSet is restarted twice before it fails")


_RESERVATION = re.compile(r"(projects/[^/]+/zones/[^/]+/reservations/)?"
                          r"(?P<name>[a-z]([-a-z0-9]{0,61}[a-z0-9])?)")


def check_reservation(value: str) -> tuple[str, str] | None:
    """The ServiceFlag check of --reservation: a reservation's name, or its full name."""
    if _RESERVATION.fullmatch(value):
        return None
    return ("is not a reservation's name (NAME or projects/P/zones/Z/reservations/NAME)",
            "e.g. --reservation team-a100")


def reservation_flag(options: JobOptions) -> str | None:
    """--reservation's short name, or None."""
    given = extra(options, "--reservation")
    found = _RESERVATION.fullmatch(given) if given and given.lower() != "any" else None
    return found["name"] if found else None


def max_restarts(options: JobOptions) -> int:
    given = extra(options, RESTARTS_FLAG)
    return int(given) if given and given.isdigit() else 0


def pod(spec: dict[str, Any], options: JobOptions, queue: str | None,
        config: Mapping[str, Any]) -> None:
    """The node selectors and tolerations of the strategy and reservation, in a pod's spec."""
    selector = spec.setdefault("nodeSelector", {})
    chosen = strategy(options)
    if chosen == "SPOT":
        selector[SPOT_LABEL] = "true"
        tolerations = spec.setdefault("tolerations", [])
        tolerations += [copy.deepcopy(t) for t in SPOT_TOLERATIONS if t not in tolerations]
    elif chosen == "FLEX_START" and not queue:
        selector[FLEX_LABEL] = "true"
    reservation = reservation_flag(options) or config.get(RESERVATION_KEY)
    if isinstance(reservation, str) and reservation:
        selector[RESERVATION_LABEL] = reservation


def job(template_spec: dict[str, Any], options: JobOptions) -> None:
    """A Job of the JobSet: with Spot, a lost pod fails it at once (reason PodFailurePolicy)."""
    if strategy(options) == "SPOT":
        template_spec["podFailurePolicy"] = copy.deepcopy(DISRUPTION_POLICY)


def jobset(body: dict[str, Any], options: JobOptions, queue: str | None,
           deadline: float | None) -> None:
    """The JobSet's failure policy and, on the ProvisioningRequest route, its run duration."""
    policy: dict[str, Any] = {"maxRestarts": max_restarts(options)}
    if strategy(options) == "SPOT":
        policy["rules"] = [copy.deepcopy(PREEMPTION_RULE)]
    body["spec"]["failurePolicy"] = policy
    if strategy(options) == "FLEX_START" and queue and deadline:
        body["metadata"].setdefault("annotations", {})[MAX_RUN] = str(max(int(deadline), 1))


def reservation_name(affinity: Any) -> str | None:
    """The short name of a Vertex ``reservationAffinity``'s one named reservation
    (``projects/P/zones/Z/reservations/NAME``), else None."""
    if not isinstance(affinity, Mapping) or \
            affinity.get("reservationAffinityType") != "SPECIFIC_RESERVATION":
        return None
    values = affinity.get("values")
    if isinstance(values, list) and len(values) == 1 and isinstance(values[0], str):
        return values[0].rstrip("/").rsplit("/", 1)[-1] or None
    return None
