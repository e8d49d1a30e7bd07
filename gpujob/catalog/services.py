"""One catalog per service: its data file (shipped in this package), the JSON Schema that
describes it, and the builder that reads it into the catalog's records.

A service's catalog is a module of this package (``ai_platform``) that defines ``SERVICE`` (its
name), ``DATA_FILE``, ``SCHEMA`` (in ``schemas/``), ``build(data, path) -> Catalog`` and
``integrity(data) -> list[str]`` (the cross-references its schema cannot state).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from gpujob.catalog import ai_platform
from gpujob.catalog.records import Catalog
from gpujob.errors import UsageError
from gpujob.findings import finding_line
from gpujob.resources import schema_path

HERE = Path(__file__).resolve().parent


SERVICES: dict[str, ModuleType] = {m.SERVICE: m for m in [ai_platform]}
DEFAULT_SERVICE = ai_platform.SERVICE


def service(name: str) -> ModuleType:
    """The catalog module of service ``name``."""
    if name not in SERVICES:
        raise UsageError(f"no catalog for service {name!r}",
                         f"services with a catalog: {', '.join(SERVICES)}")
    return SERVICES[name]


def data_file(name: str) -> Path:
    """The built-in catalog file of a service."""
    return HERE / service(name).DATA_FILE


def load(name: str, path: str | None = None) -> Catalog:
    """The built-in catalog of service ``name``, or the one at ``path`` (YAML or JSON), checked
    against the service's catalog schema. A bad file raises ``UsageError`` listing its
    problems. The caller keeps the catalog and passes it on: a user's file is read once per
    call, never cached."""
    spec = service(name)
    if path is None:
        return _built_in(name)
    return spec.build(_read_user_catalog(spec, path), path)


@cache
def _built_in(name: str) -> Catalog:
    """A built-in catalog is package data: it cannot change while gpujob runs."""
    spec = SERVICES[name]
    with (HERE / spec.DATA_FILE).open(encoding="utf-8") as fh:
        return spec.build(json.load(fh), str(HERE / spec.DATA_FILE))


def _read_user_catalog(spec: ModuleType, path: str) -> dict[str, Any]:
    """A user's catalog file read as configs are (safe YAML, positions, the same limits) and
    checked against the service's catalog schema, then for cross-references."""
    from gpujob import schema
    from gpujob.config.load import load_file

    loaded = load_file(path)
    findings = list(loaded.findings)
    data = loaded.document.data if loaded.document is not None else None
    if isinstance(data, dict) and isinstance(data.get("service"), str) and \
            data["service"] != spec.SERVICE:
        raise UsageError(f"--catalog {path} is the catalog of service {data['service']!r}, "
                         f"not of {spec.SERVICE!r}",
                         f"pass a catalog of {spec.SERVICE} (`gpujob gpus --export-catalog` "
                         "prints the built-in one)")
    if loaded.document is not None:
        findings += schema.check(loaded.document, spec.SCHEMA)
    if not findings and loaded.document is not None:
        problems = spec.integrity(loaded.document.data)
        if problems:
            raise UsageError(f"--catalog {path}: {problems[0]}" + (
                f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""),
                "define every GPU type in gpu_types, every machine type in machine_types and "
                "every Python version in runtime_versions.python_versions")
        return loaded.document.data
    details = "\n".join(finding_line(f) for f in findings if f.is_error)
    raise UsageError(f"--catalog {path} is not a valid catalog:\n{details}",
                     "start from gpujob's own (`gpujob gpus --export-catalog` prints it) and "
                     f"keep its shape: {schema_path(spec.SCHEMA)}")
