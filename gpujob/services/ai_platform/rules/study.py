"""Rules about a hyperparameter tuning study (``trainingInput.hyperparameters``): what AI
Platform's API and Vertex AI's (which the study becomes) refuse, checked on the config so that
``validate``, ``submit --dry-run`` and ``convert`` reach one verdict. A check both services
share runs under each service's rule id (``study.*``, ``vertex.study-*``).

- parameter names are unique: AI Platform's ``ParameterSpec.parameterName`` "must be unique
  amongst all ParameterConfigs", Vertex's ``parameterId`` "must be unique amongst all
  ParameterSpecs" (the APIs' discovery documents);
- ``GRID_SEARCH`` takes INTEGER, CATEGORICAL and DISCRETE parameters only (the ``algorithm``
  enum's description in both documents);
- Vertex's ``parameterId`` and ``metricId`` "must not contain whitespaces"; AI Platform sets no
  such rule (``first-layer-size`` and ``Taxi Model Accuracy`` are its own samples' names).
"""

from __future__ import annotations

from typing import Any

from gpujob.checks.context import Checking
from gpujob.checks.registry import rule
from gpujob.config.job import TI

HP = (TI, "hyperparameters")
VERTEX = ("vertex",)
_GRID_TYPES = ("INTEGER", "CATEGORICAL", "DISCRETE")


def _params(ctx: Checking) -> list[tuple[int, dict[str, Any]]]:
    hp = ctx.ti.get("hyperparameters")
    params = hp.get("params") if isinstance(hp, dict) else None
    if not isinstance(params, list):
        return []
    return [(i, p) for i, p in enumerate(params) if isinstance(p, dict)]


@rule("study.unique-name", "Each tuned parameter has its own parameterName.")
@rule("vertex.study-name", "Each tuned parameter has its own parameterName (Vertex AI's "
      "parameterId is unique).", services=VERTEX)
def unique_name(ctx: Checking) -> None:
    first: dict[str, int] = {}
    for i, param in _params(ctx):
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


@rule("study.grid-search", "GRID_SEARCH searches INTEGER, CATEGORICAL and DISCRETE parameters "
      "only.")
@rule("vertex.study-grid", "GRID_SEARCH searches INTEGER, CATEGORICAL and DISCRETE parameters "
      "only.", services=VERTEX)
def grid_search(ctx: Checking) -> None:
    hp = ctx.ti.get("hyperparameters")
    if not isinstance(hp, dict) or hp.get("algorithm") != "GRID_SEARCH":
        return
    for i, param in _params(ctx):
        if param.get("type") == "DOUBLE":
            ctx.emit((*HP, "params", i, "type"), f"GRID_SEARCH cannot search a DOUBLE parameter "
                     f"({param.get('parameterName', f'params[{i}]')}): it searches INTEGER, "
                     "CATEGORICAL and DISCRETE parameters only",
                     "give the values to try as type DISCRETE with discreteValues, or remove "
                     "algorithm: GRID_SEARCH")


@rule("vertex.study-id", "A tuned parameter's name and the metric's tag hold no whitespace "
      "(Vertex AI's parameterId and metricId must not contain any).", services=VERTEX)
def no_whitespace(ctx: Checking) -> None:
    hp = ctx.ti.get("hyperparameters")
    if not isinstance(hp, dict):
        return
    tag = hp.get("hyperparameterMetricTag")
    if isinstance(tag, str) and _spaced(tag):
        ctx.emit((*HP, "hyperparameterMetricTag"), f"metric {tag!r} becomes Vertex AI's "
                 "metricId, which must not contain whitespace", "report the metric under a "
                 "name without spaces (cloudml-hypertune's hyperparameter_metric_tag) and set "
                 "hyperparameterMetricTag to it")
    for i, param in _params(ctx):
        name = param.get("parameterName")
        if isinstance(name, str) and _spaced(name):
            ctx.emit((*HP, "params", i, "parameterName"), f"parameterName {name!r} becomes "
                     "Vertex AI's parameterId, which must not contain whitespace",
                     "name the parameter as the trainer's flag, without spaces")


def _spaced(text: str) -> bool:
    return any(c.isspace() for c in text)
