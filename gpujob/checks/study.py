"""Checks of a hyperparameter tuning study (``trainingInput.hyperparameters``) that AI Platform's
API and Vertex AI's (which the study becomes) both refuse, so that ``validate``,
``submit --dry-run`` and ``convert`` reach one verdict. Each service registers them under its
own rule ids (``study.*``, ``vertex.study-*``):

- parameter names are unique: AI Platform's ``ParameterSpec.parameterName`` "must be unique
  amongst all ParameterConfigs", Vertex's ``parameterId`` "must be unique amongst all
  ParameterSpecs" (the APIs' discovery documents);
- ``GRID_SEARCH`` takes INTEGER, CATEGORICAL and DISCRETE parameters only (the ``algorithm``
  enum's description in both documents).
"""

from __future__ import annotations

from typing import Any

from gpujob.checks.context import Checking
from gpujob.config.job import TI

HP = (TI, "hyperparameters")


def params(ctx: Checking) -> list[tuple[int, dict[str, Any]]]:
    """The study's parameters that are mappings, with their indexes."""
    hp = ctx.ti.get("hyperparameters")
    found = hp.get("params") if isinstance(hp, dict) else None
    if not isinstance(found, list):
        return []
    return [(i, p) for i, p in enumerate(found) if isinstance(p, dict)]


def unique_name(ctx: Checking) -> None:
    first: dict[str, int] = {}
    for i, param in params(ctx):
        name = param.get("parameterName")
        if not isinstance(name, str):
            continue
        if name in first:
            other = ctx.where((*HP, "params", first[name], "parameterName")).line
            line = f" (line {other})" if other else ""
            ctx.emit((*HP, "params", i, "parameterName"), f"parameterName {name!r} is used "
                     f"twice: params[{first[name]}]{line} has it too, and each parameter needs "
                     "its own name", "rename one of them, or remove the repeated parameter")
        else:
            first[name] = i


def grid_search(ctx: Checking) -> None:
    hp = ctx.ti.get("hyperparameters")
    if not isinstance(hp, dict) or hp.get("algorithm") != "GRID_SEARCH":
        return
    for i, param in params(ctx):
        if param.get("type") == "DOUBLE":
            ctx.emit((*HP, "params", i, "type"), f"GRID_SEARCH cannot search a DOUBLE parameter "
                     f"({param.get('parameterName', f'params[{i}]')}): it searches INTEGER, "
                     "CATEGORICAL and DISCRETE parameters only",
                     "give the values to try as type DISCRETE with discreteValues, or remove "
                     "algorithm: GRID_SEARCH")
