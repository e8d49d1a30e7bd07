"""``gpujob reserve``: calendar-mode windows for GPUs ahead, from Compute Engine's advice, and
the command that requests one (Vertex AI's catalog and price table:
``services.vertex.quota.reserve``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpujob.settings import ReserveSettings


def execute(settings: ReserveSettings) -> int:
    from gpujob import services
    from gpujob.settings import CheckOptions

    vertex = services.get("vertex")
    return vertex.reserve(settings._replace(catalog=CheckOptions(vertex).loaded().catalog))
