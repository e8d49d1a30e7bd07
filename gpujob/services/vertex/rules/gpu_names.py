"""The names people write for a GPU (``NVIDIA_TESLA_L4``, ``H100``, ``A100-80GB``, the GKE node
label ``nvidia-l4``), read as the accelerator type they mean: a refused accelerator name's hint
names that type and the machine types that take it. The names are data: the catalog's
``accelerator_types.types.*.aliases``, read by ``VertexCatalog.find_gpu``."""

from __future__ import annotations

from typing import Any

from gpujob.findings import Finding
from gpujob.suggest import describe_list

_ACCELERATOR_KEYS = ("acceleratorType", "type")  # a native pool's; an AI Platform config's


def hint(name: str, cat: Any) -> str | None:
    """``did you mean 'NVIDIA_L4'? (L4: machine types g2-standard-4, …)``, or None."""
    found = cat.find_gpu(name)
    if found is None:
        return None
    machines = cat.machines_for(found.api_name)
    where = f": machine types {describe_list(machines, 4)}" if machines else ""
    return f"did you mean {found.api_name!r}? ({found.name}{where})"


def reword(findings: list[Finding], data: Any, cat: Any) -> list[Finding]:
    """``findings`` with each refused accelerator name's hint naming the type it stands for."""
    return [_reworded(f, data, cat) for f in findings]


def _reworded(finding: Finding, data: Any, cat: Any) -> Finding:
    if finding.rule != "schema.enum" or not finding.path \
            or finding.path[-1] not in _ACCELERATOR_KEYS:
        return finding
    value = _at(data, finding.path)
    better = hint(value, cat) if isinstance(value, str) else None
    return finding._replace(hint=better) if better else finding


def _at(data: Any, path: tuple[Any, ...]) -> Any:
    node = data
    for key in path:
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            return None
    return node
