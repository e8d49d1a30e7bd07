"""The names people write for a GPU (``NVIDIA_TESLA_L4``, ``H100``, ``A100-80GB``, the GKE node
label ``nvidia-l4``), read as the accelerator type they mean: a refused accelerator name's hint
names that type and the machine types that take it. The names are data: the catalog's
``accelerator_types.types.*.aliases``; spelling is compared ignoring case, ``-`` and ``_``."""

from __future__ import annotations

from typing import Any

from gpujob.findings import Finding
from gpujob.suggest import describe_list

_ACCELERATOR_KEYS = ("acceleratorType", "type")  # a native pool's; an AI Platform config's


def _norm(name: str) -> str:
    return name.replace("_", "").replace("-", "").lower()


def meant(name: str, cat: Any) -> str | None:
    """The accelerator type ``name`` (a name the API does not take) stands for, if any."""
    wanted = _norm(name)
    for alias, api_name in cat.aliases.items():
        if _norm(alias) == wanted and api_name in cat.accelerators:
            return str(api_name)
    return None


def machines_for(api_name: str, cat: Any) -> list[str]:
    return [m.name for m in cat.machine_types.values() if api_name in m.accelerators]


def hint(name: str, cat: Any) -> str | None:
    """``did you mean 'NVIDIA_L4'? (L4: machine types g2-standard-4, …)``, or None."""
    api_name = meant(name, cat)
    if api_name is None:
        return None
    short = cat.accelerators[api_name].name
    machines = machines_for(api_name, cat)
    where = f": machine types {describe_list(machines, 4)}" if machines else ""
    return f"did you mean {api_name!r}? ({short}{where})"


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
