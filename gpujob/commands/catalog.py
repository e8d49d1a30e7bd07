"""``gpujob catalog refresh``: the live parts of a service's catalog (Vertex AI's), read from
Google's APIs by the service (``Service.refresh``) into the dated overlay every command then
reads."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gpujob.console import CONSOLE
from gpujob.errors import EXIT_OK, EXIT_REMOTE, OutputError

if TYPE_CHECKING:
    from gpujob.gcp.settings import GcpSettings


def execute(settings: GcpSettings, parts: tuple[str, ...], service: str = "vertex") -> int:
    """Read each part; write the overlay with those read (the others keep what they had); exit
    0 when every part was read, 3 when one could not be (the others are still written), 1
    when the cache directory cannot take the overlay."""
    from gpujob import interrupts, services
    from gpujob.catalog import files, overlay
    from gpujob.services.capabilities import Capability

    chosen = services.get(service)
    chosen.require(Capability.REFRESH, f"gpujob catalog refresh --service {service}")
    spec, run = chosen.catalog, chosen.refresh
    assert run is not None
    file = Path(overlay.path(spec.SERVICE))
    why = overlay.unwritable(file.parent)
    if why:
        raise _unwritable(file, why, read=False)
    try:
        old = overlay.read(file)
    except overlay.OverlayError as exc:
        CONSOLE.err(f"warning: {exc}: it is replaced")
        old = None
    kept = old["parts"] if old is not None else {}
    for name, part in list(kept.items()):
        why = overlay.problem(name, part) if name in (*overlay.PARTS, "prices") else None
        if why:  # a hand edit gpujob cannot read: kept, it would refuse the new overlay
            CONSOLE.err(f"warning: {file}: {why}: that part is dropped, gpujob's built-in one "
                        "stands until it is read again")
            del kept[name]
    current = files.current(spec)
    data = current.document if current.document is not None else \
        files.built_in_data(spec)
    with interrupts.as_ctrl_c():  # SIGTERM, SIGHUP: "interrupted" (exit 130), as Ctrl-C
        result = run.refresh(settings, parts, data, old)
    hinted = set()  # a hint said once (parts that failed alike: no credentials)
    for outcome in result.outcomes:
        name = run.NAMES[outcome.part]
        for warning in outcome.warnings:
            CONSOLE.err(f"warning: {warning}")
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
        try:
            overlay.write(file, document)
        except OSError as exc:
            raise _unwritable(file, str(exc.strerror or exc), read=True) from None
        CONSOLE.out(f"wrote {file}\n")
    else:
        CONSOLE.out(f"nothing read: {file} is unchanged\n")
    return EXIT_REMOTE if result.failed else EXIT_OK


def _unwritable(file: Path, why: str, read: bool) -> OutputError:
    """The cache directory cannot take the overlay: exit 1, as for any result that cannot be
    written (docs/exit-codes.md); the remote side did its part, so not 3."""
    said = "what was read is not kept" if read else "nothing was read"
    return OutputError(f"cannot write the refreshed catalog in {file.parent}: {why}; {said}",
                       f"make {file.parent} a directory you can write, or set GPUJOB_CACHE_DIR "
                       "to one (gpujob's cache: GPUJOB_CACHE_DIR, else "
                       "$XDG_CACHE_HOME/gpujob, else ~/.cache/gpujob)")
