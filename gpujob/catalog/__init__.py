"""Compatibility catalogs: for each service one data file of facts, with their sources and
dates (``ai-platform.json``), read into the same record types (``records.py``) that the rules
and ``gpujob gpus`` query. Every compatibility fact lives in the data; code only reads it.

``load(service, path=None)`` returns a ``Catalog``; callers keep it and pass it on.
"""

from gpujob.catalog.records import Cap, Catalog, Category, GpuType, MachineType, ScaleTier
from gpujob.catalog.services import DEFAULT_SERVICE, SERVICES, data_file, load

__all__ = ["DEFAULT_SERVICE", "SERVICES", "Cap", "Catalog", "Category", "GpuType", "MachineType",
           "ScaleTier", "data_file", "load"]
