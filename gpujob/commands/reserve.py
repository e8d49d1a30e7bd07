"""``gpujob reserve``: calendar-mode windows for GPUs ahead, from Compute Engine's advice, and
the command that requests one (Vertex AI's catalog and price table:
``services.vertex.quota.reserve``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpujob.settings import ReserveSettings


def execute(settings: ReserveSettings) -> int:
    settings = settings._replace(check=settings.check.loaded())
    return settings.check.service.reserve(settings)
