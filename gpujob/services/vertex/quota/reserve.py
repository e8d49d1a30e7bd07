"""``gpujob reserve``: the windows a calendar-mode future reservation could have for N GPUs for
D days (Compute Engine's ``advice.calendarMode``), what they would cost from gpujob's price
table (Vertex AI's) where it knows, and the ``gcloud compute future-reservations create``
command for the first one. Nothing is created but with --create, once the user types the
name back (a calendar-mode request cannot be cancelled once submitted). Facts:
shared/reference/CAPACITY.md sections 2.3, 3 and 4."""

from __future__ import annotations

import shlex
import textwrap
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from gpujob.console import CONSOLE
from gpujob.errors import EXIT_OK, EXIT_REMOTE, InvalidConfig, RemoteError

if TYPE_CHECKING:
    from typing import NamedTuple

    from gpujob.gcp.advice import Window
    from gpujob.settings import ReserveSettings
else:
    from gpujob.tuples import NamedTuple

SEARCH_DAYS = 60  # how far ahead a window may start (the advice's startTimeNotLaterThan)


class Machine(NamedTuple):
    name: str  # a4-highgpu-8g
    gpu: str  # NVIDIA_B200
    short: str  # B200
    per_vm: int
    vms: int
    regions: list[str]


def _machine(cat: Any, s: ReserveSettings) -> Machine:
    """The machine type with the GPUs built in (calendar mode reserves whole machines) whose
    count divides ``s.count``, the largest first; the regions asked are ``--region``'s or those
    the catalog's zone proxy lists it in."""
    from gpujob.services.vertex import offerings

    f = offerings.resolve_filters(cat, s.gpu, s.machine_type, None, s.region, None)
    acc = cat.accelerators[f.gpu]
    fits = [o for o in offerings.query(cat, f) if o.built_in]
    fits.sort(key=lambda o: -max(o.counts))
    for o in fits:
        per_vm = max(o.counts)
        if s.count % per_vm == 0:
            regions = ([r for r in f.region.split(",")] if f.region
                       else sorted(o.regions or {}))
            return Machine(o.machine_type, acc.api_name, acc.name, per_vm, s.count // per_vm,
                           regions)
    if not fits:
        raise InvalidConfig(f"no machine type with {acc.name} GPUs built in"
                            + (f" is {s.machine_type}" if s.machine_type else ""),
                            "calendar-mode reservations are for machine types with their GPUs "
                            "built in (A3, A4, G2, …): gpujob gpus --gpu " + acc.name)
    sizes = sorted({max(o.counts) for o in fits})
    raise InvalidConfig(f"--count {s.count}: {acc.name} machines come with "
                        f"{' or '.join(map(str, sizes))} GPUs each",
                        f"give a multiple of {sizes[0]}")


def _price(region: str, m: Machine, hours: float) -> str:
    """What the window would cost at Vertex AI's on-demand list price in gpujob's table (no
    calendar-mode price is in it), or why there is none."""
    from gpujob.services.vertex.offerings import Offering
    from gpujob.services.vertex.offerings.prices import one_estimate
    from gpujob.services.vertex.pricing import prices
    from gpujob.services.vertex.pricing.cost import dollars

    o = Offering(m.gpu, m.short, m.name, "", (m.per_vm,), True, None)
    hourly = one_estimate(prices.load(), region, o, m.per_vm).hourly.get("on_demand")
    return "no price" if hourly is None else dollars(hourly * m.vms * hours)


def gcloud_command(project: str, name: str, m: Machine, w: Window) -> str:
    """``gcloud compute future-reservations create`` for window ``w`` (GC-FR; CAPACITY.md 4)."""
    args = [f"--project={project}", f"--zone={w.zone}", f"--machine-type={m.name}",
            f"--total-count={m.vms}", f"--start-time={w.start}", f"--end-time={w.end}",
            "--reservation-mode=CALENDAR", "--deployment-type=DENSE",
            "--auto-delete-auto-created-reservations", "--require-specific-reservation",
            f"--reservation-name={name}", "--planning-status=SUBMITTED"]
    return " \\\n    ".join([f"gcloud compute future-reservations create {shlex.quote(name)}",
                              *(shlex.quote(a) for a in args)])


def future_reservation(name: str, m: Machine, w: Window) -> dict[str, Any]:
    """The FutureReservation the gcloud command makes (``gcloud_command``), as JSON."""
    return {"name": name, "specificSkuProperties": {
                "instanceProperties": {"machineType": m.name}, "totalCount": str(m.vms)},
            "timeWindow": {"startTime": w.start, "endTime": w.end},
            "reservationMode": "CALENDAR", "deploymentType": "DENSE",
            "autoDeleteAutoCreatedReservations": True, "specificReservationRequired": True,
            "reservationName": name, "planningStatus": "SUBMITTED"}


