"""Compute Engine's advice in the fake Google (reached as ``fake.advice``): ``advice.capacity``,
``advice.capacityHistory`` and ``advice.calendarMode``
(``compute/v1/projects/P/regions/R/advice/...``), as the compute v1 document bundled with
google-api-python-client (2.201 and later) describes them.

- ``score(region, obtainability, uptime_s=None, zones=(), model=None)``: what
  ``advice.capacity`` answers for a region (``model``: only for that provisioning model,
  STANDARD, SPOT or FLEX_START); a region without a score answers with no recommendation.
- ``history(region, machine, [(day, rate), …])``: ``advice.capacityHistory``'s Spot preemption
  rates (none: an empty history).
- ``window(region, zone, start, end, others=None)``: a window ``advice.calendarMode`` recommends
  in a region (in the order added); ``others``: ``{zone: status}`` of the other locations.

``futureReservations.insert`` keeps the request by its ``requestId``
(``future_reservations``) and answers a DONE Operation.

Requests are checked strictly against the request type (the fake refuses what Compute Engine
would); every answer is checked against the response type before it is sent."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakes.catalog_apis import COMPUTE, _answer
from fakes.routing import CLOUD_PLATFORM, Answer, Call, Route

if TYPE_CHECKING:
    from fakes.google import FakeGoogle

ZONE_URL = "https://www.googleapis.com/compute/v1/projects/{project}/zones/{zone}"


class Advice:
    def __init__(self) -> None:
        self.scores: dict[tuple[str, str | None], dict[str, Any]] = {}
        self.windows: dict[str, list[dict[str, Any]]] = {}
        self.histories: dict[tuple[str, str], list[tuple[str, float]]] = {}
        self.future_reservations: dict[str, dict[str, Any]] = {}  # by requestId

    def score(self, region: str, obtainability: float, uptime_s: int | None = None,
              zones: tuple[str, ...] = (), model: str | None = None) -> None:
        scores: dict[str, Any] = {"obtainability": obtainability}
        if uptime_s is not None:
            scores["estimatedUptime"] = f"{uptime_s}s"
        self.scores[(region, model)] = {"scores": scores, "zones": zones}

    def history(self, region: str, machine: str, rates: list[tuple[str, float]]) -> None:
        """``advice.capacityHistory``'s daily Spot preemption rates of ``machine`` in
        ``region``: (day, rate), oldest first."""
        self.histories[(region, machine)] = rates

    def window(self, region: str, zone: str, start: str, end: str,
               others: dict[str, str] | None = None) -> None:
        rec: dict[str, Any] = {"location": f"zones/{zone}", "startTime": start, "endTime": end,
                               "recommendationId": f"0000-{len(self.windows.get(region, []))}",
                               "recommendationType": "FUTURE_RESERVATION"}
        if others:
            rec["otherLocations"] = {f"zones/{z}": {"status": s} for z, s in others.items()}
        self.windows.setdefault(region, []).append(rec)


def _capacity(fake: FakeGoogle, call: Call) -> Answer:
    region, project = call.params["region"], call.params["project"]
    body = call.body or {}
    model = ((body.get("instanceProperties") or {}).get("scheduling") or {}).get(
        "provisioningModel", "STANDARD")
    selections = (body.get("instanceFlexibilityPolicy") or {}).get("instanceSelections") or {}
    machine = next((m for s in selections.values() for m in s.get("machineTypes") or []), "")
    with fake.lock:
        found = (fake.advice.scores.get((region, model))
                 or fake.advice.scores.get((region, None)))
    answer: dict[str, Any] = {"recommendations": []}
    if found:
        shards = [{"zone": ZONE_URL.format(project=project, zone=z), "machineType": machine,
                   "instanceCount": int(body.get("size") or 1), "provisioningModel": model}
                  for z in found["zones"]]
        answer["recommendations"].append({"scores": found["scores"], "shards": shards})
    return _answer("compute.v1", ("advice", "capacity"), answer)


def _history(fake: FakeGoogle, call: Call) -> Answer:
    region, project = call.params["region"], call.params["project"]
    machine = ((call.body or {}).get("instanceProperties") or {}).get("machineType", "")
    with fake.lock:
        rates = list(fake.advice.histories.get((region, machine), []))
    answer: dict[str, Any] = {
        "machineType": machine,
        "location": f"https://www.googleapis.com/compute/v1/projects/{project}/regions/{region}",
        "preemptionHistory": [{"interval": {"startTime": f"{day}T07:00:00Z",
                                            "endTime": f"{day}T23:59:59Z"},
                               "preemptionRate": rate} for day, rate in rates]}
    return _answer("compute.v1", ("advice", "capacityHistory"), answer)


def _calendar_mode(fake: FakeGoogle, call: Call) -> Answer:
    with fake.lock:
        recs = list(fake.advice.windows.get(call.params["region"], []))
    key = next(iter((call.body or {}).get("futureResourcesSpecs") or {"spec": None}))
    answer = {"recommendations": [{"recommendationsPerSpec": {key: rec}} for rec in recs]}
    return _answer("compute.v1", ("advice", "calendarMode"), answer)


def _insert(fake: FakeGoogle, call: Call) -> Answer:
    """``futureReservations.insert``: kept by its ``requestId`` (a resend with the same one
    makes nothing more, as Compute Engine's idempotent requests do); a DONE Operation."""
    project, zone = call.params["project"], call.params["zone"]
    request_id = (call.query.get("requestId") or [""])[0]
    with fake.lock:
        fake.advice.future_reservations.setdefault(request_id, call.body)
    base = f"https://www.googleapis.com/compute/v1/projects/{project}/zones/{zone}"
    name = (call.body or {}).get("name", "")
    answer = {"kind": "compute#operation", "id": "7001", "name": "operation-1764400000000-fr",
              "zone": base, "operationType": "insert", "status": "DONE", "progress": 100,
              "targetLink": f"{base}/futureReservations/{name}", "user": call.principal,
              "insertTime": "2026-11-29T03:00:00.000-08:00",
              "selfLink": f"{base}/operations/operation-1764400000000-fr"}
    return _answer("compute.v1", ("futureReservations", "insert"), answer)


_SCOPES = frozenset({CLOUD_PLATFORM, COMPUTE})
_PATH = r"/compute/v1/projects/(?P<project>[^/]+)/regions/(?P<region>[^/]+)/advice/"
ROUTES = [
    Route("POST", r"/compute/v1/projects/(?P<project>[^/]+)/zones/(?P<zone>[^/]+)"
                  r"/futureReservations", "futureReservations.insert", _insert, "compute.v1",
          ("futureReservations", "insert"), strict=True, scopes=_SCOPES),
    Route("POST", _PATH + "capacity", "advice.capacity", _capacity, "compute.v1",
          ("advice", "capacity"), strict=True, scopes=_SCOPES),
    Route("POST", _PATH + "capacityHistory", "advice.capacityHistory", _history, "compute.v1",
          ("advice", "capacityHistory"), strict=True, scopes=_SCOPES),
    Route("POST", _PATH + "calendarMode", "advice.calendarMode", _calendar_mode, "compute.v1",
          ("advice", "calendarMode"), strict=True, scopes=_SCOPES),
]
