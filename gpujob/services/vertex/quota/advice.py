"""Compute Engine's capacity advice beside the price table (``gpujob gpus --availability``) and
in the preflight: for each choice (region, machine type, one machine with its GPUs, strategy)
how likely a create is to be obtained now, and for Spot how long most VMs run before
preemption (``gpujob.gcp.advice``). Advice only: a refusal (the Compute Engine API not enabled,
no permission) or no answer is one warning, and nothing is asked twice.

For Vertex AI the figures are a proxy: its VMs run in a Google-managed project, and the advice
is about VMs in the user's project; for GKE the node pools' VMs are the user's own."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from gpujob.gcp import advice_text as text

if TYPE_CHECKING:
    from gpujob.gcp.advice import AdviceClient, Capacity
    from gpujob.gcp.settings import GcpSettings
    from gpujob.services.placement import Ranked

ASKED = ("on-demand", "spot")  # the strategies asked about (flex-start: not in the guides)
HEADER = ("OBTAINABLE ON-DEMAND", "OBTAINABLE SPOT", "SPOT UPTIME", "SPOT PREEMPTED")
Choice = tuple[str, str, str, int]  # region, machine type, GPU (API name), GPUs per machine
Found = dict[tuple[str, str, int], dict[str, "Capacity | None"]]


def accelerator(machine_type: str, gpu: str, count: int) -> tuple[str, int] | None:
    """The attached GPU of an N1 machine as Compute Engine names it (NVIDIA_TESLA_T4:
    nvidia-tesla-t4); None for a machine type with its GPUs built in."""
    return (gpu.lower().replace("_", "-"), count) if machine_type.startswith("n1-") else None


class Availability:
    """The advice for a set of choices, asked through one client; ``warning``: the one line
    that says what could not be had, or None."""

    def __init__(self, project: str, found: Found, warning: str | None,
                 preempted: dict[tuple[str, str], tuple[float, str] | None] | None = None
                 ) -> None:
        self.project = project
        self.found = found
        self.warning = warning
        self.preempted = preempted or {}  # (region, machine type): (rate, day) of Spot
        self.zone: str | None = None  # --zone: the one zone asked about

    def of(self, region: str, machine_type: str, count: int) -> dict[str, Capacity | None]:
        return self.found.get((region, machine_type, count), {})

    def cells(self, region: str, machine_type: str, count: int) -> tuple[str, str, str, str]:
        got = self.of(region, machine_type, count)
        spot = got.get("spot")
        rate = self.preempted.get((region, machine_type))
        return (text.score(got.get("on-demand")), text.score(spot),
                text.uptime(spot.uptime_s if spot else None),
                "-" if rate is None else f"{rate[0]:.0%}")

    def as_dict(self, region: str, machine_type: str, count: int) -> dict[str, Any]:
        rate = self.preempted.get((region, machine_type))
        return {**{s: None if c is None else {"obtainability": c.obtainability,
                                              "estimated_uptime_s": c.uptime_s,
                                              "zones": list(c.zones)}
                   for s, c in self.of(region, machine_type, count).items()},
                "spot_preemption_rate": None if rate is None else {"rate": rate[0],
                                                                   "day": rate[1]}}


def ask(choices: Iterable[Choice], gcp: GcpSettings,
        client_of: Callable[[Any], AdviceClient] | None = None,
        zone: str | None = None) -> Availability:
    """The advice for every choice, each asked once (``zone``: in that zone alone, as
    ``--zone`` asks); a session that cannot be had (no credentials) or a refusal is the one
    warning, and the rest is shown without it."""
    from gpujob.errors import RemoteError
    from gpujob.gcp.advice import AdviceClient
    from gpujob.gcp.session import Session

    try:
        client = (client_of or AdviceClient)(Session(gcp))
    except RemoteError as exc:
        return Availability(gcp.project or "", {}, text.warning(str(exc)))
    found: Found = {}
    preempted: dict[tuple[str, str], tuple[float, str] | None] = {}
    for region, machine, gpu, count in dict.fromkeys(choices):
        row = found.setdefault((region, machine, count), {})
        for strategy in ASKED:
            row[strategy] = client.capacity(region, machine, 1, strategy,
                                            accelerator(machine, gpu, count), zone)
        if accelerator(machine, gpu, count) is None:  # none for N1 with attached GPUs
            preempted[(region, machine)] = client.preemption(region, machine)
    failure = client.failure
    got = Availability(client.session.project, found,
                       text.warning(str(failure), client.stopped) if failure else None,
                       preempted)
    got.zone = zone
    return got


def advise_rows(rows: Sequence[Any], gcp: GcpSettings, zone: str | None = None
                ) -> Availability:
    """``ask`` for the price table's rows (``offerings_table.PriceRow``), its warning on
    stderr (once: the text and the JSON are never both made in one run)."""
    from gpujob.console import CONSOLE

    got = ask(((r.region, r.machine_type, r.gpu, r.count) for r in rows), gcp, zone=zone)
    if got.warning:
        CONSOLE.err(got.warning)
    return got


def note(availability: Availability, service: str = "vertex") -> str:
    """What the advice columns rest on, and for whom."""
    whose = ("a proxy for Vertex AI, whose VMs run in Google's own project"
             if service == "vertex" else "the VMs of your own node pools")
    return (f"OBTAINABLE: Compute Engine's capacity advice (advice.capacity, in Preview) asked "
            f"now in project {availability.project} for one machine with its GPUs in "
            + (f"zone {availability.zone}" if availability.zone else
               "a single zone of the region")
            + ": the likelihood (0.0 to 1.0, higher is better) that a create succeeds, from "
            "real-time availability and recent creates, with the zones it "
            f"names; {whose}; no guarantee: capacity can go before the create. SPOT UPTIME: "
            "its estimate of how long most Spot VMs run before preemption (best effort). SPOT "
            "PREEMPTED: the newest day's share of the machine type's Spot VMs in the region "
            "that Compute Engine preempted, of those that stopped, over all of Google Cloud "
            "(advice.capacityHistory; none for N1 machines with attached GPUs).")


def as_json(availability: Availability) -> Mapping[str, Any]:
    return {"source": "compute.advice.capacity", "project": availability.project,
            "vms": 1, "strategies": list(ASKED), "warning": availability.warning}


_STRATEGY = {"STANDARD": "on-demand", "SPOT": "spot", "FLEX_START": "flex-start"}


def preflight_lines(client: AdviceClient, placed: Sequence[tuple[str, str, dict[str, Any]]],
                    service: str = "vertex") -> list[str]:
    """``gpujob preflight --availability``: for each choice (region, strategy, the job's body)
    in order, the advice on each worker pool's machines (their replica count in VMs), one line
    each; the warning (once) when it could not be had."""
    from gpujob.services.vertex.quota.preflight import spec_of

    out: list[str] = []
    for region, strategy, body in placed:
        spec, _ = spec_of(body)
        for pool in spec.get("workerPoolSpecs") or []:
            m = (pool or {}).get("machineSpec") or {}
            machine, vms = str(m.get("machineType") or ""), int(pool.get("replicaCount") or 1)
            if not machine or strategy not in _STRATEGY:
                continue
            gpu, count = str(m.get("acceleratorType") or ""), int(m.get("acceleratorCount") or 0)
            got = client.capacity(region, machine, vms, _STRATEGY[strategy],
                                  accelerator(machine, gpu, count) if gpu and count else None)
            out.append(text.line(f"{vms} × {machine} in {region}/{strategy}", got))
    if out:
        whose = ("a proxy for Vertex AI, whose VMs run in Google's own project"
                 if service == "vertex" else "your node pools' own VMs")
        out.insert(0, text.header(client.session.project, whose))
    if client.failure is not None:
        out.append(text.warning(str(client.failure), client.stopped))
    return out


_BILLED = {"STANDARD": "on_demand", "SPOT": "spot", "FLEX_START": "flex_start"}


def rank(session: Any, placed: Sequence[tuple[str, str, dict[str, Any]]], by: str) -> Ranked:
    """``--order``: each choice's key. obtainable: the lowest obtainability of its worker
    pools (Compute Engine's capacity advice, each asked once); cheapest: its $/hour in
    gpujob's price table (Vertex AI's list prices). None where not known."""
    from gpujob.services.placement import Ranked

    keys: list[float | None] = []
    reasons: list[str] = []
    if by == "cheapest":
        from gpujob.services.vertex.pricing.cost import dollars, estimate

        for region, strategy, body in placed:
            hourly = estimate(body, region).hourly.get(_BILLED.get(strategy, "on_demand"))
            keys.append(hourly)
            reasons.append("no price in gpujob's table" if hourly is None
                           else f"{dollars(hourly)}/hour")
        return Ranked(keys, reasons)
    from gpujob.gcp.advice import AdviceClient
    from gpujob.services.vertex.quota.preflight import spec_of

    client = AdviceClient(session)
    for region, strategy, body in placed:
        scores: list[float | None] = []
        for pool in spec_of(body)[0].get("workerPoolSpecs") or []:
            m = (pool or {}).get("machineSpec") or {}
            machine = str(m.get("machineType") or "")
            gpu, count = str(m.get("acceleratorType") or ""), int(m.get("acceleratorCount") or 0)
            got = client.capacity(region, machine, int(pool.get("replicaCount") or 1),
                                  _STRATEGY.get(strategy, "on-demand"),
                                  accelerator(machine, gpu, count) if gpu and count else None)
            scores.append(got.obtainability if got else None)
        key = None if not scores or None in scores else min(s for s in scores if s is not None)
        keys.append(key)
        reasons.append("no advice" if key is None else f"obtainability {key:.1f}")
    warning = None
    if client.failure is not None:
        warning = text.warning(str(client.failure), client.stopped)
    return Ranked(keys, reasons, warning)


def regions_offering(body: dict[str, Any]) -> list[str]:
    """``--region auto``: the training regions where the catalog's zone proxy lists every
    worker pool's machine type (and N1's attached GPU), sorted."""
    from gpujob import catalog
    from gpujob.services.vertex.quota.preflight import spec_of

    cat = catalog.load("vertex", None)
    found: set[str] | None = None
    for pool in spec_of(body)[0].get("workerPoolSpecs") or []:
        m = (pool or {}).get("machineSpec") or {}
        regions = cat.regions_for(str(m.get("machineType") or ""),
                                  m.get("acceleratorType") or None)
        if regions is None:
            continue
        found = set(regions) if found is None else found & set(regions)
    return sorted(r for r in found or () if cat.is_training_region(r))
