"""AI Platform ``hyperparameters`` as a Vertex ``HyperparameterTuningJob`` (the ml v1 and
aiplatform v1 discovery documents' HyperparameterSpec and StudySpec):
the study (metric, goal, parameters, algorithm, early stopping) and the trial counts; the
trials run the CustomJobSpec the rest of the translation builds."""

from __future__ import annotations

from typing import Any, TypeGuard

from gpujob.findings import JsonPath
from gpujob.numbers import as_count, decimal
from gpujob.services.vertex.translate.notes import Notes, mapping, text
from gpujob.services.vertex.translate.pools import TI

PATH: JsonPath = (TI, "hyperparameters")
DEFAULT_METRIC = "training/hptuning/metric"  # AI Platform's default hyperparameterMetricTag
_SCALES = {"NONE": "SCALE_TYPE_UNSPECIFIED", "UNIT_LINEAR_SCALE": "UNIT_LINEAR_SCALE",
           "UNIT_LOG_SCALE": "UNIT_LOG_SCALE", "UNIT_REVERSE_LOG_SCALE": "UNIT_REVERSE_LOG_SCALE"}
_ALGORITHMS = ("ALGORITHM_UNSPECIFIED", "GRID_SEARCH", "RANDOM_SEARCH")
# the Job schema's text of a double ($defs.double) and of a whole number


def build(hp: dict[str, Any], notes: Notes) -> dict[str, Any]:
    """The HyperparameterTuningJob fields other than displayName, labels, encryption and the
    trial job spec."""
    if "resumePreviousJobId" in hp:
        notes.error("hyperparameters", (*PATH, "resumePreviousJobId"), "Vertex cannot resume "
                    "a previous hyperparameter tuning job: it has no resumePreviousJobId",
                    "remove resumePreviousJobId: the job starts a new study" + (
                        "" if isinstance(hp.get("params"), list) else ", so give its params "
                        "(and goal) as the previous job's config did"))
    study: dict[str, Any] = {"metrics": [_metric(hp, notes)], "parameters": _parameters(hp,
                                                                                       notes)}
    algorithm = text(hp.get("algorithm"))
    if algorithm in _ALGORITHMS:
        study["algorithm"] = algorithm
        notes.came_from(("studySpec", "algorithm"), (*PATH, "algorithm"))
    if hp.get("enableTrialEarlyStopping") is True:
        study["decayCurveStoppingSpec"] = {}
        notes.came_from(("studySpec", "decayCurveStoppingSpec"),
                        (*PATH, "enableTrialEarlyStopping"))
        notes.note("hyperparameters", (*PATH, "enableTrialEarlyStopping"),
                   "enableTrialEarlyStopping became decay-curve stopping "
                   "(decayCurveStoppingSpec): Vertex has no on/off switch and asks for one of "
                   "three stopping rules")
    body: dict[str, Any] = {"studySpec": study}
    for legacy, vertex in (("maxTrials", "maxTrialCount"),
                           ("maxParallelTrials", "parallelTrialCount")):
        value = as_count(hp.get(legacy))
        body[vertex] = value if value is not None else 1  # both AI Platform defaults are 1
        if value is not None:
            notes.came_from((vertex,), (*PATH, legacy))
    failed = as_count(hp.get("maxFailedTrials"))
    if failed is not None:
        body["maxFailedTrialCount"] = failed
        notes.came_from(("maxFailedTrialCount",), (*PATH, "maxFailedTrials"))
    return body


