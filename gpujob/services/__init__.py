"""The training services a job can go to: the registry.

``SERVICES`` names each service (as ``--service`` and ``GPUJOB_SERVICE`` take it) and the
package that implements it; the package's ``SERVICE`` is its ``base.Service``. A package is
imported only when its service is used, so naming the services costs nothing at start-up.
Adding a service is one package and one line here.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpujob.services.base import Service

SERVICES: dict[str, str] = {
    "vertex": "gpujob.services.vertex",  # Vertex AI custom training, aiplatform v1
    "ai-platform": "gpujob.services.ai_platform",  # AI Platform Training, ml v1
    "gke": "gpujob.services.gke",  # JobSets on a GKE cluster (kubeconfig), queued by Kueue
}
# Vertex AI: AI Platform Training accepts no new jobs since 2025-01-31 (--service ai-platform)
DEFAULT_SERVICE = "vertex"


def get(name: str) -> Service:
    """The service ``name`` (one of ``SERVICES``; the command line has checked it)."""
    return import_module(SERVICES[name]).SERVICE  # type: ignore[no-any-return]
