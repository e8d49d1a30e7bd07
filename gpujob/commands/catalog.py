"""``gpujob catalog refresh``: the live parts of a service's catalog (Vertex AI's), read from
Google's APIs by the service (``Service.refresh``) into the dated overlay every command then
reads."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpujob.console import CONSOLE
from gpujob.errors import EXIT_OK, EXIT_REMOTE

if TYPE_CHECKING:
    from gpujob.gcp.settings import GcpSettings
    from gpujob.services.base import Service


def _refreshed() -> Service:
    """The service whose catalog has live parts (Vertex AI's: the only one)."""
    from gpujob import services

    return next(s for s in map(services.get, services.SERVICES) if s.refresh is not None)


def execute(settings: GcpSettings, parts: tuple[str, ...]) -> int:
    """Read each part; write the overlay with those read (the others keep what they had); exit
    0 when every part was read, 3 when one could not be (the others are still written)."""
    from gpujob.catalog import files, overlay

    service = _refreshed()
    spec, run = service.catalog, service.refresh
    assert run is not None
    file = overlay.path(spec.SERVICE)
    try:
        old = overlay.read(file)
    except overlay.OverlayError as exc:
        CONSOLE.err(f"warning: {exc}: it is replaced")
        old = None
    current = files.current(spec)
    data = current.document if current.document is not None else \
        files.built_in_data(spec)
    result = run.refresh(settings, parts, data, old)
    hinted = set()  # a hint said once (parts that failed alike: no credentials)
    for outcome in result.outcomes:
        name = run.NAMES[outcome.part]
        if outcome.problem:
            CONSOLE.err(f"error: {name}: {outcome.problem}")
            if outcome.hint and outcome.hint not in hinted:
                CONSOLE.err(f"  hint: {outcome.hint}")
                hinted.add(outcome.hint)
            CONSOLE.out(f"{name}: not read; {outcome.kept}\n")
        else:
            CONSOLE.out(f"{name}: {outcome.read}\n")
    if any(o.data is not None for o in result.outcomes):
        document = run.overlay_document(result, old, spec.SERVICE)
        merged = overlay.merged(files.built_in_data(spec), document, file)
        spec.build(merged, str(file))  # what is written can be read back
        overlay.write(file, document)
        CONSOLE.out(f"wrote {file}\n")
    else:
        CONSOLE.out(f"nothing read: {file} is unchanged\n")
    return EXIT_REMOTE if result.failed else EXIT_OK