def _metric(hp: dict[str, Any], notes: Notes) -> dict[str, Any]:
    goal = text(hp.get("goal"))
    here = ("studySpec", "metrics", 0)
    if goal is not None:
        notes.came_from((*here, "goal"), (*PATH, "goal"))
    if goal is None:
        goal = "MAXIMIZE"
        notes.note("hyperparameters", PATH, "goal is not set: MAXIMIZE, AI Platform's default, "
                   "is sent (Vertex requires a goal)", location=notes.key(PATH))
    metric = text(hp.get("hyperparameterMetricTag"))
    if metric is None:
        metric = DEFAULT_METRIC
        notes.warn("hyperparameters", PATH, "hyperparameterMetricTag is not set: the metric "
                   f"sent is AI Platform's default {DEFAULT_METRIC!r}, and whether Vertex "
                   "accepts '/' in a metric id is unverified",
                   "set hyperparameterMetricTag to the name the trainer reports its metric "
                   "under with cloudml-hypertune", location=notes.key(PATH))
    else:
        notes.came_from((*here, "metricId"), (*PATH, "hyperparameterMetricTag"))
        if "/" in metric:
            notes.warn("hyperparameters", (*PATH, "hyperparameterMetricTag"),
                       f"metric {metric!r}: whether Vertex accepts '/' in a metric id is "
                       "unverified", "report the metric under a name without '/' "
                       "(cloudml-hypertune)")
    return {"metricId": metric, "goal": goal}


def _parameters(hp: dict[str, Any], notes: Notes) -> list[dict[str, Any]]:
    params = hp.get("params")
    if not isinstance(params, list):
        return []
    out: list[dict[str, Any]] = []
    for index, param in enumerate(params):
        source = (*PATH, "params", index)
        spec = _parameter(mapping(param), source, notes)
        if spec is not None:
            _parameter_origins(spec, source, ("studySpec", "parameters", len(out)), notes)
            out.append(spec)
    return out


_PARAMETER_SOURCES = {"parameterId": "parameterName", "scaleType": "scaleType",
                      "categoricalValueSpec": "categoricalValues",
                      "discreteValueSpec": "discreteValues"}


def _parameter_origins(spec: dict[str, Any], source: JsonPath, target: JsonPath,
                       notes: Notes) -> None:
    for key, legacy in _PARAMETER_SOURCES.items():
        if key in spec:
            notes.came_from((*target, key), (*source, legacy))
    for key in ("doubleValueSpec", "integerValueSpec"):
        if key in spec:
            for bound in ("minValue", "maxValue"):
                notes.came_from((*target, key, bound), (*source, bound))


def _parameter(param: dict[str, Any], path: JsonPath, notes: Notes) -> dict[str, Any] | None:
    name, kind = text(param.get("parameterName")), text(param.get("type"))
    if name is None or kind is None:
        return None  # the schema reports it
    spec: dict[str, Any] = {"parameterId": name}
    low, high = _number(param.get("minValue")), _number(param.get("maxValue"))
    values = param.get("discreteValues")
    discrete = [_number(v) for v in values] if isinstance(values, list) else [None]
    if kind == "DOUBLE" and low is not None and high is not None:
        spec["doubleValueSpec"] = {"minValue": low, "maxValue": high}
    elif kind == "INTEGER" and _whole(low) and _whole(high):
        # int64 in the discovery document: sent as strings
        spec["integerValueSpec"] = {"minValue": str(int(low)), "maxValue": str(int(high))}
    elif kind == "CATEGORICAL" and isinstance(param.get("categoricalValues"), list):
        spec["categoricalValueSpec"] = {"values": [str(v) for v in param["categoricalValues"]]}
    elif kind == "DISCRETE" and None not in discrete:
        spec["discreteValueSpec"] = {"values": discrete}
    else:
        return None  # a malformed parameter: the schema and the rules report it
    scale = text(param.get("scaleType"))
    if scale is not None and kind == "CATEGORICAL":
        notes.warn("dropped", (*path, "scaleType"), "scaleType is not sent: Vertex wants none "
                   "on a CATEGORICAL parameter")
    elif scale in _SCALES:
        spec["scaleType"] = _SCALES[scale]
    return spec


def _number(value: Any) -> int | float | None:
    """A bound or value as a number: as written, or read from a string holding one (``'0.001'``:
    the APIs' JSON takes both, and AI Platform's body carries it as written); None for what
    the schema refuses."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    return decimal(value) if isinstance(value, str) else None


def _whole(value: int | float | None) -> TypeGuard[int | float]:
    return value is not None and float(value).is_integer()
