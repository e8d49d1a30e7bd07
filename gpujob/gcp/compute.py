"""Compute Engine (compute v1): where each GPU and GPU machine type is offered, zone by zone.

Two listings, each over every zone at once (``aggregatedList``), paged: the accelerator types
(``maximumCardsPerInstance``: the most of a GPU one VM takes) and the machine types (their
built-in GPUs). Both are keyed by scope (``zones/us-central1-a``); a scope with nothing in it
carries only a warning. https://cloud.google.com/compute/docs/reference/rest/v1/acceleratorTypes/aggregatedList
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gpujob.gcp.session import Session
from gpujob.gcp.settings import api_endpoint

SERVICE = "compute.googleapis.com"
ROLE = "roles/compute.viewer"  # holds compute.*.list, compute.advice.capacity (Google's IAM)
MAX_PAGES = 100  # of 500 items per zone scope each


def api(session: Session) -> Any:
    """The compute v1 client (bundled discovery document) at the session's endpoint."""
    from gpujob.gcp.discovery import base, service

    return service("compute", "v1", session.http,
                   base("compute", "v1", api_endpoint(session.settings, "compute")))


class ComputeClient:
    """The project's view of Compute Engine's accelerator and machine types."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._api = api(session)

    def _aggregated(self, collection: str, key: str, permission: str, **query: Any
                    ) -> Iterator[tuple[str, dict[str, Any]]]:
        action = self.session.action(
            f"listing Compute Engine's {key} in project {self.session.project}", permission,
            role=ROLE, service=SERVICE, retry_safe=True,
            not_found_hint=f"check --project (now {self.session.project})")
        method = getattr(self._api, collection)().aggregatedList
        for page in self.session.listing(action, method, "items", MAX_PAGES,
                                         project=self.session.project, **query):
            for scope, listed in (page.get("items") or {}).items():
                if scope.startswith("zones/"):
                    for item in listed.get(key) or []:
                        yield scope.removeprefix("zones/"), item

    def accelerator_types(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """(zone, AcceleratorType) for every accelerator type of every zone."""
        yield from self._aggregated("acceleratorTypes", "acceleratorTypes",
                                    "compute.acceleratorTypes.list")

    def machine_types(self, filter_: str | None = None) -> Iterator[tuple[str, dict[str, Any]]]:
        """(zone, MachineType) for the machine types ``filter_`` selects (AIP-160 or the
        regular-expression form of the API's ``filter``), zone by zone."""
        yield from self._aggregated("machineTypes", "machineTypes",
                                    "compute.machineTypes.list",
                                    **({"filter": filter_} if filter_ else {}))
