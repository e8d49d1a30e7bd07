"""Each service's catalog: a module named ``catalog`` in the service's package (see the registry,
``gpujob.services``) that defines ``SERVICE`` (its name), ``LIVE`` (whether ``gpujob catalog
refresh`` reads parts of it from Google), ``DATA_FILE`` (beside it), ``SCHEMA`` (in
``schemas/``), ``build(data, path)`` (its catalog record, a ``record.CatalogRecord``:
``Catalog`` for AI Platform, ``VertexCatalog`` for Vertex AI, whose facts have another shape),
``integrity(data) -> list[str]`` (the cross-references its schema cannot state) and what
messages about its files say (``files``). A module is imported when its service is first used,
so that naming the services costs nothing at start-up.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING, Any

from gpujob.catalog import files
from gpujob.errors import UsageError
from gpujob.services import SERVICES

if TYPE_CHECKING:
    from pathlib import Path


def service(name: str) -> ModuleType:
    """The catalog module of service ``name``."""
    if name not in SERVICES:
        raise UsageError(f"no catalog for service {name!r}",
                         f"services with a catalog: {', '.join(SERVICES)}")
    return import_module(f"{SERVICES[name]}.catalog")


def data_file(name: str) -> Path:
    """The built-in catalog file of service ``name`` (``files.data_file`` of its catalog module,
    as a ``Path``: for the commands and tests that read it)."""
    from pathlib import Path

    return Path(files.data_file(service(name)))


def load(name: str, path: str | None = None) -> Any:
    """The built-in catalog of service ``name``, or the one at ``path`` (YAML or JSON), checked
    against the service's catalog schema. A bad file raises ``UsageError`` listing its
    problems. The caller keeps the catalog and passes it on: a user's file is read once per
    call, never cached."""
    return files.load(service(name), path)
