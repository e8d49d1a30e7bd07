"""Compute Engine's advice (compute v1 ``advice``): how likely a VM request is to be obtained
now (``advice.capacity``: an obtainability score, and for Spot the estimated uptime, with the
zones it would come in) and which windows a calendar-mode future reservation could have
(``advice.calendarMode``). Both are regional ``POST``s that create nothing; the client is built
from the compute v1 document bundled with google-api-python-client (2.201 and later have both
methods; shared/reference/CAPACITY.md). Each question is asked once: a refusal or no answer is
the caller's one warning, never a block (``Advice.failure``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpujob.errors import RemoteError
from gpujob.gcp.compute import ROLE, SERVICE, api  # ROLE holds compute.advice.capacity
from gpujob.gcp.session import Session

if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from gpujob.tuples import NamedTuple

CALENDAR_ROLE = "roles/compute.futureReservationViewer"  # [unverified] compute.advice.calendarMode
MODELS = {"on-demand": "STANDARD", "spot": "SPOT", "flex-start": "FLEX_START"}


class Capacity(NamedTuple):
    """One answer of ``advice.capacity``: the score (0.0 to 1.0, higher is better; None: the
    answer had none), the estimated uptime in seconds (Spot; None: not given) and the zones of
    its shards."""

    obtainability: float | None
    uptime_s: float | None
    zones: tuple[str, ...]


class Window(NamedTuple):
    """One window ``advice.calendarMode`` recommends: its zone (``us-central1-b``; "" when it
    recommends none) and its start and end (RFC 3339), and the other zones' statuses."""

    zone: str
    start: str
    end: str
    others: dict[str, str]


def _last(text: Any) -> str:
    """``zones/us-central1-a`` or a URL: the last path segment (CAPACITY.md section 2.1)."""
    return str(text or "").rstrip("/").rsplit("/", 1)[-1]


def _seconds(text: Any) -> float | None:
    try:
        return float(str(text).removesuffix("s")) if text is not None else None
    except ValueError:
        return None


def read_capacity(answer: dict[str, Any]) -> Capacity:
    """The first recommendation of an ``advice.capacity`` answer (the API gives one)."""
    recs = answer.get("recommendations") or []
    first = recs[0] if recs and isinstance(recs[0], dict) else {}
    scores = first.get("scores") or {}
    score = scores.get("obtainability")
    zones = tuple(dict.fromkeys(_last(s.get("zone")) for s in first.get("shards") or []
                                if isinstance(s, dict) and s.get("zone")))
    return Capacity(float(score) if isinstance(score, (int, float)) else None,
                    _seconds(scores.get("estimatedUptime")), zones)


def read_windows(answer: dict[str, Any]) -> list[Window]:
    """Every recommended window of an ``advice.calendarMode`` answer, in its order."""
    out = []
    for rec in answer.get("recommendations") or []:
        for spec in (rec.get("recommendationsPerSpec") or {}).values():
            others = {_last(z): str((s or {}).get("status", ""))
                      for z, s in (spec.get("otherLocations") or {}).items()}
            out.append(Window(_last(spec.get("location")), str(spec.get("startTime") or ""),
                              str(spec.get("endTime") or ""), others))
    return out


