"""Artifact Registry (artifactregistry v1): the prebuilt training images Google publishes.

``dockerImages.list`` of a repository gives one entry per digest, old untagged ones too; an
image Vertex AI runs is one tagged ``latest`` (only that tag is supported). Its name is the part
of the entry's ``name`` between ``dockerImages/`` and ``@``.
https://cloud.google.com/artifact-registry/docs/reference/rest/v1/projects.locations.repositories.dockerImages/list
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import unquote

from gpujob.gcp.errors import ServiceError
from gpujob.gcp.session import Session
from gpujob.gcp.settings import api_endpoint

if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from gpujob.tuples import NamedTuple

SERVICE = "artifactregistry.googleapis.com"
ROLE = "roles/artifactregistry.reader"
# us-docker.pkg.dev/vertex-ai/training (the registry's host names its location, us)
TRAINING = "projects/vertex-ai/locations/us/repositories/training"
PAGE_SIZE = 1000  # the most the API gives per page
MAX_PAGES = 50


class Listed(NamedTuple):
    name: str  # pytorch-gpu.2-4.py310
    updated: str  # the entry's updateTime (RFC 3339), or ""


def registry(repository: str) -> str:
    """``projects/P/locations/L/repositories/R`` as a Docker registry path:
    ``L-docker.pkg.dev/P/R``."""
    _, project, _, location, _, repo = repository.split("/")
    return f"{location}-docker.pkg.dev/{project}/{repo}"


def _advice(error: ServiceError) -> str | None:
    """The repository is Google's: no role on it can be granted by the user."""
    if error.status == 403 and error.reason("SERVICE_DISABLED") is None:
        return ("the repository is Google's own, readable by any Google account: check the "
                "credentials (gcloud auth application-default login), or leave the images out "
                "(--parts zones,prices)")
    return None


class ArtifactsClient:
    def __init__(self, session: Session) -> None:
        from gpujob.gcp.discovery import service

        self.session = session
        self._images = (service("artifactregistry", "v1", session.http,
                                api_endpoint(session.settings, "artifactregistry"))
                        .projects().locations().repositories().dockerImages())

    def latest_images(self, repository: str = TRAINING, tag: str = "latest") -> list[Listed]:
        """The images of ``repository`` tagged ``tag``, by name."""
        action = self.session.action(
            f"listing the images of {registry(repository)}", "artifactregistry.dockerimages.list",
            role=ROLE, service=SERVICE, retry_safe=True, resource=f"repository {repository}",
            advice=_advice)

        found: dict[str, Listed] = {}
        for page in self.session.listing(action, self._images.list, "dockerImages", MAX_PAGES,
                                         parent=repository, pageSize=PAGE_SIZE):
            for image in page.get("dockerImages") or []:
                name = unquote(str(image.get("name", "")).rpartition("/dockerImages/")[2])
                name = name.partition("@")[0]
                if name and tag in (image.get("tags") or []):
                    found[name] = Listed(name, str(image.get("updateTime", "")))
        return sorted(found.values())
