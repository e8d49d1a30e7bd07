"""Vertex AI's refusal of a create, pointed back at the config.

The service names each field it refused in its own snake_case path
(``job_spec.worker_pool_specs[0].machine_spec.accelerator_type``, as its INVALID_ARGUMENT
answers list them); the body is
in the discovery document's camelCase (``jobSpec.workerPoolSpecs[0].machineSpec.
acceleratorType``); the translation recorded which config value each body value was made from
(``Request.origins``: ``trainingInput.masterConfig.acceleratorConfig.type``) and the loaded
config where it was written (``Request.locate``: ``config.yaml:9:13``). The error names the
config's place, path and the service's reason, one line for all the fields.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from gpujob.errors import RemoteError
from gpujob.findings import JsonPath, format_path
from gpujob.gcp.errors import Action, ServiceError
from gpujob.services.base import Request
from gpujob.services.vertex.paths import origin_of
from gpujob.suggest import camel

_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
_REQUEST_FIELDS = ("custom_job", "hyperparameter_tuning_job", "customJob",
                   "hyperparameterTuningJob")


def body_path(field: str, body: dict[str, Any]) -> JsonPath:
    """The body path the service's field path names, as far as the body has it (a oneof's
    name, such as ``task``, is not in the body: the path stops at its parent)."""
    parts: list[str | int] = [int(index) if index else name
                              for name, index in _PART.findall(field)]
    if parts and parts[0] in _REQUEST_FIELDS:
        parts = parts[1:]
    path: list[str | int] = []
    node: Any = body
    for part in parts:
        if isinstance(part, int) and isinstance(node, list) and part < len(node):
            path.append(part)
            node = node[part]
            continue
        if not isinstance(node, dict) or isinstance(part, int):
            break
        key = part if part in node else camel(part)
        if key not in node:
            break
        path.append(key)
        node = node[key]
    return tuple(path)


def describe(field: str, why: str, request: Request) -> str:
    """One refused field as ``FILE:LINE:COL: CONFIG.PATH: reason``, as near to that as the
    request's origins allow."""
    path = body_path(field, request.body)
    origin = origin_of(path, dict(request.origins)) if path else None
    why = why.rstrip(".") or "invalid"
    if origin is None:
        return f"{format_path(path) if path else field} (in the request): {why}"
    where = f"{request.locate(origin)}: " if request.locate is not None else ""
    return f"{where}{format_path(origin)}: {why}"


def refusal(request: Request) -> Callable[[ServiceError, Action], RemoteError | None]:
    """How the client reports a 400 with field violations for ``request``."""

    def explain(error: ServiceError, action: Action) -> RemoteError | None:
        if not error.violations:
            return None
        items = [describe(field, why, request) for field, why in error.violations]
        count = f"{len(items)} values" if len(items) > 1 else "a value"
        fields = ", ".join(dict.fromkeys(field for field, _ in error.violations))
        return RemoteError(
            f"{action.what} failed: the service refused {count} of the config: "
            + "; ".join(items),
            f"fix it in the config, or with the flag that set it (the service named {fields}; "
            "gpujob submit --dry-run --service vertex prints the body gpujob sends)")

    return explain