class AdviceClient:
    """Compute Engine's advice for one project, through one session; each question asked once
    (``asked``), the first refusal remembered (``failure``) so that nothing more is sent after
    the project said no."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._compute = api(session)
        self._advice = self._compute.advice()
        self.asked: dict[tuple[Any, ...], Capacity | None] = {}
        self.histories: dict[tuple[str, str], tuple[float, str] | None] = {}
        self.failure: RemoteError | None = None
        self.stopped = False

    def capacity(self, region: str, machine_type: str, vms: int, strategy: str,
                 accelerator: tuple[str, int] | None = None, zone: str | None = None
                 ) -> Capacity | None:
        """The advice on ``vms`` VMs of ``machine_type`` (``accelerator``: the attached GPU's
        Compute Engine name and count, N1) in one zone of ``region`` (``zone``: that zone
        only) under ``strategy`` (on-demand, spot, flex-start); None when it could not be had
        (``failure`` says why)."""
        key = (region, machine_type, vms, strategy, accelerator, zone)
        if key in self.asked:
            return self.asked[key]
        if self.stopped:
            return None
        selection: dict[str, Any] = {"machineTypes": [machine_type]}
        if accelerator:
            selection["guestAccelerators"] = [{"acceleratorType": accelerator[0],
                                               "acceleratorCount": accelerator[1]}]
        body = {"instanceProperties": {"scheduling": {"provisioningModel": MODELS[strategy]}},
                "instanceFlexibilityPolicy": {"instanceSelections": {"job": selection}},
                "size": vms, "distributionPolicy": {"targetShape": "ANY_SINGLE_ZONE", **(
                    {"zones": [{"zone": f"zones/{zone}"}]} if zone else {})}}
        project = self.session.project
        action = self.session.action(
            f"asking Compute Engine's capacity advice for {machine_type} in {zone or region}",
            "compute.advice.capacity", role=ROLE, service=SERVICE, retry_safe=False)
        found: Capacity | None = None
        try:
            found = read_capacity(self.session.execute(action, lambda: self._advice.capacity(
                project=project, region=region, body=body)))
        except RemoteError as exc:
            self.failure = self.failure or exc
            self.stopped = refused(exc)
        self.asked[key] = found
        return found

    def preemption(self, region: str, machine_type: str) -> tuple[float, str] | None:
        """The newest day's Spot preemption rate of ``machine_type`` in ``region`` and the
        day it is for (``advice.capacityHistory``, PREEMPTION: the fraction of the Spot VMs
        that stopped that day which Compute Engine preempted, over all of Google Cloud);
        None when not given (N1 machines with attached GPUs have none) or not had
        (``failure``). Asked once per machine and region."""
        if (region, machine_type) in self.histories:
            return self.histories[(region, machine_type)]
        if self.stopped:
            return None
        body = {"instanceProperties": {"machineType": machine_type,
                                       "scheduling": {"provisioningModel": "SPOT"}},
                "types": ["PREEMPTION"]}
        project = self.session.project
        action = self.session.action(
            f"asking Compute Engine's Spot preemption history of {machine_type} in {region}",
            "compute.advice.capacityHistory", role=ROLE, service=SERVICE, retry_safe=False)
        found: tuple[float, str] | None = None
        try:
            answer = self.session.execute(action, lambda: self._advice.capacityHistory(
                project=project, region=region, body=body))
            days = [r for r in answer.get("preemptionHistory") or []
                    if isinstance(r, dict) and isinstance(r.get("preemptionRate"), (int, float))]
            if days:
                newest = max(days, key=lambda r: str((r.get("interval") or {}).get("endTime")))
                found = (float(newest["preemptionRate"]),
                         str((newest.get("interval") or {}).get("startTime") or "")[:10])
        except RemoteError as exc:
            self.failure = self.failure or exc
            self.stopped = refused(exc)
        self.histories[(region, machine_type)] = found
        return found

    def calendar_mode(self, region: str, machine_type: str, vms: int, duration_s: int,
                      earliest: str, latest: str) -> list[Window]:
        """The windows calendar mode offers for ``vms`` VMs of ``machine_type`` in ``region``
        for ``duration_s`` seconds, starting between ``earliest`` and ``latest`` (RFC 3339);
        ``RemoteError`` when it cannot be had."""
        body = {"futureResourcesSpecs": {"spec": {
            "targetResources": {"specificSkuResources": {"machineType": machine_type,
                                                         "instanceCount": str(vms)}},
            "timeRangeSpec": {"minDuration": f"{duration_s}s", "maxDuration": f"{duration_s}s",
                              "startTimeNotEarlierThan": earliest,
                              "startTimeNotLaterThan": latest}}}}
        project = self.session.project
        action = self.session.action(
            f"asking Compute Engine's calendar-mode advice for {vms} × {machine_type} in "
            f"{region}", "compute.advice.calendarMode", role=CALENDAR_ROLE, service=SERVICE,
            retry_safe=True)  # read-only: nothing is created
        return read_windows(self.session.execute(action, lambda: self._advice.calendarMode(
            project=project, region=region, body=body)))

    def create_future_reservation(self, zone: str, body: dict[str, Any]) -> dict[str, Any]:
        """``futureReservations.insert`` of ``body`` in ``zone`` (the Operation); sent with a
        ``requestId``, so that a retry cannot make a second request (Compute Engine keeps the
        first). ``RemoteError`` when refused."""
        import uuid

        project = self.session.project
        request_id = str(uuid.uuid4())
        action = self.session.action(
            f"creating future reservation {body.get('name')} in {zone}",
            "compute.futureReservations.create", role="roles/compute.futureReservationUser",
            service=SERVICE, retry_safe=True)  # the requestId makes a resend harmless
        answer: dict[str, Any] = self.session.execute(
            action, lambda: self._compute.futureReservations().insert(
                project=project, zone=zone, body=body, requestId=request_id))
        return answer


def refused(exc: RemoteError) -> bool:
    """A refusal that holds for every region (401/403: no permission, the Compute Engine API
    not enabled in the project): no later question is sent, as it would be refused again."""
    cause = exc.__cause__ or exc.__context__
    status = getattr(getattr(cause, "resp", None), "status", None)
    return str(status) in ("401", "403")
