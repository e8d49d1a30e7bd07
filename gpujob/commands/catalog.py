"""``gpujob catalog refresh``: the live parts of the Vertex catalog, read from Google's APIs
into the dated overlay every command then reads."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpujob.console import CONSOLE
from gpujob.errors import EXIT_OK, EXIT_REMOTE

if TYPE_CHECKING:
    from gpujob.gcp.settings import GcpSettings


def execute(settings: GcpSettings, parts: tuple[str, ...], service: str = "vertex") -> int:
    """Read each part; write the overlay with those read (the others keep what they had); exit
    0 when every part was read, 3 when one could not be (the others are still written)."""
    from gpujob import services
    from gpujob.services.capabilities import Capability

    services.get(service).require(Capability.REFRESH,
                                  f"gpujob catalog refresh --service {service}")
    from gpujob.catalog import files, overlay
    from gpujob.services.vertex import catalog as vertex_data
    from gpujob.services.vertex.refresh import run

    file = overlay.path(vertex_data.SERVICE)
    try:
        old = overlay.read(file)
    except overlay.OverlayError as exc:
        CONSOLE.err(f"warning: {exc}: it is replaced")
        old = None
    current = files.current(vertex_data)
    data = current.document if current.document is not None else \
        files.built_in_data(vertex_data)
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
        document = run.overlay_document(result, old, vertex_data.SERVICE)
        merged = overlay.merged(files.built_in_data(vertex_data), document, file)
        vertex_data.build(merged, str(file))  # what is written can be read back
        overlay.write(file, document)
        CONSOLE.out(f"wrote {file}\n")
    else:
        CONSOLE.out(f"nothing read: {file} is unchanged\n")
    return EXIT_REMOTE if result.failed else EXIT_OK
