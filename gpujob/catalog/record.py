"""What gpujob reads of any service's catalog record outside the service's package: the engine
(the schema's lists), ``--catalog`` files, ``--export-catalog`` and the catalog's age. Each
service's ``build(data, path)`` returns such a record (``records.Catalog`` for AI Platform, a
``VertexCatalog``, a ``GkeCatalog``), with whatever else its own rules read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol


class CatalogRecord(Protocol):
    @property
    def service(self) -> str: ...  # as --service names it

    @property
    def path(self) -> str: ...  # the data file it was read from

    @property
    def sources(self) -> Mapping[str, Mapping[str, Any]]: ...  # section -> {as_of, …}

    @property
    def choices(self) -> tuple[tuple[str, tuple[str, ...]], ...]: ...  # the schema's lists

    @property
    def scale_tiers(self) -> Mapping[str, Any] | tuple[str, ...]: ...  # the tiers it takes

    @property
    def refreshed(self) -> Mapping[str, Mapping[str, Any]]: ...  # parts `catalog refresh` read

    @property
    def document(self) -> Mapping[str, Any] | None: ...  # the data, when not path's file's
