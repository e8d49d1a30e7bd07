"""Where a checked job goes: a remote service's backend (``--service``), or processes on this
machine (``local``).

``SERVICES`` is the registry: a service's name, as ``--service`` and ``GPUJOB_SERVICE`` take it,
and the module whose ``BACKEND`` implements ``base.Backend``. A module is imported only when its
service is used, so naming the services costs nothing at start-up.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpujob.services.base import Backend

SERVICES: dict[str, str] = {
    "ai-platform": "gpujob.services.ai_platform",  # AI Platform Training, ml v1
    "vertex": "gpujob.services.vertex",  # Vertex AI custom training, aiplatform v1
}
# Vertex AI: AI Platform Training accepts no new jobs since 2025-01-31 (--service ai-platform)
DEFAULT_SERVICE = "vertex"


def get(service: str) -> Backend:
    """The backend of ``service`` (one of ``SERVICES``; the command line has checked it)."""
    return import_module(SERVICES[service]).BACKEND  # type: ignore[no-any-return]
