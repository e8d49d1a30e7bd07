"""``gpujob catalog``: the catalog's live parts, refreshed from Google's APIs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from gpujob.cli.common import CONTEXT, GpujobCommand, exit_codes_help
from gpujob.cli.options import gcp_options, gcp_settings, project_option
from gpujob.console import CONSOLE
from gpujob.errors import EXIT_OK, EXIT_REMOTE, UsageError

if TYPE_CHECKING:
    from gpujob.gcp.settings import GcpSettings

PARTS = ("zones", "images", "prices")


@click.group(context_settings=CONTEXT)
def catalog() -> None:
    """The catalog gpujob checks jobs against: refresh its live parts from Google's APIs."""


def _parts(value: str) -> tuple[str, ...]:
    found = tuple(p.strip() for p in value.split(",") if p.strip())
    unknown = [p for p in found if p not in PARTS]
    if unknown or not found:
        raise UsageError(f"--parts {value!r}: {', '.join(unknown) or 'no part'} is not a part "
                         "of the catalog gpujob refreshes",
                         f"name some of {', '.join(PARTS)}, separated by commas")
    return found


def execute(settings: GcpSettings, parts: tuple[str, ...]) -> int:
    """Read each part; write the overlay with those read (the others keep what they had); exit
    0 when every part was read, 3 when one could not be (the others are still written)."""
    from gpujob.catalog import files, overlay, vertex_data
    from gpujob.refresh import run

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


@catalog.command(cls=GpujobCommand, context_settings=CONTEXT, epilog=exit_codes_help(
    0, 2, 3, 130, c0="every part was read and written",
    c3="a part could not be read (it keeps what it had; the others are written)"))
@click.option("--parts", default=",".join(PARTS), show_default=True, metavar="LIST",
              help="The parts to read, separated by commas: zones (Compute Engine), images "
                   "(Artifact Registry), prices (Cloud Billing, with GPUJOB_BILLING_API_KEY).")
@project_option
@gcp_options
def refresh(parts: str, **params: Any) -> int:
    """Read the catalog's live parts from Google's APIs and keep them for every command.

    zones: where Compute Engine offers each GPU and GPU machine type, and the most GPUs per VM
    (in --project). images: the prebuilt training images in us-docker.pkg.dev/vertex-ai/training
    (a new one is usable until Google publishes its end of availability; known dates are kept).
    prices: per-GPU list prices per region from Cloud Billing (an API key in
    GPUJOB_BILLING_API_KEY is all it needs). What is read is written, dated, to
    ~/.cache/gpujob/vertex-live.json (XDG_CACHE_HOME, GPUJOB_CACHE_DIR); a part that cannot
    be read keeps what it had and says why.

    \b
    Examples:
      gpujob catalog refresh --project my-proj
      gpujob catalog refresh --parts zones,images
    """
    return execute(gcp_settings(params), _parts(parts))
