"""The GKE service's own flags as a command passed them (``JobOptions.extra``): one reader, a leaf
module so that capacity, pods and translate all call it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpujob.settings import JobOptions


def extra(options: JobOptions, flag: str) -> str | None:
    """The value of one of the service's own flags (``--queue``), or None."""
    return next((value for name, value in options.extra if name == flag), None)
