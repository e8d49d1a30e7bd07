"""A hyperparameter tuning job's trials in a few lines: how many in each state, and the best
one by the study's first metric (its goal: MAXIMIZE, the default, or MINIMIZE)."""

from __future__ import annotations

from collections import Counter
from typing import Any


def _metric(trial: dict[str, Any], metric_id: str) -> float | None:
    measurement = trial.get("finalMeasurement")
    metrics = measurement.get("metrics") if isinstance(measurement, dict) else None
    for metric in metrics if isinstance(metrics, list) else []:
        if isinstance(metric, dict) and metric.get("metricId") == metric_id:
            try:
                return float(metric.get("value", 0.0))
            except (TypeError, ValueError):
                return None
    return None


def _parameters(trial: dict[str, Any]) -> str:
    found = trial.get("parameters")
    return ", ".join(f"{p.get('parameterId')}={_short(p.get('value'))}"
                     for p in (found if isinstance(found, list) else []) if isinstance(p, dict))


def _short(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def best(job: dict[str, Any]) -> tuple[dict[str, Any], str, float] | None:
    """(the best trial, its metric's ID, its value), among trials with a final measurement."""
    spec = found if isinstance(found := job.get("studySpec"), dict) else {}
    metrics = found if isinstance(found := spec.get("metrics"), list) else []
    first = metrics[0] if metrics and isinstance(metrics[0], dict) else {}
    metric_id = str(first.get("metricId", ""))
    lowest = first.get("goal") == "MINIMIZE"
    trials = found if isinstance(found := job.get("trials"), list) else []
    scored = [(value, trial) for trial in trials if isinstance(trial, dict)
              and trial.get("state") == "SUCCEEDED"
              and (value := _metric(trial, metric_id)) is not None]
    if not scored:
        return None
    value, trial = (min if lowest else max)(scored, key=lambda pair: pair[0])
    return trial, metric_id, value


def summary(job: dict[str, Any]) -> tuple[str, ...]:
    """``trials: …`` and ``best trial: …`` for a tuning job; nothing for a custom job."""
    if "trialJobSpec" not in job and "studySpec" not in job:
        return ()
    trials = [t for t in job.get("trials") or [] if isinstance(t, dict)]
    planned = job.get("maxTrialCount", "?")
    if not trials:
        return (f"trials: none yet ({planned} to run, {job.get('parallelTrialCount', 1)} at a "
                "time)",)
    states = Counter(str(t.get("state", "STATE_UNSPECIFIED")) for t in trials)
    counts = ", ".join(f"{count} {state}" for state, count in sorted(states.items()))
    lines = [f"trials: {len(trials)} of {planned} ({counts})"]
    found = best(job)
    if found is not None:
        trial, metric_id, value = found
        lines.append(f"best trial: {trial.get('id', '?')}, {metric_id}={value:g} "
                     f"({_parameters(trial)})")
    return tuple(lines)
