"""Compatibility catalogs: for each service one data file of facts, with their sources and
dates (``catalog.json`` in each service's package), read into the service's record types (its
``catalog`` module's ``build``: AI Platform's ``records.py``, Vertex AI's ``records.py``, whose
facts have another shape) that the rules, the translation and ``gpujob gpus`` query. Every
compatibility fact lives in the data; code only reads it.

``load(service, path=None)`` returns the service's catalog; callers keep it and pass it on.
"""

from gpujob.catalog.services import data_file, load

__all__ = ["data_file", "load"]
