"""Reading a service's catalog file: the built-in one (package data, read once) or a user's
(``--catalog``), read as configs are and checked against the service's catalog schema and for
cross-references. ``spec`` is the service's catalog module (``services``); besides what
``services`` names, it gives the words of the messages: ``NOUN`` (what its file is called),
``EXPORT`` (the command that prints the built-in one) and ``INTEGRITY_HINT``."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from gpujob.errors import UsageError
from gpujob.findings import finding_line
from gpujob.resources import schema_path


def data_path(spec: ModuleType) -> Path:
    """The built-in data file of a service's catalog: beside its catalog module."""
    return Path(spec.__file__).resolve().parent / spec.DATA_FILE  # type: ignore[arg-type]


def load(spec: ModuleType, path: str | None) -> Any:
    """The service's catalog: its built-in one, or the user's at ``path``."""
    if path is None:
        return built_in(spec)
    return spec.build(read_user_catalog(spec, path), path)


@cache
def built_in(spec: ModuleType) -> Any:
    """A built-in catalog is package data: it cannot change while gpujob runs."""
    path = data_path(spec)
    with path.open(encoding="utf-8") as fh:
        return spec.build(json.load(fh), str(path))


def read_user_catalog(spec: ModuleType, path: str) -> dict[str, Any]:
    """A user's catalog file read as configs are (safe YAML, positions, the same limits) and
    checked against the service's catalog schema, then for cross-references; a bad file raises
    ``UsageError`` listing its problems."""
    from gpujob.checks import schema
    from gpujob.config.load import load_file

    loaded = load_file(path)
    findings = list(loaded.findings)
    data = loaded.document.data if loaded.document is not None else None
    if isinstance(data, dict) and isinstance(data.get("service"), str) and \
            data["service"] != spec.SERVICE:
        raise UsageError(f"--catalog {path} is the catalog of service {data['service']!r}, "
                         f"not of {spec.SERVICE!r}",
                         f"pass a catalog of {spec.SERVICE} (`{spec.EXPORT}` prints the "
                         "built-in one)")
    if loaded.document is not None:
        findings += schema.check(loaded.document, spec.SCHEMA)
    if not findings and loaded.document is not None:
        problems = spec.integrity(loaded.document.data)
        if problems:
            raise UsageError(f"--catalog {path}: {problems[0]}" + (
                f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""),
                spec.INTEGRITY_HINT)
        return loaded.document.data  # type: ignore[no-any-return]
    details = "\n".join(finding_line(f) for f in findings if f.is_error)
    raise UsageError(f"--catalog {path} is not a valid {spec.NOUN}:\n{details}",
                     f"start from gpujob's own (`{spec.EXPORT}` prints it) and keep its "
                     f"shape: {schema_path(spec.SCHEMA)}")
