"""Compatibility catalogs: for each service one data file of facts, with their sources and
dates (``catalog.json`` in each service's package), read into record types (``records.py`` for
AI Platform; ``gpujob.services.vertex.catalog`` for Vertex AI, whose facts have another shape)
that the rules, the translation and ``gpujob gpus`` query. Every compatibility fact lives in the
data; code only
reads it.

``load(service, path=None)`` returns the service's catalog; callers keep it and pass it on.
"""

from typing import TYPE_CHECKING

from gpujob.catalog.records import Cap, Catalog, Category, GpuType, MachineType, ScaleTier
from gpujob.catalog.services import DEFAULT_SERVICE, SERVICES, AnyCatalog, data_file, load

if TYPE_CHECKING:  # read when the vertex service is used, not at start-up
    from gpujob.services.vertex.catalog import VertexCatalog  # noqa: F401

__all__ = ["DEFAULT_SERVICE", "SERVICES", "AnyCatalog", "Cap", "Catalog", "Category", "GpuType",
           "MachineType", "ScaleTier", "data_file", "load"]
