"""Compatibility catalogs: for each service one data file of facts, with their sources and
dates (``catalog.json`` in each service's package), read into record types (``records.py`` for
AI Platform; ``gpujob.services.vertex.catalog`` for Vertex AI, whose facts have another shape)
that the rules, the translation and ``gpujob gpus`` query. Every compatibility fact lives in the
data; code only
reads it.

``load(service, path=None)`` returns the service's catalog; callers keep it and pass it on.
"""

from gpujob.catalog.records import Cap, Catalog, Category, GpuType, MachineType, ScaleTier
from gpujob.catalog.services import data_file, load

__all__ = ["Cap", "Catalog", "Category", "GpuType", "MachineType", "ScaleTier", "data_file",
           "load"]
