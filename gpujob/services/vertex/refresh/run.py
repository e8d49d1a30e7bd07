"""Reading the live parts from Google and writing them: each part on its own, so that one that
cannot be read (no permission, no key, no network) keeps what it had and the others are still
written; the overlay is written whole or not at all (``overlay.write``).

Parts: ``zones`` (Compute Engine, in the user's project), ``images`` (Artifact Registry,
Google's public vertex-ai project) and ``prices`` (Cloud Billing's catalog, with an API key:
``prices``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from gpujob.errors import GpujobError
from gpujob.gcp.settings import GcpSettings
from gpujob.services.vertex.refresh.outcome import Outcome

PARTS = ("zones", "images", "prices")
NAMES = {"zones": "zones", "images": "prebuilt images", "prices": "prices"}


@dataclass
class Refresh:
    outcomes: list[Outcome] = field(default_factory=list)
    written: Path | None = None

    @property
    def failed(self) -> bool:
        return any(o.problem for o in self.outcomes)


def now() -> datetime:
    return datetime.now(timezone.utc)


class _Sessions:
    """One authorized session for the parts that need credentials, made on first use; a failure
    to make it is each such part's failure."""

    def __init__(self, settings: GcpSettings) -> None:
        self.settings = settings
        self._made: Any = None
        self._error: GpujobError | None = None

    def get(self) -> Any:
        if self._error is not None:
            raise self._error
        if self._made is None:
            from gpujob.gcp.session import Session

            try:
                self._made = Session(self.settings)
            except GpujobError as exc:
                self._error = exc
                raise
        return self._made


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def read_zones(data: Mapping[str, Any], sessions: _Sessions, moment: datetime) -> Outcome:
    from gpujob.gcp.compute import ComputeClient
    from gpujob.services.vertex.refresh import zones

    session = sessions.get()
    client = ComputeClient(session)
    found = zones.section(data, client.accelerator_types(),
                          client.machine_types(zones.machine_filter(data)))
    if not found["gpus"]:
        raise GpujobError(f"Compute Engine lists no GPU in project {session.project}",
                          "check --project: the Compute Engine API must be enabled there")
    where = f"the Compute Engine API (project {session.project})"
    zone_count = len({z for g in found["gpus"].values() for z in g["zones"]})
    return Outcome("zones", read=f"{len(found['gpus'])} GPU types in {zone_count} zones, "
                   f"{len(found['machine_types'])} GPU machine types, from {where}",
                   data={**found, "read": _stamp(moment), "from": where, "source": {
                       "as_of": moment.date().isoformat(), "refs": ["CE-API", "D-GPU"],
                       "notes": "A PROXY: the Compute Engine zones where each GPU and each GPU "
                       f"machine type is offered, read from {where} by gpujob catalog refresh "
                       f"on {_stamp(moment)}. Vertex AI publishes its own per-region list and "
                       "it can differ; being listed says nothing about quota or capacity. "
                       "max_count is the most of the GPU one VM takes in any zone."}})


def read_images(data: Mapping[str, Any], sessions: _Sessions, moment: datetime) -> Outcome:
    from gpujob.gcp.artifacts import TRAINING, ArtifactsClient, registry
    from gpujob.services.vertex.refresh import images

    session = sessions.get()
    listed = ArtifactsClient(session).latest_images(TRAINING, data["prebuilt_images"]["tag"])
    if not listed:
        raise GpujobError(f"{registry(TRAINING)} lists no image tagged latest",
                          "try again later; the images gpujob knows are kept")
    known = data["prebuilt_images"]["images"]
    found, added, unread = images.section(known, [i.name for i in listed],
                                          moment.date().isoformat())
    where = registry(TRAINING)
    said = f"{len(listed)} images listed in {where}, " + (
        f"{len(added)} new: {', '.join(added)}" if added else "none new")
    if unread:
        said += f"; not prebuilt training images gpujob can read: {', '.join(unread)}"
    source = dict(data["prebuilt_images"]["source"])
    source.update(as_of=moment.date().isoformat(),
                  refs=sorted({*source["refs"], "AR-API"}),
                  notes=source.get("notes", "") + f" Listed in {where} by gpujob catalog "
                  f"refresh on {_stamp(moment)}: an image without end_of_support and "
                  "end_of_availability has none published yet (listed: the day it was first "
                  "found); the dates of the others are kept.")
    return Outcome("images", read=said, data={"images": found, "read": _stamp(moment),
                                              "from": where, "source": source})


def refresh(settings: GcpSettings, parts: tuple[str, ...], current: Mapping[str, Any],
            old: Mapping[str, Any] | None,
            readers: Mapping[str, Callable[..., Outcome]] | None = None) -> Refresh:
    """Read ``parts``; ``current``: the catalog data in use (its known images and dates);
    ``old``: the overlay there is (its parts are kept where a part cannot be read)."""
    from gpujob.services.vertex.refresh import prices

    table = {"zones": read_zones, "images": read_images, "prices": prices.read_prices,
             **(readers or {})}
    sessions = _Sessions(settings)
    moment = now()
    result = Refresh()
    for part in parts:
        try:
            outcome = table[part](current, sessions, moment)
        except GpujobError as exc:
            outcome = Outcome(part, problem=exc.message, hint=exc.hint or "",
                              warnings=list(getattr(exc, "warnings", [])))
            had = (old or {}).get("parts", {}).get(part)
            outcome.kept = (f"kept the ones read on {had['read']}" if had
                            else "kept gpujob's built-in ones")
        result.outcomes.append(outcome)
    return result


def overlay_document(result: Refresh, old: Mapping[str, Any] | None, service: str
                     ) -> dict[str, Any]:
    """The overlay to write: the old one's parts, with those read now in their place."""
    from gpujob.catalog.overlay import FORMAT

    parts = dict((old or {}).get("parts", {}))
    for outcome in result.outcomes:
        if outcome.data is not None:
            parts[outcome.part] = outcome.data
    return {"format": FORMAT, "service": service, "written": _stamp(now()), "parts": parts}
