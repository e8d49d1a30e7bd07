"""One catalog per service: its data file (shipped in this package), the JSON Schema that
describes it, and the builder that reads it into the catalog's records.

A service's catalog is a module of this package (``ai_platform``, ``vertex_data``) that defines
``SERVICE`` (its name), ``DATA_FILE``, ``SCHEMA`` (in ``schemas/``), ``build(data, path)``
(its catalog record: ``Catalog`` for AI Platform, ``VertexCatalog`` for Vertex AI, whose facts
have another shape), ``integrity(data) -> list[str]`` (the cross-references its schema cannot
state) and what messages about its files say (``files``). A module is imported when its
service is first used, so that naming the services costs nothing at start-up.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from importlib import import_module
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Union

from gpujob.catalog import files
from gpujob.errors import UsageError

if TYPE_CHECKING:
    from gpujob.catalog.records import Catalog
    from gpujob.services.vertex.catalog import VertexCatalog

# a service's catalog: AI Platform's or Vertex AI's record
AnyCatalog = Union["Catalog", "VertexCatalog"]

_MODULES = {"ai-platform": "gpujob.services.ai_platform.catalog",
            "vertex": "gpujob.services.vertex.catalog"}


class _Services(Mapping[str, ModuleType]):
    """The registry: service name -> its catalog module, imported on first use."""

    def __getitem__(self, name: str) -> ModuleType:
        return import_module(_MODULES[name])

    def __iter__(self) -> Iterator[str]:
        return iter(_MODULES)

    def __len__(self) -> int:
        return len(_MODULES)


SERVICES: Mapping[str, ModuleType] = _Services()
DEFAULT_SERVICE = "vertex"  # as gpujob.services.DEFAULT_SERVICE


def service(name: str) -> ModuleType:
    """The catalog module of service ``name``."""
    if name not in SERVICES:
        raise UsageError(f"no catalog for service {name!r}",
                         f"services with a catalog: {', '.join(SERVICES)}")
    return SERVICES[name]


def data_file(name: str) -> Path:
    """The built-in catalog file of a service."""
    return files.data_path(service(name))


def load(name: str, path: str | None = None) -> AnyCatalog:
    """The built-in catalog of service ``name``, or the one at ``path`` (YAML or JSON), checked
    against the service's catalog schema. A bad file raises ``UsageError`` listing its
    problems. The caller keeps the catalog and passes it on: a user's file is read once per
    call, never cached."""
    return files.load(service(name), path)  # type: ignore[no-any-return]
