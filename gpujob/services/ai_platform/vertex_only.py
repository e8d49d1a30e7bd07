"""Names that AI Platform Training does not know but Vertex AI does (g2-standard-24, NVIDIA_L4):
not misspellings, so the hint says which service has them rather than guess the nearest
spelling (n1-standard-4, NVIDIA_TESLA_T4), which would be another machine or GPU."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from gpujob.findings import Finding, value_at
from gpujob.suggest import same_name

MACHINE_KEYS = ("masterType", "workerType", "parameterServerType", "evaluatorType")
VERTEX = "vertex"  # the registry's name of the service that has them
USE_VERTEX = f"use --service {VERTEX}"


def _vertex() -> Any:
    """Vertex AI's catalog, found through the registry (``gpujob.catalog.load``): its facts,
    none of its code."""
    from gpujob.catalog import load

    return load(VERTEX)


def machine_hint(name: str) -> str | None:
    """The hint for an AI Platform machine type that Vertex AI offers; None if it does not."""
    if name not in _vertex().machine_types:
        return None
    return f"{name} is a Vertex AI machine type, which AI Platform Training does not offer: " \
           + USE_VERTEX


def accelerator_hint(name: str, known: Collection[str]) -> str | None:
    """The hint for an accelerator, as users write one (NVIDIA_L4, nvidia-l4, L4), that Vertex
    AI offers and AI Platform does not (``known``: AI Platform's API names); None otherwise
    (T4 is AI Platform's NVIDIA_TESLA_T4 misspelt)."""
    found = _vertex().find_gpu(name)
    if found is None or found.api_name in known:
        return None
    what = "GPU" if found.kind == "gpu" else "TPU"
    return (f"{found.api_name} ({found.name}) is a Vertex AI {what}, which AI Platform "
            f"Training does not offer: {USE_VERTEX}")



def explain(findings: list[Finding], data: Any, machine_types: list[str],
            accelerators: Collection[str]) -> list[Finding]:
    """AI Platform's findings, where a refused machine type (``machine.unknown``) or
    accelerator type (``schema.enum`` on ``acceleratorConfig.type``) is one of Vertex AI's,
    with a hint that says so. ``machine_types``, ``accelerators``: AI Platform's, whose names
    spelt otherwise (cloud-tpu for cloud_tpu, T4) keep their did-you-mean."""
    out = []
    for f in findings:
        hint = None
        if f.rule == "machine.unknown" and f.path and f.path[-1] in MACHINE_KEYS:
            value = value_at(data, f.path)
            hint = (machine_hint(value) if isinstance(value, str)
                    and not same_name(value, machine_types) else None)
        elif f.rule == "schema.enum" and f.path[-2:] == ("acceleratorConfig", "type"):
            value = value_at(data, f.path)
            hint = accelerator_hint(value, accelerators) if isinstance(value, str) else None
        out.append(f._replace(hint=hint) if hint else f)
    return out