def _create(client: Any, name: str, m: Machine, w: Window) -> int:
    """``--create``: the first window's request, once the user types its name back (it
    cannot be cancelled or changed once submitted); anything else creates nothing (exit 1)."""
    import sys

    CONSOLE.err(f"Submit future reservation request {name} ({m.vms} × {m.name} in {w.zone}, "
                f"{w.start} to {w.end})? It cannot be cancelled or changed once submitted. "
                "Type its name to confirm:")
    answer = sys.stdin.readline().strip() if sys.stdin is not None else ""
    if answer != name:
        raise InvalidConfig(f"not confirmed: nothing was created (typed {answer!r}, not "
                            f"{name!r})", "run the gcloud command above, or --create again")
    op = client.create_future_reservation(w.zone, future_reservation(name, m, w))
    CONSOLE.line(f"submitted: future reservation {name} in {w.zone} (operation "
                 f"{op.get('name', '?')}, {op.get('status', '?')}); see it with: gcloud compute "
                 f"future-reservations describe {name} --zone={w.zone}")
    return EXIT_OK


def _rows(found: list[tuple[str, Window]], m: Machine, hours: float) -> list[str]:
    header = ("ZONE", "START", "END", "MACHINES", "ON-DEMAND $ FOR THE WINDOW")
    cells = [(w.zone or "(none)", w.start, w.end, f"{m.vms} × {m.name}",
              _price(region, m, hours)) for region, w in found]
    widths = [max(len(r[i]) for r in (header, *cells)) for i in range(len(header))]
    return ["  ".join(c.ljust(n) for c, n in zip(row, widths, strict=True)).rstrip()
            for row in (header, *cells)]


def execute(s: ReserveSettings, cat: Any) -> int:
    """The windows (stdout) and the command for the first; exit 3 when no region answered."""
    from gpujob.gcp.advice import AdviceClient, refused
    from gpujob.gcp.session import Session

    m = _machine(cat, s)
    if not 1 <= s.days <= 90:
        raise InvalidConfig(f"--days {s.days}: calendar mode reserves 1 to 90 days",
                            "longer than 90 days goes through your Google account team")
    now = datetime.now(timezone.utc).replace(minute=0, second=0, microsecond=0)
    earliest = now + timedelta(days=1)
    latest = earliest + timedelta(days=SEARCH_DAYS)
    client = AdviceClient(Session(s.gcp))
    found: list[tuple[str, Window]] = []
    failures: list[str] = []
    for region in m.regions:
        try:
            found += [(region, w) for w in client.calendar_mode(
                region, m.name, m.vms, s.days * 86400, _rfc3339(earliest), _rfc3339(latest))]
        except RemoteError as exc:
            if refused(exc):  # no permission, or the Compute Engine API not enabled
                raise
            failures.append(str(exc))
    if failures:
        CONSOLE.err(f"warning: {len(failures)} of {len(m.regions)} regions gave no advice: "
                    f"{failures[0]}")
    if not found and failures:
        return EXIT_REMOTE
    CONSOLE.line(textwrap.fill(
        f"{s.count} × {m.short} ({m.vms} × {m.name}) for {s.days} days, starting between "
        f"{_rfc3339(earliest)} and {_rfc3339(latest)}, in {', '.join(m.regions)}:", 100,
        subsequent_indent="  "))
    windows = [(r, w) for r, w in found if w.zone]
    if not windows:
        CONSOLE.line("Compute Engine recommends no window there (calendar mode is for eligible "
                    "projects, some machine series and zones: try other regions or dates, or "
                    "ask your Google account team).")
        return EXIT_OK
    hours = s.days * 24.0
    CONSOLE.line("\n".join(_rows(windows, m, hours)))
    name = s.name or f"{m.short.lower().replace(' ', '-')}-x{s.count}-{s.days}d"
    CONSOLE.line("\nTo request the first window (once submitted it cannot be cancelled or "
                "changed;\n--planning-status=DRAFT saves it to submit later):\n"
                + gcloud_command(client.session.project, name, m, windows[0][1]))
    project, zone = client.session.project, windows[0][1].zone
    CONSOLE.line(f"\nThen, once it is delivered:\n  gpujob submit CONFIG --region "
                f"{zone.rsplit('-', 1)[0]} --reservation \\\n    "
                f"projects/{project}/zones/{zone}/reservations/{name}")
    if s.create:
        return _create(client, name, m, windows[0][1])
    CONSOLE.err("note: windows from Compute Engine's calendar-mode advice (advice.calendarMode) "
                f"in project {client.session.project}; the advice carries no price: the $ is "
                "Vertex AI's on-demand list price for the machines over the window from "
                "gpujob's table (it has no calendar-mode price; Compute Engine bills calendar "
                "mode at its own 'Reserved … in Calendar Mode' SKUs).")
    return EXIT_OK


def _rfc3339(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
